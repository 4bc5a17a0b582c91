/* SPDX-License-Identifier: MIT */
/*
 * livesetup.h - the system settings a live measurement changes for its own
 * run and gives back at its end: the collector's CPU affinity (the
 * house-keeping CPUs), keep-busy spinners, mlockall, /dev/cpu_dma_latency
 * and the collector's real-time priority.  Shared by `hist record|top` and
 * `osnoise` (`dtl record` changes none of these: its one system setting,
 * debugfs dtl_event_mask, is dtlrec's own, undone by dtlrec_close()).
 *
 * Prefix: livesetup_.
 *
 *	struct livesetup ls;
 *	livesetup_init(&ls, NULL);                      // the real system calls
 *	struct livesetup_cfg cfg = { .mlock = true, .dma_latency_us = 0, ... };
 *	struct livesetup_why why;
 *	if (livesetup_apply(&ls, &cfg, LIVESETUP_MLOCK | LIVESETUP_DMA_LATENCY, &why) < 0)
 *		... the command words each failed step of why.failed ...
 *	... later steps: livesetup_apply(&ls, &cfg, LIVESETUP_PRIORITY, &why) ...
 *	livesetup_restore(&ls);                         // every exit path, any number of times
 *
 * apply records each change it made; restore undoes exactly those, newest
 * first (whatever the order of the apply calls), and forgets them: a second
 * restore does nothing, a restore before any apply does nothing.  So the
 * error and interrupted-setup paths of a command call it from wherever the
 * set-up stopped.  The abort (a second Ctrl-C, src/cmdio.h) needs none of it:
 * the kernel drops every one of these settings with the process (threads,
 * their affinity and priority, mlock, the /dev/cpu_dma_latency fd).
 *
 * Never prints, never exits: failures are negative errnos in a struct
 * livesetup_why the command words.  The kernel-touching calls go through a
 * struct livesetup_ops (the real ones by default) so that tests can run
 * without root.
 */
#ifndef LATSCOPE_LIVESETUP_H
#define LATSCOPE_LIVESETUP_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/parse.h"

/* The steps, in the order one livesetup_apply() call applies them. */
enum livesetup_step {
	LIVESETUP_AFFINITY = 1u << 0,		/* the collector on housekeeping_cpus */
	LIVESETUP_KEEP_BUSY = 1u << 1,		/* SCHED_IDLE spinners on keep_busy_cpus */
	LIVESETUP_MLOCK = 1u << 2,		/* mlockall(MCL_CURRENT | MCL_FUTURE) */
	LIVESETUP_DMA_LATENCY = 1u << 3,	/* /dev/cpu_dma_latency held at dma_latency_us */
	LIVESETUP_PRIORITY = 1u << 4,		/* the collector's real-time policy */
};
#define LIVESETUP_NR_STEPS 5

struct idlecheck_spin;

/*
 * struct livesetup_ops - the calls that touch the system, each 0 (or an fd)
 * or a negative errno; arg is livesetup_ops.arg.  Tests replace them; the
 * defaults (livesetup_init(ls, NULL)) are sched_getaffinity/setaffinity of
 * the calling thread, idlecheck_spin_start/stop, mlockall/munlockall,
 * livesetup_dma_hold() and close(), sched_getscheduler+getparam and
 * sched_setscheduler of the calling thread.
 */
struct livesetup_ops {
	int (*get_affinity)(void *arg, cpu_set_t *set);
	int (*set_affinity)(void *arg, const cpu_set_t *set);
	int (*spin_start)(void *arg, struct idlecheck_spin **out, const struct parse_cpuset *cpus);
	void (*spin_stop)(void *arg, struct idlecheck_spin *s);
	int (*mlock)(void *arg);
	void (*munlock)(void *arg);
	int (*dma_hold)(void *arg, const char *path, int32_t latency_us);	/* the fd */
	void (*dma_release)(void *arg, int fd);
	int (*get_sched)(void *arg, int *policy, struct sched_param *p);
	int (*set_sched)(void *arg, int policy, const struct sched_param *p);
	void *arg;
};

/*
 * struct livesetup_cfg - what to set.  A step asked for in livesetup_apply()
 * whose setting is "leave alone" here does nothing and records nothing.
 * The pointers need only be valid during the call (the sets are copied or
 * used at once).
 */
