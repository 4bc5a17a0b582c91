/* SPDX-License-Identifier: MIT */
/*
 * run.c - the runs of `latscope timerlat`: the kernel's timerlat tracer
 * started in latscope's own tracefs instance (lib/live/osnkernel.h), its
 * text read as it comes into the engine (lib/engine/tlat.h) between the
 * window's marks, the tracer stopped and every setting restored, then the
 * report (doc.c, text.c); and a saved trace (--parse-kernel) shown the same
 * way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "cmdio.h"
#include "commands.h"
#include "jsonout.h"
#include "base/workthread.h"
#include "live/cgmove.h"
#include "live/evsrc.h"
#include "live/idlestate.h"
#include "live/livesetup.h"
#include "live/osnkernel.h"
#include "live/tlatbpf.h"
#include "engine/tlatauto.h"
#include "timerlat.h"
#include "tool.h"

/* ---- the engine and the records ---------------------------------------------- */

int timerlat_setup(struct tl *c, uint32_t nr_cpus)
{
	if (timerlat_auto_setup(c, nr_cpus) < 0)
		return -1;
	struct tlat_cfg cfg = {
		.hist = { .lo_ns = 0, .bucket_ns = c->out.bucket_us * 1000,
			  .nr_buckets = (uint32_t)c->out.entries },
		.stop_ns = { c->opt.irq_us * 1000, c->opt.thread_us * 1000, c->opt.thread_us * 1000 },
	};
	int err = tlat_init(&c->run.t, nr_cpus, &cfg);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", c->prog, strerror(-err));
		timerlat_teardown(c);
		return -1;
	}
	return 0;
}

void timerlat_teardown(struct tl *c)
{
	tlat_fini(&c->run.t);
	tlatauto_free(c->run.aa);
	c->run.aa = NULL;
}

/* A frame of the stack being printed, or the start of a new one. */
static void stack_rec(struct tl_stack *st, const struct osnkernel_rec *r)
{
	if (r->kind == OSNKERNEL_STACK) {
		*st = (struct tl_stack){ .set = true, .open = true, .cpu = r->cpu, .ts_ns = r->ts_ns };
		return;
	}
	/* an address no symbol names ends it: 6.1 prints its saved array's
	 * stale slots after the last frame as raw words */
	if (st->open && !strncmp(r->sym, "0x", 2))
		st->open = false;
	if (st->open && st->nr < TL_STACK_FRAMES)
		snprintf(st->frames[st->nr++], sizeof(st->frames[0]), "%s", r->sym);
}

/* The kernel stopped (its note, or its ring turned off) and the window
 * holds no sample at or above a threshold: the stop is the one recorded
 * just before the window opened, when there is one. */
static void take_pre_stop(struct tl_run *run)
{
	if (run->t.stop.hit || !run->pre_stop.hit)
		return;
	run->t.stop = run->pre_stop;
	run->t.hits++;
	run->pre_stop_used = true;
}

/* A sample before the window opened: the newest at or above its
 * threshold kept (see tl_run.pre_stop). */
static void pre_window_sample(struct tl_run *run, const struct osnkernel_rec *r)
{
	int ctx = (int)r->context;
	if (run->opened || ctx < 0 || ctx >= TLAT_NR_CTX || r->cpu >= run->t.nr_cpus)
		return;
	uint64_t stop = run->t.cfg.stop_ns[ctx];
	if (stop && r->latency_ns >= stop)
		run->pre_stop = (struct tlat_stop){
			.hit = true, .cpu = r->cpu, .ctx = ctx,
			.sample = { .lat_ns = r->latency_ns, .ts_ns = r->ts_ns, .seq = r->seq },
		};
}

