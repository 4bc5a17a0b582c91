/* SPDX-License-Identifier: MIT */
/*
 * live.c - the live runs of `latscope hist` (record, top) and of the
 * commands built on them (monitor, through struct hist_live_hooks): the
 * backend chosen and opened, the -o recording, keep-busy, the timer
 * workload, the loop, the system settings they change and restore.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "cmdio.h"
#include "commands.h"
#include "engine/hsource.h"
#include "engine/noisemon.h"
#include "engine/tasklat.h"
#include "live/dtlrec.h"
#include "live/livesetup.h"
#include "hist.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "base/safeout.h"
#include "base/sysinfo.h"
#include "live/timerwl.h"
#include "firedout.h"
#include "progress.h"
#include "tool.h"

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
/* -a: who had the CPU in the worst sample's window */
static const char *const live_auto[] = {
	"?irq:irq_handler_entry", "?irq:irq_handler_exit",
	"?irq:softirq_entry", "?irq:softirq_exit",
	"?irq_vectors:*_entry", "?irq_vectors:*_exit",
};
static const char *const live_irqsoff[] = {
	"?preemptirq:irq_disable",
	"?preemptirq:irq_enable",
	"?preemptirq:preempt_disable",
	"?preemptirq:preempt_enable",
	/* the idle loop's wait: no preemption-off section (lib/engine/latency.c, on_cpu_idle) */
	"?power:cpu_idle",
};

/* what a call of the source has to say, on stderr */
static void say_why(const struct hctx *c, const struct hsource_why *why)
{
	if (why->reason[0])
		fprintf(stderr, "%s: %s\n", c->prog, why->reason);
	if (why->note[0])
		fprintf(stderr, "%s: %s\n", c->prog, why->note);
}

/* The source's counts so far into c. */
static void take_source(struct hctx *c)
{
	struct hsource_stats st;

	hsource_stats(c->run.src, &st);
	hist_take_stats(c, &st);
}

static int open_record_file(struct hctx *c)
{
	int err;
	/* one rule for every recorder: the host's byte order (the kernel's
	 * records are copied as they come), as perf writes */
	struct safeout_refusal why;
	struct pdwrite_opts o = { .big_endian = BYTES_HOST_BIG_ENDIAN, .force = c->o.force, .checkpoint = true,
				  .refusal = &why };
	err = pdwrite_open(&c->run.pw, c->o.record_out, &o);
	if (err < 0) {
		char msg[PATH_MAX + 160];
		fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, c->o.record_out,
			safeout_explain(msg, sizeof(msg), err, &why));
		return err;
	}
	/* the events and their formats; from then on every ring record */
	err = hsource_record(c->run.src, c->run.pw, &c->run.live_err);
	if (err < 0) {
		fprintf(stderr, "%s: cannot describe the tracepoints in %s: %s\n", c->prog,
			c->o.record_out, strerror(-err));
		return err;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	pdwrite_set_string_feature(c->run.pw, PDFORMAT_FEAT_HOSTNAME, host);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdwrite_set_nrcpus(c->run.pw, (uint32_t)ncpu, (uint32_t)ncpu);
	err = pdwrite_begin_data(c->run.pw);
	if (err < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", c->prog, c->o.record_out, strerror(-err));
		return err;
	}
	return 0;
}

/*
 * Keep-busy: explicit, or after the idle-drop self-test.  One line on stderr
 * when the self-test turns it on.
 */
