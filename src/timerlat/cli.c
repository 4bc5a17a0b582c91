/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope timerlat top|hist|trace`: the command line (one
 * src/cli.h table; rtla's letters where rtla has the option: -i is the IRQ
 * threshold and -T the thread one, as in `rtla timerlat`), its checks, and
 * the entry that picks the run (run.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "timerlat.h"

#define OPT(n, k, t, f, lo, hi, u, a, h, e) CLI_OPT(n, k, t, struct tl, f, CLI_NONE, lo, hi, u, a, h, e)
#define FLAG(n, k, f, h) OPT(n, k, CLI_T_FLAG, f, 0, 0, 0, NULL, h, NULL)
#define US(n, k, f, lo, hi, h) OPT(n, k, CLI_T_DUR_US, f, lo, hi, 0, "US", h, NULL)

/* --backend NAME: enum tl_backend's order */
static const char *const backend_names[] = { "trace", "bpf", "auto", NULL };

static int parse_backend(const char *arg, void *params)
{
	struct tl *c = params;
	for (size_t i = 0; backend_names[i]; i++)
		if (!strcmp(arg, backend_names[i])) {
			c->opt.backend = (enum tl_backend)i;
			c->opt.backend_given = true;
			return 0;
		}
	return -EINVAL;
}

static int parse_action(struct tl *c, struct action_list *l, const char *opt, const char *arg, bool cont)
{
	return action_parse_option(l, opt, arg, cont, c->opt.act_err, sizeof(c->opt.act_err));
}

static int parse_on_threshold(const char *arg, void *params)
{
	struct tl *c = params;
	return parse_action(c, &c->opt.on_thr, "on-threshold", arg, true);
}

static int parse_on_end(const char *arg, void *params)
{
	struct tl *c = params;
	return parse_action(c, &c->opt.on_end, "on-end", arg, false);
}

/* -t, --trace[=FILE] */
static int parse_trace(const char *arg, void *params)
{
	struct tl *c = params;
	if (arg && !*arg)
		return -EINVAL;
	c->opt.trace = true;
	if (arg)
		c->opt.trace_file = arg;
	return 0;
}

/* -e, --event SYS[:NAME] */
static int parse_event(const char *arg, void *params)
{
	struct tl *c = params;
	size_t i = c->opt.nr_events;
	if (i == TL_EVENTS) {
		snprintf(c->opt.act_err, sizeof(c->opt.act_err), "-e: at most %d events", TL_EVENTS);
		return -EINVAL;
	}
	char *t = c->opt.event_names[i];
	if (!*arg || strlen(arg) >= sizeof(c->opt.event_names[i]) || strchr(arg, '/'))
		return -EINVAL;
	strcpy(t, arg);
	char *colon = strchr(t, ':');
	if (colon)
		*colon = 0;
	if (!*t || (colon && (!colon[1] || strchr(colon + 1, ':'))))
		return -EINVAL;
	c->opt.events[i] = (struct osnkernel_event){ .system = t, .name = colon ? colon + 1 : NULL };
	c->opt.nr_events++;
	return 0;
}

/* --filter EXPR, --trigger CMD: for the -e before */
static int parse_event_file(struct tl *c, const char *opt, const char *arg)
{
	if (!c->opt.nr_events) {
		snprintf(c->opt.act_err, sizeof(c->opt.act_err), "--%s applies to the -e before it: give -e SYS:NAME first",
			 opt);
		return -EINVAL;
	}
	struct osnkernel_event *e = &c->opt.events[c->opt.nr_events - 1];
	const char **slot = !strcmp(opt, "filter") ? &e->filter : &e->trigger;
	if (!e->name) {
		snprintf(c->opt.act_err, sizeof(c->opt.act_err), "--%s: -e %s names a whole system; give one event "
			 "(SYS:NAME)", opt, e->system);
		return -EINVAL;
	}
	if (*slot) {
		snprintf(c->opt.act_err, sizeof(c->opt.act_err), "--%s given twice for -e %s:%s", opt, e->system,
			 e->name);
		return -EINVAL;
	}
	if (!*arg)
		return -EINVAL;
	*slot = arg;
	return 0;
}

static int parse_filter(const char *arg, void *params)
{
	return parse_event_file(params, "filter", arg);
}

static int parse_trigger(const char *arg, void *params)
{
	return parse_event_file(params, "trigger", arg);
}

/* -C, --cgroup[=NAME] */
static int parse_cgroup(const char *arg, void *params)
{
	struct tl *c = params;
	if (arg && !*arg)
		return -EINVAL;
	c->opt.cgroup = true;
	c->opt.cgroup_name = arg;
	return 0;
}

#define ACTION_EXPECT "trace[,file=F], signal,num=N,pid=P|parent, shell,command=CMD (or continue)"

static const struct cli_opt timerlat_opts[] = {
	CLI_CPUS('c', struct tl, opt.cpus, opt.have_cpus, "measured CPUs (default all online)"),
	CLI_OPT("house-keeping", 'H', CLI_T_CPUS, struct tl, opt.hk, CLI_GIVEN(struct tl, opt.have_hk), 0, 0, 0,
		"L", "CPUs for latscope's reader (default: the others)", NULL),
	CLI_DURATION(struct tl, opt.duration_ns,
		     "run time (10s, 2m, 1m30s; a bare number is\nseconds); default until Ctrl-C"),
	US("period", 'p', opt.period_us, 100, 1000000, "the timer's period (default 1000 us; 100us..1s)"),
	US("irq", 'i', opt.irq_us, 1, UINT32_MAX, "stop when an IRQ latency is at or above US"),
	US("thread", 'T', opt.thread_us, 1, UINT32_MAX,
	   "stop when a thread latency (or, with -u, a return to\nuser space) is at or above US"),
	US("stack", 's', opt.stack_us, 1, UINT32_MAX,
	   "the kernel saves the stack of an IRQ latency at or\nabove US and prints it (shown at the stop)"),
	US("auto", 'a', opt.auto_us, 1, UINT32_MAX,
	   "automatic analysis: stop at a thread (and IRQ) latency\n"
	   "at or above US (-T, -i), the stack (-s), the trace (-t)\n"
	   "and the osnoise events, then split the sample into\n"
	   "handler delay, IRQ latency and each IRQ, softirq, NMI\n"
	   "and thread after it"),
	{ .name = "trace", .key = 't', .type = CLI_T_CUSTOM, .given_off = CLI_NONE,
	  .parse = parse_trace, .optional = true, .arg = "FILE",
	  .help = "keep the tracer's text of the run in FILE (default\n"
		  "timerlat_trace.txt; -tFILE or --trace=FILE)",
	  .expect = "a file name" },
	{ .name = "event", .key = 'e', .type = CLI_T_CUSTOM, .given_off = CLI_NONE,
	  .parse = parse_event, .arg = "SYS[:NAME]",
	  .help = "also trace this event (or every event of SYS) in\n"
		  "latscope's instance: its lines go to the trace (-t,\n"
		  "timerlat trace); repeatable, at most 16",
	  .expect = "an event as SYS:NAME or a system as SYS (sched:sched_switch, irq)" },
	CLI_CUSTOM("filter", 0, parse_filter, "EXPR",
		   "the kernel's filter for the -e event before it\n(e.g. 'prev_prio < 100')",
		   "a filter expression of tracefs (field == value, &&, ||)"),
	CLI_CUSTOM("trigger", 0, parse_trigger, "CMD",
		   "a trigger for the -e event before it (e.g. stacktrace,\n"
		   "'hist:keys=common_pid')", "a trigger command of tracefs (stacktrace, hist:...)"),
	{ .name = "cgroup", .key = 'C', .type = CLI_T_CUSTOM, .given_off = CLI_NONE,
	  .parse = parse_cgroup, .optional = true, .arg = "NAME",
	  .help = "run the timerlat threads in the cgroup NAME (cgroup v2,\n"
		  "a path under its mount; default: latscope's own); -u:\n"
		  "latscope itself moves there for the run",
	  .expect = "a cgroup (-Cname or --cgroup=name)" },
	FLAG("kernel-threads", 'k', opt.kthreads, "the kernel's timerlat threads (default)"),
	FLAG("user-threads", 'u', opt.uthreads,
	     "latscope's threads read osnoise/per_cpu/cpuN/timerlat_fd:\n"
	     "the return to user space is measured too (Linux 6.6+)"),
	CLI_PRIORITY(struct tl, opt.prio, opt.have_prio,
		     "the timerlat threads' policy: o:nice | r:prio | f:prio\n"
		     "| d:runtime:period (default: the kernel's, f:95)"),
	OPT("dma-latency", 0, CLI_T_I64, opt.dma_latency_us, (uint64_t)-1, INT32_MAX, 0, "US",
	    "hold /dev/cpu_dma_latency at US while measuring\n(default -1: leave the C-states alone)", NULL),
	OPT("deepest-idle-state", 0, CLI_T_I64, opt.deepest_idle, (uint64_t)-1, 64, 0, "N",
	    "the measured CPUs enter no idle state deeper than N\n"
	    "while measuring (cpuidle's disable files, restored at\n"
	    "the end; -1: none at all)", NULL),
	OPT("warm-up", 0, CLI_T_DUR, opt.warmup_ns, 0, 0, NS_PER_S, "T",
	    "run this long before collecting (bare: seconds)",
	    "a duration such as 10s, 500ms, 1m30s (a bare number is seconds)"),
	OPT("trace-buffer-size", 0, CLI_T_SIZE, opt.buffer_bytes, 4096, 1ULL << 32, 1024, "SIZE",
	    "the instance's ring per CPU (default 8M; a bare number\nis KiB)",
	    "a size from 4K to 4G such as 512K, 16M (a bare number is KiB)"),
	CLI_CUSTOM("on-threshold", 0, parse_on_threshold, "ACTION",
		   "when -i/-T is hit (repeatable): trace[,file=F],\n"
		   "signal,num=N,pid=P|parent, shell,command=CMD (the\n"
		   "event in LATSCOPE_* variables), continue (go on)", ACTION_EXPECT),
	CLI_CUSTOM("on-end", 0, parse_on_end, "ACTION",
		   "at the end of the run (repeatable): the same but\ncontinue", ACTION_EXPECT),
	CLI_CHOICE("backend", 0, parse_backend, backend_names, "NAME",
		   "where the samples are kept: trace (default: the\n"
		   "tracer's ring, read as text), bpf (a BPF program on\n"
		   "osnoise:timerlat_sample keeps the histograms in the\n"
		   "kernel, Linux 6.15+; no -t, -s, trace, continue), auto\n"
		   "(bpf where it can, else trace, with one line saying why)",
		   "trace, bpf or auto"),
	OPT("parse-kernel", 0, CLI_T_STR, opt.parse_kernel, 0, 0, 0, "F",
	    "show a saved timerlat trace (the text of tracefs trace\nor trace_pipe; - = stdin)", NULL),
	CLI_FORCE(struct tl, opt.force),
	CLI_OPT("strict", 0, CLI_T_FLAG, struct tl, opt.strict, CLI_NONE, 0, 0, 0, NULL,
		"exit 1 when a record was lost or an activation missed", NULL),
	CLI_QUIET(struct tl, out.quiet, "top: only the final summary"),
	CLI_PROGRESS(struct tl, out.progress, "hist: a status line on stderr (elapsed, samples,\n"
		     "lost) redrawn each second (default: when stderr is a\nterminal)"),
	CLI_JSON(struct tl, out.json, out.json_file),
	CLI_RENDERS(struct tl, out.renders),
	US("bucket-size", 'b', out.bucket_us, 1, 999999, "hist: bucket width (default 1)"),
	OPT("entries", 'E', CLI_T_U64, out.entries, 10, 9999999, 0, "N", "hist: number of buckets (default 256)",
	    NULL),
	FLAG("no-irq", 0, out.no_irq, "hist: no IRQ columns"),
	FLAG("no-thread", 0, out.no_thread, "hist: no thread (nor user) columns"),
	FLAG("with-zeros", 0, out.with_zeros, "hist: also the buckets that are empty on every CPU"),
	FLAG("no-header", 0, out.no_header, "hist: no header lines"),
	FLAG("no-summary", 0, out.no_summary, "hist: no summary rows (count: ... max:)"),
	CLI_END
};

const struct cli_cmd timerlat_cli = {
	.name = "latscope timerlat",
	.usage = "usage: latscope timerlat [top|hist|trace] [options]",
	.intro =
"Measure timer latency per CPU with the kernel's timerlat tracer: a timer\n"
"fires each period on every measured CPU; the tracer records how late its\n"
"IRQ handler ran (IRQ latency) and how late its thread ran (thread latency;\n"
"with -u also the return to user space).  latscope drives the tracer in a\n"
"tracefs instance of its own, restores every setting at the end, and names\n"
"every record the ring lost and every activation it missed.\n"
"\n"
"  top      per-CPU table refreshed each second (default)\n"
"  hist     histogram of the latencies per CPU and context\n"
"  trace    the tracer's records as they come\n"
"\n"
"Times take suffixes (5us, 1ms, 1m30s); a bare number is in the unit shown.\n"
"As in rtla, -i is the IRQ threshold; a saved trace is read with\n"
"--parse-kernel.\n",
	.opts = timerlat_opts,
	.outro =
"Exit status: 0 ok, 1 a stop threshold was hit (or, under --strict, a record\n"
"was lost or an activation missed), 2 error (a write error on stdout\n"
"included), 130 aborted by a second Ctrl-C.\n"
"See latscope-timerlat(1).\n",
	.conflicts = (const char *const[][2]){ { "kernel-threads", "user-threads" }, { "no-irq", "no-thread" },
					       { NULL, NULL } },
};

/* The checks of options that go together. */
static int settle(struct tl *c)
{
	if (c->opt.auto_us) {	/* rtla's -a: the thresholds, the stack, the trace */
		if (!c->opt.irq_us)
			c->opt.irq_us = c->opt.auto_us;
		if (!c->opt.thread_us)
			c->opt.thread_us = c->opt.auto_us;
		if (!c->opt.stack_us)
			c->opt.stack_us = c->opt.auto_us;
		c->opt.trace = !c->opt.parse_kernel;	/* (a saved trace is one already) */
	}
	if (!c->opt.have_prio)	/* the kernel's own threads' policy, for -u's too */
		c->opt.prio = (struct cli_prio){ .policy = SCHED_FIFO, .prio = 95 };
	if (c->opt.trace && !c->opt.trace_file)
		c->opt.trace_file = "timerlat_trace.txt";
	if (c->opt.trace_file && !strcmp(c->opt.trace_file, "-")) {
		fprintf(stderr, "%s: -: standard output carries the report; give the trace a file\n", c->prog);
		return EXIT_ERR;
	}
	if (c->opt.on_thr.trace && !c->opt.trace_file) {
		c->opt.trace = true;
		c->opt.trace_file = c->opt.on_thr.trace_file ? c->opt.on_thr.trace_file : "timerlat_trace.txt";
	}
	if ((c->opt.on_thr.n || c->opt.on_thr.cont) && !c->opt.irq_us && !c->opt.thread_us) {
		fprintf(stderr, "%s: --on-threshold needs a threshold: -i or -T\n", c->prog);
		return EXIT_ERR;
	}
	if (c->opt.nr_events && !c->opt.trace && c->mode != TL_TRACE) {
		fprintf(stderr, "%s: -e: the events' lines go to the trace: add -t FILE (or use timerlat trace)\n",
			c->prog);
		return EXIT_ERR;
	}
	const char *no_bpf = timerlat_bpf_conflict(c);
	if (c->opt.backend == TL_BPF && no_bpf) {
		fprintf(stderr, "%s: --backend bpf %s; use --backend trace\n", c->prog, no_bpf);
		return EXIT_ERR;
	}
	if (c->opt.parse_kernel && c->opt.backend_given) {
		fprintf(stderr, "%s: --backend chooses how a live run is measured; --parse-kernel reads what "
				"was measured already\n", c->prog);
		return EXIT_ERR;
	}
	if (c->opt.parse_kernel && (c->opt.nr_events || c->opt.cgroup)) {
		fprintf(stderr, "%s: --parse-kernel reads what was measured already; -e and -C are for a live run\n",
			c->prog);
		return EXIT_ERR;
	}
	if (c->opt.parse_kernel && (c->opt.uthreads || c->opt.have_prio || c->opt.trace ||
				    c->opt.dma_latency_us >= 0 || c->opt.warmup_ns || c->opt.buffer_bytes ||
				    c->opt.deepest_idle > -2)) {
		fprintf(stderr, "%s: --parse-kernel reads what was measured already; -u, -P, -t, "
				"--dma-latency, --deepest-idle-state, --warm-up and --trace-buffer-size are for a live run\n", c->prog);
		return EXIT_ERR;
	}
	return -1;
}

int timerlat_parse(struct tl *c, int argc, char **argv)
{
	static const char *const modes[] = { "top", "hist", "trace" };
	static const char *const names[] = {
		"latscope timerlat top", "latscope timerlat hist", "latscope timerlat trace",
	};
	struct cli_cmd cmd = timerlat_cli;
	char err[512];
	int shift = 0;

	memset(c, 0, sizeof(*c));
	c->mode = TL_TOP;
	c->prog = "latscope timerlat";
	c->opt.period_us = 1000;
	c->opt.dma_latency_us = -1;
	c->opt.deepest_idle = -2;
	c->opt.prio.policy = SCHED_FIFO;
	c->out.bucket_us = 1;
	c->out.entries = 256;
	c->out.progress = PROGRESS_AUTO;
	if (argc > 1 && argv[1][0] != '-') {
		size_t m = 0;
		while (m < 3 && strcmp(argv[1], modes[m]))
			m++;
		if (m == 3) {
			fprintf(stderr, "latscope timerlat: no mode '%s' (top, hist, trace)\n", argv[1]);
			return EXIT_ERR;
		}
		c->mode = (enum tl_mode)m;
		cmd.name = names[m];
		c->prog = names[m];
		shift = 1;
	}
	int rc = cli_parse(&cmd, argc - shift, argv + shift, c, NULL, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(&cmd, stdout);
		return 0;
	}
	if (rc < 0 && c->opt.act_err[0]) {
		fprintf(stderr, "%s: %s\n", c->prog, c->opt.act_err);
		return EXIT_ERR;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "latscope timerlat: bad command line");
		return EXIT_ERR;
	}
	return settle(c);
}

int cmd_timerlat(int argc, char **argv)
{
	static struct tl tl;	/* the histograms' state: not on the stack */
	struct tl *c = &tl;
	int rc = timerlat_parse(c, argc, argv);

	if (rc >= 0)
		return rc;
	if (c->opt.parse_kernel)
		return timerlat_run_text(c, c->opt.parse_kernel);
	return timerlat_run_live(c);
}
