/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/timerwl.c: a short SCHED_OTHER run and bad configurations. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "timerwl.h"

static void test_run(void **state)
{
	(void)state;
	struct twl_cfg c;
	struct twl *w;
	memset(&c, 0, sizeof(c));
	ps_cpuset_add(&c.cpus, 0);
	c.interval_ns = 2000000;
	c.prio = 0;
	lhist_cfg_default(&c.hist);
	assert_int_equal(twl_start(&w, &c), 0);
	struct timespec ts = { 0, 150000000 };
	nanosleep(&ts, NULL);
	assert_int_equal(twl_nr_threads(w), 1);
	struct lhist h;
	struct twl_thread_info info;
	assert_int_equal(lhist_init(&h, &c.hist), 0);
	assert_int_equal(twl_snapshot(w, 0, &info, &h), 0);
	twl_stop(w);
	assert_int_equal(info.cpu, 0);
	assert_true(info.tid > 0);
	assert_false(info.fifo);
	/* 150 ms of 2 ms periods: ~75 wakeups, allow a loaded machine */
	assert_true(info.cycles >= 10);
	assert_true(info.cycles <= 80);
	assert_int_equal(h.total, info.cycles);
	assert_true(h.min_ns >= 0);	/* never woken before the due time */
	lhist_fini(&h);
	assert_int_equal(twl_snapshot(NULL, 0, &info, NULL), -EINVAL);
}

static void test_bad(void **state)
{
	(void)state;
	struct twl_cfg c;
	struct twl *w = (struct twl *)1;
	memset(&c, 0, sizeof(c));
	lhist_cfg_default(&c.hist);
	c.interval_ns = 1000000;
	assert_int_equal(twl_start(&w, &c), -EINVAL);	/* no CPU */
	assert_null(w);
	ps_cpuset_add(&c.cpus, 0);
	c.interval_ns = 0;
	assert_int_equal(twl_start(&w, &c), -EINVAL);
	c.interval_ns = 1000000;
	c.prio = 100;
	assert_int_equal(twl_start(&w, &c), -EINVAL);
	twl_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
