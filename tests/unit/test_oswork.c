/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the userspace osnoise loop's periods (lib/live/oswork.c):
 * with runtime = period the periods are contiguous, each starting at the
 * last read of the one before (a task that takes the CPU between two
 * periods is a gap of the next one: a POWER guest lost a 660 us thread
 * entry there); with runtime < period the loop sleeps in between and the
 * next period starts at a fresh read.  The loop runs for real on a CPU this
 * process may use, SCHED_OTHER, for about 100 ms per case.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "live/oswork.h"

struct period {
	uint64_t begin_ns, end_ns, runtime_ns;
};

/* Run the loop on one allowed CPU for run_ms; its periods into p (at most
 * max), their number returned. */
static size_t run_loop(uint64_t period_ns, uint64_t runtime_ns, int run_ms, struct period *p, size_t max)
{
	cpu_set_t allowed;
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	unsigned cpu = 0;
	while (!CPU_ISSET(cpu, &allowed))
		cpu++;
	struct oswork_opts o;
	memset(&o, 0, sizeof(o));
	parse_cpuset_add(&o.cpus, cpu);
	o.period_ns = period_ns;
	o.runtime_ns = runtime_ns;
	o.threshold_ns = 1000000;	/* few gap records: only the periods matter here */
	o.floor_ns = 1000;
	o.policy = SCHED_OTHER;
	struct oswork *w = NULL;
	assert_int_equal(oswork_start(&w, &o), 0);
	struct timespec ts = { 0, run_ms * 1000000L };
	nanosleep(&ts, NULL);
	oswork_stop(w);
	assert_int_equal(oswork_lost(w, 0), 0);

	size_t n = 0;
	bool open = false;
	struct oswork_rec r;
	while (oswork_peek(w, 0, &r)) {
		if (r.type == OSWORK_PERIOD_BEGIN) {
			assert_false(open);
			assert_true(n < max);
			p[n].begin_ns = r.t1_ns;
			open = true;
		} else if (r.type == OSWORK_GAP) {
			assert_true(open);
			assert_true(r.t0_ns >= p[n].begin_ns && r.t1_ns > r.t0_ns);
		} else if (r.type == OSWORK_PERIOD_END) {
			assert_true(open);
			p[n].end_ns = r.t1_ns;
			p[n].runtime_ns = r.v[0];
			n++;
			open = false;
		}
		oswork_pop(w, 0);
	}
	oswork_free(w);
	return n;
}

/* runtime = period: no time between two periods goes unmeasured */
static void test_contiguous(void **state)
{
	(void)state;
	struct period p[64];
	size_t n = run_loop(20000000, 20000000, 110, p, 64);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].runtime_ns, p[i].end_ns - p[i].begin_ns);
		if (i)
			assert_int_equal(p[i].begin_ns, p[i - 1].end_ns);
		if (i + 1 < n)	/* the last one may be cut by the stop */
			assert_true(p[i].runtime_ns >= 20000000);
	}
}

/* runtime < period: the sleep between runtimes is not measured */
static void test_naps(void **state)
{
	(void)state;
	struct period p[64];
	size_t n = run_loop(30000000, 10000000, 110, p, 64);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].runtime_ns, p[i].end_ns - p[i].begin_ns);
		if (i)
			assert_true(p[i].begin_ns > p[i - 1].end_ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contiguous),
		cmocka_unit_test(test_naps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
