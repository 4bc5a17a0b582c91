/* SPDX-License-Identifier: MIT */
/*
 * expose.c - `latscope monitor`: hist top's live histograms kept for as
 * long as it runs and handed to Prometheus (docs/monitor.md).  hist_live()
 * (src/hist/run.c) runs the backend and the loop; at every refresh it reads
 * the backend's counts and calls the publish hook, which renders the
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
#include "monitor.h"
#include "live/metricsrv.h"
#include "print/promexp.h"
#include "tool.h"


#define TEXTFILE_NAME "latscope.prom"

int monitor_parse_le(const char *arg, void *params)
{
	struct monctx *m = params;
	char *dup = strdup(arg), *save = NULL;
	size_t n = 0;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (char *tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (n == MONITOR_MAX_BOUNDS || parse_duration_ns(tok, 1000, &v) || !v ||
		    (n && v <= m->mo.bounds_ns[n - 1]))
			err = -EINVAL;
		else
			m->mo.bounds_ns[n++] = v;
	}
	free(dup);
	if (err || !n)
		return -EINVAL;
	m->mo.nr_bounds = n;
	return 0;
}

int monitor_parse_noise(const char *arg, void *params)
{
	struct monctx *m = params;
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
	m->mo.noise_runtime_us = r / 1000;
	m->mo.noise_period_us = p / 1000;
	return 0;
}

/* --noise: the busy loops and their BPF counters (engine/noisemon.h) on
 * the measured CPUs.  0 or -1 (said). */