static int keep_busy_setup(struct hctx *c, struct livesetup *ls)
{
	if (c->lo.keep_busy < 0) {
		c->run.idc_ran = true;
		c->run.idc_err = idlecheck_check(&c->lo.cpus, NULL, c->run.idc, sizeof(c->run.idc) / sizeof(c->run.idc[0]),
				       &c->run.nidc);
		if (!c->run.idc_err && idlecheck_any_drops(c->run.idc, c->run.nidc)) {
			char list[256] = "";
			size_t used = 0;
			for (size_t i = 0; i < c->run.nidc && used < sizeof(list) - 64; i++)
				if (c->run.idc[i].verdict == IDLECHECK_DROPS)
					used += (size_t)snprintf(list + used, sizeof(list) - used,
								 "%sCPU%u %" PRIu64 "/%" PRIu64,
								 used ? ", " : "", c->run.idc[i].cpu,
								 c->run.idc[i].samples + c->run.idc[i].lost,
								 c->run.idc[i].counted);
			fprintf(stderr,
				"%s: this kernel drops perf samples of interrupts taken on an idle CPU "
				"(self-test, timer interrupts delivered/fired: %s): keeping the traced CPUs busy "
				"with SCHED_IDLE spinners (--no-keep-busy to turn off)\n",
				c->prog, list);
			c->run.busy_why = "self-test";
		}
	} else if (c->lo.keep_busy > 0) {
		c->run.busy_why = "option";
	}
	if (!c->run.busy_why)
		return 0;
	struct livesetup_cfg cfg = { .keep_busy_cpus = &c->lo.cpus, .dma_latency_us = -1 };
	int err = livesetup_apply(ls, &cfg, LIVESETUP_KEEP_BUSY, NULL);
	if (err < 0) {
		fprintf(stderr, "%s: cannot start the keep-busy threads: %s (try --no-keep-busy)\n",
			c->prog, strerror(-err));
		return err;
	}
	c->run.busy_on = true;
	return 0;
}

/* A backend whose events come up to userspace (perf, auto's last resort):
 * keep-busy first, then the source (the tracepoints' rings, the decoder,
 * the engine).  0 or -1 (said). */
static int open_userspace(struct hctx *c, const struct hsource_ops *ops, const struct hsource_cfg *cfg,
			  struct livesetup *ls)
{
	struct hsource_why hw;

	if (keep_busy_setup(c, ls) < 0 || tool_setup_interrupted(c->prog))
		return -1;
	if (hsource_open(&c->run.src, ops, cfg, &hw) < 0) {
		say_why(c, &hw);
		return -1;
	}
	c->run.ran = ops;
	return 0;
}

#define HIST_MAX_BACKENDS 8
#define WHY_LEN (sizeof(((struct hsource_why *)0)->reason) + 16)

/* auto's line on stderr: the backend that runs, why each one before it
 * does not, and what keeps the histograms (its auto_note) */
static void say_auto(const struct hctx *c, const struct hsource_ops *ops, size_t at,
		     char why[][WHY_LEN])
{
	fprintf(stderr, "%s: backend %s (", c->prog, ops->name);
	for (size_t i = 0; i < at; i++)
		fprintf(stderr, "%s%s %s", i ? "; " : "", hsource_backends[i]->auto_name, why[i]);
	if (ops->auto_note)
		fprintf(stderr, "%s%s", at ? "; " : "", ops->auto_note);
	fprintf(stderr, ")\n");
}

/* One in-kernel backend (bpf, kernel hist triggers), unless this command
 * line or the environment refuses it (why[i] then says so): loaded or set
 * up, counting from here.  From the kernel's start on, an abort (a second
 * signal) undoes it too. */
static void try_in_kernel(struct hctx *c, const struct hsource_ops *ops, const struct hsource_cfg *cfg,
			  const struct hsource_need *need, char *why)
{
	struct hsource_why hw;

	if (hsource_refusal(ops, need, why, WHY_LEN))
		return;
	if (ops->emergency_restore)
		cmdio_on_abort_call(ops->emergency_restore);
	if (hsource_open(&c->run.src, ops, cfg, &hw) < 0)
		snprintf(why, WHY_LEN, "refused: %s", hw.reason);
	else
		c->run.ran = ops;
	if (hw.note[0])	/* bpf: runs without the timer kinds; kernel: an undo failed */
		fprintf(stderr, "%s: %s\n", c->prog, hw.note);
}

/*
 * --backend NAME or auto: auto tries the backends in hsource_backends'
 * order and says on stderr which one runs and why those before it do not;
 * an explicit in-kernel backend that cannot run is an error.  0 (c->run.src
 * set) or -1 (said).
 */
