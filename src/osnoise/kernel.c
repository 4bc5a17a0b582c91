/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - the runs of `latscope osnoise --kernel`: the kernel osnoise
 * tracer driven in an instance of its own (lib/live/osnkernel.h), its text
 * read as it comes into the engine, and a saved kernel trace
 * (--parse-kernel).  The state and the report are run.c's and output.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "cmdio.h"
#include "commands.h"
#include "live/evsrc.h"
#include "live/livesetup.h"
#include "live/osnkernel.h"
#include "osnoise.h"
#include "base/sysinfo.h"
#include "tool.h"

/* ---- kernel tracer ------------------------------------------------------------ */

static int kernel_setup(struct ctx *c)
{
	int err = osnoise_setup_state(c);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		return err;
	}
	c->run.attribution = true;
	c->run.kmode = true;
	return 0;
}

/* --parse-kernel FILE: a saved osnoise trace (text) shown in the same views. */
int osnoise_run_kernel_text(struct ctx *c, const char *path)
{
	cmdio_sigpipe_as_error();
	osnoise_begin_run(c);
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "latscope osnoise: cannot open '%s': %s\n", path, strerror(errno));
		return EXIT_ERR;
	}
	if (!c->opt.have_cpus) {
		/* the CPUs are those of the records */
		char line[4096];
		struct osnkernel_rec r;
		memset(&c->run.cpus, 0, sizeof(c->run.cpus));
		while (fgets(line, sizeof(line), f))
			if (!osnkernel_parse_line(line, &r))
				parse_cpuset_add(&c->run.cpus, r.cpu);
		if (f == stdin || fseek(f, 0, SEEK_SET) < 0) {
			fprintf(stderr, "latscope osnoise: '%s' cannot be read twice; give the CPUs with -c\n",
				path);
			if (f != stdin)
				fclose(f);
			return EXIT_ERR;
		}
		if (!parse_cpuset_count(&c->run.cpus)) {
			fprintf(stderr, "latscope osnoise: no osnoise records in '%s'\n", path);
			fclose(f);
			return EXIT_ERR;
		}
	}
	c->run.replaying = true;
	c->run.ran = "kernel";
	if (kernel_setup(c) < 0) {
		if (f != stdin)
			fclose(f);
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	static struct osneng_kbuf kb;
	kb.len = kb.bad = 0;
	char buf[16384];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		osneng_kernel_text(c->run.e, &kb, buf, n);
	osneng_kernel_text(c->run.e, &kb, "\n", 1);
	if (f != stdin)
		fclose(f);
	if (kb.bad)
		fprintf(stderr, "latscope osnoise: %" PRIu64 " malformed osnoise lines skipped\n", kb.bad);
	c->res.cnt.bad_wrec += kb.bad;
	c->res.cnt.lost = osneng_counts(c->run.e)->lost;	/* the trace's [LOST] lines */
	osnoise_final_report(c);
	int rc = osnoise_finish(c, tool_status(false, osnoise_stop_why(c) != 0));
	osnoise_free_state(c);
	return rc;
}

/* The kernel tracer's loop (src/tool.h): its text read as it comes, a pause
 * when there is none; a failed read ends the run. */
struct kernel_feed {
	struct ctx *c;
	struct osnkernel *k;
	struct osneng_kbuf kb;
	char buf[16384];
};

static int kernel_wait(void *arg, int timeout_ms)
{
	struct kernel_feed *kf = arg;
	long n = osnkernel_read(kf->k, kf->buf, sizeof(kf->buf));
	if (n < 0)
		return -EIO;
	if (n == 0)
		tool_sleep_ms(timeout_ms);
	else
		osneng_kernel_text(kf->c->run.e, &kf->kb, kf->buf, (size_t)n);
	return 0;
}

static bool live_done_kernel(void *arg)
{
	return osnoise_stop_why(((struct kernel_feed *)arg)->c) != 0;
}

/* hist: the status line (gaps parsed so far, the trace's [LOST] so far) */
static void kernel_progress(void *arg, uint64_t now_ns)
{
	struct ctx *c = ((struct kernel_feed *)arg)->c;

	progress_update(&c->run.status, now_ns, osnoise_gaps(c), osneng_counts(c->run.e)->lost);
}

/* The tracer stopped and its settings restored; false (said on stderr) when
 * one could not be written back. */
static bool kernel_end(struct osnkernel *k)
{
	bool ok = osnkernel_stop(k) == 0;
	if (!ok)
		fprintf(stderr, "latscope osnoise: cannot restore the kernel tracer's settings: %s\n",
			osnkernel_strerror(k));
	osnkernel_free(k);
	return ok;
}

/* The tracer started with the run's measurement (its CPUs, period,
 * thresholds, events, buffer), an abort (a second signal) restoring it from
 * the start on.  0 with *kp (kernel_end() frees it), or -1 after a line on
 * stderr: a signal before the start (the tracer untouched), a failed start
 * or a signal during it (the tracer stopped and restored again). */
