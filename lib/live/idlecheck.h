/* SPDX-License-Identifier: MIT */
/*
 * idlecheck.h - detect kernels that drop perf tracepoint samples of
 * interrupts arriving on an idle CPU, and keep CPUs out of idle.
 *
 * Prefix: idlecheck_.
 *
 * Some guests (seen on KVM with the haltpoll cpuidle driver) deliver no
 * perf_event sample for a tracepoint that fires in an interrupt taken while
 * the CPU was idle, although ftrace and /proc/interrupts see the interrupt.
 * A live collector then misses most wakeups and timer expiries on idle CPUs.
 *
 * idlecheck_check() measures it: per CPU it samples a per-interrupt tracepoint
 * (irq_vectors:local_timer_entry by default) for a short window while a
 * pinned thread sleeps in 1 ms steps on that CPU (so the CPU idles between
 * timer interrupts), and compares the samples with the CPU's column of the
 * matching /proc/interrupts line (LOC), and judges by the event's own counter,
 * which counts every firing (idlecheck_judge).  idlecheck_spin_start() is the cure: one
 * SCHED_IDLE thread per CPU that spins, so the CPU never enters idle; a
 * SCHED_IDLE thread runs only when nothing else wants the CPU, so it never
 * delays SCHED_OTHER or real-time work (beyond a context switch).
 *
 * The module never prints.
 */
#ifndef LATSCOPE_IDLECHECK_H
#define LATSCOPE_IDLECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"

enum idlecheck_verdict {
	IDLECHECK_UNKNOWN,			/* the tracepoint fired fewer than 10 times (CPU
						 * busy or tickless): too few to tell */
	IDLECHECK_OK,				/* every firing was delivered as a sample or
						 * counted in a PERF_RECORD_LOST */
	IDLECHECK_DROPS,			/* at least one firing was neither */
};

struct idlecheck_opts {
	const char *tracepoint;		/* "system:event"; NULL = irq_vectors:local_timer_entry */
	const char *irq_line;		/* /proc/interrupts label; NULL = "LOC" */
	uint64_t window_ns;		/* 0 = 150 ms */
	uint64_t sleep_ns;		/* period of the sleeping thread; 0 = 1 ms */
};

struct idlecheck_cpu_result {
	unsigned cpu;
	uint64_t irqs;			/* /proc/interrupts delta over the window */
	uint64_t samples;		/* perf samples of the tracepoint in the window */
	uint64_t counted;		/* the event's counter value: every firing in the window */
	uint64_t lost;			/* samples the ring lost (PERF_RECORD_LOST) */
	uint64_t corrupt_bytes;		/* ring bytes skipped as corrupt (perfring.h) */
	enum idlecheck_verdict verdict;
};

/*
 * idlecheck_check - run the self-test on every CPU of cpus at once.  Fills
 * out[0..*nr_out) (in CPU order; at most out_len entries).  Returns 0,
 * -ENOENT when the tracepoint or the /proc/interrupts line does not exist,
 * -EACCES/-EPERM without permission for perf_event_open, or another negative
 * errno.  Takes about window_ns.
 */
int idlecheck_check(const struct parse_cpuset *cpus, const struct idlecheck_opts *opts,
	      struct idlecheck_cpu_result *out, size_t out_len, size_t *nr_out);

/*
 * idlecheck_judge - the verdict of one CPU's counts: unknown below 10
 * firings (counted), else drops when samples + lost < counted (a firing the
 * kernel neither delivered nor reported lost: the bound is exact, the
 * window is closed before the ring is read), else ok.  The /proc/interrupts
 * delta (irqs) is reported beside it, not judged: the window's edges differ.
 */
enum idlecheck_verdict idlecheck_judge(const struct idlecheck_cpu_result *r);

/* Whether any CPU of the results shows the drop. */
bool idlecheck_any_drops(const struct idlecheck_cpu_result *r, size_t n);

/* Verdict name: "ok", "drops", "unknown". */
const char *idlecheck_verdict_name(enum idlecheck_verdict v);

/*
 * idlecheck_irq_line - the counts of line `label` of /proc/interrupts ("LOC":
 * the local timer interrupts) into counts[cpu], the caller's array of
 * ncounts (CPUs missing from the header, or >= ncounts, stay 0).  Returns 0
 * or a negative errno (-ENOENT: no such line).
 */
int idlecheck_irq_line(const char *label, uint64_t *counts, size_t ncounts);

struct idlecheck_spin;

/*
 * idlecheck_spin_start - start one SCHED_IDLE spinning thread pinned on each CPU
 * of cpus (named "latscope-busy").  Returns 0 and *out (stop and free with
 * idlecheck_spin_stop()), -EINVAL for an empty set, or a negative errno (nothing is
 * left running then).
 */
int idlecheck_spin_start(struct idlecheck_spin **out, const struct parse_cpuset *cpus);

/* Number of spinner threads that run as SCHED_IDLE on their CPU. */
unsigned idlecheck_spin_nr_running(const struct idlecheck_spin *s);

/* Stop and join the threads and free s (NULL is fine). */
void idlecheck_spin_stop(struct idlecheck_spin *s);

#endif
