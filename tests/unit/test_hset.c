/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/base/hset.c: the histogram set every backend fills and
 * every output reads (geometry and CPU checks, histograms made on their
 * first sample, the worst case kept, reset, a backend's own counts).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/hset.h"

static void test_new_and_ranges(void **state)
{
	(void)state;
	struct hset *s;
	struct lhist_cfg bad = { .lo_ns = 0, .bucket_ns = 0, .nr_buckets = 10 };
	assert_int_equal(hset_new(&s, 0, NULL), -EINVAL);
	assert_null(s);
	assert_int_equal(hset_new(&s, HSET_MAX_CPUS + 1, NULL), -EINVAL);
	assert_int_equal(hset_new(&s, 2, &bad), -EINVAL);
	assert_int_equal(hset_new(&s, 2, NULL), 0);
	assert_int_equal(hset_nr_cpus(s), 2);
	assert_int_equal(hset_geometry(s)->bucket_ns, LHIST_DEFAULT_BUCKET_NS);
	assert_null(hset_hist(s, HSET_WAKEUP, 0));		/* no sample yet */
	assert_int_equal(hset_record(s, HSET_WAKEUP, 2, 5), -ERANGE);
	assert_int_equal(hset_record(s, HSET_NR_KINDS, 0, 5), -ERANGE);
	assert_null(hset_hist_mut(s, HSET_WAKEUP, 2));
	assert_false(hset_max(s, HSET_WAKEUP, 7)->valid);	/* out of range: empty record */
	assert_int_equal(hset_record(s, HSET_WAKEUP, 1, 2500), 0);
	const struct lhist *h = hset_hist(s, HSET_WAKEUP, 1);
	assert_non_null(h);
	assert_int_equal(h->total, 1);
	assert_int_equal(h->counts[2], 1);
	assert_null(hset_hist(s, HSET_WAKEUP, 0));
	assert_null(hset_hist(s, HSET_IRQSOFF, 1));
	hset_free(s);
	hset_free(NULL);
}

static void test_worst_case(void **state)
{
	(void)state;
	struct hset *s;
	assert_int_equal(hset_new(&s, 1, NULL), 0);
	struct hset_max m = { .valid = true, .pid = 42, .prio = 4, .latency_ns = 7000 };
	memcpy(m.comm, "cyclictest-long-name", HSET_COMM_LEN);	/* not terminated */
	assert_true(hset_offer_max(s, HSET_TIMERANDWAKEUP, 0, &m));
	const struct hset_max *k = hset_max(s, HSET_TIMERANDWAKEUP, 0);
	assert_int_equal(k->pid, 42);
	assert_int_equal(strlen(k->comm), HSET_COMM_LEN - 1);	/* terminated when kept */
	m.latency_ns = 7000;					/* not larger: kept as is */
	m.pid = 43;
	assert_false(hset_offer_max(s, HSET_TIMERANDWAKEUP, 0, &m));
	m.latency_ns = 9000;
	assert_true(hset_offer_max(s, HSET_TIMERANDWAKEUP, 0, &m));
	assert_int_equal(hset_max(s, HSET_TIMERANDWAKEUP, 0)->pid, 43);
	m.valid = false;
	m.latency_ns = 1 << 30;
	assert_false(hset_offer_max(s, HSET_TIMERANDWAKEUP, 0, &m));
	hset_reset(s);
	assert_false(hset_max(s, HSET_TIMERANDWAKEUP, 0)->valid);
	hset_free(s);
}

/* A backend that counts in the kernel sets the buckets itself. */
static void test_backend_counts(void **state)
{
	(void)state;
	struct hset *s;
	struct lhist_cfg cfg = { .lo_ns = 0, .bucket_ns = 1000, .nr_buckets = 8 };
	assert_int_equal(hset_new(&s, 4, &cfg), 0);
	struct lhist *h = hset_hist_mut(s, HSET_MISSED_TIMER, 3);
	assert_non_null(h);
	h->counts[1] = 5;
	h->above = 1;
	h->total = 6;
	h->min_ns = 1200;
	h->max_ns = 9000;
	assert_ptr_equal(hset_hist(s, HSET_MISSED_TIMER, 3), h);
	assert_int_equal(hset_record(s, HSET_MISSED_TIMER, 3, 1500), 0);
	assert_int_equal(hset_hist(s, HSET_MISSED_TIMER, 3)->counts[1], 6);
	hset_reset(s);
	assert_int_equal(hset_hist(s, HSET_MISSED_TIMER, 3)->total, 0);
	assert_string_equal(hset_kind_name(HSET_WAKEUP_SHAREDPRIO), "wakeup/sharedprio");
	assert_null(hset_kind_name(HSET_NR_KINDS));
	assert_true(hset_kind_has_maxfile(HSET_TIMERANDWAKEUP));
	assert_false(hset_kind_has_maxfile(HSET_IRQSOFF));
	hset_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_ranges),
		cmocka_unit_test(test_worst_case),
		cmocka_unit_test(test_backend_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
