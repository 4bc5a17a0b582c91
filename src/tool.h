/* SPDX-License-Identifier: MIT */
/*
 * tool.h - the skeleton of a live command (osnoise, hist record/top, dtl
 * record): the one measuring loop, its deadline and refresh cadence and the
 * exit status.  The system settings a run changes (mlock, priority,
 * affinity, /dev/cpu_dma_latency, keep-busy spinners) are lib/live/livesetup.h's.
 *
 * Prefix: tool_.  src/ only.  The stop flag, the signals (a second Ctrl-C
 * aborts), the broken-pipe stop and the output checks are src/cmdio.[ch]'s;
 * this module uses them and does not repeat them.
 *
 * The run of a live command:
 *	cmdio_signals_install();                 // first: Ctrl-C during setup is seen
 *	... setup; if (tool_setup_interrupted(prog)) unwind ...
 *	livesetup_apply(&ls, &cfg, LIVESETUP_MLOCK, &why);   // the caller words the warning
 *	struct tool_loop l = { .arg = c, .duration_ns = ..., .wait = ..., .process = ... };
 *	tool_run(&l);                          // until the deadline, a stop, done() or an error
 *	... drain, report ...
 *	livesetup_restore(&ls);                // also on every error path
 *	return tool_end_status(rc);            // a reader that left: 2
 */
#ifndef LATSCOPE_TOOL_H
#define LATSCOPE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the loop's clock arithmetic (pure; CLOCK_MONOTONIC ns) ---------------- */

/*
 * struct tool_sched - when a run ends and when its view is drawn again.
 * deadline_ns is UINT64_MAX without a duration; refresh_ns 0 = no refresh.
 */
struct tool_sched {
	uint64_t deadline_ns;
	uint64_t refresh_ns;		/* the period */
	uint64_t next_refresh_ns;	/* the first at start + period */
};

/* tool_sched_init - deadline start + duration (0 = none, saturating), the
 * first refresh at start + refresh (0 = never). */
void tool_sched_init(struct tool_sched *s, uint64_t start_ns, uint64_t duration_ns,
		     uint64_t refresh_ns);
/* tool_sched_expired - true once now reached the deadline. */
bool tool_sched_expired(const struct tool_sched *s, uint64_t now_ns);
/*
 * tool_sched_wait_ms - how long to wait for data at now: max_ms, less when
 * the deadline is nearer (rounded up to a whole ms, so the wait ends at or
 * after it; 0 once it passed).
 */
int tool_sched_wait_ms(const struct tool_sched *s, uint64_t now_ns, int max_ms);
/*
 * tool_sched_refresh_due - true when a refresh is due at now; the next one
 * is then one period after now (a late refresh does not bunch up).
 */
bool tool_sched_refresh_due(struct tool_sched *s, uint64_t now_ns);
/* tool_until - the time up to which data is complete at now: now - slack,
 * 0 while now <= slack. */
uint64_t tool_until(uint64_t now_ns, uint64_t slack_ns);

/* ---- the loop ----------------------------------------------------------------- */

/* Why tool_run() returned. */
enum tool_end {
	TOOL_END_STOP,		/* a signal, cmdio_stop(), or the reader of stdout left */
	TOOL_END_DEADLINE,	/* the duration is over */
	TOOL_END_DONE,		/* done() said so (a stop threshold, the workload ended) */
	TOOL_END_ERROR,		/* wait() or process() failed (tool_run returns their error) */
};

/*
 * struct tool_loop - one live loop.  Each round: stop checks (cmdio_watch of
 * watch_fd, done()), the deadline, wait() for data at most wait_ms (less
 * near the deadline), the deadline again, process() up to now - slack_ns,
 * checkpoint(), refresh() when due.  Every callback may be NULL.
 */
struct tool_loop {
	void *arg;			/* the callbacks' first argument */
	uint64_t start_ns;		/* the deadline and refreshes count from here; 0 = now */
	uint64_t duration_ns;		/* 0 = until stopped */
	uint64_t refresh_ns;		/* refresh() period; 0 = never */
	uint64_t slack_ns;		/* process() gets now - slack_ns */
	int wait_ms;			/* the longest wait; 0 = 100, at most 250 (a stop
					 * is seen within it, whichever thread took the
					 * signal, and a reader of watch_fd that left) */
	int watch_fd;			/* the output whose reader leaving stops the run: STDOUT_FILENO */
	/* Wait for data at most timeout_ms (NULL: sleep).  < 0 ends the run. */
	int (*wait)(void *arg, int timeout_ms);
	/* Take the data complete up to until_ns.  < 0 ends the run. */
	int (*process)(void *arg, uint64_t until_ns);
	/* Make the recording valid up to here (pdwrite_checkpoint()). */
	void (*checkpoint)(void *arg);
	/* Draw the live view again; now_ns is the clock at this round. */
	void (*refresh)(void *arg, uint64_t now_ns);
	/* True to end the run (checked before each wait). */
	bool (*done)(void *arg);
};

/* tool_now_ns - CLOCK_MONOTONIC in ns: the loop's clock. */
uint64_t tool_now_ns(void);
/* tool_sleep_ms - sleep ms (a signal ends it early). */
void tool_sleep_ms(int ms);
/*
 * tool_run - run l until the deadline, a stop (cmdio_stopped(), or the reader of
 * watch_fd left: cmdio_watch()), done(), or a failing callback.  Returns an
 * enum tool_end, or the callback's negative error.  Prints nothing.
 */
int tool_run(const struct tool_loop *l);

/* ---- around the loop ------------------------------------------------------------ */

/*
 * tool_setup_interrupted - during setup: false while no stop was asked
 * for; else prints "<prog>: interrupted before the measurement started;
 * nothing to report" (or "standard output was closed") and returns true:
 * the caller unwinds and exits EXIT_ERR.
 */
bool tool_setup_interrupted(const char *prog);

struct parse_cpuset;
/*
 * tool_cpus - the CPUs of a live run, decided in one place for every
 * command: the CPUs given (-c), each of which must be online, or all online
 * CPUs when none was given.  online (may be NULL) gets the online set.
 * 0, or 2 (EXIT_ERR) after one line on stderr ("<prog>: CPU 5 is not
 * online (online: 0-1)").
 */
int tool_cpus(struct parse_cpuset *cpus, bool given, struct parse_cpuset *online, const char *prog);

/*
 * tool_housekeeping - the CPUs for a live run's collector: hk when given,
 * else every online CPU that is not measured; into *out.
 */
void tool_housekeeping(struct parse_cpuset *out, const struct parse_cpuset *hk, bool given,
		       const struct parse_cpuset *online, const struct parse_cpuset *measured);

/*
 * tool_bpf_stats - whether LATSCOPE_BPF_STATS=1 asks the kernel to count the
 * bpf backends' program runs (bpf_enable_stats: two clock reads a run, a
 * quarter of the programs' time; off by default; the tests' cross-check).
 */
bool tool_bpf_stats(void);

/* ---- the exit status ------------------------------------------------------------- */

/*
 * tool_status - 2 (EXIT_ERR) when the run failed, else 1 (EXIT_THRESHOLD)
 * when a threshold or --strict verdict failed, else 0.
 */
int tool_status(bool failed, bool threshold);
/* tool_status_worst - the worse of two statuses: 2 over 1 over 0. */
int tool_status_worst(int a, int b);
/* tool_end_status - rc, or 2 when the reader of stdout left during the run
 * (cmdio_broken_pipe()). */
int tool_end_status(int rc);

#endif
