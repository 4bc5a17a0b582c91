/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/action.c: the --on-threshold / --on-end parser (every
 * form, every malformed one refused with its message) and the runner (a real
 * /bin/sh with the event's environment; a signal to ourselves).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "action.h"

static int parse1(struct action_list *l, const char *arg, bool cont, char *err, size_t len)
{
	err[0] = 0;
	return action_parse(l, arg, cont, err, len);
}

static void test_good(void **state)
{
	struct action_list l;
	char err[256];
	(void)state;
	memset(&l, 0, sizeof(l));
	assert_int_equal(parse1(&l, "trace", true, err, sizeof(err)), 0);
	assert_int_equal(l.a[0].kind, ACTION_TRACE);
	assert_null(l.a[0].file);
	assert_true(l.trace);
	assert_null(l.trace_file);
	assert_int_equal(parse1(&l, "trace,file=a,b.data", true, err, sizeof(err)), 0);
	assert_string_equal(l.a[1].file, "a,b.data");	/* the rest, commas included */
	assert_string_equal(l.trace_file, "a,b.data");
	assert_int_equal(parse1(&l, "signal,num=10,pid=parent", true, err, sizeof(err)), 0);
	assert_int_equal(l.a[2].kind, ACTION_SIGNAL);
	assert_int_equal(l.a[2].signo, 10);
	assert_true(l.a[2].parent);
	assert_int_equal(parse1(&l, "signal,pid=1234,num=SIGUSR2", true, err, sizeof(err)), 0);
	assert_int_equal(l.a[3].signo, SIGUSR2);
	assert_int_equal(l.a[3].pid, 1234);
	assert_false(l.a[3].parent);
	assert_int_equal(parse1(&l, "shell,command=echo a,b; echo c", true, err, sizeof(err)), 0);
	assert_int_equal(l.a[4].kind, ACTION_SHELL);
	assert_string_equal(l.a[4].command, "echo a,b; echo c");
	assert_false(l.cont);
	assert_int_equal(parse1(&l, "continue", true, err, sizeof(err)), 0);
	assert_true(l.cont);
	assert_int_equal(l.n, 6);
}

static void expect_bad(const char *arg, bool cont, const char *msg_part)
{
	struct action_list l;
	char err[256];
	memset(&l, 0, sizeof(l));
	assert_int_equal(parse1(&l, arg, cont, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg_part))
		fail_msg("'%s': message '%s' lacks '%s'", arg, err, msg_part);
	assert_int_equal(l.n, 0);
	assert_false(l.cont);
}

static void test_bad(void **state)
{
	(void)state;
	expect_bad("", true, "unknown action ''");
	expect_bad("tracex", true, "unknown action 'tracex'");
	expect_bad("trace,", true, "trace takes file=F");
	expect_bad("trace,file=", true, "trace takes file=F");
	expect_bad("trace,out=x", true, "trace takes file=F");
	expect_bad("signal", true, "signal needs num=N and pid");
	expect_bad("signal,num=10", true, "signal needs pid=P");
	expect_bad("signal,pid=1", true, "signal needs num=N");
	expect_bad("signal,num=0,pid=1", true, "num='0' is not a signal");
	expect_bad("signal,num=65,pid=1", true, "num='65'");
	expect_bad("signal,num=BOGUS,pid=1", true, "num='BOGUS'");
	expect_bad("signal,num=1,pid=0", true, "pid='0' is not a process id");
	expect_bad("signal,num=1,pid=-5", true, "pid='-5'");
	expect_bad("signal,num=1,pid=1,x=2", true, "unknown field 'x=2'");
	expect_bad("shell", true, "shell needs command=CMD");
	expect_bad("shell,command=", true, "shell needs command=CMD");
	expect_bad("shell,cmd=ls", true, "shell needs command=CMD");
	expect_bad("continue", false, "--on-threshold only");
	expect_bad("stop", false, "unknown action 'stop'");
}

static void test_two_files_and_full(void **state)
{
	struct action_list l;
	char err[256];
	(void)state;
	memset(&l, 0, sizeof(l));
	assert_int_equal(parse1(&l, "trace,file=a", true, err, sizeof(err)), 0);
	assert_int_equal(parse1(&l, "trace,file=a", true, err, sizeof(err)), 0);
	assert_int_equal(parse1(&l, "trace,file=b", true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "one trace file per run"));
	while (l.n < ACTION_MAX)
		assert_int_equal(parse1(&l, "trace", true, err, sizeof(err)), 0);
	assert_int_equal(parse1(&l, "trace", true, err, sizeof(err)), -ENOSPC);
}

static void test_env(void **state)
{
	struct action_event ev = { .what = "threshold", .command = "osnoise", .cpu = 1,
				   .latency_ns = 12345, .threshold_ns = 1000, .trace_file = "t.data" };
	char b[128];
	(void)state;
	assert_true(action_env(&ev, 0, b, sizeof(b)));
	assert_string_equal(b, "LATSCOPE_EVENT=threshold");
	assert_true(action_env(&ev, 2, b, sizeof(b)));
	assert_string_equal(b, "LATSCOPE_CPU=1");
	assert_true(action_env(&ev, 3, b, sizeof(b)));
	assert_string_equal(b, "LATSCOPE_LATENCY_NS=12345");
	assert_true(action_env(&ev, 5, b, sizeof(b)));
	assert_string_equal(b, "LATSCOPE_TRACE_FILE=t.data");
	assert_false(action_env(&ev, 6, b, sizeof(b)));
	ev.cpu = -1;
	assert_true(action_env(&ev, 2, b, sizeof(b)));
	assert_string_equal(b, "LATSCOPE_CPU=");
}

static volatile sig_atomic_t got;
static void on_usr1(int s) { (void)s; got++; }

/* the runner: a real shell writes its environment to a file; a signal to us */
static void test_run(void **state)
{
	char path[] = "/tmp/latscope-test-action-XXXXXX", arg[512], arg2[64], err[256], line[256];
	struct action_list l;
	(void)state;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	memset(&l, 0, sizeof(l));
	snprintf(arg, sizeof(arg), "shell,command=echo \"$LATSCOPE_EVENT $LATSCOPE_CPU "
		 "$LATSCOPE_LATENCY_NS $LATSCOPE_COMMAND\" > %s", path);
	assert_int_equal(parse1(&l, arg, true, err, sizeof(err)), 0);
	/* the actions point into their arguments (argv): one buffer each */
	snprintf(arg2, sizeof(arg2), "signal,num=USR1,pid=%d", (int)getpid());
	assert_int_equal(parse1(&l, arg2, true, err, sizeof(err)), 0);
	signal(SIGUSR1, on_usr1);
	struct action_event ev = { .what = "threshold", .command = "hist", .cpu = 0, .latency_ns = 777 };
	assert_int_equal(action_run(&l, &ev, "test"), 0);
	assert_int_equal(got, 1);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(path);
	assert_string_equal(line, "threshold 0 777 hist\n");
	/* a signal that cannot be sent is a failure counted, the run goes on */
	memset(&l, 0, sizeof(l));
	assert_int_equal(parse1(&l, "signal,num=USR1,pid=2147483647", true, err, sizeof(err)), 0);
	assert_int_equal(action_run(&l, &ev, "test"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_two_files_and_full),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
