/* SPDX-License-Identifier: MIT */
/*
 * run.c - the runs of `latscope osnoise`: live (the userspace workload and
 * the tracepoints, optionally recorded to a perf.data file) and the replay
 * of such a file; the kernel osnoise tracer and a saved kernel trace are
 * kernel.c's.
 * First Ctrl-C: finish cleanly with the summary; a second one aborts
 * (src/cmdio.c).  A closed stdout stops the run too.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "cmdio.h"
#include "commands.h"
#include "live/evsrc.h"
#include "firedout.h"
#include "live/idlecheck.h"
#include "live/livesetup.h"
#include "engine/noise.h"
#include "live/osnbpf.h"
#include "osnoise.h"
#include "live/oswork.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "base/safeout.h"
#include "base/sysinfo.h"
#include "tool.h"

#define WREC_EVSEL_NAME OSWORK_EVSEL_NAME
#define SLACK_NS	(5 * 1000 * 1000ULL)

static const char *const attr_events[] = {
	"sched:sched_switch",
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry", "irq:softirq_exit",
	"?irq_vectors:*_entry", "?irq_vectors:*_exit",
	"?nmi:nmi_handler",
};

/* ---- engine sink ------------------------------------------------------------ */

static void sink_line(void *arg, const char *line)
{
	struct ctx *c = arg;
	if (c->mode == M_TRACE && c->out.events && !c->out.json)
		printf("%s\n", line);
}

static void sink_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p)
{
	struct ctx *c = arg;
	if (c->mode != M_TRACE || c->out.json)
		return;
	char pre[96];
	uint64_t rt = p->runtime_ns / 1000, nz = p->noise_ns / 1000;
	uint64_t av = noise_avail_e5(rt, nz);
	osneng_trace_prefix(c->run.e, pre, sizeof(pre), cpu, end_ns);
	printf("%s %" PRIu64 " %10" PRIu64 " %3" PRIu64 ".%05" PRIu64 " %7" PRIu64 " %6" PRIu64
	       " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
	       pre, rt, nz, av / 100000, av % 100000, p->max_single_ns / 1000, p->hw_count,
	       p->count[NOISE_NMI], p->count[NOISE_IRQ], p->count[NOISE_SOFTIRQ],
	       p->count[NOISE_THREAD]);
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && !c->res.write_err) {
		c->res.write_err = errno ? errno : EIO;
		osneng_halt(c->run.e);	/* a replay stops reading */
		cmdio_stop();
	}
}

/* trace: where the kernel tracer lost events, in its own words */
static void sink_lost(void *arg, uint32_t cpu, uint64_t n)
{
	struct ctx *c = arg;
	if (c->mode != M_TRACE || c->out.json)
		return;
	if (n)
		printf("CPU:%u [LOST %" PRIu64 " EVENTS]\n", cpu, n);
	else
		printf("CPU:%u [LOST EVENTS]\n", cpu);
}

/* trace: the run's window as the kernel's trace clock saw it */
static void sink_mark(void *arg, uint32_t cpu, uint64_t ts_ns, const char *text)
{
	struct ctx *c = arg;
	if (c->mode != M_TRACE || c->out.json)
		return;
	printf("# %s: %" PRIu64 ".%06" PRIu64 " (CPU %u)\n", text, ts_ns / 1000000000,
	       ts_ns / 1000 % 1000000, cpu);
}

/* ---- feeding ------------------------------------------------------------ */

/* The events read up to until_ns, each after the workload records before it,
 * then the rest of the records up to until_ns (lib/engine/osneng.c). */
static void process(struct ctx *c, uint64_t until_ns)
{
	if (c->run.s)
		evsrc_read(c->run.s, until_ns, osneng_event, c->run.e);
	osneng_advance(c->run.e, until_ns);
}

/* ---- the live loop's callbacks (src/tool.h) ------------------------------------- */

static int live_wait(void *arg, int timeout_ms)
{
	struct ctx *c = arg;
	evsrc_poll(c->run.s, timeout_ms);	/* a failed poll: the loop goes on, as a timeout */
	return 0;
}

static int live_process(void *arg, uint64_t until_ns)
{
	process(arg, until_ns);
	return 0;
}

/* the recording survives a kill (errors stick: reported at close) */
static void live_checkpoint(void *arg)
{
	pdwrite_checkpoint(((struct ctx *)arg)->run.pw, false);
}

