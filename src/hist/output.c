/* SPDX-License-Identifier: MIT */
/*
 * output.c - `latscope hist` output: the text histograms and tables, the
 * JSON, the latency_hist tree under -O, and the verdict (threshold,
 * --strict) that makes the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "cmdio.h"
#include "firedout.h"
#include "commands.h"
#include "hist.h"
#include "base/jsonnum.h"
#include "jsonout.h"
#include "base/lhist.h"
#include "print/histout.h"
#include "base/safeout.h"
#include "live/timerwl.h"

static uint32_t nr_out_cpus(const struct hctx *c)
{
	uint32_t n = c->in.any_cpu ? c->in.max_cpu_seen + 1 : 1;
	if (n > hset_nr_cpus(c->run.set))
		n = hset_nr_cpus(c->run.set);
	return n;
}

/* One file of the tree, inside directory fd dfd (lib/safeout: written under a
 * temporary name, renamed over the old one; never through a link). */
static int tree_file(struct hctx *c, int dfd, const char *shown, const char *name, int t,
		     uint32_t cpu)
{
	struct safeout_file *sf;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", shown, name);
	FILE *f = cmdio_fopen_safe(&sf, dfd, name, path, c->o.force, c->prog);
	if (!f)
		return EXIT_ERR;
	if (!strncmp(name, "max_latency", 11)) {
		char line[256];
		histout_maxline(line, sizeof(line), hset_max(c->run.set, t, cpu));
		fputs(line, f);
	} else {
		histout_hist_file(f, hset_hist(c->run.set, t, cpu), &c->o.lcfg.hist, c->o.nonzero);
	}
	return cmdio_fclose_safe(f, sf, path, false, c->prog);
}

/* The latency_hist tree under -O: every directory opened O_NOFOLLOW relative
 * to its parent, every file through tree_file(). */
