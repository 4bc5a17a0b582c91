/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: parsing the kernel osnoise tracer's text output (generated
 * lines); driving the tracer against a fake tracefs tree (files in a
 * directory, tracefs_set_tracing_dir): every setting put back by
 * osnkernel_stop() after a start that failed half-way or went through, and
 * by osnkernel_emergency_restore() (an abort's restore).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_faketfs.h"

#include <tracefs.h>

#include "engine/noise.h"
#include "engine/osneng.h"
#include "live/osnkernel.h"

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

/* The reader's notes of an overrun and the trace_marker lines. */
static void test_lost_mark(void **state)
{
	(void)state;
	struct osnkernel_rec r;
	assert_int_equal(osnkernel_parse_line("CPU:1 [LOST 123 EVENTS]\n", &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_LOST);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.lost, 123);
	assert_int_equal(osnkernel_parse_line("CPU:12 [LOST EVENTS]", &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_LOST);
	assert_int_equal(r.cpu, 12);
	assert_int_equal(r.lost, 0);
	assert_int_equal(osnkernel_parse_line("CPU:1 [LOST 12x EVENTS]", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("CPU:1 [LOST 12 EVENTS] junk", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("CPU:99999 [LOST 1 EVENTS]", &r), -EINVAL);
	assert_int_equal(osnkernel_parse_line("CPU: [LOST 1 EVENTS]", &r), -EINVAL);
	const char *l = "        latscope-203     [001] .....    30.500001: tracing_mark_write: "
			OSNKERNEL_MARK_START "\n";
	assert_int_equal(osnkernel_parse_line(l, &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_MARK);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.ts_ns, 30500001000ULL);
	assert_string_equal(r.desc, OSNKERNEL_MARK_START);
}

/* timerlat's records, its stacks and the kernel's stop line, as a 6.1
 * guest's trace has them; broken ones refused. */
static void test_timerlat(void **state)
{
	(void)state;
	struct osnkernel_rec r;
	assert_int_equal(osnkernel_parse_line("          <idle>-0       [001] dn.h1..    20.197302: #107   context"
					      "    irq timer_latency   3473180 ns\n", &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_TIMERLAT);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.seq, 107);
	assert_int_equal(r.context, OSNKERNEL_TLAT_IRQ);
	assert_int_equal(r.latency_ns, 3473180);
	assert_int_equal(r.ts_ns, 20197302000ULL);
	assert_int_equal(osnkernel_parse_line("           <...>-212     [001] .......    20.197407: #107   context"
					      " thread timer_latency   3583860 ns", &r), 0);
	assert_int_equal(r.context, OSNKERNEL_TLAT_THREAD);
	assert_int_equal(r.pid, 212);
	assert_int_equal(osnkernel_parse_line("  rtla-900 [003] ..... 100.000001: #4294967295 context user-ret "
					      "timer_latency 12 ns", &r), 0);
	assert_int_equal(r.context, OSNKERNEL_TLAT_USER);
	assert_int_equal(r.seq, 4294967295u);
	assert_int_equal(osnkernel_parse_line("           <...>-212     [001] ....1..    20.197435: <stack trace>",
					      &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_STACK);
	assert_int_equal(osnkernel_parse_line(" => __sysvec_apic_timer_interrupt\n", &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_FRAME);
	assert_string_equal(r.sym, "__sysvec_apic_timer_interrupt");
	assert_int_equal(osnkernel_parse_line(" => 0\n", &r), -ENOENT);	/* an unused slot */
	assert_int_equal(osnkernel_parse_line("  timerlat/1-5 [001] d.h1. 9.000001: timerlat_irq: stop tracing hit on "
					      "cpu 1\n", &r), 0);
	assert_int_equal(r.kind, OSNKERNEL_STOP);
	assert_int_equal(r.cpu, 1);
	/* broken records */
	static const char *const bad[] = {
		"  a-1 [000] ..... 1.000001: #12 context softirq timer_latency 5 ns",
		"  a-1 [000] ..... 1.000001: #12 context irq timer_latency 5",
		"  a-1 [000] ..... 1.000001: #12 context irq timer_latency x ns",
		"  a-1 [000] ..... 1.000001: #12 context irq timer_latency 5 ns junk",
		"  a-1 [000] ..... 1.000001: #99999999999 context irq timer_latency 5 ns",
		"  a-1 [000] ..... 1.000001: #1 contxt irq timer_latency 5 ns",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(osnkernel_parse_line(bad[i], &r), -EINVAL);
	/* a '#' with no number is no record of the tracer's */
	assert_int_equal(osnkernel_parse_line("  a-1 [000] ..... 1.000001: #x context", &r), -ENOENT);
}

/* The engine counts every loss, whatever the CPU, and keeps the window. */
static void test_engine_lost_window(void **state)
{
	(void)state;
	struct osneng_opts o = { .threshold_us = 5, .period_us = 200000, .runtime_us = 100000 };
	parse_cpuset_add(&o.cpus, 0);
	struct osneng *e;
	assert_int_equal(osneng_new(&e, &o, NULL), 0);
	struct osneng_kbuf kb = { 0 };
	const char *t =
		"  latscope-9 [001] .....    30.000100: tracing_mark_write: " OSNKERNEL_MARK_START "\n"
		"  osnoise/0-8 [000] .....    30.200000: 100000 10 99.99000 5 1 0 2 0 0\n"
		"CPU:0 [LOST 40 EVENTS]\n"
		"CPU:5 [LOST EVENTS]\n"
		"  osnoise/0-8 [000] .....    30.600000: 100000 20 99.98000 7 2 0 2 0 1\n"
		"  latscope-9 [001] .....    30.700100: tracing_mark_write: " OSNKERNEL_MARK_END "\n";
	/* in two chunks that cut a line */
	osneng_kernel_text(e, &kb, t, 100);
	osneng_kernel_text(e, &kb, t + 100, strlen(t) - 100);
	assert_int_equal(kb.bad, 0);
	assert_int_equal(osneng_counts(e)->lost, 41);
	assert_int_equal(osneng_times(e)->kwin_start_ns, 30000100000ULL);
	assert_int_equal(osneng_times(e)->kwin_end_ns, 30700100000ULL);
	osneng_free(e);
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

/* ---- driving the tracer against a fake tracefs ------------------------------ */


/* The file's first line ("" when missing). */
static const char *get(const char *rel)
{
	static char b[256];
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	b[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(b, sizeof(b), f))
			b[0] = '\0';
		fclose(f);
	}
	b[strcspn(b, "\n")] = '\0';
	return b;
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	return access(path, F_OK) == 0;
}

static void mk(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* What the kernel shows before a run (the tree is rebuilt by each test). */
static void fake_tree(bool instance_files)
{
	int rc = system(strcat(strcpy((char[96]){ 0 }, "rm -rf "), tdir));
	(void)rc;
	assert_int_equal(mkdir(tdir, 0700), 0);
	mk("osnoise");
	mk("instances");
	mk("events");
	mk("events/osnoise");
	put("available_tracers", "timerlat osnoise nop\n");
	put("tracing_thresh", "0\n");
	put("events/osnoise/enable", "0\n");
	put("osnoise/options", "DEFAULTS NO_OSNOISE_WORKLOAD\n");
	put("osnoise/cpus", "0-3\n");
	put("osnoise/period_us", "1000000\n");
	put("osnoise/runtime_us", "1000000\n");
	put("osnoise/stop_tracing_us", "0\n");
	put("osnoise/stop_tracing_total_us", "0\n");
	if (instance_files) {
		/* a real instance has them from its mkdir on */
		mk("instances/latscope_osnoise");
		mk("instances/latscope_osnoise/events");
		mk("instances/latscope_osnoise/events/osnoise");
		put("instances/latscope_osnoise/events/osnoise/enable", "0\n");
		put("instances/latscope_osnoise/current_tracer", "nop\n");
		put("instances/latscope_osnoise/tracing_on", "1\n");
		put("instances/latscope_osnoise/trace_pipe", "");
		put("instances/latscope_osnoise/trace_marker", "");
		put("instances/latscope_osnoise/buffer_size_kb", "1408\n");
		mk("instances/latscope_osnoise/per_cpu");
		mk("instances/latscope_osnoise/per_cpu/cpu0");
		mk("instances/latscope_osnoise/per_cpu/cpu3");
		put("instances/latscope_osnoise/per_cpu/cpu0/stats",
		    "entries: 10\noverrun: 7\ncommit overrun: 1\nbytes: 300\ndropped events: 2\n"
		    "read events: 5\n");
		put("instances/latscope_osnoise/per_cpu/cpu3/stats", "entries: 0\noverrun: 100\n");
	}
}

static const struct osnkernel_config kcfg = {
	.cpus = "1", .period_us = 200000, .runtime_us = 100000, .stop_us = 30,
	.stop_total_us = 500, .threshold_us = 5, .no_workload = false, .events = true,
	.buffer_kb = 64,
};

/* The global settings: as fake_tree() wrote them (set false), or as kcfg
 * sets them (set true).  Options: one option a write (the kernel's rule), so
 * the file holds the last word written. */
static void assert_globals(bool set)
{
	static const char *const v[][3] = {
		{ "tracing_thresh", "0", "5" },
		{ "osnoise/options", "NO_OSNOISE_WORKLOAD", "OSNOISE_WORKLOAD" },
		{ "osnoise/cpus", "0-3", "1" },
		{ "osnoise/period_us", "1000000", "200000" },
		{ "osnoise/runtime_us", "1000000", "100000" },
		{ "osnoise/stop_tracing_us", "0", "30" },
		{ "osnoise/stop_tracing_total_us", "0", "500" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_string_equal(get(v[i][0]), v[i][set ? 2 : 1]);
}

/* The instance's tracer stopped (its directory stays in the fake tree). */
static void assert_instance_back(void)
{
	assert_string_equal(get("instances/latscope_osnoise/current_tracer"), "nop");
	assert_string_equal(get("instances/latscope_osnoise/tracing_on"), "0");
	assert_string_equal(get("instances/latscope_osnoise/events/osnoise/enable"), "0");
}

/* A start that fails half-way (the new instance has no events: mkdir on a
 * plain file system makes an empty directory): the stop undoes the rest. */
static void test_drive_fails_halfway(void **state)
{
	(void)state;
	fake_tree(false);
	assert_true(osnkernel_available());
	struct osnkernel *k;
	assert_int_equal(osnkernel_start(&k, &kcfg), -EIO);
	assert_string_equal(osnkernel_strerror(k), "cannot enable the osnoise events");
	assert_globals(true);
	assert_true(exists("instances/latscope_osnoise"));
	osnkernel_free(k);
	assert_globals(false);
	assert_false(exists("instances/latscope_osnoise"));	/* removed (it was new and empty) */
	/* and the next run may start */
	assert_int_equal(osnkernel_start(&k, &kcfg), -EIO);
	osnkernel_free(k);
	assert_globals(false);
}

/* A start that went through: the stop undoes all; a second start meanwhile
 * is refused (one tracer a system) and its stop undoes nothing. */
static void test_drive_stop(void **state)
{
	(void)state;
	fake_tree(true);
	struct osnkernel *k, *k2;
	assert_int_equal(osnkernel_start(&k, &kcfg), 0);
	assert_globals(true);
	assert_string_equal(get("instances/latscope_osnoise/current_tracer"), "osnoise");
	assert_string_equal(get("instances/latscope_osnoise/events/osnoise/enable"), "1");
	assert_string_equal(get("instances/latscope_osnoise/buffer_size_kb"), "64");
	assert_string_equal(get("instances/latscope_osnoise/trace_marker"), OSNKERNEL_MARK_START);
	char buf[64];
	assert_int_equal(osnkernel_read(k, buf, sizeof(buf)), 0);
	assert_int_equal(osnkernel_start(&k2, &kcfg), -EBUSY);
	osnkernel_free(k2);
	assert_globals(true);
	/* the window closed: the end marker, then the instance stops writing */
	assert_int_equal(osnkernel_quiesce(k), 0);
	assert_string_equal(get("instances/latscope_osnoise/trace_marker"), OSNKERNEL_MARK_END);
	assert_string_equal(get("instances/latscope_osnoise/tracing_on"), "0");
	uint64_t lost;
	assert_int_equal(osnkernel_lost(k, &lost), 0);
	assert_int_equal(lost, 7 + 1 + 2 + 100);	/* overrun, commit overrun, dropped; every CPU */
	osnkernel_free(k);
	assert_int_equal(osnkernel_quiesce(k2 = NULL), -EINVAL);
	assert_globals(false);
	assert_instance_back();
}

/* The abort's restore (async-signal-safe, nothing freed) does the same; the
 * stop after it is harmless. */
static void test_drive_emergency(void **state)
{
	(void)state;
	fake_tree(true);
	struct osnkernel *k;
	osnkernel_emergency_restore();		/* nothing to do */
	assert_string_equal(get("osnoise/cpus"), "0-3");
	assert_int_equal(osnkernel_start(&k, &kcfg), 0);
	assert_globals(true);
	osnkernel_emergency_restore();
	assert_globals(false);
	assert_instance_back();
	put("osnoise/cpus", "7\n");	/* after the emergency: stop only undoes again */
	osnkernel_free(k);
	assert_globals(false);
}

/* A value too long to save: refused before it is changed, and what was
 * changed before it is put back. */
static void test_drive_unsaveable(void **state)
{
	(void)state;
	fake_tree(false);
	char big[1024];
	memset(big, '1', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	put("osnoise/cpus", big);
	struct osnkernel *k;
	assert_int_equal(osnkernel_start(&k, &kcfg), -ENAMETOOLONG);
	osnkernel_free(k);
	assert_string_equal(get("osnoise/options"), "NO_OSNOISE_WORKLOAD");
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/osnoise/cpus", tdir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sizeof(big) - 1);	/* untouched */
}

static int drive_setup(void **state)
{
	(void)state;
	snprintf(tdir, sizeof(tdir), "/tmp/test_osnkernel.%d", (int)getpid());
	return tracefs_set_tracing_dir(tdir);
}

static int drive_teardown(void **state)
{
	(void)state;
	int rc = system(strcat(strcpy((char[96]){ 0 }, "rm -rf "), tdir));
	(void)rc;
	return tracefs_set_tracing_dir(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_lost_mark),
		cmocka_unit_test(test_timerlat),
		cmocka_unit_test(test_engine_lost_window),
		cmocka_unit_test(test_fold),
		cmocka_unit_test_setup_teardown(test_drive_fails_halfway, drive_setup, drive_teardown),
		cmocka_unit_test_setup_teardown(test_drive_stop, drive_setup, drive_teardown),
		cmocka_unit_test_setup_teardown(test_drive_emergency, drive_setup, drive_teardown),
		cmocka_unit_test_setup_teardown(test_drive_unsaveable, drive_setup, drive_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
