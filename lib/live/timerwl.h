/* SPDX-License-Identifier: MIT */
/*
 * timerwl.h - cyclictest-like timer workload: one thread per CPU, pinned,
 * sleeping on absolute CLOCK_MONOTONIC times (start + k * interval) with
 * clock_nanosleep(TIMER_ABSTIME), measuring how late each wakeup is.
 *
 * Prefix: timerwl_.
 *
 * The threads are the victims the kernel-side histograms measure (their
 * hrtimers and wakeups); their own measurement goes into one lhist per
 * thread.  The module never prints.
 */
#ifndef LATSCOPE_TIMERWL_H
#define LATSCOPE_TIMERWL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/lhist.h"
#include "base/parse.h"

struct timerwl_cfg {
	struct parse_cpuset cpus;		/* one thread per CPU */
	uint64_t interval_ns;		/* period, > 0 */
	int prio;			/* SCHED_FIFO priority 1..99; 0 = SCHED_OTHER */
	bool rr;			/* prio > 0: SCHED_RR instead of SCHED_FIFO */
	int nice;			/* prio 0: the threads' nice value (-20..19) */
	bool set_nice;			/* prio 0: set nice (0 included); false: as inherited */
	bool deadline;			/* SCHED_DEADLINE instead (prio 0): dl_runtime_ns every
					 * dl_period_ns (workthread_set_deadline) */
	uint64_t dl_runtime_ns, dl_period_ns;
	struct lhist_cfg hist;		/* geometry of each thread's histogram */
};

struct timerwl_thread_info {
	unsigned cpu;
	pid_t tid;			/* 0 until the thread started */
	bool fifo;			/* the real-time policy (SCHED_FIFO, or SCHED_RR) was granted */
	bool deadline;			/* SCHED_DEADLINE was granted */
	bool policy_ok;			/* what cfg asked for (RT policy, nice) was applied */
	int sched_err;			/* errno of a refused SCHED_FIFO / affinity, 0 = none */
	uint64_t cycles;		/* wakeups measured */
	uint64_t overruns;		/* periods skipped because a wakeup was more than one late */
};

struct timerwl;

/*
 * timerwl_start - start the threads; returns 0 and *out (stop and free with
 * timerwl_stop()), -EINVAL for a bad configuration, or a negative errno from
 * thread creation (then nothing is left running).
 */
int timerwl_start(struct timerwl **out, const struct timerwl_cfg *cfg);

/* timerwl_halt - stop and join every thread; w stays for timerwl_snapshot()
 * (the cycles end here) until timerwl_stop().  NULL is fine; twice too. */
void timerwl_halt(struct timerwl *w);

/* timerwl_stop - stop and join every thread and free w (NULL is fine). */
void timerwl_stop(struct timerwl *w);

/* Number of threads and their CPUs, in cpu order. */
unsigned timerwl_nr_threads(const struct timerwl *w);
/* Snapshot of thread i: info and a copy of its histogram into *dst (which
 * must be lhist_init()ed with the same geometry).  Returns 0 or -EINVAL. */
int timerwl_snapshot(struct timerwl *w, unsigned i, struct timerwl_thread_info *info, struct lhist *dst);

#endif
