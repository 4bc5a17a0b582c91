/* SPDX-License-Identifier: MIT */
/* test_dtlbins.c - the fixed-resolution DTL timeline: split, regrid, tasks, bounds. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/dtlbins.h"

#define F 1000000000ULL	/* 1 GHz timebase: a tick is a ns */

static struct dtl_entry entry(uint8_t preempt, uint32_t e2d, uint32_t r2e, uint32_t w2r)
{
	struct dtl_entry e = { .dispatch_reason = 7, .preempt_reason = preempt,
			       .enqueue_to_dispatch_tb = e2d, .ready_to_enqueue_tb = r2e,
			       .waiting_to_ready_tb = w2r, .timebase = 1 };
	return e;
}

struct sums { uint64_t pre, ced, del, ent, worst, worst_t; };

static struct sums sum_cpu(const struct dtlbins *b, uint32_t cpu)
{
	struct sums s = { 0 };
	const struct dtlbins_bin *x = dtlbins_cpu(b, cpu);
	assert_non_null(x);
	for (unsigned i = 0; i < DTLBINS_N; i++) {
		s.pre += x[i].preempted_ns;
		s.ced += x[i].ceded_ns;
		s.del += x[i].delay_ns;
		s.ent += x[i].entries;
		if (x[i].worst_delay_ns > s.worst) {
			s.worst = x[i].worst_delay_ns;
			s.worst_t = x[i].worst_time_ns;
		}
	}
	return s;
}

/* Totals survive any number of regrids, in any order of times. */
static void test_totals_and_regrid(void **state)
{
	(void)state;
	struct dtlbins *b;
	assert_int_equal(dtlbins_new(&b), 0);
	struct dtl_entry pre = entry(4, 3000, 1000, 0);		/* time slice: 4 us preempted */
	struct dtl_entry ced = entry(2, 500, 500, 10000);	/* H_CEDE: 10 us ceded, 1 us delay */
	/* a second of entries, fed from the middle out (both grow directions) */
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t k = i % 2 ? 500 + i / 2 : 499 - i / 2;
		uint64_t t = 10 * F + k * 1000000;
		assert_int_equal(dtlbins_entry(b, 3, t, k % 10 ? &ced : &pre, F), 0);
	}
	struct sums s = sum_cpu(b, 3);
	assert_int_equal(s.ent, 1000);
	assert_int_equal(s.pre, 100 * 4000);
	assert_int_equal(s.ced, 900 * 10000);
	assert_int_equal(s.del, 900 * 1000);
	assert_int_equal(s.worst, 4000);
	uint32_t first, n;
	uint64_t start, w;
	assert_int_equal(dtlbins_range(b, &first, &n, &start, &w), 0);
	assert_true(n > DTLBINS_N / 4 && n <= DTLBINS_N);
	assert_true(start <= 10 * F - 4000 && start + n * w > 10 * F + 999 * 1000000ULL);
	assert_null(dtlbins_cpu(b, 2));
	assert_int_equal(dtlbins_nr_cpus(b), 4);
	dtlbins_free(b);
}

/* The worst delay of a bin stays the one entry's, with its time. */
static void test_worst_mark(void **state)
{
	(void)state;
	struct dtlbins *b;
	assert_int_equal(dtlbins_new(&b), 0);
	struct dtl_entry small = entry(2, 10, 0, 100), big = entry(4, 2000000, 0, 0);
	for (uint64_t t = 1; t <= 1000; t++)
		assert_int_equal(dtlbins_entry(b, 0, F + t * 100000, &small, F), 0);
	assert_int_equal(dtlbins_entry(b, 0, F + 55555555, &big, F), 0);
	struct sums s = sum_cpu(b, 0);
	assert_int_equal(s.worst, 2000000);
	assert_int_equal(s.worst_t, F + 55555555);
	assert_int_equal(s.pre, 2000000);
	dtlbins_free(b);
}

/* The dominant task of a bin is the one that ran the longest in it. */
static void test_tasks(void **state)
{
	(void)state;
	struct dtlbins *b;
	assert_int_equal(dtlbins_new(&b), 0);
	/* 256 us in 1 us bins would fit; use long stretches so bins are 1 ms+ */
	assert_int_equal(dtlbins_switch(b, 1, F, 100, "a"), 0);
	assert_int_equal(dtlbins_switch(b, 1, F + 1000000, 0, "swapper/1"), 0);
	for (uint64_t i = 0; i < 50; i++) {	/* b runs 70 % of 2..3 ms in slices */
		uint64_t t0 = F + 2000000 + i * 20000;
		assert_int_equal(dtlbins_switch(b, 1, t0, 200, "b"), 0);
		assert_int_equal(dtlbins_switch(b, 1, t0 + 14000, 300, "c"), 0);
	}
	dtlbins_end(b, F + 100000000);
	uint32_t first, n;
	uint64_t start, w;
	dtlbins_range(b, &first, &n, &start, &w);
	const struct dtlbins_bin *x = dtlbins_cpu(b, 1);
	assert_non_null(x);
	/* the bin holding 1.0005 s is a's; the one holding 2.5 ms is b's */
	unsigned ka = (unsigned)(first + (F + 500000 - start) / w);
	unsigned kb = (unsigned)(first + (F + 2500000 - start) / w);
	unsigned kc = (unsigned)(first + (F + 50000000 - start) / w);
	if (w <= 1000000)
		assert_int_equal(x[ka].task_pid, 100);
	if (w <= 500000)
		assert_int_equal(x[kb].task_pid, 200);
	assert_int_equal(x[kc].task_pid, 300);	/* c runs on to the end */
	assert_string_equal(x[kc].task_comm, "c");
	dtlbins_free(b);
}

/* Hostile input: CPU out of range, a time decades away is refused. */
static void test_bounds(void **state)
{
	(void)state;
	struct dtlbins *b;
	assert_int_equal(dtlbins_new(&b), 0);
	struct dtl_entry e = entry(4, 100, 0, 0);
	assert_int_equal(dtlbins_entry(b, 4096, F, &e, F), -ERANGE);
	assert_int_equal(dtlbins_entry(b, 0, F, &e, F), 0);
	assert_int_equal(dtlbins_entry(b, 0, UINT64_MAX - 5, &e, F), -ERANGE);
	assert_int_equal(dtlbins_outside(b), 1);
	assert_int_equal(dtlbins_entry(b, 0, F + 1000, &e, 0), 0);	/* no tb_freq: no time */
	struct sums s = sum_cpu(b, 0);
	assert_int_equal(s.ent, 2);
	assert_int_equal(s.pre, 100);
	dtlbins_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_and_regrid),
		cmocka_unit_test(test_worst_mark),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
