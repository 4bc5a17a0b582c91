/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/workthread: a helper thread starts with the
 * asynchronous signals blocked (a stop signal goes to the main thread) and
 * the ones its own doing raises unblocked; the caller's mask is unchanged.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/workthread.h"

static void *report_mask(void *arg)
{
	pthread_sigmask(SIG_SETMASK, NULL, arg);	/* its mask from the first instruction */
	return NULL;
}

static void test_mask(void **state)
{
	(void)state;
	sigset_t before, in, after;
	pthread_t th;
	pthread_sigmask(SIG_SETMASK, NULL, &before);
	assert_int_equal(workthread_create(&th, NULL, report_mask, &in), 0);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	static const int blocked[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU,
		SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGCHLD, SIGWINCH,
	};
	static const int own[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT, SIGPIPE, SIGXFSZ,
	};
	for (size_t i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++)
		assert_true(sigismember(&in, blocked[i]));
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		assert_true(sigismember(&in, sig));
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		assert_false(sigismember(&in, own[i]));
	for (int sig = 1; sig < NSIG; sig++)
		if (sig < 32 || sig >= SIGRTMIN)
			assert_int_equal(sigismember(&after, sig), sigismember(&before, sig));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