static void live_refresh(void *arg, uint64_t now_ns)
{
	struct ctx *c = arg;

	progress_update(&c->run.status, now_ns, osnoise_gaps(c), osnoise_dropped(c));
	osnoise_refresh_top(c);
}

/* --on-threshold continue: the actions of each new hit, the trace valid
 * up to here for them */
static void check_hits(struct ctx *c)
{
	uint64_t hits = c->fw.on_thr.cont && c->run.e ? osneng_hits(c->run.e, NULL) : 0;
	if (hits <= c->fw.hits_seen)
		return;
	c->fw.hits_seen = hits;
	pdwrite_checkpoint(c->run.pw, true);
	osnoise_on_threshold(c);
}

static bool live_done(void *arg)
{
	check_hits(arg);
	return osnoise_stop_why(arg) != 0;
}

/* ---- recording ------------------------------------------------------------ */

static int open_recording(struct ctx *c)
{
	int err;
	/* Records from the rings are host order: write the file in host order. */
	struct safeout_refusal why;
	/* a trace kept only if the threshold is hit is not published before
	 * the end (no checkpoint): without a hit, the target stays as it was */
	struct pdwrite_opts o = { .big_endian = BYTES_HOST_BIG_ENDIAN, .force = c->opt.force,
				  .checkpoint = c->mode == M_RECORD || c->fw.trace_asked, .refusal = &why };
	const char *path = c->mode == M_RECORD ? c->opt.output : c->fw.trace_file;
	err = pdwrite_open(&c->run.pw, path, &o);
	if (err < 0) {
		char msg[PATH_MAX + 160];
		fprintf(stderr, "%s: cannot create '%s': %s\n", c->prog, path,
			safeout_explain(msg, sizeof(msg), err, &why));
		return err;
	}
	if (c->run.s) {
		err = evsrc_describe(c->run.s, c->run.pw, BYTES_HOST_BIG_ENDIAN);
		if (err < 0) {
			fprintf(stderr, "%s: cannot describe the tracepoints: %s\n", c->prog,
				strerror(-err));
			return err;
		}
		/* the ring records as they come (errors stick: reported at close) */
		evsrc_record_into(c->run.s, c->run.pw, NULL);
	}
	/* the workload event and the run's parameters */
	err = osneng_record(c->run.e, c->run.pw);
	if (err < 0)
		return err;
	/* HOSTNAME: pdwrite_begin_data() sets uname's node name */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdwrite_set_nrcpus(c->run.pw, (uint32_t)ncpu, (uint32_t)ncpu);
	err = pdwrite_begin_data(c->run.pw);
	if (err < 0) {
		fprintf(stderr, "%s: writing '%s': %s\n", c->prog, path, strerror(-err));
		return err;
	}
	/* the names of the tasks alive now (the kernel names later ones:
	 * evsrc_opts.track_tasks), so perf script shows names, not :PID */
	if (pdwrite_write_task_comms(c->run.pw, 0, NULL) < 0)
		fprintf(stderr, "%s: '%s': the running tasks are not named\n", c->prog, path);
	return 0;
}

/* ---- run modes -------------------------------------------------------------- */

void osnoise_begin_run(struct ctx *c)
{
	c->run.cpus = c->opt.cpus;
	c->run.threshold_us = c->opt.threshold_us;
	c->run.period_us = c->opt.period_us;
	c->run.runtime_us = c->opt.runtime_us;
	c->run.no_workload = c->opt.no_workload;
}

/* The engine for c->run.cpus with the measurement of c->run and the other
 * options of c (the caller frees it with free_state, also after a failure),
 * and the steal counters. */
int osnoise_setup_state(struct ctx *c)
{
	struct osneng_opts o = {
		.cpus = c->run.cpus,
		.threshold_us = c->run.threshold_us,
		.period_us = c->run.period_us,
		.runtime_us = c->run.runtime_us,
		.stop_us = c->opt.stop_us,
		.stop_total_us = c->opt.stop_total_us,
		.warmup_ns = c->opt.warmup_ns,
		.no_workload = c->run.no_workload,
		.softirq_in_threads = c->run.softirq_in_threads,
		.gap_counters = c->run.bpf != NULL,
		.hist = c->mode == M_HIST || c->out.json || c->out.json_file,
		.auto_analysis = c->fw.have_auto,
		.stop_continue = c->fw.on_thr.cont,
		.bucket_us = c->out.bucket_us,
		.entries = c->out.entries,
	};
	struct osneng_sink sk = { .arg = c, .line = sink_line, .period = sink_period,
				  .lost = sink_lost, .mark = sink_mark };
	int err = osneng_new(&c->run.e, &o, &sk);
	if (err < 0)
		return err;
	c->run.list = osneng_list(c->run.e);
	c->run.nr = osneng_nr(c->run.e);
	c->run.n = osneng_noise(c->run.e);
	c->run.steal0 = calloc(c->run.nr, sizeof(uint64_t));
	c->run.steal1 = calloc(c->run.nr, sizeof(uint64_t));
	return c->run.steal0 && c->run.steal1 ? 0 : -ENOMEM;
}

