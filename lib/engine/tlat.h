/* SPDX-License-Identifier: MIT */
/*
 * tlat.h - the timerlat engine: the kernel timerlat tracer's samples (one
 * per activation of a CPU's timer and context: IRQ, thread, user return)
 * kept per CPU and context as histograms with the exact minimum, maximum
 * and sum, the worst sample, and what the activation numbers say was
 * missed: the kernel numbers each CPU's activations 1, 2, 3...; a number
 * skipped in a context is an activation whose record did not reach us (the
 * ring overran, or the reader started late), counted per CPU and context.
 * The numbers start again at 1 when the tracer's threads restart (another
 * instance started or stopped the tracer): counted as a restart, not a loss.
 *
 * Prefix: tlat_.  Pure: no I/O, no allocation after tlat_init().
 *
 *	struct tlat t;
 *	struct tlat_cfg cfg = { .hist = { 0, 1000, 256 } };	// 1 us buckets
 *	tlat_init(&t, nr_cpus, &cfg);
 *	tlat_add(&t, cpu, TLAT_IRQ, seq, latency_ns, ts_ns);	// per record
 *	... t.cpus[cpu].s[TLAT_THREAD].h ...
 *	tlat_fini(&t);
 */
#ifndef LATSCOPE_TLAT_H
#define LATSCOPE_TLAT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lhist.h"

/* The contexts, numbered as the kernel numbers them. */
enum tlat_ctx { TLAT_IRQ = 0, TLAT_THREAD = 1, TLAT_USER = 2, TLAT_NR_CTX = 3 };

/* "irq", "thread", "user" (the JSON keys); "?" out of range. */
const char *tlat_ctx_name(int ctx);

/* One sample: the latency and where it was. */
struct tlat_sample {
	uint64_t lat_ns;
	uint64_t ts_ns;			/* the record's time stamp (trace clock) */
	uint32_t seq;			/* the activation's number on its CPU */
};

/* One CPU's samples of one context. */
struct tlat_series {
	struct lhist h;			/* the latencies in ns (owned buckets) */
	struct tlat_sample worst;	/* valid when h.total > 0 */
	struct tlat_sample last;	/* the newest (top's "cur") */
	uint64_t missed;		/* activations skipped between two records */
	uint64_t restarts;		/* the numbers began again */
	uint32_t first_seq;		/* the first activation since the last restart */
	bool seen;			/* last is set */
};

/* A series' figures kept elsewhere (the bpf backend's maps), for
 * tlat_load(). */
struct tlat_totals {
	const uint64_t *counts;		/* the buckets (the engine's geometry), NULL: none */
	uint64_t count, sum_ns, min_ns, max_ns, over;
	uint64_t missed, restarts;
	struct tlat_sample worst, last;
	uint32_t first_seq;
};

struct tlat_cpu {
	struct tlat_series s[TLAT_NR_CTX];
};

struct tlat_cfg {
	struct lhist_cfg hist;		/* every series' geometry */
	/* a sample at or above stop_ns[ctx] (0: none) is the stop (the first
	 * one is kept in tlat.stop): timerlat's IRQ and thread thresholds,
	 * the thread one for user returns too, as the kernel has them */
	uint64_t stop_ns[TLAT_NR_CTX];
};

struct tlat_stop {
	bool hit;
	uint32_t cpu;
	int ctx;			/* enum tlat_ctx */
	struct tlat_sample sample;
};

struct tlat {
	struct tlat_cfg cfg;
	uint32_t nr_cpus;
	struct tlat_cpu *cpus;		/* nr_cpus, owned */
	uint64_t samples;		/* every sample added */
	uint64_t bad_cpu;		/* samples of a CPU >= nr_cpus or a context out of range: dropped */
	struct tlat_stop stop;		/* the first sample at or above its threshold */
	uint64_t hits;			/* every sample at or above its threshold */
};

/*
 * tlat_init - t for CPUs 0..nr_cpus-1 (1..65536) with cfg's geometry.
 * Returns 0, -EINVAL (bad geometry or CPU count) or -ENOMEM; tlat_fini()
 * frees what it took, also after a failure.
 */
int tlat_init(struct tlat *t, uint32_t nr_cpus, const struct tlat_cfg *cfg);
void tlat_fini(struct tlat *t);

/*
 * tlat_add - one sample of cpu and context ctx: into its histogram, its
 * worst and its missed count (by seq against the previous one).  A sample
 * at or above its context's threshold is counted in t->hits; the first is
 * t->stop.  Returns true when this sample is at or above its threshold.
 */
bool tlat_add(struct tlat *t, uint32_t cpu, int ctx, uint32_t seq, uint64_t lat_ns, uint64_t ts_ns);

/*
 * tlat_load - cpu's series of context ctx replaced by tot (a run whose
 * samples were counted elsewhere: the histogram's buckets, exact count,
 * sum, min and max, the worst and newest sample, missed and restarts).
 * Samples past the last bucket are tot->over; t->samples grows by the
 * count.  0, or -ERANGE for a CPU or context out of range.
 */
int tlat_load(struct tlat *t, uint32_t cpu, int ctx, const struct tlat_totals *tot);

/* The missed activations of context ctx over every CPU. */
uint64_t tlat_missed(const struct tlat *t, int ctx);

/* All of context ctx's samples over every CPU merged into out, which has
 * t's geometry (lhist_init() by the caller; its counts are replaced).
 * 0 or -EINVAL. */
int tlat_merge_ctx(const struct tlat *t, int ctx, struct lhist *out);

#endif
