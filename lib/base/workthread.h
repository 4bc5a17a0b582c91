/* SPDX-License-Identifier: MIT */
/*
 * workthread.h - helper threads that leave the process's signals to the
 * main thread.
 *
 * Prefix: workthread_.
 *
 * A signal sent to the process goes to any thread that does not block it.
 * The live commands stop on a signal through a flag (src/cmdio.h) that their
 * main loop reads after each wait: a signal taken by the main thread ends
 * that wait at once, one taken by a measuring thread would disturb the
 * measurement (a busy loop's gap, a timer thread's sleep cut short).  So
 * every thread latscope starts blocks the asynchronous signals from its
 * first instruction.  The signals a thread raises by what it does itself
 * stay deliverable to it: the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGTRAP, SIGSYS), abort()'s SIGABRT, and SIGPIPE/SIGXFSZ of its own
 * writes (blocked, they would stay pending on the thread forever; a fault
 * that finds its signal blocked kills the process without its handler).
 */
#ifndef LATSCOPE_WORKTHREAD_H
#define LATSCOPE_WORKTHREAD_H

#include <pthread.h>
#include <stdint.h>
#include <signal.h>

/* workthread_blocked - the set a helper thread blocks (see above) into *set. */
void workthread_blocked(sigset_t *set);

/*
 * workthread_create - pthread_create() of a thread that starts with
 * workthread_blocked() blocked; the caller's own mask is unchanged when it
 * returns.  attr may be NULL.  Returns 0 or a negative errno.
 */
/*
 * workthread_set_deadline - make the calling thread SCHED_DEADLINE with
 * runtime_ns every period_ns (deadline = period), through sched_setattr(2).
 * 0 or the negative errno: -EPERM/-EBUSY when the kernel refuses a thread
 * pinned to fewer CPUs than its root domain (its admission control: pinned
 * deadline threads need an exclusive cpuset partition), -EINVAL for values
 * it refuses, -EBUSY when the CPUs' deadline bandwidth is used up.
 */
int workthread_set_deadline(uint64_t runtime_ns, uint64_t period_ns);

int workthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

#endif
