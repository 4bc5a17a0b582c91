/* SPDX-License-Identifier: MIT */
/* dtlbins.c - the DTL timeline at a fixed resolution (see dtlbins.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dtlbins.h"
#include "engine/dtlstat.h"
#include "engine/dtltask.h"

#define NACC 8	/* run-time slots of the bin being filled, per CPU */

struct acc_slot {
	int32_t pid;
	uint64_t ns;
	char comm[16];
};

struct cpu_state {
	struct dtlbins_bin bin[DTLBINS_N];
	/* the task on the CPU since since_ns (have_task) */
	bool have_task;
	int32_t pid;
	char comm[16];
	uint64_t since_ns;
	/* run time of the bin acc_bin, not yet folded into it */
	int64_t acc_bin;	/* -1: none */
	struct acc_slot acc[NACC];
	unsigned nacc;
};

struct dtlbins {
	struct cpu_state *cpu[DTLSTAT_MAX_CPUS];
	uint32_t nr_cpus;
	bool started;
	uint64_t origin_ns, width_ns;
	uint64_t min_ns, max_ns;	/* times placed */
	uint64_t outside;
	struct dtlbins_bin tmp[DTLBINS_N];
};

int dtlbins_new(struct dtlbins **bp)
{
	*bp = calloc(1, sizeof(**bp));
	if (!*bp)
		return -ENOMEM;
	(*bp)->width_ns = DTLBINS_START_BIN_NS;
	return 0;
}

void dtlbins_free(struct dtlbins *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->nr_cpus; i++)
		free(b->cpu[i]);
	free(b);
}

static void bin_clear(struct dtlbins_bin *x)
{
	memset(x, 0, sizeof(*x));
	x->task_pid = DTLBINS_NO_TASK;
}

/* The task pid ran ns in bin x. */
static void bin_task(struct dtlbins_bin *x, int32_t pid, const char *comm, uint64_t ns)
{
	if (x->task_pid == pid) {
		x->task_ns += ns;
	} else if (x->task_pid == DTLBINS_NO_TASK || ns > x->task_ns) {
		x->task_pid = pid;
		x->task_ns = ns;
		memcpy(x->task_comm, comm, sizeof(x->task_comm));
	}
}

static void bin_merge(struct dtlbins_bin *d, const struct dtlbins_bin *s)
{
	d->preempted_ns += s->preempted_ns;
	d->ceded_ns += s->ceded_ns;
	d->delay_ns += s->delay_ns;
	if (s->entries && (!d->entries || s->worst_delay_ns > d->worst_delay_ns)) {
		d->worst_delay_ns = s->worst_delay_ns;
		d->worst_time_ns = s->worst_time_ns;
	}
	d->entries += s->entries;
	if (s->task_pid != DTLBINS_NO_TASK)
		bin_task(d, s->task_pid, s->task_comm, s->task_ns);
}

/* The run time gathered for a CPU's current bin into that bin. */
static void acc_flush(struct cpu_state *c)
{
	if (c->acc_bin >= 0 && c->nacc) {
		unsigned best = 0;
		for (unsigned i = 1; i < c->nacc; i++)
			if (c->acc[i].ns > c->acc[best].ns)
				best = i;
		bin_task(&c->bin[c->acc_bin], c->acc[best].pid, c->acc[best].comm, c->acc[best].ns);
	}
	c->acc_bin = -1;
	c->nacc = 0;
}

/* Space-saving count of the run time in bin k: a full table gives the
 * smallest slot to the newcomer (its count carried over, an upper bound). */
static void acc_add(struct cpu_state *c, int64_t k, int32_t pid, const char *comm, uint64_t ns)
{
	if (c->acc_bin != k) {
		acc_flush(c);
		c->acc_bin = k;
	}
	unsigned i, min = 0;
	for (i = 0; i < c->nacc; i++) {
		if (c->acc[i].pid == pid) {
			c->acc[i].ns += ns;
			return;
		}
		if (c->acc[i].ns < c->acc[min].ns)
			min = i;
	}
	if (c->nacc < NACC) {
		i = c->nacc++;
		c->acc[i].ns = ns;
	} else {
		i = min;
		c->acc[i].ns += ns;
	}
	c->acc[i].pid = pid;
	memcpy(c->acc[i].comm, comm, sizeof(c->acc[i].comm));
}

