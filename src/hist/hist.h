/* SPDX-License-Identifier: MIT */
/*
 * hist.h - private to `latscope hist` (src/hist/): the context the command
 * line fills and the runs use, and the functions the three files share.
 *
 *   cli.c     cmd_hist(): the option tables of report/record/top, parsing
 *             and validation
 *   run.c     report (perf.data), and what a run saw into c
 *   live.c    live record/top (backend, -o recording, keep-busy, timer
 *             workload, system settings), and hist_live's hooks for monitor
 *   output.c  the text histograms and tables, the JSON, the -O tree, the
 *             verdict (threshold, --strict) and the exit status
 *   topview.c top's screen without --full: a line per CPU, cut to the terminal
 *   tasks.c   --per-task: the tasks that waited longest (text, JSON)
 *   fieldwork.c  -a, --trace, --on-threshold, --on-end
 *   backend.c what the command line asks of a backend (engine/hsource.h)
 *
 * `latscope monitor` (src/monitor/) runs hist_live with its hooks.
 *
 * Everything here prints to stdout/stderr (src/ only); nothing exits.
 */
#ifndef LATSCOPE_HIST_H
#define LATSCOPE_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "action.h"
#include "cli.h"
#include "engine/hsource.h"
#include "live/idlecheck.h"
#include "engine/latauto.h"
#include "engine/latency.h"
#include "base/firedtab.h"
#include "base/parse.h"
#include "format/tpevent.h"

enum hmode { H_REPORT, H_RECORD, H_TOP, H_MONITOR };

/* 16 MiB per CPU: no loss at 500k events/s (machine-facts.md); the rings
 * also absorb a collector starved for a while by a CPU-hungry load. */
#define HIST_DEFAULT_RING_BYTES (16u << 20)

struct timerwl;
struct pdwrite;
struct tasklat;

/* The options every mode shares: the input, the kinds, the histograms'
 * geometry, the outputs and the verdict (the cli tables write them;
 * pointers point into argv). */
struct hist_opts {
	const char *input;		/* report -i */
	const char *outdir;		/* -O */
	const char *record_out;		/* record/top -o */
	bool json, json_buckets, nonzero, quiet;
	const char *json_file;		/* --json=FILE (argv): text on stdout, JSON there */
	struct cli_renders renders;	/* --html FILE, --render FORMAT=FILE: the forms of the document */
	bool types[HSET_NR_KINDS];
	bool types_given;
	struct latency_cfg lcfg;
	uint64_t threshold_ns;		/* -T, when threshold_given */
	bool threshold_given;
	uint64_t time_lo_ns, time_hi_ns;	/* report --time window */
	bool time_given;
	uint64_t pid, nr_buckets, table_size;	/* --pid, --buckets, --table-size (into lcfg) */
	bool force, strict;
	int progress;			/* --progress 1, --no-progress 0, PROGRESS_AUTO */
	bool full;			/* top --full: the whole histograms on each screen */
	bool per_task;			/* --per-task[=N]: the tasks that waited longest */
	uint64_t per_task_rows;		/* N of them in the text (0 = all kept) */
};

/* The options of the live runs: record, top, monitor. */
struct hist_live_opts {
	uint64_t duration_ns, refresh_ns;
	struct parse_cpuset cpus;
	bool cpus_given;
	bool irqsoff_live;
	uint64_t ring_bytes;
	bool timer;
	int keep_busy;			/* -1 auto (self-test), 0 off, 1 on */
	uint64_t collector_prio;	/* SCHED_FIFO priority of the collecting thread, 0 = none */
	int64_t dma_latency_us;		/* with the timer workload; -1 = leave alone */
	uint64_t interval_ns;
	struct cli_prio prio;		/* -P: the timer workload's policy and priority */
	bool prio_given;
	const struct hsource_ops *backend;	/* --backend (engine/hsource.h), NULL: auto */
};

/* Field work (fieldwork.c): -a, --trace, --on-threshold, --on-end, and
 * what happened to them.  an is freed by the run that made it. */
struct hist_fieldwork {
	uint64_t auto_ns;		/* -a: -T at this, --trace, the analysis */
	bool have_auto;
	bool trace_asked;		/* --trace, -a, an --on-end trace: kept whatever happens */
	bool trace_on_hit;		/* only an --on-threshold trace: kept on a hit */
	struct action_list on_thr, on_end;
	char act_err[512];		/* a malformed action, said by cmd_hist */
	bool hit;			/* -T was exceeded during the run */
	enum hset_kind hit_kind;	/* where: the worst case kept then */
	uint32_t hit_cpu;
	struct hset_max hit_max;
	uint64_t last_sync_ns;		/* bpf, kernel: when -T last read the counts */
	bool trace_kept;		/* the trace file was written */
	struct latauto *an;		/* -a: the recent events of each CPU */
	bool an_valid;			/* an_res: the worst sample over -T, analysed when filed */
	struct latency_sample an_sample;
	struct latauto_result an_res;
};