void osnoise_free_state(struct ctx *c)
{
	firedtab_free(&c->res.fired);
	free(c->run.steal0);
	free(c->run.steal1);
	osneng_free(c->run.e);
	c->run.e = NULL;
}

/* The collector on the house-keeping CPUs (-H), by default the online ones
 * not measured (given back by livesetup_restore(ls)); -H that cannot be had
 * is an error (said), a default that cannot be had is not.  Returns 0 or -1. */
int osnoise_housekeep(const struct ctx *c, const struct parse_cpuset *online, struct livesetup *ls)
{
	struct parse_cpuset hk;
	tool_housekeeping(&hk, &c->opt.hk, c->opt.have_hk, online, &c->run.cpus);
	struct livesetup_cfg cfg = { .housekeeping_cpus = &hk, .dma_latency_us = -1 };
	int err = livesetup_apply(ls, &cfg, LIVESETUP_AFFINITY, NULL);
	if (err < 0 && c->opt.have_hk) {
		fprintf(stderr, "latscope osnoise: cannot run on house-keeping CPUs: %s\n", strerror(-err));
		return -1;
	}
	return 0;
}

/* The end of a run: steal read, the report (unless the reader left), the
 * verdict.  Returns the exit status so far. */
int osnoise_end_report(struct ctx *c)
{
	sysinfo_steal(c->run.steal1, c->run.list, c->run.nr);
	if (!cmdio_broken_pipe())	/* else the quiet end (cmdio_reader_left()) */
		osnoise_final_report(c);
	uint64_t hits = c->run.e && c->fw.on_thr.cont ? osneng_hits(c->run.e, NULL) : 0;
	if (hits && !cmdio_broken_pipe())
		fprintf(stderr, "%s: %" PRIu64 " single gaps above %" PRIu64 " us (--on-threshold continue): "
				"exit 1\n", c->prog, hits, c->opt.stop_us);
	return osnoise_finish(c, tool_status(false, osnoise_stop_why(c) != 0 || hits));
}

_Static_assert(OSNBPF_NMI == NOISE_NMI && OSNBPF_IRQ == NOISE_IRQ && OSNBPF_SOFTIRQ == NOISE_SOFTIRQ &&
	       OSNBPF_THREAD == NOISE_THREAD && OSNBPF_NR_CLASSES == NOISE_NR_CLASSES,
	       "the programs number the classes as the accounting");

bool osnoise_try_bpf(struct ctx *c, char *why, size_t len)
{
	const char *no_bpf = getenv("LATSCOPE_NO_BPF"), *conflict = osnoise_bpf_conflict(c);

	if (no_bpf && *no_bpf && strcmp(no_bpf, "0")) {
		snprintf(why, len, "refused: LATSCOPE_NO_BPF=%s", no_bpf);
		return false;
	}
	if (conflict) {
		snprintf(why, len, "not usable: it %s", conflict);
		return false;
	}
	struct osnbpf_cfg bc = { .softirq_in_threads = sysinfo_preempt_rt(),
				 .run_stats = tool_bpf_stats() };
	char msg[400];
	if (osnbpf_open(&c->run.bpf, &bc, msg, sizeof(msg)) < 0) {
		snprintf(why, len, "refused: %s", msg);
		return false;
	}
	return true;
}

