/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope osnoise top|hist|trace|record`: OS noise measured in
 * userspace like the kernel osnoise tracer, every gap attributed from
 * tracepoints (lib/engine/noise.c), live or replayed from a perf.data file.  Here:
 * the command line (one src/cli.h table, rtla's letters), its checks, and
 * the entry that picks the run (src/osnoise/run.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "live/osnkernel.h"
#include "osnoise.h"

#define OPT(n, k, t, f, lo, hi, u, a, h, e) CLI_OPT(n, k, t, struct ctx, f, CLI_NONE, lo, hi, u, a, h, e)
#define GOPT(n, k, t, f, g, lo, hi, a, h) \
	CLI_OPT(n, k, t, struct ctx, f, CLI_GIVEN(struct ctx, g), lo, hi, 0, a, h, NULL)
#define FLAG(n, f, h) OPT(n, 0, CLI_T_FLAG, f, 0, 0, 0, NULL, h, NULL)
#define STR(n, k, f, a, h) OPT(n, k, CLI_T_STR, f, 0, 0, 0, a, h, NULL)

/* --backend NAME: enum osnoise_backend's order */
static const char *const backend_names[] = { "perf", "bpf", "kernel", "auto", NULL };

static int parse_backend(const char *arg, void *params)
{
	const char *const *names = backend_names;
	struct ctx *c = params;

	for (size_t i = 0; names[i]; i++)
		if (!strcmp(arg, names[i])) {
			c->opt.backend = (enum osnoise_backend)i;
			c->opt.backend_given = true;
			return 0;
		}
	return -EINVAL;
}

/* --on-threshold ACTION, --on-end ACTION (src/action.h) */
static int parse_action(struct ctx *c, struct action_list *l, const char *opt, const char *arg,
			bool cont)
{
	return action_parse_option(l, opt, arg, cont, c->fw.act_err, sizeof(c->fw.act_err));
}

static int parse_on_threshold(const char *arg, void *params)
{
	struct ctx *c = params;
	return parse_action(c, &c->fw.on_thr, "on-threshold", arg, true);
}

static int parse_on_end(const char *arg, void *params)
{
	struct ctx *c = params;
	return parse_action(c, &c->fw.on_end, "on-end", arg, false);
}

/* -t, --trace[=FILE] */
static int parse_trace(const char *arg, void *params)
{
	struct ctx *c = params;
	if (arg && !*arg)
		return -EINVAL;
	c->fw.trace = c->fw.trace_asked = true;
	if (arg)
		c->fw.trace_file = arg;
	return 0;
}

#define ACTION_EXPECT "trace[,file=F], signal,num=N,pid=P|parent, shell,command=CMD (or continue)"

static const struct cli_opt osnoise_opts[] = {
	CLI_CPUS('c', struct ctx, opt.cpus, opt.have_cpus, "measured CPUs (default all online)"),
	GOPT("house-keeping", 'H', CLI_T_CPUS, opt.hk, opt.have_hk, 0, 0, "L",
	     "CPUs for latscope's collector (default: the others)"),
	CLI_DURATION(struct ctx, opt.duration_ns,
		     "run time (10s, 2m, 1m30s; a bare number is\nseconds); default until Ctrl-C"),
	OPT("period", 'p', CLI_T_DUR_US, opt.period_us, 100, 10000000, 0, "US",
	    "period (default 1000000; 1ms, 1s work too)", NULL),
	GOPT("runtime", 'r', CLI_T_DUR_US, opt.runtime_us, opt.have_runtime, 100, 10000000, "US",
	     "busy-loop part of the period (default = period)"),
	GOPT("threshold", 'T', CLI_T_DUR_US, opt.threshold_us, opt.have_T, 1, 10000000, "US",
	     "minimum gap counted as noise (default 1)"),
	GOPT("stop", 's', CLI_T_DUR_US, opt.stop_us, opt.have_stop, 1, UINT32_MAX, "US",
	     "stop when a single gap is above US"),
	OPT("stop-total", 'S', CLI_T_DUR_US, opt.stop_total_us, 1, UINT32_MAX, 0, "US",
	    "stop when a period's noise is above US", NULL),
	GOPT("auto", 'a', CLI_T_DUR_US, fw.auto_us, fw.have_auto, 1, UINT32_MAX, "US",
	     "automatic analysis: stop when a single gap is above\n"
	     "US (-s US), keep the trace (-t) and say what made up\n"
	     "that gap: each IRQ, softirq, thread, the HW remainder"),
	{ .name = "trace", .key = 't', .type = CLI_T_CUSTOM, .given_off = CLI_NONE,
	  .parse = parse_trace, .optional = true, .arg = "FILE",
	  .help = "keep the run's events in a perf.data FILE (default\n"
		  "osnoise_trace.data; -tFILE or --trace=FILE) that\n"
		  "latscope script and perf script read",
	  .expect = "a file name" },
	CLI_CUSTOM("on-threshold", 0, parse_on_threshold, "ACTION",
		   "when -s/-S/-a is hit (repeatable): trace[,file=F],\n"
		   "signal,num=N,pid=P|parent, shell,command=CMD (the\n"
		   "event in LATSCOPE_* variables), continue (go on)", ACTION_EXPECT),
	CLI_CUSTOM("on-end", 0, parse_on_end, "ACTION",
		   "at the end of the run (repeatable): the same but\ncontinue", ACTION_EXPECT),
	OPT("dma-latency", 0, CLI_T_I64, opt.dma_latency_us, (uint64_t)-1, INT32_MAX, 0, "US",
	    "hold /dev/cpu_dma_latency at US while measuring\n(default -1: leave the C-states alone)", NULL),
	CLI_PRIORITY(struct ctx, opt.prio, opt.have_prio, "o:nice | r:prio | f:prio (default o:0, SCHED_OTHER)"),
	OPT("warm-up", 0, CLI_T_DUR, opt.warmup_ns, 0, 0, NS_PER_S, "T",
	    "run this long before collecting (bare: seconds)",
	    "a duration such as 10s, 500ms, 1m30s (a bare number is seconds)"),
	FLAG("tsc", opt.tsc, "read the TSC (constant_tsc) instead of CLOCK_MONOTONIC"),
	OPT("floor", 0, CLI_T_DUR, opt.floor_ns, 1, 1000000, 1, "NS",
	    "sub-threshold gaps counted from NS (default 4x loop)",
	    "1..1000000 ns (500ns, 2us, or a bare number of ns)"),
	CLI_RING_SIZE(struct ctx, opt.ring_bytes, 1024, 4096, 1 << 30,
		      "perf ring per CPU (default 8M; a bare number is KiB)",
		      "a size from 4K to 1G such as 512K, 16M (a bare number is KiB)"),
	FLAG("no-attribution", opt.no_attr, "do not open tracepoints"),
	FLAG("no-workload", opt.no_workload, "no busy loop: report every task's and IRQ's net time"),
	CLI_CHOICE("backend", 0, parse_backend, backend_names, "NAME",
		   "who attributes the gaps: perf (default: tracepoints\n"
		   "through perf rings), bpf (BPF programs count each CPU's\n"
		   "interference in the kernel; the loop reads the counts;\n"
		   "no record, no trace --events, no --no-workload), kernel\n"
		   "(the kernel osnoise tracer), auto (bpf, else kernel,\n"
		   "else perf, with one line on stderr saying why)",
		   "perf, bpf, kernel or auto"),
	FLAG("kernel", opt.kernel, "drive the kernel osnoise tracer through tracefs\n(= --backend kernel)"),
	STR("parse-kernel", 0, opt.kernel_text, "F", "show a saved kernel osnoise trace (text; - = stdin)"),
	CLI_INPUT(struct ctx, opt.input, "analyse a file written by `osnoise record`"),
	STR("replay", 0, opt.input, "FILE", NULL),	/* the older name of -i */
	CLI_OUTPUT(struct ctx, opt.output, "record: output perf.data (default osnoise.data)"),
	CLI_FORCE(struct ctx, opt.force),
	CLI_OPT("strict", 0, CLI_T_FLAG, struct ctx, opt.strict, CLI_NONE, 0, 0, 0, NULL,
		"exit 1 when events or records were lost or skipped\n(so do -s/-S)", NULL),
	OPT("top", 0, CLI_T_U64, out.top_n, 0, 256, 0, "N", "contributors shown per CPU (default 5)", NULL),
	CLI_QUIET(struct ctx, out.quiet, "top: only the final summary"),
	CLI_PROGRESS(struct ctx, out.progress, "hist: a status line on stderr (elapsed, gaps, lost)\n"
		     "redrawn each second (default: when stderr is a\nterminal)"),
	CLI_JSON(struct ctx, out.json, out.json_file),
	CLI_RENDERS(struct ctx, out.renders),
	OPT("bucket-size", 'b', CLI_T_DUR_US, out.bucket_us, 1, 999999, 0, "US", "hist: bucket width (default 1)",
	    NULL),
	OPT("entries", 'E', CLI_T_U64, out.entries, 10, 9999999, 0, "N", "hist: number of buckets (default 256)", NULL),
	FLAG("with-zeros", out.with_zeros, "hist: also the buckets that are empty on every CPU"),
	FLAG("no-header", out.no_header, "hist: no header lines"),
	FLAG("no-summary", out.no_summary, "hist: no summary rows (over: ... p99.99:) nor details"),
	FLAG("events", out.events, "trace: also print sample_threshold, nmi/irq/softirq/\nthread_noise"),
	CLI_END
};

const struct cli_cmd osnoise_cli = {
	.name = "latscope osnoise",
	.usage = "usage: latscope osnoise [top|hist|trace|record] [options]",
	.intro =
"Measure OS noise per CPU like the kernel osnoise tracer, in userspace: one\n"
"pinned thread per CPU reads the time in a loop; every gap at or above the\n"
"threshold is noise, attributed to the NMIs, IRQs, softirqs and threads that\n"
"ran inside it (tracepoints through perf_event_open; net durations).  A gap\n"
"with no interference is HW noise (in a VM: the hypervisor).\n"
"\n"
"  top      per-CPU table refreshed each period (default)\n"
"  hist     histogram of single gaps per CPU with percentiles\n"
"  trace    one record per period per CPU in the kernel tracer's layout\n"
"  record   measure and write tracepoints + gaps to a perf.data file (-o)\n"
"\n"
"Times take suffixes (5us, 1ms, 1m30s); a bare number is in the unit shown.\n",
	.opts = osnoise_opts,
	.outro =
"Exit status: 0 ok, 1 a stop threshold was hit (or data was lost under\n"
"-s/-S/--strict), 2 error (a write error on stdout included), 130 aborted by a\n"
"second Ctrl-C.\n"
"See latscope-osnoise(1).\n",
	/* --tsc is how the busy loop reads the time: there is none */
	.conflicts = (const char *const[][2]){ { "no-workload", "tsc" }, { NULL, NULL } },
};

int osnoise_parse(struct ctx *c, int argc, char **argv)
{
	static const char *const modes[] = { "top", "hist", "trace", "record" };
	static const char *const names[] = {
		"latscope osnoise top", "latscope osnoise hist", "latscope osnoise trace",
		"latscope osnoise record",
	};
	struct cli_cmd cmd = osnoise_cli;
	char err[512];
	int shift = 0;

	memset(c, 0, sizeof(*c));
	c->mode = M_TOP;
	c->prog = "latscope osnoise";
	c->opt.period_us = 1000000;
	c->opt.threshold_us = 1;
	c->out.bucket_us = 1;
	c->out.entries = 256;
	c->out.top_n = 5;
	c->out.progress = PROGRESS_AUTO;
	c->opt.prio.policy = SCHED_OTHER;
	c->opt.output = "osnoise.data";
	c->opt.dma_latency_us = -1;
	if (argc > 1 && argv[1][0] != '-') {
		size_t m = 0;
		while (m < 4 && strcmp(argv[1], modes[m]))
			m++;
		if (m == 4) {
			fprintf(stderr, "latscope osnoise: no mode '%s' (top, hist, trace, record)\n",
				argv[1]);
			return EXIT_ERR;
		}
		c->mode = (enum mode)m;
		cmd.name = names[m];	/* messages name the mode given */
		c->prog = names[m];
		shift = 1;
	}
	int rc = cli_parse(&cmd, argc - shift, argv + shift, c, NULL, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(&cmd, stdout);
		return 0;
	}
	if (rc < 0 && c->fw.act_err[0]) {
		fprintf(stderr, "%s: %s\n", c->prog, c->fw.act_err);
		return EXIT_ERR;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "latscope osnoise: bad command line");
		return EXIT_ERR;
	}
	if (!c->opt.have_runtime)
		c->opt.runtime_us = c->opt.period_us;
	if (c->opt.runtime_us > c->opt.period_us) {
		fprintf(stderr, "latscope osnoise: runtime (%" PRIu64 " us) must not exceed the period (%"
			PRIu64 " us)\n", c->opt.runtime_us, c->opt.period_us);
		return EXIT_ERR;
	}
	if (c->mode == M_RECORD && c->opt.input) {
		fprintf(stderr, "latscope osnoise: record cannot replay (-i); use top/hist/trace -i\n");
		return EXIT_ERR;
	}
	if ((c->mode == M_RECORD && !strcmp(c->opt.output, "-")) ||
	    (c->fw.trace_file && !strcmp(c->fw.trace_file, "-"))) {
		fprintf(stderr, "%s: -: standard output carries the report; give the recording a file\n",
			c->prog);
		return EXIT_ERR;
	}
	if (c->opt.kernel) {	/* the older spelling of --backend kernel */
		if (c->opt.backend_given && c->opt.backend != OB_KERNEL) {
			fprintf(stderr, "%s: --kernel is --backend kernel; it contradicts --backend %s\n",
				c->prog, c->opt.backend == OB_PERF ? "perf" : c->opt.backend == OB_BPF ? "bpf" : "auto");
			return EXIT_ERR;
		}
		c->opt.backend = OB_KERNEL;
		c->opt.backend_given = true;
	}
	if (c->opt.backend_given && (c->opt.input || c->opt.kernel_text)) {
		fprintf(stderr, "%s: --backend chooses how a live run is measured; %s reads what was "
				"measured already\n", c->prog, c->opt.input ? "-i" : "--parse-kernel");
		return EXIT_ERR;
	}
	if (osnoise_fieldwork_settle(c))
		return EXIT_ERR;
	const char *no_k = osnoise_fieldwork_kernel_conflict(c);
	if (c->opt.backend == OB_KERNEL && no_k) {
		fprintf(stderr, "%s: --backend kernel %s; use --backend perf\n", c->prog, no_k);
		return EXIT_ERR;
	}
	const char *no_bpf = osnoise_bpf_conflict(c);
	if (c->opt.backend == OB_BPF && no_bpf) {
		fprintf(stderr, "%s: --backend bpf %s; use --backend %s\n", c->prog, no_bpf,
			c->mode == M_RECORD ? "perf" : "perf or kernel");
		return EXIT_ERR;
	}
	return -1;
}

/* auto: the kernel tracer where it exists and the mode is not record (it
 * writes no perf.data); false with why otherwise */
static bool kernel_usable(const struct ctx *c, char *why, size_t len)
{
	if (c->mode == M_RECORD) {
		snprintf(why, len, "not usable: it cannot record (osnoise record)");
		return false;
	}
	if (osnoise_fieldwork_kernel_conflict(c)) {
		snprintf(why, len, "not usable: it %s", osnoise_fieldwork_kernel_conflict(c));
		return false;
	}
	if (!osnkernel_available()) {
		snprintf(why, len, "refused: the kernel has no osnoise tracer (no osnoise/ in tracefs; "
			 "CONFIG_OSNOISE_TRACER)");
		return false;
	}
	return true;
}

/* --backend auto: bpf, else the kernel tracer (where the kernel has one:
 * a tracer that then fails to start is an error, as with --backend kernel),
 * else perf; one line on stderr names the backend and why the others are
 * not used. */
static int run_auto(struct ctx *c)
{
	char why_bpf[512], why_kernel[512];

	if (osnoise_try_bpf(c, why_bpf, sizeof(why_bpf))) {
		fprintf(stderr, "%s: backend bpf (BPF programs count the interference in the kernel; "
				"the kernel osnoise tracer and perf rings not needed)\n", c->prog);
		return osnoise_run_live(c);
	}
	if (kernel_usable(c, why_kernel, sizeof(why_kernel))) {
		fprintf(stderr, "%s: backend kernel (bpf %s; the kernel osnoise tracer measures)\n",
			c->prog, why_bpf);
		return osnoise_run_kernel(c);
	}
	fprintf(stderr, "%s: backend perf (bpf %s; kernel osnoise tracer %s)\n", c->prog, why_bpf,
		why_kernel);
	return osnoise_run_live(c);
}

int cmd_osnoise(int argc, char **argv)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	int rc = osnoise_parse(c, argc, argv);

	if (rc >= 0)
		return rc;
	if (c->opt.kernel_text)
		return osnoise_run_kernel_text(c, c->opt.kernel_text);
	if (c->opt.input)
		return osnoise_run_replay(c);
	char why[512];
	switch (c->opt.backend) {
	case OB_KERNEL:
		return osnoise_run_kernel(c);
	case OB_BPF:
		if (!osnoise_try_bpf(c, why, sizeof(why))) {
			fprintf(stderr, "%s: --backend bpf %s\n", c->prog, why);
			return EXIT_ERR;
		}
		rc = osnoise_run_live(c);
		break;
	case OB_AUTO:
		rc = run_auto(c);
		break;
	default:
		return osnoise_run_live(c);
	}
	osnbpf_close(c->run.bpf);	/* a run that failed before its end left it */
	c->run.bpf = NULL;
	return rc;
}
