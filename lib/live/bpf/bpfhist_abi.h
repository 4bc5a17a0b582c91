/* SPDX-License-Identifier: MIT */
/*
 * bpfhist_abi.h - what the BPF programs of the bpf histogram backend
 * (live/bpf/bpfhist.bpf.c) and their loader (live/bpfhist.c) share: the
 * layout of the maps' values and the bucket rule.
 *
 * Prefix: bpfhist_ (BPFHIST_ for constants).
 *
 * Included by the BPF object (clang -target bpf, with vmlinux.h: the kernel's
 * types) and by userspace C (linux/types.h); only fixed-width types.  The
 * bucket rule is lhist_record()'s (base/lhist.c), kept equal by
 * tests/unit/test_bpfhist.c.
 */
#ifndef LATSCOPE_BPFHIST_ABI_H
#define LATSCOPE_BPFHIST_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* The kinds the programs file, numbered as enum hset_kind (base/hset.h)
 * numbers them; the loader checks that. */
#define BPFHIST_WAKEUP 0
#define BPFHIST_WAKEUP_SHAREDPRIO 1
#define BPFHIST_MISSED_TIMER 2
#define BPFHIST_TIMERANDWAKEUP 3
#define BPFHIST_IRQSOFF 4
#define BPFHIST_PREEMPTOFF 5
#define BPFHIST_PREEMPTIRQSOFF 6
#define BPFHIST_NR_KINDS 7

#define BPFHIST_COMM_LEN 16
#define BPFHIST_RT_PRIO 100		/* kernel prio < 100: an RT task */
/* The CPUs a wakeup's missed-migration fix-up and an exit look at (a bounded
 * loop for the verifier); the loader refuses more CPUs than this. */
#define BPFHIST_MAX_CPUS 256
/* Entries of a kind's histogram in the per-CPU bucket map, at most (kinds x
 * buckets x 8 bytes per CPU). */
#define BPFHIST_MAX_BUCKETS 65536

struct bpfhist_task {
	__s32 pid, prio;
	char comm[BPFHIST_COMM_LEN];
};

/* The worst case of a kind on a CPU (hset_max). */
struct bpfhist_max {
	__u32 valid, has_culprit;
	__s64 latency_ns, timer_offset_ns;
	__u64 time_ns;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	struct bpfhist_task victim, culprit;
};

/* A kind's histogram on a CPU, but the buckets (lhist's other fields). */
struct bpfhist_kstat {
	__u64 total, below, above;
	__s64 min_ns, max_ns, sum_ns;
	struct bpfhist_max max;
};

/* Counters (a per-CPU array indexed by these), as struct latency_stats
 * names them. */
enum bpfhist_counter {
	BPFHIST_C_EVENTS,		/* program runs */
	BPFHIST_C_WAKE_IGNORED,
	BPFHIST_C_DROPPED_PRIO,
	BPFHIST_C_DROPPED_RUNNING,
	BPFHIST_C_REPLACED,
	BPFHIST_C_MIGRATED,
	BPFHIST_C_TIMER_UNKNOWN,
	BPFHIST_C_TIMER_EARLY,
	BPFHIST_C_NESTED,		/* runs begun inside another of ours on the same CPU */
	BPFHIST_C_UNMATCHED_ENABLE,	/* an irq/preempt enable with no disable seen */
	BPFHIST_NR_COUNTERS
};

enum bpfhist_where { BPFHIST_IN, BPFHIST_BELOW, BPFHIST_ABOVE };

/*
 * bpfhist_bucket - where lhist_record() files v_ns with a histogram of
 * lo_ns / bucket_ns / nr_buckets: below the first bucket, above the last,
 * or in bucket *idx.  bucket_ns >= 1.
 */
static inline enum bpfhist_where bpfhist_bucket(__s64 v_ns, __s64 lo_ns, __u64 bucket_ns,
						__u32 nr_buckets, __u32 *idx)
{
	__u64 i;

	if (v_ns < lo_ns)
		return BPFHIST_BELOW;
	i = ((__u64)v_ns - (__u64)lo_ns) / bucket_ns;
	if (i >= nr_buckets)
		return BPFHIST_ABOVE;
	*idx = (__u32)i;
	return BPFHIST_IN;
}

#endif
