/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope hist`: latency_hist-style histograms.  The entry
 * (cmd_hist), the option tables of its three subcommands (src/cli.c makes
 * the parser and the --help text from them) and the checks after parsing.
 *
 *   hist report [-i perf.data]   offline, from recorded tracepoints
 *   hist record [-d DUR]         live (perf_event_open), histograms at the end
 *   hist top [-d DUR]            live, refreshed terminal view
 *
 * The trackers (lib/engine/latency.c) are the same in every mode; live and offline
 * events go through the same decoder (lib/format/tpevent/tpdecode.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hist.h"
#include "progress.h"
#include "engine/tasklat.h"
#include "print/promexp.h"
#include "base/lhist.h"

static const struct {
	const char *name;
	enum hset_kind t;
} type_names[] = {
	{ "wakeup", HSET_WAKEUP },
	{ "sharedprio", HSET_WAKEUP_SHAREDPRIO },
	{ "wakeup/sharedprio", HSET_WAKEUP_SHAREDPRIO },
	{ "timer", HSET_MISSED_TIMER },
	{ "missed_timer_offsets", HSET_MISSED_TIMER },
	{ "timerandwakeup", HSET_TIMERANDWAKEUP },
	{ "irqsoff", HSET_IRQSOFF },
	{ "preemptoff", HSET_PREEMPTOFF },
	{ "preemptirqsoff", HSET_PREEMPTIRQSOFF },
};

/* --types LIST: the selected types, every name known */
int hist_parse_types(const char *arg, void *params)
{
	struct hctx *c = params;
	bool sel[HSET_NR_KINDS] = { false };
	char *dup = strdup(arg), *save = NULL;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (char *tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		err = -EINVAL;
		for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
			if (!strcmp(tok, type_names[i].name)) {
				sel[type_names[i].t] = true;
				err = 0;
			}
	}
	free(dup);
	if (err)
		return err;
	memcpy(c->o.types, sel, sizeof(sel));
	c->o.types_given = true;
	return 0;
}

/* --offset DUR: a signed duration, a bare number in us */
static int parse_offset(const char *arg, void *params)
{
	uint64_t v = 0;
	bool neg = *arg == '-';

	if (parse_duration_ns(neg ? arg + 1 : arg, 1000, &v) || v > INT64_MAX)
		return -EINVAL;
	((struct hctx *)params)->o.lcfg.hist.lo_ns = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* --time START,END: seconds of the recording clock, either side may be empty */
static int parse_time(const char *arg, void *params)
{
	struct hctx *c = params;

	if (parse_time_range(arg, &c->o.time_lo_ns, &c->o.time_hi_ns) || c->o.time_lo_ns > c->o.time_hi_ns)
		return -EINVAL;
	c->o.time_given = true;
	return 0;
}

/* --prio N, the old spelling of -P: 1..99 is f:N, 0 is SCHED_OTHER */
static int parse_old_prio(const char *arg, void *params)
{
	struct hctx *c = params;
	uint64_t v;

	if (parse_u64(arg, 0, 99, &v))
		return -EINVAL;
	c->lo.prio.policy = v ? SCHED_FIFO : SCHED_OTHER;
	c->lo.prio.prio = (int)v;
	return 0;
}

/* --per-task[=N]: N rows in the text (default 20, 0 = every task kept) */
static int parse_per_task(const char *arg, void *params)
{
	struct hctx *c = params;
	uint64_t v = 20;

	if (arg && parse_u64(arg, 0, TASKLAT_MAX_SLOTS, &v))
		return -EINVAL;
	c->o.per_task = true;
	c->o.per_task_rows = v;
	return 0;
}

/* --backend NAME */
const char *const hist_backend_names[] = { "perf", "bpf", "kernel", "auto", NULL };

int hist_parse_backend(const char *arg, void *params)
{
	struct hctx *c = params;

	if (!strcmp(arg, "auto"))
		c->lo.backend = NULL;
	else if (!(c->lo.backend = hsource_backend(arg)))
		return -EINVAL;
	return 0;
}

#define H_OPT(n, k, t, f, lo, hi, u, a, h, e) CLI_OPT(n, k, t, struct hctx, f, CLI_NONE, lo, hi, u, a, h, e)
#define H_FLAG(n, f, h) H_OPT(n, 0, CLI_T_FLAG, f, 0, 0, 0, NULL, h, NULL)

/* The histograms and their output: every subcommand. */
#define HIST_OUTPUT_OPTS \
	H_OPT("output-dir", 'O', CLI_T_STR, o.outdir, 0, 0, 0, "DIR", \
	      "write the latency_hist tree: DIR/wakeup/CPU0,\n" \
	      "DIR/wakeup/sharedprio/CPU0, DIR/missed_timer_offsets/CPU0,\n" \
	      "DIR/timerandwakeup/CPU0, DIR/irqsoff/CPU0, ...,\n" \
	      "and DIR/<type>/max_latency-CPU0", NULL), \
	CLI_JSON(struct hctx, o.json, o.json_file), \
	CLI_RENDERS(struct hctx, o.renders), \
	H_FLAG("buckets-json", o.json_buckets, "--json with the non-zero buckets of each histogram"), \
	CLI_CUSTOM("types", 0, hist_parse_types, "LIST", \
		   "wakeup,sharedprio,timer,timerandwakeup,irqsoff,\n" \
		   "preemptoff,preemptirqsoff (default all the input supports)", \
		   "a comma list of wakeup, sharedprio, timer, timerandwakeup, irqsoff, preemptoff, " \
		   "preemptirqsoff"), \
	H_OPT("pid", 0, CLI_T_U64, o.pid, 1, INT32_MAX, 0, "PID", "only this task (latency_hist's `pid` file)", NULL), \
	H_FLAG("all-tasks", o.lcfg.all_tasks, "measure non-RT tasks too (each on its own, no priority\nrules)"), \
	H_FLAG("both-off", o.lcfg.both_off, "preemptirqsoff = while irqs AND preemption are off\n(default: either)"), \
	H_OPT("resolution", 0, CLI_T_DUR, o.lcfg.hist.bucket_ns, 1, 0, 1000, "DUR", \
	      "bucket width (default 1us; sub-microsecond allowed, e.g.\n100ns; a bare number is us)", \
	      "a duration > 0 such as 1us, 100ns (a bare number is us)"), \
	H_OPT("buckets", 0, CLI_T_U64, o.nr_buckets, 1, LHIST_MAX_BUCKETS, 0, "N", "number of buckets (default 10240)", NULL), \
	CLI_CUSTOM("offset", 0, parse_offset, "DUR", "value of the first bucket (negative allowed; default 0)", \
		   "a duration such as 10us or -50us (a bare number is us)"), \
	H_OPT("table-size", 0, CLI_T_U64, o.table_size, 8, 1u << 24, 0, "N", \
	      "per-task tracking slots (default 4096; evictions are\ncounted)", NULL), \
	H_FLAG("nonzero", o.nonzero, "omit zero rows in the CPU files"), \
	{ .name = "per-task", .type = CLI_T_CUSTOM, .given_off = CLI_NONE, .parse = parse_per_task, \
	  .optional = true, .arg = "N", \
	  .help = "also the tasks that waited longest from wakeup to\n" \
		  "switch-in (wakeup kinds; comm, pid: count, p50, p99,\n" \
		  "max), the N worst by max (default 20, 0 = all kept)", \
	  .expect = "a number of rows 0..1048576 (--per-task=N)" }, \
	CLI_OPT("threshold", 'T', CLI_T_DUR, struct hctx, o.threshold_ns, CLI_GIVEN(struct hctx, o.threshold_given), \
		0, 0, 1000, "DUR", \
		"exit 1 when a reported maximum exceeds DUR (100us, 1ms;\n" \
		"a bare number is us), or when events were lost or\n" \
		"dropped (the histograms cannot pass then); record and\n" \
		"top stop as soon as a sample exceeds it", \
		"a duration such as 100us, 1ms (a bare number is us)"), \
	CLI_STRICT(struct hctx, o.strict)

/* The live runs: record and top. */
#define HIST_LIVE_OPTS \
	CLI_CHOICE("backend", 0, hist_parse_backend, hist_backend_names, "NAME", \
		   "where the histograms are kept: perf (default: events\n" \
		   "through perf rings to the userspace trackers), bpf\n" \
		   "(BPF programs keep them in the kernel: wakeup,\n" \
		   "sharedprio, timer, timerandwakeup, and with --irqsoff\n" \
		   "the preemptirq kinds; no -o, no keep-busy), kernel\n" \
		   "(the kernel's hist triggers and a synthetic event:\n" \
		   "wakeup only; no -o, no --irqsoff, no keep-busy),\n" \
		   "auto (bpf, else kernel, else perf, with one\n" \
		   "line on stderr saying why)", "perf, bpf, kernel or auto"), \
	CLI_CPUS('c', struct hctx, lo.cpus, lo.cpus_given, "CPUs to trace and to run the timer threads on\n(default all online)"), \
	CLI_OUTPUT(struct hctx, o.record_out, "also write the raw events to a perf.data FILE (hist\nreport reads it)"), \
	H_OPT("record", 0, CLI_T_STR, o.record_out, 0, 0, 0, "FILE", NULL, NULL), \
	CLI_OPT("keep-busy", 0, CLI_T_SETINT, struct hctx, lo.keep_busy, CLI_NONE, 1, 0, 0, NULL, \
		"run a SCHED_IDLE spinner on each traced CPU (it never\n" \
		"delays other work, but keeps the CPU out of idle: some\n" \
		"kernels drop the perf samples of interrupts taken while\n" \
		"idle)", NULL), \
	CLI_OPT("no-keep-busy", 0, CLI_T_SETINT, struct hctx, lo.keep_busy, CLI_NONE, 0, 0, 0, NULL, \
		"never do that.  Default: a 150 ms self-test per CPU at\n" \
		"start turns it on (with a note on stderr) when the\n" \
		"kernel drops such samples", NULL), \
	H_FLAG("irqsoff", lo.irqsoff_live, \
	       "also trace preemptirq:* (irqsoff/preemptoff; needs a\n" \
	       "kernel with CONFIG_PREEMPTIRQ_TRACEPOINTS, and is very\nfrequent)"), \
	CLI_RING_SIZE(struct hctx, lo.ring_bytes, 1024, 4096, 1ULL << 32, \
		      "ring buffer per CPU (512K, 16M; a bare number is KiB;\ndefault 16M)", \
		      "a size of 4K..4G such as 512K, 16M (a bare number is KiB)"), \
	H_OPT("ring-bytes", 0, CLI_T_SIZE, lo.ring_bytes, 4096, 1ULL << 32, 1, "N", NULL, \
	      "a size of 4K..4G such as 65536 (bytes), 512K, 16M"), \
	H_OPT("collector-prio", 0, CLI_T_U64, lo.collector_prio, 0, 99, 0, "N", \
	      "run the collecting thread SCHED_FIFO N (1..99) so a\n" \
	      "CPU-hungry load cannot starve it into losing events (it\n" \
	      "then shows up as an RT task)", NULL), \
	H_OPT("timer-workload", 't', CLI_T_FLAG, lo.timer, 0, 0, 0, NULL, \
	      "run a cyclictest-like timer thread per CPU as the victim\n" \
	      "workload (its own latency is shown beside the kernel-side\nhistograms)", NULL), \
	H_FLAG("timer", lo.timer, NULL), \
	H_OPT("interval", 0, CLI_T_DUR, lo.interval_ns, 10000, 0, 1000, "DUR", \
	      "its period (default 1000us; a bare number is us)", \
	      "a duration of at least 10us such as 1ms, 200us (a bare number is us)"), \
	CLI_PRIORITY(struct hctx, lo.prio, lo.prio_given, \
		     "its policy and priority: f:PRIO (SCHED_FIFO; default\n" \
		     "f:95), r:PRIO (SCHED_RR), o:NICE (SCHED_OTHER), or PRIO\nfor f:PRIO"), \
	CLI_CUSTOM("prio", 0, parse_old_prio, "N", NULL, "0..99 (0 = SCHED_OTHER); -P takes o:NICE, r:PRIO, f:PRIO"), \
	H_OPT("dma-latency", 0, CLI_T_I64, lo.dma_latency_us, (uint64_t)-1, INT32_MAX, 0, "US", \
	      "while it runs, hold /dev/cpu_dma_latency at US (default\n" \
	      "0, as cyclictest does; -1 = leave the C-states alone)", NULL), \
	CLI_OPT("auto", 'a', CLI_T_DUR, struct hctx, fw.auto_ns, CLI_GIVEN(struct hctx, fw.have_auto), 1, 0, 1000, \
		"DUR", "automatic analysis: stop when a sample exceeds DUR\n" \
		"(-T DUR), keep the trace (--trace) and say what made\n" \
		"up the worst sample: timer and wakeup parts, who ran", \
		"a duration such as 100us, 1ms (a bare number is us)"), \
	{ .name = "trace", .type = CLI_T_CUSTOM, .given_off = CLI_NONE, .parse = hist_parse_trace, \
	  .optional = true, .arg = "FILE", \
	  .help = "keep the run's events in a perf.data FILE (= -o FILE;\n" \
		  "default hist_trace.data) that latscope script, perf\n" \
		  "script and hist report read", .expect = "a file name" }, \
	CLI_CUSTOM("on-threshold", 0, hist_parse_on_threshold, "ACTION", \
		   "when -T/-a is exceeded (repeatable): trace[,file=F],\n" \
		   "signal,num=N,pid=P|parent, shell,command=CMD (the\n" \
		   "event in LATSCOPE_* variables), continue (go on)", \
		   "trace[,file=F], signal,num=N,pid=P|parent, shell,command=CMD (or continue)"), \
	CLI_CUSTOM("on-end", 0, hist_parse_on_end, "ACTION", \
		   "at the end of the run (repeatable): the same but\ncontinue", \
		   "trace[,file=F], signal,num=N,pid=P|parent, shell,command=CMD")

#define HIST_OUTRO \
	"Exit status: 0 ok, 1 threshold exceeded or data lost under --threshold/--strict,\n" \
	"2 error (a write error on stdout or a file included), 130 aborted by a second Ctrl-C.\n" \
	"man latscope-hist for the details.\n"

#define HIST_LIVE_INTRO \
	"Measure wakeup and timer latency live from tracepoints (perf_event_open), like the\n" \
	"PREEMPT_RT latency_hist patch.  Needs root (or perf_event_paranoid <= -1).\n" \
	"Times are in us in the tables, in ns in the JSON.\n"

static const struct cli_opt report_opts[] = {
	CLI_INPUT(struct hctx, o.input, "perf.data file, '-' = pipe on stdin (default perf.data)"),
	CLI_CUSTOM("time", 0, parse_time, "START,END",
		   "only samples in this window (seconds of the recording\n"
		   "clock, e.g. traced_from_ns..traced_until_ns of `hist\n"
		   "record --json`; either side may be empty)",
		   "START,END in seconds such as 3425.01,3428.1 (either side may be empty; START <= END)"),
	HIST_OUTPUT_OPTS,
	H_FLAG("force", o.force, "write -O even where the tree (or a file or link in it)\n"
	       "belongs to another user (replaced, never written\nthrough), or its path goes through "
	       "another user's link\n(followed)"),
	CLI_QUIET(struct hctx, o.quiet, "no notes on stderr about types the input cannot give"),
	CLI_END
};


