/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/live/idlecheck.c: keep-busy spinners (SCHED_IDLE, pinned,
 * and they leave their CPU to a normal thread pinned beside them; they
 * stop), bad arguments, an unknown tracepoint / interrupt line. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/resource.h>

#include "live/idlecheck.h"

/* The spinner thread of this process named latscope-busy: its tid. */
static pid_t find_spinner(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	pid_t tid = 0;
	while (d && (e = readdir(d)) && !tid) {
		char path[300], comm[32] = "";
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "latscope-busy", 13))
			tid = (pid_t)atoi(e->d_name);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return tid;
}

/* utime + stime of a thread of this process, in ns (clock-tick resolution). */
static uint64_t thread_cpu_ns(pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long long ut = 0, st = 0;
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return UINT64_MAX;
	return (ut + st) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

static uint64_t cputime_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The CFS weight of this thread's nice value (the kernel's table for 0..19;
 * negative nice values weigh more than 1024: 1024 is a safe bound). */
static uint64_t nice_weight(void)
{
	static const uint64_t w[20] = { 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
					110, 87, 70, 56, 45, 36, 29, 23, 18, 15 };
	errno = 0;
	int n = getpriority(PRIO_PROCESS, 0);
	if (errno || n <= 0)
		return 1024;
	return w[n > 19 ? 19 : n];
}

static void test_spin(void **state)
{
	(void)state;
	struct parse_cpuset cpus;
	struct idlecheck_spin *s = NULL;
	memset(&cpus, 0, sizeof(cpus));
	assert_int_equal(idlecheck_spin_start(&s, &cpus), -EINVAL);
	assert_null(s);
	/* The spinner is started from a thread on another CPU (when there is
	 * one), so it is on CPU 0 only if it pins itself there; then this
	 * thread joins it on CPU 0: they compete for one CPU */
	cpu_set_t one, saved;
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(CPU_ISSET(1, &saved) ? 1 : 0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	parse_cpuset_add(&cpus, 0);
	assert_int_equal(idlecheck_spin_start(&s, &cpus), 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_non_null(s);
	/* SCHED_IDLE is allowed to every user; the thread must be running */
	assert_int_equal(idlecheck_spin_nr_running(s), 1);
	pid_t tid = find_spinner();
	assert_true(tid > 0);
	/* it is SCHED_IDLE and pinned to CPU 0 */
	assert_int_equal(sched_getscheduler(tid), SCHED_IDLE);
	cpu_set_t its;
	assert_int_equal(sched_getaffinity(tid, sizeof(its), &its), 0);
	assert_int_equal(CPU_COUNT(&its), 1);
	assert_true(CPU_ISSET(0, &its));
	/* A SCHED_IDLE spinner must not starve us on our CPU: while this thread
	 * burns 300 ms of CPU time on CPU 0, the spinner gets the CFS weight of
	 * SCHED_IDLE (3 against our 1024: ~1 ms), whatever else loads the CPU;
	 * a SCHED_OTHER spinner would get as much as we do.  Ratio of CPU times,
	 * not elapsed time, so other load on the machine does not matter. */
	uint64_t sp0 = thread_cpu_ns(tid), me0 = cputime_ns(CLOCK_THREAD_CPUTIME_ID);
	assert_true(sp0 != UINT64_MAX);
	volatile uint64_t x = 0;
	while (cputime_ns(CLOCK_THREAD_CPUTIME_ID) - me0 < 300000000ull)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	uint64_t me = cputime_ns(CLOCK_THREAD_CPUTIME_ID) - me0, sp = thread_cpu_ns(tid) - sp0;
	/* 10 % of ours: 10x the expected share plus a clock tick of rounding.
	 * Run under nice N (make check under nice), our weight is lower: then
	 * 3x the expected 3/weight, still well below the 1:1 of a SCHED_OTHER
	 * spinner, which inherits our nice. */
	uint64_t w = nice_weight();
	uint64_t lim = me / 10 > me * 9 / w ? me / 10 : me * 9 / w;
	if (sp > lim)
		fail_msg("the SCHED_IDLE spinner got %llu ns of CPU while we got %llu ns on its CPU "
			 "(CFS weight %llu)", (unsigned long long)sp, (unsigned long long)me,
			 (unsigned long long)w);
	idlecheck_spin_stop(s);
	idlecheck_spin_stop(NULL);
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
}

static void test_check_bad(void **state)
{
	(void)state;
	struct parse_cpuset cpus;
	struct idlecheck_cpu_result r[4];
	size_t n = 99;
	memset(&cpus, 0, sizeof(cpus));
	parse_cpuset_add(&cpus, 0);
	assert_int_equal(idlecheck_check(NULL, NULL, r, 4, &n), -EINVAL);
	assert_int_equal(n, 0);
	struct idlecheck_opts o = { .tracepoint = "no_such_system:no_such_event" };
	int err = idlecheck_check(&cpus, &o, r, 4, &n);
	assert_true(err == -ENOENT || err == -EACCES);
	o.tracepoint = "bad-spec-without-colon";
	assert_int_equal(idlecheck_check(&cpus, &o, r, 4, &n), -EINVAL);
	assert_string_equal(idlecheck_verdict_name(IDLECHECK_DROPS), "drops");
	assert_string_equal(idlecheck_verdict_name(IDLECHECK_OK), "ok");
	assert_string_equal(idlecheck_verdict_name(IDLECHECK_UNKNOWN), "unknown");
	r[0].verdict = IDLECHECK_OK;
	r[1].verdict = IDLECHECK_UNKNOWN;
	assert_false(idlecheck_any_drops(r, 2));
	r[1].verdict = IDLECHECK_DROPS;
	assert_true(idlecheck_any_drops(r, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin),
		cmocka_unit_test(test_check_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
