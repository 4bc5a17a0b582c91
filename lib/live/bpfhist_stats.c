/* SPDX-License-Identifier: MIT */
/* bpfhist_stats.c - the pure parts of the bpf backend's counters
 * (bpfhist.h): built with or without the backend. */
#include <inttypes.h>
#include <stdio.h>

#include "live/bpfhist.h"

uint64_t bpfhist_misses_text(const struct bpfhist_stats *st, char *buf, size_t len)
{
	uint64_t total = 0;
	size_t u = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < st->nr_progs && i < BPFHIST_MAX_PROGS; i++) {
		const struct bpfhist_prog_stat *p = &st->progs[i];
		if (!p->recursion_misses)
			continue;
		total += p->recursion_misses;
		if (u < len) {
			int n = snprintf(buf + u, len - u, "%s%.*s %" PRIu64, u ? ", " : "",
					 (int)sizeof(p->name), p->name, p->recursion_misses);
			u = n < 0 ? len : u + (size_t)n;
		}
	}
	return total;
}
