/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/tool.c: the deadline and refresh arithmetic, the exit
 * status mapping, and the live loop driven by fake callbacks (no root, no
 * events): the order of the calls, each way a run ends.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmdio.h"
#include "commands.h"
#include "tool.h"
#include "test_sigdefault.h"

#define MS 1000000ULL

static void test_sched_deadline(void **state)
{
	struct tool_sched s;
	(void)state;
	tool_sched_init(&s, 1000 * MS, 0, 0);	/* no duration: never */
	assert_true(s.deadline_ns == UINT64_MAX);
	assert_false(tool_sched_expired(&s, UINT64_MAX - 1));
	assert_false(tool_sched_expired(&s, UINT64_MAX));

	tool_sched_init(&s, 1000 * MS, 500 * MS, 0);
	assert_true(s.deadline_ns == 1500 * MS);
	assert_false(tool_sched_expired(&s, 1000 * MS));
	assert_false(tool_sched_expired(&s, 1500 * MS - 1));
	assert_true(tool_sched_expired(&s, 1500 * MS));
	assert_true(tool_sched_expired(&s, 9999 * MS));

	/* the start may lie ahead (osnoise's warm-up): nothing expires before it */
	tool_sched_init(&s, 2000 * MS, 1, 0);
	assert_false(tool_sched_expired(&s, 1999 * MS));
	assert_true(tool_sched_expired(&s, 2000 * MS + 1));

	/* saturates instead of wrapping */
	tool_sched_init(&s, UINT64_MAX - 10, 100, 100);
	assert_true(s.deadline_ns == UINT64_MAX);
	assert_true(s.next_refresh_ns == UINT64_MAX);
	assert_false(tool_sched_expired(&s, UINT64_MAX - 5));
}

static void test_sched_wait(void **state)
{
	struct tool_sched s;
	(void)state;
	tool_sched_init(&s, 0, 0, 0);
	assert_int_equal(tool_sched_wait_ms(&s, 123 * MS, 100), 100);
	assert_int_equal(tool_sched_wait_ms(&s, 123 * MS, 0), 0);
	assert_int_equal(tool_sched_wait_ms(&s, 123 * MS, -5), 0);

	tool_sched_init(&s, 1000 * MS, 1000 * MS, 0);	/* deadline at 2000 ms */
	assert_int_equal(tool_sched_wait_ms(&s, 1000 * MS, 100), 100);
	assert_int_equal(tool_sched_wait_ms(&s, 1900 * MS, 100), 100);
	assert_int_equal(tool_sched_wait_ms(&s, 1950 * MS, 100), 50);
	/* rounded up: the wait ends at or after the deadline, never just before */
	assert_int_equal(tool_sched_wait_ms(&s, 1950 * MS + 1, 100), 50);
	assert_int_equal(tool_sched_wait_ms(&s, 2000 * MS - 1, 100), 1);
	assert_int_equal(tool_sched_wait_ms(&s, 2000 * MS, 100), 0);
	assert_int_equal(tool_sched_wait_ms(&s, 3000 * MS, 100), 0);
	/* a start in the future (warm-up) waits the whole max */
	assert_int_equal(tool_sched_wait_ms(&s, 500 * MS, 100), 100);
}

static void test_sched_refresh(void **state)
{
	struct tool_sched s;
	(void)state;
	tool_sched_init(&s, 1000 * MS, 0, 0);	/* no period: never */
	assert_false(tool_sched_refresh_due(&s, 1000 * MS));
	assert_false(tool_sched_refresh_due(&s, UINT64_MAX));

	tool_sched_init(&s, 1000 * MS, 0, 1000 * MS);
	assert_true(s.next_refresh_ns == 2000 * MS);
	assert_false(tool_sched_refresh_due(&s, 1999 * MS));
	assert_true(tool_sched_refresh_due(&s, 2000 * MS));
	/* once per period */
	assert_false(tool_sched_refresh_due(&s, 2000 * MS));
	assert_false(tool_sched_refresh_due(&s, 2999 * MS));
	/* late: the next one is a period after the late one (no burst) */
	assert_true(tool_sched_refresh_due(&s, 3700 * MS));
	assert_true(s.next_refresh_ns == 4700 * MS);
	assert_false(tool_sched_refresh_due(&s, 4000 * MS));
	assert_true(tool_sched_refresh_due(&s, 4700 * MS));
	/* saturates */
	assert_true(tool_sched_refresh_due(&s, UINT64_MAX - 1));
	assert_true(s.next_refresh_ns == UINT64_MAX);
}

static void test_until(void **state)
{
	(void)state;
	assert_true(tool_until(10 * MS, 2 * MS) == 8 * MS);
	assert_true(tool_until(2 * MS, 2 * MS) == 0);
	assert_true(tool_until(1 * MS, 2 * MS) == 0);
	assert_true(tool_until(5, 0) == 5);
	assert_true(tool_until(0, 0) == 0);
}

