/* SPDX-License-Identifier: MIT */
/* bpfhist_none.c - the BPF histogram backend compiled out (bpfhist.h): the
 * Makefile builds this file instead of bpfhist.c where libbpf, clang,
 * bpftool or the kernel's BTF was missing, and says why in BPFHIST_WHY. */
#include <errno.h>
#include <stdio.h>

#include "live/bpfhist.h"

const char *bpfhist_built(void)
{
	return BPFHIST_WHY;
}

int bpfhist_open(struct bpfhist **out, const struct bpfhist_cfg *cfg, char *why, size_t why_len)
{
	(void)cfg;
	*out = NULL;
	snprintf(why, why_len, "latscope was built without the bpf backend: %s", BPFHIST_WHY);
	return -EOPNOTSUPP;
}

bool bpfhist_has_timers(const struct bpfhist *b)
{
	(void)b;
	return false;
}

bool bpfhist_irqsoff_attached(const struct bpfhist *b)
{
	(void)b;
	return false;
}

int bpfhist_read(struct bpfhist *b, struct hset *set, struct bpfhist_stats *st)
{
	(void)b;
	(void)set;
	(void)st;
	return -EOPNOTSUPP;
}

int bpfhist_reset(struct bpfhist *b)
{
	(void)b;
	return -EOPNOTSUPP;
}

int bpfhist_local_timer(struct bpfhist *b, uint32_t cpu, struct bpfhist_ltimer *out)
{
	(void)b;
	(void)cpu;
	(void)out;
	return -EOPNOTSUPP;
}

void bpfhist_stop(struct bpfhist *b)
{
	(void)b;
}

void bpfhist_close(struct bpfhist *b)
{
	(void)b;
}
