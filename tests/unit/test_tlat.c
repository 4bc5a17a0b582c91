/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the timerlat engine (lib/engine/tlat.c): activation numbers
 * that skip are missed records, numbers that begin again are restarts; the
 * first sample at or above its context's threshold is the stop, every one
 * a hit; out-of-range CPUs and contexts are dropped and counted; the
 * per-context merge over CPUs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/tlat.h"

static const struct tlat_cfg cfg1us = { .hist = { .lo_ns = 0, .bucket_ns = 1000, .nr_buckets = 256 } };

static void test_missed_restarts(void **state)
{
	(void)state;
	struct tlat t;
	assert_int_equal(tlat_init(&t, 2, &cfg1us), 0);
	assert_false(tlat_add(&t, 0, TLAT_IRQ, 7, 900, 1));	/* the first: nothing before it counts */
	tlat_add(&t, 0, TLAT_IRQ, 8, 1900, 2);
	tlat_add(&t, 0, TLAT_IRQ, 11, 1500, 3);			/* 9, 10 missed */
	tlat_add(&t, 0, TLAT_THREAD, 11, 5000, 4);
	tlat_add(&t, 0, TLAT_IRQ, 1, 800, 5);			/* the threads restarted */
	tlat_add(&t, 0, TLAT_IRQ, 2, 700, 6);
	const struct tlat_series *s = &t.cpus[0].s[TLAT_IRQ];
	assert_int_equal(s->missed, 2);
	assert_int_equal(s->restarts, 1);
	assert_int_equal(s->h.total, 5);
	assert_int_equal(s->h.max_ns, 1900);
	assert_int_equal(s->h.min_ns, 700);
	assert_int_equal(s->worst.seq, 8);
	assert_int_equal(s->worst.ts_ns, 2);
	assert_int_equal(s->last.seq, 2);
	assert_int_equal(s->last.lat_ns, 700);
	assert_int_equal(t.cpus[0].s[TLAT_THREAD].missed, 0);
	assert_int_equal(tlat_missed(&t, TLAT_IRQ), 2);
	assert_int_equal(tlat_missed(&t, TLAT_THREAD), 0);
	assert_int_equal(t.samples, 6);
	tlat_fini(&t);
}

static void test_stop_hits(void **state)
{
	(void)state;
	struct tlat_cfg c = cfg1us;
	c.stop_ns[TLAT_IRQ] = 10000;
	c.stop_ns[TLAT_THREAD] = c.stop_ns[TLAT_USER] = 20000;
	struct tlat t;
	assert_int_equal(tlat_init(&t, 4, &c), 0);
	assert_false(tlat_add(&t, 1, TLAT_IRQ, 1, 9999, 10));
	assert_false(tlat_add(&t, 1, TLAT_THREAD, 1, 19999, 11));
	assert_false(t.stop.hit);
	assert_true(tlat_add(&t, 3, TLAT_THREAD, 5, 20000, 12));	/* at the threshold: a hit */
	assert_true(tlat_add(&t, 2, TLAT_IRQ, 9, 50000, 13));
	assert_true(tlat_add(&t, 2, TLAT_USER, 9, 70000, 14));
	assert_true(t.stop.hit);
	assert_int_equal(t.stop.cpu, 3);		/* the first one stays the stop */
	assert_int_equal(t.stop.ctx, TLAT_THREAD);
	assert_int_equal(t.stop.sample.seq, 5);
	assert_int_equal(t.stop.sample.lat_ns, 20000);
	assert_int_equal(t.hits, 3);
	tlat_fini(&t);
}

static void test_bad_and_merge(void **state)
{
	(void)state;
	struct tlat t;
	assert_int_equal(tlat_init(&t, 2, &cfg1us), 0);
	assert_false(tlat_add(&t, 2, TLAT_IRQ, 1, 100, 1));
	assert_false(tlat_add(&t, 0, 3, 1, 100, 1));
	assert_false(tlat_add(&t, 0, -1, 1, 100, 1));
	assert_int_equal(t.bad_cpu, 3);
	assert_int_equal(t.samples, 0);
	tlat_add(&t, 0, TLAT_THREAD, 1, 3000, 1);
	tlat_add(&t, 1, TLAT_THREAD, 1, 300000, 2);	/* past the last bucket: over */
	struct lhist h;
	assert_int_equal(lhist_init(&h, &cfg1us.hist), 0);
	assert_int_equal(tlat_merge_ctx(&t, TLAT_THREAD, &h), 0);
	assert_int_equal(h.total, 2);
	assert_int_equal(h.above, 1);
	assert_int_equal(h.max_ns, 300000);
	assert_int_equal(h.counts[3], 1);
	assert_int_equal(tlat_merge_ctx(&t, TLAT_NR_CTX, &h), -EINVAL);
	lhist_fini(&h);
	tlat_fini(&t);
	assert_int_equal(tlat_init(&t, 0, &cfg1us), -EINVAL);
	tlat_fini(&t);
	assert_string_equal(tlat_ctx_name(TLAT_USER), "user");
	assert_string_equal(tlat_ctx_name(7), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missed_restarts),
		cmocka_unit_test(test_stop_hits),
		cmocka_unit_test(test_bad_and_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
