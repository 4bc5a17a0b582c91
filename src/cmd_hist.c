/* SPDX-License-Identifier: MIT */
/*
 * cmd_hist.c - `latscope hist`: latency_hist-style histograms.
 *
 *   hist report [-i perf.data]   offline, from recorded tracepoints
 *   hist record [-d DUR]         live (perf_event_open), histograms at the end
 *   hist top [-d DUR]            live, refreshed terminal view
 *
 * The trackers (lib/latency.c) are the same in every mode; live and offline
 * events go through the same decoder (lib/tpdecode.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "jsonv.h"
#include "evsrc.h"
#include "idlecheck.h"
#include "latency.h"
#include "lhist.h"
#include "lhout.h"
#include "parse.h"
#include "privhint.h"
#include "pdread.h"
#include "pdwrite.h"
#include "safeout.h"
#include "tfsformat.h"
#include "timerwl.h"
#include "tpevent.h"

enum hmode { H_REPORT, H_RECORD, H_TOP };

/* 16 MiB per CPU: no loss at 500k events/s (machine-facts.md); the rings
 * also absorb a collector starved for a while by a CPU-hungry load. */
#define HIST_DEFAULT_RING_BYTES (16u << 20)

struct hctx {
	enum hmode mode;
	const char *prog;		/* "latscope hist report" */
	/* options */
	const char *input;
	const char *outdir;
	const char *record_out;
	bool json, json_buckets, nonzero;
	bool types[LAT_NR_TYPES];
	bool types_given;
	struct lat_cfg lcfg;
	int64_t threshold_ns;		/* -1 = none */
	uint64_t duration_ns, refresh_ns;
	struct ps_cpuset cpus;
	bool cpus_given;
	bool irqsoff_live;
	size_t ring_bytes;
	bool timer, live_opt;		/* live_opt: an option only record/top take */
	int keep_busy;			/* -1 auto (self-test), 0 off, 1 on */
	int collector_prio;
	int64_t dma_latency_us;		/* with the timer workload; -1 = leave alone */		/* SCHED_FIFO priority of the collecting thread, 0 = none */
	uint64_t time_lo_ns, time_hi_ns;	/* report --time window */
	bool time_given;
	uint64_t interval_ns;
	int prio;
	/* state */
	struct lat *lat;
	bool has[TPE_NR_KINDS];
	uint32_t max_cpu_seen;
	bool any_cpu;
	uint64_t decoded, undecoded, bad_raw, no_raw;
	uint64_t lost_events, lost_samples;
	uint64_t unknown_id, bad_samples;	/* report: samples the reader skipped */
	uint64_t out_of_order, forced;		/* delivered late / flushes forced by a full queue */
	bool force, strict;
	struct twl *twl;
	struct pdw *pw;
	bool live_err;
	uint64_t first_ns, last_ns;	/* time of the first/last event fed */
	bool decoded_any;
	uint64_t traced_from_ns, traced_until_ns;	/* live: all CPUs enabled */
	uint64_t outside;		/* samples outside --time */
	bool busy_on;			/* keep-busy spinners ran */
	const char *busy_why;		/* "self-test", "option" */
	struct idc_cpu_result idc[64];
	size_t nidc;
	int idc_err;			/* self-test error (0 = ran or not run) */
	bool idc_ran;
};


static void usage(FILE *f, enum hmode m)
{
	if (m == H_REPORT)
		fprintf(f,
"usage: latscope hist report [-i perf.data] [options]\n"
"\n"
"Build latency_hist-style histograms from recorded tracepoints (sched:*, timer:hrtimer_*,\n"
"preemptirq:* when present), e.g. from\n"
"  perf record -e 'sched:sched_switch,sched:sched_waking,sched:sched_wakeup,\n"
"    sched:sched_migrate_task,timer:hrtimer_*' -a -- <workload>\n"
"or from `latscope hist record -o FILE`.\n"
"\n"
"  -i, --input FILE       perf.data file, '-' = pipe on stdin (default perf.data)\n"
"      --time START,END   only samples in this window (seconds of the recording clock, e.g.\n"
"                         traced_from_ns..traced_until_ns of `hist record --json`; either side may\n"
"                         be empty)\n");
	else
		fprintf(f,
"usage: latscope hist %s [-c cpus] [-d duration] [--timer-workload] [-o perf.data] [options]\n"
"\n"
"Measure wakeup and timer latency live from tracepoints (perf_event_open), like the\n"
"PREEMPT_RT latency_hist patch.  Needs root (or perf_event_paranoid <= -1).\n"
"\n"
"  -d, --duration DUR     how long (10s, 2m; default %s; Ctrl-C stops early)\n"
"  -c, --cpus LIST        CPUs to trace (default all online)\n"
"  -o, --record FILE      also write the raw events to a perf.data FILE (hist report reads it)\n"
"      --keep-busy        run a SCHED_IDLE spinner on each traced CPU (it never delays other\n"
"                         work, but keeps the CPU out of idle: some kernels drop the perf\n"
"                         samples of interrupts taken while idle)\n"
"      --no-keep-busy     never do that.  Default: a 150 ms self-test per CPU at start turns\n"
"                         it on (with a note on stderr) when the kernel drops such samples\n"
"      --irqsoff          also trace preemptirq:* (irqsoff/preemptoff; needs a kernel with\n"
"                         CONFIG_PREEMPTIRQ_TRACEPOINTS, and is very frequent)\n"
"      --ring-bytes N     ring buffer per CPU (K/M/G suffixes; default 16M)\n"
"      --collector-prio N run the collecting thread SCHED_FIFO N (1..99) so a CPU-hungry load\n"
"                         cannot starve it into losing events (it then shows up as an RT task)\n"
"  -t, --timer-workload   run a cyclictest-like timer thread per CPU as the victim workload\n"
"                         (its own latency is shown beside the kernel-side histograms)\n"
"      --interval DUR     its period (default 1000us)\n"
"  -p, --prio N           its SCHED_FIFO priority (default 95; 0 = SCHED_OTHER)\n"
"      --dma-latency US   while it runs, hold /dev/cpu_dma_latency at US (default 0, as\n"
"                         cyclictest does; -1 = leave the C-states alone)\n"
"%s",
			m == H_TOP ? "top" : "record", m == H_TOP ? "until Ctrl-C" : "10s",
			m == H_TOP ? "      --refresh DUR      screen refresh period (default 1s)\n" : "");
	fprintf(f,
"\n"
"Histograms and output:\n"
"  -O, --output-dir DIR   write the latency_hist tree: DIR/wakeup/CPU0, DIR/wakeup/sharedprio/CPU0,\n"
"                         DIR/missed_timer_offsets/CPU0, DIR/timerandwakeup/CPU0, DIR/irqsoff/CPU0,\n"
"                         ..., and DIR/<type>/max_latency-CPU0\n"
"      --json             JSON on stdout instead of the table (--buckets-json: with the buckets)\n"
"      --types LIST       wakeup,sharedprio,timer,timerandwakeup,irqsoff,preemptoff,\n"
"                         preemptirqsoff (default all the input supports)\n"
"      --pid PID          only this task (latency_hist's `pid` file)\n"
"      --all-tasks        measure non-RT tasks too (each on its own, no priority rules)\n"
"      --both-off         preemptirqsoff = while irqs AND preemption are off (default: either)\n"
"      --resolution DUR   bucket width (default 1us; sub-microsecond allowed, e.g. 100ns)\n"
"      --buckets N        number of buckets (default 10240)\n"
"      --offset DUR       value of the first bucket (negative allowed; default 0)\n"
"      --table-size N     per-task tracking slots (default 4096; evictions are counted)\n"
"      --nonzero          omit zero rows in the CPU files\n"
"      --threshold DUR    exit 1 when a reported maximum exceeds DUR (e.g. 100us), or when\n"
"                         events were lost or dropped (the histograms cannot pass then)\n"
"      --strict           exit 1 when events were lost or dropped, threshold or not\n"
"      --force            write -o/-O even where the target (or a file or link in the tree)\n"
"                         belongs to another user: it is replaced, never written through\n"
"  -h, --help             this text (man latscope-hist)\n"
"\n"
"Exit status: 0 ok, 1 threshold exceeded or data lost under --threshold/--strict,\n"
"2 error (a write error on stdout or a file included), 130 aborted by a second Ctrl-C.\n");
}

