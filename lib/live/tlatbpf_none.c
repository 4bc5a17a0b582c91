/* SPDX-License-Identifier: MIT */
/* tlatbpf_none.c - the timerlat bpf backend compiled out (tlatbpf.h): the
 * Makefile builds this file instead of tlatbpf.c where the BPF backends
 * cannot be built; the reason is bpfhist_built()'s. */
#include <errno.h>
#include <stdio.h>

#include "live/bpfhist.h"
#include "live/tlatbpf.h"

int tlatbpf_usable(char *why, size_t len)
{
	snprintf(why, len, "latscope was built without the bpf backend: %s", bpfhist_built());
	return -EOPNOTSUPP;
}

int tlatbpf_open(struct tlatbpf **out, const struct tlatbpf_cfg *cfg, char *why, size_t len)
{
	(void)cfg;
	*out = NULL;
	return tlatbpf_usable(why, len);
}

void tlatbpf_detach(struct tlatbpf *b)
{
	(void)b;
}

int tlatbpf_read(struct tlatbpf *b, uint32_t cpu, int ctx, struct tlatbpf_sum *sum, uint64_t *buckets)
{
	(void)b, (void)cpu, (void)ctx, (void)sum, (void)buckets;
	return -EOPNOTSUPP;
}

void tlatbpf_stop(const struct tlatbpf *b, struct tlatbpf_stop *stop)
{
	(void)b;
	*stop = (struct tlatbpf_stop){ 0 };
}

int tlatbpf_prog(struct tlatbpf *b, struct bpfload_prog *p)
{
	(void)b, (void)p;
	return -EOPNOTSUPP;
}

void tlatbpf_close(struct tlatbpf *b)
{
	(void)b;
}