static void test_status(void **state)
{
	(void)state;
	assert_int_equal(tool_status(false, false), 0);
	assert_int_equal(tool_status(false, true), EXIT_THRESHOLD);
	assert_int_equal(tool_status(true, false), EXIT_ERR);
	assert_int_equal(tool_status(true, true), EXIT_ERR);
	assert_int_equal(EXIT_THRESHOLD, 1);
	assert_int_equal(EXIT_ERR, 2);

	assert_int_equal(tool_status_worst(0, 0), 0);
	assert_int_equal(tool_status_worst(0, 1), 1);
	assert_int_equal(tool_status_worst(1, 0), 1);
	assert_int_equal(tool_status_worst(1, 2), 2);
	assert_int_equal(tool_status_worst(2, 0), 2);

	/* a reader that left makes any status 2; a Ctrl-C does not */
	cmdio_signals_install();
	assert_int_equal(tool_end_status(0), 0);
	assert_int_equal(tool_end_status(1), 1);
	cmdio_stop();
	assert_int_equal(tool_end_status(1), 1);
	raise(SIGPIPE);
	assert_true(cmdio_broken_pipe());
	assert_int_equal(tool_end_status(0), EXIT_ERR);
	assert_int_equal(tool_end_status(1), EXIT_ERR);
	cmdio_signals_install();	/* resets the flags */
	assert_int_equal(tool_end_status(1), 1);
}

/* The monitor's SIGHUP: a request taken once, never a stop; forgotten by
 * the next install. */
/* (in-process, as the status test above: test_cmdio forks for what
 * outlives a test) */
static void test_request_signal(void **state)
{
	(void)state;
	cmdio_signals_install();
	cmdio_request_signal(SIGHUP);
	assert_false(cmdio_take_request());
	raise(SIGHUP);
	raise(SIGHUP);
	assert_false(cmdio_stopped());
	assert_true(cmdio_take_request());	/* two signals, one request to serve */
	assert_false(cmdio_take_request());
	raise(SIGHUP);
	assert_false(cmdio_stopped());
	assert_true(cmdio_take_request());
	/* a stop signal still stops */
	raise(SIGTERM);
	assert_true(cmdio_stopped());
	assert_false(cmdio_take_request());
	/* forgotten by the next install: SIGHUP stops again */
	cmdio_signals_install();
	raise(SIGHUP);
	assert_true(cmdio_stopped());
	assert_false(cmdio_take_request());
	cmdio_signals_install();
}

/* ---- the loop with fake callbacks ----------------------------------------- */

struct fake {
	char log[256];		/* one letter a call: W wait, P process, C checkpoint, R refresh, D done */
	size_t n;
	int waits, processes, refreshes;
	int max_timeout;	/* the longest wait asked for */
	int last_timeout;
	int stop_after;		/* process calls before cmdio_stop(); 0 = never */
	int done_after;		/* done() calls answering false first; 0 = never true */
	int fail_wait_at;	/* the wait call that fails (1-based); 0 = never */
	int dones;
	bool sleep;		/* the wait sleeps its timeout */
	uint64_t last_until;
	uint64_t last_refresh_now;
};

static void note(struct fake *f, char c)
{
	if (f->n + 1 < sizeof(f->log)) {
		f->log[f->n++] = c;
		f->log[f->n] = '\0';
	}
}

static int f_wait(void *arg, int timeout_ms)
{
	struct fake *f = arg;
	note(f, 'W');
	f->waits++;
	f->last_timeout = timeout_ms;
	if (timeout_ms > f->max_timeout)
		f->max_timeout = timeout_ms;
	if (f->fail_wait_at && f->waits == f->fail_wait_at)
		return -5;
	if (f->sleep)
		tool_sleep_ms(timeout_ms);
	return 0;
}

static int f_process(void *arg, uint64_t until_ns)
{
	struct fake *f = arg;
	note(f, 'P');
	f->processes++;
	f->last_until = until_ns;
	if (f->stop_after && f->processes == f->stop_after)
		cmdio_stop();
	return 0;
}

static void f_checkpoint(void *arg)
{
	note(arg, 'C');
}

static void f_refresh(void *arg, uint64_t now_ns)
{
	struct fake *f = arg;
	note(f, 'R');
	f->refreshes++;
	f->last_refresh_now = now_ns;
}

static bool f_done(void *arg)
{
	struct fake *f = arg;
	note(f, 'D');
	return f->done_after && ++f->dones > f->done_after;
}

static int reader_fd = -1, writer_fd = -1;

static int setup(void **state)
{
	int p[2];
	(void)state;
	if (pipe(p) < 0)
		return -1;
	reader_fd = p[0];
	writer_fd = p[1];
	cmdio_signals_install();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (reader_fd >= 0)
		close(reader_fd);
	close(writer_fd);
	reader_fd = writer_fd = -1;
	return 0;
}

static struct tool_loop loop_of(struct fake *f)
{
	struct tool_loop l = {
		.arg = f, .watch_fd = writer_fd, .wait = f_wait, .process = f_process,
		.checkpoint = f_checkpoint, .refresh = f_refresh, .done = f_done,
	};
	return l;
}