static const struct {
	const char *name;
	enum lat_type t;
} type_names[] = {
	{ "wakeup", LAT_WAKEUP },
	{ "sharedprio", LAT_WAKEUP_SHAREDPRIO },
	{ "wakeup/sharedprio", LAT_WAKEUP_SHAREDPRIO },
	{ "timer", LAT_MISSED_TIMER },
	{ "missed_timer_offsets", LAT_MISSED_TIMER },
	{ "timerandwakeup", LAT_TIMERANDWAKEUP },
	{ "irqsoff", LAT_IRQSOFF },
	{ "preemptoff", LAT_PREEMPTOFF },
	{ "preemptirqsoff", LAT_PREEMPTIRQSOFF },
};

static int parse_types(struct hctx *c, const char *arg)
{
	char *dup = strdup(arg), *save = NULL;
	if (!dup)
		return -ENOMEM;
	memset(c->types, 0, sizeof(c->types));
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;
		for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
			if (!strcmp(tok, type_names[i].name)) {
				c->types[type_names[i].t] = true;
				found = true;
			}
		if (!found) {
			fprintf(stderr, "%s: unknown histogram type '%s' (--help lists them)\n", c->prog,
				tok);
			free(dup);
			return -EINVAL;
		}
	}
	free(dup);
	c->types_given = true;
	return 0;
}

static int parse_signed_dur(const char *s, int64_t *out)
{
	uint64_t v = 0;
	bool neg = *s == '-';
	int err = ps_duration_ns(neg ? s + 1 : s, 1000, &v);
	if (err)
		return err;
	if (v > INT64_MAX)
		return -ERANGE;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int online_cpus(struct ps_cpuset *s)
{
	char buf[1024];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	memset(s, 0, sizeof(*s));
	if (f) {
		bool ok = fgets(buf, sizeof(buf), f) != NULL;
		fclose(f);
		if (ok) {
			buf[strcspn(buf, "\n")] = 0;
			if (!ps_cpulist(buf, s))
				return 0;
		}
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	for (long i = 0; i < n && i < PS_MAX_CPUS; i++)
		ps_cpuset_add(s, (unsigned)i);
	return n > 0 ? 0 : -ENODEV;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- output ----------------------------------------------------------- */

static uint32_t nr_out_cpus(const struct hctx *c)
{
	uint32_t n = c->any_cpu ? c->max_cpu_seen + 1 : 1;
	if (n > lat_nr_cpus(c->lat))
		n = lat_nr_cpus(c->lat);
	return n;
}

/* One file of the tree, inside directory fd dfd (lib/safeout: written under a
 * temporary name, renamed over the old one; never through a link). */
static int tree_file(struct hctx *c, int dfd, const char *shown, const char *name, int t,
		     uint32_t cpu)
{
	struct so_file *sf;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", shown, name);
	FILE *f = cio_fopen_safe(&sf, dfd, name, path, 0644, c->force, c->prog);
	if (!f)
		return EXIT_ERR;
	if (!strncmp(name, "max_latency", 11)) {
		char line[256];
		lhout_maxline(line, sizeof(line), lat_max(c->lat, t, cpu));
		fputs(line, f);
	} else {
		lhout_hist_file(f, lat_hist(c->lat, t, cpu), &c->lcfg.hist, c->nonzero);
	}
	return cio_fclose_safe(f, sf, path, false, c->prog);
}

/* The latency_hist tree under -O: every directory opened O_NOFOLLOW relative
 * to its parent, every file through tree_file(). */
static int write_tree(struct hctx *c, const bool unsup[LAT_NR_TYPES])
{
	char path[PATH_MAX], name[64];
	uint32_t ncpu = nr_out_cpus(c);
	unsigned fl = c->force ? SO_FORCE : 0;
	int top, err;

	err = so_dir_open(&top, AT_FDCWD, c->outdir, fl);
	if (err) {
		fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, c->outdir, so_strerror(err));
		return EXIT_ERR;
	}
	for (int t = 0; t < LAT_NR_TYPES; t++) {
		if (!c->types[t] || unsup[t])
			continue;
		/* "wakeup/sharedprio": one directory per component */
		char tn[64];
		snprintf(tn, sizeof(tn), "%s", lat_type_name(t));
		int dfd = dup(top);
		path[0] = 0;
		snprintf(path, sizeof(path), "%s", c->outdir);
		for (char *save = NULL, *comp = strtok_r(tn, "/", &save); dfd >= 0 && comp;
		     comp = strtok_r(NULL, "/", &save)) {
			int nfd;
			size_t pl = strlen(path);
			snprintf(path + pl, sizeof(path) - pl, "/%s", comp);
			err = so_dir_open(&nfd, dfd, comp, fl);
			close(dfd);
			dfd = -1;
			if (err) {
				fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, path, so_strerror(err));
				close(top);
				return EXIT_ERR;
			}
			dfd = nfd;
		}
		if (dfd < 0) {
			fprintf(stderr, "%s: %s: %s\n", c->prog, path, strerror(errno));
			close(top);
			return EXIT_ERR;
		}
		for (uint32_t cpu = 0; cpu < ncpu; cpu++) {
			snprintf(name, sizeof(name), "CPU%u", cpu);
			int rc = tree_file(c, dfd, path, name, t, cpu);
			if (!rc && lat_type_has_maxfile(t)) {
				snprintf(name, sizeof(name), "max_latency-CPU%u", cpu);
				rc = tree_file(c, dfd, path, name, t, cpu);
			}
			if (rc) {
				close(dfd);
				close(top);
				return rc;
			}
		}
		close(dfd);
	}
	close(top);
	return 0;
}

static const char *why_unsupported(enum lat_type t)
{
	switch (t) {
	case LAT_WAKEUP:
	case LAT_WAKEUP_SHAREDPRIO:
		return "needs sched:sched_switch and sched:sched_wakeup or sched:sched_waking";
	case LAT_MISSED_TIMER:
		return "needs timer:hrtimer_start, hrtimer_expire_entry/exit and sched wakeups";
	case LAT_TIMERANDWAKEUP:
		return "needs the wakeup and the timer events";
	default:
		return "needs preemptirq:irq_disable/irq_enable or preempt_disable/enable "
		       "(kernel with CONFIG_PREEMPTIRQ_TRACEPOINTS; not available on this machine "
		       "if tracefs has no events/preemptirq)";
	}
}

static struct json_object *keep_busy_json(const struct hctx *c)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "enabled", json_object_new_boolean(c->busy_on));
	if (c->busy_why)
		json_object_object_add(o, "why", json_object_new_string(c->busy_why));
	if (c->idc_ran) {
		struct json_object *a = json_object_new_array();
		if (c->idc_err)
			json_object_object_add(o, "self_test_error",
					       json_object_new_string(strerror(-c->idc_err)));
		for (size_t i = 0; a && i < c->nidc; i++) {
			struct json_object *e = json_object_new_object();
			if (!e)
				break;
			json_object_object_add(e, "cpu", json_object_new_int((int)c->idc[i].cpu));
			json_object_object_add(e, "timer_irqs",
					       json_object_new_int64((int64_t)c->idc[i].irqs));
			json_object_object_add(e, "samples",
					       json_object_new_int64((int64_t)c->idc[i].samples));
			json_object_object_add(e, "verdict",
					       json_object_new_string(idc_verdict_name(c->idc[i].verdict)));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "self_test", a);
	}
	return o;
}