const struct cli_cmd hist_report_cli = {
	.name = "latscope hist report",
	.usage = "usage: latscope hist report [-i perf.data] [options]",
	.intro =
"Build latency_hist-style histograms from recorded tracepoints (sched:*, timer:hrtimer_*,\n"
"preemptirq:* when present), e.g. from\n"
"  perf record -e 'sched:sched_switch,sched:sched_waking,sched:sched_wakeup,\n"
"    sched:sched_migrate_task,timer:hrtimer_*' -a -- <workload>\n"
"or from `latscope hist record -o FILE`.  Times are in us in the tables, in ns in\n"
"the JSON.\n",
	.opts = report_opts,
	.outro = HIST_OUTRO,
	.conflicts = HIST_CONFLICTS,
};

#define HIST_LIVE_FORCE \
	H_FLAG("force", o.force, "write -o/-O even where the target (or a file or link in\n" \
	       "the tree) belongs to another user (replaced, never\nwritten through), or its path goes " \
	       "through another\nuser's link (followed)")

/* record and top: the same command line but for --refresh and the defaults */
#define HIST_LIVE_CLI(sub, o) { \
	.name = "latscope hist " sub, \
	.usage = "usage: latscope hist " sub " [-c cpus] [-d duration] [--timer-workload] [-o perf.data] " \
		 "[options]", \
	.intro = HIST_LIVE_INTRO, \
	.opts = (o), \
	.outro = HIST_OUTRO, \
	.conflicts = HIST_CONFLICTS, \
}

