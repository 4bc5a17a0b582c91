/* SPDX-License-Identifier: MIT */
/* bpfload_text.c - the pure part of bpfload.h: built with or without the
 * BPF backends. */
#include <inttypes.h>
#include <stdio.h>

#include "live/bpfload.h"

uint64_t bpfload_misses_text(const struct bpfload_prog *p, uint32_t n, char *buf, size_t len)
{
	uint64_t total = 0;
	size_t u = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (!p[i].recursion_misses)
			continue;
		total += p[i].recursion_misses;
		if (u < len) {
			int w = snprintf(buf + u, len - u, "%s%.*s %" PRIu64, u ? ", " : "",
					 (int)sizeof(p[i].name), p[i].name, p[i].recursion_misses);
			u = w < 0 ? len : u + (size_t)w;
		}
	}
	return total;
}
