/* SPDX-License-Identifier: MIT */
/*
 * osneng.h - the osnoise engine: the per-run state of `latscope osnoise`
 * and the logic shared by its live, replay and kernel-tracer paths.
 *
 * Prefix: osneng_.
 *
 * The engine merges the workload's records (lib/live/oswork.h: period begin/end,
 * gaps) with tracepoint events (lib/format/tpevent.h) per CPU in time order and
 * feeds them to the noise accounting (lib/engine/noise.h); it keeps the per-CPU
 * loop figures, the optional histogram of single gaps, the stop thresholds
 * and a ring of the last trace lines (shown when a stop threshold hits).
 *
 *   live:    osneng_new, osneng_use_workload (or osneng_use_source), optionally
 *            osneng_record, osneng_set_tid per CPU, osneng_start; then
 *            osneng_event for each event in time order and osneng_advance;
 *            at the end osneng_set_end, osneng_event/osneng_advance for what is
 *            left, osneng_close.
 *   replay:  osneng_replay reads a file written through osneng_record.
 *   kernel:  osneng_kernel_text / osneng_kernel_rec feed the kernel osnoise
 *            tracer's text output.
 *
 * The library never prints or exits: trace lines and finished periods go to
 * the caller's struct osneng_sink; errors are negative errno values.  Times are
 * CLOCK_MONOTONIC ns.
 */
#ifndef LATSCOPE_OSNENG_H
#define LATSCOPE_OSNENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/noise.h"
#include "engine/noiseauto.h"
#include "live/oswork.h"
#include "base/parse.h"
#include "format/pdformat.h"

struct pdread;
struct pdwrite;
struct osnkernel_rec;

/* Sample id of the workload event in a recording (no kernel id is that big). */
#define OSNENG_WREC_ID		(1ULL << 62)
/* Trace lines kept for the report of a stop, and their maximum length. */
#define OSNENG_LINE_RING		64
#define OSNENG_LINE_LEN		512

struct osneng_opts {
	struct parse_cpuset cpus;		/* measured CPUs (at least one) */
	uint64_t threshold_us;		/* gaps >= this are noise */
	uint64_t period_us, runtime_us;
	uint64_t stop_us;		/* stop when one gap is above; 0 = off */
	uint64_t stop_total_us;		/* stop when a period's noise is above; 0 = off */
	uint64_t warmup_ns;		/* nothing is counted before start + warm-up */
	bool no_workload;		/* no busy loop: period boundaries every period_us */
	bool softirq_in_threads;	/* PREEMPT_RT: softirqs are thread time (noise.h) */
	bool gap_counters;		/* the workload's gaps carry their attribution (the bpf
					 * backend: oswork_opts.slots); no event is fed */
	bool hist;			/* keep a histogram of single gaps per CPU */
	bool auto_analysis;		/* -a: keep the recent windows (lib/engine/noiseauto.h)
					 * and analyse the gap that hits stop_us */
	bool stop_continue;		/* a gap above stop_us is a hit (osneng_hits) and the run
					 * goes on; the first hit is osneng_stop()'s record */
	uint64_t bucket_us, entries;	/* its bucket width and bucket count (hist) */
};

/* The caller's side; any callback may be NULL.  Pointers are valid during the
 * call only. */
struct osneng_sink {
	void *arg;
	/* A trace line (no newline): a noise window or a gap above the threshold. */
	void (*line)(void *arg, const char *line);
	/* A finished period of cpu. */
	void (*period)(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p);
	/* The kernel tracer lost events on cpu before they were read: n of them,
	 * 0 when the kernel did not say how many. */
	void (*lost)(void *arg, uint32_t cpu, uint64_t n);
	/* A trace_marker line of the kernel tracer (text without newline) at ts_ns. */
	void (*mark)(void *arg, uint32_t cpu, uint64_t ts_ns, const char *text);
};

/* Source of workload records per CPU index (the live path); peek returns
 * false when nothing is queued; stop (may be NULL) asks the workload to end. */
struct osneng_wsrc {
	void *arg;
	bool (*peek)(void *arg, size_t idx, struct oswork_rec *r);
	void (*pop)(void *arg, size_t idx);
	void (*stop)(void *arg);
};

struct osneng_hist {
	uint64_t *b;			/* entries + 1 buckets (the last: over) */
	uint64_t count, min_ns, max_ns, sum_ns;
};

/*
 * osneng_hist_percentile_ns - percentile pct (0..100) of a gap histogram whose
 * buckets are bucket_us wide (entries of them, then the over bucket), by
 * lhist_pct_buckets()'s nearest-rank rule (lib/base/lhist.h), in *out_ns.
 * Returns 0, -ENODATA with no gap, -EINVAL for a bad pct or geometry.
 */
