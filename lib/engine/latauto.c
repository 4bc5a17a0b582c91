/* SPDX-License-Identifier: MIT */
/*
 * latauto.c - who had a CPU during a latency window: the recent events of
 * that CPU replayed into spans, swept with the hypervisor's by
 * lib/engine/cause (see latauto.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latauto.h"
#include "engine/noise.h"

/* hypervisor spans kept per CPU (a CPU's ring is made at its first span):
 * the DTL of a vCPU taken at every exit (9000 entries a second seen) over
 * a window of 450 ms; past that the window's oldest are gone, said */
#define LATAUTO_HV_RING	4096

struct lcpu {
	struct tpevent ring[LATAUTO_RING];
	uint64_t head;
};

struct latauto {
	uint32_t nr_cpus;
	struct lcpu **cpus;		/* each made at its CPU's first event */
	struct cause *cz;		/* the sweep; its rings hold the hypervisor's spans */
	struct cause_span *spans;	/* latauto_window's scratch: the replayed spans */
	struct cause_result *res;	/* and the sweep's result */
};

int latauto_new(struct latauto **out, uint32_t nr_cpus)
{
	*out = NULL;
	if (!nr_cpus || nr_cpus > 4096)
		return -EINVAL;
	struct latauto *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->nr_cpus = nr_cpus;
	a->cpus = calloc(nr_cpus, sizeof(*a->cpus));
	a->spans = calloc(CAUSE_MAX_EXTRA, sizeof(*a->spans));
	a->res = malloc(sizeof(*a->res));
	int err = a->cpus && a->spans && a->res ? cause_new(&a->cz, nr_cpus, LATAUTO_HV_RING) : -ENOMEM;
	if (err) {
		latauto_free(a);
		return err;
	}
	*out = a;
	return 0;
}

void latauto_free(struct latauto *a)
{
	if (!a)
		return;
	cause_free(a->cz);
	for (uint32_t i = 0; a->cpus && i < a->nr_cpus; i++)
		free(a->cpus[i]);
	free(a->cpus);
	free(a->spans);
	free(a->res);
	free(a);
}

