/* SPDX-License-Identifier: MIT */
/*
 * tlatbpf.h - the bpf backend of `latscope timerlat`: one BPF program on
 * the osnoise:timerlat_sample tracepoint (live/bpf/tlatbpf.bpf.c, libbpf
 * CO-RE, a skeleton built from the tree) keeps every CPU's IRQ, thread and
 * user-return latencies in per-CPU maps while the timerlat tracer runs with
 * its ring off (live/osnkernel.h, ring_off): no sample is copied to user
 * space, so none can be lost on the way.  tlatbpf_read() hands one CPU's
 * and context's figures over.
 *
 * Prefix: tlatbpf_.
 *
 * Built only where the Makefile builds the BPF backends (as bpfhist);
 * otherwise tlatbpf_none.c stands in and every open says why.  Never
 * prints.
 */
#ifndef LATSCOPE_TLATBPF_H
#define LATSCOPE_TLATBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/bpf/tlatbpf_abi.h"
#include "live/bpfload.h"

struct tlatbpf_cfg {
	uint64_t bucket_ns;		/* >= 1 */
	uint32_t entries;		/* 1..TLATBPF_MAX_ENTRIES */
	uint64_t stop_irq_ns, stop_thread_ns;	/* 0: none */
};

struct tlatbpf;

/*
 * tlatbpf_usable - 0 when this kernel has what the backend needs (BTF and
 * the osnoise:timerlat_sample tracepoint, Linux 6.15+) and latscope was
 * built with it; else a negative errno and why (at most len bytes).
 */
int tlatbpf_usable(char *why, size_t len);

/*
 * tlatbpf_open - load the program and attach it: from here on every sample
 * the tracer fires is counted.  0 with *out (tlatbpf_close() frees it), or
 * a negative errno with why (at most len bytes) and *out NULL.
 */
int tlatbpf_open(struct tlatbpf **out, const struct tlatbpf_cfg *cfg, char *why, size_t len);

/* tlatbpf_detach - nothing is counted after it (the maps stay readable). */
void tlatbpf_detach(struct tlatbpf *b);

/*
 * tlatbpf_read - CPU cpu's summary of context ctx into *sum and its
 * buckets into buckets[0..entries) (may be NULL).  0, -ERANGE for a CPU or
 * context out of range, or the map lookup's negative errno.
 */
int tlatbpf_read(struct tlatbpf *b, uint32_t cpu, int ctx, struct tlatbpf_sum *sum, uint64_t *buckets);

/* tlatbpf_stop - the stop so far (its hit 0: none). */
void tlatbpf_stop(const struct tlatbpf *b, struct tlatbpf_stop *stop);

/* tlatbpf_prog - the program's counts, as the kernel keeps them (the
 * misses are samples it never saw). */
int tlatbpf_prog(struct tlatbpf *b, struct bpfload_prog *p);

/* tlatbpf_close - detach, unload, free (NULL is fine). */
void tlatbpf_close(struct tlatbpf *b);

#endif
