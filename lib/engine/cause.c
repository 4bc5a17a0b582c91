/* SPDX-License-Identifier: MIT */
/*
 * cause.c - the sweep of one CPU's range over the spans kept (cause.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cause.h"

struct ccpu {
	struct cause_span *ring;	/* ring_len, the newest at (head - 1) % ring_len */
	uint64_t head;			/* spans fed */
	enum cause_hv_source hv_source;
};

struct cause {
	uint32_t nr_cpus, ring_len;
	struct ccpu *cpus;
	struct cause_span *spans;	/* scratch: the spans of one range (not clipped) */
	uint64_t *points;		/* scratch: their edges, 2 * ring_len + 2 */
	uint32_t *owner;		/* scratch: the span owning each segment between them */
	uint32_t *ord, *hg, *hh, *src;	/* scratch per span: start order, the guest's and the
					 * hypervisor's heaps of covering spans, the source */
	struct cause_part *all;		/* scratch: every source of one range */
	uint32_t *tag;			/* scratch, per span of the range: bit 0 owned some
					 * of it; the rest, + 1, its index in r->hv (0: none) */
};

int cause_new(struct cause **out, uint32_t nr_cpus, uint32_t ring_len)
{
	*out = NULL;
	if (!nr_cpus || nr_cpus > 4096 || ring_len < 16 || ring_len > 8192)
		return -EINVAL;
	struct cause *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->nr_cpus = nr_cpus;
	a->ring_len = ring_len;
	a->cpus = calloc(nr_cpus, sizeof(*a->cpus));
	size_t most = (size_t)ring_len + CAUSE_MAX_EXTRA;	/* spans of one range */
	a->spans = calloc(most, sizeof(*a->spans));
	a->points = calloc(2 * most + 2, sizeof(*a->points));
	a->all = calloc(most, sizeof(*a->all));
	a->tag = calloc(most, sizeof(*a->tag));
	a->owner = calloc(2 * most + 2, sizeof(*a->owner));
	a->ord = calloc(most, sizeof(*a->ord));
	a->hg = calloc(most, sizeof(*a->hg));
	a->hh = calloc(most, sizeof(*a->hh));
	a->src = calloc(most, sizeof(*a->src));
	if (!a->cpus || !a->spans || !a->points || !a->all || !a->tag || !a->owner || !a->ord || !a->hg || !a->hh ||
	    !a->src) {
		cause_free(a);
		return -ENOMEM;
	}
	*out = a;
	return 0;
}

void cause_free(struct cause *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; a->cpus && i < a->nr_cpus; i++)
		free(a->cpus[i].ring);
	free(a->cpus);
	free(a->spans);
	free(a->points);
	free(a->all);
	free(a->tag);
	free(a->owner);
	free(a->ord);
	free(a->hg);
	free(a->hh);
	free(a->src);
	free(a);
}