/* a contributor the programs totalled, into the accounting of its CPU */
static void bpf_contrib(void *arg, const struct osnbpf_contrib *b)
{
	struct ctx *c = arg;
	struct noise_contrib k = {
		.cls = (enum noise_class)b->cls, .id = b->id, .count = b->count, .total_ns = b->total_ns,
		.max_ns = b->max_ns, .unseen = b->unseen,
	};
	if (osneng_index(c->run.e, b->cpu) < 0)
		return;		/* not measured (the programs count measured CPUs only) */
	snprintf(k.name, sizeof(k.name), "%s",
		 b->cls == OSNBPF_SOFTIRQ ? noise_softirq_name((uint32_t)b->id) : b->name);
	noise_add_contrib(c->run.n, b->cpu, &k);
}

/* The end of the bpf backend's window: programs detached, their contributors
 * and counts read. */
static void bpf_collect(struct ctx *c)
{
	osnbpf_stop(c->run.bpf);
	int err = osnbpf_read(c->run.bpf, bpf_contrib, c, &c->res.bst);
	if (err < 0)
		fprintf(stderr, "%s: cannot read the bpf backend's contributors: %s\n", c->prog,
			strerror(-err));
	else
		c->res.bst_read = true;
}

/* Attribution: counters kept by BPF programs, or tracepoints through
 * perf_event_open (c->run.s; without them c->run.attr_why says why).  0, or -1
 * after a line on stderr (--no-workload needs the tracepoints). */
static int open_attribution(struct ctx *c)
{
	int err;

	c->run.ran = c->run.bpf ? "bpf" : "perf";
	if (c->run.bpf) {
		c->run.attribution = true;
	} else if (c->opt.no_attr) {
		snprintf(c->run.attr_why, sizeof(c->run.attr_why), "--no-attribution");
	} else {
		struct evsrc_opts eo = { .ring_bytes = c->opt.ring_bytes,
					 .track_tasks = c->mode == M_RECORD || c->fw.trace };
		err = evsrc_open(&c->run.s, attr_events, sizeof(attr_events) / sizeof(attr_events[0]),
			       &c->run.cpus, &eo);
		if (err < 0) {
			snprintf(c->run.attr_why, sizeof(c->run.attr_why), "%s", evsrc_strerror(c->run.s));
			evsrc_close(c->run.s);
			c->run.s = NULL;
			if (c->run.no_workload) {
				fprintf(stderr, "latscope osnoise: --no-workload needs the tracepoints: %s\n",
					c->run.attr_why);
				return -1;
			}
		} else {
			c->run.attribution = true;
		}
	}
	return 0;
}

/* Without the busy loop the measured CPUs go idle, and some kernels (KVM
 * guests with haltpoll) drop perf samples of interrupts taken on an idle
 * CPU: say so, the IRQ/softirq time of idle CPUs is then too low. */
static void warn_idle_drops(const struct ctx *c)
{
	if (c->run.no_workload && c->run.attribution) {
		struct idlecheck_cpu_result idr[64];
		size_t nidr = 0;
		if (idlecheck_check(&c->run.cpus, NULL, idr, sizeof(idr) / sizeof(idr[0]), &nidr) == 0 &&
		    idlecheck_any_drops(idr, nidr)) {
			char list[256] = "";
			for (size_t i = 0; i < nidr; i++)
				if (idr[i].verdict == IDLECHECK_DROPS)
					snprintf(list + strlen(list), sizeof(list) - strlen(list), " CPU%u %" PRIu64 "/%" PRIu64,
						 idr[i].cpu, idr[i].samples + idr[i].lost, idr[i].counted);
			fprintf(stderr, "latscope osnoise: this kernel drops perf samples of interrupts taken on an "
					"idle CPU (self-test, timer interrupts delivered/fired:%s): with --no-workload the "
					"IRQ and softirq time of idle CPUs is undercounted\n", list);
		}
	}
}

/* The busy loop on every measured CPU, its threads made known to the
 * engine.  0, or -1 after a line on stderr. */
