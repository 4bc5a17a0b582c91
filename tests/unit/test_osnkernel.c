/* SPDX-License-Identifier: MIT */
/* Unit tests: parsing the kernel osnoise tracer's text output (generated lines). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "noise.h"
#include "osnkernel.h"

static void test_period(void **state)
{
	(void)state;
	struct osnkernel_rec r;
	/* the documentation's VM example, with a context prefix */
	const char *l = "           <...>-859     [000] ....    81.637220: 1000000        190  99.98100"
			"       9     18      0   1007     18      1\n";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_PERIOD);
	assert_int_equal(r.cpu, 0);
	assert_int_equal(r.pid, 859);
	assert_string_equal(r.comm, "<...>");
	assert_int_equal(r.ts_ns, 81637220000ULL);
	assert_int_equal(r.runtime_us, 1000000);
	assert_int_equal(r.noise_us, 190);
	assert_int_equal(r.avail_e5, 9998100);
	assert_int_equal(r.max_single_us, 9);
	assert_int_equal(r.hw, 18);
	assert_int_equal(r.nmi, 0);
	assert_int_equal(r.irq, 1007);
	assert_int_equal(r.softirq, 18);
	assert_int_equal(r.thread, 1);
	/* our own layout, 5-character flag column, 100 % available */
	l = "       osnoise/1-16555   [001] .....    807.051924: 400000          0 100.00000       0      0      0      0      0      0";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.avail_e5, 10000000);
	assert_string_equal(r.comm, "osnoise/1");
}

static void test_events(void **state)
{
	(void)state;
	struct osnkernel_rec r;
	const char *l = "     osnoise/8-961     [008] d.h.  5789.857532: irq_noise: local_timer:236 start "
			"5789.857529929 duration 1845 ns";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_IRQ);
	assert_int_equal(r.cpu, 8);
	assert_string_equal(r.desc, "local_timer");
	assert_int_equal(r.id, 236);
	assert_int_equal(r.start_ns, 5789857529929ULL);
	assert_int_equal(r.duration_ns, 1845);
	l = "     osnoise/8-961     [008] ..s.  5789.857535: softirq_noise:    TIMER:1 start 5789.857533 duration 2 ns";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_SOFTIRQ);
	assert_string_equal(r.desc, "TIMER");
	assert_int_equal(r.id, 1);
	assert_int_equal(r.start_ns, 5789857533000ULL);
	/* a comm with spaces and a dash */
	l = "     osnoise/8-961     [008] d...  5789.857540: thread_noise: my task-x:4242 start 5789.857533000 duration 5 ns";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_THREAD);
	assert_string_equal(r.desc, "my task-x");
	assert_int_equal(r.id, 4242);
	l = "     osnoise/8-961     [008] d.h.  5789.857541: nmi_noise: start 5789.857540000 duration 700 ns";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_NMI);
	assert_int_equal(r.duration_ns, 700);
	l = "     osnoise/8-961     [008] ....  5789.857547: sample_threshold: start 5789.857529766 duration 8812 ns interference 2";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_SAMPLE);
	assert_int_equal(r.duration_ns, 8812);
	assert_int_equal(r.interference, 2);
	/* the doc's spelling */
	l = "     osnoise/8-961     [008] ....  5789.857547: sample_threshold: start 5789.857529766 duration 8812 ns interferences 3";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.interference, 3);
}

static void test_rejects(void **state)
{
	(void)state;
	struct osnkernel_rec r;
	assert_int_equal(osnkernel_parse_line("# tracer: osnoise", &r), -ENOENT);
	assert_int_equal(osnkernel_parse_line("", &r), -ENOENT);
	assert_int_equal(osnkernel_parse_line("   bash-1 [000] .... 1.000001: sched_switch: prev_comm=a", &r), -ENOENT);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 1.000001: 1000 10 99.0 1 0 0 0 0 0", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 1.000001: 1000 10 99.00000 1 0 0 0 0", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 1.000001: 1000 10 99.00000 1 0 0 0 0 0 junk", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 1.000001: irq_noise: nocolon start 1.0 duration 1 ns", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 1.000001: nmi_noise: start x duration 1 ns", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("   x-1 [99999999] .... 1.000001: nmi_noise: start 1.0 duration 1 ns", &r), -ENOENT);
	assert_int_equal(osnkernel_parse_line("   x-1 [000] .... 99999999999999999999.000001: 1 1 1.00000 1 1 1 1 1 1", &r), -ENOENT);
}

/* Kernel records folded into the same accounting as the userspace ones. */
static void test_fold(void **state)
{
	(void)state;
	struct noise *n;
	assert_int_equal(noise_new(&n, 2, NULL, NULL), 0);
	struct noise_stats p = { .periods = 1, .runtime_ns = 1000000000, .noise_ns = 190000,
				 .max_single_ns = 9000, .hw_count = 18 };
	p.count[NOISE_IRQ] = 1007;
	assert_int_equal(noise_add_period(n, 1, 5, &p), 0);
	p.noise_ns = 500000;
	p.max_single_ns = 3000;
	assert_int_equal(noise_add_period(n, 1, 6, &p), 0);
	assert_int_equal(noise_add_period(n, 2, 6, &p), -EINVAL);
	const struct noise_stats *t = noise_cpu_stats(n, 1);
	assert_int_equal(t->periods, 2);
	assert_int_equal(t->noise_ns, 690000);
	assert_int_equal(t->max_noise_ns, 500000);
	assert_int_equal(t->max_single_ns, 9000);
	assert_int_equal(t->count[NOISE_IRQ], 2014);
	struct noise_win w = { .cls = NOISE_IRQ, .cpu = 1, .net_ns = 1845, .id = 236 };
	strcpy(w.name, "local_timer");
	assert_int_equal(noise_add_window(n, &w), 0);
	assert_int_equal(noise_add_window(n, &w), 0);
	const struct noise_contrib *c;
	assert_int_equal(noise_contribs(n, 1, &c), 1);
	assert_int_equal(c[0].count, 2);
	assert_int_equal(c[0].total_ns, 3690);
	noise_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_fold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
