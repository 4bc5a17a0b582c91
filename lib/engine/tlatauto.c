/* SPDX-License-Identifier: MIT */
/* tlatauto.c - the automatic analysis of a timerlat sample (see tlatauto.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tlatauto.h"

struct tlatauto_cpu {
	/* the newest IRQ sample */
	bool irq_seen;
	uint32_t seq;
	uint64_t irq_lat_ns, irq_ts_ns;
	int32_t pid;
	char comm[TPEVENT_NAME_LEN];
	/* the newest IRQ windows, a ring */
	struct { uint64_t start_ns, end_ns; } irqs[TLATAUTO_IRQS];
	unsigned nirq;
};

struct tlatauto {
	unsigned nr_cpus;
	struct noiseauto *na;
	struct tlatauto_cpu *cpus;
};

int tlatauto_new(struct tlatauto **out, unsigned nr_cpus)
{
	*out = NULL;
	if (!nr_cpus || nr_cpus > 4096)
		return -EINVAL;
	struct tlatauto *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->nr_cpus = nr_cpus;
	a->cpus = calloc(nr_cpus, sizeof(*a->cpus));
	int err = a->cpus ? noiseauto_new(&a->na, nr_cpus) : -ENOMEM;
	if (err) {
		tlatauto_free(a);
		return err;
	}
	*out = a;
	return 0;
}

void tlatauto_free(struct tlatauto *a)
{
	if (!a)
		return;
	noiseauto_free(a->na);
	free(a->cpus);
	free(a);
}

void tlatauto_irq_sample(struct tlatauto *a, unsigned cpu, uint32_t seq, uint64_t latency_ns, uint64_t ts_ns,
			 int32_t pid, const char *comm)
{
	if (cpu >= a->nr_cpus)
		return;
	struct tlatauto_cpu *c = &a->cpus[cpu];
	c->irq_seen = true;
	c->seq = seq;
	c->irq_lat_ns = latency_ns;
	c->irq_ts_ns = ts_ns;
	c->pid = pid;
	snprintf(c->comm, sizeof(c->comm), "%s", comm ? comm : "");
}

void tlatauto_win(struct tlatauto *a, const struct noise_win *w)
{
	if (w->cpu >= a->nr_cpus)
		return;
	noiseauto_win(a->na, w);
	if (w->cls != NOISE_IRQ)
		return;
	struct tlatauto_cpu *c = &a->cpus[w->cpu];
	c->irqs[c->nirq % TLATAUTO_IRQS].start_ns = w->start_ns;
	c->irqs[c->nirq % TLATAUTO_IRQS].end_ns = w->end_ns;
	c->nirq++;
}

/* The timer's IRQ: the window holding the IRQ sample's time stamp (the
 * record is written inside the handler), the newest such.  Its start (and
 * end into *end) or 0 with *found false. */
static uint64_t timer_irq_start(const struct tlatauto_cpu *c, bool *found, uint64_t *end)
{
	unsigned n = c->nirq < TLATAUTO_IRQS ? c->nirq : TLATAUTO_IRQS;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (c->nirq - 1 - i) % TLATAUTO_IRQS;
		/* (the record's stamp has us resolution: a microsecond of slack) */
		if (c->irqs[k].start_ns <= c->irq_ts_ns && c->irq_ts_ns <= c->irqs[k].end_ns + 1000) {
			*found = true;
			*end = c->irqs[k].end_ns;
			return c->irqs[k].start_ns;
		}
	}
	*found = false;
	return 0;
}

/* The IRQ latency split at the timer's handler start; the end of the
 * timer's IRQ into *irq_end (0: not seen). */
static void split_irq(const struct tlatauto_cpu *c, struct tlatauto_result *r, uint64_t *irq_end)
{
	r->irq_latency_ns = c->irq_lat_ns;
	r->expiry_ns = c->irq_ts_ns > c->irq_lat_ns ? c->irq_ts_ns - c->irq_lat_ns : 0;
	r->from_idle = c->pid == 0;
	*irq_end = 0;
	uint64_t start = timer_irq_start(c, &r->timer_irq_seen, irq_end);
	if (r->timer_irq_seen && start > r->expiry_ns)
		r->handler_delay_ns = start - r->expiry_ns;
	/* (two clocks: the stamps' and the tracer's latency; the delay is
	 * clamped to the latency so that the parts still add up) */
	if (r->handler_delay_ns > c->irq_lat_ns)
		r->handler_delay_ns = c->irq_lat_ns;
	r->irq_ns = c->irq_lat_ns - r->handler_delay_ns;
}

int tlatauto_explain(const struct tlatauto *a, unsigned cpu, int ctx, uint32_t seq, uint64_t latency_ns,
		     struct tlatauto_result *r)
{
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->ctx = ctx;
	r->seq = seq;
	r->latency_ns = latency_ns;
	r->blocking_pid = -1;
	if (cpu >= a->nr_cpus)
		return -EINVAL;
	const struct tlatauto_cpu *c = &a->cpus[cpu];
	if (!c->irq_seen || c->seq != seq)
		return -ENOENT;
	r->irq_sample_seen = true;
	uint64_t irq_end;
	split_irq(c, r, &irq_end);
	if (ctx == 0) {
		r->latency_ns = c->irq_lat_ns;
		return 0;
	}
	/* after the IRQ sample: the rest of the latency, by source */
	uint64_t from = r->expiry_ns + c->irq_lat_ns;
	uint64_t to = r->expiry_ns + (latency_ns > c->irq_lat_ns ? latency_ns : c->irq_lat_ns);
	noiseauto_gap(a->na, cpu, from, to, &r->after);
	/* the timer's IRQ went on after its sample: its window began before
	 * the interval, so noiseauto left that time unexplained */
	if (irq_end > from) {
		uint64_t rest = (irq_end < to ? irq_end : to) - from;
		if (rest > r->after.hw_ns)
			rest = r->after.hw_ns;
		r->timer_irq_rest_ns = rest;
		r->after.hw_ns -= rest;
	}
	/* the task the IRQ interrupted, when it ran on before the timerlat
	 * thread: the blocking thread */
	if (c->pid > 0) {
		r->blocking_pid = c->pid;
		snprintf(r->blocking_comm, sizeof(r->blocking_comm), "%s", c->comm);
		for (size_t i = 0; i < r->after.nr_parts; i++)
			if (r->after.parts[i].cls == NOISE_THREAD && r->after.parts[i].id == c->pid)
				r->blocking_ns = r->after.parts[i].net_ns;
	} else if (c->pid == 0) {
		r->blocking_pid = 0;
		snprintf(r->blocking_comm, sizeof(r->blocking_comm), "<idle>");
	}
	return 0;
}