static struct json_object *stat_json(const struct lhist *h)
{
	struct json_object *o = json_object_new_object();
	int64_t p50 = 0, p99 = 0;
	if (!o)
		return NULL;
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)(h ? h->total : 0)));
	if (!h || !h->total)
		return o;
	lhist_percentile_ns(h, 50, &p50);
	lhist_percentile_ns(h, 99, &p99);
	json_object_object_add(o, "min_ns", json_object_new_int64(h->min_ns));
	json_object_object_add(o, "avg_ns", json_object_new_int64(lhist_avg_ns(h)));
	json_object_object_add(o, "p50_ns", json_object_new_int64(p50));
	json_object_object_add(o, "p99_ns", json_object_new_int64(p99));
	json_object_object_add(o, "max_ns", json_object_new_int64(h->max_ns));
	return o;
}

static struct json_object *twl_json(struct hctx *c)
{
	struct json_object *a = json_object_new_array();
	struct lhist h;
	if (!a || lhist_init(&h, &c->lcfg.hist) < 0) {
		json_object_put(a);
		return NULL;
	}
	for (unsigned i = 0; i < twl_nr_threads(c->twl); i++) {
		struct twl_thread_info info;
		twl_snapshot(c->twl, i, &info, &h);
		struct json_object *o = json_object_new_object();
		if (!o)
			break;
		json_object_object_add(o, "cpu", json_object_new_int((int)info.cpu));
		json_object_object_add(o, "tid", json_object_new_int(info.tid));
		json_object_object_add(o, "sched_fifo", json_object_new_boolean(info.fifo));
		json_object_object_add(o, "cycles", json_object_new_int64((int64_t)info.cycles));
		json_object_object_add(o, "overruns", json_object_new_int64((int64_t)info.overruns));
		if (h.total) {
			int64_t p50 = 0, p99 = 0;
			lhist_percentile_ns(&h, 50, &p50);
			lhist_percentile_ns(&h, 99, &p99);
			json_object_object_add(o, "min_ns", json_object_new_int64(h.min_ns));
			json_object_object_add(o, "avg_ns", json_object_new_int64(lhist_avg_ns(&h)));
			json_object_object_add(o, "max_ns", json_object_new_int64(h.max_ns));
			json_object_object_add(o, "p50_ns", json_object_new_int64(p50));
			json_object_object_add(o, "p99_ns", json_object_new_int64(p99));
		}
		if (c->lat && info.cpu < lat_nr_cpus(c->lat)) {
			struct json_object *k = json_object_new_object();
			if (k) {
				json_object_object_add(k, "wakeup",
						       stat_json(lat_hist(c->lat, LAT_WAKEUP, info.cpu)));
				json_object_object_add(
					k, "timerandwakeup",
					stat_json(lat_hist(c->lat, LAT_TIMERANDWAKEUP, info.cpu)));
				json_object_object_add(
					k, "missed_timer_offsets",
					stat_json(lat_hist(c->lat, LAT_MISSED_TIMER, info.cpu)));
				json_object_object_add(o, "kernel", k);
			}
		}
		json_object_array_add(a, o);
	}
	lhist_fini(&h);
	return a;
}

static void stat_row(FILE *f, unsigned cpu, const char *what, const struct lhist *h)
{
	int64_t p50 = 0, p99 = 0;
	if (!h || !h->total) {
		fprintf(f, "%6u %-24s %10d\n", cpu, what, 0);
		return;
	}
	lhist_percentile_ns(h, 50, &p50);
	lhist_percentile_ns(h, 99, &p99);
	fprintf(f, "%6u %-24s %10" PRIu64 " %8.1f %8.1f %8.1f %8.1f %8.1f\n", cpu, what, h->total,
		(double)h->min_ns / 1e3, (double)lhist_avg_ns(h) / 1e3, (double)p50 / 1e3,
		(double)p99 / 1e3, (double)h->max_ns / 1e3);
}

static void twl_table(struct hctx *c, FILE *f)
{
	struct lhist h;
	if (lhist_init(&h, &c->lcfg.hist) < 0)
		return;
	fprintf(f, "timer workload (own measurement, us): interval %" PRIu64 " us, %s\n",
		c->interval_ns / 1000, c->prio ? "SCHED_FIFO" : "SCHED_OTHER");
	fprintf(f, "%6s %8s %10s %8s %8s %8s %8s %9s\n", "CPU", "tid", "cycles", "min", "avg", "p99",
		"max", "overruns");
	for (unsigned i = 0; i < twl_nr_threads(c->twl); i++) {
		struct twl_thread_info info;
		twl_snapshot(c->twl, i, &info, &h);
		int64_t p99 = 0;
		lhist_percentile_ns(&h, 99, &p99);
		fprintf(f, "%6u %8d %10" PRIu64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64
			   " %9" PRIu64 "%s\n",
			info.cpu, (int)info.tid, info.cycles, h.total ? h.min_ns / 1000 : 0,
			h.total ? lhist_avg_ns(&h) / 1000 : 0, p99 / 1000,
			h.total ? h.max_ns / 1000 : 0, info.overruns,
			c->prio && !info.fifo ? "  (SCHED_FIFO refused)" : "");
	}
	fprintf(f, "\nworkload's own latency beside the kernel-side histograms (us):\n");
	fprintf(f, "%6s %-24s %10s %8s %8s %8s %8s %8s\n", "CPU", "source", "samples", "min", "avg",
		"p50", "p99", "max");
	for (unsigned i = 0; i < twl_nr_threads(c->twl); i++) {
		struct twl_thread_info info;
		twl_snapshot(c->twl, i, &info, &h);
		stat_row(f, info.cpu, "workload (own)", &h);
		if (!c->lat || info.cpu >= lat_nr_cpus(c->lat))
			continue;
		const struct lhist *tw = lat_hist(c->lat, LAT_TIMERANDWAKEUP, info.cpu);
		stat_row(f, info.cpu, "kernel timerandwakeup", tw);
		stat_row(f, info.cpu, "kernel wakeup", lat_hist(c->lat, LAT_WAKEUP, info.cpu));
		stat_row(f, info.cpu, "kernel missed_timer", lat_hist(c->lat, LAT_MISSED_TIMER, info.cpu));
		if (h.total && tw && tw->total) {
			int64_t a50 = 0, a99 = 0, b50 = 0, b99 = 0;
			lhist_percentile_ns(&h, 50, &a50);
			lhist_percentile_ns(&h, 99, &a99);
			lhist_percentile_ns(tw, 50, &b50);
			lhist_percentile_ns(tw, 99, &b99);
			fprintf(f, "%6u %-24s %10s %8.1f %8.1f %8.1f %8.1f %8.1f\n", info.cpu,
				"own - timerandwakeup", "",
				(double)(h.min_ns - tw->min_ns) / 1e3,
				(double)(lhist_avg_ns(&h) - lhist_avg_ns(tw)) / 1e3,
				(double)(a50 - b50) / 1e3, (double)(a99 - b99) / 1e3,
				(double)(h.max_ns - tw->max_ns) / 1e3);
		}
	}
	fprintf(f, "(own = clock_gettime after the wakeup - the programmed expiry, so it adds the "
		   "return to user space to timer lateness + wakeup latency)\n");
	lhist_fini(&h);
}

