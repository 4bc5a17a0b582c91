/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope monitor`: its option table (hist's live options, the
 * exposition's and the extra counters'), its checks, and hist_live() run
 * with the monitor's hooks (monitor.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "print/promexp.h"
#include "monitor.h"

_Static_assert(MONITOR_MAX_BOUNDS == PROMEXP_MAX_BOUNDS, "--le holds what promexp takes");

#define M_OPT(n, k, t, f, lo, hi, u, a, h, e) CLI_OPT(n, k, t, struct monctx, f, CLI_NONE, lo, hi, u, a, h, e)
#define M_FLAG(n, f, h) M_OPT(n, 0, CLI_T_FLAG, f, 0, 0, 0, NULL, h, NULL)

/* --listen: "" or "none" = no server (only --textfile) */
static int parse_listen(const char *arg, void *params)
{
	struct monctx *m = params;

	m->mo.no_listen = !*arg || !strcmp(arg, "none");
	m->mo.listen = m->mo.no_listen ? NULL : arg;
	return 0;
}

#define MONITOR_DEFAULT_LISTEN ":9798"	/* METRICSRV_DEFAULT_PORT on every address */

static const struct cli_opt monitor_opts[] = {
	CLI_CUSTOM("listen", 'l', parse_listen, "ADDR:PORT",
		   "serve Prometheus's /metrics on ADDR:PORT ([V6]:PORT,\n"
		   ":PORT for every address, PORT; default :9798; none:\n"
		   "no server, only --textfile)",
		   "ADDR:PORT, [V6ADDR]:PORT, :PORT, PORT or none"),
	M_OPT("textfile", 0, CLI_T_STR, mo.textfile, 0, 0, 0, "DIR",
	      "also write DIR/latscope.prom at every refresh, renamed\n"
	      "into place (node_exporter's textfile collector)", NULL),
	M_OPT("refresh", 0, CLI_T_DUR, h.lo.refresh_ns, 100000000, 0, 1000000000ULL, "DUR",
	      "read the backend and publish every DUR (default 5s; a\n"
	      "scrape gets the last snapshot, never waits for one)",
	      "a duration of at least 100ms such as 5s, 1s (a bare number is seconds)"),
	CLI_CUSTOM("le", 0, monitor_parse_le, "LIST",
		   "the exposition's bucket bounds, ascending (default\n"
		   "1,2,5,10,20,50,100,200,500,1000,2000,5000,10000 us;\n"
		   "a bare number is us; multiples of --resolution)",
		   "ascending durations such as 5,10,20us,1ms (a bare number is us; at most 64)"),
	CLI_CUSTOM("noise", 0, monitor_parse_noise, "RUNTIME/PERIOD",
		   "also count OS noise per CPU and class as osnoise does:\n"
		   "a busy loop RUNTIME of every PERIOD on each measured\n"
		   "CPU (10ms/1s: 1 percent of it), attribution by BPF\nprograms",
		   "RUNTIME/PERIOD such as 10ms/1s (runtime <= period; a bare number is us)"),
	M_OPT("noise-threshold", 0, CLI_T_DUR_US, mo.noise_threshold_us, 1, 1000000, 0, "DUR",
	      "with --noise: gaps at or above DUR are noise (default\n5us; a bare number is us)", NULL),
	M_OPT("timerlat", 0, CLI_T_DUR_US, mo.timerlat_period_us, 100, 1000000, 0, "PERIOD",
	      "also keep the kernel's timerlat tracer running at PERIOD\n"
	      "on the measured CPUs (a SCHED_FIFO 95 thread woken each\n"
	      "PERIOD) with its IRQ and thread latency kept by a BPF\n"
	      "program on osnoise:timerlat_sample (Linux 6.15+)", NULL),
	M_FLAG("dtl", mo.dtl, "also count the POWER hypervisor's dispatches per CPU\n"
	       "(Dispatch Trace Log: the vpa_dtl PMU, else debugfs;\n"
	       "shared-processor LPARs only)"),
	M_OPT("dtl-aux-size", 0, CLI_T_SIZE, mo.dtl_aux_bytes, 4096, 1ULL << 32, 1024, "SIZE",
	      "--dtl: the vpa_dtl AUX buffer per CPU (default 128K;\n"
	      "a power of two of pages; each wrap of it loses\n"
	      "entries: a larger one wraps less often)", NULL),
	M_OPT("sysfs", 0, CLI_T_STR, mo.sysfs, 0, 0, 0, "DIR", "--dtl: sysfs root (default /sys; tests)", NULL),
	M_OPT("debugfs", 0, CLI_T_STR, mo.debugfs, 0, 0, 0, "DIR", "--dtl: debugfs root (default /sys/kernel/debug)", NULL),
	M_OPT("procfs", 0, CLI_T_STR, mo.procfs, 0, 0, 0, "DIR", "--dtl: procfs root (default /proc)", NULL),
	CLI_DURATION(struct monctx, h.lo.duration_ns, "stop after this long (default: until SIGTERM or\nCtrl-C)"),
	CLI_CHOICE("backend", 0, hist_parse_backend, hist_backend_names, "NAME",
		   "where the histograms are kept: auto (default: bpf,\n"
		   "else kernel, else perf, one line on stderr saying\n"
		   "why), bpf, kernel or perf (as hist record)", "perf, bpf, kernel or auto"),
	CLI_CPUS('c', struct monctx, h.lo.cpus, h.lo.cpus_given, "CPUs to measure (default all online)"),
	CLI_CUSTOM("types", 0, hist_parse_types, "LIST",
		   "wakeup,sharedprio,timer,timerandwakeup,irqsoff,\n"
		   "preemptoff,preemptirqsoff (default all the backend has)",
		   "a comma list of wakeup, sharedprio, timer, timerandwakeup, irqsoff, preemptoff, "
		   "preemptirqsoff"),
	M_OPT("pid", 0, CLI_T_U64, h.o.pid, 1, INT32_MAX, 0, "PID", "only this task", NULL),
	M_FLAG("all-tasks", h.o.lcfg.all_tasks, "measure non-RT tasks too (each on its own, no priority\nrules)"),
	M_FLAG("irqsoff", h.lo.irqsoff_live, "also irqsoff/preemptoff where the kernel has the\npreemptirq tracepoints"),
	M_FLAG("both-off", h.o.lcfg.both_off, "preemptirqsoff = while irqs AND preemption are off"),
	M_OPT("resolution", 0, CLI_T_DUR, h.o.lcfg.hist.bucket_ns, 1, 0, 1000, "DUR",
	      "the kept histograms' bucket width (default 1us)",
	      "a duration > 0 such as 1us, 100ns (a bare number is us)"),
	M_OPT("buckets", 0, CLI_T_U64, h.o.nr_buckets, 1, LHIST_MAX_BUCKETS, 0, "N",
	      "the kept histograms' buckets (default 10240; above\nthe last: the +Inf bucket)", NULL),
	M_OPT("table-size", 0, CLI_T_U64, h.o.table_size, 8, 1u << 24, 0, "N",
	      "per-task tracking slots (default 4096)", NULL),
	CLI_OPT("keep-busy", 0, CLI_T_SETINT, struct monctx, h.lo.keep_busy, CLI_NONE, 1, 0, 0, NULL,
		"perf backend: SCHED_IDLE spinners on the measured CPUs", NULL),
	CLI_OPT("no-keep-busy", 0, CLI_T_SETINT, struct monctx, h.lo.keep_busy, CLI_NONE, 0, 0, 0, NULL,
		"perf backend: never (default: after a self-test)", NULL),
	CLI_RING_SIZE(struct monctx, h.lo.ring_bytes, 1024, 4096, 1ULL << 32,
		      "perf backend: ring buffer per CPU (default 16M)",
		      "a size of 4K..4G such as 512K, 16M (a bare number is KiB)"),
	M_OPT("collector-prio", 0, CLI_T_U64, h.lo.collector_prio, 0, 99, 0, "N",
	      "run the collecting thread SCHED_FIFO N (1..99)", NULL),
	M_FLAG("force", h.o.force, "write --textfile where the directory or file belongs\nto another user"),
	CLI_END
};

const struct cli_cmd monitor_cli = {
	.name = "latscope monitor",
	.usage = "usage: latscope monitor [--listen ADDR:PORT] [--textfile DIR] [-c cpus] [options]",
	.intro =
"Keep the latency histograms of `hist record` for as long as it runs, on the bpf\n"
"backend where it can (cheap enough to leave on), and serve them to Prometheus:\n"
"latscope_latency_seconds{kind,cpu} histograms in seconds, the worst case with its\n"
"victim and culprit, and what the monitor costs.  SIGHUP starts the histograms\n"
"again from zero; SIGTERM or Ctrl-C stops it and removes everything it set up.\n",
	.opts = monitor_opts,
	.outro = "Exit status: 0 stopped by a signal or -d, 2 error.  man latscope-monitor;\n"
		 "docs/monitor.md for Prometheus, Grafana and systemd.\n",
	.conflicts = HIST_CONFLICTS,
};

static const struct hist_live_hooks monitor_hooks = {
	.begin = monitor_begin,
	.start = monitor_start,
	.publish = monitor_publish,
	.process = monitor_process,
	.reset = monitor_reset,
	.end = monitor_end,
};

int cmd_monitor(int argc, char **argv)
{
	struct monctx m;
	struct hctx *c = &m.h;
	char err[512];

	memset(&m, 0, sizeof(m));
	hist_defaults(c, H_MONITOR, monitor_cli.name);
	c->lo.duration_ns = 0;
	c->lo.refresh_ns = 5000000000ULL;
	c->lo.backend = NULL;	/* auto */
	m.mo.listen = MONITOR_DEFAULT_LISTEN;
	m.mon.text_dirfd = -1;
	int rc = cli_parse(&monitor_cli, argc, argv, &m, NULL, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(&monitor_cli, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "bad command line");
		return EXIT_ERR;
	}
	hist_settle(c);
	if (m.mo.no_listen && !m.mo.textfile) {
		fprintf(stderr, "%s: --listen none needs --textfile DIR: the metrics would go nowhere\n",
			c->prog);
		return EXIT_ERR;
	}
	/* the rule promexp_hset() applies, said here, before anything starts */
	size_t bad = promexp_first_bad_bound(&c->o.lcfg.hist, m.mo.bounds_ns, m.mo.nr_bounds);
	if (bad < m.mo.nr_bounds) {
		fprintf(stderr, "%s: --le %" PRIu64 " ns is not a bucket edge of the kept histograms "
				"(multiples of --resolution %" PRIu64 " ns)\n",
			c->prog, m.mo.bounds_ns[bad], c->o.lcfg.hist.bucket_ns);
		return EXIT_ERR;
	}
	if (!hist_backend_ok(c))
		return EXIT_ERR;
	c->hooks = &monitor_hooks;
	return hist_live(c);
}

