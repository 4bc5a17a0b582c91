/* SPDX-License-Identifier: MIT */
/* dtltask.c - DTL interruptions charged to tasks (see dtltask.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dtltask.h"

#define MAX_CPUS 4096

struct cpu_state {
	bool known;			/* a sched_switch has been seen */
	int32_t pid;
	uint64_t since_ns;
};

struct dtltask {
	struct dtltask_row *rows;	/* [0] idle, [1] unknown, then pids */
	size_t nr, cap;
	int32_t *slots;			/* open addressing: row index + 1, 0 = free */
	size_t nslots;
	struct cpu_state *cpus;
	uint64_t tb_freq;
	struct dtltask_row *sorted;
	size_t nsorted;
};

static uint32_t hash_pid(int32_t pid)
{
	return (uint32_t)pid * 2654435761u;
}

static int rehash(struct dtltask *t, size_t nslots)
{
	int32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 2; i < t->nr; i++) {
		size_t h = hash_pid(t->rows[i].pid) & (nslots - 1);
		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (int32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = nslots;
	return 0;
}

int dtltask_new(struct dtltask **tp)
{
	struct dtltask *t = calloc(1, sizeof(*t));

	*tp = NULL;
	if (!t)
		return -ENOMEM;
	t->cap = 64;
	t->rows = calloc(t->cap, sizeof(*t->rows));
	t->cpus = calloc(MAX_CPUS, sizeof(*t->cpus));
	if (!t->rows || !t->cpus || rehash(t, 128)) {
		dtltask_free(t);
		return -ENOMEM;
	}
	t->rows[0].pid = DTLTASK_PID_IDLE;
	snprintf(t->rows[0].comm, sizeof(t->rows[0].comm), "[idle]");
	t->rows[1].pid = DTLTASK_PID_UNKNOWN;
	snprintf(t->rows[1].comm, sizeof(t->rows[1].comm), "[unknown]");
	t->nr = 2;
	*tp = t;
	return 0;
}

void dtltask_free(struct dtltask *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->slots);
	free(t->cpus);
	free(t->sorted);
	free(t);
}

/* The row of pid (created with comm when new); NULL on allocation failure. */
static struct dtltask_row *row_of(struct dtltask *t, int32_t pid, const char *comm)
{
	if (pid == DTLTASK_PID_IDLE)
		return &t->rows[0];
	if (pid < 0)
		return &t->rows[1];
	size_t h = hash_pid(pid) & (t->nslots - 1);
	while (t->slots[h]) {
		struct dtltask_row *r = &t->rows[t->slots[h] - 1];
		if (r->pid == pid) {
			if (comm && comm[0])
				snprintf(r->comm, sizeof(r->comm), "%.15s", comm);
			return r;
		}
		h = (h + 1) & (t->nslots - 1);
	}
	if (t->nr == t->cap) {
		struct dtltask_row *n = realloc(t->rows, 2 * t->cap * sizeof(*n));
		if (!n)
			return NULL;
		t->rows = n;
		t->cap *= 2;
	}
	struct dtltask_row *r = &t->rows[t->nr];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	snprintf(r->comm, sizeof(r->comm), "%.15s", comm ? comm : "");
	t->slots[h] = (int32_t)t->nr + 1;
	t->nr++;
	if (2 * t->nr > t->nslots && rehash(t, 2 * t->nslots))
		return NULL;	/* the row exists; the next lookup retries the growth */
	return &t->rows[t->nr - 1];
}

int dtltask_switch(struct dtltask *t, uint32_t cpu, uint64_t t_ns, int32_t prev_pid,
		   const char *prev_comm, int32_t next_pid, const char *next_comm)
{
	struct cpu_state *c;

	if (cpu >= MAX_CPUS)
		return -ERANGE;
	c = &t->cpus[cpu];
	if (c->known && t_ns > c->since_ns) {
		struct dtltask_row *r = row_of(t, c->pid, c->pid == prev_pid ? prev_comm : NULL);
		if (!r)
			return -ENOMEM;
		r->run_ns += t_ns - c->since_ns;
	}
	struct dtltask_row *n = row_of(t, next_pid, next_comm);
	if (!n)
		return -ENOMEM;
	n->switches_in++;
	c->known = true;
	c->pid = next_pid < 0 ? DTLTASK_PID_UNKNOWN : next_pid;
	if (t_ns > c->since_ns || !c->since_ns)
		c->since_ns = t_ns;
	return 0;
}

bool dtltask_involuntary(uint8_t preempt_reason)
{
	/* 2 H_CEDE, 3 H_CONFER, 7 H_CONFER_ADJUNCT: given away, not taken */
	return preempt_reason != 2 && preempt_reason != 3 && preempt_reason != 7;
}

int dtltask_entry(struct dtltask *t, uint32_t cpu, uint64_t t_ns, const struct dtl_entry *e,
		  uint64_t tb_freq)
{
	if (cpu >= MAX_CPUS)
		return -ERANGE;
	if (!t->tb_freq)
		t->tb_freq = tb_freq;
	if (!dtltask_involuntary(e->preempt_reason))
		return 0;
	const struct cpu_state *c = &t->cpus[cpu];
	struct dtltask_row *r = c->known ? row_of(t, c->pid, NULL) : &t->rows[1];
	if (!r)
		return -ENOMEM;
	uint64_t hv = (uint64_t)e->enqueue_to_dispatch_tb + e->ready_to_enqueue_tb;
	r->interruptions++;
	r->hv_ticks += hv;
	if (hv > r->worst_ticks || r->interruptions == 1) {
		r->worst_ticks = hv;
		r->worst_time_ns = t_ns;
		r->worst_cpu = cpu;
	}
	return 0;
}

void dtltask_end(struct dtltask *t, uint64_t end_ns)
{
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		struct cpu_state *c = &t->cpus[i];
		if (!c->known || end_ns <= c->since_ns)
			continue;
		struct dtltask_row *r = row_of(t, c->pid, NULL);
		if (r)
			r->run_ns += end_ns - c->since_ns;
		c->since_ns = end_ns;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct dtltask_row *x = a, *y = b;

	if (x->hv_ticks != y->hv_ticks)
		return x->hv_ticks > y->hv_ticks ? -1 : 1;
	if (x->interruptions != y->interruptions)
		return x->interruptions > y->interruptions ? -1 : 1;
	if (x->run_ns != y->run_ns)
		return x->run_ns > y->run_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t dtltask_rows(struct dtltask *t, const struct dtltask_row **rows, uint64_t *tb_freq)
{
	struct dtltask_row *s = realloc(t->sorted, t->nr * sizeof(*s));
	size_t n = 0;

	*tb_freq = t->tb_freq;
	*rows = NULL;
	if (!s)
		return 0;
	t->sorted = s;
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].interruptions || t->rows[i].run_ns)
			s[n++] = t->rows[i];
	qsort(s, n, sizeof(*s), cmp_rows);
	t->nsorted = n;
	*rows = s;
	return n;
}
