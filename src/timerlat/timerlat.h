/* SPDX-License-Identifier: MIT */
/*
 * timerlat.h - `latscope timerlat top|hist|trace`: the kernel's timerlat
 * tracer (a per-CPU timer whose IRQ and thread latency it records each
 * period) driven in a tracefs instance of latscope's own
 * (lib/live/osnkernel.h), its records kept per CPU and context by
 * lib/engine/tlat.h, and the report: one latscope.timerlat/1 document
 * (doc.c) that the text (text.c), --json, --html and --render are drawn
 * from.  The state is split by what it is for: the command line (tl_opts,
 * tl_out), the run (tl_run).
 */
#ifndef LATSCOPE_SRC_TIMERLAT_H
#define LATSCOPE_SRC_TIMERLAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "action.h"
#include "cli.h"
#include "engine/tlat.h"
#include "live/osnkernel.h"
#include "progress.h"

#define NS_PER_S	((uint64_t)1000000000)

struct json_object;
struct safeout_file;
struct tlatbpf;
struct tlatauto;

enum tl_mode { TL_TOP, TL_HIST, TL_TRACE };
enum tl_backend { TL_TRACE_BACKEND, TL_BPF, TL_AUTO };

/* What the command line asked for the measurement. */
struct tl_opts {
	struct parse_cpuset cpus, hk;
	bool have_cpus, have_hk;
	uint64_t duration_ns, warmup_ns;
	uint64_t period_us;
	uint64_t irq_us, thread_us;	/* stop thresholds; 0 = none */
	uint64_t stack_us;		/* print_stack; 0 = none */
	uint64_t auto_us;		/* -a: the automatic analysis at this threshold; 0 = off */
	bool kthreads, uthreads;	/* -k, -u */
	struct cli_prio prio;
	bool have_prio;
	int64_t dma_latency_us;		/* -1: leave alone */
	int64_t deepest_idle;		/* --deepest-idle-state; -2: leave alone */
	uint64_t buffer_bytes;		/* --trace-buffer-size; 0 = the kernel's */
	const char *parse_kernel;	/* a saved trace to read instead */
	enum tl_backend backend;
	bool backend_given;
	bool strict, force;
	bool trace;			/* -t: keep the trace's text */
	const char *trace_file;
	struct action_list on_thr, on_end;
	char act_err[512];
	/* -e SYS[:NAME] (repeatable), each with its --filter and --trigger */
#define TL_EVENTS 16
	struct osnkernel_event events[TL_EVENTS];
	char event_names[TL_EVENTS][128];
	size_t nr_events;
	bool cgroup;			/* -C: the timerlat threads into a cgroup */
	const char *cgroup_name;	/* -C's NAME; NULL = latscope's own */
};

/* How the report is shown. */
struct tl_out {
	bool json;
	const char *json_file;
	struct cli_renders renders;
	int progress;			/* PROGRESS_AUTO, 0, 1 */
	bool quiet;
	uint64_t bucket_us, entries;
	bool no_irq, no_thread, with_zeros, no_header, no_summary;
};

/* The window's records and what was lost, as read. */
struct tl_input {
	uint64_t records;		/* timerlat records counted */
	uint64_t outside;		/* records before the window opened or after it closed */
	uint64_t lost_lines;		/* the trace's "[LOST N EVENTS]" (N summed) */
	uint64_t overrun;		/* the instance's per_cpu stats at the end */
	uint64_t malformed;		/* lines of the tracer's that did not parse */
	bool kernel_stop;		/* the kernel said "stop tracing hit" */
	uint32_t kernel_stop_cpu;
};

/* The stack the kernel printed last (print_stack, -s), with its CPU. */
#define TL_STACK_FRAMES 48
struct tl_stack {
	bool set, open;			/* open: frames are still coming */
	uint32_t cpu;
	uint64_t ts_ns;
	uint32_t nr;
	char frames[TL_STACK_FRAMES][96];
};

