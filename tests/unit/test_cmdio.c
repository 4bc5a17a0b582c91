/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/cmdio.c's stop signals, each in a child process (a
 * signal that ends the process must end the child, not the test): every
 * stop signal sent by another process is the stop; a second one, of any
 * kind, is the abort (killed by it, the abort writes and calls done); a
 * real fault and abort() restore and die by their signal; our own SIGPIPE
 * and SIGXFSZ never abort; a signal inherited ignored stays ignored but for
 * SIGINT/SIGQUIT/SIGTERM; a signal another thread takes stops the main
 * loop; cmdio_fork() gives the child the dispositions and mask latscope
 * was started with.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmdio.h"
#include "test_sigdefault.h"

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

/* ---- a child that runs cmdio ----------------------------------------------- */

struct kid {
	pid_t pid;
	int rd;		/* the child's reports: 'r' when ready, then its stop */
};

struct report {
	int sig;	/* cmdio_stop_signal() */
	int broken;	/* cmdio_broken_pipe() */
};

static char setting[64];	/* the file an abort must write "old" into */
static char marker[64];		/* the file the abort call creates */

static void abort_call(void)
{
	int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
}

static void put(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(90);
}

/* In the child: wait for the stop, report it, then (linger) go on "stopping"
 * for a while, as a command writing its summary would. */
static void kid_stop_and_report(int wfd, int linger_ms)
{
	for (int i = 0; i < 5000 && !cmdio_stopped(); i++)
		nap_ms(1);
	struct report r = { cmdio_stop_signal(), cmdio_broken_pipe() };
	put(wfd, &r, sizeof(r));
	for (int i = 0; i < linger_ms; i++)
		nap_ms(1);
	_exit(cmdio_stopped() ? 0 : 91);
}

/* Fork a child: before() (may be NULL), cmdio_signals_install(), the abort
 * write and call, "ready", then body(wfd). */
static struct kid kid_start(void (*before)(void), void (*body)(int wfd))
{
	int p[2];
	struct kid k = { -1, -1 };
	assert_int_equal(pipe(p), 0);
	k.pid = fork();
	assert_true(k.pid >= 0);
	if (k.pid == 0) {
		close(p[0]);
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		if (before)
			before();
		cmdio_signals_install();
		if (cmdio_on_abort_write(setting, "old") || cmdio_on_abort_call(abort_call))
			_exit(92);
		put(p[1], "r", 1);
		body(p[1]);
		_exit(93);
	}
	close(p[1]);
	k.rd = p[0];
	char c;
	assert_int_equal(read(k.rd, &c, 1), 1);
	assert_int_equal(c, 'r');
	return k;
}

