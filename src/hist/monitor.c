/* SPDX-License-Identifier: MIT */
/*
 * monitor.c - `latscope monitor`: hist top's live histograms kept for as
 * long as it runs and handed to Prometheus (docs/monitor.md).  hist_live()
 * (run.c) runs the backend and the loop; at every refresh it reads the
 * backend's counts and calls hist_monitor_publish(), which renders the
 * exposition (lib/print/promexp) once and hands it to the HTTP server
 * (lib/live/metricsrv: its own thread serves the last snapshot, so a scrape
 * never waits for the collection) and to the --textfile file (written
 * beside, renamed into place: node_exporter never reads half of it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/safeout.h"
#include "base/sysinfo.h"
#include "engine/dtlstat.h"
#include "engine/noisemon.h"
#include "format/dtl.h"
#include "live/dtlrec.h"
#include "cmdio.h"
#include "commands.h"
#include "hist.h"
#include "live/metricsrv.h"
#include "print/promexp.h"
#include "tool.h"

_Static_assert(HIST_MONITOR_MAX_BOUNDS == PROMEXP_MAX_BOUNDS, "--le holds what promexp takes");

#define TEXTFILE_NAME "latscope.prom"

int hist_monitor_parse_le(const char *arg, void *params)
{
	struct hctx *c = params;
	char *dup = strdup(arg), *save = NULL;
	size_t n = 0;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (char *tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (n == HIST_MONITOR_MAX_BOUNDS || parse_duration_ns(tok, 1000, &v) || !v ||
		    (n && v <= c->mo.bounds_ns[n - 1]))
			err = -EINVAL;
		else
			c->mo.bounds_ns[n++] = v;
	}
	free(dup);
	if (err || !n)
		return -EINVAL;
	c->mo.nr_bounds = n;
	return 0;
}

int hist_monitor_parse_noise(const char *arg, void *params)
{
	struct hctx *c = params;
	const char *slash = strchr(arg, '/');
	char rt[64];
	uint64_t r, p;

	if (!slash || (size_t)(slash - arg) >= sizeof(rt))
		return -EINVAL;
	memcpy(rt, arg, (size_t)(slash - arg));
	rt[slash - arg] = '\0';
	/* a bare number is us, as osnoise's -r/-p */
	if (parse_duration_ns(rt, 1000, &r) || parse_duration_ns(slash + 1, 1000, &p) || r < 1000 ||
	    r > p || p > 3600ULL * 1000000000ULL || r % 1000 || p % 1000)
		return -EINVAL;
	c->mo.noise_runtime_us = r / 1000;
	c->mo.noise_period_us = p / 1000;
	return 0;
}

