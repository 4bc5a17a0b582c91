/* SPDX-License-Identifier: MIT */
/*
 * osnoise.h - private to `latscope osnoise` (src/osnoise/): the run's context
 * shared by the command line (cli.c), the runs (run.c: live, replay,
 * recording; kernel.c: the kernel tracer and a saved kernel trace) and the
 * views (output.c: text; json.c: JSON; figures.c: what both show).
 * Prefix: osnoise_.
 */
#ifndef LATSCOPE_OSNOISE_H
#define LATSCOPE_OSNOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/firedtab.h"
#include "action.h"
#include "cli.h"
#include "engine/osneng.h"
#include "live/osnbpf.h"
#include "base/parse.h"
#include "progress.h"

enum mode { M_TOP, M_HIST, M_TRACE, M_RECORD };

/* --backend: who attributes the gaps (docs/osnoise.md, "Backends") */
enum osnoise_backend { OB_PERF, OB_BPF, OB_KERNEL, OB_AUTO };

#define NS_PER_S	((uint64_t)1000000000)

/*
 * The measurement asked for on the command line: cli.c's table fills it,
 * osnoise_parse() puts the defaults first and settles -r and --kernel after,
 * osnoise_fieldwork_settle() turns -a into -s.  A run reads it and never
 * writes it: what the run measures with (a replay: the recording's values)
 * is struct osn_run's.  Nothing to free (the strings point into argv).
 */
struct osn_opts {
	enum osnoise_backend backend;	/* --backend, --kernel (kernel) */
	bool backend_given;
	struct parse_cpuset cpus, hk;	/* -c, -H */
	bool have_cpus, have_hk;
	uint64_t duration_ns, period_us, runtime_us, threshold_us, stop_us, stop_total_us;
	bool have_runtime, have_T, have_stop;	/* -r, -T, -s given */
	uint64_t warmup_ns, floor_ns, ring_bytes;
	struct cli_prio prio;		/* -P: policy and nice or priority */
	bool have_prio;
	bool no_workload, kernel, tsc, no_attr;
	int64_t dma_latency_us;		/* -1: leave /dev/cpu_dma_latency alone */
	const char *input, *output, *kernel_text;	/* -i, -o, --parse-kernel */
	bool force, strict;
};

/*
 * What to show and how: cli.c's table fills it (osnoise_parse() the
 * defaults); the views (output.c) and the run's sinks read it.  Nothing to
 * free (the strings point into argv).
 */
struct osn_out {
	bool json, quiet, events;
	const char *json_file;		/* --json=FILE */
	struct cli_renders renders;	/* --html FILE, --render FORMAT=FILE */
	uint64_t bucket_us, entries;	/* hist: -b, -E */
	bool with_zeros, no_header, no_summary;
	uint64_t top_n;			/* --top: contributors per CPU */
	int progress;			/* hist: --progress 1, --no-progress 0, PROGRESS_AUTO */
};

/*
 * Field work (fieldwork.c): -a, -t, --on-threshold, --on-end.  cli.c fills
 * the options, osnoise_fieldwork_settle() completes them (-a into -t, the
 * trace file); a live run fills hits_seen and trace_kept.  Nothing to free
 * (the action lists are arrays; the strings point into argv).
 */
struct osn_fieldwork {
	uint64_t auto_us;		/* -a: stop (-s) at US, trace, analysis */
	bool have_auto;
	bool trace;			/* -t, -a, or a trace action: the run is recorded */
	bool trace_asked;		/* -t, -a or an --on-end trace: kept whatever happens */
	const char *trace_file;		/* its file (argv, or the default) */
	struct action_list on_thr, on_end;
	char act_err[512];		/* a malformed action, said by osnoise_parse */
	uint64_t hits_seen;		/* --on-threshold continue: hits acted on */
	bool trace_kept;		/* the trace file was written */
};

/*
 * The run: what it measures with and what it holds.  Each run (run.c,
 * kernel.c) fills it: osnoise_begin_run() copies the measurement from the
 * options, a replay then takes the recording's; osnoise_setup_state() makes
 * the engine and the steal arrays, which osnoise_free_state() frees; the run
 * that opened the source, the workload, the recording and the bpf programs
 * closes them.
 */
