/* SPDX-License-Identifier: MIT */
/*
 * oswork.h - the osnoise workload in userspace: one pinned thread per
 * measured CPU reads the time in a loop for `runtime` of every `period` and
 * reports every gap at or above the threshold (and the sub-threshold
 * remainder per period) through a lock-free per-CPU ring.
 *
 * Prefix: oswork_.
 *
 * Records per CPU, in time order (key = t1_ns):
 *   OSWORK_PERIOD_BEGIN  t0 = t1 = start of the busy loop: the previous
 *                     period's end when runtime = period (the periods are
 *                     contiguous, no time between them goes unmeasured),
 *                     else its first read after the sleep
 *   OSWORK_GAP           t0 = previous read, t1 = this read
 *   OSWORK_PERIOD_END    t1 = end; v[0] runtime_ns, v[1] sub-threshold gaps,
 *                     v[2] their sum in ns, v[3] loop iterations,
 *                     v[4] smallest gap in ns
 * With counters (oswork_opts.slots, the bpf backend), a gap carries its
 * attribution in v (oswork_view_advance), and each PERIOD_END is preceded by
 *   OSWORK_PERIOD_COUNTS t1 = end; v[0..3] entries per class over the period
 * Times are CLOCK_MONOTONIC ns (the TSC converted to it when use_tsc).
 * The library never prints; errors are negative errno values.
 */
#ifndef LATSCOPE_OSWORK_H
#define LATSCOPE_OSWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"

enum oswork_type { OSWORK_PERIOD_BEGIN = 1, OSWORK_GAP = 2, OSWORK_PERIOD_END = 3, OSWORK_PERIOD_COUNTS = 5 };

struct osnbpf_slot;

struct oswork_rec {
	uint32_t type;
	uint32_t cpu;
	uint64_t t0_ns, t1_ns;
	uint64_t v[5];
};

/* The name of the busy-loop thread of a CPU (printf format, the CPU number):
 * not osnoise/N, the kernel tracer's threads' name. */
#define OSWORK_THREAD_NAME "ls-osnoise/%u"

struct oswork_opts {
	struct parse_cpuset cpus;
	uint64_t period_ns, runtime_ns;	/* runtime <= period */
	uint64_t threshold_ns;		/* 0 = 1000 */
	uint64_t floor_ns;		/* sub-threshold floor; 0 = 4 x the smallest gap, >= 100 */
	int policy;			/* SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE (6) */
	int prio;			/* nice for SCHED_OTHER, rt priority for FIFO/RR */
	uint64_t dl_runtime_ns, dl_period_ns;	/* SCHED_DEADLINE: workthread_set_deadline();
					 * the kernel refuses it for pinned threads
					 * outside an exclusive cpuset partition:
					 * oswork_start() fails with -EPERM/-EBUSY */
	bool set_nice;			/* SCHED_OTHER: set the nice (0 included); false: inherited
					 * unless prio != 0 */
	bool use_tsc;			/* read the TSC (x86, constant_tsc) */
	size_t ring_recs;		/* records per CPU ring; 0 = 65536 */
	/* Counters of the interference per CPU, indexed by CPU (the bpf backend:
	 * live/osnbpf.h, borrowed, nr_slots of them); NULL: none.  Each thread
	 * writes its tid into its CPU's slot and reads the slot around its time
	 * reads: a gap carries the difference. */
	struct osnbpf_slot *slots;
	size_t nr_slots;
};

struct oswork;

/* oswork_start - start the threads (pinned, scheduled as asked) and wait until
 * each runs.  *wp is freed by oswork_free() (also on failure when not NULL). */
int oswork_start(struct oswork **wp, const struct oswork_opts *opts);
/* Ask the threads to finish their loop and join them, waking a thread that
 * sleeps between two runtime windows (a stop never waits for the rest of a
 * period); the records they left stay readable until oswork_free().  NULL is
 * fine. */
void oswork_stop(struct oswork *w);
/* Stop (if needed) and free everything; NULL is fine. */
void oswork_free(struct oswork *w);
/* Only signal the threads to stop (async-signal-safe); oswork_stop() still needed. */
void oswork_request_stop(struct oswork *w);

/* Number of workload threads, their CPU and thread id by index. */
size_t oswork_nr(const struct oswork *w);
unsigned oswork_cpu(const struct oswork *w, size_t idx);
int oswork_tid(const struct oswork *w, size_t idx);
uint64_t oswork_floor_ns(const struct oswork *w, size_t idx);
/* Records dropped because a ring was full. */
uint64_t oswork_lost(const struct oswork *w, size_t idx);
/* True when every thread has left its loop. */
bool oswork_done(const struct oswork *w);

/* Look at / consume the oldest record of thread idx.  oswork_peek returns false
 * when the ring is empty. */
bool oswork_peek(struct oswork *w, size_t idx, struct oswork_rec *out);
void oswork_pop(struct oswork *w, size_t idx);

/*
 * Recording format of a record (the raw payload of the software event
 * OSWORK_EVSEL_NAME in a perf.data file), little-endian whatever the host:
 * u32 version (OSWORK_REC_VERSION), u32 type, u64 cpu, t0_ns, t1_ns, v[0..4].
 * OSWORK_TID (recording only): v[0] = the workload thread id, v[1] = floor ns.
 */
#define OSWORK_EVSEL_NAME		"latscope:osnoise_workload"
#define OSWORK_REC_VERSION		1
#define OSWORK_REC_RAW_SIZE	72
#define OSWORK_TID			4
void oswork_rec_encode(const struct oswork_rec *r, uint8_t out[OSWORK_REC_RAW_SIZE]);
/* Returns 0, or -EINVAL for a short payload, another version, a CPU >= PARSE_MAX_CPUS. */
int oswork_rec_decode(const uint8_t *raw, size_t len, struct oswork_rec *r);

/*
 * The loop's last consistent read of its CPU's counters (struct osnbpf_slot:
 * entries and net ns per class, OSWORK_NR_CLASSES of them, as
 * engine/noise.h numbers them) and the seq it was read at.
 */
#define OSWORK_NR_CLASSES 4
struct oswork_view {
	uint64_t seq;
	uint64_t count[OSWORK_NR_CLASSES], net_ns[OSWORK_NR_CLASSES];
};

/*
 * oswork_view_advance - take the counters of s into v if they are still
 * those of seq s0 (the seq read just before the time read they go with),
 * and, when gap is not NULL, the difference from v's previous counters as a
 * gap's attribution: gap[c] the net ns of class c, gap[4] the entries, 16
 * bits per class (class c at bit 16 c; more than 65535 are 65535).  Returns
 * 0, or -EAGAIN when s changed meanwhile (v untouched: an interrupt after
 * the time read; read the time again).  The loop's own CPU writes s, in
 * interrupts: a read between two of them is consistent.
 */
int oswork_view_advance(struct oswork_view *v, const volatile struct osnbpf_slot *s, uint64_t s0,
			uint64_t gap[5]);
/* A gap's attribution (gap[5] as oswork_view_advance fills it) into entries
 * and net ns per class. */
void oswork_gap_unpack(const uint64_t gap[5], uint64_t count[OSWORK_NR_CLASSES],
		       uint64_t net_ns[OSWORK_NR_CLASSES]);

/* CLOCK_MONOTONIC now, ns. */
uint64_t oswork_now_ns(void);
/* True when the TSC can be used (x86 with constant_tsc and nonstop_tsc). */
bool oswork_tsc_usable(void);

#endif
