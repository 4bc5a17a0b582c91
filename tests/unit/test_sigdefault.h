/* SPDX-License-Identifier: MIT */
/*
 * test_sigdefault.h - the signal state the signal tests assume: every
 * catchable signal at its default and none blocked.  A harness started
 * under nohup (SIGHUP ignored) or with `cmd &` (SIGINT, SIGQUIT ignored)
 * hands its ignored signals down, and cmdio rightly leaves those ignored:
 * the tests that check every signal stops would then fail for the harness,
 * not for the code.
 */
#ifndef LATSCOPE_TEST_SIGDEFAULT_H
#define LATSCOPE_TEST_SIGDEFAULT_H

#include <signal.h>

static inline void test_sigdefault(void)
{
	sigset_t none;

	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (s == SIGKILL || s == SIGSTOP || sigaction(s, NULL, &sa) != 0)
			continue;
		if (sa.sa_handler == SIG_IGN)
			signal(s, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

#endif
