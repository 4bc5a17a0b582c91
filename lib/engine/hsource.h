/* SPDX-License-Identifier: MIT */
/*
 * hsource.h - the live histogram source: the one interface `hist record|top`
 * drives, whichever backend keeps the histograms.  A backend is a const
 * struct hsource_ops (function pointers) and the opaque state its open
 * makes; hsource_open() pairs them in a struct hsource.
 *
 * Prefix: hsource_.
 *
 * The backends, thin adapters over the modules that do the work:
 *   hsource_perf    tracepoints through perf rings (live/evsrc.h) decoded and
 *                   fed to the userspace trackers (engine/latency.h)
 *   hsource_bpf     BPF programs keep the histograms (live/bpfhist.h)
 *   hsource_kernel  the kernel's hist triggers keep them (live/histtrig.h)
 *
 * A run:
 *	if (ops->emergency_restore) cmdio_on_abort_call(ops->emergency_restore);
 *	hsource_open(&src, ops, &cfg, &why);      // the backend runs, or why.reason
 *	hsource_start(src, &why);                 // the window opens (perf: rings enabled)
 *	loop: poll(hsource_pollfds(src, ...)), hsource_drain(src, until_ns, &why);
 *	      top: hsource_sync(src, &why), then read hsource_set(src)
 *	hsource_finish(src, &why);                // window closed, last counts in the set
 *	hsource_stats(src, &st); ... print hsource_set(src) ...
 *	hsource_close(src, &why);                 // also on every error path
 *
 * Every call that can fail returns 0 or a negative errno and words the
 * failure in a struct hsource_why for the command to print; nothing here
 * prints or exits.  hsource_feed is the userspace engine fed event by event,
 * shared by the perf backend and `hist report` (a perf.data file).
 */
#ifndef LATSCOPE_HSOURCE_H
#define LATSCOPE_HSOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hset.h"
#include "base/parse.h"
#include "engine/latency.h"
#include "format/tpevent.h"
#include "live/bpfhist.h"
#include "live/evsrc.h"
#include "live/histtrig.h"

/*
 * struct hsource_why - what a call has to say: reason, why it failed (open:
 * why the backend cannot run here); note, a line to show whether it failed
 * or not (bpf: it runs without the timer kinds; kernel: a change of the
 * kernel's that could not be undone).  "" when none; the command prints each
 * as "<prog>: <text>".  Reset by every call.
 */
struct hsource_why {
	char reason[512];
	char note[512];
};

/* What the source is asked to measure (hsource_open copies what it keeps). */
struct tasklat;

struct hsource_cfg {
	uint32_t nr_cpus;			/* the set's CPUs 0..nr_cpus-1 (1..HSET_MAX_CPUS;
						 * clamped) */
	const struct parse_cpuset *cpus;	/* the traced CPUs */
	struct latency_cfg lcfg;		/* geometry, task filter, table sizes (the source
						 * sets nr_cpus and start_on_waking itself) */
	/* perf only */
	const char *const *events;		/* evsrc_open()'s names, used during the open */
	size_t nr_events;
	size_t ring_bytes;			/* per CPU, 0 = evsrc's default */
	bool track_tasks;			/* the rings also name tasks (for a recording) */
	/* every event read, before the trackers see it (NULL: none); and every
	 * sample the trackers file (latency_set_observer; NULL: none) */
	int (*tap)(void *arg, const struct tpevent *ev);
	void *tap_arg;
	latency_sample_fn observer;
	void *observer_arg;
	struct tasklat *tasks;			/* non-NULL: every wakeup sample also filed per
						 * task (engine/tasklat.h; the caller's, it
						 * outlives the source) */
	/* bpf only */
	bool irqsoff;				/* also the preemptirq programs (--irqsoff), where
						 * the kernel has the tracepoints */
	bool run_stats;				/* the kernel counts the programs' runs
						 * (bpfhist_cfg.run_stats) */
};

/* bpf: the local timer interrupts of one traced CPU (bpfhist_local_timer),
 * in the backend's input_json and text. */
struct hsource_ltimer {
	uint32_t cpu;
	uint64_t entries, loc_delta;
};
#define HSOURCE_MAX_LTIMERS 256

/*
 * struct hsource_stats - what the source saw so far (after hsource_finish:
 * over the whole window).  The pointers point into the source (valid until
 * hsource_close); those of another backend are NULL.
 */