/* Rebuild every CPU's bins on the grid (new_origin, 2 * width). */
static void regrid(struct dtlbins *b, uint64_t new_origin)
{
	uint64_t w2 = b->width_ns * 2;
	for (uint32_t ci = 0; ci < b->nr_cpus; ci++) {
		struct cpu_state *c = b->cpu[ci];
		if (!c)
			continue;
		acc_flush(c);
		for (unsigned k = 0; k < DTLBINS_N; k++)
			bin_clear(&b->tmp[k]);
		for (unsigned j = 0; j < DTLBINS_N; j++) {
			uint64_t s = b->origin_ns + j * b->width_ns;
			bin_merge(&b->tmp[(s - new_origin) / w2], &c->bin[j]);
		}
		memcpy(c->bin, b->tmp, sizeof(c->bin));
	}
	b->origin_ns = new_origin;
	b->width_ns = w2;
}

/* Grow the grid until it holds t; false when it would need too wide bins. */
static bool place(struct dtlbins *b, uint64_t t)
{
	if (!b->started) {
		b->started = true;
		b->origin_ns = t - t % b->width_ns;
		b->min_ns = b->max_ns = t;
	}
	const uint64_t n = DTLBINS_N;
	while (t < b->origin_ns || t - b->origin_ns >= n * b->width_ns) {
		if (b->width_ns >= DTLBINS_MAX_BIN_NS)
			return false;
		uint64_t w2 = b->width_ns * 2, o;
		if (t < b->origin_ns)
			o = b->origin_ns > (n - 2) * b->width_ns ? b->origin_ns - (n - 2) * b->width_ns : 0;
		else
			o = b->origin_ns;
		regrid(b, o - o % w2);
	}
	if (t < b->min_ns)
		b->min_ns = t;
	if (t > b->max_ns)
		b->max_ns = t;
	return true;
}

static int get_cpu(struct dtlbins *b, uint32_t cpu, struct cpu_state **out)
{
	if (cpu >= DTLSTAT_MAX_CPUS)
		return -ERANGE;
	if (!b->cpu[cpu]) {
		struct cpu_state *c = malloc(sizeof(*c));
		if (!c)
			return -ENOMEM;
		memset(c, 0, sizeof(*c));
		for (unsigned k = 0; k < DTLBINS_N; k++)
			bin_clear(&c->bin[k]);
		c->acc_bin = -1;
		b->cpu[cpu] = c;
		if (cpu + 1 > b->nr_cpus)
			b->nr_cpus = cpu + 1;
	}
	*out = b->cpu[cpu];
	return 0;
}

enum field { F_PREEMPTED, F_CEDED, F_DELAY, F_TASK };

/* [a, b) into the bins of c: the ns of each bin it overlaps (a, b placed). */
static void spread(struct dtlbins *b, struct cpu_state *c, uint64_t a, uint64_t e, enum field f)
{
	while (a < e) {
		uint64_t k = (a - b->origin_ns) / b->width_ns;
		uint64_t end = b->origin_ns + (k + 1) * b->width_ns;
		uint64_t ns = (e < end ? e : end) - a;
		struct dtlbins_bin *x = &c->bin[k];
		switch (f) {
		case F_PREEMPTED: x->preempted_ns += ns; break;
		case F_CEDED: x->ceded_ns += ns; break;
		case F_DELAY: x->delay_ns += ns; break;
		case F_TASK: acc_add(c, (int64_t)k, c->pid, c->comm, ns); break;
		}
		a += ns;
	}
}