/* What the input gave and what it lost (report: the reader's counts; live:
 * the source's). */
struct hist_input {
	bool has[TPEVENT_NR_KINDS];	/* the events the input carries */
	uint32_t max_cpu_seen;
	bool any_cpu;
	uint64_t decoded, undecoded, bad_raw, no_raw;
	uint64_t lost_events, lost_samples;
	struct firedtab fired;			/* perf path: fired against delivered (the live
						 * source's, or the recording's LATSCOPE_FIRED) */
	uint64_t unknown_id, bad_samples;	/* report: samples the reader skipped */
	uint64_t out_of_order, forced;		/* delivered late / flushes forced by a full queue */
	uint64_t duplicates;			/* report: samples a recorder wrote twice, dropped */
	uint64_t max_late_ns;			/* live perf: the latest of them, behind a later event */
	uint64_t ring_corrupt_bytes;		/* live: ring bytes skipped as corrupt (perfring.h) */
	uint64_t first_ns, last_ns;	/* time of the first/last event fed */
	bool decoded_any;
	uint64_t traced_from_ns, traced_until_ns;	/* live: all CPUs enabled */
	uint64_t outside;		/* samples outside --time */
};

/* The run's state: the engine or the live source and what it read.  The
 * run that opens each frees it, except lat and tasks (cmd_hist). */
struct hist_run {
	struct latency *lat;		/* report: the userspace engine fed from perf.data */
	struct hsource *src;		/* live: the backend's source (engine/hsource.h) */
	const struct hsource_ops *ran;	/* live: the backend that runs (report: NULL) */
	const struct hset *set;		/* the histograms the outputs read (lat's or src's) */
	const struct latency_stats *track;	/* the trackers' counters (lat's or src's; the
						 * bpf programs' as the engine names them;
						 * kernel: all zero) */
	uint64_t backend_dropped;	/* what the backend's own counts lost (hsource_stats.dropped) */
	struct tasklat *tasks;		/* --per-task: the table (cmd_hist frees it) */
	struct timerwl *twl;
	struct pdwrite *pw;
	bool live_err;
	bool busy_on;			/* keep-busy spinners ran */
	const char *busy_why;		/* "self-test", "option" */
	struct idlecheck_cpu_result idc[64];
	size_t nidc;
	int idc_err;			/* self-test error (0 = ran or not run) */
	bool idc_ran;
};

struct hctx;

/*
 * What a command built on hist's live run adds to it (`latscope monitor`,
 * src/monitor/): each may be NULL; each gets the run's c.  The hooks
 * print what went wrong themselves.
 */
struct hist_live_hooks {
	int (*begin)(struct hctx *c);		/* before any backend is set up: 0 or -1 */
	/* the source counting, before the loop: other sources; *wait_ms their
	 * poll period (left alone: none); 0 or -1 */
	int (*start)(struct hctx *c, int *wait_ms);
	void (*publish)(struct hctx *c, uint64_t now_ns);	/* at each refresh, counts synced */
	void (*process)(struct hctx *c, uint64_t until_ns);	/* after each drain */
	int (*reset)(struct hctx *c);		/* a requested signal (SIGHUP): 0 then published */
	void (*end)(struct hctx *c);		/* the run is over, on every path after begin */
};

/* One run of `latscope hist` (or monitor): the options the cli tables
 * write, then the run's state and results.  Owned by cmd_hist(). */
struct hctx {
	enum hmode mode;
	const char *prog;		/* "latscope hist report" */
	struct hist_opts o;
	struct hist_live_opts lo;
	struct hist_fieldwork fw;
	struct hist_input in;
	struct hist_run run;
	const struct hist_live_hooks *hooks;	/* NULL: hist record, top */
	bool sync_failed;		/* a read of the backend at a refresh failed (said) */
};

/* The command lines of the three subcommands and the monitor (cli.c;
 * test_cli_tables). */
extern const struct cli_cmd hist_report_cli, hist_record_cli, hist_top_cli;

/* What this command line asks of a backend (-o, --irqsoff, --keep-busy,
 * --per-task, --types), for hsource_conflict and hsource_refusal
 * (backend.c; need->kinds points into c). */