struct osn_run {
	/* the measurement: the options', a replay's from the recording, a
	 * live run's CPUs all online ones when -c is not given */
	struct parse_cpuset cpus;
	uint64_t threshold_us, period_us, runtime_us;
	bool no_workload;
	bool softirq_in_threads;	/* PREEMPT_RT (live: this kernel; replay: the recording's) */
	uint64_t kbuf_bytes;		/* --kernel: its buffer per CPU (--ring-size, or the default) */
	struct osneng *e;		/* the engine (lib/engine/osneng.c) */
	const unsigned *list;		/* its CPUs, nr of them, its accounting */
	size_t nr;
	struct noise *n;
	struct oswork *w;
	struct evsrc *s;
	struct pdwrite *pw;
	struct osnbpf *bpf;		/* the bpf backend's programs (lib/live/osnbpf.h) */
	const char *ran;		/* the backend that measured: "perf", "bpf", "kernel"; a
					 * replay: "recording", --parse-kernel: "kernel" */
	bool attribution;
	char attr_why[512];
	uint64_t *steal0, *steal1;
	bool setup_failed;		/* replay: set-up said why already */
	bool replaying;
	bool kmode;			/* records come from the kernel tracer */
	struct progress status;		/* hist, live: its status line on stderr */
};

/*
 * What the run found beside the engine's accounting: the run fills it, the
 * views read it.  fired is freed by osnoise_free_state(); the rest holds
 * nothing to free.
 */
struct osn_results {
	struct osneng_counts cnt;	/* replay: what the reader or the decoders skipped */
	struct firedtab fired;	/* perf path: fired against delivered (live: the
				 * source's; replay: the recording's LATSCOPE_FIRED) */
	struct osnbpf_stats bst;	/* the bpf programs' counts, read at the end */
	bool bst_read;
	int write_err;			/* errno of a stdout failure during the run */
	int json_rc;			/* the JSON's writing: 0 or EXIT_ERR */
};

/* One invocation: static storage in cmd_osnoise(); osnoise_parse() clears it. */
struct ctx {
	enum mode mode;
	const char *prog;		/* "latscope osnoise top": the mode given, for messages */
	struct osn_opts opt;
	struct osn_out out;
	struct osn_fieldwork fw;
	struct osn_run run;
	struct osn_results res;
};

/* The command line (static table; nothing to free), here for the unit test
 * of its table.  Its name is "latscope osnoise"; osnoise_parse() names the
 * mode in its messages when one was given. */
extern const struct cli_cmd osnoise_cli;

/* cli.c: argv (after "osnoise") into c, which holds nothing yet: the
 * defaults, the mode word, the options, their checks.  -1 to run; else the
 * exit status after the usage on stdout (--help: 0) or one line on stderr. */
int osnoise_parse(struct ctx *c, int argc, char **argv);

/* backend.c: what the bpf backend cannot do with c's options ("cannot record
 * (osnoise record): ..."), NULL when it can run them. */
const char *osnoise_bpf_conflict(const struct ctx *c);

/* run.c: the four ways to run, each the exit status; each frees what it
 * set up.  osnoise_run_live runs the perf backend, or the bpf one when
 * c->run.bpf is loaded (osnoise_try_bpf). */
int osnoise_run_live(struct ctx *c);
int osnoise_run_replay(struct ctx *c);
int osnoise_run_kernel(struct ctx *c);
/* run.c, shared with kernel.c: the measurement of c's options into
 * c->run (the CPUs, threshold, period, runtime, --no-workload), at the start
 * of every run; the options stay as given. */
void osnoise_begin_run(struct ctx *c);
/* run.c, shared with kernel.c: the engine and its state for c's options
 * (0 or a negative errno), freed by osnoise_free_state; the collector moved
 * to the house-keeping CPUs (-H, else the online ones not measured; 0 or -1,
 * said); the end of a run's report (its exit status). */
