/* SPDX-License-Identifier: MIT */
/*
 * osneng.h - the osnoise engine: the per-run state of `latscope osnoise`
 * and the logic shared by its live, replay and kernel-tracer paths.
 *
 * Prefix: osne_.
 *
 * The engine merges the workload's records (lib/oswork.h: period begin/end,
 * gaps) with tracepoint events (lib/tpevent.h) per CPU in time order and
 * feeds them to the noise accounting (lib/noise.h); it keeps the per-CPU
 * loop figures, the optional histogram of single gaps, the stop thresholds
 * and a ring of the last trace lines (shown when a stop threshold hits).
 *
 *   live:    osne_new, osne_use_workload (or osne_use_source), optionally
 *            osne_record, osne_set_tid per CPU, osne_start; then
 *            osne_event for each event in time order and osne_advance;
 *            at the end osne_set_end, osne_event/osne_advance for what is
 *            left, osne_close.
 *   replay:  osne_replay reads a file written through osne_record.
 *   kernel:  osne_kernel_text / osne_kernel_rec feed the kernel osnoise
 *            tracer's text output.
 *
 * The library never prints or exits: trace lines and finished periods go to
 * the caller's struct osne_sink; errors are negative errno values.  Times are
 * CLOCK_MONOTONIC ns.
 */
#ifndef LATSCOPE_OSNENG_H
#define LATSCOPE_OSNENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "oswork.h"
#include "parse.h"
#include "pdformat.h"

struct pdr;
struct pdw;
struct okt_rec;

/* Sample id of the workload event in a recording (no kernel id is that big). */
#define OSNE_WREC_ID		(1ULL << 62)
/* Trace lines kept for the report of a stop, and their maximum length. */
#define OSNE_LINE_RING		64
#define OSNE_LINE_LEN		512

struct osne_opts {
	struct ps_cpuset cpus;		/* measured CPUs (at least one) */
	uint64_t threshold_us;		/* gaps >= this are noise */
	uint64_t period_us, runtime_us;
	uint64_t stop_us;		/* stop when one gap is above; 0 = off */
	uint64_t stop_total_us;		/* stop when a period's noise is above; 0 = off */
	uint64_t warmup_ns;		/* nothing is counted before start + warm-up */
	bool no_workload;		/* no busy loop: period boundaries every period_us */
	bool hist;			/* keep a histogram of single gaps per CPU */
	uint64_t bucket_us, entries;	/* its bucket width and bucket count (hist) */
};

/* The caller's side; any callback may be NULL.  Pointers are valid during the
 * call only. */
struct osne_sink {
	void *arg;
	/* A trace line (no newline): a noise window or a gap above the threshold. */
	void (*line)(void *arg, const char *line);
	/* A finished period of cpu. */
	void (*period)(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p);
};

/* Source of workload records per CPU index (the live path); peek returns
 * false when nothing is queued; stop (may be NULL) asks the workload to end. */
struct osne_wsrc {
	void *arg;
	bool (*peek)(void *arg, size_t idx, struct osw_rec *r);
	void (*pop)(void *arg, size_t idx);
	void (*stop)(void *arg);
};

struct osne_hist {
	uint64_t *b;			/* entries + 1 buckets (the last: over) */
	uint64_t count, min_ns, max_ns, sum_ns;
};

/*
 * osne_hist_percentile_ns - percentile pct (0..100) of a gap histogram whose
 * buckets are bucket_us wide (entries of them, then the over bucket), by
 * lhist_pct_buckets()'s nearest-rank rule (lib/lhist.h), in *out_ns.
 * Returns 0, -ENODATA with no gap, -EINVAL for a bad pct or geometry.
 */
int osne_hist_percentile_ns(const struct osne_hist *h, uint64_t bucket_us, uint64_t entries,
			    double pct, uint64_t *out_ns);

/* What the engine knows of one measured CPU (read-only for callers). */
struct osne_cpu {
	unsigned cpu;
	int32_t tid;			/* the workload thread */
	uint64_t floor_ns;		/* sub-threshold floor of the workload */
	uint64_t min_gap_ns, iters, loop_ns;	/* time-read loop, over the periods */
	struct osne_hist hist;		/* b is NULL unless opts.hist */
};

enum osne_stop_why { OSNE_RUNNING = 0, OSNE_STOP_SINGLE = 1, OSNE_STOP_TOTAL = 2 };

struct osne_stop {
	int why;			/* enum osne_stop_why */
	unsigned cpu;
	uint64_t value_ns;		/* the gap, or the period's noise */
	uint64_t t_ns;			/* when: the end of that gap or period */
};

struct osne_times {
	uint64_t start_ns, warm_end_ns, end_ns;	/* end_ns 0 while running live */
};

/* What a replay read and what it skipped. */
struct osne_counts {
	uint64_t samples;		/* samples read */
	uint64_t lost;			/* events the recorder lost (LOST, LOST_SAMPLES) */
	uint64_t unknown_id, bad_samples, out_of_order, forced;	/* from the reader */
	uint64_t undecoded;		/* tracepoint samples without a payload or whose
					 * payload does not decode */
	uint64_t bad_wrec;		/* malformed workload records (kernel text: lines) */
};

struct osne;

/*
 * osne_new - an engine for o->cpus.  opts and sink are copied.  Returns 0, or
 * -EINVAL (no CPU) / -ENOMEM.  The caller frees *ep with osne_free(), also
 * after a failure when *ep is not NULL.
 */
int osne_new(struct osne **ep, const struct osne_opts *o, const struct osne_sink *sink);
/* Frees the engine (not the workload, source or writer it uses); NULL is fine. */
void osne_free(struct osne *e);

