/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/engine/tasklat.c: wakeup latency per task (exact
 * counts, totals and maxima; p50/p99 within the bucket rule, never above the
 * max), the order of the rows, the bounded table (the smallest max gives way
 * to a worse new task, else the sample is dropped, both counted; the pid
 * hash stays right after evictions), the observer's kinds, bad input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/tasklat.h"

static void test_new_bounds(void **state)
{
	(void)state;
	struct tasklat *tl = (struct tasklat *)1;
	assert_int_equal(tasklat_new(&tl, 7), -EINVAL);
	assert_null(tl);
	assert_int_equal(tasklat_new(&tl, TASKLAT_MAX_SLOTS + 1), -EINVAL);
	assert_int_equal(tasklat_new(&tl, 8), 0);
	assert_int_equal(tasklat_stats(tl)->slots, 8);
	struct tasklat_row r[2];
	assert_int_equal(tasklat_rows(tl, r, 2, TASKLAT_BY_MAX), 0);
	assert_int_equal(tasklat_add(tl, -1, "x", 5, 0), -EINVAL);
	assert_int_equal(tasklat_stats(tl)->no_task, 1);
	assert_int_equal(tasklat_stats(tl)->samples, 0);
	tasklat_free(tl);
	tasklat_free(NULL);
}

static void test_buckets(void **state)
{
	(void)state;
	/* every value is in a bucket whose upper bound is >= it and at most 1/16 above */
	for (uint64_t v = 0; v < 200000; v += (v < 5000 ? 1 : 97)) {
		uint32_t b = tasklat_bucket(v);
		uint64_t hi = tasklat_bucket_hi(b);
		assert_true(hi >= v);
		assert_true(hi - v <= v / 16);
		if (b)
			assert_true(tasklat_bucket_hi(b - 1) < v);
	}
	assert_int_equal(tasklat_bucket(15), 15);
	assert_int_equal(tasklat_bucket_hi(tasklat_bucket(16)), 16);
	assert_int_equal(tasklat_bucket_hi(tasklat_bucket(33)), 33);	/* [32, 33] */
	/* huge values share the last bucket */
	assert_int_equal(tasklat_bucket(UINT64_MAX), tasklat_bucket(1ULL << 50));
}

static void test_exact_and_percentiles(void **state)
{
	(void)state;
	struct tasklat *tl;
	assert_int_equal(tasklat_new(&tl, 64), 0);
	/* task 10: 1..100 us; task 20: 3 samples; task 30: one long wait */
	for (int i = 1; i <= 100; i++)
		assert_int_equal(tasklat_add(tl, 10, "ten", (int64_t)i * 1000, (uint64_t)i), 0);
	tasklat_add(tl, 20, "twenty", 5000, 1);
	tasklat_add(tl, 20, "twenty-renamed", 7000, 2);
	tasklat_add(tl, 20, NULL, -3, 3);	/* negative: 0, comm kept */
	tasklat_add(tl, 30, "a-comm-longer-than-fifteen", 500000, 77);
	struct tasklat_row r[8];
	size_t n = tasklat_rows(tl, r, 8, TASKLAT_BY_MAX);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].pid, 30);
	assert_string_equal(r[0].comm, "a-comm-longer-t");
	assert_int_equal(r[0].max_ns, 500000);
	assert_int_equal(r[0].p50_ns, 500000);	/* clamped to the max */
	assert_int_equal(r[0].max_time_ns, 77);
	assert_int_equal(r[1].pid, 10);
	assert_int_equal(r[1].count, 100);
	assert_int_equal(r[1].total_ns, 5050000);
	assert_int_equal(r[1].max_ns, 100000);
	assert_int_equal(r[1].max_time_ns, 100);
	/* nearest rank: p50 = 50 us, p99 = 99 us, each at most 1/16 above */
	assert_true(r[1].p50_ns >= 50000 && r[1].p50_ns <= 50000 + 50000 / 16);
	assert_true(r[1].p99_ns >= 99000 && r[1].p99_ns <= 100000);
	assert_int_equal(r[2].pid, 20);
	assert_string_equal(r[2].comm, "twenty-renamed");
	assert_int_equal(r[2].count, 3);
	assert_int_equal(r[2].total_ns, 12000);
	assert_int_equal(r[2].max_ns, 7000);
	/* by total: 10 (5.05 ms) before 30 (0.5 ms) before 20 */
	n = tasklat_rows(tl, r, 2, TASKLAT_BY_TOTAL);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].pid, 10);
	assert_int_equal(r[1].pid, 30);
	assert_int_equal(tasklat_stats(tl)->samples, 104);
	assert_int_equal(tasklat_stats(tl)->used, 3);
	tasklat_free(tl);
}

