/* SPDX-License-Identifier: MIT */
/*
 * dtlstat.h - DTL statistics: reason counts, latency histograms, hypervisor
 * (stolen) time, dispatch rate, processor changes, worst dispatch delays.
 *
 * Prefix: dtlstat_.
 *
 * Built for throughput: dtlstat_add_payload() walks raw AUX payloads in a
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

#include "format/dtl.h"

#define DTLSTAT_MAX_CPUS	4096
#define DTLSTAT_SUB_BITS	4
#define DTLSTAT_NBUCKETS	((33 - DTLSTAT_SUB_BITS) * (1 << DTLSTAT_SUB_BITS))	/* covers u32 */
#define DTLSTAT_NWORST	10

enum { DTLSTAT_E2D, DTLSTAT_R2E, DTLSTAT_W2R, DTLSTAT_NTIMES };	/* the three time fields */

struct dtlstat_hist {
	uint64_t count, sum, min, max;		/* ticks */
	uint64_t b[DTLSTAT_NBUCKETS];
};

/* A worst dispatch delay: enqueue_to_dispatch + ready_to_enqueue. */
struct dtlstat_worst {
	uint64_t delay_tb;
	uint64_t timebase;
	uint32_t cpu;
	struct dtl_entry e;
};

struct dtlstat_cpu {
	uint32_t cpu;
	uint64_t entries;
	uint64_t dispatch[256];			/* by raw code (out-of-range included) */
	uint64_t preempt[256];
	struct dtlstat_hist h[DTLSTAT_NTIMES];
	uint64_t stolen_tb;			/* sum of enqueue_to_dispatch + ready_to_enqueue */
	uint64_t first_tb, last_tb;		/* first and last timebase seen */
	uint64_t tb_backwards;
	bool have_proc;
	uint16_t last_proc;
	uint64_t proc_changes;			/* dispatched on another processor than last time */
	uint64_t aux_wraps;			/* laps of the driver's AUX buffer (dtl_slicer) */
	uint64_t aux_holes;			/* holes in its AUX stream (an overrun) */
	uint64_t aux_hole_bytes;		/* their bytes: never in the file */
	struct dtl_tbinfo tbi;			/* from this CPU's header, if any */
};

struct dtlstat;

/* dtlstat_new - 0 or -ENOMEM; caller frees with dtlstat_free(). */
int dtlstat_new(struct dtlstat **sp);
void dtlstat_free(struct dtlstat *s);

/*
 * dtlstat_add_payload - account the bytes [data, data + len) of CPU cpu's AUX
 * stream, at stream offset pos (the AUXTRACE record's offset plus the
 * position in its payload); last: they end the payload (a payload may come
 * in several calls, in order).  The CPU's dtl_slicer (format/dtl.h) skips
 * the zero run at each AUX buffer lap's end and joins a slot the calls cut.
 * Header slots set that CPU's timebase parameters (read in the file's
 * order: swap); skipped slots, lap ends and a payload's partial last slot
 * are counted in the scan stats.
 * Returns 0, -ERANGE (cpu out of range, not counted) or -ENOMEM.
 */
int dtlstat_add_payload(struct dtlstat *s, uint32_t cpu, uint64_t pos, const void *data, uint64_t len,
			bool last, bool swap);

/* dtlstat_add_entry - account one decoded entry (the slow path, e.g. debugfs). */
int dtlstat_add_entry(struct dtlstat *s, uint32_t cpu, const struct dtl_entry *e);

/*
 * dtlstat_add_raw - account one real entry in its 48 raw bytes (e.g. from the
 * merged timeline) with the timebase parameters it was converted with.
 * 0, -ERANGE (cpu out of range) or -ENOMEM.
 */
int dtlstat_add_raw(struct dtlstat *s, uint32_t cpu, const uint8_t *raw, const struct dtl_tbinfo *tbi);

/* dtlstat_set_scan - replace the payload counters (when the payloads were walked
 * elsewhere, e.g. by the merge; entries and bad_reasons are kept). */
void dtlstat_set_scan(struct dtlstat *s, const struct dtl_scan_stats *sc);

/* Counters of the payload walk. */
const struct dtl_scan_stats *dtlstat_scan_stats(const struct dtlstat *s);

/* The CPU's state, or NULL when it had no entry or header. */
const struct dtlstat_cpu *dtlstat_cpu(const struct dtlstat *s, uint32_t cpu);
/* Highest CPU number seen + 1. */
uint32_t dtlstat_nr_cpus(const struct dtlstat *s);

/* dtlstat_total - sum of all CPUs into *out (first/last are the min/max
 * timebase; proc/tbi fields are the first CPU's). */
void dtlstat_total(const struct dtlstat *s, struct dtlstat_cpu *out);

/* Timebase parameters: the first header seen on any CPU ({0,0} if none). */
struct dtl_tbinfo dtlstat_tbinfo(const struct dtlstat *s);

/* The worst dispatch delays, largest first; returns how many (<= DTLSTAT_NWORST). */
size_t dtlstat_worst(const struct dtlstat *s, const struct dtlstat_worst **w);

/* Recorded span of a CPU in ticks (last - first timebase; 0 if < 2 entries). */
uint64_t dtlstat_span_tb(const struct dtlstat_cpu *c);

/* Percentile p (0..100) of a histogram in ticks, by lhist_pct_buckets()'s
 * nearest-rank rule (the last value of the bucket holding the rank,
 * clamped to [min, max]).  0 for an empty histogram. */
uint64_t dtlstat_hist_percentile(const struct dtlstat_hist *h, double p);

/* Bucket index of a value in ticks, and the lowest value of a bucket. */
unsigned dtlstat_bucket(uint64_t v);
uint64_t dtlstat_bucket_low(unsigned idx);

/*
 * dtlstat_hist_log2 - regroup a histogram into power-of-two microsecond bins:
 * out[0] counts < 1 us, out[k] counts [2^(k-1), 2^k) us; nout bins, the last
 * absorbing the rest.  Bucket edges are converted with tb_freq, so a bin is
 * exact to within one source bucket.
 */
void dtlstat_hist_log2_us(const struct dtlstat_hist *h, uint64_t tb_freq, uint64_t *out, size_t nout);

#endif
