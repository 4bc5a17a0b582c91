/* SPDX-License-Identifier: MIT */
/*
 * tlatauto.h - the automatic analysis of one timerlat sample (timerlat -a):
 * the timer's expiry to the sample split into parts that add up to it, from
 * the tracer's records and the osnoise events it writes while an
 * activation is under way (the IRQs, softirqs, NMIs and threads that ran
 * between the timer's IRQ and the timerlat thread, net of nesting):
 *
 *   expiry --[handler delay]--> timer IRQ starts --[IRQ latency]--> IRQ sample
 *          --[each IRQ, softirq, NMI, thread, by source; unexplained]--> thread sample
 *
 * The handler delay is the time before the timer's IRQ handler started (an
 * exit from idle when the IRQ interrupted the idle task, or interrupts kept
 * off); the thread that the IRQ interrupted and that ran on before the
 * timerlat thread is the blocking thread.  The part after the IRQ sample is
 * lib/engine/noiseauto.h's analysis of that interval, so
 *
 *   handler_delay + irq_ns (= the IRQ latency)
 *   + timer_irq_rest + sum(after.parts) + after.other + after.hw - after.excess
 *     (= thread - IRQ latency)
 *
 * equals the sample's latency exactly.  Pure: no I/O, no clock.  Times are
 * the trace clock's, latencies the tracer's.
 *
 * Prefix: tlatauto_.
 */
#ifndef LATSCOPE_TLATAUTO_H
#define LATSCOPE_TLATAUTO_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/noiseauto.h"

#define TLATAUTO_IRQS 16	/* IRQ windows kept per CPU to find the timer's */

struct tlatauto_result {
	unsigned cpu;
	int ctx;			/* 0 IRQ, 1 thread, 2 user return */
	uint32_t seq;
	uint64_t latency_ns;		/* the sample's */
	uint64_t irq_latency_ns;	/* the activation's IRQ sample */
	uint64_t expiry_ns;		/* the timer's expiry (trace clock; from the IRQ sample) */
	bool timer_irq_seen;		/* the timer's IRQ window was found (else no split of
					 * the IRQ latency: handler_delay_ns 0) */
	uint64_t handler_delay_ns;	/* expiry to the timer's IRQ handler */
	bool from_idle;			/* the IRQ interrupted the idle task */
	uint64_t irq_ns;		/* the handler's start to the IRQ sample */
	uint64_t timer_irq_rest_ns;	/* the timer's IRQ after the IRQ sample (taken out of
					 * after.hw_ns: its window began before the interval) */
	int32_t blocking_pid;		/* the task the IRQ interrupted (0: idle), -1: unknown */
	char blocking_comm[TPEVENT_NAME_LEN];
	uint64_t blocking_ns;		/* its net time after the IRQ (in after's parts too) */
	bool irq_sample_seen;		/* the activation's IRQ sample was seen */
	struct noiseauto_result after;	/* IRQ sample to the sample (thread, user) */
};

struct tlatauto;

/* tlatauto_new - an analyser for CPUs [0, nr_cpus) (1..4096).  0, -EINVAL,
 * -ENOMEM; the caller frees *out with tlatauto_free(). */
int tlatauto_new(struct tlatauto **out, unsigned nr_cpus);
void tlatauto_free(struct tlatauto *a);

/* tlatauto_irq_sample - an activation's IRQ sample: its number, latency,
 * time stamp and the task it interrupted (the record's context). */
void tlatauto_irq_sample(struct tlatauto *a, unsigned cpu, uint32_t seq, uint64_t latency_ns, uint64_t ts_ns,
			 int32_t pid, const char *comm);

/* tlatauto_win - one closed interference window (an osnoise event). */
void tlatauto_win(struct tlatauto *a, const struct noise_win *w);

/*
 * tlatauto_explain - the analysis of cpu's sample of context ctx (its
 * number seq, its latency) into *r.  0; -ENOENT when the activation's IRQ
 * sample was not seen (a thread or user sample is then not split: r holds
 * the latency alone); -EINVAL for a CPU out of range.
 */
int tlatauto_explain(const struct tlatauto *a, unsigned cpu, int ctx, uint32_t seq, uint64_t latency_ns,
		     struct tlatauto_result *r);

#endif