static int open_backend(struct hctx *c, const struct hsource_cfg *cfg, struct livesetup *ls)
{
	char why[HIST_MAX_BACKENDS][WHY_LEN];
	struct hsource_need need;

	hist_need(c, &need);
	for (size_t i = 0; hsource_backends[i] && i < HIST_MAX_BACKENDS && !c->run.src; i++) {
		const struct hsource_ops *ops = hsource_backends[i];
		snprintf(why[i], WHY_LEN, "not tried");
		if (c->lo.backend && c->lo.backend != ops)
			continue;
		if (ops->events_in_userspace) {
			if (!c->lo.backend)
				say_auto(c, ops, i, why);
			return open_userspace(c, ops, cfg, ls);
		}
		try_in_kernel(c, ops, cfg, &need, why[i]);
		if (!c->run.src && c->lo.backend) {
			fprintf(stderr, "%s: --backend %s %s\n", c->prog, ops->name, why[i]);
			return -1;
		}
		if (c->run.src && !c->lo.backend)
			say_auto(c, ops, i, why);
	}
	return 0;
}

/* The live loop's callbacks (src/tool.h): poll, read, checkpoint, the top view. */
struct live_loop {
	struct hctx *c;
	uint64_t start_ns;
	bool tty;
	struct progress prog;		/* record: the status line on stderr */
};

/* The source's descriptors; none (bpf, kernel: the kernel keeps the
 * histograms): a pause. */
static int live_wait(void *arg, int timeout_ms)
{
	struct live_loop *lv = arg;
	struct pollfd *fds;
	size_t n = hsource_pollfds(lv->c->run.src, &fds);

	if (poll(fds, n, timeout_ms) < 0 && errno != EINTR && n) {
		int err = -errno;
		fprintf(stderr, "%s: poll: %s\n", lv->c->prog, strerror(-err));
		return err;
	}
	return 0;
}

/* A command with a publish hook (the monitor): the backend's counts read,
 * then handed to it. */
static void publish_refresh(void *arg, uint64_t now_ns)
{
	struct hctx *c = ((struct live_loop *)arg)->c;
	struct hsource_why hw;

	if (hsource_sync(c->run.src, &hw) < 0) {
		say_why(c, &hw);
		c->sync_failed = true;
		cmdio_stop();
		return;
	}
	take_source(c);
	c->hooks->publish(c, now_ns);
}

static int live_process(void *arg, uint64_t until_ns)
{
	struct live_loop *lv = arg;
	struct hsource_why hw;
	int err = hsource_drain(lv->c->run.src, until_ns, &hw);

	if (err < 0)
		say_why(lv->c, &hw);
	const struct hist_live_hooks *h = lv->c->hooks;
	if (!err && h && h->process)
		h->process(lv->c, until_ns);
	/* the monitor's SIGHUP: from zero, published at once */
	if (!err && h && h->reset && cmdio_take_request() && h->reset(lv->c) == 0 && h->publish)
		publish_refresh(lv, tool_now_ns());
	return err;
}

/* -o survives a kill: the file is valid up to the last checkpoint */
static void live_checkpoint(void *arg)
{
	struct hctx *c = ((struct live_loop *)arg)->c;
	if (!c->run.live_err && pdwrite_checkpoint(c->run.pw, false) < 0)
		c->run.live_err = true;
}

/* -T: the run stops as soon as a sample exceeds it */
static bool live_done(void *arg)
{
	return hist_threshold_check(((struct live_loop *)arg)->c);
}