static const struct cli_opt record_opts[] = {
	CLI_DURATION(struct hctx, lo.duration_ns, "how long (10s, 1m30s; default 10s; Ctrl-C stops\nearly)"),
	HIST_LIVE_OPTS,
	HIST_OUTPUT_OPTS,
	HIST_LIVE_FORCE,
	CLI_PROGRESS(struct hctx, o.progress, "a status line on stderr (elapsed, events, lost)\n"
		     "redrawn each second (default: when stderr is a\nterminal and no -q)"),
	CLI_QUIET(struct hctx, o.quiet, "only the histograms at the end: no \"# ... measuring\"\n"
		  "line, no notes on stderr about types this kernel cannot\ngive"),
	CLI_END
};

const struct cli_cmd hist_record_cli = HIST_LIVE_CLI("record", record_opts);

static const struct cli_opt top_opts[] = {
	CLI_DURATION(struct hctx, lo.duration_ns, "how long (10s, 1m30s; default until Ctrl-C)"),
	HIST_LIVE_OPTS,
	H_OPT("refresh", 0, CLI_T_DUR, lo.refresh_ns, 10000000, 0, 1000000000ULL, "DUR",
	      "screen refresh period (default 1s)",
	      "a duration of at least 10ms such as 1s, 500ms (a bare number is seconds)"),
	H_FLAG("full", o.full, "the whole histograms on each screen (default: one line\n"
	       "per CPU: count, min, p50, p99, max of each kind, cut\nto the terminal)"),
	HIST_OUTPUT_OPTS,
	HIST_LIVE_FORCE,
	CLI_QUIET(struct hctx, o.quiet, "no refreshed screens: only the histograms at the end;\n"
		  "no notes on stderr about types this kernel cannot give"),
	CLI_END
};

