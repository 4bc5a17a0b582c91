/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the decomposition of one CPU's range into its causes, the
 * hypervisor included (lib/engine/cause.c): a constructed case with nesting
 * and a hypervisor span across two guest spans; a DTL entry's span; the
 * noise accounting's windows fed through; and a property test over random
 * span sets against a nanosecond-by-nanosecond reference: the parts add up
 * to the range, the hypervisor's part is the measure of its spans' union
 * inside it, and no hypervisor time appears where none was fed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/cause.h"

static void span(struct cause *a, enum cause_class cls, uint32_t cpu, uint64_t s, uint64_t e, int32_t id,
		 const char *name)
{
	struct cause_span x = { .cls = cls, .cpu = cpu, .start_ns = s, .end_ns = e, .id = id };
	snprintf(x.name, sizeof(x.name), "%s", name);
	if (cls == CAUSE_HV)
		x.hv = (struct cause_hv){ .dtl = true, .dispatch_reason = 1, .preempt_reason = (uint8_t)id,
					  .srr0 = 0xc000000000001234ULL };
	assert_int_equal(cause_span(a, &x), 0);
}

static const struct cause_part *part(const struct cause_result *r, enum cause_class cls, int32_t id)
{
	for (size_t i = 0; i < r->nr_parts; i++)
		if (r->parts[i].cls == cls && r->parts[i].id == id)
			return &r->parts[i];
	return NULL;
}

static uint64_t sum(const struct cause_result *r)
{
	uint64_t t = r->other_ns + r->remainder_ns;
	for (size_t i = 0; i < r->nr_parts; i++)
		t += r->parts[i].ns;
	return t;
}

/* A thread's range [0, 100]: an IRQ [10, 30] with an NMI [15, 20] in it, a
 * softirq [30, 50], the hypervisor [40, 60] (it took the vCPU inside the
 * softirq and kept it past its end), a thread [70, 80]; the rest no one's. */
static void test_known(void **state)
{
	(void)state;
	struct cause *a;
	struct cause_result r;
	assert_int_equal(cause_new(&a, 2, 64), 0);
	span(a, CAUSE_NMI, 0, 15, 20, 2, "nmi");
	span(a, CAUSE_IRQ, 0, 10, 30, 236, "local_timer");
	span(a, CAUSE_HV, 0, 40, 60, 2, "time_slice");
	span(a, CAUSE_SOFTIRQ, 0, 30, 50, 1, "TIMER");
	span(a, CAUSE_THREAD, 0, 70, 80, 42, "kworker/0:1");
	span(a, CAUSE_IRQ, 1, 0, 100, 9, "other CPU");	/* another CPU's: not counted */
	span(a, CAUSE_IRQ, 0, 0, 5, 7, "before");	/* ends at the start: not counted */
	assert_int_equal(cause_explain(a, 0, 5, 100, &r), 0);
	assert_int_equal(r.class_ns[CAUSE_NMI], 5);
	assert_int_equal(r.class_ns[CAUSE_IRQ], 15);
	assert_int_equal(r.class_ns[CAUSE_SOFTIRQ], 10);
	assert_int_equal(r.class_ns[CAUSE_HV], 20);
	assert_int_equal(r.class_ns[CAUSE_THREAD], 10);
	assert_int_equal(r.remainder_ns, 95 - 60);
	assert_int_equal(sum(&r), 95);
	assert_int_equal(r.hv_source, CAUSE_HV_DTL);
	assert_int_equal(r.nr_hv, 1);
	assert_int_equal(r.hv[0].start_ns, 40);
	assert_int_equal(r.hv[0].ns, 20);
	assert_int_equal(r.hv[0].hv.preempt_reason, 2);
	assert_true(r.hv[0].hv.srr0 == 0xc000000000001234ULL);
	const struct cause_part *p = part(&r, CAUSE_IRQ, 236);
	assert_non_null(p);
	assert_int_equal(p->ns, 15);
	assert_int_equal(p->count, 1);
	assert_null(part(&r, CAUSE_IRQ, 9));
	assert_null(part(&r, CAUSE_IRQ, 7));
	/* largest first: the hypervisor's 20 */
	assert_int_equal(r.parts[0].cls, CAUSE_HV);
	/* a range inside the hypervisor's span: all of it the hypervisor's */
	assert_int_equal(cause_explain(a, 0, 45, 55, &r), 0);
	assert_int_equal(r.class_ns[CAUSE_HV], 10);
	assert_int_equal(r.nr_parts, 1);
	assert_int_equal(r.remainder_ns, 0);
	/* CPU 1 had no hypervisor source: its remainder is named so */
	assert_int_equal(cause_explain(a, 1, 0, 200, &r), 0);
	assert_int_equal(r.hv_source, CAUSE_HV_NONE);
	assert_int_equal(r.remainder_ns, 100);
	assert_non_null(strstr(cause_remainder_name(r.hv_source), "hardware or hypervisor"));
	assert_int_equal(cause_explain(a, 2, 0, 1, &r), -EINVAL);
	assert_int_equal(cause_explain(a, 0, 2, 1, &r), -EINVAL);
	cause_free(a);
}