static void term_view(struct hctx *c, FILE *f, const bool unsup[LAT_NR_TYPES])
{
	for (int t = 0; t < LAT_NR_TYPES; t++) {
		if (!c->types[t] || unsup[t])
			continue;
		lhout_term(f, c->lat, t, 0);
		if (lat_type_has_maxfile(t)) {
			for (uint32_t cpu = 0; cpu < nr_out_cpus(c); cpu++) {
				const struct lat_max *m = lat_max(c->lat, t, cpu);
				char line[256];
				if (!m->valid)
					continue;
				lhout_maxline(line, sizeof(line), m);
				fprintf(f, "  max_latency-CPU%u: %s", cpu, line);
			}
		}
		fprintf(f, "\n");
	}
	for (int t = 0; t < LAT_NR_TYPES; t++)
		if (c->types[t] && unsup[t] && c->types_given)
			fprintf(f, "%s: not available: %s\n", lat_type_name(t), why_unsupported(t));
	if (c->twl)
		twl_table(c, f);
}

static int64_t worst(const struct hctx *c, const bool unsup[LAT_NR_TYPES])
{
	int64_t w = INT64_MIN;
	for (int t = 0; t < LAT_NR_TYPES; t++) {
		if (!c->types[t] || unsup[t])
			continue;
		for (uint32_t cpu = 0; cpu < lat_nr_cpus(c->lat); cpu++) {
			const struct lhist *h = lat_hist(c->lat, t, cpu);
			if (h && h->total && h->max_ns > w)
				w = h->max_ns;
		}
	}
	return w;
}

/* Events the histograms miss: lost by the kernel or dropped by us. */
static uint64_t dropped(const struct hctx *c)
{
	const struct lat_stats *st = lat_stats(c->lat);
	return c->lost_events + c->lost_samples + c->unknown_id + c->bad_samples + c->bad_raw +
	       c->no_raw + st->bad_cpu + st->alloc_failures;
}

static int emit(struct hctx *c)
{
	bool unsup[LAT_NR_TYPES];
	int rc = 0;

	for (int t = 0; t < LAT_NR_TYPES; t++)
		unsup[t] = !lat_type_supported(t, c->has);
	const struct lat_stats *st = lat_stats(c->lat);

	if (c->outdir) {
		int err = write_tree(c, unsup);
		if (err)
			return EXIT_ERR;
	}
	if (c->json) {
		struct json_object *j = lhout_json(c->lat, c->types, unsup, c->json_buckets);
		if (!j) {
			fprintf(stderr, "%s: out of memory building JSON\n", c->prog);
			return EXIT_ERR;
		}
		struct json_object *in = json_object_new_object();
		if (in) {
			json_object_object_add(in, "decoded", json_object_new_int64((int64_t)c->decoded));
			json_object_object_add(in, "undecoded",
					       json_object_new_int64((int64_t)c->undecoded));
			json_object_object_add(in, "bad_raw", json_object_new_int64((int64_t)c->bad_raw));
			json_object_object_add(in, "lost_events",
					       json_object_new_int64((int64_t)c->lost_events));
			json_object_object_add(in, "lost_samples",
					       json_object_new_int64((int64_t)c->lost_samples));
			json_object_object_add(in, "no_raw", json_object_new_int64((int64_t)c->no_raw));
			json_object_object_add(in, "unknown_id",
					       json_object_new_int64((int64_t)c->unknown_id));
			json_object_object_add(in, "bad_samples",
					       json_object_new_int64((int64_t)c->bad_samples));
			json_object_object_add(in, "out_of_order",
					       json_object_new_int64((int64_t)c->out_of_order));
			json_object_object_add(in, "forced_flushes",
					       json_object_new_int64((int64_t)c->forced));
			json_object_object_add(in, "dropped", json_object_new_int64((int64_t)dropped(c)));
			json_object_object_add(in, "nr_cpus", json_object_new_int((int)nr_out_cpus(c)));
			if (c->decoded_any) {
				json_object_object_add(in, "first_event_ns",
						       jsonv_u64(c->first_ns));
				json_object_object_add(in, "last_event_ns",
						       jsonv_u64(c->last_ns));
			}
			if (c->traced_from_ns) {
				json_object_object_add(in, "traced_from_ns",
						       jsonv_u64(c->traced_from_ns));
				json_object_object_add(in, "traced_until_ns",
						       jsonv_u64(c->traced_until_ns));
			}
			if (c->time_given)
				json_object_object_add(in, "outside_time",
						       json_object_new_int64((int64_t)c->outside));
			if (c->mode != H_REPORT)
				json_object_object_add(in, "keep_busy", keep_busy_json(c));
			json_object_object_add(j, "input", in);
		}
		if (c->twl)
			json_object_object_add(j, "timer_workload", twl_json(c));
		if (fputs(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE), stdout) < 0 ||
		    fputc('\n', stdout) < 0)
			cio_note_error();
		json_object_put(j);
	} else {
		term_view(c, stdout, unsup);
		uint64_t bad = c->bad_raw + c->no_raw + c->bad_samples + c->unknown_id;
		printf("events: %" PRIu64 " decoded, %" PRIu64 " not used by the decoder, %" PRIu64
		       " malformed", c->decoded, c->undecoded, bad);
		if (bad)
			printf(" (%" PRIu64 " bad payload, %" PRIu64 " without payload, %" PRIu64
			       " too short for their sample_type, %" PRIu64 " with an unknown id)",
			       c->bad_raw, c->no_raw, c->bad_samples, c->unknown_id);
		printf("; lost %" PRIu64 " events, %" PRIu64 " samples\n", c->lost_events,
		       c->lost_samples);
		printf("tracking: %" PRIu64 " wakeups ignored by the priority rules, %" PRIu64
		       " dropped (higher prio first), %" PRIu64 " dropped (already running), %" PRIu64
		       " replaced, %" PRIu64 " migrated, %" PRIu64 " pid-table evictions, %" PRIu64
		       " timer-table evictions, %" PRIu64 " expiries of unknown timers\n",
		       st->wake_ignored, st->dropped_prio, st->dropped_running, st->replaced,
		       st->migrated, st->pid_evictions, st->timer_evictions, st->timer_unknown);
		if (c->mode != H_REPORT)
			printf("keep-busy: %s\n",
			       c->busy_on ? (strcmp(c->busy_why, "option") ? "on (the self-test saw "
								"idle-entry samples dropped)"
								: "on (--keep-busy)")
			       : c->idc_ran && !c->idc_err ? "off (the self-test saw no drop)"
			       : c->idc_ran ? "off (the self-test could not run)" : "off (--no-keep-busy)");
		if (c->outdir)
			printf("latency_hist tree written to %s\n", c->outdir);
	}
	/* say clearly what is missing, on stderr so JSON stays clean */
	for (int t = 0; t < LAT_NR_TYPES; t++)
		if (c->types[t] && unsup[t] && (c->json || !c->types_given))
			fprintf(stderr, "%s: %s not reported: %s\n", c->prog, lat_type_name(t),
				why_unsupported(t));
	uint64_t drop = dropped(c);
	if (drop || c->out_of_order || c->forced) {
		char b[512];
		size_t u = 0;
#define DROPPED(v, what) \
		if (v && u < sizeof(b)) \
			u += (size_t)snprintf(b + u, sizeof(b) - u, "%s%" PRIu64 " " what, u ? ", " : "", v)
		DROPPED(c->lost_events, "events lost by the kernel");
		DROPPED(c->lost_samples, "samples lost by the kernel");
		DROPPED(c->unknown_id, "samples with an id no event declares");
		DROPPED(c->bad_samples, "samples too short for their sample_type");
		DROPPED(c->bad_raw, "samples with a malformed payload");
		DROPPED(c->no_raw, "samples without a payload");
		DROPPED(st->bad_cpu, "events with a CPU out of range");
		DROPPED(st->alloc_failures, "samples lost to memory");
		DROPPED(c->out_of_order, "events delivered out of order");
		DROPPED(c->forced, "queue flushes forced by a full queue");
#undef DROPPED
		fprintf(stderr, "%s: warning: %s: %s\n", c->prog, b,
			drop ? "histograms are incomplete" : "ordering may be off");
	}
	if (drop && (c->threshold_ns >= 0 || c->strict)) {
		fprintf(stderr, "%s: %" PRIu64 " events were lost or dropped, so the histograms cannot "
				"pass %s: exit 1\n", c->prog, drop,
			c->strict ? "--strict" : "the threshold");
		rc = EXIT_THRESHOLD;
	}
	if (c->threshold_ns >= 0) {
		int64_t w = worst(c, unsup);
		if (w != INT64_MIN && w > c->threshold_ns) {
			fprintf(stderr, "%s: maximum latency %" PRId64 " us exceeds the threshold %" PRId64
					" us\n",
				c->prog, w / 1000, c->threshold_ns / 1000);
			rc = EXIT_THRESHOLD;
		}
	}
	if (cio_finish(stdout, c->prog, "standard output"))
		return EXIT_ERR;
	return rc;
}

