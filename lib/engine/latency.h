/* SPDX-License-Identifier: MIT */
/*
 * latency.h - latency_hist-style trackers driven by typed tracepoint events.
 *
 * Prefix: latency_.
 *
 * Feed struct tpevent events in time order (latency_feed); the module keeps one
 * histogram (lhist) and one max-latency record per CPU and type:
 *
 *  wakeup             sched_wakeup[_new] (stamped at an earlier sched_waking
 *                     of the same task when there is one) to the sched_switch
 *                     that runs the task.  Like latency_hist: one tracked task
 *                     per CPU, RT tasks only (prio < 100) unless all_tasks, a
 *                     wakeup is tracked only when its priority is at least as
 *                     high as the running task's and the already tracked
 *                     task's; a higher-priority task switched in first, or
 *                     the task being already running, drops the sample;
 *                     sched_migrate_task moves the tracking to the new CPU.
 *  wakeup/sharedprio  the same measurement, filed apart when a task of the
 *                     same priority was involved: the running task at the
 *                     wakeup, the previously tracked task, a task of equal
 *                     priority switched in before it, or the task it
 *                     replaced at its own switch-in.
 *  missed_timer_offsets
 *                     hrtimer_expire_entry.now - hrtimer_start.expires of the
 *                     same hrtimer, only for timers whose callback wakes a
 *                     task (a sched_waking/sched_wakeup on the same CPU
 *                     between expire_entry and expire_exit) that would
 *                     preempt the interrupted task (higher priority, or any
 *                     priority when it is woken onto another CPU).  Early
 *                     expiries (negative offsets) are counted, not filed.
 *  timerandwakeup     timer offset + wakeup latency of a task woken by such
 *                     a timer (clean wakeup path only).  Unlike latency_hist,
 *                     wakeups not caused by a timer are not filed here.
 *  irqsoff, preemptoff, preemptirqsoff
 *                     from preemptirq:irq_disable/enable and
 *                     preempt_disable/enable; preemptirqsoff is the window
 *                     while either is off, like the mainline preemptirqsoff
 *                     tracer (both_off: while both are off, which is what
 *                     the latency_hist patch recorded).  power:cpu_idle
 *                     ends the preemption-off section where the CPU enters
 *                     its idle wait and begins one where it leaves it, as
 *                     the kernel's stop/start_critical_timings() do for its
 *                     tracers: the idle task runs with preemption off, but
 *                     its wait is no latency (on CPUs whose stream has the
 *                     preempt events).
 *
 * With all_tasks, non-RT tasks are measured too: each one independently
 * (per-pid stamp, no priority rules) from its wakeup to its switch-in.
 * With pid > 0 only that task is tracked (latency_hist's `pid` file), with
 * no RT or priority pre-check at the wakeup.
 *
 * Memory is bounded: per-pid and per-hrtimer state live in fixed-size
 * open-addressing tables with a bounded probe window; when a window is full
 * the least recently used entry is evicted and counted.  Histograms are
 * allocated on a CPU's first sample of a type.  The module never prints.
 */
#ifndef LATSCOPE_LATENCY_H
#define LATSCOPE_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hset.h"
#include "base/lhist.h"
#include "format/tpevent.h"

_Static_assert(HSET_COMM_LEN == TPEVENT_COMM_LEN, "a worst case keeps a tracepoint's comm");
#define LATENCY_DEFAULT_TABLE 4096

struct latency_cfg {
	uint32_t nr_cpus;		/* events of CPUs >= nr_cpus are counted and skipped */
	struct lhist_cfg hist;		/* geometry of every histogram */
	bool all_tasks;			/* measure non-RT tasks too */
	int32_t pid;			/* > 0: only this task (wakeup, timers) */
	bool start_on_waking;		/* the stream has sched_waking but no sched_wakeup */
	bool both_off;			/* preemptirqsoff = both off instead of either off */
	uint32_t pid_table;		/* per-pid slots (rounded up to a power of 2) */
	uint32_t timer_table;		/* per-hrtimer slots (rounded up to a power of 2) */
};

/* One filed sample, as handed to an observer (latency_set_observer). */
struct latency_sample {
	enum hset_kind type;
	uint32_t cpu;
	int64_t latency_ns;		/* the value filed */
	int64_t timer_offset_ns;	/* its timer part (timer types), else 0 */
	uint64_t time_ns;		/* stamp of the event that completed it */
	int32_t pid, prio;		/* victim (-1 when none) */
	const char *comm;		/* the victim's comm (NUL-terminated, valid during
					 * the call), NULL when none */
	int32_t culprit_pid, culprit_prio;	/* -1 when none */
};

typedef void (*latency_sample_fn)(void *arg, const struct latency_sample *s);

struct latency_stats {
	uint64_t events;		/* fed */
	uint64_t bad_cpu;		/* cpu >= nr_cpus */
	uint64_t kinds[TPEVENT_NR_KINDS];	/* events fed per kind */
	uint64_t pid_evictions, timer_evictions;
	uint64_t alloc_failures;	/* samples lost to a failed histogram allocation */
	uint64_t wake_ignored;		/* wakeups not tracked (prio rules, already running) */
	uint64_t wake_not_rt;		/* wakeups of non-RT tasks not measured (no all_tasks, no pid) */
	uint64_t dropped_prio;		/* higher-priority task switched in first */
	uint64_t dropped_running;	/* the task was already running */
	uint64_t replaced;		/* tracking replaced by a higher-priority wakeup/migration */
	uint64_t migrated;		/* tracking moved by sched_migrate_task */
	uint64_t late_wakeups;		/* wakeups fed after a later switch of their CPU:
					 * not measured (written late by the kernel) */
	uint64_t timer_unknown;		/* expire_entry without a seen hrtimer_start */
	uint64_t timer_early;		/* timer woke a task before its expiry time */
	uint64_t unmatched_enable;	/* irq/preempt enable without a seen disable */
};

struct latency;

/* Default configuration for nr_cpus CPUs (latency_hist geometry, RT tasks). */
void latency_cfg_default(struct latency_cfg *cfg, uint32_t nr_cpus);

/*
 * latency_new - create the trackers.  Returns 0 and *out (freed by the caller
 * with latency_free), -EINVAL for a bad configuration, -ENOMEM.
 */
int latency_new(struct latency **out, const struct latency_cfg *cfg);
void latency_free(struct latency *l);

/* Feed one event (time order).  Returns 0, or -ERANGE for a CPU >= nr_cpus
 * (counted in bad_cpu; the event is skipped). */
int latency_feed(struct latency *l, const struct tpevent *ev);

/* Clear histograms and max records (latency_hist's `reset`); tracking state stays. */
void latency_reset(struct latency *l);

/* The histograms and worst cases the trackers file (base/hset.h), owned by l:
 * what the outputs read. */
const struct hset *latency_set(const struct latency *l);

uint32_t latency_nr_cpus(const struct latency *l);
const struct latency_cfg *latency_config(const struct latency *l);

const struct latency_stats *latency_stats(const struct latency *l);

/* Call fn(arg, sample) for every sample filed from now on (including early
 * timer expiries, which are counted but not filed: not reported).  NULL fn
 * turns it off.  Tests use it to compare two event streams sample by sample. */
void latency_set_observer(struct latency *l, latency_sample_fn fn, void *arg);

/* Whether a stream with the event kinds has[] (TPEVENT_NR_KINDS flags) can feed t. */
bool latency_type_supported(enum hset_kind t, const bool has[TPEVENT_NR_KINDS]);

#endif