static void test_run_order_and_stop(void **state)
{
	struct fake f = { .stop_after = 2 };
	struct tool_loop l = loop_of(&f);
	(void)state;
	assert_int_equal(tool_run(&l), TOOL_END_STOP);
	/* done before each wait; no refresh without a period; the stop seen at the top */
	assert_string_equal(f.log, "DWPCDWPC");
	assert_int_equal(f.max_timeout, 100);	/* the default wait */
	assert_true(cmdio_stopped());
	assert_false(cmdio_broken_pipe());
}

/* The longest wait is 250 ms, whatever asked: a stop that another thread
 * took, or a reader of watch_fd that left, is seen within it. */
static void test_run_wait_cap(void **state)
{
	struct fake f = { .stop_after = 1 };
	struct tool_loop l = loop_of(&f);
	(void)state;
	l.wait_ms = 5000;
	assert_int_equal(tool_run(&l), TOOL_END_STOP);
	assert_int_equal(f.max_timeout, 250);
}

static void test_run_done(void **state)
{
	struct fake f = { .done_after = 3 };
	struct tool_loop l = loop_of(&f);
	(void)state;
	l.wait_ms = 7;
	assert_int_equal(tool_run(&l), TOOL_END_DONE);
	assert_string_equal(f.log, "DWPCDWPCDWPCD");
	assert_int_equal(f.max_timeout, 7);
	assert_false(cmdio_stopped());
}

static void test_run_error(void **state)
{
	struct fake f = { .fail_wait_at = 2 };
	struct tool_loop l = loop_of(&f);
	(void)state;
	assert_int_equal(tool_run(&l), -5);
	assert_string_equal(f.log, "DWPCDW");
	/* a failing process ends it too, and NULL callbacks are skipped */
	l.wait = NULL;
	l.wait_ms = 1;
	l.checkpoint = NULL;
	l.done = NULL;
	l.process = NULL;
	l.duration_ns = 20 * MS;
	assert_int_equal(tool_run(&l), TOOL_END_DEADLINE);
}

static void test_run_broken_pipe(void **state)
{
	struct fake f = { 0 };
	struct tool_loop l = loop_of(&f);
	(void)state;
	close(reader_fd);	/* the reader leaves */
	reader_fd = -1;
	assert_int_equal(tool_run(&l), TOOL_END_STOP);
	assert_string_equal(f.log, "");
	assert_true(cmdio_broken_pipe());
	assert_int_equal(tool_end_status(0), EXIT_ERR);
}

static void test_run_deadline_refresh(void **state)
{
	struct fake f = { .sleep = true };
	struct tool_loop l = loop_of(&f);
	(void)state;
	uint64_t t0 = tool_now_ns();
	l.start_ns = t0;
	l.duration_ns = 250 * MS;
	l.refresh_ns = 40 * MS;
	l.wait_ms = 30;
	l.slack_ns = 5 * MS;
	assert_int_equal(tool_run(&l), TOOL_END_DEADLINE);
	uint64_t t1 = tool_now_ns();
	assert_true(t1 - t0 >= 250 * MS);	/* never before the deadline */
	assert_true(f.max_timeout <= 30);
	/* the last wait was cut to what was left (it ended the run) */
	assert_true(f.last_timeout >= 1 && f.last_timeout <= 30);
	/* at most one refresh a period, the first a period after the start */
	assert_true(f.refreshes >= 1);
	assert_true((uint64_t)f.refreshes <= 250 / 40);
	assert_true(f.last_refresh_now >= t0 + 40 * MS);
	/* process gets now - slack */
	assert_true(f.last_until >= t0 && f.last_until < t1 - 5 * MS + 1);
	/* the deadline is seen after a wait (usually) or before the next one */
	assert_true(f.waits == f.processes + 1 || f.waits == f.processes);
}

static void test_run_start_ahead(void **state)
{
	struct fake f = { .sleep = true };
	struct tool_loop l = loop_of(&f);
	(void)state;
	/* -d counts from a start in the future (osnoise's warm-up end) */
	uint64_t t0 = tool_now_ns();
	l.start_ns = t0 + 60 * MS;
	l.duration_ns = 20 * MS;
	l.wait_ms = 10;
	assert_int_equal(tool_run(&l), TOOL_END_DEADLINE);
	assert_true(tool_now_ns() - t0 >= 80 * MS);
	assert_true(f.waits >= 3);
}

int main(void)
{
	test_sigdefault();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_deadline),
		cmocka_unit_test(test_sched_wait),
		cmocka_unit_test(test_sched_refresh),
		cmocka_unit_test(test_until),
		cmocka_unit_test(test_status),
		cmocka_unit_test_setup_teardown(test_run_order_and_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_wait_cap, setup, teardown),
		cmocka_unit_test(test_request_signal),
		cmocka_unit_test_setup_teardown(test_run_done, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_broken_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_deadline_refresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_start_ahead, setup, teardown),
	};
	return cmocka_run_group_tests_name("tool", tests, NULL, NULL);
}