static int start_workload(struct ctx *c)
{
	int err;
	struct oswork_opts wo = {
		.cpus = c->run.cpus,
		.period_ns = c->run.period_us * 1000,
		.runtime_ns = c->run.runtime_us * 1000,
		.threshold_ns = c->run.threshold_us * 1000,
		.floor_ns = c->opt.floor_ns,
		.policy = c->opt.prio.policy,
		.prio = c->opt.prio.prio,
		.dl_runtime_ns = c->opt.prio.dl_runtime_ns,
		.dl_period_ns = c->opt.prio.dl_period_ns,
		.set_nice = c->opt.have_prio,	/* -P o:0 sets nice 0 */
		.use_tsc = c->opt.tsc,
	};
	if (c->run.bpf)
		wo.slots = osnbpf_slots(c->run.bpf, &wo.nr_slots);
	uint64_t t_start = oswork_now_ns();	/* before the threads exist */
	err = oswork_start(&c->run.w, &wo);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: cannot start the workload: %s%s\n",
			strerror(-err),
			c->opt.prio.policy == CLI_SCHED_DEADLINE && (err == -EPERM || err == -EBUSY) ?
			" (SCHED_DEADLINE, -P d:: the kernel admits a deadline thread pinned to one "
			"CPU only when that CPU is an exclusive cpuset partition of its own (cgroup v2 "
			"cpuset.cpus.partition), else it needs root or the bandwidth is used up)" :
			err == -EPERM ? " (real-time priority needs root or CAP_SYS_NICE)" :
			err == -ENOTSUP ? " (no constant TSC: drop --tsc)" : "");
		oswork_free(c->run.w);
		c->run.w = NULL;
		return -1;
	}
	if (tool_setup_interrupted("latscope osnoise")) {
		oswork_stop(c->run.w);
		oswork_free(c->run.w);
		c->run.w = NULL;
		return -1;
	}
	osneng_use_workload(c->run.e, c->run.w);
	for (size_t i = 0; i < c->run.nr; i++)
		osneng_set_tid(c->run.e, c->run.list[i], oswork_tid(c->run.w, i), oswork_floor_ns(c->run.w, i),
			       t_start);
	return 0;
}

/* Lock memory once everything is allocated (threads, rings); hold
 * /dev/cpu_dma_latency (--dma-latency).  Failures are said, not fatal. */
static void lock_memory(const struct ctx *c, struct livesetup *ls)
{
	struct livesetup_cfg lc = { .mlock = true, .dma_latency_us = (int32_t)c->opt.dma_latency_us };
	struct livesetup_why why;
	livesetup_apply(ls, &lc, LIVESETUP_MLOCK | (c->opt.dma_latency_us >= 0 ? LIVESETUP_DMA_LATENCY : 0),
			&why);
	int lerr = livesetup_failed(&why, LIVESETUP_MLOCK);
	if (lerr < 0 && !c->out.quiet && !c->out.json)
		fprintf(stderr, "latscope osnoise: mlockall failed (%s%s%s); page faults may add "
			"noise\n", strerror(-lerr), why.mlock_hint[0] ? ": " : "", why.mlock_hint);
	if ((lerr = livesetup_failed(&why, LIVESETUP_DMA_LATENCY)) < 0)
		fprintf(stderr, "%s: cannot hold /dev/cpu_dma_latency at %" PRId64 " us: %s (going on)\n",
			c->prog, c->opt.dma_latency_us, strerror(-lerr));
}

/* The end of the run: stop the workload (its last period ends here),
 * then take everything, with what fired and never came. */
static void take_the_rest(struct ctx *c)
{
	oswork_stop(c->run.w);
	if (c->run.s)
		evsrc_disable(c->run.s);
	osneng_set_end(c->run.e, oswork_now_ns());
	process(c, UINT64_MAX);
	if (c->run.s) {	/* disabled and read to the end: what fired and never came */
		if (evsrc_count(c->run.s) < 0 && evsrc_count_note(c->run.s)[0] == 0)
			fprintf(stderr, "%s: %s\n", c->prog, evsrc_strerror(c->run.s));
		if (evsrc_fired_table(c->run.s, &c->res.fired) < 0)
			c->res.fired.counted = false;
		if (c->run.pw && c->res.fired.counted && pdwrite_set_fired(c->run.pw, &c->res.fired) < 0)
			fprintf(stderr, "%s: out of memory: the recording does not carry the fired counts\n",
				c->prog);
	}
	osneng_close(c->run.e);
	if (c->run.bpf)
		bpf_collect(c);
}

/* The recording, or the trace: closed before the actions and the report
 * (a trace asked for by an --on-threshold action only: kept on a hit).
 * 0, or EXIT_ERR after a line on stderr. */
