/* SPDX-License-Identifier: MIT */
/* test_dtltask.c - who the hypervisor hurt: charging, rows, run time, order. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/dtltask.h"

static struct dtl_entry entry(uint8_t preempt, uint32_t e2d, uint32_t r2e, uint32_t w2r)
{
	struct dtl_entry e = { .dispatch_reason = 7, .preempt_reason = preempt,
			       .enqueue_to_dispatch_tb = e2d, .ready_to_enqueue_tb = r2e,
			       .waiting_to_ready_tb = w2r, .timebase = 1 };
	return e;
}

static const struct dtltask_row *find(const struct dtltask_row *r, size_t n, int32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].pid == pid)
			return &r[i];
	return NULL;
}

static void test_charging(void **state)
{
	(void)state;
	struct dtltask *t;
	struct dtl_entry e;

	assert_int_equal(dtltask_new(&t), 0);
	/* CPU 1: an entry before any switch is [unknown] */
	e = entry(4, 100, 10, 0);
	assert_int_equal(dtltask_entry(t, 1, 50, &e, 512000000), 0);
	/* CPU 0: swapper -> a(10) at 100; a preempted (time slice) dispatched at 200 */
	assert_int_equal(dtltask_switch(t, 0, 100, 0, "swapper/0", 10, "a"), 0);
	e = entry(4, 512, 512, 0);
	assert_int_equal(dtltask_entry(t, 0, 200, &e, 512000000), 0);
	/* a cede and a confer are the partition's choice: not charged */
	e = entry(2, 9999, 9999, 9999);
	assert_int_equal(dtltask_entry(t, 0, 210, &e, 512000000), 0);
	e = entry(3, 9999, 9999, 9999);
	assert_int_equal(dtltask_entry(t, 0, 220, &e, 512000000), 0);
	/* a -> b(20) at 300, b takes a page fault (worse than a's slice) */
	assert_int_equal(dtltask_switch(t, 0, 300, 10, "a", 20, "b-renamed-later"), 0);
	e = entry(6, 2048, 100, 5000);
	assert_int_equal(dtltask_entry(t, 0, 350, &e, 512000000), 0);
	/* b -> idle at 400; an interruption of the idle vCPU (firmware) */
	assert_int_equal(dtltask_switch(t, 0, 400, 20, "b", 0, "swapper/0"), 0);
	e = entry(1, 7, 3, 0);
	assert_int_equal(dtltask_entry(t, 0, 450, &e, 512000000), 0);
	/* out of range CPUs are refused, not charged */
	assert_int_equal(dtltask_entry(t, 5000, 460, &e, 512000000), -ERANGE);
	assert_int_equal(dtltask_switch(t, 5000, 460, 0, "x", 1, "y"), -ERANGE);
	dtltask_end(t, 500);

	const struct dtltask_row *r;
	uint64_t f;
	size_t n = dtltask_rows(t, &r, &f);
	assert_int_equal(f, 512000000);
	assert_int_equal(n, 4);
	const struct dtltask_row *a = find(r, n, 10), *b = find(r, n, 20),
				   *idle = find(r, n, DTLTASK_PID_IDLE), *unk = find(r, n, DTLTASK_PID_UNKNOWN);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(idle);
	assert_non_null(unk);
	assert_int_equal(a->interruptions, 1);
	assert_int_equal(a->hv_ticks, 1024);
	assert_int_equal(a->run_ns, 200);
	assert_string_equal(a->comm, "a");
	assert_int_equal(b->interruptions, 1);
	assert_int_equal(b->hv_ticks, 2148);		/* waiting_to_ready is not charged */
	assert_int_equal(b->worst_ticks, 2148);
	assert_int_equal(b->worst_time_ns, 350);
	assert_int_equal(b->run_ns, 100);
	assert_string_equal(b->comm, "b");		/* the last comm seen */
	assert_int_equal(idle->interruptions, 1);
	assert_int_equal(idle->hv_ticks, 10);
	assert_int_equal(idle->run_ns, 100);		/* 400..500; before 100 it was unknown */
	assert_int_equal(unk->interruptions, 1);
	assert_int_equal(unk->hv_ticks, 110);
	assert_int_equal(unk->run_ns, 0);
	/* largest hypervisor time first */
	assert_int_equal(r[0].pid, 20);
	assert_int_equal(r[1].pid, 10);
	dtltask_free(t);
}

static void test_involuntary(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 256; p++)
		assert_int_equal(dtltask_involuntary((uint8_t)p), p != 2 && p != 3 && p != 7);
}

/* Many pids: the table grows and every row keeps its numbers. */
static void test_many_tasks(void **state)
{
	(void)state;
	struct dtltask *t;
	assert_int_equal(dtltask_new(&t), 0);
	uint64_t now = 1;
	for (int32_t pid = 1; pid <= 5000; pid++) {
		char comm[16];
		snprintf(comm, sizeof(comm), "t%d", pid);
		assert_int_equal(dtltask_switch(t, (uint32_t)(pid % 7), now, 0, "swapper", pid, comm), 0);
		struct dtl_entry e = entry(4, (uint32_t)pid, 0, 0);
		assert_int_equal(dtltask_entry(t, (uint32_t)(pid % 7), now + 1, &e, 512000000), 0);
		now += 10;
	}
	dtltask_end(t, now);
	const struct dtltask_row *r;
	uint64_t f;
	size_t n = dtltask_rows(t, &r, &f);
	assert_int_equal(n, 5000);	/* the CPU goes from task to task: idle never ran */
	for (size_t i = 0; i + 1 < n; i++)
		assert_true(r[i].hv_ticks >= r[i + 1].hv_ticks);
	const struct dtltask_row *x = find(r, n, 4321);
	assert_non_null(x);
	assert_int_equal(x->hv_ticks, 4321);
	assert_string_equal(x->comm, "t4321");
	dtltask_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charging),
		cmocka_unit_test(test_involuntary),
		cmocka_unit_test(test_many_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