const struct osne_opts *osne_opts(const struct osne *e);
size_t osne_nr(const struct osne *e);
/* The measured CPUs in ascending order (borrowed, osne_nr entries). */
const unsigned *osne_list(const struct osne *e);
/* Index of cpu among the measured CPUs, -1 when not measured. */
int osne_index(const struct osne *e, unsigned cpu);
/* Per-CPU figures by index (borrowed, valid until osne_free). */
const struct osne_cpu *osne_cpu(const struct osne *e, size_t idx);
/* The noise accounting (borrowed, valid until osne_free). */
struct noise *osne_noise(const struct osne *e);
const struct osne_stop *osne_stop(const struct osne *e);
bool osne_stopped(const struct osne *e);
const struct osne_times *osne_times(const struct osne *e);
const struct osne_counts *osne_counts(const struct osne *e);

/* Workload records from src (copied) or from the running workload w
 * (borrowed: stays the caller's to stop and free, after the engine is done). */
void osne_use_source(struct osne *e, const struct osne_wsrc *src);
void osne_use_workload(struct osne *e, struct osw *w);

/*
 * osne_record - also write every workload record fed from now on to pw
 * (borrowed; the caller closes it): adds the workload event (after the
 * caller's tracepoint events), the run's parameters (the LATSCOPE_OSNOISE
 * feature, lib/pdformat.h, read back by osne_params_take) and a VERSION
 * string.  Call before pdw_begin_data().  Returns 0 or a negative errno from
 * the writer.
 */
int osne_record(struct osne *e, struct pdw *pw);
/* The parameters as the LATSCOPE_OSNOISE feature holds them. */
void osne_params_to_osnp(const struct osne_opts *o, struct pdf_osnp *p);
/*
 * osne_params_take - take a recording's parameters from r: its
 * LATSCOPE_OSNOISE feature, or else (a file written before that feature) the
 * VERSION text through osne_params_apply.  Period, runtime, no_workload; the
 * threshold unless have_T and o->threshold_us is already above it; the CPUs
 * unless have_cpus.  Returns true when the CPUs were taken.
 */
bool osne_params_take(const struct pdr *r, struct osne_opts *o, bool have_T, bool have_cpus);
/* The parameters string recordings before the LATSCOPE_OSNOISE feature put in
 * VERSION ("latscope-osnoise threshold_us=..."); kept for tests. */
void osne_params_format(const struct osne_opts *o, char *buf, size_t len);
/* The old recordings' parser (the fallback of osne_params_take): the same
 * parameters from ver, the VERSION text; false when ver is not such text. */
bool osne_params_apply(const char *ver, struct osne_opts *o, bool have_T, bool have_cpus);
/* True when r holds osnoise data: the workload event, or the parameters. */
bool osne_is_recording(struct pdr *r);

/* The start of the run at t_ns: the warm-up (and no-workload periods) count
 * from there. */
void osne_start(struct osne *e, uint64_t t_ns);
/* The end of the run (no period boundary after it). */
void osne_set_end(struct osne *e, uint64_t t_ns);
/* The workload thread of cpu and its floor (recorded when recording).
 * Returns 0 or -EINVAL for a CPU not measured. */
int osne_set_tid(struct osne *e, unsigned cpu, int32_t tid, uint64_t floor_ns);

/* One tracepoint event, in time order per CPU: the workload records before it
 * are fed first.  Always returns 0 (an evs_cb). */
int osne_event(void *engine, const struct tpe *ev);
/* Everything due up to until_ns (included) after the events read so far;
 * ends a round of the recording. */
void osne_advance(struct osne *e, uint64_t until_ns);
/* No-workload: the last, partial period ends at the end of the run. */
void osne_close(struct osne *e);
/* Stop the run (a stop threshold): the periods in progress end at t_ns. */
void osne_set_stop(struct osne *e, int why, unsigned cpu, uint64_t value_ns, uint64_t t_ns);
/* Ask osne_replay to stop reading (the caller's output failed). */
void osne_halt(struct osne *e);

/* "     osnoise/N-TID [NNN] ..... SSSSS.UUUUUU:" for a trace line of cpu. */
void osne_trace_prefix(const struct osne *e, char *buf, size_t len, unsigned cpu, uint64_t t_ns);
/* The last trace lines before a stop, oldest first: up to max pointers
 * (borrowed, valid until the next feed) in out.  Returns their number. */
size_t osne_recent_lines(const struct osne *e, const char **out, size_t max);

/*
 * Called by osne_replay at the first sample (a pipe's or a cut-short file's
 * features are read by then), or at the end when there is none: create the
 * engine in *ep from what r says (the caller owns it).  have_formats tells
 * whether the file's tracepoint formats decode.  Returns 0 or a negative errno.
 */
typedef int (*osne_setup_fn)(void *arg, struct pdr *r, bool have_formats, struct osne **ep);

/*
 * osne_replay - replay a recording: the workload records and the decoded
 * tracepoint events in the file's time order, until its end or a stop.
 * *ep gets the engine setup created (freed by the caller with osne_free, also
 * on failure).  Returns 0, the negative errno of setup, or of the reader
 * (-EIO...; pdr_strerror(r) says more).
 */
int osne_replay(struct pdr *r, osne_setup_fn setup, void *arg, struct osne **ep);

/* The kernel tracer's text output, in chunks: a partial last line waits in kb
 * for the next chunk (feed "\n" at the end).  kb->bad counts malformed lines. */
struct osne_kbuf {
	char buf[65536];
	size_t len;
	uint64_t bad;
};
void osne_kernel_text(struct osne *e, struct osne_kbuf *kb, const char *data, size_t n);
/* One parsed record of the kernel tracer. */
void osne_kernel_rec(struct osne *e, const struct okt_rec *k);

#endif