static void live_refresh(void *arg, uint64_t now_ns)
{
	struct live_loop *lv = arg;
	struct hctx *c = lv->c;
	struct hsource_why hw;
	bool unsup[HSET_NR_KINDS];
	char seen[160];

	for (int t = 0; t < HSET_NR_KINDS; t++)
		unsup[t] = hist_kind_unsupported(c, t);
	if (hsource_sync(c->run.src, &hw) < 0) {
		say_why(c, &hw);
		cmdio_stop();
	}
	take_source(c);
	if (lv->tty)
		fputs("\033[H\033[2J", stdout);
	hsource_describe(c->run.src, seen, sizeof(seen));
	if (!c->o.full) {
		/* a terminal: cut to its size; else a snapshot per refresh, whole */
		struct winsize ws = { 0 };
		unsigned rows = 0, cols = 0;
		if (lv->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
			rows = ws.ws_row - 1;	/* the cursor's line stays free: no scroll */
			cols = ws.ws_col;
		}
		char head[256];
		snprintf(head, sizeof(head), "latscope hist top: %.1f s, %s",
			 (double)(now_ns - lv->start_ns) / 1e9, seen);
		hist_top_compact(c, stdout, unsup, head, rows, cols);
		if (!lv->tty)
			putchar('\n');
	} else {
		printf("latscope hist top: %.1f s, %s\n\n", (double)(now_ns - lv->start_ns) / 1e9, seen);
		hist_term_view(c, stdout, unsup);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		cmdio_stop();	/* reported by cmdio_finish() */
}

/* record: the status line (the in-kernel backends read first: their
 * counts are in the kernel) */
static void record_progress(void *arg, uint64_t now_ns)
{
	struct live_loop *lv = arg;
	struct hsource_why hw;
	struct hsource_stats st;

	if (!progress_on(&lv->prog))
		return;
	if (!lv->c->run.ran->events_in_userspace && hsource_sync(lv->c->run.src, &hw) < 0) {
		progress_clear(&lv->prog);
		say_why(lv->c, &hw);
		cmdio_stop();
		return;
	}
	hsource_stats(lv->c->run.src, &st);
	progress_update(&lv->prog, now_ns, st.seen, st.lost);
}

/* The end of the window: the source's last counts into c, and nothing of
 * the backend left in the kernel (bpf, kernel).  0 or -1 (said). */
static int live_finish(struct hctx *c)
{
	struct hsource_why hw;
	int err = hsource_finish(c->run.src, &hw);

	say_why(c, &hw);
	if (hsource_ops_of(c->run.src)->emergency_restore)
		cmdio_on_abort_forget();	/* undone */
	if (err < 0)
		return -1;
	take_source(c);
	return 0;
}

/* The tracepoints of this command line, into ev (room for all): *n of them. */
static void live_event_names(const struct hctx *c, const char **ev, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < sizeof(live_events) / sizeof(live_events[0]); i++)
		ev[(*n)++] = live_events[i];
	if (c->lo.irqsoff_live)
		for (size_t i = 0; i < sizeof(live_irqsoff) / sizeof(live_irqsoff[0]); i++)
			ev[(*n)++] = live_irqsoff[i];
	if (c->fw.have_auto)
		for (size_t i = 0; i < sizeof(live_auto) / sizeof(live_auto[0]); i++)
			ev[(*n)++] = live_auto[i];
}

#define LIVE_MAX_EVENTS (sizeof(live_events) / sizeof(live_events[0]) + \
			 sizeof(live_irqsoff) / sizeof(live_irqsoff[0]) + \
			 sizeof(live_auto) / sizeof(live_auto[0]))

/*
 * The source, counting: the CPUs resolved, the backend chosen and opened
 * (-a's analyser on its tap), -o's file, then the window opened.  0 or -1
 * (said); what it opened is c's, closed by the caller.
 */
