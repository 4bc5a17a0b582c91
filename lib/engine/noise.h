/* SPDX-License-Identifier: MIT */
/*
 * noise.h - OS-noise accounting the way the kernel osnoise tracer does it,
 * as a pure module: no I/O, no clock, no threads.
 *
 * Prefix: noise_.
 *
 * Inputs, per CPU and in time order:
 *   - typed tracepoint events (struct tpevent): irq/irq_vectors/softirq entry and
 *     exit, nmi:nmi_handler, sched:sched_switch -> interference windows;
 *   - gaps measured by the workload (start, end): noise_gap();
 *   - period boundaries: noise_period_begin()/noise_period_end();
 *   - an aggregated sub-threshold remainder: noise_sub().
 * A gap must be fed after every event whose time is <= the gap's end (the
 * caller merges the two streams by time; gaps are keyed by their end).
 *
 * Net durations: each open window (NMI > IRQ > softirq > thread) remembers a
 * delta_start; when a nested window closes, every window still open below it
 * has its delta_start pushed forward by the nested window's net duration, so
 * every reported duration excludes what ran on top of it.
 *
 * A gap at or above the threshold with no window arriving inside it is HW
 * noise (in a VM: the hypervisor).  Gaps below the threshold are counted
 * (count and sum) so the noise figure is not silently threshold-dependent.
 *
 * Outputs go through the callbacks of struct noise_sink (optional), and the
 * per-CPU cumulative statistics and contributor tables can be read at any
 * time.  Memory is allocated once in noise_new(); nothing is allocated per
 * event.
 */
#ifndef LATSCOPE_NOISE_H
#define LATSCOPE_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/tpevent.h"

enum noise_class {
	NOISE_NMI = 0,
	NOISE_IRQ,
	NOISE_SOFTIRQ,
	NOISE_THREAD,
	NOISE_NR_CLASSES
};

/* "nmi", "irq", "softirq", "thread". */
const char *noise_class_name(enum noise_class c);
/* Kernel softirq name for vec ("TIMER", "NET_RX", ...), "?" when unknown. */
const char *noise_softirq_name(uint32_t vec);

/* Return value of noise_gap()/noise_period_end() when a stop threshold hit. */
#define NOISE_STOP 1

struct noise_opts {
	uint64_t threshold_ns;		/* gaps >= this are noise; 0 = 1000 ns */
	uint64_t stop_single_ns;	/* stop when one gap > this; 0 = off */
	uint64_t stop_total_ns;		/* stop when a period's noise > this; 0 = off */
	bool no_workload;		/* NO_OSNOISE_WORKLOAD: measure every task */
	/* PREEMPT_RT: softirqs run in task context (the thread that raised
	 * them, ktimers/N, ksoftirqd/N) and are preemptible; like the kernel
	 * tracer there, their entry and exit open no window: their time is the
	 * running thread's */
	bool softirq_in_threads;
};

/* One closed interference window; net_ns excludes nested windows. */
struct noise_win {
	enum noise_class cls;
	uint32_t cpu;
	uint64_t start_ns;		/* arrival time */
	uint64_t end_ns;		/* exit time */
	uint64_t net_ns;
	int32_t id;			/* irq, vector, softirq vec, or pid */
	char name[TPEVENT_NAME_LEN];	/* irq action, vector name, softirq name, comm */
	bool unseen_start;		/* a thread whose switch-in no event reported:
					 * start_ns = end_ns, net_ns = 0 */
};

/* One gap at or above the threshold, with what happened inside it. */
struct noise_gap {
	uint32_t cpu;
	uint64_t start_ns, duration_ns;
	uint64_t interference;		/* windows that arrived inside the gap */
	uint64_t count[NOISE_NR_CLASSES];
	uint64_t net_ns[NOISE_NR_CLASSES];
	bool hw;			/* no interference seen: hardware/hypervisor */
	bool has_top;
	struct noise_win top;		/* the largest window inside */
};

/* Statistics of one period or, cumulated, of a whole run. */
struct noise_stats {
	uint64_t periods;
	uint64_t runtime_ns;
	uint64_t noise_ns;		/* sum of gaps >= threshold */
	uint64_t max_noise_ns;		/* largest per-period noise (cumulative) */
	uint64_t max_single_ns;		/* largest single gap */
	uint64_t gaps;			/* gaps >= threshold */
	uint64_t hw_count, hw_ns;	/* gaps with no interference */
	uint64_t count[NOISE_NR_CLASSES];	/* window entries while the period ran */
	uint64_t net_ns[NOISE_NR_CLASSES];	/* net window time inside noise gaps
						 * (no_workload: inside the period) */
	uint64_t sub_count, sub_ns;	/* gaps below the threshold (remainder) */
};

/* A source of interference on one CPU, cumulated over the run. */
struct noise_contrib {
	enum noise_class cls;
	int32_t id;
	char name[TPEVENT_NAME_LEN];
	uint64_t count, total_ns, max_ns;
	uint64_t unseen;		/* entries whose start no event reported (in
					 * count, their time not in total_ns) */
};