struct hsource_stats {
	uint64_t seen;		/* perf: events decoded and fed; bpf: program runs; kernel:
				 * samples filed */
	uint64_t lost;		/* perf: events the kernel dropped from the rings, and those
				 * it fired and never delivered (evsrc_count); bpf: runs
				 * its recursion guard skipped; kernel: samples a full map
				 * dropped */
	const struct latency_stats *track;	/* the trackers' counters: the engine's (perf),
						 * the programs' as the engine names them
						 * (bpf), all zero (kernel: no trackers) */
	bool any_cpu;		/* max_cpu is known */
	uint32_t max_cpu;	/* the highest CPU an event was fed for (perf); nr_cpus - 1 */
	bool any_event;		/* perf: an event was fed, first_ns/last_ns are its times */
	uint64_t first_ns, last_ns;
	const struct evsrc_stats *ring;		/* perf: the rings' counters */
	const struct evsrc *evs;		/* perf: the source (evsrc_fired_table) */
	bool kernel_time_known;	/* kernel_time_ns: the time the kernel spent running the
				 * backend's programs in the traced tasks' context (bpf,
				 * where the kernel counts it) */
	uint64_t kernel_time_ns;
	uint64_t dropped;	/* what the backend's own counts say it lost, beyond the
				 * rings' (bpf: runs skipped by the recursion guard;
				 * kernel: samples a full map dropped, unreadable lines) */
};

/*
 * struct hsource_need - what a command line asks of a backend beyond the
 * histograms (hsource_conflict): in-kernel backends refuse what needs the
 * events in userspace.
 */
struct hsource_need {
	bool record;		/* -o: the events written to a recording */
	bool irqsoff;		/* --irqsoff: the irqsoff/preemptoff kinds */
	bool keep_busy;		/* --keep-busy: the spinners against the idle-drop quirk */
	bool per_task;		/* --per-task: latency per task */
	const bool *kinds;	/* [HSET_NR_KINDS] the kinds asked for by name (--types), NULL: any */
};

/* What the trackers' counters of a backend hold (the JSON's "stats", the
 * text's "tracking:" line). */
enum hsource_tracking {
	HSOURCE_TRACK_ALL,	/* the userspace trackers: every counter */
	HSOURCE_TRACK_NO_TABLES,	/* no per-event, CPU-range, table-eviction or memory
					 * counters (bpf: LRU maps) */
	HSOURCE_TRACK_NONE,	/* no trackers (kernel: every wakeup filed, no priority rules) */
};

/* hsource_line_fn - one line of a backend's text (no newline). */
typedef void (*hsource_line_fn)(void *arg, const char *line);

struct pdwrite;
struct pollfd;
struct json_object;

/*
 * struct hsource_ops - one backend.  state is what open made; every op but
 * open takes it.  start, pollfds, drain, sync and record may be NULL: nothing
 * to do (record: cannot record).
 */
struct hsource_ops {
	const char *name;	/* "perf", "bpf", "kernel": --backend's word, JSON's input.backend */
	const char *title;	/* "kernel backend (hist triggers)": in messages */
	const char *auto_name;	/* in --backend auto's line: "bpf", "kernel hist triggers" */
	const char *auto_note;	/* said when auto picks it: what keeps the histograms (NULL) */
	const char *disable_env;	/* an environment variable that refuses it when set and
					 * not "0" (LATSCOPE_NO_BPF), NULL */
	/* every event comes up to userspace (perf): the tap, the observer, the
	 * per-task table, recording, keep-busy and the fired-against-delivered
	 * counts work; the other backends keep their counts in the kernel and
	 * are read by sync */
	bool events_in_userspace;
	enum hsource_tracking tracking;
	const char *no_irqsoff;	/* why it has no irqsoff/preemptoff kinds ("has no ..."), NULL */
	/* why it cannot measure kind k ("has no ..."), NULL when it can; NULL: all */
	const char *(*kind_refusal)(enum hset_kind k);
	/* the async-signal-safe undo of the kernel changes that outlive the
	 * process (for cmdio_on_abort_call, before open); NULL: none */
	void (*emergency_restore)(void);
	/* set up (bpf, kernel: and running from here): 0 and *state, or a
	 * negative errno with nothing left behind */
	int (*open)(void **state, const struct hsource_cfg *cfg, struct hsource_why *why);
	int (*start)(void *state, struct hsource_why *why);		/* the window opens */
	size_t (*pollfds)(void *state, struct pollfd **fds);		/* owned by state */
	int (*drain)(void *state, uint64_t until_ns, struct hsource_why *why);	/* ready data into the set */
	int (*sync)(void *state, struct hsource_why *why);		/* the kernel's counts into the set */
	int (*reset)(void *state, struct hsource_why *why);		/* every histogram and worst
									 * case from zero again */
	int (*finish)(void *state, struct hsource_why *why);		/* window closed, last counts */
	const struct hset *(*set)(void *state);
	void (*kinds)(void *state, bool has[TPEVENT_NR_KINDS]);
	void (*stats)(void *state, struct hsource_stats *st);
	void (*describe)(void *state, char *buf, size_t len);
	int (*record)(void *state, struct pdwrite *pw, bool *write_err);
	/* its own counts, added to the JSON document's input block (NULL: none) */
	void (*input_json)(void *state, struct json_object *in);
	/* its own counts as text lines, in place of the events line (NULL: none) */
	void (*text)(void *state, hsource_line_fn line, void *arg);
	/* its losses of stats.dropped in words, ", "-joinable, into buf; "" if none */
	void (*loss_text)(void *state, char *buf, size_t len);
	void (*close)(void *state, struct hsource_why *why);
};