struct livesetup_cfg {
	const struct parse_cpuset *housekeeping_cpus;	/* NULL or empty: affinity left alone */
	const struct parse_cpuset *keep_busy_cpus;	/* NULL or empty: no spinner */
	bool mlock;
	int32_t dma_latency_us;		/* < 0: /dev/cpu_dma_latency left alone */
	const char *dma_latency_path;	/* NULL = "/dev/cpu_dma_latency" (tests: a file) */
	int collector_policy;		/* SCHED_FIFO or SCHED_RR, with collector_prio */
	int collector_prio;		/* 0: the collector's policy left alone */
};

/* What went wrong in one livesetup_apply() call (filled by the call). */
struct livesetup_why {
	unsigned failed;			/* the steps that failed (enum livesetup_step bits) */
	int err[LIVESETUP_NR_STEPS];		/* by livesetup_step_index(): 0 or a negative errno */
	char mlock_hint[256];			/* LIVESETUP_MLOCK failed: the cause and the fix
						 * (privhint_mlock), "" when none is known */
};

/*
 * struct livesetup - what was changed, for the restore.  The caller owns it
 * (usually on the stack or in its context); the fields are private.  A
 * zeroed struct is the same as livesetup_init(ls, NULL).
 */
struct livesetup {
	const struct livesetup_ops *ops;	/* NULL: the real calls */
	unsigned applied;			/* enum livesetup_step bits */
	unsigned order[LIVESETUP_NR_STEPS];	/* the applied steps, oldest first */
	unsigned n;
	cpu_set_t affinity0;			/* AFFINITY: the mask before it */
	bool affinity0_known;
	struct idlecheck_spin *spin;		/* KEEP_BUSY: the spinners */
	int dma_fd;				/* DMA_LATENCY: the held fd */
	int policy0;				/* PRIORITY: before it (-1: unknown, not restored) */
	struct sched_param param0;
};

/* livesetup_init - nothing applied; ops NULL = the real system calls (ops is
 * not copied: it must outlive ls). */
void livesetup_init(struct livesetup *ls, const struct livesetup_ops *ops);

/*
 * livesetup_apply - apply the steps of cfg named in steps (enum
 * livesetup_step bits), in the enum's order, and record each change for
 * livesetup_restore().  A step already applied is skipped.  Every asked step
 * is tried even after one failed (each is independent); a failed step
 * changes nothing (a failed mlockall is undone with munlockall, which may
 * leave MCL_FUTURE behind otherwise).  why (may be NULL) is reset and says
 * which failed and why.  Returns 0, or the first failed step's negative
 * errno.
 *
 * The steps: AFFINITY pins the calling thread (the collector) to
 * housekeeping_cpus (the mask before it is saved when it can be read);
 * KEEP_BUSY starts one SCHED_IDLE spinner per CPU of keep_busy_cpus
 * (idlecheck.h); MLOCK locks current and future memory; DMA_LATENCY holds
 * dma_latency_path open with dma_latency_us written (C-states whose exit is
 * slower are not entered while it is open); PRIORITY makes the calling
 * thread collector_policy at collector_prio (threads created before keep
 * their own policy: call it after the workload threads exist).
 */
int livesetup_apply(struct livesetup *ls, const struct livesetup_cfg *cfg, unsigned steps,
		    struct livesetup_why *why);

/*
 * livesetup_restore - undo every recorded change, newest first: the
 * collector's policy and priority back, /dev/cpu_dma_latency closed, memory
 * unlocked, the spinners stopped and freed, the affinity back.  Idempotent;
 * a no-op before any apply.  Undo failures are not reported (nothing could
 * be done about them); returns the number of changes undone.
 */
unsigned livesetup_restore(struct livesetup *ls);

/* livesetup_applied - whether step (one bit) is applied now. */
bool livesetup_applied(const struct livesetup *ls, enum livesetup_step step);

/* livesetup_step_index - the index of step (one bit) in livesetup_why.err:
 * 0..LIVESETUP_NR_STEPS-1. */
unsigned livesetup_step_index(enum livesetup_step step);

/* livesetup_failed - the negative errno step (one bit) failed with in why, 0
 * when it did not fail. */
int livesetup_failed(const struct livesetup_why *why, enum livesetup_step step);

/*
 * livesetup_dma_hold - ask for at most latency_us of C-state exit latency on
 * every CPU for as long as the returned fd stays open (path NULL =
 * /dev/cpu_dma_latency, as cyclictest does; the device takes a host-order
 * s32); the caller closes it.  Returns the fd or a negative errno.
 */
int livesetup_dma_hold(const char *path, int32_t latency_us);

#endif