/* ---- shared setup ----------------------------------------------------- */

static int make_lat(struct hctx *c, uint32_t nr_cpus)
{
	if (nr_cpus == 0)
		nr_cpus = 1;
	if (nr_cpus > LAT_MAX_CPUS)
		nr_cpus = LAT_MAX_CPUS;
	c->lcfg.nr_cpus = nr_cpus;
	c->lcfg.start_on_waking = c->has[TPE_SCHED_WAKING] && !c->has[TPE_SCHED_WAKEUP] &&
				  !c->has[TPE_SCHED_WAKEUP_NEW];
	int err = lat_new(&c->lat, &c->lcfg);
	if (err) {
		fprintf(stderr, "%s: cannot set up the histograms: %s\n", c->prog,
			err == -EINVAL ? "bad histogram geometry (check --resolution/--buckets/--offset)"
				       : strerror(-err));
		return err;
	}
	return 0;
}

static void feed(struct hctx *c, const struct tpe *ev)
{
	if (!c->decoded_any || ev->time_ns < c->first_ns)
		c->first_ns = ev->time_ns;
	if (!c->decoded_any || ev->time_ns > c->last_ns)
		c->last_ns = ev->time_ns;
	c->decoded_any = true;
	if (lat_feed(c->lat, ev) == 0) {
		if (!c->any_cpu || ev->cpu > c->max_cpu_seen)
			c->max_cpu_seen = ev->cpu;
		c->any_cpu = true;
	}
}

/* ---- report ----------------------------------------------------------- */

static int do_report(struct hctx *c)
{
	struct pdr *r = NULL;
	struct tpd *d = NULL;
	struct pdr_event ev;
	int rc, ret = EXIT_ERR;
	const char *path = c->input ? c->input : "perf.data";

	cio_sigpipe_as_error();

	rc = pdr_open(&r, path, NULL);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot read %s: %s\n", c->prog, path,
			r && *pdr_strerror(r) ? pdr_strerror(r) : strerror(-rc));
		if (rc == -ENOENT)
			fprintf(stderr, "%s: record one with `latscope hist record -o %s` or perf record "
					"-e 'sched:*,timer:hrtimer_*' -a\n", c->prog, path);
		pdr_close(r);
		return EXIT_ERR;
	}
	while ((rc = pdr_next(r, &ev)) > 0) {
		if (ev.type != PDF_RECORD_SAMPLE || !ev.evsel || !ev.has_sample ||
		    ev.evsel->attr.type != PDF_TYPE_TRACEPOINT)
			continue;
		if (!d) {
			struct tep_handle *tep = pdr_tep(r);
			if (!tep) {
				fprintf(stderr, "%s: %s has tracepoint samples but no tracing data "
						"(formats); record it again with perf record or latscope\n",
					c->prog, path);
				goto out;
			}
			d = tpd_new(tep);
			if (!d) {
				fprintf(stderr, "%s: out of memory\n", c->prog);
				goto out;
			}
			for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
				const struct pdr_evsel *e = pdr_evsel(r, i);
				if (e->attr.type != PDF_TYPE_TRACEPOINT)
					continue;
				if (!(e->attr.sample_type & PDF_SAMPLE_CPU) ||
				    !(e->attr.sample_type & PDF_SAMPLE_TIME) ||
				    !(e->attr.sample_type & PDF_SAMPLE_RAW)) {
					fprintf(stderr, "%s: event %s was recorded without CPU/TIME/RAW "
							"in its samples; record system-wide (perf record -a)\n",
						c->prog, e->name ? e->name : "?");
					goto out;
				}
				enum tpe_kind k = tpd_kind(d, (int)e->attr.config);
				if (k != TPE_UNKNOWN)
					c->has[k] = true;
			}
			const struct pdr_info *in = pdr_info(r);
			uint32_t n = in->nr_cpus_avail ? in->nr_cpus_avail : in->nr_cpus_online;
			if (!n || in->pipe)
				n = n > 1024 ? n : 1024;
			if (make_lat(c, n) < 0)
				goto out;
		}
		if (c->time_given &&
		    (ev.sample.time < c->time_lo_ns || ev.sample.time > c->time_hi_ns)) {
			c->outside++;
			continue;
		}
		struct tpe t;
		memset(&t, 0, sizeof(t));
		t.time_ns = ev.sample.time;
		t.cpu = ev.sample.cpu;
		t.pid = (int32_t)ev.sample.pid;
		t.tid = (int32_t)ev.sample.tid;
		if (!ev.sample.raw) {
			c->no_raw++;
			continue;
		}
		int err = tpd_decode(d, (int)ev.evsel->attr.config, ev.sample.raw, ev.sample.raw_size, &t);
		if (err == -ENOENT) {
			c->undecoded++;
			continue;
		}
		if (err) {
			c->bad_raw++;
			continue;
		}
		c->decoded++;
		feed(c, &t);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, path,
			*pdr_strerror(r) ? pdr_strerror(r) : strerror(-rc));
		goto out;
	}
	const struct pdr_stats *st = pdr_stats(r);
	c->lost_events = st->lost_events;
	c->lost_samples = st->lost_samples;
	c->unknown_id = st->unknown_id;
	c->bad_samples = st->bad_samples;
	c->out_of_order = st->out_of_order;
	c->forced = st->forced_flushes;
	if (!c->lat) {
		fprintf(stderr, "%s: %s has no tracepoint samples; record sched:sched_switch, "
				"sched:sched_wakeup (and timer:hrtimer_*) with -a\n", c->prog, path);
		goto out;
	}
	ret = emit(c);
out:
	tpd_free(d);
	cio_pdr_close(r, c->prog, path);
	return ret;
}

/* ---- live ------------------------------------------------------------- */