void timerlat_rec(struct tl *c, const struct osnkernel_rec *r)
{
	struct tl_run *run = &c->run;
	if (r->kind != OSNKERNEL_FRAME)
		run->stack.open = false;	/* a stack ends at the next record */
	/* (before the window too: the ring holds only the run's records, and
	 * the stop can be a sample just before it) */
	if (run->aa && (run->counting || !run->opened))
		timerlat_auto_rec(c, r);
	switch (r->kind) {
	case OSNKERNEL_MARK:
		if (!strcmp(r->desc, c->opt.warmup_ns ? OSNKERNEL_MARK_WARM : OSNKERNEL_MARK_START)) {
			run->counting = run->opened = true;
			/* a live run whose kernel stops at its thresholds: a
			 * sample at or above one before the mark has stopped
			 * the kernel, or is about to (a sample the kernel
			 * stopped on before the mark leaves no mark) */
			if (run->live && c->opt.backend != TL_BPF && !c->opt.on_thr.cont)
				take_pre_stop(run);
		} else if (!strcmp(r->desc, OSNKERNEL_MARK_END)) {
			run->counting = false;
		}
		break;
	case OSNKERNEL_LOST:
		run->in.lost_lines += r->lost ? r->lost : 1;
		break;
	case OSNKERNEL_TIMERLAT:
		if (!run->counting) {
			run->in.outside++;
			if (!c->opt.warmup_ns)	/* (the kernel's stop is off in a warm-up) */
				pre_window_sample(run, r);
			break;
		}
		run->in.records++;
		tlat_add(&run->t, r->cpu, (int)r->context, r->seq, r->latency_ns, r->ts_ns);
		break;
	case OSNKERNEL_STACK:
	case OSNKERNEL_FRAME:
		if (run->counting || (run->pre_stop.hit && !run->opened))
			stack_rec(&run->stack, r);
		break;
	case OSNKERNEL_STOP:
		if (run->counting && !run->in.kernel_stop) {
			run->in.kernel_stop = true;
			run->in.kernel_stop_cpu = r->cpu;
			take_pre_stop(run);
		}
		break;
	default:
		break;
	}
}

/* One whole line: parsed, counted, and in trace mode shown as the kernel
 * wrote it when it is a record of the window. */
static void feed_line(struct tl *c, const char *line)
{
	struct osnkernel_rec r;
	int err = osnkernel_parse_line(line, &r);
	if (err == -EINVAL)
		c->run.in.malformed++;
	/* -e's events: shown among the records in trace mode */
	if (err == -ENOENT && c->opt.nr_events && c->mode == TL_TRACE && !c->out.json && c->run.counting &&
	    line[0] != '#' && line[0] != '\n' && line[0])
		fputs(line, stdout);
	if (err)
		return;
	timerlat_rec(c, &r);
	if (c->mode == TL_TRACE && !c->out.json && c->run.counting &&
	    (r.kind == OSNKERNEL_TIMERLAT || r.kind == OSNKERNEL_STOP))
		fputs(line, stdout);
}

void timerlat_feed(struct tl *c, const char *data, size_t n)
{
	struct tl_run *run = &c->run;
	if (run->trace_f && n)
		fwrite(data, 1, n, run->trace_f);
	for (size_t i = 0; i < n; i++) {
		if (run->line_len < sizeof(run->line) - 2)
			run->line[run->line_len++] = data[i];
		else if (data[i] != '\n')
			continue;	/* an overlong line: its end is dropped, it fails to parse */
		if (data[i] != '\n')
			continue;
		run->line[run->line_len] = 0;
		feed_line(c, run->line);
		run->line_len = 0;
	}
}

/* ---- the report ------------------------------------------------------------------ */

static bool had_losses(const struct tl *c)
{
	const struct tl_input *in = &c->run.in;
	uint64_t missed = 0;
	for (int x = 0; x < TLAT_NR_CTX; x++)
		missed += tlat_missed(&c->run.t, x);
	return in->lost_lines || in->overrun || missed || in->malformed || c->run.t.bad_cpu;
}

