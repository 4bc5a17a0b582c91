/* SPDX-License-Identifier: MIT */
/*
 * ksymcheck - load a kallsyms file with lib/ksym and resolve addresses.
 *
 *   ksymcheck [FILE [ADDR...]]
 *
 * FILE defaults to /proc/kallsyms.  Prints the load's counters and how long
 * reading and indexing took (one wall-clock measurement, not a benchmark),
 * and how long ksym_load_mem() takes on the same text already in memory
 * (parse and index only), then one line per ADDR (hex): "ADDR sym+0xoff ([dso])" or "ADDR [unknown]".
 * Exits 0, or 1 when the load failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/ksym.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/proc/kallsyms";
	struct ksym *k;
	double t0 = now_ms();
	int rc = ksym_load(&k, path);
	double t1 = now_ms();

	if (rc) {
		fprintf(stderr, "ksymcheck: %s: %s%s\n", path, strerror(-rc),
			rc == -EPERM ? " (all addresses are 0: kptr_restrict hides them)" : "");
		return 1;
	}
	const struct ksym_stats *st = ksym_stats(k);
	printf("%s: %zu lines, %zu symbols (%zu in modules), %zu other types, %zu aliases, "
	       "%zu malformed, %zu bad addresses, %s; load %.2f ms\n",
	       path, st->lines, st->symbols, st->modules, st->other_types, st->aliases,
	       st->malformed, st->bad_addr, st->sorted ? "sorted" : "unsorted", t1 - t0);
	/* the same text from memory: parsing and indexing without the read */
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 20, len = 0, r;
	char *text = malloc(cap);
	while (f && text && (r = fread(text + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			char *nt = realloc(text, cap *= 2);
			if (!nt)
				break;
			text = nt;
		}
	}
	if (f)
		fclose(f);
	if (text) {
		struct ksym *k2;
		t0 = now_ms();
		rc = ksym_load_mem(&k2, text, len);
		t1 = now_ms();
		printf("ksym_load_mem: %zu bytes, rc %d, %.2f ms\n", len, rc, t1 - t0);
		ksym_free(k2);
		free(text);
	}
	for (int i = 2; i < argc; i++) {
		uint64_t a = strtoull(argv[i], NULL, 16);
		struct ksym_hit h;
		char line[KSYM_NAME_MAX + 128];

		if (ksym_lookup(k, a, &h)) {
			ksym_format(line, sizeof(line), &h);
			printf("%" PRIx64 " %s\n", a, line);
		} else {
			printf("%" PRIx64 " [unknown]\n", a);
		}
	}
	ksym_free(k);
	return 0;
}