extern const struct hsource_ops hsource_perf, hsource_bpf, hsource_kernel;

/*
 * hsource_backends - every backend, in the order --backend auto tries them
 * (the last, perf, refuses nothing); NULL-terminated.  A new backend is a
 * file of lib/engine/hsource/ and an entry here.
 */
extern const struct hsource_ops *const hsource_backends[];
/* hsource_backend - the backend named name, NULL when none is. */
const struct hsource_ops *hsource_backend(const char *name);
/*
 * hsource_conflict - why backend ops cannot serve need ("cannot record the
 * events (-o): they never leave the kernel"), NULL when it can.  The text
 * is a static string, or in buf (len bytes).
 */
const char *hsource_conflict(const struct hsource_ops *ops, const struct hsource_need *need, char *buf,
			     size_t len);
/*
 * hsource_refusal - why --backend auto must not try ops here, in buf ("refused:
 * LATSCOPE_NO_BPF=1", "not usable: it cannot ..."), NULL when it may.
 */
const char *hsource_refusal(const struct hsource_ops *ops, const struct hsource_need *need, char *buf,
			    size_t len);
/* hsource_kind_refusal - why ops cannot measure kind k, NULL when it can. */
const char *hsource_kind_refusal(const struct hsource_ops *ops, enum hset_kind k);

struct hsource;

/*
 * hsource_open - open backend ops with cfg: 0 and *out (the caller frees it
 * with hsource_close()), or a negative errno with why->reason (may be "": a
 * failure already said, or none to say) and nothing left open.  why->note
 * may be set either way.  perf: the rings opened disabled, the decoder and
 * the engine made; bpf: the programs loaded and attached (counting from
 * here); kernel: the hist triggers set up (filing from here).
 */
int hsource_open(struct hsource **out, const struct hsource_ops *ops, const struct hsource_cfg *cfg,
		 struct hsource_why *why);
/* hsource_ops_of - the backend src runs. */
const struct hsource_ops *hsource_ops_of(const struct hsource *src);
/* hsource_start - the window opens (perf: the rings enabled).  0 or a
 * negative errno (why->reason). */
int hsource_start(struct hsource *src, struct hsource_why *why);
/* hsource_pollfds - the descriptors that become readable when there is data
 * to drain, *fds owned by src (its own poll() may write their revents);
 * returns their number, 0 when the kernel keeps everything (bpf, kernel). */
size_t hsource_pollfds(struct hsource *src, struct pollfd **fds);
/* hsource_drain - what is ready up to until_ns into the set (perf: the
 * rings' events, in time order, through the trackers).  0 or a negative
 * errno (why->reason). */
int hsource_drain(struct hsource *src, uint64_t until_ns, struct hsource_why *why);
/* hsource_sync - the set brought up to the kernel's counts while the
 * window is open (bpf: the maps read; kernel: the hist text parsed).  0 or
 * a negative errno (why->reason). */