/* A DTL entry: the vCPU ready and not running for enqueue_to_dispatch +
 * ready_to_enqueue before its dispatch; waiting_to_ready (a cede) is not
 * the hypervisor's. */
static void test_dtl_span(void **state)
{
	(void)state;
	struct dtl_entry e = { .dispatch_reason = 7, .preempt_reason = 2, .enqueue_to_dispatch_tb = 5120,
			       .ready_to_enqueue_tb = 512, .waiting_to_ready_tb = 1000000, .srr0 = 0x1000 };
	struct cause_span s;
	assert_int_equal(cause_span_from_dtl(3, 1000000, &e, 512000000, &s), 0);
	assert_int_equal(s.cls, CAUSE_HV);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.end_ns, 1000000);
	assert_int_equal(s.start_ns, 1000000 - 11000);	/* 5632 ticks at 512 MHz */
	assert_true(s.hv.dtl);
	assert_int_equal(s.hv.dispatch_reason, 7);
	assert_int_equal(s.id, 2);
	assert_true(s.name[0] != 0);
	assert_int_equal(cause_span_from_dtl(0, 10, &e, 0, &s), -EINVAL);
	/* a dispatch earlier than the time away: clamped at 0 */
	assert_int_equal(cause_span_from_dtl(0, 10, &e, 512000000, &s), 0);
	assert_int_equal(s.start_ns, 0);
}

/* The noise accounting's windows: the thread's start unseen has no extent. */
static void test_from_noise(void **state)
{
	(void)state;
	struct noise_win w = { .cls = NOISE_SOFTIRQ, .cpu = 1, .start_ns = 10, .end_ns = 25, .net_ns = 15, .id = 3 };
	snprintf(w.name, sizeof(w.name), "NET_RX");
	struct cause_span s;
	assert_int_equal(cause_span_from_noise(&w, &s), 0);
	assert_int_equal(s.cls, CAUSE_SOFTIRQ);
	assert_int_equal(s.start_ns, 10);
	assert_int_equal(s.end_ns, 25);
	assert_string_equal(s.name, "NET_RX");
	w.unseen_start = true;
	assert_int_equal(cause_span_from_noise(&w, &s), -EINVAL);
}

/* A ring that overflowed: a span of the range may be gone, said. */
static void test_ring_short(void **state)
{
	(void)state;
	struct cause *a;
	struct cause_result r;
	assert_int_equal(cause_new(&a, 1, 16), 0);
	span(a, CAUSE_THREAD, 0, 0, 1000, 1, "long");
	for (int i = 0; i < 16; i++)
		span(a, CAUSE_IRQ, 0, 100 + (uint64_t)i * 10, 105 + (uint64_t)i * 10, 5, "irq");
	assert_int_equal(cause_explain(a, 0, 50, 400, &r), 0);
	assert_true(r.ring_short);
	assert_int_equal(sum(&r), 350);
	assert_int_equal(cause_explain(a, 0, 200, 400, &r), 0);
	assert_false(r.ring_short);	/* the oldest kept ends at 105: before it */
	cause_free(a);
	assert_int_equal(cause_new(&a, 1, 15), -EINVAL);
	assert_int_equal(cause_new(&a, 0, 64), -EINVAL);
}

/* A caller's own spans for one range (not kept): a thread is its pid
 * whatever its name (the newest kept), the tag is part of a source. */
static void test_extra(void **state)
{
	(void)state;
	struct cause *a;
	struct cause_result r;
	assert_int_equal(cause_new(&a, 1, 16), 0);
	span(a, CAUSE_HV, 0, 50, 60, 4, "time_slice");
	struct cause_span x[4] = {
		{ .cls = CAUSE_THREAD, .cpu = 0, .start_ns = 0, .end_ns = 40, .id = 7, .name = "old" },
		{ .cls = CAUSE_THREAD, .cpu = 0, .start_ns = 40, .end_ns = 100, .id = 7, .name = "new" },
		{ .cls = CAUSE_IRQ, .cpu = 0, .start_ns = 10, .end_ns = 20, .id = 236, .tag = 1, .name = "t" },
		{ .cls = CAUSE_IRQ, .cpu = 0, .start_ns = 20, .end_ns = 25, .id = 236, .tag = 2, .name = "t" },
	};
	assert_int_equal(cause_explain_with(a, 0, 0, 100, x, 4, &r), 0);
	const struct cause_part *t = part(&r, CAUSE_THREAD, 7);
	assert_non_null(t);
	assert_int_equal(t->ns, 100 - 10 - 5 - 10);
	assert_int_equal(t->count, 2);
	assert_string_equal(t->name, "new");
	assert_int_equal(r.class_ns[CAUSE_IRQ], 15);
	assert_int_equal(r.nr_parts, 4);	/* the thread, the hypervisor, two IRQ sources by tag */
	assert_int_equal(r.class_ns[CAUSE_HV], 10);
	assert_int_equal(sum(&r), 100);
	/* the ring did not keep them */
	assert_int_equal(cause_explain(a, 0, 0, 100, &r), 0);
	assert_int_equal(r.remainder_ns, 90);
	assert_int_equal(cause_explain_with(a, 0, 0, 100, x, CAUSE_MAX_EXTRA + 1, &r), -E2BIG);
	cause_free(a);
}