/* The report in the forms asked for; the exit status. */
static int report(struct tl *c, bool failed)
{
	json_object *doc = timerlat_doc(c, c->mode == TL_HIST || c->out.renders.nr || c->out.json ||
					   c->out.json_file);
	if (!doc) {
		fprintf(stderr, "%s: out of memory\n", c->prog);
		return EXIT_ERR;
	}
	int rc = 0;
	if (!cmdio_broken_pipe()) {
		if (c->out.json) {
			rc = jsonout_write(doc, JSON_C_TO_STRING_PRETTY, NULL, c->opt.force, c->prog);
		} else {
			if (c->mode == TL_HIST)
				timerlat_text_hist(stdout, doc, &c->out);
			else if (c->mode == TL_TOP)
				timerlat_text_top(stdout, doc);
			timerlat_text_auto(c->mode == TL_TRACE ? stderr : stdout, doc);
			if (c->out.json_file)
				rc = jsonout_write(doc, JSON_C_TO_STRING_PRETTY, c->out.json_file, c->opt.force,
						   c->prog);
		}
		timerlat_text_losses(stderr, doc, c->prog);
		if (c->out.renders.nr)
			rc = tool_status_worst(rc, jsonout_render(doc, &c->out.renders, c->opt.force, c->prog));
	}
	json_object_put(doc);
	bool threshold = c->run.t.stop.hit || c->run.in.kernel_stop || (c->opt.strict && had_losses(c));
	if (c->opt.strict && had_losses(c))
		fprintf(stderr, "%s: --strict: records were lost or activations missed: exit 1\n", c->prog);
	return tool_status_worst(rc, tool_status(failed, threshold));
}

/* ---- a saved trace ------------------------------------------------------------- */

/* The CPUs of a saved trace's timerlat records (the highest + 1, 0 when
 * there is none) into *nr; true when the trace has latscope's window start
 * mark (a -t file): then only its window counts. */
static bool text_scan(FILE *f, uint32_t *nr)
{
	char line[4096];
	struct osnkernel_rec r;
	bool marked = false;
	*nr = 0;
	while (fgets(line, sizeof(line), f)) {
		if (osnkernel_parse_line(line, &r))
			continue;
		if (r.kind == OSNKERNEL_TIMERLAT && r.cpu + 1 > *nr)
			*nr = r.cpu + 1;
		marked |= r.kind == OSNKERNEL_MARK && !strcmp(r.desc, OSNKERNEL_MARK_START);
	}
	return marked;
}

int timerlat_run_text(struct tl *c, const char *path)
{
	cmdio_sigpipe_as_error();
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", c->prog, path, strerror(errno));
		return EXIT_ERR;
	}
	/* stdin cannot be read twice: every CPU latscope can name then, and
	 * its window marks count as they come */
	uint32_t nr = PARSE_MAX_CPUS;
	bool marked = std ? false : text_scan(f, &nr);
	if (!std && fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "%s: '%s' cannot be read twice: %s\n", c->prog, path, strerror(errno));
		fclose(f);
		return EXIT_ERR;
	}
	if (!nr) {
		fprintf(stderr, "%s: no timerlat records in '%s'\n", c->prog, path);
		fclose(f);
		return EXIT_ERR;
	}
	if (timerlat_setup(c, nr) < 0) {
		if (!std)
			fclose(f);
		return EXIT_ERR;
	}
	c->run.ran = "parse-kernel";
	/* a trace not of latscope's (no window marks): all of it */
	c->run.counting = !marked;
	char buf[16384];
	size_t n;
	if (c->mode == TL_TRACE && !c->out.json)
		timerlat_text_trace_header(stdout);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		timerlat_feed(c, buf, n);
	timerlat_feed(c, "\n", 1);
	bool bad = ferror(f);
	if (bad)
		fprintf(stderr, "%s: error reading '%s'\n", c->prog, path);
	if (!std)
		fclose(f);
	int rc = report(c, bad);
	timerlat_teardown(c);
	return rc;
}

/* ---- user threads (-u) ------------------------------------------------------------ */

/* One CPU's user thread.  The kernel lets a thread open a CPU's
 * timerlat_fd only on that CPU, pinned to it, while nobody else holds it:
 * the thread opens it itself, then says so (ready), then reads it until
 * told to stop (each read returns at the next period). */