static int write_tree(struct hctx *c, const bool unsup[HSET_NR_KINDS])
{
	char path[PATH_MAX], name[64];
	uint32_t ncpu = nr_out_cpus(c);
	unsigned fl = c->o.force ? SAFEOUT_FORCE : 0;
	int top, err;

	struct safeout_refusal why;
	char msg[PATH_MAX + 160];
	err = safeout_dir_open(&top, AT_FDCWD, c->o.outdir, fl, &why);
	if (err) {
		fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, c->o.outdir,
			safeout_explain(msg, sizeof(msg), err, &why));
		return EXIT_ERR;
	}
	for (int t = 0; t < HSET_NR_KINDS; t++) {
		if (!c->o.types[t] || unsup[t])
			continue;
		/* "wakeup/sharedprio": one directory per component */
		char tn[64];
		snprintf(tn, sizeof(tn), "%s", hset_kind_name(t));
		int dfd = dup(top);
		path[0] = 0;
		snprintf(path, sizeof(path), "%s", c->o.outdir);
		for (char *save = NULL, *comp = strtok_r(tn, "/", &save); dfd >= 0 && comp;
		     comp = strtok_r(NULL, "/", &save)) {
			int nfd;
			size_t pl = strlen(path);
			snprintf(path + pl, sizeof(path) - pl, "/%s", comp);
			err = safeout_dir_open(&nfd, dfd, comp, fl, &why);
			close(dfd);
			dfd = -1;
			if (err) {
				fprintf(stderr, "%s: cannot create %s: %s\n", c->prog, path,
					safeout_explain(msg, sizeof(msg), err, &why));
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
			if (!rc && hset_kind_has_maxfile(t)) {
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

/* The backend's refusal of kind t (report, perf: none). */
static const char *backend_refusal(const struct hctx *c, enum hset_kind t)
{
	return c->run.ran ? hsource_kind_refusal(c->run.ran, t) : NULL;
}

/* Whether the events came up to userspace: a report, or a backend such
 * as perf (ring counts, fired against delivered, keep-busy). */
static bool in_userspace(const struct hctx *c)
{
	return !c->run.ran || c->run.ran->events_in_userspace;
}

static enum hsource_tracking tracking(const struct hctx *c)
{
	return c->run.ran ? c->run.ran->tracking : HSOURCE_TRACK_ALL;
}

bool hist_kind_unsupported(const struct hctx *c, enum hset_kind t)
{
	return !latency_type_supported(t, c->in.has) || backend_refusal(c, t);
}

static const char *why_unsupported(const struct hctx *c, enum hset_kind t)
{
	static char why[512];

	if (backend_refusal(c, t)) {
		snprintf(why, sizeof(why), "the %s %s", c->run.ran->title, backend_refusal(c, t));
		return why;
	}
	switch (t) {
	case HSET_WAKEUP:
	case HSET_WAKEUP_SHAREDPRIO:
		return "needs sched:sched_switch and sched:sched_wakeup or sched:sched_waking";
	case HSET_MISSED_TIMER:
		return "needs timer:hrtimer_start, hrtimer_expire_entry/exit and sched wakeups";
	case HSET_TIMERANDWAKEUP:
		return "needs the wakeup and the timer events";
	default:
		if (c->run.src && !c->lo.irqsoff_live && tracefs_tracing_dir()) {
			/* live, the events not opened: does the kernel have them? */
			char d[PATH_MAX];
			snprintf(d, sizeof(d), "%s/events/preemptirq", tracefs_tracing_dir());
			if (access(d, F_OK) == 0)
				return "traced only with --irqsoff (preemptirq:* fires at every interrupt "
				       "and preemption toggle)";
		}
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
	json_object_object_add(o, "enabled", json_object_new_boolean(c->run.busy_on));
	if (c->run.busy_why)
		json_object_object_add(o, "why", json_object_new_string(c->run.busy_why));
	if (c->run.idc_ran) {
		struct json_object *a = json_object_new_array();
		if (c->run.idc_err)
			json_object_object_add(o, "self_test_error",
					       json_object_new_string(strerror(-c->run.idc_err)));
		for (size_t i = 0; a && i < c->run.nidc; i++) {
			struct json_object *e = json_object_new_object();
			if (!e)
				break;
			json_object_object_add(e, "cpu", json_object_new_int((int)c->run.idc[i].cpu));
			json_object_object_add(e, "timer_irqs",
					       json_object_new_int64((int64_t)c->run.idc[i].irqs));
			json_object_object_add(e, "fired", jsonnum_u64(c->run.idc[i].counted));
			json_object_object_add(e, "samples",
					       json_object_new_int64((int64_t)c->run.idc[i].samples));
			json_object_object_add(e, "lost", json_object_new_int64((int64_t)c->run.idc[i].lost));
			json_object_object_add(e, "corrupt_ring_bytes",
					       json_object_new_int64((int64_t)c->run.idc[i].corrupt_bytes));
			json_object_object_add(e, "verdict",
					       json_object_new_string(idlecheck_verdict_name(c->run.idc[i].verdict)));
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

/* A workload thread's cycles without a timerandwakeup sample (0 when the
 * kernel side filed as many or more: other RT wakeups of its CPU). */
static uint64_t twl_unfiled(const struct hctx *c, const struct timerwl_thread_info *info)
{
	if (!c->run.set || info->cpu >= hset_nr_cpus(c->run.set))
		return 0;
	const struct lhist *tw = hset_hist(c->run.set, HSET_TIMERANDWAKEUP, info->cpu);
	uint64_t n = tw ? tw->total : 0;
	return info->cycles > n ? info->cycles - n : 0;
}

/* The undelivered samples of CPU cpu (0 when not counted there). */
static uint64_t cpu_undelivered(const struct hctx *c, uint32_t cpu)
{
	for (size_t i = 0; i < c->in.fired.nr_cpu; i++)
		if (c->in.fired.cpu[i].cpu == cpu)
			return c->in.fired.cpu[i].undelivered;
	return 0;
}

static struct json_object *twl_json(struct hctx *c)
{
	struct json_object *a = json_object_new_array();
	struct lhist h;
	if (!a || lhist_init(&h, &c->o.lcfg.hist) < 0) {
		json_object_put(a);
		return NULL;
	}
	for (unsigned i = 0; i < timerwl_nr_threads(c->run.twl); i++) {
		struct timerwl_thread_info info;
		timerwl_snapshot(c->run.twl, i, &info, &h);
		struct json_object *o = json_object_new_object();
		if (!o)
			break;
		json_object_object_add(o, "cpu", json_object_new_int((int)info.cpu));
		json_object_object_add(o, "tid", json_object_new_int(info.tid));
		json_object_object_add(o, "sched_fifo", json_object_new_boolean(info.fifo));
		json_object_object_add(o, "cycles", json_object_new_int64((int64_t)info.cycles));
		json_object_object_add(o, "overruns", json_object_new_int64((int64_t)info.overruns));
		if (c->run.set)
			json_object_object_add(o, "unfiled", jsonnum_u64(twl_unfiled(c, &info)));
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
		if (c->run.set && info.cpu < hset_nr_cpus(c->run.set)) {
			struct json_object *k = json_object_new_object();
			if (k) {
				json_object_object_add(k, "wakeup",
						       stat_json(hset_hist(c->run.set, HSET_WAKEUP, info.cpu)));
				json_object_object_add(
					k, "timerandwakeup",
					stat_json(hset_hist(c->run.set, HSET_TIMERANDWAKEUP, info.cpu)));
				json_object_object_add(
					k, "missed_timer_offsets",
					stat_json(hset_hist(c->run.set, HSET_MISSED_TIMER, info.cpu)));
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
	/* percentiles as the histograms print them: the bucket, in whole us
	 * (truncated); min, avg and max are exact values */
	fprintf(f, "%6u %-24s %10" PRIu64 " %8.1f %8.1f %8" PRId64 " %8" PRId64 " %8.1f\n", cpu, what,
		h->total, (double)h->min_ns / 1e3, (double)lhist_avg_ns(h) / 1e3, p50 / 1000, p99 / 1000,
		(double)h->max_ns / 1e3);
}

static void twl_table(struct hctx *c, FILE *f)
{
	struct lhist h;
	if (lhist_init(&h, &c->o.lcfg.hist) < 0)
		return;
	/* -P: "SCHED_FIFO", "SCHED_RR", "SCHED_OTHER" or "SCHED_OTHER nice 5" */
	const char *pol = c->lo.prio.policy == SCHED_FIFO ? "SCHED_FIFO"
			  : c->lo.prio.policy == SCHED_RR ? "SCHED_RR"
			  : c->lo.prio.policy == CLI_SCHED_DEADLINE ? "SCHED_DEADLINE" : "SCHED_OTHER";
	char nice[24] = "", refused[64];
	if (c->lo.prio.policy == SCHED_OTHER && c->lo.prio.prio)
		snprintf(nice, sizeof(nice), "nice %d", c->lo.prio.prio);
	snprintf(refused, sizeof(refused), "  (%s refused)", nice[0] ? nice : pol);
	fprintf(f, "timer workload (own measurement, us): interval %" PRIu64 " us, %s%s%s\n",
		c->lo.interval_ns / 1000, pol, nice[0] ? " " : "", nice);
	fprintf(f, "%6s %8s %10s %8s %8s %8s %8s %9s\n", "CPU", "tid", "cycles", "min", "avg", "p99",
		"max", "overruns");
	for (unsigned i = 0; i < timerwl_nr_threads(c->run.twl); i++) {
		struct timerwl_thread_info info;
		timerwl_snapshot(c->run.twl, i, &info, &h);
		int64_t p99 = 0;
		lhist_percentile_ns(&h, 99, &p99);
		fprintf(f, "%6u %8d %10" PRIu64 " %8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64
			   " %9" PRIu64 "%s\n",
			info.cpu, (int)info.tid, info.cycles, h.total ? h.min_ns / 1000 : 0,
			h.total ? lhist_avg_ns(&h) / 1000 : 0, p99 / 1000,
			h.total ? h.max_ns / 1000 : 0, info.overruns,
			!info.policy_ok ? refused : "");
	}
	fprintf(f, "\nworkload's own latency beside the kernel-side histograms (us):\n");
	fprintf(f, "%6s %-24s %10s %8s %8s %8s %8s %8s\n", "CPU", "source", "samples", "min", "avg",
		"p50", "p99", "max");
	for (unsigned i = 0; i < timerwl_nr_threads(c->run.twl); i++) {
		struct timerwl_thread_info info;
		timerwl_snapshot(c->run.twl, i, &info, &h);
		stat_row(f, info.cpu, "workload (own)", &h);
		if (!c->run.set || info.cpu >= hset_nr_cpus(c->run.set))
			continue;
		const struct lhist *tw = hset_hist(c->run.set, HSET_TIMERANDWAKEUP, info.cpu);
		stat_row(f, info.cpu, "kernel timerandwakeup", tw);
		stat_row(f, info.cpu, "kernel wakeup", hset_hist(c->run.set, HSET_WAKEUP, info.cpu));
		stat_row(f, info.cpu, "kernel missed_timer", hset_hist(c->run.set, HSET_MISSED_TIMER, info.cpu));
		if (h.total && tw && tw->total) {
			int64_t a50 = 0, a99 = 0, b50 = 0, b99 = 0;
			lhist_percentile_ns(&h, 50, &a50);
			lhist_percentile_ns(&h, 99, &a99);
			lhist_percentile_ns(tw, 50, &b50);
			lhist_percentile_ns(tw, 99, &b99);
			fprintf(f, "%6u %-24s %10s %8.1f %8.1f %8" PRId64 " %8" PRId64 " %8.1f\n", info.cpu,
				"own - timerandwakeup", "",
				(double)(h.min_ns - tw->min_ns) / 1e3,
				(double)(lhist_avg_ns(&h) - lhist_avg_ns(tw)) / 1e3,
				a50 / 1000 - b50 / 1000, a99 / 1000 - b99 / 1000,
				(double)(h.max_ns - tw->max_ns) / 1e3);
		}
	}
	fprintf(f, "(own = clock_gettime after the wakeup - the programmed expiry, so it adds the "
		   "return to user space to timer lateness + wakeup latency)\n");
	lhist_fini(&h);
}

void hist_term_view(struct hctx *c, FILE *f, const bool unsup[HSET_NR_KINDS])
{
	for (int t = 0; t < HSET_NR_KINDS; t++) {
		if (!c->o.types[t] || unsup[t])
			continue;
		histout_term(f, c->run.set, t, 0);
		const struct latency_stats *st = c->run.track;
		if (t == HSET_WAKEUP && st && st->wake_not_rt && !c->o.lcfg.all_tasks && c->o.lcfg.pid <= 0)
			fprintf(f, "  real-time tasks only (as latency_hist): %" PRIu64 " wakeups of other "
				   "tasks not measured; --all-tasks measures them\n", st->wake_not_rt);
		if (hset_kind_has_maxfile(t)) {
			for (uint32_t cpu = 0; cpu < nr_out_cpus(c); cpu++) {
				const struct hset_max *m = hset_max(c->run.set, t, cpu);
				char line[256];
				if (!m->valid)
					continue;
				histout_maxline(line, sizeof(line), m);
				fprintf(f, "  max_latency-CPU%u: %s", cpu, line);
			}
		}
		fprintf(f, "\n");
	}
	for (int t = 0; t < HSET_NR_KINDS; t++)
		if (c->o.types[t] && unsup[t] && c->o.types_given)
			fprintf(f, "%s: not available: %s\n", hset_kind_name(t), why_unsupported(c, t));
	if (c->run.twl)
		twl_table(c, f);
}

int64_t hist_worst(const struct hctx *c, enum hset_kind *kind, uint32_t *cpu)
{
	int64_t w = INT64_MIN;
	for (int t = 0; t < HSET_NR_KINDS && c->run.set; t++) {
		if (!c->o.types[t] || hist_kind_unsupported(c, t))
			continue;
		for (uint32_t i = 0; i < hset_nr_cpus(c->run.set); i++) {
			const struct lhist *h = hset_hist(c->run.set, t, i);
			if (h && h->total && h->max_ns > w) {
				w = h->max_ns;
				if (kind)
					*kind = t;
				if (cpu)
					*cpu = i;
			}
		}
	}
	return w;
}

/* Events the histograms miss: lost by the kernel or dropped by us. */
static uint64_t dropped(const struct hctx *c)
{
	const struct latency_stats *st = c->run.track;
	return c->in.lost_events + c->in.lost_samples + firedtab_undelivered(&c->in.fired) + c->in.unknown_id +
	       c->in.bad_samples + c->in.bad_raw +
	       c->in.no_raw + st->bad_cpu + st->alloc_failures + c->run.backend_dropped;
}

/* The perf path's fired-against-delivered counts are shown: a live perf
 * backend (counted or why not), or a recording that carries them. */
static bool fired_shown(const struct hctx *c)
{
	return c->in.fired.counted || (c->mode != H_REPORT && in_userspace(c));
}

/* A backend's line of text (hsource_text) to stdout. */
static void print_line(void *arg, const char *line)
{
	(void)arg;
	printf("%s\n", line);
}

/* The perf backend's events line: decoded, malformed, lost. */
static void print_events(const struct hctx *c)
{
	uint64_t bad = c->in.bad_raw + c->in.no_raw + c->in.bad_samples + c->in.unknown_id;
	printf("events: %" PRIu64 " decoded, %" PRIu64 " not used by the decoder, %" PRIu64
	       " malformed", c->in.decoded, c->in.undecoded, bad);
	if (bad)
		printf(" (%" PRIu64 " bad payload, %" PRIu64 " without payload, %" PRIu64
		       " too short for their sample_type, %" PRIu64 " with an unknown id)",
		       c->in.bad_raw, c->in.no_raw, c->in.bad_samples, c->in.unknown_id);
	printf("; lost %" PRIu64 " events, %" PRIu64 " samples", c->in.lost_events,
	       c->in.lost_samples);
	if (c->in.ring_corrupt_bytes)
		printf("; corrupt ring data: %" PRIu64 " bytes skipped", c->in.ring_corrupt_bytes);
	if (c->in.duplicates)
		printf("; %" PRIu64 " duplicate samples dropped", c->in.duplicates);
	if (c->in.out_of_order) {
		printf("; %" PRIu64 " out of order", c->in.out_of_order);
		if (c->in.max_late_ns)
			printf(" (written up to %" PRIu64 " us after a later event)", c->in.max_late_ns / 1000);
	}
	printf("\n");
}

/* The latscope.hist/1 document (with the buckets when buckets); NULL when out of memory. */
static struct json_object *build_doc(struct hctx *c, const bool *unsup, bool buckets)
{
	const struct latency_stats *st = c->run.track;	/* the trackers' counters */
	struct json_object *j = jsonout_adopt(REPORT_HIST,
					      histout_json(c->run.set, c->o.types, unsup, buckets));
	if (j && tracking(c) == HSOURCE_TRACK_ALL)	/* the userspace engine's counters */
		json_object_object_add(j, "stats", histout_json_engine_stats(st));
	if (j && tracking(c) != HSOURCE_TRACK_ALL) {	/* those an in-kernel backend keeps */
		struct json_object *so = histout_json_engine_stats(st);
		static const char *const not_kept[] = { "events", "bad_cpu", "pid_evictions",
							 "timer_evictions", "alloc_failures",
							 "unmatched_enable", "late_wakeups" };
		for (size_t i = 0; so && i < sizeof(not_kept) / sizeof(not_kept[0]); i++)
			json_object_object_del(so, not_kept[i]);
		json_object_object_add(j, "stats", so);
	}
	if (!j)
		return NULL;
	struct json_object *in = json_object_new_object();
	if (in) {
		json_object_object_add(in, "decoded", json_object_new_int64((int64_t)c->in.decoded));
		json_object_object_add(in, "undecoded",
				       json_object_new_int64((int64_t)c->in.undecoded));
		json_object_object_add(in, "bad_raw", json_object_new_int64((int64_t)c->in.bad_raw));
		json_object_object_add(in, "lost_events",
				       json_object_new_int64((int64_t)c->in.lost_events));
		json_object_object_add(in, "lost_samples",
				       json_object_new_int64((int64_t)c->in.lost_samples));
		json_object_object_add(in, "no_raw", json_object_new_int64((int64_t)c->in.no_raw));
		json_object_object_add(in, "unknown_id",
				       json_object_new_int64((int64_t)c->in.unknown_id));
		json_object_object_add(in, "bad_samples",
				       json_object_new_int64((int64_t)c->in.bad_samples));
		json_object_object_add(in, "out_of_order",
				       json_object_new_int64((int64_t)c->in.out_of_order));
		if (c->mode == H_REPORT)
			json_object_object_add(in, "duplicates",
					       json_object_new_int64((int64_t)c->in.duplicates));
		if (c->run.ran && c->run.ran->events_in_userspace)
			json_object_object_add(in, "max_late_ns",
					       json_object_new_int64((int64_t)c->in.max_late_ns));
		json_object_object_add(in, "forced_flushes",
				       json_object_new_int64((int64_t)c->in.forced));
		json_object_object_add(in, "dropped", json_object_new_int64((int64_t)dropped(c)));
		if (fired_shown(c))
			json_object_object_add(in, "fired", firedout_json(&c->in.fired));
		json_object_object_add(in, "nr_cpus", json_object_new_int((int)nr_out_cpus(c)));
		if (c->in.decoded_any) {
			json_object_object_add(in, "first_event_ns",
					       jsonnum_u64(c->in.first_ns));
			json_object_object_add(in, "last_event_ns",
					       jsonnum_u64(c->in.last_ns));
		}
		if (c->in.traced_from_ns) {
			json_object_object_add(in, "traced_from_ns",
					       jsonnum_u64(c->in.traced_from_ns));
			json_object_object_add(in, "traced_until_ns",
					       jsonnum_u64(c->in.traced_until_ns));
		}
		if (c->o.time_given)
			json_object_object_add(in, "outside_time",
					       json_object_new_int64((int64_t)c->in.outside));
		if (c->mode != H_REPORT) {
			json_object_object_add(in, "corrupt_ring_bytes",
					       jsonnum_u64(c->in.ring_corrupt_bytes));
			json_object_object_add(in, "keep_busy", keep_busy_json(c));
			json_object_object_add(in, "backend", json_object_new_string(c->run.ran->name));
			hsource_input_json(c->run.src, in);
		}
		json_object_object_add(j, "input", in);
	}
	if (c->run.twl)
		json_object_object_add(j, "timer_workload", twl_json(c));
	if (c->run.tasks)
		json_object_object_add(j, "tasks", hist_tasks_json(c));
	return j;
}

/* The documents: JSON on stdout or in --json=FILE, and --render's forms.
 * 0, 1 (a write failed: said), or -1 (out of memory: said). */
static int emit_documents(struct hctx *c, const bool *unsup)
{
	bool failed = false;

	if (c->o.json || c->o.json_file) {
		struct json_object *j = build_doc(c, unsup, c->o.json_buckets);
		if (!j) {
			fprintf(stderr, "%s: out of memory building JSON\n", c->prog);
			return -1;
		}
		if (jsonout_write(j, JSON_C_TO_STRING_PRETTY, c->o.json ? NULL : c->o.json_file, c->o.force,
				  c->prog))
			failed = true;
		json_object_put(j);
	}
	if (c->o.renders.nr) {	/* the page draws the buckets: a document with them */
		struct json_object *j = build_doc(c, unsup, true);
		if (!j) {
			fprintf(stderr, "%s: out of memory building the report's forms\n", c->prog);
			return -1;
		}
		if (jsonout_render(j, &c->o.renders, c->o.force, c->prog))
			failed = true;
		json_object_put(j);
	}
	return failed;
}

/* The trackers' line: what the priority rules and the tables did. */
static void print_tracking(const struct hctx *c)
{
	const struct latency_stats *st = c->run.track;

	if (tracking(c) == HSOURCE_TRACK_NONE) {
		printf("tracking: none (hist triggers file every wakeup to its switch-in, per "
		       "task, without the priority rules)\n");
		return;
	}
	printf("tracking: %" PRIu64 " wakeups ignored by the priority rules, %" PRIu64
	       " dropped (higher prio first), %" PRIu64 " dropped (already running), %"
	       PRIu64 " replaced, %" PRIu64 " migrated, ", st->wake_ignored,
	       st->dropped_prio, st->dropped_running, st->replaced, st->migrated);
	if (tracking(c) == HSOURCE_TRACK_NO_TABLES)	/* their evictions are not counted */
		printf("%" PRIu64 " expiries of unknown timers\n", st->timer_unknown);
	else
		printf("%" PRIu64 " pid-table evictions, %" PRIu64 " timer-table evictions, %"
		       PRIu64 " expiries of unknown timers, %" PRIu64 " wakeups written late "
		       "(not measured)\n", st->pid_evictions, st->timer_evictions,
		       st->timer_unknown, st->late_wakeups);
}

/* The live run's keep-busy line: on or off, and why. */
static void print_keep_busy(const struct hctx *c)
{
	if (!in_userspace(c))
		printf("keep-busy: off (%s backend)\n", c->run.ran->name);
	else
		printf("keep-busy: %s\n",
		       c->run.busy_on ? (strcmp(c->run.busy_why, "option") ? "on (the self-test saw "
							"idle-entry samples dropped)"
							: "on (--keep-busy)")
		       : c->run.idc_ran && !c->run.idc_err ? "off (the self-test saw no drop)"
		       : c->run.idc_ran ? "off (the self-test could not run)" : "off (--no-keep-busy)");
}

/* The text report on stdout: histograms, tasks, what the input gave. */
static void print_text(struct hctx *c, const bool *unsup)
{
	hist_term_view(c, stdout, unsup);
	hist_tasks_text(c, stdout);
	if (!c->run.src || !hsource_text(c->run.src, print_line, NULL))
		print_events(c);
	if (fired_shown(c))
		firedout_text(&c->in.fired, stdout);
	print_tracking(c);
	if (c->mode != H_REPORT)
		print_keep_busy(c);
	if (c->o.outdir)
		printf("latency_hist tree written to %s\n", c->o.outdir);
}

/* The selected kinds the input cannot give, on stderr (JSON stays clean):
 * one line per reason (irqsoff, preemptoff and preemptirqsoff share theirs). */
static void say_unsupported(const struct hctx *c, const bool *unsup)
{
	bool said[HSET_NR_KINDS] = { false };

	for (int t = 0; t < HSET_NR_KINDS; t++) {
		if (!c->o.types[t] || !unsup[t] || said[t] || !(c->o.json || !c->o.types_given) || c->o.quiet)
			continue;
		char why[512];	/* why_unsupported's text is in a static buffer */
		snprintf(why, sizeof(why), "%s", why_unsupported(c, t));
		int same[HSET_NR_KINDS], n = 0;
		for (int u = t; u < HSET_NR_KINDS; u++)
			if (c->o.types[u] && unsup[u] && !said[u] && !strcmp(why_unsupported(c, u), why)) {
				same[n++] = u;
				said[u] = true;
			}
		fprintf(stderr, "%s: ", c->prog);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", hset_kind_name(same[i]));
		fprintf(stderr, " not reported: %s\n", why);
	}
}

/* Every loss in one warning line, the fired-but-undelivered samples and
 * what they cost the timer workload, on stderr. */
static void say_losses(const struct hctx *c, uint64_t drop)
{
	const struct latency_stats *st = c->run.track;	/* the trackers' counters */
	char b[512];
	size_t u = 0;

#define DROPPED(v, what) \
	if (v && u < sizeof(b)) \
		u += (size_t)snprintf(b + u, sizeof(b) - u, "%s%" PRIu64 " " what, u ? ", " : "", v)
	DROPPED(c->in.lost_events, "events lost by the kernel");
	DROPPED(c->in.lost_samples, "samples lost by the kernel");
	DROPPED(c->in.unknown_id, "samples with an id no event declares");
	DROPPED(c->in.bad_samples, "samples too short for their sample_type");
	DROPPED(c->in.bad_raw, "samples with a malformed payload");
	DROPPED(c->in.no_raw, "samples without a payload");
	DROPPED(st->bad_cpu, "events with a CPU out of range");
	DROPPED(st->alloc_failures, "samples lost to memory");
	DROPPED(c->in.out_of_order, "events delivered out of order");
	DROPPED(c->in.forced, "queue flushes forced by a full queue");
	DROPPED(c->in.ring_corrupt_bytes, "bytes of corrupt ring data skipped");
#undef DROPPED
	char bl[400] = "";
	if (c->run.src)
		hsource_loss_text(c->run.src, bl, sizeof(bl));
	if (bl[0] && u < sizeof(b))
		u += (size_t)snprintf(b + u, sizeof(b) - u, "%s%s", u ? ", " : "", bl);
	char fw[1024];
	if (firedout_warning(&c->in.fired, fw, sizeof(fw)))
		fprintf(stderr, "%s: warning: %s%s\n", c->prog, fw,
			firedtab_undelivered(&c->in.fired) ? ": histograms are incomplete" : "");
	/* the workload's own count says what that cost it */
	for (unsigned i = 0; c->run.twl && i < timerwl_nr_threads(c->run.twl); i++) {
		struct timerwl_thread_info info;
		timerwl_snapshot(c->run.twl, i, &info, NULL);
		uint64_t un = twl_unfiled(c, &info), ud = cpu_undelivered(c, info.cpu);
		if (un && ud)
			fprintf(stderr, "%s: warning: CPU%u: %" PRIu64 " of %" PRIu64 " timer-workload "
					"cycles have no timerandwakeup sample; the kernel fired %" PRIu64
					" samples there that it never delivered\n",
				c->prog, info.cpu, un, info.cycles, ud);
	}
	if (u)
		fprintf(stderr, "%s: warning: %s: %s\n", c->prog, b,
			drop || c->in.ring_corrupt_bytes ? "histograms are incomplete" : "ordering may be off");
}

/* -T and --strict: exit 1 when events were lost or a maximum is over -T
 * (said on stderr), else 0. */
static int verdict(const struct hctx *c, uint64_t drop)
{
	int rc = 0;

	if (drop && (c->o.threshold_given || c->o.strict)) {
		fprintf(stderr, "%s: %" PRIu64 " events were lost or dropped, so the histograms cannot "
				"pass %s: exit 1\n", c->prog, drop,
			c->o.strict ? "--strict" : "the threshold");
		rc = EXIT_THRESHOLD;
	}
	if (c->o.threshold_given) {
		int64_t w = hist_worst(c, NULL, NULL);
		if (w != INT64_MIN && w >= 0 && (uint64_t)w > c->o.threshold_ns) {
			fprintf(stderr, "%s: maximum latency %" PRId64 " us exceeds the threshold %" PRId64
					" us\n",
				c->prog, w / 1000, (int64_t)(c->o.threshold_ns / 1000));
			rc = EXIT_THRESHOLD;
		}
	}
	return rc;
}

int hist_emit(struct hctx *c)
{
	bool unsup[HSET_NR_KINDS];

	for (int t = 0; t < HSET_NR_KINDS; t++)
		unsup[t] = hist_kind_unsupported(c, t);
	if (c->o.outdir && write_tree(c, unsup))
		return EXIT_ERR;
	int docs = emit_documents(c, unsup);
	if (docs < 0)
		return EXIT_ERR;
	bool json_err = docs > 0;
	if (!c->o.json)
		print_text(c, unsup);
	say_unsupported(c, unsup);
	uint64_t drop = dropped(c);
	if (c->in.duplicates)
		fprintf(stderr, "%s: %" PRIu64 " samples are byte for byte the one before them (the recorder wrote part "
				"of a ring twice): dropped, nothing is missing\n", c->prog, c->in.duplicates);
	if (drop || c->in.out_of_order || c->in.forced || c->in.ring_corrupt_bytes || c->in.fired.throttles)
		say_losses(c, drop);
	int rc = verdict(c, drop);
	if (cmdio_finish(stdout, c->prog, "standard output") || json_err)
		return EXIT_ERR;
	return rc;
}

