/* SPDX-License-Identifier: MIT */
/* workthread.c - helper threads that leave the signals to the main thread (see workthread.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* the kernel's struct sched_attr (include/uapi/linux/sched/types.h, size 48) */
struct workthread_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

int workthread_set_deadline(uint64_t runtime_ns, uint64_t period_ns)
{
#ifdef SYS_sched_setattr
	struct workthread_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.policy = 6;	/* SCHED_DEADLINE */
	a.runtime = runtime_ns;
	a.deadline = period_ns;
	a.period = period_ns;
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
		return -errno;
	return 0;
#else
	(void)runtime_ns;
	(void)period_ns;
	return -ENOSYS;
#endif
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