static int noise_start(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	char why[512];
	struct noisemon_cfg nc = {
		.cpus = c->lo.cpus, .period_us = m->mo.noise_period_us, .runtime_us = m->mo.noise_runtime_us,
		.threshold_us = m->mo.noise_threshold_us, .policy = SCHED_OTHER, .prio = 0,
		.softirq_in_threads = sysinfo_preempt_rt(),
	};

	if (noisemon_start(&m->mon.nm, &nc, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: --noise: %s\n", c->prog, why);
		m->mon.nm = NULL;
		return -1;
	}
	fprintf(stderr, "%s: noise counters: a busy loop %" PRIu64 " us of every %" PRIu64
			" us on each measured CPU (%.2f %% of it)\n",
		c->prog, m->mo.noise_runtime_us, m->mo.noise_period_us,
		100.0 * (double)m->mo.noise_runtime_us / (double)m->mo.noise_period_us);
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
	struct monctx *m = monctx_of(arg);

	if (dtlstat_add_payload(m->mon.dtls, cpu, pos, data, len, true, false) < 0)
		m->mon.dtl_bad++;
}

/* dtlrec's aux_sink: each commit of the driver; one of exactly 84 entries
 * (85 slots with the header) found the hypervisor's ring overrun */
static void dtl_aux_sink(void *arg, unsigned cpu, uint64_t offset, uint64_t size, uint64_t flags)
{
	struct monctx *m = monctx_of(arg);

	(void)offset;
	(void)flags;
	if (cpu >= DTLSTAT_MAX_CPUS)
		return;
	if (dtl_poll_filled_ring(size, !m->mon.dtl_aux_seen[cpu]))
		m->mon.dtl_ring_full[cpu]++;
	m->mon.dtl_aux_seen[cpu] = 1;
}

/* --dtl: the DTL of the measured CPUs (vpa_dtl PMU or debugfs,
 * lib/live/dtlrec.h without a file) into counters (lib/engine/dtlstat.h).
 * 0 or -1 (said). */
static int dtl_start(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	struct dtlrec_opts o = {
		.cpus = c->lo.cpus, .sysfs = m->mo.sysfs, .debugfs = m->mo.debugfs, .procfs = m->mo.procfs,
		.sink = dtl_sink, .aux_sink = dtl_aux_sink, .sink_arg = c,
		.aux_bytes = (size_t)m->mo.dtl_aux_bytes,
	};
	const char *knob, *knob_old;
	int err = dtlstat_new(&m->mon.dtls);

	long page = sysconf(_SC_PAGESIZE);
	uint64_t pages = page > 0 ? m->mo.dtl_aux_bytes / (uint64_t)page : 0;
	if (m->mo.dtl_aux_bytes && (m->mo.dtl_aux_bytes % (uint64_t)page || (pages & (pages - 1)))) {
		fprintf(stderr, "%s: --dtl-aux-size: %" PRIu64 " bytes is not a power of two of %ld-byte pages\n",
			c->prog, m->mo.dtl_aux_bytes, page);
		dtlstat_free(m->mon.dtls);
		m->mon.dtls = NULL;
		return -1;
	}
	m->mon.dtl_ring_full = calloc(DTLSTAT_MAX_CPUS, sizeof(*m->mon.dtl_ring_full));
	m->mon.dtl_aux_seen = calloc(DTLSTAT_MAX_CPUS, 1);
	if (!err && (!m->mon.dtl_ring_full || !m->mon.dtl_aux_seen))
		err = -ENOMEM;
	if (err < 0) {
		fprintf(stderr, "%s: --dtl: %s\n", c->prog, strerror(-err));
		return -1;
	}
	err = dtlrec_open(&m->mon.dtlr, &o, NULL);
	if (!err && dtlrec_changed_setting(m->mon.dtlr, &knob, &knob_old))
		cmdio_on_abort_write(knob, knob_old);	/* a second signal restores it too */
	if (!err)
		err = dtlrec_enable(m->mon.dtlr);
	if (err < 0) {
		fprintf(stderr, "%s: --dtl: %s\n", c->prog,
			m->mon.dtlr && *dtlrec_strerror(m->mon.dtlr) ? dtlrec_strerror(m->mon.dtlr) : strerror(-err));
		dtlrec_close(m->mon.dtlr, NULL);
		m->mon.dtlr = NULL;
		return -1;
	}
	struct dtlrec_stats st;
	dtlrec_get_stats(m->mon.dtlr, &st);
	fprintf(stderr, "%s: DTL counters: %u CPUs via %s\n", c->prog, st.cpus,
		st.pmu ? "the vpa_dtl PMU" : "debugfs");
	return 0;
}

/* what the DTL has now into the counters */
static void dtl_poll(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	if (m->mon.dtlr && dtlrec_poll(m->mon.dtlr, 0) < 0 && !m->mon.dtl_poll_failed) {
		m->mon.dtl_poll_failed = true;
		fprintf(stderr, "%s: --dtl: %s (counted as lost from here)\n", c->prog,
			dtlrec_strerror(m->mon.dtlr));
	}
	struct dtlrec_stats st;
	if (m->mon.dtlr) {
		dtlrec_get_stats(m->mon.dtlr, &st);
		if (st.aux_stopped > m->mon.dtl_stopped_said) {
			m->mon.dtl_stopped_said = st.aux_stopped;
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
	struct monctx *m = monctx_of(c);
	struct dtlrec_stats rs;
	uint8_t stopped[DTLSTAT_MAX_CPUS];

	dtlrec_get_stats(m->mon.dtlr, &rs);
	for (unsigned i = 0; i < DTLSTAT_MAX_CPUS; i++)
		stopped[i] = dtlrec_cpu_stopped(m->mon.dtlr, i);
	struct promexp_dtl_losses l = {
		.lost = rs.lost + rs.aux_flags_lost + m->mon.dtl_bad + m->mon.dtl_poll_failed,
		.ring_full = m->mon.dtl_ring_full, .stopped = stopped,
	};
	return promexp_dtl(f, m->mon.dtls, &l);
}

/* The noise counters' families (lib/print/promexp.h). */
static int render_noise(struct hctx *c, FILE *f)
{
	struct monctx *m = monctx_of(c);
	const struct noisemon_cpu *n;
	size_t nr = noisemon_cpus(m->mon.nm, &n);
	return promexp_noise(f, n, nr);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int monitor_start(struct hctx *c, int *wait_ms)
{
	struct monctx *m = monctx_of(c);

	if (m->mo.noise_period_us && noise_start(c) < 0)
		return -1;
	if (m->mo.timerlat_period_us && monitor_timerlat_start(c) < 0)
		return -1;
	if (m->mo.dtl) {
		if (dtl_start(c) < 0)
			return -1;
		*wait_ms = dtlrec_poll_ms(m->mon.dtlr);	/* debugfs: read every 10 ms, as dtl record */
	}
	return 0;
}

void monitor_process(struct hctx *c, uint64_t until_ns)
{
	struct monctx *m = monctx_of(c);

	if (m->mon.nm)
		noisemon_advance(m->mon.nm, until_ns);
	if (m->mon.dtlr)
		dtl_poll(c);
}

int monitor_begin(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	char err[256];

	m->mon.text_dirfd = -1;
	m->mon.start_unix = m->mon.reset_unix = wall_s();
	m->mon.start_ns = tool_now_ns();
	if (m->mo.textfile) {
		struct safeout_refusal why;
		int e = safeout_dir_open(&m->mon.text_dirfd, AT_FDCWD, m->mo.textfile, c->o.force ? SAFEOUT_FORCE : 0,
					 &why);
		if (e < 0) {
			char msg[PATH_MAX + 160];
			fprintf(stderr, "%s: --textfile %s: %s\n", c->prog, m->mo.textfile,
				safeout_explain(msg, sizeof(msg), e, &why));
			return -1;
		}
	}
	if (m->mo.no_listen)
		return 0;
	struct metricsrv_cfg mc = { .listen = m->mo.listen };
	int e = metricsrv_start(&m->mon.srv, &mc, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "%s: cannot serve /metrics: %s\n", c->prog, err);
		if (m->mon.text_dirfd >= 0)
			close(m->mon.text_dirfd);
		m->mon.text_dirfd = -1;
		return -1;
	}
	/* the port a test (or a user of port 0) connects to */
	fprintf(stderr, "%s: serving /metrics on port %u (--listen %s)\n", c->prog,
		(unsigned)metricsrv_port(m->mon.srv), m->mo.listen);
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
	struct monctx *m = monctx_of(c);
	bool kinds[HSET_NR_KINDS];
	struct hsource_stats st;
	const char *backend = hsource_ops_of(c->run.src)->name;
	int err;

	for (int k = 0; k < HSET_NR_KINDS; k++)
		kinds[k] = c->o.types[k] && !hist_kind_unsupported(c, k);
	err = promexp_hset(f, "latscope", c->run.set, kinds, m->mo.nr_bounds ? m->mo.bounds_ns : NULL, m->mo.nr_bounds);
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
		       m->mon.start_unix)) ||
	    (err = one(f, "latscope_reset_time_seconds", "gauge",
		       "when the histograms last started from zero: the start or the last SIGHUP "
		       "(Unix time)", m->mon.reset_unix)) ||
	    (err = one(f, "latscope_resets_total", "counter", "SIGHUP resets of the histograms",
		       (double)m->mon.resets)) ||
	    (err = one(f, "latscope_collection_seconds", "gauge",
		       "how long the last read of the backend and rendering took", (double)m->mon.collect_ns / 1e9)))
		return err;
	if (st.kernel_time_known) {
		/* the programs run in the traced tasks' context, not in ours:
		 * their time, where the kernel counts it (LATSCOPE_BPF_STATS=1) */
		if ((err = one(f, "latscope_bpf_run_seconds_total", "counter",
			       "time the kernel spent in the BPF programs (counted only with "
			       "LATSCOPE_BPF_STATS=1)", (double)st.kernel_time_ns / 1e9)))
			return err;
	}
	if (m->mon.srv) {
		struct metricsrv_stats ms;
		metricsrv_get_stats(m->mon.srv, &ms);
		if ((err = one(f, "latscope_scrapes_total", "counter", "/metrics requests answered",
			       (double)ms.scrapes)))
			return err;
	}
	if (m->mon.nm && (err = render_noise(c, f)))
		return err;
	if (m->mon.tlb && (err = monitor_timerlat_render(c, f)))
		return err;
	return m->mon.dtlr ? render_dtl(c, f) : 0;
}