int osneng_hist_percentile_ns(const struct osneng_hist *h, uint64_t bucket_us, uint64_t entries,
			    double pct, uint64_t *out_ns);

/* What the engine knows of one measured CPU (read-only for callers). */
struct osneng_cpu {
	unsigned cpu;
	int32_t tid;			/* the workload thread */
	uint64_t floor_ns;		/* sub-threshold floor of the workload */
	uint64_t min_gap_ns, iters, loop_ns;	/* time-read loop, over the periods */
	struct osneng_hist hist;		/* b is NULL unless opts.hist */
};

enum osneng_stop_why { OSNENG_RUNNING = 0, OSNENG_STOP_SINGLE = 1, OSNENG_STOP_TOTAL = 2 };

struct osneng_stop {
	int why;			/* enum osneng_stop_why */
	unsigned cpu;
	uint64_t value_ns;		/* the gap, or the period's noise */
	uint64_t t_ns;			/* when: the end of that gap or period */
};

struct osneng_times {
	uint64_t start_ns, warm_end_ns, end_ns;	/* end_ns 0 while running live */
	/* kernel tracer: the trace-clock times of the run's window markers
	 * (OSNKERNEL_MARK_START/END), 0 until seen */
	uint64_t kwin_start_ns, kwin_end_ns;
};

/* What a replay read and what it skipped. */
struct osneng_counts {
	uint64_t samples;		/* samples read */
	uint64_t lost;			/* events the recorder lost (LOST, LOST_SAMPLES; kernel
					 * tracer: its [LOST N EVENTS] lines, one at least each) */
	uint64_t unknown_id, bad_samples, out_of_order, forced;	/* from the reader */
	uint64_t duplicates;	/* replay: samples a recorder wrote twice, dropped */
	uint64_t undecoded;		/* tracepoint samples without a payload or whose
					 * payload does not decode */
	uint64_t bad_wrec;		/* malformed workload records (kernel text: lines) */
};

struct osneng;

/*
 * osneng_new - an engine for o->cpus.  opts and sink are copied.  Returns 0, or
 * -EINVAL (no CPU) / -ENOMEM.  The caller frees *ep with osneng_free(), also
 * after a failure when *ep is not NULL.
 */
int osneng_new(struct osneng **ep, const struct osneng_opts *o, const struct osneng_sink *sink);
/* Frees the engine (not the workload, source or writer it uses); NULL is fine. */
void osneng_free(struct osneng *e);

const struct osneng_opts *osneng_opts(const struct osneng *e);
size_t osneng_nr(const struct osneng *e);
/* The measured CPUs in ascending order (borrowed, osneng_nr entries). */
const unsigned *osneng_list(const struct osneng *e);
/* Index of cpu among the measured CPUs, -1 when not measured. */
int osneng_index(const struct osneng *e, unsigned cpu);
/* Per-CPU figures by index (borrowed, valid until osneng_free). */
const struct osneng_cpu *osneng_cpu(const struct osneng *e, size_t idx);
/* The noise accounting (borrowed, valid until osneng_free). */
struct noise *osneng_noise(const struct osneng *e);
const struct osneng_stop *osneng_stop(const struct osneng *e);
bool osneng_stopped(const struct osneng *e);
const struct osneng_times *osneng_times(const struct osneng *e);
const struct osneng_counts *osneng_counts(const struct osneng *e);
/* Gaps above stop_us so far (with stop_continue, every one; else 0 or 1);
 * the last one in *last (may be NULL). */
uint64_t osneng_hits(const struct osneng *e, struct osneng_stop *last);
/* With opts.auto_analysis: the analysis of the last gap above stop_us
 * (borrowed, valid until osneng_free), NULL before the first. */
const struct noiseauto_result *osneng_auto(const struct osneng *e);

/* Workload records from src (copied) or from the running workload w
 * (borrowed: stays the caller's to stop and free, after the engine is done). */
void osneng_use_source(struct osneng *e, const struct osneng_wsrc *src);
void osneng_use_workload(struct osneng *e, struct oswork *w);

/*
 * osneng_record - also write every workload record fed from now on to pw
 * (borrowed; the caller closes it): adds the workload event (after the
 * caller's tracepoint events), the run's parameters (the LATSCOPE_OSNOISE
 * feature, lib/format/pdformat.h, read back by osneng_params_take) and a VERSION
 * string.  Call before pdwrite_begin_data().  Returns 0 or a negative errno from
 * the writer.
 */
int osneng_record(struct osneng *e, struct pdwrite *pw);
/* The parameters as the LATSCOPE_OSNOISE feature holds them. */
void osneng_params_to_osnp(const struct osneng_opts *o, struct pdformat_osnp *p);
/*
 * osneng_params_take - take a recording's parameters from r: its
 * LATSCOPE_OSNOISE feature, or else (a file written before that feature) the
 * VERSION text through osneng_params_apply.  Period, runtime, no_workload; the
 * threshold unless have_T and o->threshold_us is already above it; the CPUs
 * unless have_cpus.  Returns true when the CPUs were taken.
 */
