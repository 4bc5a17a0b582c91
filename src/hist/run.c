/* SPDX-License-Identifier: MIT */
/*
 * run.c - the runs of `latscope hist`: report (a perf.data file), and the
 * live record/top (tracepoints through perf_event_open, the -o recording,
 * keep-busy, the timer workload, the system settings they change and
 * restore).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "cmdio.h"
#include "commands.h"
#include "live/bpfhist.h"
#include "live/evsrc.h"
#include "live/livesetup.h"
#include "hist.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "base/safeout.h"
#include "base/sysinfo.h"
#include "format/tfsformat.h"
#include "live/timerwl.h"
#include "tool.h"

/* ---- shared setup ----------------------------------------------------- */

static int make_lat(struct hctx *c, uint32_t nr_cpus)
{
	if (nr_cpus == 0)
		nr_cpus = 1;
	if (nr_cpus > HSET_MAX_CPUS)
		nr_cpus = HSET_MAX_CPUS;
	c->lcfg.nr_cpus = nr_cpus;
	c->lcfg.start_on_waking = c->has[TPEVENT_SCHED_WAKING] && !c->has[TPEVENT_SCHED_WAKEUP] &&
				  !c->has[TPEVENT_SCHED_WAKEUP_NEW];
	int err = latency_new(&c->lat, &c->lcfg);
	c->set = err ? NULL : latency_set(c->lat);
	if (err) {
		fprintf(stderr, "%s: cannot set up the histograms: %s\n", c->prog,
			err == -EINVAL ? "bad histogram geometry (check --resolution/--buckets/--offset)"
				       : strerror(-err));
		return err;
	}
	return 0;
}

static void feed(struct hctx *c, const struct tpevent *ev)
{
	if (!c->decoded_any || ev->time_ns < c->first_ns)
		c->first_ns = ev->time_ns;
	if (!c->decoded_any || ev->time_ns > c->last_ns)
		c->last_ns = ev->time_ns;
	c->decoded_any = true;
	if (latency_feed(c->lat, ev) == 0) {
		if (!c->any_cpu || ev->cpu > c->max_cpu_seen)
			c->max_cpu_seen = ev->cpu;
		c->any_cpu = true;
	}
}

/* ---- report ----------------------------------------------------------- */

int hist_report(struct hctx *c)
{
	struct pdread *r = NULL;
	struct tpdecode *d = NULL;
	struct tpdecode_losses loss = { 0 };	/* the loop skips non-tracepoint samples itself */
	struct pdread_event ev;
	int rc, ret = EXIT_ERR;
	const char *path = c->input ? c->input : "perf.data";

	cmdio_sigpipe_as_error();

	rc = pdread_open(&r, path, NULL);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot read %s: %s\n", c->prog, path,
			r && *pdread_strerror(r) ? pdread_strerror(r) : strerror(-rc));
		if (rc == -ENOENT)
			fprintf(stderr, "%s: record one with `latscope hist record -o %s` or perf record "
					"-e 'sched:*,timer:hrtimer_*' -a\n", c->prog, path);
		pdread_close(r);
		return EXIT_ERR;
	}
	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.evsel || !ev.has_sample ||
		    ev.evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		if (!d) {
			struct tep_handle *tep = pdread_tep(r);
			if (!tep) {
				fprintf(stderr, "%s: %s has tracepoint samples but no tracing data "
						"(formats); record it again with perf record or latscope\n",
					c->prog, path);
				goto out;
			}
			d = tpdecode_new(tep);
			if (!d) {
				fprintf(stderr, "%s: out of memory\n", c->prog);
				goto out;
			}
			for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
				const struct pdread_evsel *e = pdread_evsel(r, i);
				if (e->attr.type != PDFORMAT_TYPE_TRACEPOINT)
					continue;
				if (!(e->attr.sample_type & PDFORMAT_SAMPLE_CPU) ||
				    !(e->attr.sample_type & PDFORMAT_SAMPLE_TIME) ||
				    !(e->attr.sample_type & PDFORMAT_SAMPLE_RAW)) {
					fprintf(stderr, "%s: event %s was recorded without CPU/TIME/RAW "
							"in its samples; record system-wide (perf record -a)\n",
						c->prog, e->name ? e->name : "?");
					goto out;
				}
				enum tpevent_kind k = tpdecode_kind(d, (int)e->attr.config);
				if (k != TPEVENT_UNKNOWN)
					c->has[k] = true;
			}
			const struct pdread_info *in = pdread_info(r);
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
		struct tpevent t;
		if (tpdecode_decode_sample(d, &ev, &t, &loss) < 0)
			continue;
		c->decoded++;
		feed(c, &t);
	}
	c->no_raw = loss.no_raw;
	c->undecoded = loss.unknown;
	c->bad_raw = loss.bad_raw;
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, path,
			*pdread_strerror(r) ? pdread_strerror(r) : strerror(-rc));
		goto out;
	}
	const struct pdread_stats *st = pdread_stats(r);
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
	ret = hist_emit(c);
