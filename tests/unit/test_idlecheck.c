/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/idlecheck.c: keep-busy spinners (they run as SCHED_IDLE
 * and stop), bad arguments, an unknown tracepoint / interrupt line. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "idlecheck.h"

static void test_spin(void **state)
{
	(void)state;
	struct ps_cpuset cpus;
	struct idc_spin *s = NULL;
	memset(&cpus, 0, sizeof(cpus));
	assert_int_equal(idc_spin_start(&s, &cpus), -EINVAL);
	assert_null(s);
	ps_cpuset_add(&cpus, 0);
	assert_int_equal(idc_spin_start(&s, &cpus), 0);
	assert_non_null(s);
	/* SCHED_IDLE is allowed to every user; the thread must be running */
	assert_int_equal(idc_spin_nr_running(s), 1);
	/* a SCHED_IDLE spinner on our CPU must not starve us: we still get time */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile uint64_t x = 0;
	for (int i = 0; i < 1000000; i++)
		x += (uint64_t)i;
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 5);
	idc_spin_stop(s);
	idc_spin_stop(NULL);
}

static void test_check_bad(void **state)
{
	(void)state;
	struct ps_cpuset cpus;
	struct idc_cpu_result r[4];
	size_t n = 99;
	memset(&cpus, 0, sizeof(cpus));
	ps_cpuset_add(&cpus, 0);
	assert_int_equal(idc_check(NULL, NULL, r, 4, &n), -EINVAL);
	assert_int_equal(n, 0);
	struct idc_opts o = { .tracepoint = "no_such_system:no_such_event" };
	int err = idc_check(&cpus, &o, r, 4, &n);
	assert_true(err == -ENOENT || err == -EACCES);
	o.tracepoint = "bad-spec-without-colon";
	assert_int_equal(idc_check(&cpus, &o, r, 4, &n), -EINVAL);
	assert_string_equal(idc_verdict_name(IDC_DROPS), "drops");
	assert_string_equal(idc_verdict_name(IDC_OK), "ok");
	assert_string_equal(idc_verdict_name(IDC_UNKNOWN), "unknown");
	r[0].verdict = IDC_OK;
	r[1].verdict = IDC_UNKNOWN;
	assert_false(idc_any_drops(r, 2));
	r[1].verdict = IDC_DROPS;
	assert_true(idc_any_drops(r, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin),
		cmocka_unit_test(test_check_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