static int close_file(struct ctx *c)
{
	if (c->run.pw && c->mode != M_RECORD && !c->fw.trace_asked && !osnoise_stop_why(c) &&
	    !osneng_hits(c->run.e, NULL)) {
		pdwrite_discard(c->run.pw);
		c->run.pw = NULL;
		if (!c->out.json && !c->out.quiet)
			fprintf(stderr, "%s: no threshold hit: no trace kept\n", c->prog);
	}
	if (c->run.pw) {
		const char *path = c->mode == M_RECORD ? c->opt.output : c->fw.trace_file;
		int err = pdwrite_close(c->run.pw);
		c->run.pw = NULL;
		if (err < 0) {
			fprintf(stderr, "%s: writing '%s': %s\n", c->prog, path, strerror(-err));
			return EXIT_ERR;
		} else {
			c->fw.trace_kept = c->mode != M_RECORD;
			if (!c->out.json)
				fprintf(stderr, "%s: wrote '%s'\n", c->prog, path);
		}
	}
	return 0;
}

int osnoise_run_live(struct ctx *c)
{
	int err;
	struct parse_cpuset online;
	struct livesetup ls;	/* affinity and memory lock, given back at the end */

	livesetup_init(&ls, NULL);
	cmdio_signals_install();	/* first: a Ctrl-C during setup unwinds below */
	osnoise_begin_run(c);
	if (tool_cpus(&c->run.cpus, c->opt.have_cpus, &online, "latscope osnoise"))
		return EXIT_ERR;
	/* on PREEMPT_RT softirqs are thread time, as the kernel tracer counts them */
	c->run.softirq_in_threads = sysinfo_preempt_rt();
	err = osnoise_setup_state(c);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		osnoise_free_state(c);
		return EXIT_ERR;
	}

	if (osnoise_housekeep(c, &online, &ls) < 0) {
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	if (open_attribution(c) < 0)
		goto out_err;
	warn_idle_drops(c);
	if (tool_setup_interrupted("latscope osnoise"))
		goto out_err;
	if ((c->mode == M_RECORD || c->fw.trace) && open_recording(c) < 0)
		goto out_err;
	if (tool_setup_interrupted("latscope osnoise"))
		goto out_err;

	sysinfo_steal(c->run.steal0, c->run.list, c->run.nr);
	if (c->run.s && (err = evsrc_enable(c->run.s)) < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", evsrc_strerror(c->run.s));
		goto out_err;
	}
	osneng_start(c->run.e, oswork_now_ns());
	if (c->run.bpf)	/* the contributors from the warm-up's end, as the gaps */
		osnbpf_set_gate(c->run.bpf, osneng_times(c->run.e)->warm_end_ns);
	if (!c->run.no_workload && start_workload(c) < 0)
		goto out_err;
	lock_memory(c, &ls);

	if (c->mode == M_TRACE && !c->out.json)
		osnoise_print_trace_header(stdout);

	uint64_t t0 = osneng_times(c->run.e)->warm_end_ns;
	progress_init(&c->run.status, stderr, c->mode == M_HIST ? c->out.progress : 0, t0, c->opt.duration_ns, "gaps");
	struct tool_loop l = {
		.arg = c,
		.start_ns = t0,	/* -d counts from the warm-up's end */
		.duration_ns = c->opt.duration_ns,
		.refresh_ns = c->run.period_us * 1000,
		.slack_ns = SLACK_NS,
		.watch_fd = STDOUT_FILENO,
		.wait = c->run.s ? live_wait : NULL,
		.process = live_process,
		.checkpoint = c->run.pw ? live_checkpoint : NULL,
		.refresh = live_refresh,
		.done = live_done,
	};
	if (progress_on(&c->run.status) && l.refresh_ns > PROGRESS_PERIOD_NS)
		l.refresh_ns = PROGRESS_PERIOD_NS;	/* hist draws nothing else */
	tool_run(&l);
	progress_clear(&c->run.status);	/* erased before the report */
	take_the_rest(c);
	check_hits(c);	/* continue: the hits of the last events */
	int rc_file = close_file(c);
	if (!c->fw.on_thr.cont && osnoise_stop_why(c))
		osnoise_on_threshold(c);
	int rc = tool_status_worst(tool_end_status(osnoise_end_report(c)), rc_file);
	osnoise_on_end(c);
	evsrc_close(c->run.s);
	c->run.s = NULL;
	osnbpf_close(c->run.bpf);
	c->run.bpf = NULL;
	oswork_free(c->run.w);
	osnoise_free_state(c);
	livesetup_restore(&ls);	/* memory unlocked, affinity back */
	return rc;
out_err:
	evsrc_close(c->run.s);
	c->run.s = NULL;
	osnbpf_close(c->run.bpf);
	c->run.bpf = NULL;
	pdwrite_discard(c->run.pw);
	c->run.pw = NULL;
	osnoise_free_state(c);
	livesetup_restore(&ls);
	return EXIT_ERR;
}

