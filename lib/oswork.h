/* SPDX-License-Identifier: MIT */
/*
 * oswork.h - the osnoise workload in userspace: one pinned thread per
 * measured CPU reads the time in a loop for `runtime` of every `period` and
 * reports every gap at or above the threshold (and the sub-threshold
 * remainder per period) through a lock-free per-CPU ring.
 *
 * Prefix: osw_.
 *
 * Records per CPU, in time order (key = t1_ns):
 *   OSW_PERIOD_BEGIN  t0 = t1 = start of the busy loop
 *   OSW_GAP           t0 = previous read, t1 = this read
 *   OSW_PERIOD_END    t1 = end; v[0] runtime_ns, v[1] sub-threshold gaps,
 *                     v[2] their sum in ns, v[3] loop iterations,
 *                     v[4] smallest gap in ns
 * Times are CLOCK_MONOTONIC ns (the TSC converted to it when use_tsc).
 * The library never prints; errors are negative errno values.
 */
#ifndef LATSCOPE_OSWORK_H
#define LATSCOPE_OSWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"

enum osw_type { OSW_PERIOD_BEGIN = 1, OSW_GAP = 2, OSW_PERIOD_END = 3 };

struct osw_rec {
	uint32_t type;
	uint32_t cpu;
	uint64_t t0_ns, t1_ns;
	uint64_t v[5];
};

struct osw_opts {
	struct ps_cpuset cpus;
	uint64_t period_ns, runtime_ns;	/* runtime <= period */
	uint64_t threshold_ns;		/* 0 = 1000 */
	uint64_t floor_ns;		/* sub-threshold floor; 0 = 4 x the smallest gap, >= 100 */
	int policy;			/* SCHED_OTHER, SCHED_FIFO, SCHED_RR */
	int prio;			/* nice for SCHED_OTHER, rt priority otherwise */
	bool use_tsc;			/* read the TSC (x86, constant_tsc) */
	size_t ring_recs;		/* records per CPU ring; 0 = 65536 */
};

struct osw;

/* osw_start - start the threads (pinned, scheduled as asked) and wait until
 * each runs.  *wp is freed by osw_free() (also on failure when not NULL). */
int osw_start(struct osw **wp, const struct osw_opts *opts);
/* Ask the threads to finish their loop and join them; the records they left
 * stay readable until osw_free().  NULL is fine. */
void osw_stop(struct osw *w);
/* Stop (if needed) and free everything; NULL is fine. */
void osw_free(struct osw *w);
/* Only signal the threads to stop (async-signal-safe); osw_stop() still needed. */
void osw_request_stop(struct osw *w);

/* Number of workload threads, their CPU and thread id by index. */
size_t osw_nr(const struct osw *w);
unsigned osw_cpu(const struct osw *w, size_t idx);
int osw_tid(const struct osw *w, size_t idx);
uint64_t osw_floor_ns(const struct osw *w, size_t idx);
/* Records dropped because a ring was full. */
uint64_t osw_lost(const struct osw *w, size_t idx);
/* True when every thread has left its loop. */
bool osw_done(const struct osw *w);

/* Look at / consume the oldest record of thread idx.  osw_peek returns false
 * when the ring is empty. */
bool osw_peek(struct osw *w, size_t idx, struct osw_rec *out);
void osw_pop(struct osw *w, size_t idx);

/*
 * Recording format of a record (the raw payload of the software event
 * OSW_EVSEL_NAME in a perf.data file), little-endian whatever the host:
 * u32 version (OSW_REC_VERSION), u32 type, u64 cpu, t0_ns, t1_ns, v[0..4].
 * OSW_TID (recording only): v[0] = the workload thread id, v[1] = floor ns.
 */
#define OSW_EVSEL_NAME		"latscope:osnoise_workload"
#define OSW_REC_VERSION		1
#define OSW_REC_RAW_SIZE	72
#define OSW_TID			4
void osw_rec_encode(const struct osw_rec *r, uint8_t out[OSW_REC_RAW_SIZE]);
/* Returns 0, or -EINVAL for a short payload, another version, a CPU >= PS_MAX_CPUS. */
int osw_rec_decode(const uint8_t *raw, size_t len, struct osw_rec *r);

/* CLOCK_MONOTONIC now, ns. */
uint64_t osw_now_ns(void);
/* True when the TSC can be used (x86 with constant_tsc and nonstop_tsc). */
bool osw_tsc_usable(void);

#endif
