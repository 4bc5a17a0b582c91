/* SPDX-License-Identifier: MIT */
/*
 * hist.h - private to `latscope hist` (src/hist/): the context the command
 * line fills and the runs use, and the functions the three files share.
 *
 *   cli.c     cmd_hist(): the option tables of report/record/top, parsing
 *             and validation
 *   run.c     the runs: report (perf.data), live record/top (tracepoints,
 *             -o recording, keep-busy, timer workload, system settings)
 *   output.c  the text histograms and tables, the JSON, the -O tree, the
 *             verdict (threshold, --strict) and the exit status
 *   monitor.c `latscope monitor` (cmd_monitor in cli.c): the exposition
 *             rendered at each refresh of run.c's loop, served and written
 *   topview.c top's screen without --full: a line per CPU, cut to the terminal
 *   tasks.c   --per-task: the tasks that waited longest (text, JSON)
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
struct metricsrv;
struct noisemon;
struct dtlrec;
struct dtlstat;
struct tasklat;

#define HIST_MONITOR_MAX_BOUNDS 64	/* = PROMEXP_MAX_BOUNDS */

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

/* The monitor's options (`latscope monitor`). */
struct hist_monitor_opts {
	const char *listen;		/* --listen ADDR:PORT (NULL with --textfile only) */
	const char *textfile;		/* --textfile DIR */
	uint64_t bounds_ns[HIST_MONITOR_MAX_BOUNDS];	/* --le, the exposition buckets */
	size_t nr_bounds;		/* 0 = promexp's defaults */
	bool no_listen;			/* --textfile without --listen: no server */
	uint64_t noise_runtime_us, noise_period_us;	/* --noise RUNTIME/PERIOD; 0: off */
	uint64_t noise_threshold_us;	/* --noise-threshold */
	bool dtl;			/* --dtl: the POWER DTL counters */
	uint64_t dtl_aux_bytes;		/* --dtl-aux-size (0: dtlrec's default) */
	const char *sysfs, *debugfs, *procfs;	/* --dtl's roots (tests), NULL = the system's */
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
	uint64_t ring_corrupt_bytes;		/* live: ring bytes skipped as corrupt (pring.h) */
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

/* The monitor's state (monitor.c); hist_monitor_end frees it. */
struct hist_monitor {
	struct metricsrv *srv;
	int text_dirfd;			/* --textfile's directory, -1 */
	uint64_t resets, publishes, publish_errors;
	double start_unix, reset_unix;	/* wall clock of the start, of the last reset */
	uint64_t collect_ns;		/* the last read and render */
	uint64_t monitor_start_ns;	/* 0: not begun */
	bool monitor_failed;		/* a read of the backend failed: exit 2 */
	struct noisemon *nm;		/* --noise: the noise counters, or NULL */
	struct dtlrec *dtlr;		/* --dtl: the DTL source (no file), or NULL */
	struct dtlstat *dtls;		/* its counters */
	uint64_t dtl_bad;		/* chunks the counters refused */
	uint64_t *dtl_ring_full;	/* [DTLSTAT_MAX_CPUS]: polls that found the ring overrun */
	uint8_t *dtl_aux_seen;		/* [DTLSTAT_MAX_CPUS]: a commit came (the first has the header) */
	bool dtl_poll_failed;		/* a read of the DTL failed (said once) */
	uint64_t dtl_stopped_said;	/* CPUs whose stopped DTL was said */
	char *expo;			/* the last exposition (open_memstream's) */
	size_t expo_len;
};

/* One run of `latscope hist` (or monitor): the options the cli tables
 * write, then the run's state and results.  Owned by cmd_hist(). */
struct hctx {
	enum hmode mode;
	const char *prog;		/* "latscope hist report" */
	struct hist_opts o;
	struct hist_live_opts lo;
	struct hist_monitor_opts mo;
	struct hist_fieldwork fw;
	struct hist_input in;
	struct hist_run run;
	struct hist_monitor mon;
};

/* The command lines of the three subcommands and the monitor (cli.c;
 * test_cli_tables). */
extern const struct cli_cmd hist_report_cli, hist_record_cli, hist_top_cli, hist_monitor_cli;

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
int hist_live(struct hctx *c);

/* monitor.c: `latscope monitor` around hist_live's loop.  Each prints
 * what went wrong on stderr. */
/* hist_monitor_parse_le - --le LIST: the exposition buckets (ascending
 * durations, a bare number in us) into c.  0 or -EINVAL. */
int hist_monitor_parse_le(const char *arg, void *params);
/* hist_monitor_parse_noise - --noise RUNTIME/PERIOD into c.  0 or -EINVAL. */
int hist_monitor_parse_noise(const char *arg, void *params);
/* hist_monitor_noise_start - --noise: the busy loops and their BPF counters
 * (engine/noisemon.h) on the measured CPUs.  0 or -1 (said). */
int hist_monitor_noise_start(struct hctx *c);
/* hist_monitor_dtl_start - --dtl: the DTL of the measured CPUs (vpa_dtl PMU
 * or debugfs, lib/live/dtlrec.h without a file) into counters
 * (lib/engine/dtlstat.h).  0 or -1 (said). */
int hist_monitor_dtl_start(struct hctx *c);
/* hist_monitor_dtl_poll - what the DTL has now into the counters. */
void hist_monitor_dtl_poll(struct hctx *c);
/* hist_monitor_begin - the listening socket and the --textfile directory,
 * before any backend is set up (a port in use fails at once).  0 or -1. */
int hist_monitor_begin(struct hctx *c);
/* hist_monitor_publish - the set (synced by the caller) and the self-cost
 * rendered, handed to the server and written to the textfile. */
void hist_monitor_publish(struct hctx *c, uint64_t now_ns);
/* hist_monitor_reset - SIGHUP: the backend's histograms from zero (the
 * caller then reads and publishes them).  0 or -1 (said; the monitor goes
 * on with the counts it had). */
int hist_monitor_reset(struct hctx *c);
/* hist_monitor_end - stop serving, the summary line on stderr. */
void hist_monitor_end(struct hctx *c);

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