bool osneng_params_take(const struct pdread *r, struct osneng_opts *o, bool have_T, bool have_cpus);
/* The parameters string recordings before the LATSCOPE_OSNOISE feature put in
 * VERSION ("latscope-osnoise threshold_us=..."); kept for tests. */
void osneng_params_format(const struct osneng_opts *o, char *buf, size_t len);
/* The old recordings' parser (the fallback of osneng_params_take): the same
 * parameters from ver, the VERSION text; false when ver is not such text. */
bool osneng_params_apply(const char *ver, struct osneng_opts *o, bool have_T, bool have_cpus);
/* True when r holds osnoise data: the workload event, or the parameters. */
bool osneng_is_recording(struct pdread *r);
/* osneng_has_switches - r has sched:sched_switch samples (it can be replayed
 * in no-workload mode, whoever recorded it: perf record -e sched:*,irq:*). */
bool osneng_has_switches(struct pdread *r);

/* The start of the run at t_ns: the warm-up (and no-workload periods) count
 * from there. */
void osneng_start(struct osneng *e, uint64_t t_ns);
/* The end of the run (no period boundary after it). */
void osneng_set_end(struct osneng *e, uint64_t t_ns);
/* The workload thread of cpu and its floor, known since time_ns (a time
 * before the thread started: the replay learns it before the thread's first
 * event).  Recording, it writes the thread's name (a COMM record) and the
 * workload's TID record at time_ns.  Returns 0 or -EINVAL for a CPU not
 * measured. */
int osneng_set_tid(struct osneng *e, unsigned cpu, int32_t tid, uint64_t floor_ns, uint64_t time_ns);

/* One tracepoint event, in time order per CPU: the workload records before it
 * are fed first.  Always returns 0 (an evsrc_cb). */
int osneng_event(void *engine, const struct tpevent *ev);
/* Everything due up to until_ns (included) after the events read so far;
 * ends a round of the recording. */
void osneng_advance(struct osneng *e, uint64_t until_ns);
/* No-workload: the last, partial period ends at the end of the run. */
void osneng_close(struct osneng *e);
/* Stop the run (a stop threshold): the periods in progress end at t_ns. */
void osneng_set_stop(struct osneng *e, int why, unsigned cpu, uint64_t value_ns, uint64_t t_ns);
/* Ask osneng_replay to stop reading (the caller's output failed). */
void osneng_halt(struct osneng *e);

/* "     osnoise/N-TID [NNN] ..... SSSSS.UUUUUU:" for a trace line of cpu. */
void osneng_trace_prefix(const struct osneng *e, char *buf, size_t len, unsigned cpu, uint64_t t_ns);
/* The last trace lines before a stop, oldest first: up to max pointers
 * (borrowed, valid until the next feed) in out.  Returns their number. */
size_t osneng_recent_lines(const struct osneng *e, const char **out, size_t max);

/*
 * Called by osneng_replay at the first sample (a pipe's or a cut-short file's
 * features are read by then), or at the end when there is none: create the
 * engine in *ep from what r says (the caller owns it).  have_formats tells
 * whether the file's tracepoint formats decode.  Returns 0 or a negative errno.
 */
typedef int (*osneng_setup_fn)(void *arg, struct pdread *r, bool have_formats, struct osneng **ep);

/*
 * osneng_replay - replay a recording: the workload records and the decoded
 * tracepoint events in the file's time order, until its end or a stop.
 * *ep gets the engine setup created (freed by the caller with osneng_free, also
 * on failure).  Returns 0, the negative errno of setup, or of the reader
 * (-EIO...; pdread_strerror(r) says more).
 */
int osneng_replay(struct pdread *r, osneng_setup_fn setup, void *arg, struct osneng **ep);

/* The kernel tracer's text output, in chunks: a partial last line waits in kb
 * for the next chunk (feed "\n" at the end).  kb->bad counts malformed lines. */
struct osneng_kbuf {
	char buf[65536];
	size_t len;
	uint64_t bad;
};
void osneng_kernel_text(struct osneng *e, struct osneng_kbuf *kb, const char *data, size_t n);
/* osneng_kernel_win - the interference window of an osnoise event record
 * (nmi/irq/softirq/thread_noise: its start, net duration, id and name)
 * into *w; false for a record of another kind (*w untouched). */
bool osneng_kernel_win(const struct osnkernel_rec *k, struct noise_win *w);
/* One parsed record of the kernel tracer. */
void osneng_kernel_rec(struct osneng *e, const struct osnkernel_rec *k);

#endif