int osnoise_setup_state(struct ctx *c);
void osnoise_free_state(struct ctx *c);
struct livesetup;
int osnoise_housekeep(const struct ctx *c, const struct parse_cpuset *online, struct livesetup *ls);
int osnoise_end_report(struct ctx *c);
/* run.c: load the bpf backend's programs into c->run.bpf (LATSCOPE_NO_BPF=1
 * refuses them); false with why ("refused: ...", "not usable: ...") when they
 * do not load. */
bool osnoise_try_bpf(struct ctx *c, char *why, size_t len);
int osnoise_run_kernel_text(struct ctx *c, const char *path);

/* figures.c: what the results say, for every view and the run's checks.
 * The engine's stop: 0 running, OSNENG_STOP_SINGLE or OSNENG_STOP_TOTAL. */
int osnoise_stop_why(const struct ctx *c);
/* What the results miss: events lost by the kernel, workload records lost,
 * samples skipped as unreadable. */
uint64_t osnoise_dropped(const struct ctx *c);
/* hist: the gaps filed so far on every CPU (the status line) */
uint64_t osnoise_gaps(const struct ctx *c);
/* Workload records lost; events the attribution did not see (lost from the
 * perf rings or the recording, or bpf program runs the kernel skipped);
 * switches the attribution saw with a prev that the last one did not put on
 * (the accounting's or the bpf programs'); the measured time after the
 * warm-up. */
uint64_t osnoise_wrec_lost(const struct ctx *c);
uint64_t osnoise_events_lost(const struct ctx *c);
uint64_t osnoise_unseen_switches(const struct ctx *c);
uint64_t osnoise_run_ns(const struct ctx *c);
/* CPU cpu's contributors, largest net time first, into out (room for 256),
 * the number of them up to max. */
size_t osnoise_sorted_contribs(const struct ctx *c, unsigned cpu, struct noise_contrib *out, size_t max);
/* The histogram summary's percentiles: the text's row label, the JSON key. */
#define OSNOISE_NR_PCTS 4
struct osnoise_pct {
	const char *label, *key;
	double pct;
};
extern const struct osnoise_pct osnoise_hist_pcts[OSNOISE_NR_PCTS];
/* True when the percentile pct of h falls among the values past its last
 * bucket (the "over:" row): the histogram holds no value for it (the rank of
 * lib/base/lhist.h's rule; rank count is the exact max). */
bool osnoise_hist_pct_clipped(const struct ctx *c, const struct osneng_hist *h, double pct);

/* output.c */
void osnoise_print_trace_header(FILE *f);
/* top: the table again (not with --json, -q, or another mode) */
void osnoise_refresh_top(struct ctx *c);
/* The summary of the mode (text or JSON) on stdout (trace: its details on stderr). */
void osnoise_final_report(struct ctx *c);

/* json.c: the latscope.osnoise/1 document (docs/json.md) on stdout
 * (--json) or in --json=FILE, and its forms (--html, --render); 0 or
 * EXIT_ERR. */
int osnoise_print_json(struct ctx *c);
/*
 * The end of every mode: the verdict on lost data (exit 1 when a stop
 * threshold or --strict asks for one), then stdout checked (exit 2 on a
 * write error).  rc is the status so far.
 */
int osnoise_finish(struct ctx *c, int rc);

/* fieldwork.c: the field-work options (rtla's -a, -t, --on-threshold,
 * --on-end) */
/* osnoise_fieldwork_settle - after parsing: -a into -s and -t, the trace
 * file, the checks (one line on stderr); 0 or EXIT_ERR. */
int osnoise_fieldwork_settle(struct ctx *c);
/* Why the kernel backend cannot run c's field-work options, NULL when it can. */
const char *osnoise_fieldwork_kernel_conflict(const struct ctx *c);
/* osnoise_on_threshold - the --on-threshold actions for the last hit. */
void osnoise_on_threshold(struct ctx *c);
/* osnoise_on_end - the --on-end actions. */
void osnoise_on_end(struct ctx *c);
/* osnoise_print_auto - -a: the analysis of the gap that hit the threshold. */
void osnoise_print_auto(const struct ctx *c, FILE *f);

#endif
