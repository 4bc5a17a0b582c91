/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the automatic analysis of a latency sample
 * (lib/engine/latauto.c) on constructed event sequences: who had the CPU
 * during the window, IRQs and softirqs nested over tasks, the task before
 * the first switch, the parts adding up to the window.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/latauto.h"

static void sw(struct latauto *a, uint32_t cpu, uint64_t t, int prev, const char *pc, int next, const char *nc)
{
	struct tpevent e = { .kind = TPEVENT_SCHED_SWITCH, .time_ns = t, .cpu = cpu };
	e.sw.prev_pid = prev;
	e.sw.next_pid = next;
	strncpy(e.sw.prev_comm, pc, TPEVENT_COMM_LEN - 1);
	strncpy(e.sw.next_comm, nc, TPEVENT_COMM_LEN - 1);
	assert_int_equal(latauto_event(a, &e), 0);
}

static void irq(struct latauto *a, uint32_t cpu, uint64_t t, bool entry, int n, const char *name)
{
	struct tpevent e = { .kind = entry ? TPEVENT_IRQ_ENTRY : TPEVENT_IRQ_EXIT, .time_ns = t, .cpu = cpu };
	e.irq.irq = n;
	if (name)
		strncpy(e.irq.name, name, TPEVENT_NAME_LEN - 1);
	assert_int_equal(latauto_event(a, &e), 0);
}

static void sirq(struct latauto *a, uint32_t cpu, uint64_t t, bool entry, unsigned vec)
{
	struct tpevent e = { .kind = entry ? TPEVENT_SOFTIRQ_ENTRY : TPEVENT_SOFTIRQ_EXIT, .time_ns = t, .cpu = cpu };
	e.softirq.vec = vec;
	assert_int_equal(latauto_event(a, &e), 0);
}

static uint64_t sum(const struct latauto_result *r)
{
	uint64_t s = r->other_ns;
	for (size_t i = 0; i < r->nr_parts; i++)
		s += r->parts[i].ns;
	return s;
}

static const struct latauto_part *part(const struct latauto_result *r, enum latauto_cls c, int id)
{
	for (size_t i = 0; i < r->nr_parts; i++)
		if (r->parts[i].cls == c && r->parts[i].id == id)
			return &r->parts[i];
	return NULL;
}

/* a victim woken at 1000 while "hog" runs: hog runs to 5000 with an IRQ and
 * a softirq over it, then "kworker" to 6000, then the victim */
static void test_window(void **state)
{
	struct latauto *a;
	struct latauto_result r;
	(void)state;
	assert_int_equal(latauto_new(&a, 2), 0);
	sw(a, 1, 500, 0, "swapper/1", 77, "hog");
	irq(a, 1, 2000, true, 36, "virtio1");
	sirq(a, 1, 2100, true, 4);		/* nested in the IRQ (as on some kernels) */
	sirq(a, 1, 2400, false, 4);
	irq(a, 1, 2500, false, 36, NULL);
	sirq(a, 1, 3000, true, 1);
	sirq(a, 1, 3600, false, 1);
	sw(a, 1, 5000, 77, "hog2", 80, "kworker/1:0");	/* hog exec'ed: its new name */
	sw(a, 1, 6000, 80, "kworker/1:0", 90, "victim");
	/* another CPU's events do not count */
	sw(a, 0, 3000, 1, "x", 2, "y");
	assert_int_equal(latauto_window(a, 1, 1000, 6000, &r), 0);
	assert_false(r.ring_short);
	assert_int_equal(sum(&r), 5000);
	const struct latauto_part *p = part(&r, LATAUTO_TASK, 77);
	assert_non_null(p);
	assert_string_equal(p->name, "hog2");
	assert_int_equal(p->ns, 4000 - 200 - 300 - 600);	/* net of the IRQ, softirqs */
	assert_int_equal(p->count, 1);			/* IRQ returns are no new turn */
	assert_int_equal(part(&r, LATAUTO_IRQ, 36)->ns, 200);
	assert_string_equal(part(&r, LATAUTO_IRQ, 36)->name, "virtio1");
	assert_int_equal(part(&r, LATAUTO_SOFTIRQ, 4)->ns, 300);
	assert_string_equal(part(&r, LATAUTO_SOFTIRQ, 4)->name, "BLOCK");
	assert_int_equal(part(&r, LATAUTO_SOFTIRQ, 1)->ns, 600);
	assert_int_equal(part(&r, LATAUTO_TASK, 80)->ns, 1000);
	assert_int_equal(r.parts[0].id, 77);		/* largest first */
	assert_null(part(&r, LATAUTO_TASK, 90));	/* the victim ran only after */
	latauto_free(a);
}

/* the window starts before the first event: the task before the first
 * switch (its prev) is known; before any event at all: unknown */
