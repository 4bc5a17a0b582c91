/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/live/timerwl.c: a short SCHED_OTHER run and bad configurations. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <cmocka.h>

#include "live/timerwl.h"

/* one thread on CPU 0, 2 ms periods, SCHED_OTHER */
static void cfg_cpu0(struct timerwl_cfg *c)
{
	memset(c, 0, sizeof(*c));
	parse_cpuset_add(&c->cpus, 0);
	c->interval_ns = 2000000;
	lhist_cfg_default(&c->hist);
}

static void test_run(void **state)
{
	(void)state;
	struct timerwl_cfg c;
	struct timerwl *w;
	cfg_cpu0(&c);
	assert_int_equal(timerwl_start(&w, &c), 0);
	struct timespec ts = { 0, 150000000 };
	nanosleep(&ts, NULL);
	assert_int_equal(timerwl_nr_threads(w), 1);
	struct lhist h;
	struct timerwl_thread_info info;
	assert_int_equal(lhist_init(&h, &c.hist), 0);
	assert_int_equal(timerwl_snapshot(w, 0, &info, &h), 0);
	timerwl_stop(w);
	assert_int_equal(info.cpu, 0);
	assert_true(info.tid > 0);
	assert_false(info.fifo);
	assert_true(info.policy_ok);	/* nothing asked */
	/* 150 ms of 2 ms periods: ~75 wakeups, allow a loaded machine */
	assert_true(info.cycles >= 10);
	assert_true(info.cycles <= 80);
	assert_int_equal(h.total, info.cycles);
	assert_true(h.min_ns >= 0);	/* never woken before the due time */
	lhist_fini(&h);
	assert_int_equal(timerwl_snapshot(NULL, 0, &info, NULL), -EINVAL);
}

static void test_bad(void **state)
{
	(void)state;
	struct timerwl_cfg c;
	struct timerwl *w = (struct timerwl *)1;
	memset(&c, 0, sizeof(c));
	lhist_cfg_default(&c.hist);
	c.interval_ns = 1000000;
	assert_int_equal(timerwl_start(&w, &c), -EINVAL);	/* no CPU */
	assert_null(w);
	parse_cpuset_add(&c.cpus, 0);
	c.interval_ns = 0;
	assert_int_equal(timerwl_start(&w, &c), -EINVAL);
	c.interval_ns = 1000000;
	c.prio = 100;
	assert_int_equal(timerwl_start(&w, &c), -EINVAL);
	c.prio = 0;
	c.nice = 20;
	assert_int_equal(timerwl_start(&w, &c), -EINVAL);
	c.nice = -21;
	assert_int_equal(timerwl_start(&w, &c), -EINVAL);
	timerwl_stop(NULL);
}

/* -P o:19: the highest nice is always allowed, and it is this thread's alone */
static void test_nice(void **state)
{
	(void)state;
	struct timerwl_cfg c;
	struct timerwl *w;
	cfg_cpu0(&c);
	c.nice = 19;
	int mine = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(timerwl_start(&w, &c), 0);
	struct lhist h;
	struct timerwl_thread_info info;
	assert_int_equal(lhist_init(&h, &c.hist), 0);
	for (int i = 0; i < 100; i++) {	/* until the thread has set itself up */
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
		assert_int_equal(timerwl_snapshot(w, 0, &info, &h), 0);
		if (info.tid)
			break;
	}
	timerwl_stop(w);
	lhist_fini(&h);
	assert_true(info.tid > 0);
	assert_false(info.fifo);
	assert_true(info.policy_ok);
	assert_int_equal(getpriority(PRIO_PROCESS, 0), mine);	/* not the caller's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_nice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