void hist_need(const struct hctx *c, struct hsource_need *need);
/* Whether kind t is missing from this run's histograms, and why (output.c). */
bool hist_kind_unsupported(const struct hctx *c, enum hset_kind t);

/* run.c: each returns the exit status (0, EXIT_THRESHOLD, EXIT_ERR).  Report
 * makes c->lat (the caller frees it with latency_free()); both free
 * everything else they open or start, on every path. */
int hist_report(struct hctx *c);
int hist_live(struct hctx *c);	/* live.c */
/* hist_take_stats - what a source saw (live) or the engine was fed (report)
 * into c, for the outputs (run.c). */
struct hsource_stats;
void hist_take_stats(struct hctx *c, const struct hsource_stats *st);

/* cli.c, shared with the commands built on the live run (src/monitor/) */
/* hist_defaults - c zeroed, then every option's default for mode. */
void hist_defaults(struct hctx *c, enum hmode mode, const char *prog);
/* hist_settle - the values the tables keep apart, into lcfg. */
void hist_settle(struct hctx *c);
/* hist_backend_ok - false (said on stderr) when an explicit --backend cannot
 * serve this command line. */
bool hist_backend_ok(const struct hctx *c);
/* Option parsers (params is the struct hctx): --types LIST, --backend NAME. */
int hist_parse_types(const char *arg, void *params);
int hist_parse_backend(const char *arg, void *params);
extern const char *const hist_backend_names[];	/* --backend's words */
/* --pid measures that task alone, --all-tasks every task */
#define HIST_CONFLICTS ((const char *const[][2]){ { "all-tasks", "pid" }, { NULL, NULL } })

/* fieldwork.c */
/* Option parsers of the table (cli.c): --on-threshold, --on-end, --trace. */
int hist_parse_on_threshold(const char *arg, void *params);
int hist_parse_on_end(const char *arg, void *params);
int hist_parse_trace(const char *arg, void *params);
/* hist_fieldwork_settle - after parsing: -a into -T and --trace, the trace
 * file into -o, the checks (one line on stderr); 0 or EXIT_ERR. */
int hist_fieldwork_settle(struct hctx *c);
/* hist_threshold_check - in the loop: true when -T is exceeded and the run
 * stops now (with --on-threshold continue, the actions run and false). */
bool hist_threshold_check(struct hctx *c);
/* hist_on_threshold, hist_on_end - the actions (threshold: when it was hit). */
void hist_on_threshold(struct hctx *c);
void hist_on_end(struct hctx *c);
/* hist_auto_setup - -a: the analyser, and the source's tap and observer in
 * *cfg that feed it.  0 or -1 (said). */
struct hsource_cfg;
int hist_auto_setup(struct hctx *c, struct hsource_cfg *cfg);
/* hist_deadline_refused - -P d:: -1 (said) when a timer thread did not get
 * SCHED_DEADLINE, else 0. */
int hist_deadline_refused(struct hctx *c);
/* hist_print_auto - -a: the analysis of the worst sample over -T. */
void hist_print_auto(const struct hctx *c, FILE *f);
/* hist_worst - the worst latency of the selected, supported kinds, INT64_MIN
 * with none; *kind, *cpu (may be NULL) where (output.c). */
int64_t hist_worst(const struct hctx *c, enum hset_kind *kind, uint32_t *cpu);

/* output.c */
/* hist_term_view - the text histograms of the selected types, their max
 * records and the timer workload's table, to f (top's screen, the report). */
void hist_term_view(struct hctx *c, FILE *f, const bool unsup[HSET_NR_KINDS]);
/* topview.c: hist top's screen without --full: head (one line), then one
 * line per measured CPU and an "all" line (count, min, p50, p99, max of
 * each kind that fits), cut to rows lines of cols columns (0: no limit). */
void hist_top_compact(struct hctx *c, FILE *f, const bool unsup[HSET_NR_KINDS], const char *head,
		      unsigned rows, unsigned cols);
/* tasks.c: --per-task, the table of the tasks that waited longest */
/* hist_tasks_text - its rows (the per_task_rows worst by max) and its
 * losses, to f; nothing without --per-task. */
void hist_tasks_text(const struct hctx *c, FILE *f);
/* hist_tasks_json - the "tasks" object of the hist JSON (every task kept,
 * worst first), NULL without --per-task or out of memory.  The caller
 * owns it. */
struct json_object *hist_tasks_json(const struct hctx *c);
/* hist_emit - the end of a run: -O tree, JSON or text on stdout, the notes
 * and warnings on stderr, the verdict; returns the exit status. */
int hist_emit(struct hctx *c);

#endif