out:
	tpdecode_free(d);
	cmdio_pdr_close(r, c->prog, path);
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

static int on_event(void *arg, const struct tpevent *ev)
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
	if (pdwrite_write_record(c->pw, type, misc, rec + 8, size - 8) < 0)
		c->live_err = true;
}

static int open_record_file(struct hctx *c, struct evsrc *s)
{
	int err;
	/* one rule for every recorder: the host's byte order (the kernel's
	 * records are copied as they come), as perf writes */
	struct safeout_refusal why;
	struct pdwrite_opts o = { .big_endian = BYTES_HOST_BIG_ENDIAN, .force = c->force, .checkpoint = true,
				  .refusal = &why };
	err = pdwrite_open(&c->pw, c->record_out, &o);
	if (err < 0) {
		char msg[PATH_MAX + 160];
		fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, c->record_out,
			safeout_explain(msg, sizeof(msg), err, &why));
		return err;
	}
	size_t ne = evsrc_nr_events(s);
	const char **names = calloc(ne ? ne : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < ne && err >= 0; i++) {
		const uint64_t *ids;
		size_t nid = evsrc_event_ids(s, i, &ids);
		names[i] = evsrc_event_name(s, i);
		err = pdwrite_add_evsel(c->pw, evsrc_event_attr(s, i), names[i], ids, nid);
	}
	if (err >= 0)	/* the formats as the tracing data, in the file's byte order */
		err = tfsformat_describe(c->pw, NULL, names, ne, BYTES_HOST_BIG_ENDIAN);
	free(names);
	if (err < 0) {
		fprintf(stderr, "%s: cannot describe the tracepoints in %s: %s\n", c->prog,
			c->record_out, strerror(-err));
		return err;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	pdwrite_set_string_feature(c->pw, PDFORMAT_FEAT_HOSTNAME, host);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdwrite_set_nrcpus(c->pw, (uint32_t)ncpu, (uint32_t)ncpu);
	err = pdwrite_begin_data(c->pw);
	if (err < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", c->prog, c->record_out, strerror(-err));
		return err;
	}
	evsrc_set_raw_cb(s, on_raw, c);
	return 0;
}

/*
 * Keep-busy: explicit, or after the idle-drop self-test.  One line on stderr
 * when the self-test turns it on.
 */