/* ---- replay ----------------------------------------------------------------- */

static int not_osnoise(struct ctx *c)
{
	fprintf(stderr, "latscope osnoise: '%s' has no osnoise data (no %s event, no "
			"latscope-osnoise parameters): replay reads files written by "
			"`latscope osnoise record`, or with --no-workload any recording "
			"with sched:sched_switch\n", c->opt.input, WREC_EVSEL_NAME);
	return EXIT_ERR;
}

/*
 * The replay's set-up (an osneng_setup_fn), at the first sample: a pipe, or a
 * recording of an older latscope whose writer was killed (its header a
 * checkpoint without features), carries its features as records at the
 * start of the data, read by then.
 */
static int replay_setup(void *arg, struct pdread *r, bool have_formats, struct osneng **ep)
{
	struct ctx *c = arg;
	const struct pdread_info *info = pdread_info(r);
	c->run.setup_failed = true;		/* each failure below says why */
	if (!osneng_is_recording(r) && !(c->opt.no_workload && osneng_has_switches(r))) {
		not_osnoise(c);
		return -EINVAL;
	}
	/* the recording's parameters into the run (the options stay as given):
	 * its CPUs unless -c, its threshold unless a larger -T */
	struct osneng_opts o = {
		.cpus = c->run.cpus, .threshold_us = c->run.threshold_us, .period_us = c->run.period_us,
		.runtime_us = c->run.runtime_us, .no_workload = c->run.no_workload,
	};
	bool have_cpus = c->opt.have_cpus;
	if (osneng_params_take(r, &o, c->opt.have_T, have_cpus)) {
		c->run.cpus = o.cpus;
		have_cpus = true;
	}
	c->run.threshold_us = o.threshold_us;
	c->run.period_us = o.period_us;
	c->run.runtime_us = o.runtime_us;
	c->run.no_workload = o.no_workload;
	c->run.softirq_in_threads = o.softirq_in_threads;
	if (!have_cpus) {
		uint32_t n = info->nr_cpus_online ? info->nr_cpus_online : 1;
		memset(&c->run.cpus, 0, sizeof(c->run.cpus));
		for (uint32_t i = 0; i < n && i < PARSE_MAX_CPUS; i++)
			parse_cpuset_add(&c->run.cpus, i);
	}
	c->run.replaying = true;
	c->run.ran = "recording";
	int err = osnoise_setup_state(c);
	*ep = c->run.e;
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		return err;
	}
	c->run.attribution = have_formats;
	if (!have_formats)
		snprintf(c->run.attr_why, sizeof(c->run.attr_why), "'%s' has no tracepoint formats", c->opt.input);
	if (c->mode == M_TRACE && !c->out.json)
		osnoise_print_trace_header(stdout);
	c->run.setup_failed = false;
	return 0;
}

int osnoise_run_replay(struct ctx *c)
{
	struct pdread *r = NULL;
	cmdio_sigpipe_as_error();
	osnoise_begin_run(c);
	if (cmdio_pdr_open(&r, c->opt.input, NULL, "latscope osnoise") < 0)
		return EXIT_ERR;
	const struct pdread_info *info = pdread_info(r);
	if (!info->pipe && !info->unterminated && !osneng_is_recording(r) &&
	    !(c->opt.no_workload && osneng_has_switches(r))) {
		pdread_close(r);
		return not_osnoise(c);
	}
	struct osneng *e;
	int err = osneng_replay(r, replay_setup, c, &e);
	c->run.e = e;	/* the engine set-up made, if any */
	if (err < 0) {
		if (!c->run.setup_failed)
			fprintf(stderr, "latscope osnoise: %s\n", pdread_strerror(r));
		pdread_close(r);
		osnoise_free_state(c);
		return EXIT_ERR;
	}
	c->res.cnt = *osneng_counts(e);
	if (info->fired.counted && firedout_copy(&c->res.fired, &info->fired) == 0)
		firedout_names(&c->res.fired, r);
	osnoise_final_report(c);
	int rc = osnoise_finish(c, tool_status(false, osnoise_stop_why(c) != 0));
	cmdio_pdr_close(r, "latscope osnoise", c->opt.input);
	osnoise_free_state(c);
	return rc;
}
