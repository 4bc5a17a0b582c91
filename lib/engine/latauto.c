/* SPDX-License-Identifier: MIT */
/*
 * latauto.c - who had a CPU during a latency window, replayed from the
 * recent events of that CPU (see latauto.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latauto.h"
#include "engine/noise.h"

/* what is on the CPU: the task, and the IRQ/softirq contexts over it */
struct ctxs {
	struct latauto_part task;	/* cls LATAUTO_UNKNOWN until a switch says */
	struct latauto_part stack[LATAUTO_MAX_NEST];
	unsigned depth;
};

struct acc {
	struct latauto_part all[2 * LATAUTO_RING + 2];
	size_t n;
	const struct latauto_part *last;	/* who had the CPU in the last segment */
};

struct lcpu {
	struct tpevent ring[LATAUTO_RING];
	uint64_t head;
};

struct latauto {
	uint32_t nr_cpus;
	struct lcpu *cpus;
	struct acc *x;			/* latauto_window's scratch */
};

int latauto_new(struct latauto **out, uint32_t nr_cpus)
{
	*out = NULL;
	if (!nr_cpus || nr_cpus > 4096)
		return -EINVAL;
	struct latauto *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->cpus = calloc(nr_cpus, sizeof(*a->cpus));
	a->x = malloc(sizeof(*a->x));
	if (!a->cpus || !a->x) {
		free(a->cpus);
		free(a->x);
		free(a);
		return -ENOMEM;
	}
	a->nr_cpus = nr_cpus;
	*out = a;
	return 0;
}

void latauto_free(struct latauto *a)
{
	if (!a)
		return;
	free(a->cpus);
	free(a->x);
	free(a);
}

static bool kept(enum tpevent_kind k)
{
	switch (k) {
	case TPEVENT_SCHED_SWITCH:
	case TPEVENT_IRQ_ENTRY:
	case TPEVENT_IRQ_EXIT:
	case TPEVENT_SOFTIRQ_ENTRY:
	case TPEVENT_SOFTIRQ_EXIT:
	case TPEVENT_VECTOR_ENTRY:
	case TPEVENT_VECTOR_EXIT:
		return true;
	default:
		return false;
	}
}

int latauto_event(struct latauto *a, const struct tpevent *ev)
{
	if (ev->cpu >= a->nr_cpus || !kept(ev->kind))
		return 0;
	struct lcpu *c = &a->cpus[ev->cpu];
	c->ring[c->head++ % LATAUTO_RING] = *ev;
	return 0;
}

const char *latauto_cls_name(enum latauto_cls c)
{
	static const char *const n[] = { "task", "irq", "softirq", "vector", "unknown" };
	return (unsigned)c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}

static struct latauto_part *find(struct acc *x, const struct latauto_part *who)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->all[i].cls == who->cls && x->all[i].id == who->id &&
		    (who->cls == LATAUTO_TASK || !strncmp(x->all[i].name, who->name, sizeof(who->name)))) {
			if (who->cls == LATAUTO_TASK)	/* a task by pid: its newest name (exec) */
				memcpy(x->all[i].name, who->name, sizeof(who->name));
			return &x->all[i];
		}
	if (x->n == sizeof(x->all) / sizeof(x->all[0]))
		return NULL;
	struct latauto_part *p = &x->all[x->n++];
	*p = *who;
	p->ns = p->count = 0;
	return p;
}

/* [t0, t1) to whoever is on top of s */
static void charge(struct acc *x, const struct ctxs *s, uint64_t t0, uint64_t t1, bool *new_turn)
{
	if (t1 <= t0)
		return;
	const struct latauto_part *who = s->depth ? &s->stack[s->depth - 1] : &s->task;
	struct latauto_part *p = find(x, who);
	if (!p)
		p = &x->all[x->n - 1];	/* full: the last slot takes it (counted in other) */
	p->ns += t1 - t0;
	if (*new_turn || !p->count) {	/* (on the CPU at the window's start: a turn too) */
		p->count++;
		*new_turn = false;
	}
}

