/* SPDX-License-Identifier: MIT */
/*
 * histtrig.h - the kernel hist-trigger histogram backend: the wakeup
 * latency histogram kept by the kernel's own hist triggers and a synthetic
 * event (CONFIG_HIST_TRIGGERS, Documentation/trace/histogram.rst), set up
 * through libtracefs, its `hist` file text read into a histogram set
 * (base/hset.h).
 *
 * Prefix: histtrig_.
 *
 * The recipe (libtracefs's tracefs_synth_* builds the synthetic event and
 * the two triggers that feed it; the two histograms on it are written out):
 *
 *   synthetic event HISTTRIG_SYNTH (global: the kernel has one list of
 *   synthetic events, tracefs synthetic_events at the top level):
 *     pid, lat (ns), prio, comm of the task switched in; prev_pid,
 *     prev_prio, prev_comm of the task it replaced (the culprit); ts_ns
 *   in the instance HISTTRIG_INSTANCE (every trigger is there):
 *     sched_waking   hist keyed by pid, a variable = common_timestamp
 *                    [if prio < 100 | if pid == N]
 *     sched_switch   hist keyed by next_pid: lat = common_timestamp - the
 *                    variable, onmatch(sched.sched_waking) -> the synthetic event
 *     synthetic      hist keys=cpu,lat.buckets=BUCKET_NS vals=hitcount,lat
 *                    (per CPU and bucket: count and sum)
 *     synthetic      hist keys=cpu with onmax(lat).save(victim, culprit, ts_ns)
 *   all on clock=mono (CLOCK_MONOTONIC, as the other backends' stamps).
 *
 * So the kernel files, per CPU, every wakeup (sched_waking) of an RT task
 * (or every task with all_tasks, or one pid) to its next switch-in: the
 * wakeup histogram, but per task and without the trackers' priority rules
 * (engine/latency.h keeps one woken task a CPU and drops or splits samples
 * by priority: docs/hist.md "Backends" says what differs).  Only that kind:
 * histtrig_kind_refusal() says why the others cannot be expressed.
 *
 * Every change is saved before it is made (the text that undoes it) and
 * undone newest first by histtrig_stop(), also after a start that failed
 * half-way, and by histtrig_emergency_restore() in a signal handler.
 * histtrig_parse() is pure.  Never prints.
 */
#ifndef LATSCOPE_HISTTRIG_H
#define LATSCOPE_HISTTRIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hset.h"
#include "base/lhist.h"

#define HISTTRIG_INSTANCE "latscope_histtrig"
#define HISTTRIG_SYNTH "latscope_wakeup_lat"
/* The kernel's hist map holds at most 2^17 entries (tracing_map bits 7..17) */
#define HISTTRIG_MAX_ENTRIES 131072u

struct histtrig_cfg {
	uint32_t nr_cpus;		/* CPUs 0..nr_cpus-1, as the set has them */
	struct lhist_cfg hist;		/* lo_ns a multiple of bucket_ns */
	bool all_tasks;			/* every task, not only RT ones (prio < 100) */
	int32_t pid;			/* > 0: only this task */
	const bool *cpu_on;		/* nr_cpus flags (copied): the CPUs whose samples
					 * enter the set; NULL = all */
	uint32_t entries;		/* the bucket hist's size= (a power of two,
					 * 2048..HISTTRIG_MAX_ENTRIES); 0 = from the
					 * CPUs and buckets */
};

struct histtrig_stats {
	uint64_t hits;			/* samples the kernel filed (bucket hist's Totals) */
	uint64_t entries;		/* its entries in use */
	uint64_t dropped;		/* samples the kernel could not file: its map was full */
	uint64_t outside_cpus;		/* samples of CPUs off cpu_on or >= nr_cpus */
	uint64_t bad_lines;		/* lines of the hist text that could not be read */
	bool has_max;			/* the onmax hist was in the text */
};

/*
 * histtrig_kind_refusal - NULL when the backend measures kind k, else why it
 * cannot be expressed with hist triggers (a static sentence).
 */
const char *histtrig_kind_refusal(enum hset_kind k);