static int keep_busy_setup(struct hctx *c, struct livesetup *ls)
{
	if (c->keep_busy < 0) {
		c->idc_ran = true;
		c->idc_err = idlecheck_check(&c->cpus, NULL, c->idc, sizeof(c->idc) / sizeof(c->idc[0]),
				       &c->nidc);
		if (!c->idc_err && idlecheck_any_drops(c->idc, c->nidc)) {
			char list[256] = "";
			size_t used = 0;
			for (size_t i = 0; i < c->nidc && used < sizeof(list) - 64; i++)
				if (c->idc[i].verdict == IDLECHECK_DROPS)
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
	struct livesetup_cfg cfg = { .keep_busy_cpus = &c->cpus, .dma_latency_us = -1 };
	int err = livesetup_apply(ls, &cfg, LIVESETUP_KEEP_BUSY, NULL);
	if (err < 0) {
		fprintf(stderr, "%s: cannot start the keep-busy threads: %s (try --no-keep-busy)\n",
			c->prog, strerror(-err));
		return err;
	}
	c->busy_on = true;
	return 0;
}

/* --backend bpf|auto: try the BPF programs; why they do not run into why. */
static void try_bpf(struct hctx *c, uint32_t nr_cpus, const bool *on, char *why, size_t len)
{
	const char *no_bpf = getenv("LATSCOPE_NO_BPF"), *conflict = hist_bpf_conflict(c);

	if (no_bpf && *no_bpf && strcmp(no_bpf, "0")) {
		snprintf(why, len, "refused: LATSCOPE_NO_BPF=%s", no_bpf);
	} else if (conflict) {
		snprintf(why, len, "not usable: it %s", conflict);
	} else {
		struct bpfhist_cfg bc = {
			.nr_cpus = nr_cpus, .hist = c->lcfg.hist, .all_tasks = c->lcfg.all_tasks,
			.pid = c->lcfg.pid, .table_size = c->lcfg.pid_table, .timers = true, .cpu_on = on,
		};
		char msg[400];
		if (bpfhist_open(&c->bpf, &bc, msg, sizeof(msg)) < 0)
			snprintf(why, len, "refused: %s", msg);
		else if (msg[0])	/* runs, without the timer kinds */
			fprintf(stderr, "%s: bpf backend: %s\n", c->prog, msg);
	}
}

/* --backend kernel|auto: set the hist triggers up; why they do not run into
 * why.  From the start on, an abort (a second signal) undoes them too. */
static void try_kernel(struct hctx *c, uint32_t nr_cpus, const bool *on, char *why, size_t len)
{
	const char *conflict = hist_kernel_conflict(c);
	struct histtrig_cfg kc = {
		.nr_cpus = nr_cpus, .hist = c->lcfg.hist, .all_tasks = c->lcfg.all_tasks,
		.pid = c->lcfg.pid, .cpu_on = on,
	};

	if (conflict) {
		snprintf(why, len, "not usable: it %s", conflict);
		return;
	}
	cmdio_on_abort_call(histtrig_emergency_restore);
	int err = histtrig_start(&c->htrig, &kc);
	if (err < 0) {
		snprintf(why, len, "refused: %s", histtrig_strerror(c->htrig));
		int e = histtrig_stop(c->htrig);
		if (e < 0)
			fprintf(stderr, "%s: kernel backend: %s\n", c->prog, histtrig_strerror(c->htrig));
		histtrig_free(c->htrig);
		c->htrig = NULL;
	}
}

/*
 * --backend bpf|kernel|auto: load the BPF programs or set the hist triggers
 * up, make the set they fill.  auto tries bpf, then kernel, then perf, and
 * says on stderr which backend runs and why the others do not; an explicit
 * bpf or kernel that cannot run is an error.  Returns 0 (c->bpf or c->htrig
 * set when one of them runs) or -1.
 */
static int backend_setup(struct hctx *c, uint32_t nr_cpus)
{
	static bool on[HSET_MAX_CPUS];
	char why_bpf[512] = "not tried", why_kernel[512] = "not tried";

	if (c->backend == HB_PERF)
		return 0;
	for (uint32_t i = 0; i < nr_cpus; i++)
		on[i] = parse_cpuset_has(&c->cpus, i);
	if (c->backend == HB_BPF || c->backend == HB_AUTO)
		try_bpf(c, nr_cpus, on, why_bpf, sizeof(why_bpf));
	if (!c->bpf && c->backend == HB_BPF) {
		fprintf(stderr, "%s: --backend bpf %s\n", c->prog, why_bpf);
		return -1;
	}
	if (!c->bpf && (c->backend == HB_KERNEL || c->backend == HB_AUTO))
		try_kernel(c, nr_cpus, on, why_kernel, sizeof(why_kernel));
	if (!c->htrig && c->backend == HB_KERNEL) {
		fprintf(stderr, "%s: --backend kernel %s\n", c->prog, why_kernel);
		return -1;
	}
	if (c->backend == HB_AUTO) {
		if (c->bpf)
			fprintf(stderr, "%s: backend bpf (the histograms are kept in the kernel by BPF "
					"programs; kernel hist triggers and perf not needed)\n", c->prog);
		else if (c->htrig)
			fprintf(stderr, "%s: backend kernel (bpf %s; the kernel's hist triggers keep "
					"the wakeup histogram)\n", c->prog, why_bpf);
		else
			fprintf(stderr, "%s: backend perf (bpf %s; kernel hist triggers %s)\n", c->prog,
				why_bpf, why_kernel);
	}
	if (!c->bpf && !c->htrig)
		return 0;
	int err = hset_new(&c->bset, nr_cpus, &c->lcfg.hist);
	if (err < 0) {
		fprintf(stderr, "%s: cannot set up the histograms: %s\n", c->prog, strerror(-err));
		return -1;
	}
	c->set = c->bset;
	c->kernel_ran = c->htrig != NULL;
	c->any_cpu = true;
	c->max_cpu_seen = nr_cpus - 1;
	static const enum tpevent_kind wake[] = {
		TPEVENT_SCHED_SWITCH, TPEVENT_SCHED_WAKEUP, TPEVENT_SCHED_WAKING,
		TPEVENT_SCHED_WAKEUP_NEW, TPEVENT_SCHED_MIGRATE, TPEVENT_SCHED_PROCESS_EXIT,
	}, timer[] = {
		TPEVENT_HRTIMER_START, TPEVENT_HRTIMER_CANCEL, TPEVENT_HRTIMER_EXPIRE_ENTRY,
		TPEVENT_HRTIMER_EXPIRE_EXIT,
	};
	for (size_t i = 0; i < sizeof(wake) / sizeof(wake[0]); i++)
		c->has[wake[i]] = true;
	for (size_t i = 0; i < sizeof(timer) / sizeof(timer[0]) && bpfhist_has_timers(c->bpf); i++)
		c->has[timer[i]] = true;
	return 0;
}

/* The kernel's hist text into c (the set, hstats, the window). */
static int kernel_collect(struct hctx *c)
{
	int err = histtrig_read(c->htrig, c->bset, &c->hstats);

	if (err < 0)
		fprintf(stderr, "%s: %s\n", c->prog, histtrig_strerror(c->htrig));
	histtrig_window(c->htrig, &c->hwin);
	return err;
}

/* The end of a kernel backend run: pause, the last read, every trigger and
 * the synthetic event removed.  0 or -1 (said on stderr). */
static int kernel_finish(struct hctx *c)
{
	int err = histtrig_pause(c->htrig);

	if (err < 0)
		fprintf(stderr, "%s: %s\n", c->prog, histtrig_strerror(c->htrig));
	else
		err = kernel_collect(c);
	int e = histtrig_stop(c->htrig);
	if (e < 0) {
		fprintf(stderr, "%s: kernel backend: %s\n", c->prog, histtrig_strerror(c->htrig));
		err = e;
	}
	histtrig_free(c->htrig);
	c->htrig = NULL;
	cmdio_on_abort_forget();
	return err < 0 ? -1 : 0;
}

/* The bpf programs' histograms and counters into c (the set, bstats). */
static int bpf_collect(struct hctx *c)
{
	struct bpfhist_stats bs;
	int err = bpfhist_read(c->bpf, c->bset, &bs);

	if (err < 0) {
		fprintf(stderr, "%s: reading the bpf maps: %s\n", c->prog, strerror(-err));
		return err;
	}
	c->bpf_events = bs.events;
	c->bps = bs;
	c->nltimer = 0;
	for (uint32_t cpu = 0; cpu < hset_nr_cpus(c->bset) && c->nltimer < 256; cpu++) {
		struct bpfhist_ltimer lt;
		if (!parse_cpuset_has(&c->cpus, cpu) || bpfhist_local_timer(c->bpf, cpu, &lt) < 0)
			continue;
		c->ltimer[c->nltimer].cpu = cpu;
		c->ltimer[c->nltimer].entries = lt.entries;
		c->ltimer[c->nltimer++].loc_delta = lt.loc_delta;
	}
	c->bstats.wake_ignored = bs.wake_ignored;
	c->bstats.dropped_prio = bs.dropped_prio;
	c->bstats.dropped_running = bs.dropped_running;
	c->bstats.replaced = bs.replaced;
	c->bstats.migrated = bs.migrated;
	c->bstats.timer_unknown = bs.timer_unknown;
	c->bstats.timer_early = bs.timer_early;
	return 0;
}

/* The live loop's callbacks (src/tool.h): poll, read, checkpoint, the top view. */
struct live_loop {
	struct hctx *c;
	struct evsrc *s;
	uint64_t start_ns;
	bool tty;
};

static int live_wait(void *arg, int timeout_ms)
{
	struct live_loop *lv = arg;
	if (!lv->s) {	/* bpf, kernel: the kernel keeps the histograms, nothing to read */
		poll(NULL, 0, timeout_ms);
		return 0;
	}
	int pr = evsrc_poll(lv->s, timeout_ms);
	if (pr < 0 && pr != -EINTR) {
		fprintf(stderr, "%s: poll: %s\n", lv->c->prog, strerror(-pr));
		return pr;
	}
	return 0;
}

static int live_process(void *arg, uint64_t until_ns)
{
	struct live_loop *lv = arg;
	if (!lv->s)
		return 0;
	int err = evsrc_read(lv->s, until_ns, on_event, lv->c);
	if (err < 0)
		fprintf(stderr, "%s: reading the rings: %s\n", lv->c->prog, evsrc_strerror(lv->s));
	return err;
}

/* -o survives a kill: the file is valid up to the last checkpoint */
static void live_checkpoint(void *arg)
{
	struct hctx *c = ((struct live_loop *)arg)->c;
	if (!c->live_err && pdwrite_checkpoint(c->pw, false) < 0)
		c->live_err = true;
}

static void live_refresh(void *arg, uint64_t now_ns)
{
	struct live_loop *lv = arg;
	struct hctx *c = lv->c;
	bool unsup[HSET_NR_KINDS];
	for (int t = 0; t < HSET_NR_KINDS; t++)
		unsup[t] = hist_kind_unsupported(c, t);
	if ((c->bpf && bpf_collect(c) < 0) || (c->htrig && kernel_collect(c) < 0))
		cmdio_stop();
	if (lv->tty)
		fputs("\033[H\033[2J", stdout);
	if (c->bpf)
		printf("latscope hist top: %.1f s, bpf backend, %" PRIu64 " program runs\n\n",
		       (double)(now_ns - lv->start_ns) / 1e9, c->bpf_events);
	else if (c->htrig)
		printf("latscope hist top: %.1f s, kernel backend (hist triggers), %" PRIu64
		       " samples filed\n\n", (double)(now_ns - lv->start_ns) / 1e9, c->hstats.hits);
	else
		printf("latscope hist top: %.1f s, %" PRIu64 " events, %" PRIu64 " lost\n\n",
		       (double)(now_ns - lv->start_ns) / 1e9, c->decoded, evsrc_stats(lv->s)->lost);
	hist_term_view(c, stdout, unsup);
	if (fflush(stdout) != 0 || ferror(stdout))
		cmdio_stop();	/* reported by cmdio_finish() */
}

/* The perf backend's setup: keep-busy, the tracepoints' rings, the decoder,
 * the engine, the -o file; the rings enabled.  0 or -1 (said on stderr);
 * what it opened is the caller's to close either way. */
static int perf_setup(struct hctx *c, const char **ev, size_t n, uint32_t nr_cpus, struct evsrc **sp,
		      struct tpdecode **dp, struct livesetup *ls)
{
	if (keep_busy_setup(c, ls) < 0 || tool_setup_interrupted(c->prog))
		return -1;
	struct evsrc_opts eo = { .ring_bytes = (size_t)c->ring_bytes, .track_tasks = c->record_out != NULL };
	int err = evsrc_open(sp, ev, n, &c->cpus, &eo);
	if (err < 0) {
		/* evsrc_strerror() names the cause and the fix (lib/privhint) */
		fprintf(stderr, "%s: cannot open the tracepoints: %s\n", c->prog,
			*sp ? evsrc_strerror(*sp) : strerror(-err));
		return -1;
	}
	if (tool_setup_interrupted(c->prog))
		return -1;
	*dp = tpdecode_new(evsrc_tep(*sp));
	if (!*dp)
		return -1;
	for (size_t i = 0; i < evsrc_nr_events(*sp); i++) {
		enum tpevent_kind k = tpdecode_kind(*dp, evsrc_event_id(*sp, i));
		if (k != TPEVENT_UNKNOWN)
			c->has[k] = true;
	}
	if (make_lat(c, nr_cpus) < 0)
		return -1;
	if (c->irqsoff_live && !c->has[TPEVENT_IRQ_DISABLE] && !c->has[TPEVENT_PREEMPT_DISABLE])
		fprintf(stderr, "%s: this kernel has no preemptirq tracepoints: irqsoff, preemptoff and "
				"preemptirqsoff are not measured\n", c->prog);
	if (c->record_out && open_record_file(c, *sp) < 0)
		return -1;
	if (tool_setup_interrupted(c->prog))
		return -1;
	err = evsrc_enable(*sp);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", c->prog, evsrc_strerror(*sp));
		return -1;
	}
	return 0;
}

int hist_live(struct hctx *c)
{
	const char *ev[sizeof(live_events) / sizeof(live_events[0]) +
		       sizeof(live_irqsoff) / sizeof(live_irqsoff[0])];
	size_t n = 0;
	struct evsrc *s = NULL;
	struct tpdecode *d = NULL;
	struct livesetup ls;	/* the settings changed for the run, given back at out: */
	struct livesetup_why why;
	struct livesetup_cfg lcfg = {
		.mlock = c->timer,	/* like cyclictest -m: no page fault in the measured path */
		.dma_latency_us = c->timer && c->dma_latency_us >= 0 ? (int32_t)c->dma_latency_us : -1,
		.collector_policy = SCHED_FIFO,
		.collector_prio = (int)c->collector_prio,
	};
	int ret = EXIT_ERR, err;

	/* From the first instruction: a Ctrl-C during setup unwinds through out: */
	cmdio_signals_install();
	livesetup_init(&ls, NULL);
	for (size_t i = 0; i < sizeof(live_events) / sizeof(live_events[0]); i++)
		ev[n++] = live_events[i];
	if (c->irqsoff_live)
		for (size_t i = 0; i < sizeof(live_irqsoff) / sizeof(live_irqsoff[0]); i++)
			ev[n++] = live_irqsoff[i];
	if (!c->cpus_given && sysinfo_online_cpus(&c->cpus) < 0) {
		fprintf(stderr, "%s: cannot find the online CPUs\n", c->prog);
		return EXIT_ERR;
	}
	uint32_t maxcpu = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(&c->cpus, cpu))
			maxcpu = cpu;
	if (backend_setup(c, maxcpu + 1) < 0 || tool_setup_interrupted(c->prog))
		goto out;
	if (!c->bpf && !c->htrig && perf_setup(c, ev, n, maxcpu + 1, &s, &d, &ls) < 0)
		goto out;
	c->traced_from_ns = tool_now_ns();	/* every CPU traced from here */
	/* with the timer workload: memory locked, /dev/cpu_dma_latency held */
	livesetup_apply(&ls, &lcfg, LIVESETUP_MLOCK | LIVESETUP_DMA_LATENCY, &why);
	if ((err = livesetup_failed(&why, LIVESETUP_MLOCK)) < 0)
		fprintf(stderr, "%s: mlockall: %s%s%s (going on, page faults may show as latency)\n",
			c->prog, strerror(-err), why.mlock_hint[0] ? "; " : "", why.mlock_hint);
	if ((err = livesetup_failed(&why, LIVESETUP_DMA_LATENCY)) < 0)
		fprintf(stderr, "%s: cannot hold /dev/cpu_dma_latency at %" PRId64 " us: %s "
				"(going on; --dma-latency -1 does not try)\n",
			c->prog, c->dma_latency_us, strerror(-err));
	if (c->timer) {
		struct timerwl_cfg tc;
		memset(&tc, 0, sizeof(tc));
		tc.cpus = c->cpus;
		tc.interval_ns = c->interval_ns;
		if (c->prio.policy == SCHED_OTHER)
			tc.nice = c->prio.prio;	/* -P o:NICE */
		else
			tc.prio = c->prio.prio;
		tc.rr = c->prio.policy == SCHED_RR;
		tc.hist = c->lcfg.hist;
		err = timerwl_start(&c->twl, &tc);
		if (err < 0) {
			fprintf(stderr, "%s: cannot start the timer threads: %s\n", c->prog, strerror(-err));
			goto out;
		}
	}
	/* The names of the tasks alive now, ours included (the timer threads
	 * may be born on an unmeasured CPU: no FORK record); the kernel names
	 * later ones (evsrc_opts.track_tasks).  Once, before any sample is
	 * written (the loop below writes them), so perf script shows names. */
	int named = c->pw ? pdwrite_write_task_comms(c->pw, 0, NULL) : 0;
	if (named < 0)
		fprintf(stderr, "%s: %s: the running tasks are not named: %s\n", c->prog,
			c->record_out, strerror(-named));
	/* after the workload threads exist, so they do not inherit it */
	if ((err = livesetup_apply(&ls, &lcfg, LIVESETUP_PRIORITY, NULL)) < 0)
		fprintf(stderr, "%s: cannot make the collector SCHED_FIFO %d: %s%s (going on)\n",
			c->prog, (int)c->collector_prio, strerror(-err),
			err == -EPERM ? "; real-time priorities need root or CAP_SYS_NICE" : "");
	if (tool_setup_interrupted(c->prog))
		goto out;
	uint64_t start = tool_now_ns();
	if (c->mode == H_RECORD && !c->json && !c->quiet) {
		/* the table's first line, now: a reader that only wants the start
		 * (| head -1) can leave, and the run sees it and stops */
		if (c->duration_ns)
			printf("# latscope hist record: measuring for %.3f s (Ctrl-C stops early)\n",
			       (double)c->duration_ns / 1e9);
		else
			printf("# latscope hist record: measuring until Ctrl-C\n");
		fflush(stdout);
	}
	struct live_loop lv = { .c = c, .s = s, .start_ns = start, .tty = isatty(STDOUT_FILENO) };
	struct tool_loop l = {
		.arg = &lv,
		.start_ns = start,
		.duration_ns = c->duration_ns,
		.refresh_ns = c->refresh_ns,
		.slack_ns = 2000000,	/* the rings are complete up to 2 ms ago */
		.watch_fd = STDOUT_FILENO,
		.wait = live_wait,
		.process = live_process,
		.checkpoint = c->pw ? live_checkpoint : NULL,
		.refresh = c->mode == H_TOP && !c->quiet ? live_refresh : NULL,
	};
	tool_run(&l);
	/* the workload's cycles end inside the traced window: every cycle it
	 * counts was traced (under QEMU/TCG, reading the bpf maps took a second,
	 * hundreds of 4 ms cycles the programs no longer saw) */
	timerwl_halt(c->twl);
	c->traced_until_ns = tool_now_ns();	/* ... to here */
	if (c->bpf) {
		/* the window ends; the last counts, then nothing of ours stays in
		 * the kernel */
		bpfhist_stop(c->bpf);
		err = bpf_collect(c);
		bpfhist_close(c->bpf);
		c->bpf = NULL;
		if (err < 0)
			goto out;
	} else if (c->htrig) {
		if (kernel_finish(c) < 0)
			goto out;
	} else {
		evsrc_disable(s);
		evsrc_read(s, UINT64_MAX, on_event, c);
		c->lost_events = evsrc_stats(s)->lost;
		c->undecoded = evsrc_stats(s)->undecoded;
		c->forced = evsrc_stats(s)->forced;
		c->out_of_order = evsrc_stats(s)->out_of_order;
		c->ring_corrupt_bytes = evsrc_stats(s)->corrupt_bytes;
	}
	if (c->pw) {
		if (c->live_err) {
			pdwrite_discard(c->pw);
			err = -EIO;
		} else {
			err = pdwrite_close(c->pw);
		}
		c->pw = NULL;
		if (err < 0) {
			fprintf(stderr, "%s: error writing %s: %s\n", c->prog, c->record_out,
				strerror(-err));
			goto out;
		}
	}
	if (cmdio_broken_pipe()) {
		cmdio_pipe_closed(c->prog);
		goto out;
	}
	if (c->mode == H_TOP && !c->quiet && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	ret = hist_emit(c);
out:
	/* restore the system: workload stopped, events closed (disabled), BPF
	 * programs detached and unloaded, then what livesetup changed, newest
	 * first: priority back, /dev/cpu_dma_latency released, memory unlocked,
	 * spinners stopped */
	timerwl_stop(c->twl);
	c->twl = NULL;
	bpfhist_close(c->bpf);
	c->bpf = NULL;
	if (c->htrig) {	/* setup failed or was interrupted: nothing to read */
		if (histtrig_stop(c->htrig) < 0)
			fprintf(stderr, "%s: kernel backend: %s\n", c->prog, histtrig_strerror(c->htrig));
		histtrig_free(c->htrig);
		c->htrig = NULL;
		cmdio_on_abort_forget();
	}
	pdwrite_discard(c->pw);	/* still open: setup failed or was interrupted */
	c->pw = NULL;
	tpdecode_free(d);
	evsrc_close(s);
	livesetup_restore(&ls);
	return ret;
}