static int kid_end(struct kid *k)
{
	int st;
	while (waitpid(k->pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	close(k->rd);
	return st;
}

static void kid_report(struct kid *k, struct report *r)
{
	assert_int_equal(read(k->rd, r, sizeof(*r)), (ssize_t)sizeof(*r));
}

static void reset_files(void)
{
	FILE *f = fopen(setting, "w");
	assert_non_null(f);
	fputs("new", f);
	fclose(f);
	unlink(marker);
}

static bool restored(void)
{
	char b[8] = "";
	FILE *f = fopen(setting, "r");
	assert_non_null(f);
	size_t n = fread(b, 1, sizeof(b) - 1, f);
	fclose(f);
	b[n] = '\0';
	return !strcmp(b, "old") && access(marker, F_OK) == 0;
}

static void body_wait(int wfd) { kid_stop_and_report(wfd, 0); }
static void body_linger(int wfd) { kid_stop_and_report(wfd, 3000); }

/* ---- the tests ---------------------------------------------------------------- */

static void test_which(void **state)
{
	(void)state;
	static const int yes[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1,
		SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ,
		SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
	};
	static const int no[] = {
		0, SIGKILL, SIGSTOP, SIGCHLD, SIGCONT, SIGURG, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU, NSIG,
	};
	int n = 0;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(cmdio_is_stop_signal(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(cmdio_is_stop_signal(no[i]));
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		assert_true(cmdio_is_stop_signal(sig));
	for (int sig = 32; sig < SIGRTMIN; sig++)	/* glibc's own */
		assert_false(cmdio_is_stop_signal(sig));
	for (int sig = 0; sig <= NSIG; sig++)
		n += cmdio_is_stop_signal(sig);
	assert_int_equal(n, 22 + SIGRTMAX - SIGRTMIN + 1);
}

/* Each stop signal from another process: the stop, that signal, no broken
 * pipe (a sent SIGPIPE is no closed pipe), exit 0. */
static void test_every_signal_stops(void **state)
{
	(void)state;
	for (int sig = 1; sig < NSIG; sig++) {
		if (!cmdio_is_stop_signal(sig))
			continue;
		reset_files();
		struct kid k = kid_start(NULL, body_wait);
		struct report r;
		assert_int_equal(kill(k.pid, sig), 0);
		kid_report(&k, &r);
		if (r.sig != sig)
			fail_msg("signal %d: stop signal %d", sig, r.sig);
		assert_int_equal(r.broken, 0);
		int st = kid_end(&k);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_msg("signal %d: child status %#x", sig, st);
		assert_false(restored());	/* no abort */
	}
}

/* A second signal, of another kind, while the first stop runs: killed by
 * the second, the abort write and call done. */
static void test_second_aborts(void **state)
{
	(void)state;
	static const int pairs[][2] = {
		{ SIGINT, SIGINT }, { SIGHUP, SIGUSR1 }, { SIGTERM, SIGSEGV }, { SIGQUIT, 0 /* SIGRTMIN */ },
		{ SIGPIPE, SIGALRM },	/* a sent SIGPIPE is a stop request too */
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int second = pairs[i][1] ? pairs[i][1] : SIGRTMIN;
		reset_files();
		struct kid k = kid_start(NULL, body_linger);
		struct report r;
		assert_int_equal(kill(k.pid, pairs[i][0]), 0);
		kid_report(&k, &r);
		assert_int_equal(r.sig, pairs[i][0]);
		assert_int_equal(kill(k.pid, second), 0);
		int st = kid_end(&k);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != second)
			fail_msg("%d then %d: child status %#x", pairs[i][0], second, st);
		assert_true(restored());
	}
}

static void body_segv(int wfd)
{
	(void)wfd;
	volatile char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		p[0] = 1;	/* a real fault */
	_exit(94);
}

static void body_abort(int wfd)
{
	(void)wfd;
	abort();
}

static void body_raise_own(int wfd)
{
	/* what our own writes raise: never an abort, however many */
	raise(SIGPIPE);
	raise(SIGPIPE);
	raise(SIGXFSZ);
	raise(SIGXFSZ);
	kid_stop_and_report(wfd, 0);
}

/* A real fault, abort(): the abort restore, then death by that signal. */
static void test_faults_die(void **state)
{
	(void)state;
	reset_files();
	struct kid k = kid_start(NULL, body_segv);
	int st = kid_end(&k);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	assert_true(restored());

	reset_files();
	k = kid_start(NULL, body_abort);
	st = kid_end(&k);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	assert_true(restored());

	reset_files();
	k = kid_start(NULL, body_raise_own);
	struct report r;
	kid_report(&k, &r);
	assert_int_equal(r.sig, SIGPIPE);
	assert_int_equal(r.broken, 1);
	st = kid_end(&k);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_false(restored());
}

static void ignore_some(void)
{
	signal(SIGHUP, SIG_IGN);	/* nohup */
	signal(SIGUSR1, SIG_IGN);
	signal(SIGINT, SIG_IGN);	/* `cmd &` in a shell */
	signal(SIGQUIT, SIG_IGN);
}

/* Inherited ignored: stays so, but for SIGINT, SIGQUIT, SIGTERM. */
static void test_ignored_stay(void **state)
{
	(void)state;
	static const int taken[] = { SIGINT, SIGQUIT };
	for (size_t i = 0; i < 2; i++) {
		reset_files();
		struct kid k = kid_start(ignore_some, body_wait);
		assert_int_equal(kill(k.pid, SIGHUP), 0);
		assert_int_equal(kill(k.pid, SIGUSR1), 0);
		nap_ms(100);
		int st;
		assert_int_equal(waitpid(k.pid, &st, WNOHANG), 0);	/* still running, not stopped */
		assert_int_equal(kill(k.pid, taken[i]), 0);
		struct report r;
		kid_report(&k, &r);
		assert_int_equal(r.sig, taken[i]);
		st = kid_end(&k);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void block_main(void)
{
	/* a thread that takes every signal, then the main thread blocks them all */
	pthread_t th;
	sigset_t all;
	if (pthread_create(&th, NULL, sleeper, NULL))
		_exit(95);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/* The signal taken by another thread: the main loop still sees the stop. */
static void test_other_thread(void **state)
{
	(void)state;
	reset_files();
	struct kid k = kid_start(block_main, body_wait);
	assert_int_equal(kill(k.pid, SIGUSR2), 0);
	struct report r;
	kid_report(&k, &r);
	assert_int_equal(r.sig, SIGUSR2);
	int st = kid_end(&k);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void body_fork(int wfd)
{
	(void)wfd;
	sigset_t before;
	sigemptyset(&before);
	sigaddset(&before, SIGUSR2);	/* as block_usr2() left it */
	pid_t pid = cmdio_fork();
	if (pid == 0) {
		struct sigaction sa;
		sigset_t now;
		int bad = 0;
		sigaction(SIGINT, NULL, &sa);
		bad |= sa.sa_handler != SIG_IGN;	/* ignored when we started */
		sigaction(SIGHUP, NULL, &sa);
		bad |= (sa.sa_handler != SIG_DFL) << 1;
		sigaction(SIGRTMIN, NULL, &sa);
		bad |= (sa.sa_handler != SIG_DFL) << 2;
		sigprocmask(SIG_SETMASK, NULL, &now);
		for (int sig = 1; sig < NSIG; sig++)
			if (sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX))
				bad |= (sigismember(&now, sig) != sigismember(&before, sig)) << 3;
		_exit(bad);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		_exit(96);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 97);
}

static void block_usr2(void)
{
	sigset_t s;
	signal(SIGINT, SIG_IGN);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

/* cmdio_fork: the child gets what latscope got, not latscope's handlers. */
static void test_fork(void **state)
{
	(void)state;
	reset_files();
	struct kid k = kid_start(block_usr2, body_fork);
	int st = kid_end(&k);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("the forked child: status %#x (1 SIGINT, 2 SIGHUP, 4 SIGRTMIN, 8 mask)", st);
}

static int setup(void **state)
{
	(void)state;
	snprintf(setting, sizeof(setting), "/tmp/test_cmdio.%d.setting", (int)getpid());
	snprintf(marker, sizeof(marker), "/tmp/test_cmdio.%d.marker", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(setting);
	unlink(marker);
	return 0;
}

int main(void)
{
	test_sigdefault();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_every_signal_stops),
		cmocka_unit_test(test_second_aborts),
		cmocka_unit_test(test_faults_die),
		cmocka_unit_test(test_ignored_stay),
		cmocka_unit_test(test_other_thread),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