/*
 * histtrig_available - 0 when the running kernel has hist triggers and
 * synthetic events (tracefs synthetic_events and the hist trigger in
 * README), else a negative errno (-ENODEV) with the reason in why (at most
 * why_len bytes).
 */
int histtrig_available(char *why, size_t why_len);

struct histtrig;

/*
 * histtrig_start - set the recipe up (see the top of this file): from the
 * last write on, the kernel files samples.  Returns 0 or a negative errno
 * (-ENODEV no hist triggers, -EBUSY the synthetic event exists already:
 * another run, or a leftover of one killed with SIGKILL, -EINVAL a geometry
 * the kernel's buckets cannot give: lo_ns not a multiple of bucket_ns);
 * *out is set either way unless -ENOMEM (free it with histtrig_free(),
 * which undoes what a failed start did); histtrig_strerror() names the step.
 * One run at a time per process.
 */
int histtrig_start(struct histtrig **out, const struct histtrig_cfg *cfg);

/* The CLOCK_MONOTONIC instants around the write that turned the recipe on
 * (on_lo..on_hi) and the one that paused it (off_lo..off_hi; 0 before
 * histtrig_pause()): the kernel's window starts in the first and ends in the
 * second. */
struct histtrig_window {
	uint64_t on_lo_ns, on_hi_ns, off_lo_ns, off_hi_ns;
};
/*
 * histtrig_clear - clear both hists (every bucket and the worst case; the
 * monitor's SIGHUP) while they run: the kernel's "clear" on the bucket hist;
 * the max hist (which refuses "clear": its variable) removed and set again.
 * 0 or a negative errno (histtrig_strerror() says which write failed).
 */
int histtrig_clear(struct histtrig *h);

void histtrig_window(const struct histtrig *h, struct histtrig_window *w);

/*
 * histtrig_read - the kernel's histograms so far into set (reset first; its
 * geometry must be cfg.hist, its CPUs at least cfg.nr_cpus) and st (may be
 * NULL).  While the recipe runs the two hists are read one after the other
 * (a sample may be in one and not yet the other).  Returns 0, -EINVAL for a
 * set of another geometry, or the read's errno.
 */
int histtrig_read(struct histtrig *h, struct hset *set, struct histtrig_stats *st);

/* histtrig_pause - the end of the window: remove the trigger that makes the
 * samples (the newest change; the kernel cannot pause a trigger with
 * variables), so that a last histtrig_read() sees one consistent set.  0 or
 * a negative errno (-EINVAL when not started, already paused or stopped). */
int histtrig_pause(struct histtrig *h);

/* histtrig_stop - undo every change, newest first; 0 or the first negative
 * errno of an undo that did not take (named by histtrig_strerror(); the
 * others are still tried).  A second call does nothing. */
int histtrig_stop(struct histtrig *h);

/* histtrig_free - histtrig_stop() unless done, then free h (NULL is fine). */
void histtrig_free(struct histtrig *h);

/*
 * histtrig_emergency_restore - the undo of histtrig_stop() for a signal
 * handler that ends the process (cmdio_on_abort_call): async-signal-safe
 * (open, write, close, rmdir of texts saved at start), at any point of a
 * start or a stop; nothing is freed and nothing may use h afterwards.
 */
void histtrig_emergency_restore(void);

/* The last error's sentence (owned by h; "out of memory" for NULL). */
const char *histtrig_strerror(const struct histtrig *h);

/*
 * histtrig_parse - pure: the text of the synthetic event's `hist` file
 * (every hist on it, one after the other, as the kernel prints them) into
 * set (reset first) and st (may be NULL): the bucket hist gives each CPU's
 * counts (below/above the geometry counted apart), sum and a minimum at
 * bucket resolution (exact when the lowest bucket holds one sample), the
 * onmax hist the exact maximum and its victim/culprit (HSET_WAKEUP).  Lines
 * it cannot read (truncated, numbers out of range, a bucket of another
 * width) are counted in st->bad_lines and skipped.  cfg gives the CPUs and
 * geometry (nr_cpus, hist, cpu_on).  Returns 0, -EINVAL for a set of
 * another geometry, -ENOMEM.
 */
int histtrig_parse(const char *text, const struct histtrig_cfg *cfg, struct hset *set,
		   struct histtrig_stats *st);

#endif
