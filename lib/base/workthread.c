/* SPDX-License-Identifier: MIT */
/* workthread.c - helper threads that leave the signals to the main thread (see workthread.h). */
#include <errno.h>

#include "base/workthread.h"

/* What a thread raises by its own doing: never blocked (see workthread.h). */
static const int workthread_own[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT, SIGPIPE, SIGXFSZ,
};

void workthread_blocked(sigset_t *set)
{
	sigfillset(set);
	for (size_t i = 0; i < sizeof(workthread_own) / sizeof(workthread_own[0]); i++)
		sigdelset(set, workthread_own[i]);
}

int workthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	sigset_t block, old;
	workthread_blocked(&block);
	int err = pthread_sigmask(SIG_BLOCK, &block, &old);
	if (err)
		return -err;
	/* the new thread inherits the mask: blocked before it runs anything */
	err = pthread_create(th, attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}
