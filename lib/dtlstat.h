/* SPDX-License-Identifier: MIT */
/*
 * dtlstat.h - DTL statistics: reason counts, latency histograms, hypervisor
 * (stolen) time, dispatch rate, processor changes, worst dispatch delays.
 *
 * Prefix: dtls_.
 *
 * Built for throughput: dtls_add_payload() walks raw AUX payloads in a
 * tight loop with no allocation (per-CPU state is allocated once, the first
 * time a CPU is seen).  Histograms are log-linear over timebase ticks
 * (16 sub-buckets per power of two, <= 6.25 % relative bucket width); exact
 * count, sum, min and max are kept beside them.  Never prints.
 */
#ifndef LATSCOPE_DTLSTAT_H
#define LATSCOPE_DTLSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtl.h"

#define DTLS_MAX_CPUS	4096
#define DTLS_SUB_BITS	4
#define DTLS_NBUCKETS	((33 - DTLS_SUB_BITS) * (1 << DTLS_SUB_BITS))	/* covers u32 */
#define DTLS_NWORST	10

enum { DTLS_E2D, DTLS_R2E, DTLS_W2R, DTLS_NTIMES };	/* the three time fields */

struct dtls_hist {
	uint64_t count, sum, min, max;		/* ticks */
	uint64_t b[DTLS_NBUCKETS];
};

/* A worst dispatch delay: enqueue_to_dispatch + ready_to_enqueue. */
struct dtls_worst {
	uint64_t delay_tb;
	uint64_t timebase;
	uint32_t cpu;
	struct dtl_entry e;
};

struct dtls_cpu {
	uint32_t cpu;
	uint64_t entries;
	uint64_t dispatch[256];			/* by raw code (out-of-range included) */
	uint64_t preempt[256];
	struct dtls_hist h[DTLS_NTIMES];
	uint64_t stolen_tb;			/* sum of enqueue_to_dispatch + ready_to_enqueue */
	uint64_t first_tb, last_tb;		/* first and last timebase seen */
	uint64_t tb_backwards;
	bool have_proc;
	uint16_t last_proc;
	uint64_t proc_changes;			/* dispatched on another processor than last time */
	struct dtl_tbinfo tbi;			/* from this CPU's header, if any */
};

struct dtls;

/* dtls_new - 0 or -ENOMEM; caller frees with dtls_free(). */
int dtls_new(struct dtls **sp);
void dtls_free(struct dtls *s);

/*
 * dtls_add_payload - account one AUX payload of CPU cpu.  Header slots set
 * that CPU's timebase parameters (read in the file's order: swap), skipped
 * slots and a trailing partial slot are counted in the scan stats.
 * Returns 0, -ERANGE (cpu out of range, not counted) or -ENOMEM.
 */
int dtls_add_payload(struct dtls *s, uint32_t cpu, const void *data, uint64_t len, bool swap);

/* dtls_add_entry - account one decoded entry (the slow path, e.g. debugfs). */
int dtls_add_entry(struct dtls *s, uint32_t cpu, const struct dtl_entry *e);

/*
 * dtls_add_raw - account one real entry in its 48 raw bytes (e.g. from the
 * merged timeline) with the timebase parameters it was converted with.
 * 0, -ERANGE (cpu out of range) or -ENOMEM.
 */
int dtls_add_raw(struct dtls *s, uint32_t cpu, const uint8_t *raw, const struct dtl_tbinfo *tbi);

/* dtls_set_scan - replace the payload counters (when the payloads were walked
 * elsewhere, e.g. by the merge; entries and bad_reasons are kept). */
void dtls_set_scan(struct dtls *s, const struct dtl_scan_stats *sc);

/* Counters of the payload walk. */
const struct dtl_scan_stats *dtls_scan_stats(const struct dtls *s);

/* The CPU's state, or NULL when it had no entry or header. */
const struct dtls_cpu *dtls_cpu(const struct dtls *s, uint32_t cpu);
/* Highest CPU number seen + 1. */
uint32_t dtls_nr_cpus(const struct dtls *s);

/* dtls_total - sum of all CPUs into *out (first/last are the min/max
 * timebase; proc/tbi fields are the first CPU's). */
void dtls_total(const struct dtls *s, struct dtls_cpu *out);

/* Timebase parameters: the first header seen on any CPU ({0,0} if none). */
struct dtl_tbinfo dtls_tbinfo(const struct dtls *s);

/* The worst dispatch delays, largest first; returns how many (<= DTLS_NWORST). */
size_t dtls_worst(const struct dtls *s, const struct dtls_worst **w);

/* Recorded span of a CPU in ticks (last - first timebase; 0 if < 2 entries). */
uint64_t dtls_span_tb(const struct dtls_cpu *c);

/* Percentile p (0..100) of a histogram in ticks, by lhist_pct_buckets()'s
 * nearest-rank rule (the last value of the bucket holding the rank,
 * clamped to [min, max]).  0 for an empty histogram. */
uint64_t dtls_hist_percentile(const struct dtls_hist *h, double p);

/* Bucket index of a value in ticks, and the lowest value of a bucket. */
unsigned dtls_bucket(uint64_t v);
uint64_t dtls_bucket_low(unsigned idx);

/*
 * dtls_hist_log2 - regroup a histogram into power-of-two microsecond bins:
 * out[0] counts < 1 us, out[k] counts [2^(k-1), 2^k) us; nout bins, the last
 * absorbing the rest.  Bucket edges are converted with tb_freq, so a bin is
 * exact to within one source bucket.
 */
void dtls_hist_log2_us(const struct dtls_hist *h, uint64_t tb_freq, uint64_t *out, size_t nout);

#endif