const struct cli_cmd hist_top_cli = HIST_LIVE_CLI("top", top_opts);

/* An explicit --backend bpf|kernel that cannot serve this command line:
 * false, said on stderr. */
bool hist_backend_ok(const struct hctx *c)
{
	struct hsource_need need;
	char buf[512];

	hist_need(c, &need);
	const char *no = c->lo.backend ? hsource_conflict(c->lo.backend, &need, buf, sizeof(buf)) : NULL;
	if (!no)
		return true;
	fprintf(stderr, "%s: --backend %s %s; use --backend perf\n", c->prog, c->lo.backend->name, no);
	return false;
}

void hist_defaults(struct hctx *c, enum hmode mode, const char *prog)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->prog = prog;
	latency_cfg_default(&c->o.lcfg, 1);
	for (int t = 0; t < HSET_NR_KINDS; t++)
		c->o.types[t] = true;
	c->lo.duration_ns = mode == H_RECORD ? 10000000000ULL : 0;
	c->lo.refresh_ns = 1000000000ULL;
	c->lo.interval_ns = 1000000;
	c->lo.prio.policy = SCHED_FIFO;
	c->lo.prio.prio = 95;
	c->lo.keep_busy = -1;
	c->o.progress = PROGRESS_AUTO;
	c->lo.ring_bytes = HIST_DEFAULT_RING_BYTES;
	c->lo.backend = &hsource_perf;	/* the default: every event in userspace */
}

