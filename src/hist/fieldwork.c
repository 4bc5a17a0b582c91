/* SPDX-License-Identifier: MIT */
/*
 * fieldwork.c - `latscope hist record|top`'s field-work options, as rtla
 * has them: -T stops the run at once, -a/--auto DUR (that, the trace, and
 * the analysis of the worst sample: lib/engine/latauto.h), --trace[=FILE]
 * (-o with a default name), --on-threshold and --on-end ACTION
 * (src/action.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmdio.h"
#include "commands.h"
#include "format/pdwrite.h"
#include "hist.h"
#include "live/timerwl.h"
#include "tool.h"

#define DEFAULT_TRACE "hist_trace.data"

static int parse_action(struct hctx *c, struct action_list *l, const char *opt, const char *arg,
			bool cont)
{
	char e[400];
	if (action_parse(l, arg, cont, e, sizeof(e)) < 0) {
		snprintf(c->fw.act_err, sizeof(c->fw.act_err), "--%s '%s': %s", opt, arg, e);
		return -EINVAL;
	}
	return 0;
}

int hist_parse_on_threshold(const char *arg, void *params)
{
	struct hctx *c = params;
	return parse_action(c, &c->fw.on_thr, "on-threshold", arg, true);
}

int hist_parse_on_end(const char *arg, void *params)
{
	struct hctx *c = params;
	return parse_action(c, &c->fw.on_end, "on-end", arg, false);
}

int hist_parse_trace(const char *arg, void *params)
{
	struct hctx *c = params;
	if (arg && !*arg)
		return -EINVAL;
	c->fw.trace_asked = true;
	if (arg) {
		if (c->o.record_out && strcmp(c->o.record_out, arg)) {
			snprintf(c->fw.act_err, sizeof(c->fw.act_err), "--trace '%s': -o '%s' is the trace file "
				 "already", arg, c->o.record_out);
			return -EINVAL;
		}
		c->o.record_out = arg;
	}
	return 0;
}

int hist_fieldwork_settle(struct hctx *c)
{
	if (c->fw.have_auto) {
		if (!c->o.threshold_given) {
			c->o.threshold_ns = c->fw.auto_ns;
			c->o.threshold_given = true;
		}
		c->fw.trace_asked = true;
	}
	if (c->fw.on_end.trace)
		c->fw.trace_asked = true;
	const char *f = c->fw.on_thr.trace_file ? c->fw.on_thr.trace_file : c->fw.on_end.trace_file;
	const char *g = c->fw.on_end.trace_file;
	if ((c->o.record_out && f && strcmp(c->o.record_out, f)) || (f && g && strcmp(f, g))) {
		fprintf(stderr, "%s: one trace file per run: '%s' and '%s'\n", c->prog,
			c->o.record_out ? c->o.record_out : f, c->o.record_out ? f : g);
		return EXIT_ERR;
	}
	if (c->fw.on_thr.trace && !c->fw.trace_asked && !c->o.record_out)
		c->fw.trace_on_hit = true;		/* kept only when the threshold is hit */
	if ((c->fw.trace_asked || c->fw.trace_on_hit) && !c->o.record_out)
		c->o.record_out = f ? f : DEFAULT_TRACE;
	if (c->fw.on_thr.n && !c->o.threshold_given) {
		fprintf(stderr, "%s: --on-threshold needs a threshold: -T DUR or -a DUR\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.on_thr.cont && c->fw.have_auto) {
		fprintf(stderr, "%s: -a stops at the sample it analyses; --on-threshold continue would go "
				"on (use -T DUR for that)\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.have_auto && c->lo.backend && !c->lo.backend->events_in_userspace) {
		fprintf(stderr, "%s: -a analyses the events, which only the perf backend reads; use "
				"--backend perf\n", c->prog);
		return EXIT_ERR;
	}
	return 0;
}

/* every event, before the trackers: into the analyser's rings */
static int tap(void *arg, const struct tpevent *ev)
{
	return latauto_event(arg, ev);
}

/* every sample filed: the worst over -T analysed now, while the events
 * that made it are in the rings */
static void observe(void *arg, const struct latency_sample *s)
{
	struct hctx *c = arg;
	if (s->type >= HSET_NR_KINDS || !c->o.types[s->type] || s->latency_ns < 0 ||
	    (uint64_t)s->latency_ns <= c->o.threshold_ns)
		return;
	if (c->fw.an_valid && s->latency_ns <= c->fw.an_sample.latency_ns)
		return;
	uint64_t from = s->time_ns >= (uint64_t)s->latency_ns ? s->time_ns - (uint64_t)s->latency_ns : 0;
	if (latauto_window(c->fw.an, s->cpu, from, s->time_ns, &c->fw.an_res) == 0) {
		c->fw.an_sample = *s;
		c->fw.an_valid = true;
	}
}

int hist_auto_setup(struct hctx *c, struct hsource_cfg *cfg)
{
	if (!c->fw.have_auto)
		return 0;
	int err = latauto_new(&c->fw.an, cfg->nr_cpus);
	if (err < 0) {
		fprintf(stderr, "%s: -a: %s\n", c->prog, strerror(-err));
		return -1;
	}
	cfg->tap = tap;
	cfg->tap_arg = c->fw.an;
	cfg->observer = observe;
	cfg->observer_arg = c;
	return 0;
}

static void run_actions(struct hctx *c, const struct action_list *l, const char *what)
{
	struct action_event ev = {
		.what = what, .command = "hist", .cpu = c->fw.hit ? (int)c->fw.hit_cpu : -1,
		.latency_ns = c->fw.hit && c->fw.hit_max.latency_ns > 0 ? (uint64_t)c->fw.hit_max.latency_ns : 0,
		.threshold_ns = c->o.threshold_given ? c->o.threshold_ns : 0,
		.trace_file = c->fw.trace_kept || c->run.pw ? c->o.record_out : NULL,
	};
	fflush(stdout);
	action_run(l, &ev, c->prog);
}

bool hist_threshold_check(struct hctx *c)
{
	if (!c->o.threshold_given || c->mode == H_MONITOR || !c->run.src)
		return false;
	const struct hsource_ops *ops = hsource_ops_of(c->run.src);
	if (ops->sync && !ops->events_in_userspace) {	/* in-kernel counts: read at most every 100 ms */
		uint64_t now = tool_now_ns();
		if (now - c->fw.last_sync_ns < 100000000ULL)
			return false;
		c->fw.last_sync_ns = now;
		struct hsource_why hw;
		if (hsource_sync(c->run.src, &hw) < 0)
			return false;	/* the end's read says why */
	}
	enum hset_kind k = HSET_WAKEUP;
	uint32_t cpu = 0;
	int64_t w = hist_worst(c, &k, &cpu);
	if (w == INT64_MIN || w < 0 || (uint64_t)w <= c->o.threshold_ns)
		return false;
	if (c->fw.hit && w <= c->fw.hit_max.latency_ns)
		return false;	/* continue: nothing new */
	c->fw.hit = true;
	c->fw.hit_kind = k;
	c->fw.hit_cpu = cpu;
	c->fw.hit_max = *hset_max(c->run.set, k, cpu);
	c->fw.hit_max.latency_ns = w;	/* the histogram's maximum (a backend may keep no record) */
	fprintf(stderr, "%s: %s latency %" PRId64 " us on cpu %u exceeds the threshold %" PRIu64
			" us: %s\n", c->prog, hset_kind_name(k), w / 1000, cpu, c->o.threshold_ns / 1000,
			c->fw.on_thr.cont ? "going on (--on-threshold continue)" : "stopping now");
	if (!c->fw.on_thr.cont)
		return true;
	if (c->run.pw)
		pdwrite_checkpoint(c->run.pw, true);
	run_actions(c, &c->fw.on_thr, "threshold");
	return false;
}

void hist_on_threshold(struct hctx *c)
{
	if (c->fw.hit && !c->fw.on_thr.cont && c->fw.on_thr.n)
		run_actions(c, &c->fw.on_thr, "threshold");
}

void hist_on_end(struct hctx *c)
{
	if (c->fw.on_end.n)
		run_actions(c, &c->fw.on_end, "end");
}

static void row(FILE *f, const char *cls, const char *id, const char *who, uint64_t count, uint64_t ns,
		uint64_t total)
{
	uint64_t e2 = total ? (ns > UINT64_MAX / 10000 ? ns / (total / 10000 + 1) : ns * 10000 / total) : 0;
	char cnt[24] = "";
	if (count)
		snprintf(cnt, sizeof(cnt), "%" PRIu64 "x", count);
	fprintf(f, "  %-8s %6s %-28.28s %5s %12" PRIu64 " ns %3" PRIu64 ".%02" PRIu64 " %%\n", cls, id,
		who, cnt, ns, e2 / 100, e2 % 100);
}

void hist_print_auto(const struct hctx *c, FILE *f)
{
	if (!c->fw.have_auto)
		return;
	if (!c->fw.an_valid) {
		fprintf(f, "latscope hist auto-analysis: no sample above %" PRIu64 " us\n",
			c->o.threshold_ns / 1000);
		return;
	}
	const struct latency_sample *s = &c->fw.an_sample;
	const struct latauto_result *r = &c->fw.an_res;
	const struct hset_max *m = hset_max(c->run.set, s->type, s->cpu);
	bool named = m->valid && m->latency_ns == s->latency_ns;	/* its record has the comms */
	fprintf(f, "latscope hist auto-analysis: %s latency of %" PRId64 " ns (%" PRId64 ".%03" PRId64
		" us > %" PRIu64 " us) on cpu %u, completed at %" PRIu64 ".%09" PRIu64 "\n",
		hset_kind_name(s->type), s->latency_ns, s->latency_ns / 1000, s->latency_ns % 1000,
		c->o.threshold_ns / 1000, s->cpu, s->time_ns / (uint64_t)1000000000, s->time_ns % (uint64_t)1000000000);
	if (s->pid >= 0)
		fprintf(f, "  victim: %s (pid %d, prio %d)\n", named ? m->comm : "?", s->pid, s->prio);
	if (s->culprit_pid >= 0)
		fprintf(f, "  culprit (the task it had to wait for): %s (pid %d, prio %d)\n",
			named && m->has_culprit ? m->culprit_comm : "?", s->culprit_pid, s->culprit_prio);
	if (s->type == HSET_TIMERANDWAKEUP || s->type == HSET_MISSED_TIMER) {
		int64_t wake = s->latency_ns - s->timer_offset_ns;
		fprintf(f, "  timer offset part %" PRId64 " ns, wakeup part %" PRId64 " ns\n",
			s->timer_offset_ns, s->type == HSET_TIMERANDWAKEUP ? wake : 0);
	}
	uint64_t total = r->to_ns - r->from_ns;
	fprintf(f, "  who had cpu %u during the %" PRIu64 " ns:\n", r->cpu, total);
	fprintf(f, "  %-8s %6s %-28s %5s %15s %8s\n", "class", "id", "who", "turns", "time", "share");
	for (size_t i = 0; i < r->nr_parts; i++) {
		const struct latauto_part *p = &r->parts[i];
		char id[16], who[64];
		snprintf(id, sizeof(id), "%d", p->id);
		if (p->cls == LATAUTO_TASK)
			snprintf(who, sizeof(who), "%s (pid %d)", p->name, p->id);
		else if (p->cls == LATAUTO_UNKNOWN)
			snprintf(id, sizeof(id), "-"), snprintf(who, sizeof(who), "%s", p->name);
		else
			snprintf(who, sizeof(who), "%s", p->name);
		row(f, latauto_cls_name(p->cls), id, who, p->count, p->ns, total);
	}
	if (r->other_ns)
		row(f, "other", "-", "parts not listed", 0, r->other_ns, total);
	row(f, "total", "-", "the latency", 0, total, total);
	if (!c->in.has[TPEVENT_IRQ_ENTRY])
		fprintf(f, "  (no irq tracepoints: IRQ time counts as the task's)\n");
}

int hist_deadline_refused(struct hctx *c)
{
	for (unsigned i = 0; i < timerwl_nr_threads(c->run.twl); i++) {
		struct timerwl_thread_info info;
		struct lhist h;
		if (lhist_init(&h, &c->o.lcfg.hist) < 0)
			return 0;
		/* the thread sets its policy first: wait for its tid */
		for (int k = 0; k < 200; k++) {
			timerwl_snapshot(c->run.twl, i, &info, &h);
			if (info.tid)
				break;
			tool_sleep_ms(5);
		}
		lhist_fini(&h);
		if (info.tid && !info.deadline) {
			fprintf(stderr, "%s: -P d:: the timer thread on CPU %u is not SCHED_DEADLINE: %s "
					"(the kernel admits a deadline thread pinned to one CPU only when that "
					"CPU is an exclusive cpuset partition of its own, cgroup v2 "
					"cpuset.cpus.partition; or the bandwidth is used up)\n", c->prog, info.cpu,
				strerror(info.sched_err ? info.sched_err : EPERM));
			return -1;
		}
	}
	return 0;
}