static const char *const live_events[] = {
	"sched:sched_switch",
	"sched:sched_wakeup",
	"?sched:sched_waking",
	"?sched:sched_wakeup_new",
	"?sched:sched_migrate_task",
	"?sched:sched_process_exit",
	"?timer:hrtimer_start",
	"?timer:hrtimer_cancel",
	"?timer:hrtimer_expire_entry",
	"?timer:hrtimer_expire_exit",
};
static const char *const live_irqsoff[] = {
	"?preemptirq:irq_disable",
	"?preemptirq:irq_enable",
	"?preemptirq:preempt_disable",
	"?preemptirq:preempt_enable",
};

static int on_event(void *arg, const struct tpe *ev)
{
	struct hctx *c = arg;
	c->decoded++;
	feed(c, ev);
	return 0;
}

static void on_raw(void *arg, int cpu, int event_idx, const uint8_t *rec, size_t size)
{
	struct hctx *c = arg;
	uint32_t type;
	uint16_t misc;
	(void)cpu;
	(void)event_idx;
	if (size < 8 || !c->pw)
		return;
	memcpy(&type, rec, 4);
	memcpy(&misc, rec + 4, 2);
	if (pdw_write_record(c->pw, type, misc, rec + 8, size - 8) < 0)
		c->live_err = true;
}

static int open_record_file(struct hctx *c, struct evs *s)
{
	uint16_t probe = 1;
	int err;
	if (*(uint8_t *)&probe != 1) {
		fprintf(stderr, "%s: -o is supported on little-endian hosts only\n", c->prog);
		return -ENOTSUP;
	}
	struct pdw_opts o = { .big_endian = false, .force = c->force, .checkpoint = true };
	err = pdw_open(&c->pw, c->record_out, &o);
	if (err < 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, c->record_out, so_strerror(err));
		return err;
	}
	size_t ne = evs_nr_events(s);
	const char **names = calloc(ne ? ne : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < ne && err >= 0; i++) {
		const uint64_t *ids;
		size_t nid = evs_event_ids(s, i, &ids);
		names[i] = evs_event_name(s, i);
		err = pdw_add_evsel(c->pw, evs_event_attr(s, i), names[i], ids, nid);
	}
	struct tfs_formats *f = NULL;
	if (err >= 0)
		err = tfs_collect(NULL, names, ne, &f);
	free(names);
	if (err >= 0) {
		void *blob;
		size_t len;
		err = tfs_tracing_data(f, false, &blob, &len);
		if (!err) {
			err = pdw_set_tracing_data(c->pw, blob, len);
			free(blob);
		}
	}
	tfs_free(f);
	if (err < 0) {
		fprintf(stderr, "%s: cannot describe the tracepoints in %s: %s\n", c->prog,
			c->record_out, strerror(-err));
		return err;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	pdw_set_string_feature(c->pw, PDF_FEAT_HOSTNAME, host);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdw_set_nrcpus(c->pw, (uint32_t)ncpu, (uint32_t)ncpu);
	err = pdw_begin_data(c->pw);
	if (err < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", c->prog, c->record_out, strerror(-err));
		return err;
	}
	evs_set_raw_cb(s, on_raw, c);
	return 0;
}

/*
 * Keep-busy: explicit, or after the idle-drop self-test.  One line on stderr
 * when the self-test turns it on.
 */
static int keep_busy_setup(struct hctx *c, struct idc_spin **spin)
{
	if (c->keep_busy < 0) {
		c->idc_ran = true;
		c->idc_err = idc_check(&c->cpus, NULL, c->idc, sizeof(c->idc) / sizeof(c->idc[0]),
				       &c->nidc);
		if (!c->idc_err && idc_any_drops(c->idc, c->nidc)) {
			char list[256] = "";
			size_t used = 0;
			for (size_t i = 0; i < c->nidc && used < sizeof(list) - 64; i++)
				if (c->idc[i].verdict == IDC_DROPS)
					used += (size_t)snprintf(list + used, sizeof(list) - used,
								 "%sCPU%u %" PRIu64 "/%" PRIu64,
								 used ? ", " : "", c->idc[i].cpu,
								 c->idc[i].samples, c->idc[i].irqs);
			fprintf(stderr,
				"%s: this kernel drops perf samples of interrupts taken on an idle CPU "
				"(self-test, samples/timer interrupts: %s): keeping the traced CPUs busy "
				"with SCHED_IDLE spinners (--no-keep-busy to turn off)\n",
				c->prog, list);
			c->busy_why = "self-test";
		}
	} else if (c->keep_busy > 0) {
		c->busy_why = "option";
	}
	if (!c->busy_why)
		return 0;
	int err = idc_spin_start(spin, &c->cpus);
	if (err < 0) {
		fprintf(stderr, "%s: cannot start the keep-busy threads: %s (try --no-keep-busy)\n",
			c->prog, strerror(-err));
		return err;
	}
	c->busy_on = true;
	return 0;
}

/* Ctrl-C (or a closed stdout) during setup: one line, then unwind. */
static bool setup_interrupted(struct hctx *c)
{
	if (!cio_stopped() && !cio_watch(STDOUT_FILENO))
		return false;
	fprintf(stderr, "%s: %s before the measurement started; nothing to report\n", c->prog,
		cio_broken_pipe() ? "standard output was closed" : "interrupted");
	return true;
}

