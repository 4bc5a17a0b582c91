/* SPDX-License-Identifier: MIT */
/*
 * promexp.h - Prometheus text exposition (format 0.0.4) of latscope's
 * measurements: the histograms of a set (base/hset.h), their worst cases,
 * counters and gauges.
 *
 * Prefix: promexp_.
 *
 * Names follow Prometheus's conventions and latscope's output rules: base
 * units (seconds), counters end in _total, histograms are
 * <name>_bucket{le=...}/<name>_sum/<name>_count, one HELP and TYPE line per
 * family.  A histogram's 1 us buckets are folded into the bucket bounds the
 * caller gives (exposition buckets: tens of series, not ten thousand); a
 * bound is exclusive of itself: le="0.000005" counts the samples below 5 us
 * (the samples are whole nanoseconds in 1 us buckets, so this is exact; one
 * of exactly 5.000000 us lands in the next bucket).  Label values are
 * escaped (\\, \", \n).  The +Inf bucket and _count are the buckets'
 * sum (below + every bucket + above), equal to the total in a consistent
 * set, monotonic in any.  Text goes to a caller's FILE (open_memstream() for a
 * buffer); nothing is printed otherwise, nothing exits.
 */
#ifndef LATSCOPE_PROMEXP_H
#define LATSCOPE_PROMEXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/hset.h"

#define PROMEXP_MAX_BOUNDS 64

/* The default exposition buckets, in ns: 1 2 5 10 20 50 ... 10000 us. */
extern const uint64_t promexp_default_bounds_ns[];
extern const size_t promexp_default_nr_bounds;

/*
 * promexp_first_bad_bound - the index of the first of bounds_ns[nr] that is
 * not above the one before it or not a bucket edge of geometry g (lo_ns +
 * a multiple of bucket_ns), nr when every one is fine.  Pure.
 */
size_t promexp_first_bad_bound(const struct lhist_cfg *g, const uint64_t *bounds_ns, size_t nr);

/*
 * promexp_hset - the histograms of set whose kind has kinds[k] set, as the
 * family <prefix>_latency_seconds{kind, cpu}, with the buckets bounds_ns[nr]
 * (increasing, multiples of the set's bucket width from its lower edge;
 * NULL = the defaults), then the worst cases as <prefix>_latency_max_seconds
 * {kind, cpu} and the info series <prefix>_latency_max_info{kind, cpu,
 * victim_comm, victim_pid, victim_prio, culprit_comm, culprit_pid,
 * culprit_prio} 1 (priorities as the text and the JSON show them,
 * hset_user_prio(): 95 for SCHED_FIFO 95, -21 for nice 0).  A CPU without samples of a kind is
 * left out.  Returns 0, -EINVAL for bad bounds, -EIO on a write error.
 */
int promexp_hset(FILE *f, const char *prefix, const struct hset *set, const bool kinds[HSET_NR_KINDS],
		 const uint64_t *bounds_ns, size_t nr);

/* One label: name="value" (value escaped). */
struct promexp_label {
	const char *name, *value;
};

/*
 * promexp_family - the HELP and TYPE lines of a family (type "counter",
 * "gauge", "untyped"); promexp_sample - one sample of it with up to 8 labels.
 * A value is printed as a whole number when it is one, else with 15
 * significant decimals.  0 or -EIO.
 */
int promexp_family(FILE *f, const char *name, const char *type, const char *help);
int promexp_sample(FILE *f, const char *name, const struct promexp_label *labels, size_t nr_labels,
		   double value);

/* One CPU's timer latency in one context (the monitor's --timerlat): 1 us
 * buckets from 0, counts borrowed. */
struct promexp_tlat {
	unsigned cpu;
	const char *context;		/* "irq", "thread", "user" */
	const uint64_t *counts;		/* nr_buckets, bucket i = [i, i + 1) us */
	uint32_t nr_buckets;
	uint64_t over;			/* samples past the last bucket */
	uint64_t count, sum_ns, max_ns, missed;
};

/*
 * promexp_timerlat - the timer latencies of n series as the histogram
 * family latscope_timerlat_latency_seconds{cpu, context} with the buckets
 * bounds_ns[nr] (whole microseconds, increasing; NULL = the defaults), and
 * latscope_timerlat_latency_max_seconds and latscope_timerlat_missed_total
 * {cpu, context}.  0, -EINVAL for bad bounds, -EIO on a write error.
 */
int promexp_timerlat(FILE *f, const struct promexp_tlat *s, size_t n, const uint64_t *bounds_ns, size_t nr);

struct noisemon_cpu;
/*
 * promexp_noise - the noise counters of nr CPUs (engine/noisemon.h) as the
 * families latscope_noise_{periods_total, runtime_seconds_total,
 * seconds_total, gaps_total, max_single_seconds}{cpu} and
 * latscope_noise_class_{seconds,events}_total{cpu, class} (class hw, nmi,
 * irq, softirq, thread: the osnoise document's keys).  0 or -EIO.
 */
int promexp_noise(FILE *f, const struct noisemon_cpu *n, size_t nr);

/* What the DTL families count beside the statistics: the losses only the
 * recording side knows (the caller's; arrays indexed by CPU, DTLSTAT_MAX_CPUS
 * long, NULL = none). */
struct promexp_dtl_losses {
	uint64_t lost;			/* data lost: ring drops, truncated AUX chunks,
					 * chunks refused, failed reads */
	const uint64_t *ring_full;	/* polls that found the hypervisor's ring overrun */
	const uint8_t *stopped;		/* 1: the kernel stopped the CPU's DTL */
};
struct dtlstat;
/*
 * promexp_dtl - the DTL statistics of s (engine/dtlstat.h) as
 * latscope_dtl_lost_total, per vCPU with entries latscope_dtl_{entries_total,
 * hypervisor_seconds_total, dispatch_delay_max_seconds}{cpu},
 * latscope_dtl_loss_events_total{cpu, cause} and
 * latscope_dtl_{dispatches,preemptions}_total{cpu, reason}.  0 or -EIO.
 */
int promexp_dtl(FILE *f, const struct dtlstat *s, const struct promexp_dtl_losses *l);

/* Write s as an escaped label value.  0 or -EIO. */
int promexp_escape(FILE *f, const char *s);

#endif
