/* SPDX-License-Identifier: MIT */
/* bpfhist_stats.c - the pure parts of the bpf backend's counters
 * (bpfhist.h): built with or without the backend. */
#include "live/bpfhist.h"

uint64_t bpfhist_misses_text(const struct bpfhist_stats *st, char *buf, size_t len)
{
	return bpfload_misses_text(st->progs, st->nr_progs < BPFHIST_MAX_PROGS ? st->nr_progs : BPFHIST_MAX_PROGS,
				   buf, len);
}