int hist_monitor_noise_start(struct hctx *c)
{
	char why[512];
	struct noisemon_cfg nc = {
		.cpus = c->lo.cpus, .period_us = c->mo.noise_period_us, .runtime_us = c->mo.noise_runtime_us,
		.threshold_us = c->mo.noise_threshold_us, .policy = SCHED_OTHER, .prio = 0,
		.softirq_in_threads = sysinfo_preempt_rt(),
	};

	if (noisemon_start(&c->mon.nm, &nc, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: --noise: %s\n", c->prog, why);
		c->mon.nm = NULL;
		return -1;
	}
	fprintf(stderr, "%s: noise counters: a busy loop %" PRIu64 " us of every %" PRIu64
			" us on each measured CPU (%.2f %% of it)\n",
		c->prog, c->mo.noise_runtime_us, c->mo.noise_period_us,
		100.0 * (double)c->mo.noise_runtime_us / (double)c->mo.noise_period_us);
	return 0;
}

/* one sample of a family of its own */
static int one(FILE *f, const char *name, const char *type, const char *help, double v)
{
	int err = promexp_family(f, name, type, help);
	return err ? err : promexp_sample(f, name, NULL, 0, v);
}

/* dtlrec's sink: a chunk of one CPU's DTL into the counters */
static void dtl_sink(void *arg, unsigned cpu, uint64_t pos, const uint8_t *data, size_t len)
{
	struct hctx *c = arg;

	if (dtlstat_add_payload(c->mon.dtls, cpu, pos, data, len, true, false) < 0)
		c->mon.dtl_bad++;
}

/* dtlrec's aux_sink: each commit of the driver; one of exactly 84 entries
 * (85 slots with the header) found the hypervisor's ring overrun */
static void dtl_aux_sink(void *arg, unsigned cpu, uint64_t offset, uint64_t size, uint64_t flags)
{
	struct hctx *c = arg;

	(void)offset;
	(void)flags;
	if (cpu >= DTLSTAT_MAX_CPUS)
		return;
	if (dtl_poll_filled_ring(size, !c->mon.dtl_aux_seen[cpu]))
		c->mon.dtl_ring_full[cpu]++;
	c->mon.dtl_aux_seen[cpu] = 1;
}

int hist_monitor_dtl_start(struct hctx *c)
{
	struct dtlrec_opts o = {
		.cpus = c->lo.cpus, .sysfs = c->mo.sysfs, .debugfs = c->mo.debugfs, .procfs = c->mo.procfs,
		.sink = dtl_sink, .aux_sink = dtl_aux_sink, .sink_arg = c,
		.aux_bytes = (size_t)c->mo.dtl_aux_bytes,
	};
	const char *knob, *knob_old;
	int err = dtlstat_new(&c->mon.dtls);

	long page = sysconf(_SC_PAGESIZE);
	uint64_t pages = page > 0 ? c->mo.dtl_aux_bytes / (uint64_t)page : 0;
	if (c->mo.dtl_aux_bytes && (c->mo.dtl_aux_bytes % (uint64_t)page || (pages & (pages - 1)))) {
		fprintf(stderr, "%s: --dtl-aux-size: %" PRIu64 " bytes is not a power of two of %ld-byte pages\n",
			c->prog, c->mo.dtl_aux_bytes, page);
		dtlstat_free(c->mon.dtls);
		c->mon.dtls = NULL;
		return -1;
	}
	c->mon.dtl_ring_full = calloc(DTLSTAT_MAX_CPUS, sizeof(*c->mon.dtl_ring_full));
	c->mon.dtl_aux_seen = calloc(DTLSTAT_MAX_CPUS, 1);
	if (!err && (!c->mon.dtl_ring_full || !c->mon.dtl_aux_seen))
		err = -ENOMEM;
	if (err < 0) {
		fprintf(stderr, "%s: --dtl: %s\n", c->prog, strerror(-err));
		return -1;
	}
	err = dtlrec_open(&c->mon.dtlr, &o, NULL);
	if (!err && dtlrec_changed_setting(c->mon.dtlr, &knob, &knob_old))
		cmdio_on_abort_write(knob, knob_old);	/* a second signal restores it too */
	if (!err)
		err = dtlrec_enable(c->mon.dtlr);
	if (err < 0) {
		fprintf(stderr, "%s: --dtl: %s\n", c->prog,
			c->mon.dtlr && *dtlrec_strerror(c->mon.dtlr) ? dtlrec_strerror(c->mon.dtlr) : strerror(-err));
		dtlrec_close(c->mon.dtlr, NULL);
		c->mon.dtlr = NULL;
		return -1;
	}
	struct dtlrec_stats st;
	dtlrec_get_stats(c->mon.dtlr, &st);
	fprintf(stderr, "%s: DTL counters: %u CPUs via %s\n", c->prog, st.cpus,
		st.pmu ? "the vpa_dtl PMU" : "debugfs");
	return 0;
}

void hist_monitor_dtl_poll(struct hctx *c)
{
	if (c->mon.dtlr && dtlrec_poll(c->mon.dtlr, 0) < 0 && !c->mon.dtl_poll_failed) {
		c->mon.dtl_poll_failed = true;
		fprintf(stderr, "%s: --dtl: %s (counted as lost from here)\n", c->prog,
			dtlrec_strerror(c->mon.dtlr));
	}
	struct dtlrec_stats st;
	if (c->mon.dtlr) {
		dtlrec_get_stats(c->mon.dtlr, &st);
		if (st.aux_stopped > c->mon.dtl_stopped_said) {
			c->mon.dtl_stopped_said = st.aux_stopped;
			fprintf(stderr, "%s: --dtl: the AUX buffer of %" PRIu64 " CPU%s filled up and the kernel "
				"stopped its DTL: latscope_dtl_loss_events_total{cause=\"dtl_stopped\"} (a larger "
				"--dtl-aux-size gives more time)\n", c->prog, st.aux_stopped,
				st.aux_stopped == 1 ? "" : "s");
		}
	}
}

/* The DTL families (lib/print/promexp.h), with the monitor's own counts of
 * what the recorder and the counters lost. */
static int render_dtl(struct hctx *c, FILE *f)
{
	struct dtlrec_stats rs;
	uint8_t stopped[DTLSTAT_MAX_CPUS];

	dtlrec_get_stats(c->mon.dtlr, &rs);
	for (unsigned i = 0; i < DTLSTAT_MAX_CPUS; i++)
		stopped[i] = dtlrec_cpu_stopped(c->mon.dtlr, i);
	struct promexp_dtl_losses l = {
		.lost = rs.lost + rs.aux_flags_lost + c->mon.dtl_bad + c->mon.dtl_poll_failed,
		.ring_full = c->mon.dtl_ring_full, .stopped = stopped,
	};
	return promexp_dtl(f, c->mon.dtls, &l);
}

/* The noise counters' families (lib/print/promexp.h). */
static int render_noise(struct hctx *c, FILE *f)
{
	const struct noisemon_cpu *n;
	size_t nr = noisemon_cpus(c->mon.nm, &n);
	return promexp_noise(f, n, nr);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int hist_monitor_begin(struct hctx *c)
{
	char err[256];

	c->mon.text_dirfd = -1;
	c->mon.start_unix = c->mon.reset_unix = wall_s();
	c->mon.monitor_start_ns = tool_now_ns();
	if (c->mo.textfile) {
		struct safeout_refusal why;
		int e = safeout_dir_open(&c->mon.text_dirfd, AT_FDCWD, c->mo.textfile, c->o.force ? SAFEOUT_FORCE : 0,
					 &why);
		if (e < 0) {
			char msg[PATH_MAX + 160];
			fprintf(stderr, "%s: --textfile %s: %s\n", c->prog, c->mo.textfile,
				safeout_explain(msg, sizeof(msg), e, &why));
			return -1;
		}
	}
	if (c->mo.no_listen)
		return 0;
	struct metricsrv_cfg mc = { .listen = c->mo.listen };
	int e = metricsrv_start(&c->mon.srv, &mc, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "%s: cannot serve /metrics: %s\n", c->prog, err);
		if (c->mon.text_dirfd >= 0)
			close(c->mon.text_dirfd);
		c->mon.text_dirfd = -1;
		return -1;
	}
	/* the port a test (or a user of port 0) connects to */
	fprintf(stderr, "%s: serving /metrics on port %u (--listen %s)\n", c->prog,
		(unsigned)metricsrv_port(c->mon.srv), c->mo.listen);
	return 0;
}

/* This process's CPU time (every thread: the collector and the server). */
static double cpu_s(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The resident set, in bytes (0 when /proc cannot say). */
static double rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (double)res * (double)sysconf(_SC_PAGESIZE);
}

/* The exposition: the histograms, then what the monitor costs and saw. */
static int render(struct hctx *c, FILE *f)
{
	bool kinds[HSET_NR_KINDS];
	struct hsource_stats st;
	const char *backend = hsource_ops_of(c->run.src)->name;
	int err;

	for (int k = 0; k < HSET_NR_KINDS; k++)
		kinds[k] = c->o.types[k] && !hist_kind_unsupported(c, k);
	err = promexp_hset(f, "latscope", c->run.set, kinds, c->mo.nr_bounds ? c->mo.bounds_ns : NULL, c->mo.nr_bounds);
	if (err)
		return err;
	hsource_stats(c->run.src, &st);
	struct promexp_label info[] = { { "backend", backend }, { "version", LATSCOPE_VERSION } };
	if ((err = promexp_family(f, "latscope_monitor_info", "gauge",
				  "the running monitor: its histogram backend and version (value 1)")) ||
	    (err = promexp_sample(f, "latscope_monitor_info", info, 2, 1)))
		return err;
	if ((err = one(f, "latscope_events_total", "counter",
		       "events the backend took (perf: tracepoint events decoded; bpf: program "
		       "runs; kernel: samples filed)", (double)st.seen)) ||
	    (err = one(f, "latscope_events_lost_total", "counter",
		       "events lost (perf: dropped from the rings, or fired and never delivered; bpf: "
		       "runs the kernel's recursion "
		       "guard skipped; kernel: samples a full map dropped)", (double)st.lost)) ||
	    (err = one(f, "latscope_cpu_seconds_total", "counter",
		       "CPU time of the monitor's process (collection, rendering, serving)", cpu_s())) ||
	    (err = one(f, "latscope_resident_memory_bytes", "gauge", "the monitor's resident memory",
		       rss_bytes())) ||
	    (err = one(f, "latscope_start_time_seconds", "gauge", "when the monitor started (Unix time)",
		       c->mon.start_unix)) ||
	    (err = one(f, "latscope_reset_time_seconds", "gauge",
		       "when the histograms last started from zero: the start or the last SIGHUP "
		       "(Unix time)", c->mon.reset_unix)) ||
	    (err = one(f, "latscope_resets_total", "counter", "SIGHUP resets of the histograms",
		       (double)c->mon.resets)) ||
	    (err = one(f, "latscope_collection_seconds", "gauge",
		       "how long the last read of the backend and rendering took", (double)c->mon.collect_ns / 1e9)))
		return err;
	if (st.kernel_time_known) {
		/* the programs run in the traced tasks' context, not in ours:
		 * their time, where the kernel counts it (LATSCOPE_BPF_STATS=1) */
		if ((err = one(f, "latscope_bpf_run_seconds_total", "counter",
			       "time the kernel spent in the BPF programs (counted only with "
			       "LATSCOPE_BPF_STATS=1)", (double)st.kernel_time_ns / 1e9)))
			return err;
	}
	if (c->mon.srv) {
		struct metricsrv_stats ms;
		metricsrv_get_stats(c->mon.srv, &ms);
		if ((err = one(f, "latscope_scrapes_total", "counter", "/metrics requests answered",
			       (double)ms.scrapes)))
			return err;
	}
	if (c->mon.nm && (err = render_noise(c, f)))
		return err;
	return c->mon.dtlr ? render_dtl(c, f) : 0;
}

/* The exposition into the --textfile directory, renamed into place
 * (cmdio's safe-output stream, as hist's -O tree); 0 or EXIT_ERR (said).
 * Owner-only as every file latscope writes: node_exporter runs as root or
 * as the file's owner. */
static int write_textfile(struct hctx *c)
{
	struct safeout_file *sf;
	char shown[PATH_MAX];

	snprintf(shown, sizeof(shown), "%s/%s", c->mo.textfile, TEXTFILE_NAME);
	FILE *f = cmdio_fopen_safe(&sf, c->mon.text_dirfd, TEXTFILE_NAME, shown, c->o.force, c->prog);
	if (!f)
		return EXIT_ERR;
	fwrite(c->mon.expo, 1, c->mon.expo_len, f);	/* a short write shows in the close */
	return cmdio_fclose_safe(f, sf, shown, false, c->prog);
}

void hist_monitor_publish(struct hctx *c, uint64_t now_ns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err = f ? render(c, f) : -ENOMEM;

	if (f && fclose(f) != 0 && !err)
		err = -ENOMEM;
	c->mon.collect_ns = tool_now_ns() - now_ns;
	if (err) {
		/* the last good snapshot stays served */
		if (!c->mon.publish_errors++)
			fprintf(stderr, "%s: cannot render the metrics: %s\n", c->prog, strerror(-err));
		free(buf);
		return;
	}
	free(c->mon.expo);
	c->mon.expo = buf;
	c->mon.expo_len = len;
	if (c->mon.srv && metricsrv_publish(c->mon.srv, buf, len) < 0 && !c->mon.publish_errors++)
		fprintf(stderr, "%s: cannot publish the metrics: out of memory\n", c->prog);
	if (c->mon.text_dirfd >= 0 && write_textfile(c) != 0)
		c->mon.publish_errors++;
	c->mon.publishes++;
}

int hist_monitor_reset(struct hctx *c)
{
	struct hsource_why hw;

	if (hsource_reset(c->run.src, &hw) < 0) {
		fprintf(stderr, "%s: SIGHUP: cannot reset the histograms: %s\n", c->prog,
			hw.reason[0] ? hw.reason : "failed");
		return -1;
	}
	if (c->mon.nm)
		noisemon_reset(c->mon.nm);
	if (c->mon.dtls) {
		struct dtlstat *fresh;
		if (dtlstat_new(&fresh) == 0) {
			dtlstat_free(c->mon.dtls);
			c->mon.dtls = fresh;
		}
	}
	c->mon.resets++;
	c->mon.reset_unix = wall_s();
	fprintf(stderr, "%s: SIGHUP: the histograms and worst cases start again from zero\n", c->prog);
	return 0;
}

void hist_monitor_end(struct hctx *c)
{
	struct metricsrv_stats ms = { 0 };

	noisemon_free(c->mon.nm);	/* threads stopped, programs detached */
	c->mon.nm = NULL;
	if (c->mon.dtlr) {
		/* the last of the DTL, and the debugfs mask written back */
		int err = dtlrec_close(c->mon.dtlr, NULL);	/* frees it: its message with it */
		if (err < 0)
			fprintf(stderr, "%s: --dtl: at the end: %s (the debugfs mask may not be back)\n",
				c->prog, strerror(-err));
		c->mon.dtlr = NULL;
	}
	dtlstat_free(c->mon.dtls);
	c->mon.dtls = NULL;
	free(c->mon.dtl_ring_full);
	free(c->mon.dtl_aux_seen);
	c->mon.dtl_ring_full = NULL;
	c->mon.dtl_aux_seen = NULL;
	if (c->mon.srv) {
		metricsrv_get_stats(c->mon.srv, &ms);
		metricsrv_stop(c->mon.srv);
		c->mon.srv = NULL;
	}
	if (c->mon.text_dirfd >= 0)
		close(c->mon.text_dirfd);
	c->mon.text_dirfd = -1;
	free(c->mon.expo);
	c->mon.expo = NULL;
	fprintf(stderr, "%s: stopped after %.1f s: %" PRIu64 " snapshots, %" PRIu64 " scrapes, %" PRIu64
			" resets%s\n",
		c->prog, (double)(tool_now_ns() - c->mon.monitor_start_ns) / 1e9, c->mon.publishes, ms.scrapes,
		c->mon.resets, c->mon.publish_errors ? " (some snapshots failed: said above)" : "");
}