static int open_source(struct hctx *c, struct livesetup *ls)
{
	const char *ev[LIVE_MAX_EVENTS];
	size_t n;
	struct hsource_why hw;

	live_event_names(c, ev, &n);
	if (tool_cpus(&c->lo.cpus, c->lo.cpus_given, NULL, c->prog))
		return -1;
	uint32_t maxcpu = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(&c->lo.cpus, cpu))
			maxcpu = cpu;
	struct hsource_cfg scfg = {
		.nr_cpus = maxcpu + 1, .cpus = &c->lo.cpus, .lcfg = c->o.lcfg, .events = ev, .nr_events = n,
		.ring_bytes = (size_t)c->lo.ring_bytes, .track_tasks = c->o.record_out != NULL,
		.tasks = c->run.tasks,
		.irqsoff = c->lo.irqsoff_live,
		.run_stats = tool_bpf_stats(),
	};
	if (hist_auto_setup(c, &scfg) < 0)
		return -1;
	if (open_backend(c, &scfg, ls) < 0 || tool_setup_interrupted(c->prog))
		return -1;
	hsource_kinds(c->run.src, c->in.has);
	c->run.set = hsource_set(c->run.src);
	take_source(c);
	if (c->lo.irqsoff_live && !c->in.has[TPEVENT_IRQ_DISABLE] && !c->in.has[TPEVENT_PREEMPT_DISABLE])
		fprintf(stderr, "%s: this kernel has no preemptirq tracepoints: irqsoff, preemptoff and "
				"preemptirqsoff are not measured\n", c->prog);
	if (c->o.record_out && open_record_file(c) < 0)
		return -1;
	/* The names of the tasks alive before the window opens, as perf record
	 * writes them at its start: a task of another load that is sampled and
	 * ends before start_workload's scan keeps its name.  (That scan names
	 * the timer threads, born after this one.) */
	if (c->run.pw && pdwrite_write_task_comms(c->run.pw, 0, NULL) < 0)
		fprintf(stderr, "%s: %s: the running tasks are not named\n", c->prog, c->o.record_out);
	if (tool_setup_interrupted(c->prog))
		return -1;
	if (hsource_start(c->run.src, &hw) < 0) {
		say_why(c, &hw);
		return -1;
	}
	c->in.traced_from_ns = tool_now_ns();	/* every CPU traced from here */
	return 0;
}

/* -t: the timer workload's threads (cyclictest-like), with -P's policy.
 * 0 or -1 (said). */
static int start_timer_workload(struct hctx *c)
{
	struct timerwl_cfg tc;

	memset(&tc, 0, sizeof(tc));
	tc.cpus = c->lo.cpus;
	tc.interval_ns = c->lo.interval_ns;
	if (c->lo.prio.policy == SCHED_OTHER) {
		tc.nice = c->lo.prio.prio;	/* -P o:NICE, o:0 included */
		tc.set_nice = c->lo.prio_given;
	} else if (c->lo.prio.policy == CLI_SCHED_DEADLINE) {
		tc.deadline = true;	/* -P d:RUNTIME:PERIOD */
		tc.dl_runtime_ns = c->lo.prio.dl_runtime_ns;
		tc.dl_period_ns = c->lo.prio.dl_period_ns;
	} else {
		tc.prio = c->lo.prio.prio;
	}
	tc.rr = c->lo.prio.policy == SCHED_RR;
	tc.hist = c->o.lcfg.hist;
	int err = timerwl_start(&c->run.twl, &tc);
	if (err < 0) {
		fprintf(stderr, "%s: cannot start the timer threads: %s\n", c->prog, strerror(-err));
		return -1;
	}
	if (tc.deadline && hist_deadline_refused(c) < 0)
		return -1;
	return 0;
}

/*
 * With the source counting: memory locked and /dev/cpu_dma_latency held
 * (with the timer workload), the workload started, the running tasks named
 * in -o's file, then the collector's priority.  0 or -1 (said).
 */
static int start_workload(struct hctx *c, struct livesetup *ls)
{
	struct livesetup_why why;
	struct livesetup_cfg lcfg = {
		.mlock = c->lo.timer,	/* like cyclictest -m: no page fault in the measured path */
		.dma_latency_us = c->lo.timer && c->lo.dma_latency_us >= 0 ? (int32_t)c->lo.dma_latency_us : -1,
		.collector_policy = SCHED_FIFO,
		.collector_prio = (int)c->lo.collector_prio,
	};
	int err;

	livesetup_apply(ls, &lcfg, LIVESETUP_MLOCK | LIVESETUP_DMA_LATENCY, &why);
	if ((err = livesetup_failed(&why, LIVESETUP_MLOCK)) < 0)
		fprintf(stderr, "%s: mlockall: %s%s%s (going on, page faults may show as latency)\n",
			c->prog, strerror(-err), why.mlock_hint[0] ? "; " : "", why.mlock_hint);
	if ((err = livesetup_failed(&why, LIVESETUP_DMA_LATENCY)) < 0)
		fprintf(stderr, "%s: cannot hold /dev/cpu_dma_latency at %" PRId64 " us: %s "
				"(going on; --dma-latency -1 does not try)\n",
			c->prog, c->lo.dma_latency_us, strerror(-err));
	if (c->lo.timer && start_timer_workload(c) < 0)
		return -1;
	/* The names of the tasks alive now, ours included (the timer threads
	 * may be born on an unmeasured CPU: no FORK record); the kernel names
	 * later ones (evsrc_opts.track_tasks).  Before any sample is written
	 * (the loop below writes them), so perf script shows names. */
	int named = c->run.pw ? pdwrite_write_task_comms(c->run.pw, 0, NULL) : 0;
	if (named < 0)
		fprintf(stderr, "%s: %s: the running tasks are not named: %s\n", c->prog,
			c->o.record_out, strerror(-named));
	/* after the workload threads exist, so they do not inherit it */
	if ((err = livesetup_apply(ls, &lcfg, LIVESETUP_PRIORITY, NULL)) < 0)
		fprintf(stderr, "%s: cannot make the collector SCHED_FIFO %d: %s%s (going on)\n",
			c->prog, (int)c->lo.collector_prio, strerror(-err),
			err == -EPERM ? "; real-time priorities need root or CAP_SYS_NICE" : "");
	return 0;
}