/* Anomalies met in the event stream (lost or truncated events). */
struct noise_anomalies {
	uint64_t unmatched_exit;	/* exit without an open entry */
	uint64_t dropped_open;		/* entries dropped (lost exits, depth overflow) */
	uint64_t switch_mismatch;	/* sched_switch prev != the task the last one put
					 * on: a switch-in no event reported (the kernel
					 * gave no events while the task before ran);
					 * counted as an entry without duration */
	uint64_t negative;		/* negative durations clamped to 0 */
	uint64_t history_overflow;	/* gap with more windows than the history holds */
	uint64_t contrib_overflow;	/* windows not kept in the contributor table (those
					 * of evicted contributors included) */
	uint64_t contrib_evicted;	/* contributors evicted from a full table (the
					 * smallest total of a sample), their windows in
					 * contrib_overflow */
	uint64_t bad_cpu;		/* events for CPUs outside [0, nr_cpus) */
};

/* Callbacks; any may be NULL.  Pointers are valid during the call only. */
struct noise_sink {
	void *arg;
	void (*win)(void *arg, const struct noise_win *w);
	void (*gap)(void *arg, const struct noise_gap *g);
	void (*period)(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p);
};

struct noise;

/*
 * noise_new - accounting for CPUs [0, nr_cpus).  opts and sink are copied
 * (sink may be NULL).  Returns 0 or -ENOMEM/-EINVAL; the caller frees *np
 * with noise_free().
 */
int noise_new(struct noise **np, unsigned nr_cpus, const struct noise_opts *opts,
	      const struct noise_sink *sink);
void noise_free(struct noise *n);

/* The workload thread measuring cpu (its windows are not interference). */
int noise_set_workload(struct noise *n, unsigned cpu, int32_t tid);

/* Feed one event (events of other kinds are ignored).  Returns 0 or -EINVAL. */
int noise_event(struct noise *n, const struct tpevent *e);

/* Period boundaries.  noise_period_end() reports the period through the sink
 * and returns NOISE_STOP when the period's noise is above stop_total_ns. */
int noise_period_begin(struct noise *n, unsigned cpu, uint64_t t_ns);
int noise_period_end(struct noise *n, unsigned cpu, uint64_t t_ns, uint64_t runtime_ns);

/* One gap measured by the workload: [start_ns, end_ns].  Below the threshold
 * it only counts in the remainder.  Returns 0, NOISE_STOP when the gap is
 * above stop_single_ns, or -EINVAL. */
int noise_gap(struct noise *n, unsigned cpu, uint64_t start_ns, uint64_t end_ns);

/*
 * A gap's attribution counted elsewhere (the bpf backend: counters kept per
 * CPU by BPF programs, their difference across the gap): the windows that
 * arrived inside it per class and their net time.
 */
struct noise_counted {
	uint64_t count[NOISE_NR_CLASSES];
	uint64_t net_ns[NOISE_NR_CLASSES];
};

/* noise_gap() for a gap whose attribution c says (no event is fed then: the
 * windows' history is not used); with no entry at all, it is HW noise.  The
 * same returns. */
int noise_gap_counted(struct noise *n, unsigned cpu, uint64_t start_ns, uint64_t end_ns,
		      const struct noise_counted *c);
/* Entries counted elsewhere over cpu's period in progress, per class, added
 * to its counters (the table's NMI/IRQ/Softirq/Thread).  0 or -EINVAL. */
int noise_period_counts(struct noise *n, unsigned cpu, const uint64_t count[NOISE_NR_CLASSES]);
/* A contributor totalled elsewhere (count windows, total_ns, max_ns; unseen)
 * merged into cpu's table, as if its windows had been fed.  0 or -EINVAL;
 * a full table evicts a small contributor for it (anomalies.contrib_evicted;
 * its windows in contrib_overflow). */
int noise_add_contrib(struct noise *n, unsigned cpu, const struct noise_contrib *k);

/* Add an aggregated sub-threshold remainder (count gaps, ns in total). */
int noise_sub(struct noise *n, unsigned cpu, uint64_t count, uint64_t ns);

/*
 * Records that were aggregated elsewhere (the kernel osnoise tracer's output):
 * noise_add_period() adds one finished period p of cpu to the totals and
 * reports it through the sink; noise_add_window() adds a window to the
 * contributors (and reports it).  Both return 0 or -EINVAL.
 */
int noise_add_period(struct noise *n, unsigned cpu, uint64_t end_ns, const struct noise_stats *p);
int noise_add_window(struct noise *n, const struct noise_win *w);

/* Cumulative statistics of cpu (borrowed, valid until noise_free), NULL if
 * cpu is out of range. */
const struct noise_stats *noise_cpu_stats(const struct noise *n, unsigned cpu);
/* Statistics of the period in progress on cpu (borrowed). */
const struct noise_stats *noise_cpu_period(const struct noise *n, unsigned cpu);

/* Contributors of cpu, unordered; *out is borrowed.  Returns the count. */
size_t noise_contribs(const struct noise *n, unsigned cpu, const struct noise_contrib **out);

const struct noise_anomalies *noise_anomalies(const struct noise *n);
unsigned noise_nr_cpus(const struct noise *n);
const struct noise_opts *noise_opts(const struct noise *n);

/* Percent of CPU available times 10^5, the kernel's way: (rt - noise) *
 * 10^7 / rt (integer), e.g. 9998100 = 99.98100 %.  0 when rt is 0. */
uint64_t noise_avail_e5(uint64_t runtime_us, uint64_t noise_us);

#endif
