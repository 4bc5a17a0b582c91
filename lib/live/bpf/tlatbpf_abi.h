/* SPDX-License-Identifier: MIT */
/*
 * tlatbpf_abi.h - what the BPF program of `latscope timerlat --backend bpf`
 * (live/bpf/tlatbpf.bpf.c) shares with its loader (live/tlatbpf.c): the
 * per-CPU summary of one context and the stop.
 *
 * Prefix: tlatbpf_ (TLATBPF_ for constants).
 *
 * Included by the BPF object (clang -target bpf, with vmlinux.h) and by
 * userspace C (linux/types.h); only fixed-width types.
 */
#ifndef LATSCOPE_TLATBPF_ABI_H
#define LATSCOPE_TLATBPF_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* the contexts, numbered as the kernel numbers them (irq, thread, user-ret) */
#define TLATBPF_NR_CTX 3
/* the most buckets per context (-E): the bucket array has possible CPUs x
 * 3 x entries u64 (2.4 MB a CPU at the most) */
#define TLATBPF_MAX_ENTRIES 100000

/*
 * One CPU's samples of one context: an element of the array tlatbpf_sums,
 * indexed by cpu * 3 + context, mapped into latscope.  The program runs on
 * the CPU whose timer fired (the IRQ there, the thread pinned there), so
 * each element is written by its CPU only.
 */
struct tlatbpf_sum {
	__u64 count, sum_ns, min_ns, max_ns;
	__u64 over;		/* samples past the last bucket */
	__u64 missed;		/* activations skipped between two samples */
	__u64 restarts;		/* the activation numbers began again */
	__u64 cur_ns;		/* the newest sample */
	__u64 worst_ns, worst_ts_ns;	/* the worst sample and its time (CLOCK_MONOTONIC) */
	__u32 first_seq;	/* the first activation counted (since the last restart) */
	__u32 last_seq;		/* the newest */
	__u32 worst_seq;
	__u32 pad;
};

/* The first sample at or above its context's threshold (a global of the
 * program's .bss: hit is set once, atomically; nothing is counted after). */
struct tlatbpf_stop {
	__u64 hit;		/* 0, else the number of samples that found it set */
	__u64 lat_ns, ts_ns;
	__u32 cpu;
	__s32 ctx;
	__u32 seq;
	__u32 pad;
};

#endif