static int start_tracer(struct ctx *c, struct osnkernel **kp)
{
	char cl[1024];
	parse_cpulist_format(&c->run.cpus, cl, sizeof(cl));
	struct osnkernel_config kc = {
		.cpus = cl, .period_us = c->run.period_us, .runtime_us = c->run.runtime_us,
		.stop_us = c->opt.stop_us, .stop_total_us = c->opt.stop_total_us,
		.threshold_us = c->run.threshold_us, .no_workload = c->run.no_workload,
		.events = c->out.events || c->mode == M_HIST || c->run.attribution,
		/* top's attribution needs the interference events, not one
		 * sample per gap (-s stops on a sample: then they are on) */
		.no_samples = !c->out.events && c->mode != M_HIST && !c->opt.stop_us,
		.buffer_kb = c->run.kbuf_bytes / 1024,
	};
	if (tool_setup_interrupted("latscope osnoise"))	/* the tracer untouched */
		return -1;
	/* an abort (a second signal) restores too, even in the middle of the start */
	cmdio_on_abort_call(osnkernel_emergency_restore);
	int err = osnkernel_start(kp, &kc);
	if (err < 0)
		fprintf(stderr, "latscope osnoise: kernel tracer: %s\n", osnkernel_strerror(*kp));
	/* failed, or a signal during the start: the same stop (and restore)
	 * as at the end */
	if (err < 0 || tool_setup_interrupted("latscope osnoise")) {
		kernel_end(*kp);
		cmdio_on_abort_forget();
		return -1;
	}
	return 0;
}

/* The measurement: the tracer's text fed to the engine as it comes until
 * -d, a stop or a signal (hist: with its status line, erased at the end;
 * trace: after the header). */
static void follow_tracer(struct kernel_feed *kf)
{
	struct ctx *c = kf->c;
	uint64_t t0 = tool_now_ns();
	progress_init(&c->run.status, stderr, c->mode == M_HIST ? c->out.progress : 0, t0, c->opt.duration_ns, "gaps");
	struct tool_loop l = {
		.arg = kf,
		.start_ns = t0,
		.duration_ns = c->opt.duration_ns,
		.refresh_ns = progress_on(&c->run.status) ? PROGRESS_PERIOD_NS : 0,
		.watch_fd = STDOUT_FILENO,
		.wait = kernel_wait,
		.refresh = kernel_progress,
		.done = live_done_kernel,
	};
	if (c->mode == M_TRACE && !c->out.json)
		osnoise_print_trace_header(stdout);
	if (progress_on(&c->run.status))
		kernel_progress(kf, t0);	/* the line at once */
	tool_run(&l);
	progress_clear(&c->run.status);	/* erased before the report */
}

/* The window closed and the buffer read to its end, so every record
 * written before the end marker is shown; then the instance's loss into
 * c->res.cnt.  The instance stays: kernel_end() removes it. */
static void drain_tracer(struct kernel_feed *kf)
{
	struct ctx *c = kf->c;
	if (osnkernel_quiesce(kf->k) < 0)
		fprintf(stderr, "latscope osnoise: %s\n", osnkernel_strerror(kf->k));
	long n;
	while (!cmdio_broken_pipe() && (n = osnkernel_read(kf->k, kf->buf, sizeof(kf->buf))) > 0)
		osneng_kernel_text(c->run.e, &kf->kb, kf->buf, (size_t)n);
	osneng_kernel_text(c->run.e, &kf->kb, "\n", 1);
	c->res.cnt.bad_wrec += kf->kb.bad;
	uint64_t overrun = 0;
	if (osnkernel_lost(kf->k, &overrun) < 0)
		fprintf(stderr, "latscope osnoise: %s: losses are counted from the trace's [LOST] lines "
			"only\n", osnkernel_strerror(kf->k));
	/* the [LOST] lines count what a read found missing; the stats count
	 * every overwrite, also those no read reported */
	uint64_t said = osneng_counts(c->run.e)->lost;
	c->res.cnt.lost = overrun > said ? overrun : said;
}

int osnoise_run_kernel(struct ctx *c)
{
	cmdio_signals_install();	/* first: the tracer is always stopped below */
	osnoise_begin_run(c);
	c->run.ran = "kernel";
	if (!osnkernel_available()) {
		fprintf(stderr, "latscope osnoise: --kernel needs the kernel osnoise tracer, which this "
				"kernel does not have (no %s/osnoise; CONFIG_OSNOISE_TRACER); run without "
				"--kernel to measure in userspace\n",
			tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs");
		return EXIT_ERR;
	}
	struct parse_cpuset online;
	if (tool_cpus(&c->run.cpus, c->opt.have_cpus, &online, "latscope osnoise"))
		return EXIT_ERR;
	if (kernel_setup(c) < 0) {
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	/* off the measured CPUs, like the userspace collector: the reader's
	 * own time there would be thread noise */
	struct livesetup ls;
	livesetup_init(&ls, NULL);
	if (osnoise_housekeep(c, &online, &ls) < 0) {
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	/* the instance's buffer: --ring-size, by default the perf ring's size */
	c->run.kbuf_bytes = c->opt.ring_bytes ? c->opt.ring_bytes : EVSRC_DEFAULT_RING_BYTES;
	struct osnkernel *k;
	if (start_tracer(c, &k) < 0) {
		livesetup_restore(&ls);
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	sysinfo_steal(c->run.steal0, c->run.list, c->run.nr);
	static struct kernel_feed kf;	/* 80 KiB: not on the stack */
	kf.c = c;
	kf.k = k;
	kf.kb.len = kf.kb.bad = 0;
	follow_tracer(&kf);
	drain_tracer(&kf);
	/* the tracer instance removed and the settings restored before anything is printed */
	bool restored = kernel_end(k);
	cmdio_on_abort_forget();
	livesetup_restore(&ls);	/* the affinity back */
	int rc = osnoise_end_report(c);
	osnoise_free_state(c);
	return restored ? tool_end_status(rc) : EXIT_ERR;
}