static int do_live(struct hctx *c)
{
	const char *ev[sizeof(live_events) / sizeof(live_events[0]) +
		       sizeof(live_irqsoff) / sizeof(live_irqsoff[0])];
	size_t n = 0;
	struct evs *s = NULL;
	struct tpd *d = NULL;
	struct idc_spin *spin = NULL;
	int ret = EXIT_ERR, err, qos_fd = -1;
	bool locked = false, prio_set = false;
	struct sched_param sp0;
	int pol0;

	/* From the first instruction: a Ctrl-C during setup unwinds through out: */
	cio_signals_install();
	pol0 = sched_getscheduler(0);
	if (sched_getparam(0, &sp0) < 0)
		memset(&sp0, 0, sizeof(sp0));
	for (size_t i = 0; i < sizeof(live_events) / sizeof(live_events[0]); i++)
		ev[n++] = live_events[i];
	if (c->irqsoff_live)
		for (size_t i = 0; i < sizeof(live_irqsoff) / sizeof(live_irqsoff[0]); i++)
			ev[n++] = live_irqsoff[i];
	if (!c->cpus_given && online_cpus(&c->cpus) < 0) {
		fprintf(stderr, "%s: cannot find the online CPUs\n", c->prog);
		return EXIT_ERR;
	}
	if (keep_busy_setup(c, &spin) < 0 || setup_interrupted(c))
		goto out;
	struct evs_opts eo = { .ring_bytes = c->ring_bytes };
	err = evs_open(&s, ev, n, &c->cpus, &eo);
	if (err < 0) {
		/* evs_strerror() names the cause and the fix (lib/privhint) */
		fprintf(stderr, "%s: cannot open the tracepoints: %s\n", c->prog,
			s ? evs_strerror(s) : strerror(-err));
		goto out;
	}
	if (setup_interrupted(c))
		goto out;
	d = tpd_new(evs_tep(s));
	if (!d)
		goto out;
	for (size_t i = 0; i < evs_nr_events(s); i++) {
		enum tpe_kind k = tpd_kind(d, evs_event_id(s, i));
		if (k != TPE_UNKNOWN)
			c->has[k] = true;
	}
	uint32_t maxcpu = 0;
	for (unsigned cpu = 0; cpu < PS_MAX_CPUS; cpu++)
		if (ps_cpuset_has(&c->cpus, cpu))
			maxcpu = cpu;
	if (make_lat(c, maxcpu + 1) < 0)
		goto out;
	if (c->irqsoff_live && !c->has[TPE_IRQ_DISABLE] && !c->has[TPE_PREEMPT_DISABLE])
		fprintf(stderr, "%s: this kernel has no preemptirq tracepoints: irqsoff, preemptoff and "
				"preemptirqsoff are not measured\n", c->prog);
	if (c->record_out && open_record_file(c, s) < 0)
		goto out;
	if (setup_interrupted(c))
		goto out;
	err = evs_enable(s);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", c->prog, evs_strerror(s));
		goto out;
	}
	c->traced_from_ns = mono_ns();	/* every CPU traced from here */
	/* like cyclictest -m: no page fault in the measured path */
	if (c->timer && mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		int e = errno;
		char why[256];
		munlockall();
		ph_mlock(why, sizeof(why), -e);
		fprintf(stderr, "%s: mlockall: %s%s%s (going on, page faults may show as latency)\n",
			c->prog, strerror(e), why[0] ? "; " : "", why);
	} else if (c->timer) {
		locked = true;
	}
	if (c->timer && c->dma_latency_us >= 0) {
		qos_fd = idc_pm_qos_hold((int32_t)c->dma_latency_us);
		if (qos_fd < 0)
			fprintf(stderr, "%s: cannot hold /dev/cpu_dma_latency at %" PRId64 " us: %s "
					"(going on; --dma-latency -1 does not try)\n",
				c->prog, c->dma_latency_us, strerror(-qos_fd));
	}
	if (c->timer) {
		struct twl_cfg tc;
		memset(&tc, 0, sizeof(tc));
		tc.cpus = c->cpus;
		tc.interval_ns = c->interval_ns;
		tc.prio = c->prio;
		tc.hist = c->lcfg.hist;
		err = twl_start(&c->twl, &tc);
		if (err < 0) {
			fprintf(stderr, "%s: cannot start the timer threads: %s\n", c->prog, strerror(-err));
			goto out;
		}
	}
	if (c->collector_prio > 0) {
		/* after the workload threads exist, so they do not inherit it */
		struct sched_param sp = { .sched_priority = c->collector_prio };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "%s: cannot make the collector SCHED_FIFO %d: %s%s (going on)\n",
				c->prog, c->collector_prio, strerror(errno),
				errno == EPERM ? "; real-time priorities need root or CAP_SYS_NICE" : "");
		else
			prio_set = true;
	}
	if (setup_interrupted(c))
		goto out;
	uint64_t start = mono_ns(), next_refresh = start + c->refresh_ns;
	bool tty = isatty(STDOUT_FILENO);
	if (c->mode == H_RECORD && !c->json && !c->json_buckets) {
		/* the table's first line, now: a reader that only wants the start
		 * (| head -1) can leave, and the run sees it and stops */
		if (c->duration_ns)
			printf("# latscope hist record: measuring for %.3f s (Ctrl-C stops early)\n",
			       (double)c->duration_ns / 1e9);
		else
			printf("# latscope hist record: measuring until Ctrl-C\n");
		fflush(stdout);
	}
	while (!cio_watch(STDOUT_FILENO)) {
		uint64_t now = mono_ns();
		if (c->duration_ns && now - start >= c->duration_ns)
			break;
		int pr = evs_poll(s, 100);
		if (pr < 0 && pr != -EINTR) {
			fprintf(stderr, "%s: poll: %s\n", c->prog, strerror(-pr));
			break;
		}
		now = mono_ns();
		err = evs_read(s, now > 2000000 ? now - 2000000 : 0, on_event, c);
		if (err < 0) {
			fprintf(stderr, "%s: reading the rings: %s\n", c->prog, evs_strerror(s));
			break;
		}
		/* -o survives a kill: the file is valid up to the last checkpoint */
		if (c->pw && !c->live_err && pdw_checkpoint(c->pw, false) < 0)
			c->live_err = true;
		if (c->mode == H_TOP && now >= next_refresh) {
			bool unsup[LAT_NR_TYPES];
			for (int t = 0; t < LAT_NR_TYPES; t++)
				unsup[t] = !lat_type_supported(t, c->has);
			if (tty)
				fputs("\033[H\033[2J", stdout);
			printf("latscope hist top: %.1f s, %" PRIu64 " events, %" PRIu64 " lost\n\n",
			       (double)(now - start) / 1e9, c->decoded, evs_stats(s)->lost);
			term_view(c, stdout, unsup);
			if (fflush(stdout) != 0 || ferror(stdout))
				cio_stop();	/* reported by cio_finish() below */
			next_refresh = now + c->refresh_ns;
		}
	}
	c->traced_until_ns = mono_ns();	/* ... to here */
	evs_disable(s);
	evs_read(s, UINT64_MAX, on_event, c);
	c->lost_events = evs_stats(s)->lost;
	c->undecoded = evs_stats(s)->undecoded;
	c->forced = evs_stats(s)->forced;
	c->out_of_order = evs_stats(s)->out_of_order;
	if (c->pw) {
		if (c->live_err) {
			pdw_discard(c->pw);
			err = -EIO;
		} else {
			err = pdw_close(c->pw);
		}
		c->pw = NULL;
		if (err < 0) {
			fprintf(stderr, "%s: error writing %s: %s\n", c->prog, c->record_out,
				strerror(-err));
			goto out;
		}
	}
	if (cio_broken_pipe()) {
		cio_pipe_closed(c->prog);
		goto out;
	}
	if (c->mode == H_TOP && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	ret = emit(c);
out:
	/* restore the system: workload and spinners stopped, events closed
	 * (disabled), /dev/cpu_dma_latency released, priority and memory back */
	twl_stop(c->twl);
	c->twl = NULL;
	pdw_discard(c->pw);	/* still open: setup failed or was interrupted */
	c->pw = NULL;
	tpd_free(d);
	evs_close(s);
	idc_spin_stop(spin);
	if (qos_fd >= 0)
		close(qos_fd);
	if (prio_set && pol0 >= 0)
		sched_setscheduler(0, pol0, &sp0);
	if (locked)
		munlockall();
	return ret;
}

/* ---- options ---------------------------------------------------------- */

enum {
	O_JSON = 256, O_BUCKETS_JSON, O_TYPES, O_PID, O_ALL, O_BOTH, O_RES, O_NBUCKETS, O_OFFSET,
	O_TABLE, O_NONZERO, O_THRESH, O_IRQSOFF, O_RING, O_INTERVAL, O_REFRESH,
	O_KEEPBUSY, O_NOKEEPBUSY, O_TIME, O_CPRIO, O_DMALAT, O_FORCE, O_STRICT,
};