static void test_before_first(void **state)
{
	struct latauto *a;
	struct latauto_result r;
	(void)state;
	assert_int_equal(latauto_new(&a, 1), 0);
	assert_int_equal(latauto_window(a, 0, 0, 100, &r), 0);
	assert_true(r.ring_short);
	assert_int_equal(r.nr_parts, 1);
	assert_int_equal(r.parts[0].cls, LATAUTO_UNKNOWN);
	assert_int_equal(r.parts[0].ns, 100);
	sw(a, 0, 1000, 55, "early", 66, "late");
	assert_int_equal(latauto_window(a, 0, 400, 1500, &r), 0);
	assert_true(r.ring_short);
	assert_int_equal(part(&r, LATAUTO_TASK, 55)->ns, 600);
	assert_int_equal(part(&r, LATAUTO_TASK, 66)->ns, 500);
	assert_int_equal(sum(&r), 1100);
	/* an exit whose entry is not kept changes nothing; an empty window */
	irq(a, 0, 1600, false, 3, NULL);
	assert_int_equal(latauto_window(a, 0, 1500, 1700, &r), 0);
	assert_int_equal(part(&r, LATAUTO_TASK, 66)->ns, 200);
	assert_int_equal(latauto_window(a, 0, 1700, 1700, &r), 0);
	assert_int_equal(sum(&r), 0);
	assert_int_equal(latauto_window(a, 0, 1700, 1600, &r), -EINVAL);
	assert_int_equal(latauto_window(a, 1, 0, 1, &r), -EINVAL);
	latauto_free(a);
}

/* an IRQ whose exit was lost under a softirq exit: the stack unwinds to the
 * softirq, the time stays counted once */
static void test_lost_exit(void **state)
{
	struct latauto *a;
	struct latauto_result r;
	(void)state;
	assert_int_equal(latauto_new(&a, 1), 0);
	sw(a, 0, 0, 1, "a", 2, "b");
	sirq(a, 0, 100, true, 3);
	irq(a, 0, 200, true, 9, "eth0");	/* exit lost */
	sirq(a, 0, 300, false, 3);
	assert_int_equal(latauto_window(a, 0, 0, 1000, &r), 0);
	assert_int_equal(part(&r, LATAUTO_TASK, 2)->ns, 100 + 700);
	assert_int_equal(part(&r, LATAUTO_SOFTIRQ, 3)->ns, 100);
	assert_int_equal(part(&r, LATAUTO_IRQ, 9)->ns, 100);
	assert_int_equal(sum(&r), 1000);
	latauto_free(a);
}

/* the hypervisor took the vCPU while "hog" ran (a DTL entry dispatched at
 * 1900 after 400 ns ready and not running): those 400 ns are its, not the
 * task's; a window on a CPU the DTL never reached names no hypervisor */
static void test_hypervisor(void **state)
{
	struct latauto *a;
	struct latauto_result r;
	struct cause_span hv;
	(void)state;
	assert_int_equal(latauto_new(&a, 2), 0);
	sw(a, 0, 500, 0, "swapper/0", 77, "hog");
	irq(a, 0, 2000, true, 36, "virtio1");
	irq(a, 0, 2200, false, 36, NULL);
	sw(a, 0, 3000, 77, "hog", 90, "victim");
	struct dtl_entry e = { .dispatch_reason = 7, .preempt_reason = 4, .enqueue_to_dispatch_tb = 1536,
			       .ready_to_enqueue_tb = 512, .srr0 = 0xc000000000abcdefULL };
	assert_int_equal(cause_span_from_dtl(0, 1900, &e, 5120000000ULL, &hv), 0);	/* 2048 ticks: 400 ns */
	assert_int_equal(latauto_hv(a, &hv), 0);
	hv.cls = CAUSE_IRQ;
	assert_int_equal(latauto_hv(a, &hv), -EINVAL);
	assert_int_equal(latauto_window(a, 0, 1000, 3000, &r), 0);
	assert_int_equal(sum(&r), 2000);
	assert_int_equal(r.hv_ns, 400);
	assert_int_equal(r.hv_source, CAUSE_HV_DTL);
	const struct latauto_part *p = part(&r, LATAUTO_HV, 4);
	assert_non_null(p);
	assert_int_equal(p->ns, 400);
	assert_int_equal(part(&r, LATAUTO_TASK, 77)->ns, 2000 - 400 - 200);
	assert_int_equal(part(&r, LATAUTO_IRQ, 36)->ns, 200);
	assert_int_equal(r.nr_hv, 1);
	assert_int_equal(r.hv[0].start_ns, 1500);
	assert_true(r.hv[0].hv.srr0 == 0xc000000000abcdefULL);
	assert_int_equal(r.hv[0].hv.dispatch_reason, 7);
	assert_string_equal(latauto_cls_name(LATAUTO_HV), "hypervisor");
	/* more spans than the CPU keeps: the window's oldest are gone, said */
	for (int i = 0; i < 4200; i++) {
		e.enqueue_to_dispatch_tb = 512;
		e.ready_to_enqueue_tb = 0;
		assert_int_equal(cause_span_from_dtl(0, 10000 + (uint64_t)i * 1000, &e, 5120000000ULL, &hv), 0);
		assert_int_equal(latauto_hv(a, &hv), 0);
	}
	assert_int_equal(latauto_window(a, 0, 9000, 60000, &r), 0);
	assert_true(r.hv_short);
	assert_int_equal(latauto_window(a, 0, 3000000, 3200000, &r), 0);
	assert_false(r.hv_short);
	assert_int_equal(r.hv_ns, 200 * 100);	/* 200 spans of 100 ns (512 ticks at 5.12 GHz) */
	sw(a, 1, 500, 0, "swapper/1", 5, "x");
	assert_int_equal(latauto_window(a, 1, 600, 900, &r), 0);
	assert_int_equal(r.hv_ns, 0);
	assert_int_equal(r.hv_source, CAUSE_HV_NONE);
	latauto_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_before_first),
		cmocka_unit_test(test_lost_exit),
		cmocka_unit_test(test_hypervisor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