static void test_full_table(void **state)
{
	(void)state;
	struct tasklat *tl;
	assert_int_equal(tasklat_new(&tl, 8), 0);
	for (int32_t p = 1; p <= 8; p++)	/* pid p: max p us */
		assert_int_equal(tasklat_add(tl, p, "t", p * 1000, 0), 0);
	tasklat_add(tl, 1, "t", 500, 0);	/* known task: still filed */
	/* a new task not worse than the smallest max (1 us): dropped */
	assert_int_equal(tasklat_add(tl, 100, "new", 1000, 0), 1);
	assert_int_equal(tasklat_stats(tl)->dropped, 1);
	/* worse: pid 1 (2 samples) gives way */
	assert_int_equal(tasklat_add(tl, 100, "new", 1001, 0), 0);
	const struct tasklat_stats *st = tasklat_stats(tl);
	assert_int_equal(st->evicted, 1);
	assert_int_equal(st->evicted_samples, 2);
	assert_int_equal(st->used, 8);
	/* every task still found under its own pid: a second sample of each adds up */
	for (int32_t p = 2; p <= 8; p++)
		assert_int_equal(tasklat_add(tl, p, "t", 1, 0), 0);
	assert_int_equal(tasklat_add(tl, 100, "new", 1, 0), 0);
	struct tasklat_row r[8];
	assert_int_equal(tasklat_rows(tl, r, 8, TASKLAT_BY_MAX), 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(r[i].count, 2);
		assert_true(r[i].pid != 1);
	}
	assert_int_equal(r[6].pid, 2);		/* max 2 us */
	assert_int_equal(r[7].pid, 100);	/* max 1.001 us */
	/* many evictions through colliding probe chains: the hash stays whole */
	for (int32_t p = 1000; p < 3000; p++)
		tasklat_add(tl, p, "churn", 100000 + p, 0);
	assert_int_equal(tasklat_stats(tl)->used, 8);
	assert_int_equal(tasklat_rows(tl, r, 8, TASKLAT_BY_MAX), 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(r[i].pid, 2999 - i);
		assert_int_equal(tasklat_add(tl, r[i].pid, "churn", 1, 0), 0);	/* found, not new */
	}
	assert_int_equal(tasklat_stats(tl)->used, 8);
	assert_int_equal(tasklat_stats(tl)->samples + tasklat_stats(tl)->dropped, 9 + 1 + 1 + 8 + 2000 + 8);
	tasklat_free(tl);
}

static void test_observer(void **state)
{
	(void)state;
	struct tasklat *tl;
	assert_int_equal(tasklat_new(&tl, 16), 0);
	struct latency_sample s = { .type = HSET_WAKEUP, .latency_ns = 4000, .pid = 7, .comm = "rt" };
	tasklat_observe(tl, &s);
	s.type = HSET_WAKEUP_SHAREDPRIO;
	s.latency_ns = 9000;
	tasklat_observe(tl, &s);
	s.type = HSET_MISSED_TIMER;	/* not a wakeup: ignored */
	tasklat_observe(tl, &s);
	s.type = HSET_TIMERANDWAKEUP;
	tasklat_observe(tl, &s);
	struct tasklat_row r[1];
	assert_int_equal(tasklat_rows(tl, r, 1, TASKLAT_BY_MAX), 1);
	assert_int_equal(r[0].count, 2);
	assert_int_equal(r[0].max_ns, 9000);
	assert_string_equal(r[0].comm, "rt");
	tasklat_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_bounds),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_exact_and_percentiles),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_observer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