/* ---- the property: random spans against a per-nanosecond reference ------------ */

#define T 400	/* the time line, ns */

struct rspan {
	enum cause_class cls;
	uint64_t s, e;
	int32_t id;
};

/* The owner of instant t (its index, or -1), by the rule in cause.h. */
static int ref_owner(const struct rspan *x, int n, uint64_t t)
{
	int own = -1;
	for (int i = 0; i < n; i++) {
		if (!(x[i].s <= t && t < x[i].e))
			continue;
		if (own < 0) {
			own = i;
			continue;
		}
		const struct rspan *a = &x[i], *b = &x[own];
		bool beats;
		if ((a->cls == CAUSE_HV) != (b->cls == CAUSE_HV))
			beats = a->cls == CAUSE_HV;
		else if (a->s != b->s)
			beats = a->s > b->s;
		else if (a->cls != b->cls)
			beats = a->cls < b->cls;
		else
			beats = a->e < b->e;
		if (beats)
			own = i;
	}
	return own;
}

static void test_property(void **state)
{
	(void)state;
	srand(20261208);
	for (int round = 0; round < 3000; round++) {
		struct cause *a;
		assert_int_equal(cause_new(&a, 1, 64), 0);
		struct rspan x[40];
		int n = rand() % 40;
		bool with_hv = round % 3 != 0;
		for (int i = 0; i < n; i++) {
			int c = rand() % (with_hv ? CAUSE_NR_CLASSES : CAUSE_NR_CLASSES - 1) + (with_hv ? 0 : 1);
			uint64_t s = (uint64_t)(rand() % T), len = (uint64_t)(rand() % 80);
			x[i] = (struct rspan){ .cls = (enum cause_class)c, .s = s, .e = s + len, .id = rand() % 4 };
			span(a, x[i].cls, 0, x[i].s, x[i].e, x[i].id, "x");
		}
		uint64_t from = (uint64_t)(rand() % T), to = from + (uint64_t)(rand() % (T - from + 1));
		struct cause_result r;
		assert_int_equal(cause_explain(a, 0, from, to, &r), 0);
		uint64_t want[CAUSE_NR_CLASSES] = { 0 }, rem = 0;
		for (uint64_t t = from; t < to; t++) {
			int o = ref_owner(x, n, t);
			if (o < 0)
				rem++;
			else
				want[x[o].cls]++;
		}
		assert_int_equal(sum(&r), to - from);
		assert_int_equal(r.remainder_ns, rem);
		for (int c = 0; c < CAUSE_NR_CLASSES; c++)
			assert_int_equal(r.class_ns[c], want[c]);
		if (!with_hv)
			assert_int_equal(r.class_ns[CAUSE_HV], 0);
		uint64_t hv = 0;
		for (size_t i = 0; i < r.nr_hv; i++)
			hv += r.hv[i].ns;
		if (!r.hv_more)
			assert_int_equal(hv, r.class_ns[CAUSE_HV]);
		cause_free(a);
	}
}

/* Many spans: the sweep's heaps against the reference on a longer line. */
static void test_many(void **state)
{
	(void)state;
	enum { N = 1500, L = 30000 };
	static struct rspan x[N];
	srand(8);
	struct cause *a;
	assert_int_equal(cause_new(&a, 1, 2048), 0);
	for (int i = 0; i < N; i++) {
		uint64_t st = (uint64_t)(rand() % L), len = (uint64_t)(rand() % 400);
		x[i] = (struct rspan){ .cls = (enum cause_class)(rand() % CAUSE_NR_CLASSES), .s = st, .e = st + len,
				       .id = rand() % 50 };
		span(a, x[i].cls, 0, x[i].s, x[i].e, x[i].id, "m");
	}
	struct cause_result r;
	assert_int_equal(cause_explain(a, 0, 1000, 29000, &r), 0);
	uint64_t want[CAUSE_NR_CLASSES] = { 0 }, rem = 0;
	for (uint64_t t = 1000; t < 29000; t++) {
		int o = ref_owner(x, N, t);
		if (o < 0)
			rem++;
		else
			want[x[o].cls]++;
	}
	assert_int_equal(r.remainder_ns, rem);
	for (int c = 0; c < CAUSE_NR_CLASSES; c++)
		assert_int_equal(r.class_ns[c], want[c]);
	assert_int_equal(sum(&r), 28000);
	assert_true(r.nr_hv == CAUSE_MAX_HV && r.hv_more > 0);
	cause_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_dtl_span),
		cmocka_unit_test(test_from_noise),
		cmocka_unit_test(test_ring_short),
		cmocka_unit_test(test_extra),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