int cmd_hist(int argc, char **argv)
{
	struct hctx c;
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "record", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "timer", no_argument, NULL, 't' },
		{ "timer-workload", no_argument, NULL, 't' },
		{ "keep-busy", no_argument, NULL, O_KEEPBUSY },
		{ "no-keep-busy", no_argument, NULL, O_NOKEEPBUSY },
		{ "time", required_argument, NULL, O_TIME },
		{ "collector-prio", required_argument, NULL, O_CPRIO },
		{ "dma-latency", required_argument, NULL, O_DMALAT },
		{ "prio", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, O_JSON },
		{ "buckets-json", no_argument, NULL, O_BUCKETS_JSON },
		{ "types", required_argument, NULL, O_TYPES },
		{ "pid", required_argument, NULL, O_PID },
		{ "all-tasks", no_argument, NULL, O_ALL },
		{ "both-off", no_argument, NULL, O_BOTH },
		{ "resolution", required_argument, NULL, O_RES },
		{ "buckets", required_argument, NULL, O_NBUCKETS },
		{ "offset", required_argument, NULL, O_OFFSET },
		{ "table-size", required_argument, NULL, O_TABLE },
		{ "nonzero", no_argument, NULL, O_NONZERO },
		{ "threshold", required_argument, NULL, O_THRESH },
		{ "irqsoff", no_argument, NULL, O_IRQSOFF },
		{ "ring-bytes", required_argument, NULL, O_RING },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "refresh", required_argument, NULL, O_REFRESH },
		{ "force", no_argument, NULL, O_FORCE },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char prog[64];
	uint64_t v = 0;
	int64_t sv = 0;

	memset(&c, 0, sizeof(c));
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: latscope hist {report|record|top} [options]\n"
			   "  report   histograms from a perf.data file with sched/timer tracepoints\n"
			   "  record   measure live for a duration, print or write the histograms\n"
			   "  top      measure live, refreshing a table per CPU\n"
			   "`latscope hist <sub> --help` for the options; man latscope-hist.\n");
		return argc < 2 ? EXIT_ERR : 0;
	}
	if (!strcmp(argv[1], "report"))
		c.mode = H_REPORT;
	else if (!strcmp(argv[1], "record"))
		c.mode = H_RECORD;
	else if (!strcmp(argv[1], "top"))
		c.mode = H_TOP;
	else {
		fprintf(stderr, "latscope hist: unknown subcommand '%s' (report, record or top)\n",
			argv[1]);
		return EXIT_ERR;
	}
	snprintf(prog, sizeof(prog), "latscope hist %s", argv[1]);
	c.prog = prog;
	lat_cfg_default(&c.lcfg, 1);
	for (int t = 0; t < LAT_NR_TYPES; t++)
		c.types[t] = true;
	c.threshold_ns = -1;
	c.duration_ns = c.mode == H_RECORD ? 10000000000ull : 0;
	c.refresh_ns = 1000000000ull;
	c.interval_ns = 1000000;
	c.prio = 95;
	c.keep_busy = -1;
	c.ring_bytes = HIST_DEFAULT_RING_BYTES;

	argc--;
	argv++;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, "i:O:o:d:c:tp:h", lo, NULL)) != -1) {
		int err = 0;
		switch (o) {
		case 'i':
			c.input = optarg;
			break;
		case 'O':
			c.outdir = optarg;
			break;
		case 'o':
			c.record_out = optarg;
			break;
		case 'd':
			err = ps_duration_ns(optarg, 1000000000ull, &c.duration_ns);
			break;
		case 'c':
			err = ps_cpulist(optarg, &c.cpus);
			c.cpus_given = true;
			break;
		case 't':
			c.timer = true;
			break;
		case 'p':
			c.live_opt = true;
			err = ps_u64(optarg, 0, 99, &v);
			c.prio = (int)v;
			break;
		case O_JSON:
			c.json = true;
			break;
		case O_BUCKETS_JSON:
			c.json = c.json_buckets = true;
			break;
		case O_TYPES:
			if (parse_types(&c, optarg) < 0)
				return EXIT_ERR;
			break;
		case O_PID:
			err = ps_u64(optarg, 1, INT32_MAX, &v);
			c.lcfg.pid = (int32_t)v;
			break;
		case O_ALL:
			c.lcfg.all_tasks = true;
			break;
		case O_BOTH:
			c.lcfg.both_off = true;
			break;
		case O_RES:
			err = ps_duration_ns(optarg, 1000, &v);
			if (!err && v == 0)
				err = -ERANGE;
			c.lcfg.hist.bucket_ns = v;
			break;
		case O_NBUCKETS:
			err = ps_u64(optarg, 1, LHIST_MAX_BUCKETS, &v);
			c.lcfg.hist.nr_buckets = (uint32_t)v;
			break;
		case O_OFFSET:
			err = parse_signed_dur(optarg, &sv);
			c.lcfg.hist.lo_ns = sv;
			break;
		case O_TABLE:
			err = ps_u64(optarg, 8, 1u << 24, &v);
			c.lcfg.pid_table = c.lcfg.timer_table = (uint32_t)v;
			break;
		case O_NONZERO:
			c.nonzero = true;
			break;
		case O_FORCE:
			c.force = true;
			break;
		case O_STRICT:
			c.strict = true;
			break;
		case O_THRESH:
			err = ps_duration_ns(optarg, 1000, &v);
			c.threshold_ns = v > INT64_MAX ? INT64_MAX : (int64_t)v;
			break;
		case O_DMALAT:
			c.live_opt = true;
			err = ps_i64(optarg, -1, INT32_MAX, &c.dma_latency_us);
			break;
		case O_CPRIO:
			c.live_opt = true;
			err = ps_u64(optarg, 0, 99, &v);
			c.collector_prio = (int)v;
			break;
		case O_KEEPBUSY:
			c.live_opt = true;
			c.keep_busy = 1;
			break;
		case O_NOKEEPBUSY:
			c.live_opt = true;
			c.keep_busy = 0;
			break;
		case O_TIME:
			err = ps_time_range(optarg, &c.time_lo_ns, &c.time_hi_ns);
			if (!err && c.time_lo_ns > c.time_hi_ns)
				err = -ERANGE;
			c.time_given = true;
			break;
		case O_IRQSOFF:
			c.irqsoff_live = true;
			break;
		case O_RING:
			c.live_opt = true;
			err = ps_size_bytes(optarg, &v);
			if (!err && (v < 4096 || v > (1ull << 32)))
				err = -ERANGE;
			c.ring_bytes = (size_t)v;
			break;
		case O_INTERVAL:
			c.live_opt = true;
			err = ps_duration_ns(optarg, 1000, &c.interval_ns);
			if (!err && c.interval_ns < 10000)
				err = -ERANGE;
			break;
		case O_REFRESH:
			c.live_opt = true;
			err = ps_duration_ns(optarg, 1000000000ull, &c.refresh_ns);
			if (!err && c.refresh_ns < 10000000)
				err = -ERANGE;
			break;
		case 'h':
			usage(stdout, c.mode);
			return 0;
		default:
			fprintf(stderr, "%s: see --help\n", c.prog);
			return EXIT_ERR;
		}
		if (err) {
			const char *on = "?";
			for (size_t k = 0; lo[k].name; k++)
				if (lo[k].val == o)
					on = lo[k].name;
			fprintf(stderr, "%s: bad value '%s' for --%s (%s)\n", c.prog, optarg, on,
				strerror(-err));
			return EXIT_ERR;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", c.prog, argv[optind]);
		return EXIT_ERR;
	}
	if (c.mode == H_REPORT) {
		if (c.timer || c.record_out || c.cpus_given || c.irqsoff_live || c.duration_ns || c.live_opt) {
			fprintf(stderr, "%s: -t/-o/-c/-d/-p/--irqsoff/--interval/--refresh/--ring-bytes/--keep-busy are for "
					"record and top\n", c.prog);
			return EXIT_ERR;
		}
	} else if (c.input || c.time_given) {
		fprintf(stderr, "%s: -i and --time are for hist report\n", c.prog);
		return EXIT_ERR;
	}
	if (c.timer && c.interval_ns == 0) {
		fprintf(stderr, "%s: --interval must be > 0\n", c.prog);
		return EXIT_ERR;
	}
	int ret = c.mode == H_REPORT ? do_report(&c) : do_live(&c);
	lat_free(c.lat);
	return ret;
}