/* The values the tables keep apart, into the trackers' configuration. */
void hist_settle(struct hctx *c)
{
	if (c->o.json_buckets && !c->o.json_file)
		c->o.json = true;
	if (c->o.pid)
		c->o.lcfg.pid = (int32_t)c->o.pid;
	if (c->o.nr_buckets)
		c->o.lcfg.hist.nr_buckets = (uint32_t)c->o.nr_buckets;
	if (c->o.table_size)
		c->o.lcfg.pid_table = c->o.lcfg.timer_table = (uint32_t)c->o.table_size;
}

int cmd_hist(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum hmode mode;
		const struct cli_cmd *cli;
	} subs[] = {
		{ "report", H_REPORT, &hist_report_cli },
		{ "record", H_RECORD, &hist_record_cli },
		{ "top", H_TOP, &hist_top_cli },
	};
	struct hctx c;
	char err[512];
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: latscope hist {report|record|top} [options]\n"
			   "  report   histograms from a perf.data file with sched/timer tracepoints\n"
			   "  record   measure live for a duration, print or write the histograms\n"
			   "  top      measure live, refreshing a table per CPU\n"
			   "`latscope hist <sub> --help` for the options; man latscope-hist.\n");
		return argc < 2 ? EXIT_ERR : 0;
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]) && strcmp(argv[1], subs[i].name); i++)
		;
	if (i == sizeof(subs) / sizeof(subs[0])) {
		fprintf(stderr, "latscope hist: unknown subcommand '%s' (report, record or top)\n",
			argv[1]);
		return EXIT_ERR;
	}
	hist_defaults(&c, subs[i].mode, subs[i].cli->name);
	int rc = cli_parse(subs[i].cli, argc - 1, argv + 1, &c, NULL, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(subs[i].cli, stdout);
		return 0;
	}
	if (rc < 0 && c.fw.act_err[0]) {
		fprintf(stderr, "%s: %s\n", c.prog, c.fw.act_err);
		return EXIT_ERR;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "bad command line");
		return EXIT_ERR;
	}
	hist_settle(&c);
	if (c.mode != H_REPORT && hist_fieldwork_settle(&c))
		return EXIT_ERR;
	if (c.o.record_out && !strcmp(c.o.record_out, "-")) {
		fprintf(stderr, "%s: -o -: standard output carries the report; give the recording a file\n",
			c.prog);
		return EXIT_ERR;
	}
	if (!hist_backend_ok(&c))
		return EXIT_ERR;
	if (c.o.per_task) {
		int terr = tasklat_new(&c.run.tasks, TASKLAT_DEFAULT_SLOTS);
		if (terr < 0) {
			fprintf(stderr, "%s: --per-task: %s\n", c.prog, strerror(-terr));
			return EXIT_ERR;
		}
	}
	int ret = c.mode == H_REPORT ? hist_report(&c) : hist_live(&c);
	latency_free(c.run.lat);
	tasklat_free(c.run.tasks);
	firedtab_free(&c.in.fired);
	return ret;
}