int hsource_sync(struct hsource *src, struct hsource_why *why);
/*
 * hsource_reset - every histogram and worst case starts again from zero
 * while the window stays open (latency_hist's `reset`; the monitor's
 * SIGHUP): perf, the set cleared; bpf, the maps; kernel, the kernel's
 * "clear" on its hists; then the set is synced.  The counters of
 * hsource_stats keep counting.  0, -EOPNOTSUPP, or a negative errno
 * (why->reason).
 */
int hsource_reset(struct hsource *src, struct hsource_why *why);
/*
 * hsource_finish - the window closed and the last counts in the set (perf:
 * rings disabled and read to the end; bpf: programs detached, maps read,
 * unloaded; kernel: paused, read, every change undone); the set and stats
 * stay for printing.  0 or a negative errno (why->reason; why->note: a
 * change that could not be undone).
 */
int hsource_finish(struct hsource *src, struct hsource_why *why);
/* hsource_set - the histograms (owned by src, valid until hsource_close). */
const struct hset *hsource_set(const struct hsource *src);
/* hsource_kinds - marks in has[] (the caller's; others left as they are)
 * the events the source measures, as latency_type_supported() reads them. */
void hsource_kinds(const struct hsource *src, bool has[TPEVENT_NR_KINDS]);
/* hsource_stats - the counts so far into *st (the caller's). */
void hsource_stats(const struct hsource *src, struct hsource_stats *st);
/* hsource_describe - one line of what the source saw so far, for a live
 * view ("N events, N lost"; "bpf backend, N program runs"...), into buf (at
 * most len bytes, NUL-terminated). */
void hsource_describe(const struct hsource *src, char *buf, size_t len);
/*
 * hsource_record - declare the source's events in the recording pw (before
 * pdwrite_begin_data) and write every record it reads into it from then on;
 * a failed write sets *write_err.  pw stays the caller's and must outlive
 * the reads.  0, -EOPNOTSUPP for a backend that cannot record (no ops->record),
 * or a negative errno.
 */
int hsource_record(struct hsource *src, struct pdwrite *pw, bool *write_err);
/*
 * hsource_close - free src and everything it holds, undoing what is left
 * in the kernel (a run that failed or was interrupted before
 * hsource_finish); why->note says what could not be undone.  NULL is fine.
 */
void hsource_close(struct hsource *src, struct hsource_why *why);
/* hsource_input_json - the backend's own counts into the document's input
 * object in (the caller's); nothing for a backend without. */
void hsource_input_json(const struct hsource *src, struct json_object *in);
/* hsource_text - the backend's own counts, line by line to line(arg, ...);
 * false (nothing called) for a backend without: the command's events line. */
bool hsource_text(const struct hsource *src, hsource_line_fn line, void *arg);
/* hsource_loss_text - what the backend lost (stats.dropped) in words into
 * buf, "" when nothing or a backend that does not say. */
void hsource_loss_text(const struct hsource *src, char *buf, size_t len);

/* ---- the userspace engine fed event by event (perf backend, hist report) ---- */

struct hsource_feed {
	struct latency *lat;		/* the engine (hsource_feed_free frees it unless taken) */
	uint64_t fed;			/* events fed */
	bool any_event;			/* first_ns/last_ns: the times of the first and last */
	uint64_t first_ns, last_ns;
	bool any_cpu;			/* max_cpu: the highest CPU the engine took an event of */
	uint32_t max_cpu;
};

/*
 * hsource_feed_init - an engine for nr_cpus CPUs (clamped to
 * 1..HSET_MAX_CPUS) with cfg (copied; nr_cpus and start_on_waking set from
 * has[], the kinds the stream carries) into *f.  0 or a negative errno with
 * why->reason ("cannot set up the histograms: ...").
 */
int hsource_feed_init(struct hsource_feed *f, const struct latency_cfg *cfg, uint32_t nr_cpus,
		      const bool has[TPEVENT_NR_KINDS], struct hsource_why *why);
/* hsource_feed_event - one decoded event, in time order, to the engine. */
void hsource_feed_event(struct hsource_feed *f, const struct tpevent *ev);
/* hsource_feed_stats - what f was fed into *st (the caller's): seen, track,
 * any_cpu/max_cpu, any_event/first_ns/last_ns; the rest left as it is.
 * track points into f->lat. */
void hsource_feed_stats(const struct hsource_feed *f, struct hsource_stats *st);
/* hsource_feed_free - free the engine (f->lat NULL: taken or none). */
void hsource_feed_free(struct hsource_feed *f);

#endif