static void apply(struct ctxs *s, const struct tpevent *e)
{
	struct latauto_part p;
	memset(&p, 0, sizeof(p));
	switch (e->kind) {
	case TPEVENT_SCHED_SWITCH:
		s->task.cls = LATAUTO_TASK;
		s->task.id = e->sw.next_pid;
		snprintf(s->task.name, sizeof(s->task.name), "%.*s", TPEVENT_COMM_LEN, e->sw.next_comm);
		return;
	case TPEVENT_IRQ_ENTRY:
		p.cls = LATAUTO_IRQ;
		p.id = e->irq.irq;
		snprintf(p.name, sizeof(p.name), "%s", e->irq.name);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
		p.cls = LATAUTO_SOFTIRQ;
		p.id = (int32_t)e->softirq.vec;
		snprintf(p.name, sizeof(p.name), "%s", noise_softirq_name(e->softirq.vec));
		break;
	case TPEVENT_VECTOR_ENTRY:
		p.cls = LATAUTO_VECTOR;
		p.id = e->vector.vector;
		snprintf(p.name, sizeof(p.name), "%s", e->vector.name);
		break;
	default:	/* an exit: the innermost context of its class ends */
		for (unsigned i = s->depth; i-- > 0;) {
			enum latauto_cls want = e->kind == TPEVENT_IRQ_EXIT ? LATAUTO_IRQ :
						e->kind == TPEVENT_SOFTIRQ_EXIT ? LATAUTO_SOFTIRQ : LATAUTO_VECTOR;
			if (s->stack[i].cls == want) {
				s->depth = i;	/* and anything left open above it (a lost exit) */
				return;
			}
		}
		return;		/* an exit whose entry is older than the ring */
	}
	if (s->depth < LATAUTO_MAX_NEST)
		s->stack[s->depth++] = p;
}

static int by_ns_desc(const void *x, const void *y)
{
	const struct latauto_part *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->cls != b->cls ? (a->cls < b->cls ? -1 : 1) : (a->id < b->id ? -1 : a->id > b->id);
}

int latauto_window(struct latauto *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns,
		   struct latauto_result *r)
{
	struct acc *xp = a->x;
	struct ctxs s;

	if (cpu >= a->nr_cpus || to_ns < from_ns)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	xp->n = 0;
	r->cpu = cpu;
	r->from_ns = from_ns;
	r->to_ns = to_ns;
	s.task.cls = LATAUTO_UNKNOWN;
	s.task.id = -1;
	snprintf(s.task.name, sizeof(s.task.name), "before the events kept");
	const struct lcpu *c = &a->cpus[cpu];
	uint64_t n = c->head < LATAUTO_RING ? c->head : LATAUTO_RING, first = c->head - n;
	/* the task before the first switch kept: its prev */
	for (uint64_t i = first; i < c->head; i++) {
		const struct tpevent *e = &c->ring[i % LATAUTO_RING];
		if (e->kind == TPEVENT_SCHED_SWITCH) {
			s.task.cls = LATAUTO_TASK;
			s.task.id = e->sw.prev_pid;
			snprintf(s.task.name, sizeof(s.task.name), "%.*s", TPEVENT_COMM_LEN, e->sw.prev_comm);
			break;
		}
	}
	if (!n || c->ring[first % LATAUTO_RING].time_ns > from_ns)
		r->ring_short = true;
	uint64_t t = from_ns;
	bool turn = true;
	for (uint64_t i = first; i < c->head && t < to_ns; i++) {
		const struct tpevent *e = &c->ring[i % LATAUTO_RING];
		if (e->time_ns > t) {
			uint64_t end = e->time_ns < to_ns ? e->time_ns : to_ns;
			charge(xp, &s, t, end, &turn);
			t = end;
		}
		unsigned d0 = s.depth;
		int32_t id0 = s.task.id;
		if (e->kind == TPEVENT_SCHED_SWITCH && e->sw.prev_pid == s.task.id && s.task.cls == LATAUTO_TASK) {
			/* the name it leaves with (an exec changes it) */
			snprintf(s.task.name, sizeof(s.task.name), "%.*s", TPEVENT_COMM_LEN, e->sw.prev_comm);
			if (e->time_ns > from_ns)
				find(xp, &s.task);
		}
		apply(&s, e);
		/* a new turn: another task, or an IRQ/softirq entered (not the
		 * return from one to the task it interrupted) */
		if (s.depth > d0 || s.task.id != id0)
			turn = true;
	}
	charge(xp, &s, t, to_ns, &turn);
	qsort(xp->all, xp->n, sizeof(xp->all[0]), by_ns_desc);
	for (size_t i = 0; i < xp->n; i++) {
		if (!xp->all[i].ns)
			continue;
		if (r->nr_parts < LATAUTO_MAX_PARTS)
			r->parts[r->nr_parts++] = xp->all[i];
		else
			r->other_ns += xp->all[i].ns;
	}
	return 0;
}