int cause_span(struct cause *a, const struct cause_span *s)
{
	if (s->cpu >= a->nr_cpus || s->end_ns < s->start_ns || s->cls < CAUSE_HV || s->cls >= CAUSE_NR_CLASSES)
		return -EINVAL;
	struct ccpu *c = &a->cpus[s->cpu];
	/* (a CPU's ring at its first span: memory for the CPUs that have some) */
	if (!c->ring && !(c->ring = calloc(a->ring_len, sizeof(*c->ring))))
		return -ENOMEM;
	struct cause_span *d = &c->ring[c->head % a->ring_len];
	*d = *s;
	d->name[sizeof(d->name) - 1] = 0;
	c->head++;
	if (s->cls == CAUSE_HV && c->hv_source == CAUSE_HV_NONE)
		c->hv_source = s->hv.dtl ? CAUSE_HV_DTL : CAUSE_HV_STEAL;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int by_ns_desc(const void *x, const void *y)
{
	const struct cause_part *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Does span a own an instant over span b, both covering it and both the
 * hypervisor's or both the guest's (the sweep keeps the two apart: the
 * hypervisor's always win)? */
static bool beats(const struct cause_span *a, const struct cause_span *b)
{
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns;	/* the innermost */
	if (a->cls != b->cls)
		return a->cls < b->cls;		/* NMI > IRQ > softirq > thread */
	return a->end_ns < b->end_ns;
}

/* ---- the sweep: the spans that cover the current segment in two heaps
 * (the hypervisor's, the guest's), the one that beats the others on top;
 * a span that ended is dropped when it comes to the top (it beats no
 * covering span by being there: it is simply gone) */

struct heap {
	uint32_t *v;
	size_t n;
	const struct cause_span *sp;
};

static bool above(const struct heap *h, uint32_t i, uint32_t j)
{
	return beats(&h->sp[i], &h->sp[j]);
}

static void heap_push(struct heap *h, uint32_t x)
{
	size_t i = h->n++;
	while (i > 0 && above(h, x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	uint32_t x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && above(h, h->v[c + 1], h->v[c]))
			c++;
		if (!above(h, h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

/* The top span still covering [s, ...) (its end past s), or UINT32_MAX. */
static uint32_t heap_top(struct heap *h, uint64_t s)
{
	while (h->n && h->sp[h->v[0]].end_ns <= s)
		heap_pop(h);
	return h->n ? h->v[0] : UINT32_MAX;
}

static int by_start(const void *x, const void *y, void *arg)
{
	const struct cause_span *sp = arg;
	uint64_t a = sp[*(const uint32_t *)x].start_ns, b = sp[*(const uint32_t *)y].start_ns;
	return a < b ? -1 : a > b;
}

/* Each segment's owner into a->owner (n: none) and the sums of r. */
static void sweep(struct cause *a, size_t n, size_t np, struct cause_result *r)
{
	for (uint32_t i = 0; i < n; i++)
		a->ord[i] = i;
	qsort_r(a->ord, n, sizeof(a->ord[0]), by_start, a->spans);
	struct heap hg = { .v = a->hg, .sp = a->spans }, hh = { .v = a->hh, .sp = a->spans };
	size_t next = 0;
	for (size_t p = 0; p + 1 < np; p++) {
		uint64_t s = a->points[p], e = a->points[p + 1];
		for (; next < n && a->spans[a->ord[next]].start_ns <= s; next++) {
			uint32_t i = a->ord[next];
			heap_push(a->spans[i].cls == CAUSE_HV ? &hh : &hg, i);
		}
		uint32_t own = e > s ? heap_top(&hh, s) : UINT32_MAX;
		if (own == UINT32_MAX && e > s)
			own = heap_top(&hg, s);
		a->owner[p] = own == UINT32_MAX ? (uint32_t)n : own;
		if (e == s)
			continue;
		if (own == UINT32_MAX) {
			r->remainder_ns += e - s;
			continue;
		}
		a->tag[own] |= 1;
		r->class_ns[a->spans[own].cls] += e - s;
		if (a->tag[own] >> 1)
			r->hv[(a->tag[own] >> 1) - 1].ns += e - s;
	}
}

static bool same_source(const struct cause_part *p, const struct cause_span *s)
{
	return p->cls == s->cls && p->tag == s->tag && p->id == s->id &&
	       (s->cls == CAUSE_THREAD || !strncmp(p->name, s->name, sizeof(p->name)));
}

/* The span's source among all[0..*n) (added when new): its index. */
static size_t source_of(struct cause_part *all, size_t *n, const struct cause_span *s)
{
	size_t k;
	for (k = 0; k < *n && !same_source(&all[k], s); k++)
		;
	if (k == *n) {
		memset(&all[k], 0, sizeof(all[k]));
		all[k].cls = s->cls;
		all[k].tag = s->tag;
		all[k].id = s->id;
		(*n)++;
	}
	memcpy(all[k].name, s->name, sizeof(all[k].name));	/* (a thread's newest: spans come in time order) */
	return k;
}

/* Span s of the range into a->spans[*n] (not clipped: the innermost rule
 * compares starts); a hypervisor's listed in r->hv too. */
static void add_span(struct cause *a, struct cause_result *r, size_t *n, const struct cause_span *s)
{
	a->tag[*n] = 0;
	a->spans[(*n)++] = *s;
	if (s->cls != CAUSE_HV)
		return;
	if (r->nr_hv == CAUSE_MAX_HV) {
		r->hv_more++;
		return;
	}
	a->tag[*n - 1] = (uint32_t)(r->nr_hv + 1) << 1;
	r->hv[r->nr_hv++] = (struct cause_hv_span){ .start_ns = s->start_ns, .end_ns = s->end_ns, .hv = s->hv };
}

/* The spans of the ring that overlap [from, to] into a->spans; their
 * count. */
static size_t gather(struct cause *a, const struct ccpu *c, uint64_t from, uint64_t to, struct cause_result *r)
{
	uint64_t avail = c->head < a->ring_len ? c->head : a->ring_len;
	size_t n = 0;
	if (!c->ring)
		return 0;
	for (uint64_t i = 0; i < avail; i++) {
		const struct cause_span *s = &c->ring[(c->head - avail + i) % a->ring_len];	/* oldest first */
		if (s->end_ns <= from || s->start_ns >= to)
			continue;
		add_span(a, r, &n, s);
	}
	/* the oldest kept span still reaches into the range: older ones that
	 * did too may have left the ring */
	r->ring_short = c->head > a->ring_len && c->ring[c->head % a->ring_len].end_ns > from;
	return n;
}

int cause_explain(struct cause *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns, struct cause_result *r)
{
	return cause_explain_with(a, cpu, from_ns, to_ns, NULL, 0, r);
}

int cause_explain_with(struct cause *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns,
		       const struct cause_span *extra, size_t n_extra, struct cause_result *r)
{
	if (cpu >= a->nr_cpus || to_ns < from_ns)
		return -EINVAL;
	if (n_extra > CAUSE_MAX_EXTRA)
		return -E2BIG;
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->from_ns = from_ns;
	r->to_ns = to_ns;
	const struct ccpu *c = &a->cpus[cpu];
	r->hv_source = c->hv_source;
	size_t n = gather(a, c, from_ns, to_ns, r);
	for (size_t i = 0; i < n_extra; i++) {
		const struct cause_span *x = &extra[i];
		if (x->cpu != cpu || x->cls < CAUSE_HV || x->cls >= CAUSE_NR_CLASSES || x->end_ns < x->start_ns ||
		    x->end_ns <= from_ns || x->start_ns >= to_ns)
			continue;
		add_span(a, r, &n, x);
	}

	/* the elementary segments between every edge */
	size_t np = 0;
	a->points[np++] = from_ns;
	a->points[np++] = to_ns;
	for (size_t i = 0; i < n; i++) {
		if (a->spans[i].start_ns > from_ns)
			a->points[np++] = a->spans[i].start_ns;
		if (a->spans[i].end_ns < to_ns)
			a->points[np++] = a->spans[i].end_ns;
	}
	qsort(a->points, np, sizeof(a->points[0]), cmp_u64);
	sweep(a, n, np, r);
	/* each source: how many of its spans owned some of the range, and the
	 * time they owned */
	size_t nall = 0;
	for (size_t i = 0; i < n; i++)
		if (a->tag[i] & 1) {
			a->src[i] = (uint32_t)source_of(a->all, &nall, &a->spans[i]);
			a->all[a->src[i]].count++;
		}
	for (size_t p = 0; p + 1 < np; p++)
		if (a->owner[p] < n)
			a->all[a->src[a->owner[p]]].ns += a->points[p + 1] - a->points[p];
	qsort(a->all, nall, sizeof(a->all[0]), by_ns_desc);
	for (size_t k = 0; k < nall; k++) {
		if (!a->all[k].ns)
			continue;
		if (r->nr_parts < CAUSE_MAX_PARTS) {
			r->parts[r->nr_parts++] = a->all[k];
		} else {
			r->other_ns += a->all[k].ns;
			r->other_count += a->all[k].count;
		}
	}
	return 0;
}

int cause_span_from_noise(const struct noise_win *w, struct cause_span *s)
{
	static const enum cause_class cls[NOISE_NR_CLASSES] = {
		[NOISE_NMI] = CAUSE_NMI, [NOISE_IRQ] = CAUSE_IRQ,
		[NOISE_SOFTIRQ] = CAUSE_SOFTIRQ, [NOISE_THREAD] = CAUSE_THREAD,
	};
	if (w->unseen_start || w->cls < NOISE_NMI || w->cls >= NOISE_NR_CLASSES || w->end_ns < w->start_ns)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cls = cls[w->cls];
	s->cpu = w->cpu;
	s->start_ns = w->start_ns;
	s->end_ns = w->end_ns;
	s->id = w->id;
	memcpy(s->name, w->name, sizeof(s->name));
	s->name[sizeof(s->name) - 1] = 0;
	return 0;
}

int cause_span_from_dtl(uint32_t cpu, uint64_t dispatch_ns, const struct dtl_entry *e, uint64_t tb_freq,
			struct cause_span *s)
{
	if (!tb_freq)
		return -EINVAL;
	uint64_t away = dtl_ticks_to_ns((uint64_t)e->enqueue_to_dispatch_tb + e->ready_to_enqueue_tb, tb_freq);
	memset(s, 0, sizeof(*s));
	s->cls = CAUSE_HV;
	s->cpu = cpu;
	s->end_ns = dispatch_ns;
	s->start_ns = dispatch_ns > away ? dispatch_ns - away : 0;
	s->id = e->preempt_reason;
	char buf[32];
	snprintf(s->name, sizeof(s->name), "%s", dtl_preempt_reason_str(e->preempt_reason, buf));
	s->hv = (struct cause_hv){ .dtl = true, .dispatch_reason = e->dispatch_reason,
				   .preempt_reason = e->preempt_reason, .srr0 = e->srr0 };
	return 0;
}

const char *cause_class_name(enum cause_class c)
{
	static const char *const names[CAUSE_NR_CLASSES] = { "hypervisor", "nmi", "irq", "softirq", "thread" };
	return c >= CAUSE_HV && c < CAUSE_NR_CLASSES ? names[c] : "?";
}

const char *cause_remainder_name(enum cause_hv_source src)
{
	switch (src) {
	case CAUSE_HV_DTL:
		return "the guest, unexplained (the DTL logged no hypervisor time there)";
	case CAUSE_HV_STEAL:
		return "the guest, unexplained (the steal clock moved no further)";
	default:
		return "hardware or hypervisor (no hypervisor source)";
	}
}