/* The run. */
struct tl_run {
	struct tlat t;
	struct parse_cpuset cpus;
	const char *ran;		/* "trace" (live) or "parse-kernel" */
	bool live;
	bool counting;			/* inside the window (always for a saved trace) */
	bool opened;			/* the window's mark was read (counting began once) */
	/* the newest sample at or above its threshold read before the window
	 * opened: the ring is on a moment before the start mark is written,
	 * and a sample recorded then can stop the kernel just after it (the
	 * thread dumps its stack between the two); it is the stop when the
	 * kernel stopped and the window showed none (pre_stop_used) */
	struct tlat_stop pre_stop;
	bool pre_stop_used;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC of the window */
	struct tl_input in;
	struct tl_stack stack;
	char line[4096];		/* a line being assembled across reads */
	size_t line_len;
	FILE *trace_f;			/* -t */
	struct safeout_file *trace_sf;
	struct progress status;
	uint64_t acted;			/* --on-threshold continue: the hits acted on */
	struct tlatbpf *bpf;		/* --backend bpf: the program (NULL: the trace path) */
	struct tlatauto *aa;		/* -a: the analyser (NULL: off) */
	uint64_t bpf_misses;		/* samples the program never saw (the kernel's count) */
	uint64_t *bpf_counts;		/* one series' buckets read from it (out.entries) */
};

struct tl {
	enum tl_mode mode;
	const char *prog;		/* "latscope timerlat hist" */
	struct tl_opts opt;
	struct tl_out out;
	struct tl_run run;
};

/* cli.c: the option table (--help, the completion) and the parser */
extern const struct cli_cmd timerlat_cli;
int timerlat_parse(struct tl *c, int argc, char **argv);	/* -1: go on, else the exit status */

/* kthreads.c: -P and -C on the kernel's timerlat/N threads of the measured
 * CPUs; -u -C: latscope into the cgroup, its own cgroup's directory saved
 * in back (empty: not moved) for the move back.  Each 0, or -1 after a
 * line. */
int timerlat_kthreads_prio(struct tl *c);
int timerlat_kthreads_cgroup(struct tl *c);
int timerlat_self_cgroup(struct tl *c, char *back, size_t len);

/* run.c: the runs; each returns the exit status */
int timerlat_run_live(struct tl *c);
int timerlat_run_text(struct tl *c, const char *path);
/* the engine set up for the run's CPUs and geometry: 0 or -1 (said) */
int timerlat_setup(struct tl *c, uint32_t nr_cpus);
/* what timerlat_setup() took, given back (also after it failed) */
void timerlat_teardown(struct tl *c);
/* text of the tracer fed as it comes (lines may be cut anywhere) */
void timerlat_feed(struct tl *c, const char *data, size_t n);
/* one parsed record */
void timerlat_rec(struct tl *c, const struct osnkernel_rec *r);

/* bpf.c: why the bpf backend cannot do what c asks (NULL: it can);
 * --backend auto decided (one line on stderr); the bpf run's steps */
const char *timerlat_bpf_conflict(const struct tl *c);
void timerlat_pick_backend(struct tl *c);
int timerlat_bpf_start(struct tl *c);		/* the program attached: 0 or -1 (said) */
void timerlat_bpf_sync(struct tl *c);		/* its maps into the engine */
bool timerlat_bpf_stopped(const struct tl *c);
void timerlat_bpf_end(struct tl *c);		/* detached, read a last time, closed */

/* auto.c: -a's analyser fed (its records and events), its result in the
 * document and in the text */
int timerlat_auto_setup(struct tl *c, uint32_t nr_cpus);	/* 0 or -1 (said) */
void timerlat_auto_rec(struct tl *c, const struct osnkernel_rec *r);
struct json_object *timerlat_auto_json(const struct tl *c);	/* NULL: none */
void timerlat_text_auto(FILE *f, struct json_object *doc);

/* doc.c: the document of the run so far; buckets: with the histograms'
 * buckets (hist).  NULL when out of memory. */
struct json_object *timerlat_doc(const struct tl *c, bool buckets);

/* text.c: the text forms of a document, on f */
void timerlat_text_top(FILE *f, struct json_object *doc);
void timerlat_text_hist(FILE *f, struct json_object *doc, const struct tl_out *o);
void timerlat_text_trace_header(FILE *f);
void timerlat_text_losses(FILE *f, struct json_object *doc, const char *prog);

#endif