/*
 * The loop: reads until -d, -T, a signal or a reader gone, refreshing
 * top's screen, record's status line or the hooks' publish; the
 * workload halted inside the window.  0 or -1 (a hook's start failed).
 */
static int run_loop(struct hctx *c)
{
	uint64_t start = tool_now_ns();

	if (c->mode == H_RECORD && !c->o.json && !c->o.quiet) {
		/* the table's first line, now: a reader that only wants the start
		 * (| head -1) can leave, and the run sees it and stops */
		if (c->lo.duration_ns)
			printf("# latscope hist record: measuring for %.3f s (Ctrl-C stops early)\n",
			       (double)c->lo.duration_ns / 1e9);
		else
			printf("# latscope hist record: measuring until Ctrl-C\n");
		fflush(stdout);
	}
	struct live_loop lv = { .c = c, .start_ns = start, .tty = isatty(STDOUT_FILENO) };
	progress_init(&lv.prog, stderr,
		      c->mode != H_RECORD ? 0 : c->o.quiet && c->o.progress == PROGRESS_AUTO ? 0 : c->o.progress,
		      start, c->lo.duration_ns, "events");
	bool publishes = c->hooks && c->hooks->publish;
	struct tool_loop l = {
		.arg = &lv,
		.start_ns = start,
		.duration_ns = c->lo.duration_ns,
		.refresh_ns = c->lo.refresh_ns,
		.slack_ns = 2000000,	/* the rings are complete up to 2 ms ago */
		/* the monitor writes nothing to stdout (a journal that restarts
		 * must not stop it) */
		.watch_fd = c->mode == H_MONITOR ? -1 : STDOUT_FILENO,
		.wait = live_wait,
		.process = live_process,
		.checkpoint = c->run.pw ? live_checkpoint : NULL,
		.refresh = publishes ? publish_refresh
			 : c->mode == H_TOP && !c->o.quiet && !c->o.json ? live_refresh	/* --json: JSON alone */
			 : progress_on(&lv.prog) ? record_progress : NULL,
		.done = live_done,
	};
	if (progress_on(&lv.prog))
		l.refresh_ns = PROGRESS_PERIOD_NS;
	if (c->hooks && c->hooks->start && c->hooks->start(c, &l.wait_ms) < 0)
		return -1;
	if (publishes)
		publish_refresh(&lv, start);	/* the first snapshot now: no 503 until the first refresh */
	record_progress(&lv, start);	/* the line at once: 0 s */
	tool_run(&l);
	progress_clear(&lv.prog);	/* erased before anything else is said */
	/* the workload's cycles end inside the traced window: every cycle it
	 * counts was traced (under QEMU/TCG, reading the bpf maps took a second,
	 * hundreds of 4 ms cycles the programs no longer saw) */
	timerwl_halt(c->run.twl);
	c->in.traced_until_ns = tool_now_ns();	/* ... to here */
	return 0;
}

/* An --on-threshold trace without a hit is dropped; a kept one gets the
 * fired counts and is closed.  0 or -1 (said). */