int latauto_hv(struct latauto *a, const struct cause_span *s)
{
	return s->cls == CAUSE_HV ? cause_span(a->cz, s) : -EINVAL;
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
	struct lcpu *c = a->cpus[ev->cpu];
	if (!c && !(c = a->cpus[ev->cpu] = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->ring[c->head++ % LATAUTO_RING] = *ev;
	return 0;
}

const char *latauto_cls_name(enum latauto_cls c)
{
	static const char *const n[] = { "task", "irq", "softirq", "vector", "unknown", "hypervisor" };
	return (unsigned)c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}

/* ---- the replay: the events of one CPU into spans ---------------------------------- */

struct replay {
	struct cause_span *out;
	size_t n;
	uint32_t cpu;
	struct cause_span task;		/* the task on the CPU since task.start_ns (known: id >= 0) */
	struct cause_span stack[LATAUTO_MAX_NEST];	/* the open IRQ/softirq/vector contexts */
	unsigned depth;
};

static void emit(struct replay *p, const struct cause_span *s, uint64_t end_ns)
{
	if (p->n == CAUSE_MAX_EXTRA)
		return;		/* (more than the ring can make) */
	p->out[p->n] = *s;
	p->out[p->n].end_ns = end_ns;
	p->n++;
}

static void set_task(struct cause_span *t, uint32_t cpu, uint64_t t_ns, int32_t pid, const char *comm)
{
	memset(t, 0, sizeof(*t));
	t->cls = CAUSE_THREAD;
	t->tag = LATAUTO_TASK;
	t->cpu = cpu;
	t->start_ns = t_ns;
	t->id = pid;
	snprintf(t->name, sizeof(t->name), "%.*s", TPEVENT_COMM_LEN, comm);
}

/* An entry pushes a context; an exit ends the innermost context of its
 * class and anything left open above it (a lost exit), at its time. */
static void replay_ctx(struct replay *p, const struct tpevent *e)
{
	struct cause_span c;
	memset(&c, 0, sizeof(c));
	c.cpu = p->cpu;
	c.start_ns = e->time_ns;
	switch (e->kind) {
	case TPEVENT_IRQ_ENTRY:
		c.cls = CAUSE_IRQ, c.tag = LATAUTO_IRQ, c.id = e->irq.irq;
		snprintf(c.name, sizeof(c.name), "%s", e->irq.name);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
		c.cls = CAUSE_SOFTIRQ, c.tag = LATAUTO_SOFTIRQ, c.id = (int32_t)e->softirq.vec;
		snprintf(c.name, sizeof(c.name), "%s", noise_softirq_name(e->softirq.vec));
		break;
	case TPEVENT_VECTOR_ENTRY:
		c.cls = CAUSE_IRQ, c.tag = LATAUTO_VECTOR, c.id = e->vector.vector;
		snprintf(c.name, sizeof(c.name), "%s", e->vector.name);
		break;
	default: {
		uint8_t want = e->kind == TPEVENT_IRQ_EXIT ? LATAUTO_IRQ :
			       e->kind == TPEVENT_SOFTIRQ_EXIT ? LATAUTO_SOFTIRQ : LATAUTO_VECTOR;
		for (unsigned i = p->depth; i-- > 0;)
			if (p->stack[i].tag == want) {
				while (p->depth > i)
					emit(p, &p->stack[--p->depth], e->time_ns);
				return;
			}
		return;		/* an exit whose entry is older than the ring */
	}
	}
	if (p->depth < LATAUTO_MAX_NEST)
		p->stack[p->depth++] = c;
}

/* cpu's events kept into spans (the ones still open end at to_ns); true
 * when the ring starts after from_ns. */
static bool replay(struct latauto *a, struct replay *p, uint32_t cpu, uint64_t from_ns, uint64_t to_ns)
{
	const struct lcpu *c = a->cpus[cpu];
	uint64_t head = c ? c->head : 0;	/* (no ring: no event of that CPU yet) */
	uint64_t n = head < LATAUTO_RING ? head : LATAUTO_RING, first = head - n;
	memset(p, 0, sizeof(*p));
	p->out = a->spans;
	p->cpu = cpu;
	p->task.id = -1;
	/* the task before the first switch kept (its prev) ran from the start */
	for (uint64_t i = first; i < head; i++) {
		const struct tpevent *e = &c->ring[i % LATAUTO_RING];
		if (e->kind == TPEVENT_SCHED_SWITCH) {
			set_task(&p->task, cpu, 0, e->sw.prev_pid, e->sw.prev_comm);
			break;
		}
	}
	for (uint64_t i = first; i < head; i++) {
		const struct tpevent *e = &c->ring[i % LATAUTO_RING];
		if (e->time_ns > to_ns)
			break;
		if (e->kind != TPEVENT_SCHED_SWITCH) {
			replay_ctx(p, e);
			continue;
		}
		if (p->task.id >= 0) {
			if (e->sw.prev_pid == p->task.id)	/* the name it leaves with (an exec changes it) */
				snprintf(p->task.name, sizeof(p->task.name), "%.*s", TPEVENT_COMM_LEN,
					 e->sw.prev_comm);
			emit(p, &p->task, e->time_ns);
		}
		set_task(&p->task, cpu, e->time_ns, e->sw.next_pid, e->sw.next_comm);
	}
	if (p->task.id >= 0)
		emit(p, &p->task, to_ns);
	while (p->depth)
		emit(p, &p->stack[--p->depth], to_ns);
	return !n || c->ring[first % LATAUTO_RING].time_ns > from_ns;	/* (n > 0: c is there) */
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
	struct replay p;

	if (cpu >= a->nr_cpus || to_ns < from_ns)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->from_ns = from_ns;
	r->to_ns = to_ns;
	r->ring_short = replay(a, &p, cpu, from_ns, to_ns);
	struct cause_result *x = a->res;
	int err = cause_explain_with(a->cz, cpu, from_ns, to_ns, p.out, p.n, x);
	if (err)
		return err;
	/* the parts, the unexplained time as "unknown", largest first */
	struct latauto_part all[CAUSE_MAX_PARTS + 1];
	size_t n = 0;
	for (size_t i = 0; i < x->nr_parts; i++) {
		const struct cause_part *c = &x->parts[i];
		struct latauto_part *q = &all[n++];
		q->cls = c->cls == CAUSE_HV ? LATAUTO_HV : (enum latauto_cls)c->tag;
		q->id = c->id;
		memcpy(q->name, c->name, sizeof(q->name));
		q->ns = c->ns;
		q->count = c->count;
	}
	if (x->remainder_ns) {
		all[n] = (struct latauto_part){ .cls = LATAUTO_UNKNOWN, .id = -1, .ns = x->remainder_ns, .count = 1 };
		snprintf(all[n].name, sizeof(all[n].name), "before the events kept");
		n++;
	}
	qsort(all, n, sizeof(all[0]), by_ns_desc);
	r->other_ns = x->other_ns;
	for (size_t i = 0; i < n; i++) {
		if (r->nr_parts < LATAUTO_MAX_PARTS)
			r->parts[r->nr_parts++] = all[i];
		else
			r->other_ns += all[i].ns;
	}
	r->hv_ns = x->class_ns[CAUSE_HV];
	r->hv_short = x->ring_short;
	memcpy(r->hv, x->hv, sizeof(r->hv));
	r->nr_hv = x->nr_hv;
	r->hv_more = x->hv_more;
	r->hv_source = x->hv_source;
	return 0;
}
