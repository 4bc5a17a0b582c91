/* SPDX-License-Identifier: MIT */
/*
 * slurp.h - a whole file in memory, for the test tools that rewrite
 * perf.data files (dtldamage, ckptcut).
 */
#ifndef LATSCOPE_TEST_SLURP_H
#define LATSCOPE_TEST_SLURP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The file at path, malloc'd (the caller frees it), its length in *len;
 * NULL when it cannot be read. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

#endif