static int close_trace(struct hctx *c)
{
	int err;

	if (c->run.pw && c->fw.trace_on_hit && !c->fw.hit) {	/* an --on-threshold trace, no hit */
		pdwrite_discard(c->run.pw);
		c->run.pw = NULL;
		if (!c->o.json && !c->o.quiet)
			fprintf(stderr, "%s: no threshold hit: no trace kept\n", c->prog);
	}
	if (!c->run.pw)
		return 0;
	/* what the kernel fired and never delivered, for hist report */
	if (!c->run.live_err && c->in.fired.counted && pdwrite_set_fired(c->run.pw, &c->in.fired) < 0)
		c->run.live_err = true;
	if (c->run.live_err) {
		pdwrite_discard(c->run.pw);
		err = -EIO;
	} else {
		err = pdwrite_close(c->run.pw);
	}
	c->run.pw = NULL;
	if (err < 0) {
		fprintf(stderr, "%s: error writing %s: %s\n", c->prog, c->o.record_out, strerror(-err));
		return -1;
	}
	c->fw.trace_kept = true;
	if (c->fw.trace_asked && !c->o.json)
		fprintf(stderr, "%s: wrote '%s'\n", c->prog, c->o.record_out);
	return 0;
}

/* After the window: the last -T check, the trace, the actions and the
 * report.  The exit status. */
static int end_of_run(struct hctx *c)
{
	hist_threshold_check(c);	/* the last events read */
	if (close_trace(c) < 0)
		return EXIT_ERR;
	hist_on_threshold(c);
	if (cmdio_broken_pipe())
		return EXIT_ERR;	/* the quiet end (cmdio_reader_left()): no report */
	if (c->mode == H_TOP && !c->o.quiet && !c->o.json && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	int ret = hist_emit(c);
	hist_print_auto(c, c->o.json ? stderr : stdout);
	fflush(stdout);
	hist_on_end(c);
	return ret;
}

/*
 * Restore the system: workload stopped, the source closed (events
 * disabled, BPF programs detached and unloaded, hist triggers removed if
 * setup failed or was interrupted), then what livesetup changed, newest
 * first: priority back, /dev/cpu_dma_latency released, memory unlocked,
 * spinners stopped.
 */
static void close_run(struct hctx *c, struct livesetup *ls)
{
	struct hsource_why hw;

	timerwl_stop(c->run.twl);
	c->run.twl = NULL;
	const struct hsource_ops *ops = c->run.src ? hsource_ops_of(c->run.src) : NULL;
	hsource_close(c->run.src, &hw);
	say_why(c, &hw);
	if (ops && ops->emergency_restore)
		cmdio_on_abort_forget();	/* undone */
	c->run.src = NULL;
	c->run.set = NULL;
	c->run.track = NULL;
	pdwrite_discard(c->run.pw);	/* still open: setup failed or was interrupted */
	c->run.pw = NULL;
	livesetup_restore(ls);
	latauto_free(c->fw.an);
	c->fw.an = NULL;
}

int hist_live(struct hctx *c)
{
	struct livesetup ls;	/* the settings changed for the run, given back by close_run */
	int ret = EXIT_ERR;

	/* From the first instruction: a Ctrl-C during setup unwinds through out: */
	cmdio_signals_install();
	livesetup_init(&ls, NULL);
	if (c->hooks && c->hooks->reset)
		cmdio_request_signal(SIGHUP);	/* latency_hist's `reset` */
	if (c->hooks && c->hooks->begin && c->hooks->begin(c) < 0)
		return EXIT_ERR;
	if (open_source(c, &ls) < 0 || start_workload(c, &ls) < 0 || tool_setup_interrupted(c->prog))
		goto out;
	if (run_loop(c) < 0 || live_finish(c) < 0)
		goto out;
	if (c->mode == H_MONITOR)
		ret = c->sync_failed ? EXIT_ERR : 0;
	else
		ret = end_of_run(c);
out:
	close_run(c, &ls);
	if (c->hooks && c->hooks->end)
		c->hooks->end(c);
	return ret;
}