static uint64_t ticks_ns(uint64_t ticks, uint64_t f)
{
	return f ? (uint64_t)((unsigned __int128)ticks * 1000000000u / f) : 0;
}

int dtlbins_entry(struct dtlbins *b, uint32_t cpu, uint64_t t_ns, const struct dtl_entry *e,
		  uint64_t tb_freq)
{
	struct cpu_state *c;
	int rc = get_cpu(b, cpu, &c);
	if (rc)
		return rc;
	uint64_t delay = ticks_ns((uint64_t)e->enqueue_to_dispatch_tb + e->ready_to_enqueue_tb, tb_freq);
	uint64_t wait = ticks_ns(e->waiting_to_ready_tb, tb_freq);
	uint64_t from = t_ns > delay + wait ? t_ns - delay - wait : 0;
	if (!place(b, t_ns) || !place(b, from)) {
		b->outside++;
		return -ERANGE;
	}
	if (dtltask_involuntary(e->preempt_reason)) {
		spread(b, c, from, t_ns, F_PREEMPTED);
	} else {
		spread(b, c, from, t_ns - delay, F_CEDED);
		spread(b, c, t_ns - delay, t_ns, F_DELAY);
	}
	struct dtlbins_bin *x = &c->bin[(t_ns - b->origin_ns) / b->width_ns];
	x->entries++;
	if (x->entries == 1 || delay > x->worst_delay_ns) {
		x->worst_delay_ns = delay;
		x->worst_time_ns = t_ns;
	}
	return 0;
}

int dtlbins_switch(struct dtlbins *b, uint32_t cpu, uint64_t t_ns, int32_t next_pid,
		   const char *next_comm)
{
	struct cpu_state *c;
	int rc = get_cpu(b, cpu, &c);
	if (rc)
		return rc;
	if (!place(b, t_ns)) {
		b->outside++;
		return -ERANGE;
	}
	if (c->have_task && t_ns > c->since_ns && place(b, c->since_ns))
		spread(b, c, c->since_ns, t_ns, F_TASK);
	c->have_task = true;
	c->pid = next_pid;
	memset(c->comm, 0, sizeof(c->comm));
	if (next_comm)
		strncpy(c->comm, next_comm, sizeof(c->comm) - 1);
	c->since_ns = t_ns;
	return 0;
}

void dtlbins_end(struct dtlbins *b, uint64_t end_ns)
{
	for (uint32_t i = 0; i < b->nr_cpus; i++) {
		struct cpu_state *c = b->cpu[i];
		if (!c)
			continue;
		if (c->have_task && end_ns > c->since_ns && place(b, end_ns))
			spread(b, c, c->since_ns, end_ns, F_TASK);
		c->have_task = false;
	}
	for (uint32_t i = 0; i < b->nr_cpus; i++)
		if (b->cpu[i])
			acc_flush(b->cpu[i]);
}

int dtlbins_range(const struct dtlbins *b, uint32_t *first, uint32_t *n, uint64_t *start_ns,
		  uint64_t *bin_ns)
{
	*first = *n = 0;
	*start_ns = b->origin_ns;
	*bin_ns = b->width_ns;
	if (!b->started)
		return 0;
	uint64_t lo = (b->min_ns - b->origin_ns) / b->width_ns;
	uint64_t hi = (b->max_ns - b->origin_ns) / b->width_ns;
	*first = (uint32_t)lo;
	*n = (uint32_t)(hi - lo + 1);
	*start_ns = b->origin_ns + lo * b->width_ns;
	return 0;
}

uint32_t dtlbins_nr_cpus(const struct dtlbins *b)
{
	return b->nr_cpus;
}

const struct dtlbins_bin *dtlbins_cpu(const struct dtlbins *b, uint32_t cpu)
{
	return cpu < b->nr_cpus && b->cpu[cpu] ? b->cpu[cpu]->bin : NULL;
}

uint64_t dtlbins_outside(const struct dtlbins *b)
{
	return b->outside;
}