/* The exposition into the --textfile directory, renamed into place
 * (cmdio's safe-output stream, as hist's -O tree); 0 or EXIT_ERR (said).
 * Owner-only as every file latscope writes: node_exporter runs as root or
 * as the file's owner. */
static int write_textfile(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	struct safeout_file *sf;
	char shown[PATH_MAX];

	snprintf(shown, sizeof(shown), "%s/%s", m->mo.textfile, TEXTFILE_NAME);
	FILE *f = cmdio_fopen_safe(&sf, m->mon.text_dirfd, TEXTFILE_NAME, shown, c->o.force, c->prog);
	if (!f)
		return EXIT_ERR;
	fwrite(m->mon.expo, 1, m->mon.expo_len, f);	/* a short write shows in the close */
	return cmdio_fclose_safe(f, sf, shown, false, c->prog);
}

void monitor_publish(struct hctx *c, uint64_t now_ns)
{
	struct monctx *m = monctx_of(c);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err = f ? render(c, f) : -ENOMEM;

	if (f && fclose(f) != 0 && !err)
		err = -ENOMEM;
	m->mon.collect_ns = tool_now_ns() - now_ns;
	if (err) {
		/* the last good snapshot stays served */
		if (!m->mon.publish_errors++)
			fprintf(stderr, "%s: cannot render the metrics: %s\n", c->prog, strerror(-err));
		free(buf);
		return;
	}
	free(m->mon.expo);
	m->mon.expo = buf;
	m->mon.expo_len = len;
	if (m->mon.srv && metricsrv_publish(m->mon.srv, buf, len) < 0 && !m->mon.publish_errors++)
		fprintf(stderr, "%s: cannot publish the metrics: out of memory\n", c->prog);
	if (m->mon.text_dirfd >= 0 && write_textfile(c) != 0)
		m->mon.publish_errors++;
	m->mon.publishes++;
}