struct uthread {
	pthread_t th;
	bool started;
	uint32_t cpu;
	const struct cli_prio *prio;
	int ready;			/* 1 once open (or failed); atomic */
	int err;			/* why it failed or ended early: a negative errno */
	const char *step;		/* what failed */
};
static volatile int uthreads_stop;

static int uthread_policy(const struct cli_prio *p)
{
	if (p->policy == CLI_SCHED_DEADLINE)
		return workthread_set_deadline(p->dl_runtime_ns, p->dl_period_ns);
	if (p->policy != SCHED_OTHER) {
		struct sched_param sp = { .sched_priority = p->prio };
		return -pthread_setschedparam(pthread_self(), p->policy, &sp);
	}
	return setpriority(PRIO_PROCESS, 0, p->prio) < 0 ? -errno : 0;
}

static void *uthread_main(void *arg)
{
	struct uthread *u = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(u->cpu, &set);
	char file[64];
	snprintf(file, sizeof(file), "osnoise/per_cpu/cpu%u/timerlat_fd", u->cpu);
	int fd = -1;
	if ((u->err = -pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
		u->step = "pinning it";
	else if ((u->err = uthread_policy(u->prio)))
		u->step = "setting its policy (-P)";
	else if ((fd = tracefs_instance_file_open(NULL, file, O_RDONLY)) < 0)
		u->err = -errno, u->step = "opening its timerlat_fd";
	__atomic_store_n(&u->ready, 1, __ATOMIC_RELEASE);
	char buf[1024];
	while (fd >= 0 && !__atomic_load_n(&uthreads_stop, __ATOMIC_RELAXED)) {
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EINTR) {
			u->err = -errno;
			u->step = "reading its timerlat_fd";
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Why a user thread could not start, in one line. */
static void uthread_said(const struct tl *c, const struct uthread *u)
{
	const char *hint = "";
	if (u->err == -EBUSY)
		hint = " (another timerlat run holds the CPU's tracer thread: -u needs the tracer to run "
		       "with no kernel threads, so no other instance may run timerlat with them)";
	fprintf(stderr, "%s: -u: the thread of CPU %u failed %s: %s%s\n", c->prog, u->cpu, u->step,
		strerror(-u->err), hint);
}

/* The user threads started on every measured CPU, each with its fd open;
 * 0, or -1 after a line. */
static int uthreads_start(struct tl *c, struct uthread *u, uint32_t nr)
{
	__atomic_store_n(&uthreads_stop, 0, __ATOMIC_RELAXED);
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		u[cpu] = (struct uthread){ .cpu = cpu, .prio = &c->opt.prio };
		if (!parse_cpuset_has(&c->run.cpus, cpu))
			continue;
		if (workthread_create(&u[cpu].th, NULL, uthread_main, &u[cpu])) {
			fprintf(stderr, "%s: -u: cannot start the thread of CPU %u\n", c->prog, cpu);
			return -1;
		}
		u[cpu].started = true;
	}
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		while (u[cpu].started && !__atomic_load_n(&u[cpu].ready, __ATOMIC_ACQUIRE))
			tool_sleep_ms(1);
		if (u[cpu].err) {
			uthread_said(c, &u[cpu]);
			u[cpu].err = 0;	/* said once */
			return -1;
		}
	}
	return 0;
}

/* Stopped and joined (each read returns within a period); false when one
 * ended early (said). */
static bool uthreads_stop_all(struct tl *c, struct uthread *u, uint32_t nr)
{
	bool ok = true;
	__atomic_store_n(&uthreads_stop, 1, __ATOMIC_RELAXED);
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		if (!u[cpu].started)
			continue;
		pthread_join(u[cpu].th, NULL);
		if (u[cpu].err && u[cpu].ready && ok) {
			uthread_said(c, &u[cpu]);
			ok = false;
		}
		u[cpu].started = false;
	}
	return ok;
}

/* ---- the kernel threads' priority (-P without -u) ---------------------------------- */

/* ---- the live run ----------------------------------------------------------------- */

struct live_feed {
	struct tl *c;
	struct osnkernel *k;
	char buf[16384];
	uint64_t t0;
};

static int live_wait(void *arg, int timeout_ms)
{
	struct live_feed *lf = arg;
	if (lf->c->run.bpf) {	/* the samples stay in the kernel */
		tool_sleep_ms(timeout_ms);
		return 0;
	}
	long n = osnkernel_read(lf->k, lf->buf, sizeof(lf->buf));
	if (n < 0)
		return -EIO;
	if (n == 0)
		tool_sleep_ms(timeout_ms);
	else
		timerlat_feed(lf->c, lf->buf, (size_t)n);
	return 0;
}

/* A stop: a threshold of ours (the records) or the kernel's note; with
 * --on-threshold continue, the actions each time and no stop. */
static bool live_done(void *arg)
{
	struct tl *c = ((struct live_feed *)arg)->c;
	if (c->run.bpf)
		return timerlat_bpf_stopped(c);
	if (c->opt.on_thr.cont)
		return c->run.t.hits > c->run.acted;
	return c->run.t.stop.hit || c->run.in.kernel_stop;
}

static void live_refresh(void *arg, uint64_t now_ns)
{
	struct live_feed *lf = arg;
	struct tl *c = lf->c;
	if (c->run.bpf)
		timerlat_bpf_sync(c);
	if (c->mode == TL_TOP && !c->out.json && !c->out.quiet) {
		json_object *doc = timerlat_doc(c, false);
		if (doc) {
			if (isatty(STDOUT_FILENO))
				printf("\033[H\033[2J");
			timerlat_text_top(stdout, doc);
			fflush(stdout);
			json_object_put(doc);
		}
	}
	progress_update(&c->run.status, now_ns, c->run.in.records, c->run.in.lost_lines);
}

static void run_actions(struct tl *c, const struct action_list *l, const char *what)
{
	const struct tlat_stop *s = &c->run.t.stop;
	struct action_event ev = {
		.what = what, .command = "timerlat", .cpu = s->hit ? (int)s->cpu : -1,
		.latency_ns = s->hit ? s->sample.lat_ns : 0,
		.threshold_ns = s->hit ? c->run.t.cfg.stop_ns[s->ctx] : 0,
		.trace_file = c->run.trace_f ? c->opt.trace_file : NULL,
	};
	fflush(stdout);
	action_run(l, &ev, c->prog);
}

/* The tracer's settings for the run. */
static int start_tracer(struct tl *c, struct osnkernel **kp)
{
	char cl[1024];
	parse_cpulist_format(&c->run.cpus, cl, sizeof(cl));
	/* continue: the kernel must not stop; bpf: the program stops (the
	 * kernel's stop would turn off other instances' rings for nothing) */
	bool bpf = c->opt.backend == TL_BPF;
	bool kstop = !c->opt.on_thr.cont && !bpf;
	struct osnkernel_config kc = {
		.tracer = OSNKERNEL_TRACER_TIMERLAT, .cpus = cl,
		.timerlat_period_us = c->opt.period_us,
		/* (with a warm-up, set when its window opens: warm_up()) */
		.stop_us = kstop && !c->opt.warmup_ns ? c->opt.irq_us : 0,
		.stop_total_us = kstop && !c->opt.warmup_ns ? c->opt.thread_us : 0,
		.print_stack_us = c->opt.stack_us, .no_workload = c->opt.uthreads, .ring_off = bpf,
		.events = c->opt.auto_us != 0,	/* -a: the interference the tracer sees */
		.buffer_kb = (c->opt.buffer_bytes ? c->opt.buffer_bytes : EVSRC_DEFAULT_RING_BYTES) / 1024,
		.extra = c->opt.events, .nr_extra = c->opt.nr_events,
	};
	if (tool_setup_interrupted(c->prog))
		return -1;
	cmdio_on_abort_call(osnkernel_emergency_restore);
	int err = osnkernel_start(kp, &kc);
	if (err < 0)
		fprintf(stderr, "%s: kernel tracer: %s\n", c->prog, osnkernel_strerror(*kp));
	if (err < 0 || tool_setup_interrupted(c->prog)) {
		osnkernel_stop(*kp);
		osnkernel_free(*kp);
		*kp = NULL;
		cmdio_on_abort_forget();
		return -1;
	}
	return 0;
}

/* The checks before anything is touched: the tracer, -u's files. */
static int live_checks(struct tl *c)
{
	if (!osnkernel_has_tracer("timerlat")) {
		fprintf(stderr, "%s: this kernel has no timerlat tracer (no timerlat in %s/available_tracers; "
				"CONFIG_TIMERLAT_TRACER)\n", c->prog,
			tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs");
		return -1;
	}
	timerlat_pick_backend(c);	/* auto: once the tracer is known to be there */
	char why[512];
	if (c->opt.backend == TL_BPF && tlatbpf_usable(why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: --backend bpf: %s\n", c->prog, why);
		return -1;
	}
	char where[512];
	if (c->opt.uthreads && osnkernel_other_run(where, sizeof(where))) {
		/* NO_OSNOISE_WORKLOAD would stop that run's kernel threads */
		fprintf(stderr, "%s: -u: another timerlat run holds the CPUs' tracer threads (%s): -u needs the "
				"tracer with no kernel threads, and would stop that run's\n", c->prog, where);
		return -1;
	}
	if (c->opt.uthreads) {
		char *p = tracefs_get_tracing_file("osnoise/per_cpu/cpu0/timerlat_fd");
		struct stat st;
		bool has = p && stat(p, &st) == 0;
		tracefs_put_tracing_file(p);
		if (!has) {
			fprintf(stderr, "%s: -u needs tracefs osnoise/per_cpu/cpuN/timerlat_fd (Linux 6.6 and "
					"later); this kernel has none: use -k\n", c->prog);
			return -1;
		}
	}
	return 0;
}

/* The house-keeping CPUs (-H, default the unmeasured ones) for latscope's
 * reader, and --dma-latency.  0, or -1 after a line. */
static int live_setup(struct tl *c, const struct parse_cpuset *online, struct livesetup *ls)
{
	struct parse_cpuset hk;
	tool_housekeeping(&hk, &c->opt.hk, c->opt.have_hk, online, &c->run.cpus);
	struct livesetup_cfg cfg = { .housekeeping_cpus = &hk, .dma_latency_us = (int32_t)c->opt.dma_latency_us };
	struct livesetup_why why;
	livesetup_apply(ls, &cfg, LIVESETUP_AFFINITY | LIVESETUP_DMA_LATENCY, &why);
	int e = livesetup_failed(&why, LIVESETUP_AFFINITY);
	if (e && c->opt.have_hk) {
		fprintf(stderr, "%s: cannot run on the house-keeping CPUs: %s\n", c->prog, strerror(-e));
		return -1;
	}
	if ((e = livesetup_failed(&why, LIVESETUP_DMA_LATENCY))) {
		fprintf(stderr, "%s: --dma-latency: cannot hold /dev/cpu_dma_latency: %s\n", c->prog, strerror(-e));
		return -1;
	}
	if (c->opt.deepest_idle > -2) {
		char w[512];
		cmdio_on_abort_call(idlestate_emergency_restore);
		if ((e = idlestate_limit(NULL, &c->run.cpus, (int)c->opt.deepest_idle, w, sizeof(w))) < 0) {
			fprintf(stderr, "%s: --deepest-idle-state: %s\n", c->prog, w);
			return -1;
		}
	}
	return 0;
}

/* The warm-up: the tracer runs, what it writes is read and not counted,
 * then the window opens at a mark. */
static int warm_up(struct tl *c, struct live_feed *lf)
{
	uint64_t end = tool_now_ns() + c->opt.warmup_ns;
	while (!cmdio_stopped() && tool_now_ns() < end)
		if (live_wait(lf, 50) < 0)
			return -1;
	if (cmdio_stopped())
		return -1;
	if (c->opt.backend == TL_BPF)
		return 0;	/* its window opens when the program is attached */
	if (osnkernel_mark(lf->k, OSNKERNEL_MARK_WARM) < 0) {
		fprintf(stderr, "%s: --warm-up: %s\n", c->prog, osnkernel_strerror(lf->k));
		return -1;
	}
	/* the kernel's stop from the window's start: a warm-up sample over a
	 * threshold would stop it before the window opened.  A sample between
	 * the mark and these writes is latscope's stop alone. */
	bool kstop = !c->opt.on_thr.cont;
	if (kstop && (c->opt.irq_us || c->opt.thread_us) &&
	    osnkernel_set_stop(lf->k, c->opt.irq_us, c->opt.thread_us) < 0) {
		fprintf(stderr, "%s: --warm-up: the stop thresholds: %s\n", c->prog, osnkernel_strerror(lf->k));
		return -1;
	}
	return 0;
}

/* The measurement until -d, a stop or a signal; with --on-threshold, its
 * actions at each stop (continue: and on). */
static void follow(struct tl *c, struct live_feed *lf)
{
	uint64_t t0 = tool_now_ns();
	c->run.start_ns = t0;
	progress_init(&c->run.status, stderr, c->mode == TL_HIST ? c->out.progress : 0, t0, c->opt.duration_ns,
		      "samples");
	struct tool_loop l = {
		.arg = lf, .start_ns = t0, .duration_ns = c->opt.duration_ns,
		.refresh_ns = NS_PER_S, .watch_fd = STDOUT_FILENO,
		.wait = live_wait, .refresh = live_refresh, .done = live_done,
	};
	if (c->mode == TL_TRACE && !c->out.json)
		timerlat_text_trace_header(stdout);
	while (tool_run(&l) == TOOL_END_DONE) {
		if (c->opt.on_thr.n)
			run_actions(c, &c->opt.on_thr, "threshold");
		if (!c->opt.on_thr.cont)
			break;
		c->run.acted = c->run.t.hits;	/* continue: the next hit acts again */
	}
	c->run.end_ns = tool_now_ns();
	progress_clear(&c->run.status);
}

/* The window closed and the pipe read to its end; the ring's own loss
 * count. */
static void drain(struct tl *c, struct live_feed *lf)
{
	int q = osnkernel_quiesce(lf->k);
	if (q < 0)
		fprintf(stderr, "%s: %s\n", c->prog, osnkernel_strerror(lf->k));
	/* the kernel turned tracing off: a stop threshold was hit (6.1 writes
	 * no "stop tracing hit" line into an instance) */
	if (q == 1 && !c->run.in.kernel_stop) {
		c->run.in.kernel_stop = true;
		take_pre_stop(&c->run);
		c->run.in.kernel_stop_cpu = c->run.t.stop.hit ? c->run.t.stop.cpu : 0;
	}
	long n;
	while (!cmdio_broken_pipe() && (n = osnkernel_read(lf->k, lf->buf, sizeof(lf->buf))) > 0)
		timerlat_feed(c, lf->buf, (size_t)n);
	timerlat_feed(c, "\n", 1);
	if (osnkernel_lost(lf->k, &c->run.in.overrun) < 0)
		fprintf(stderr, "%s: %s: losses are counted from the trace's [LOST] lines and the activation "
				"numbers only\n", c->prog, osnkernel_strerror(lf->k));
}

int timerlat_run_live(struct tl *c)
{
	cmdio_signals_install();	/* first: the tracer is always stopped below */
	c->run.live = true;
	if (live_checks(c) < 0)
		return EXIT_ERR;
	c->run.ran = c->opt.backend == TL_BPF ? "bpf" : "trace";
	struct parse_cpuset online;
	c->run.cpus = c->opt.cpus;
	if (tool_cpus(&c->run.cpus, c->opt.have_cpus, &online, c->prog))
		return EXIT_ERR;
	uint32_t nr = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(&online, cpu))
			nr = cpu + 1;
	if (timerlat_setup(c, nr) < 0)
		return EXIT_ERR;
	struct livesetup ls;
	livesetup_init(&ls, NULL);
	static struct uthread ut[PARSE_MAX_CPUS];
	static struct live_feed lf;
	struct osnkernel *k = NULL;
	static char cg_back[4096];	/* -C -u: latscope's cgroup before the run */
	cg_back[0] = 0;
	bool failed = true, restored = true, uok = true;
	if (live_setup(c, &online, &ls) < 0)
		goto out;
	if (c->opt.trace_file &&
	    !(c->run.trace_f = cmdio_fopen_safe(&c->run.trace_sf, AT_FDCWD, c->opt.trace_file, NULL, c->opt.force,
						 c->prog)))
		goto out;
	if (start_tracer(c, &k) < 0)
		goto out;
	lf.c = c;
	lf.k = k;
	if (osnkernel_unmarked(k))
		c->run.counting = true;	/* stopped before its mark: all of the ring */
	if (c->opt.uthreads && c->opt.cgroup && timerlat_self_cgroup(c, cg_back, sizeof(cg_back)) < 0)
		goto stop;
	if (c->opt.uthreads && uthreads_start(c, ut, nr) < 0)
		goto stop;
	if (!c->opt.uthreads && c->opt.have_prio && timerlat_kthreads_prio(c) < 0)
		goto stop;
	if (!c->opt.uthreads && c->opt.cgroup && timerlat_kthreads_cgroup(c) < 0)
		goto stop;
	if (c->opt.warmup_ns && warm_up(c, &lf) < 0)
		goto stop;
	if (c->opt.backend == TL_BPF && timerlat_bpf_start(c) < 0)	/* the window opens */
		goto stop;
	follow(c, &lf);
	if (c->run.bpf)
		timerlat_bpf_end(c);	/* the window closes */
	if (c->opt.uthreads) {
		/* the window closes, then the user threads go: turning the ring
		 * off stops the tracer's workload, and the kernel kills (SIGKILL,
		 * the whole process) a user thread that still holds its
		 * timerlat_fd then */
		if (!c->run.bpf)
			osnkernel_mark(k, OSNKERNEL_MARK_END);
		uok = uthreads_stop_all(c, ut, nr);
	}
	if (!c->run.bpf)
		drain(c, &lf);
	failed = false;
stop:
	timerlat_bpf_end(c);	/* (a failed run's) */
	if (c->opt.uthreads)
		uok = uthreads_stop_all(c, ut, nr);
	int cge = cg_back[0] ? cgmove_pid(cg_back, getpid()) : 0;
	if (cge < 0)
		fprintf(stderr, "%s: -C: cannot move latscope back into %s: %s\n", c->prog, cg_back, strerror(-cge));
	if (osnkernel_stop(k) < 0) {
		fprintf(stderr, "%s: cannot restore the kernel tracer's settings: %s\n", c->prog,
			osnkernel_strerror(k));
		restored = false;
	}
	osnkernel_free(k);
	cmdio_on_abort_forget();
out:
	livesetup_restore(&ls);
	if (idlestate_restore())
		fprintf(stderr, "%s: --deepest-idle-state: some idle states could not be enabled again\n", c->prog);
	int rc = EXIT_ERR;
	if (c->run.trace_f) {
		rc = cmdio_fclose_safe(c->run.trace_f, c->run.trace_sf, c->opt.trace_file, failed, c->prog);
		c->run.trace_f = NULL;
		if (rc)
			failed = true;
	}
	if (!failed || c->run.in.records)
		rc = report(c, failed || !uok);
	else
		rc = EXIT_ERR;
	if (c->opt.on_end.n)
		run_actions(c, &c->opt.on_end, "end");
	timerlat_teardown(c);
	return restored ? tool_end_status(rc) : EXIT_ERR;
}