int monitor_reset(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	struct hsource_why hw;

	if (hsource_reset(c->run.src, &hw) < 0) {
		fprintf(stderr, "%s: SIGHUP: cannot reset the histograms: %s\n", c->prog,
			hw.reason[0] ? hw.reason : "failed");
		return -1;
	}
	if (m->mon.nm)
		noisemon_reset(m->mon.nm);
	if (m->mon.tlb && monitor_timerlat_reset(c) < 0)
		return -1;
	if (m->mon.dtls) {
		struct dtlstat *fresh;
		if (dtlstat_new(&fresh) == 0) {
			dtlstat_free(m->mon.dtls);
			m->mon.dtls = fresh;
		}
	}
	m->mon.resets++;
	m->mon.reset_unix = wall_s();
	fprintf(stderr, "%s: SIGHUP: the histograms and worst cases start again from zero\n", c->prog);
	return 0;
}

void monitor_end(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	struct metricsrv_stats ms = { 0 };

	noisemon_free(m->mon.nm);	/* threads stopped, programs detached */
	m->mon.nm = NULL;
	monitor_timerlat_end(c);
	if (m->mon.dtlr) {
		/* the last of the DTL, and the debugfs mask written back */
		int err = dtlrec_close(m->mon.dtlr, NULL);	/* frees it: its message with it */
		if (err < 0)
			fprintf(stderr, "%s: --dtl: at the end: %s (the debugfs mask may not be back)\n",
				c->prog, strerror(-err));
		m->mon.dtlr = NULL;
	}
	dtlstat_free(m->mon.dtls);
	m->mon.dtls = NULL;
	free(m->mon.dtl_ring_full);
	free(m->mon.dtl_aux_seen);
	m->mon.dtl_ring_full = NULL;
	m->mon.dtl_aux_seen = NULL;
	if (m->mon.srv) {
		metricsrv_get_stats(m->mon.srv, &ms);
		metricsrv_stop(m->mon.srv);
		m->mon.srv = NULL;
	}
	if (m->mon.text_dirfd >= 0)
		close(m->mon.text_dirfd);
	m->mon.text_dirfd = -1;
	free(m->mon.expo);
	m->mon.expo = NULL;
	fprintf(stderr, "%s: stopped after %.1f s: %" PRIu64 " snapshots, %" PRIu64 " scrapes, %" PRIu64
			" resets%s\n",
		c->prog, (double)(tool_now_ns() - m->mon.start_ns) / 1e9, m->mon.publishes, ms.scrapes,
		m->mon.resets, m->mon.publish_errors ? " (some snapshots failed: said above)" : "");
}
