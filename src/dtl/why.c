/* SPDX-License-Identifier: MIT */
/*
 * why.c - `latscope dtl why`: the worst wakeup latencies of a recording
 * that holds the DTL and the scheduler's events, each split into who had
 * its CPU meanwhile, the hypervisor included (lib/engine/latauto over
 * lib/engine/cause, the DTL entries as the hypervisor's spans).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "dtl_cmd.h"
#include "jsonout.h"
#include "base/jsonnum.h"
#include "engine/cause.h"
#include "engine/latauto.h"
#include "engine/latency.h"
#include "format/dtl.h"
#include "format/ksym.h"
#include "format/tpevent.h"
#include "report/report.h"

#define WHY_PROG "latscope dtl why"
#define WHY_MAX_CPUS 4096

struct why {
	struct dtl_cmd_in in;		/* first: DTL_CMD_INPUT, DTL_CMD_READ_OPTS */
	bool json, force;
	const char *json_file;
	struct cli_renders renders;	/* --html FILE, --render FORMAT=FILE */
	uint64_t top, threshold_us;
};
_Static_assert(offsetof(struct why, in) == 0, "struct dtl_cmd_in first");

/* One of the worst samples, decomposed when it was filed. */
struct worst {
	enum hset_kind kind;
	uint32_t cpu;
	int32_t pid;
	char comm[TPEVENT_COMM_LEN + 1];
	uint64_t latency_ns, from_ns, to_ns;
	struct latauto_result r;
};

struct whyrun {
	struct why *o;
	struct ksym *syms;
	struct tpdecode *d;
	struct tpdecode_losses loss;
	struct latency *lat;
	struct latauto *an;
	uint32_t nr_cpus;
	struct worst *best;		/* o->top, largest latency first */
	size_t nbest;
	uint64_t samples, above;	/* samples filed; at or above -T */
	uint64_t kind_samples[HSET_NR_KINDS];
	uint64_t entries, bad_cpu_entries, bad_spans;	/* DTL entries fed; beyond nr_cpus; no tb_freq */
	uint64_t events, bad_cpu_events;
	uint8_t aux_seen[WHY_MAX_CPUS];	/* CPUs whose first DTL poll was seen */
	uint64_t ring_full;		/* polls that copied a full hypervisor ring: entries lost */
};

static const struct cli_opt why_opts[] = {
	DTL_CMD_INPUT,
	CLI_JSON(struct why, json, json_file),
	CLI_FORCE(struct why, force),
	CLI_RENDERS(struct why, renders),
	CLI_OPT("top", 'n', CLI_T_U64, struct why, top, CLI_NONE, 1, 1000, 0, "N",
		"the worst N samples (default 5)", NULL),
	CLI_THRESHOLD_US(struct why, threshold_us, 0, 0, "only samples at or above US (default: all)"),
	DTL_CMD_READ_OPTS("symbols for srr0 (where the hypervisor took the\n"
			  "vCPU) from this kallsyms file (default: /proc/kallsyms\n"
			  "when the recording's osrelease and arch are this\nmachine's)"),
	CLI_END
};

const struct cli_cmd dtl_why_cli = {
	.name = WHY_PROG,
	.usage = "usage: latscope dtl why [options] FILE",
	.intro =
"The worst latencies of a recording that holds the DTL with the scheduler's\n"
"sched_switch and sched_wakeup (dtl record, or perf record with vpa_dtl): wakeup\n"
"latencies, and with timer:hrtimer_* the timer kinds, with preemptirq events the\n"
"irqsoff kinds (as hist report files them); each split into who had its CPU over\n"
"the sample (for a wakeup, from the wakeup to the switch-in):\n"
"the hypervisor (each DTL entry's enqueue_to_dispatch + ready_to_enqueue before\n"
"its dispatch: the vCPU ready and not running, with the preempt and dispatch\n"
"reasons and srr0), each task, IRQ, softirq and vector (irq and softirq events\n"
"when recorded), and the time before the events kept.  The parts add up to the\n"
"latency.  Every task is measured, whatever its priority.\n",
	.opts = why_opts,
	.outro =
"A vCPU whose DTL entries the recording lost (the hypervisor's 85-entry ring\n"
"between polls, the AUX buffer's wrap) shows no hypervisor time there: the\n"
"losses are named.\n",
	.operands = true,
};

static int no_wakeups(const struct whyrun *w)
{
	fprintf(stderr, "%s: %s has no sched_wakeup or sched_waking samples: no wakeup latency to split "
			"(record them with the DTL: dtl record -e sched:sched_switch -e sched:sched_wakeup)\n",
		WHY_PROG, w->o->in.path);
	return -1;
}

/* A filed sample: decomposed now, while its events are in the rings, when
 * it is among the worst so far. */
static void observe(void *arg, const struct latency_sample *s)
{
	struct whyrun *w = arg;
	if (s->type < 0 || s->type >= HSET_NR_KINDS)
		return;
	w->samples++;
	w->kind_samples[s->type]++;
	if (s->latency_ns < 0 || (uint64_t)s->latency_ns < w->o->threshold_us * 1000)
		return;
	w->above++;
	uint64_t lat = (uint64_t)s->latency_ns;
	if (w->nbest == w->o->top && lat <= w->best[w->nbest - 1].latency_ns)
		return;
	size_t at = w->nbest < w->o->top ? w->nbest++ : w->nbest - 1;
	while (at > 0 && w->best[at - 1].latency_ns < lat) {
		w->best[at] = w->best[at - 1];
		at--;
	}
	struct worst *b = &w->best[at];
	b->kind = s->type;
	b->cpu = s->cpu;
	b->pid = s->pid;
	snprintf(b->comm, sizeof(b->comm), "%s", s->comm ? s->comm : "");
	b->latency_ns = lat;
	b->to_ns = s->time_ns;
	b->from_ns = s->time_ns >= lat ? s->time_ns - lat : 0;
	if (latauto_window(w->an, s->cpu, b->from_ns, b->to_ns, &b->r) < 0)
		memset(&b->r, 0, sizeof(b->r));
}

/* What the run needs before the first item: the worst list, the analyser
 * (the DTL entries may come first).  0, or -1 after a line. */
static int setup(struct whyrun *w, struct pdread *r)
{
	const struct pdread_info *in = pdread_info(r);
	uint32_t n = in->nr_cpus_avail ? in->nr_cpus_avail : in->nr_cpus_online;
	/* (a pipe has no header: room for 1024, each CPU's memory made when it
	 * first has an event) */
	w->nr_cpus = n && n <= WHY_MAX_CPUS && !in->pipe ? n : 1024;
	w->best = calloc(w->o->top, sizeof(*w->best));
	if (!w->best || latauto_new(&w->an, w->nr_cpus) < 0) {
		fprintf(stderr, "%s: out of memory\n", WHY_PROG);
		return -1;
	}
	return 0;
}

/* At the first tracepoint sample (a pipe's formats and events come in the
 * stream): the decoder and the trackers.  0, or -1 after a line. */
static int setup_events(struct whyrun *w, struct pdread *r)
{
	bool has_wakeup = false, has_waking = false;
	struct tep_handle *tep = pdread_tep(r);
	if (!tep || !(w->d = tpdecode_new(tep))) {
		fprintf(stderr, "%s: %s: no tracing data (the events' formats): record sched:sched_switch and "
				"sched:sched_wakeup with the DTL\n", WHY_PROG, w->o->in.path);
		return -1;
	}
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		if (e->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		enum tpevent_kind k = tpdecode_kind(w->d, (int)e->attr.config);
		has_wakeup |= k == TPEVENT_SCHED_WAKEUP || k == TPEVENT_SCHED_WAKEUP_NEW;
		has_waking |= k == TPEVENT_SCHED_WAKING;
	}
	if (!has_wakeup && !has_waking)
		return no_wakeups(w);
	struct latency_cfg cfg;
	latency_cfg_default(&cfg, w->nr_cpus);
	cfg.all_tasks = true;
	cfg.start_on_waking = has_waking && !has_wakeup;
	if (latency_new(&w->lat, &cfg) < 0) {
		fprintf(stderr, "%s: out of memory\n", WHY_PROG);
		return -1;
	}
	latency_set_observer(w->lat, observe, w);
	return 0;
}

/* A DTL entry: the hypervisor's span on its vCPU. */
static void feed_entry(struct whyrun *w, const struct dtlmerge_item *e)
{
	struct cause_span s;
	w->entries++;
	if (e->cpu >= w->nr_cpus) {
		w->bad_cpu_entries++;
		return;
	}
	if (cause_span_from_dtl(e->cpu, e->time_ns, &e->e, e->tbi.tb_freq, &s) < 0) {
		w->bad_spans++;
		return;
	}
	latauto_hv(w->an, &s);
}

/* A record: a tracepoint sample into the analyser's rings, then the
 * trackers (which may file a sample: observe()).  0, or -1 after a line. */
static int feed_record(struct whyrun *w, struct pdread *r, const struct pdread_event *ev)
{
	/* a poll that copied all the ring lets through: the hypervisor
	 * overwrote entries before it (silently, as on Power) */
	w->ring_full += dtl_cmd_poll_filled_ring(r, ev, w->aux_seen);
	if (ev->type != PDFORMAT_RECORD_SAMPLE || !ev->evsel || !ev->has_sample ||
	    ev->evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT)
		return 0;
	if (!w->d && setup_events(w, r) < 0)
		return -1;
	struct tpevent t;
	if (tpdecode_decode_sample(w->d, ev, &t, &w->loss) < 0)
		return 0;
	w->events++;
	if (t.cpu >= w->nr_cpus) {
		w->bad_cpu_events++;
		return 0;
	}
	if (latauto_event(w->an, &t) < 0) {
		fprintf(stderr, "%s: out of memory\n", WHY_PROG);
		return -1;
	}
	latency_feed(w->lat, &t);
	return 0;
}

/* ---- the outputs -------------------------------------------------------------------- */

static const char *kind_name(enum hset_kind k)
{
	return hset_kind_name(k) ? hset_kind_name(k) : "?";
}

static json_object *ju(uint64_t v)
{
	return jsonnum_u64(v);
}

static json_object *hv_json(const struct whyrun *w, const struct latauto_result *r)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < r->nr_hv; i++) {
		const struct cause_hv_span *h = &r->hv[i];
		json_object *o = json_object_new_object();
		char buf[32], sym[160];
		json_object_object_add(o, "start_ns", ju(h->start_ns));
		json_object_object_add(o, "end_ns", ju(h->end_ns));
		json_object_object_add(o, "ns", ju(h->ns));
		json_object_object_add(o, "preempt_reason",
				       json_object_new_string(dtl_preempt_reason_str(h->hv.preempt_reason, buf)));
		json_object_object_add(o, "dispatch_reason",
				       json_object_new_string(dtl_dispatch_reason_str(h->hv.dispatch_reason, buf)));
		snprintf(buf, sizeof(buf), "0x%" PRIx64, h->hv.srr0);
		json_object_object_add(o, "srr0", json_object_new_string(buf));
		dtl_cmd_sym(w->syms, h->hv.srr0, sym, sizeof(sym), false);
		json_object_object_add(o, "symbol", json_object_new_string(sym));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *sample_json(const struct whyrun *w, const struct worst *b)
{
	json_object *o = json_object_new_object(), *parts = json_object_new_array();
	const struct latauto_result *r = &b->r;
	json_object_object_add(o, "kind", json_object_new_string(kind_name(b->kind)));
	json_object_object_add(o, "cpu", ju(b->cpu));
	json_object_object_add(o, "pid", json_object_new_int64(b->pid));
	json_object_object_add(o, "comm", json_object_new_string(b->comm));
	json_object_object_add(o, "latency_ns", ju(b->latency_ns));
	json_object_object_add(o, "from_ns", ju(b->from_ns));
	json_object_object_add(o, "to_ns", ju(b->to_ns));
	json_object_object_add(o, "hypervisor_ns", ju(r->hv_ns));
	json_object_object_add(o, "dtl", json_object_new_boolean(r->hv_source == CAUSE_HV_DTL));
	uint64_t sum = r->other_ns;
	for (size_t i = 0; i < r->nr_parts; i++) {
		const struct latauto_part *p = &r->parts[i];
		json_object *q = json_object_new_object();
		json_object_object_add(q, "class", json_object_new_string(latauto_cls_name(p->cls)));
		json_object_object_add(q, "id", json_object_new_int64(p->id));
		json_object_object_add(q, "name", json_object_new_string(p->name));
		json_object_object_add(q, "count", ju(p->count));
		json_object_object_add(q, "ns", ju(p->ns));
		json_object_array_add(parts, q);
		sum += p->ns;
	}
	json_object_object_add(o, "parts", parts);
	json_object_object_add(o, "other_ns", ju(r->other_ns));
	json_object_object_add(o, "sum_ns", ju(sum));
	json_object_object_add(o, "events_short", json_object_new_boolean(r->ring_short));
	json_object_object_add(o, "hypervisor_short", json_object_new_boolean(r->hv_short));
	json_object_object_add(o, "hypervisor", hv_json(w, r));
	json_object_object_add(o, "hypervisor_more", ju(r->hv_more));
	return o;
}

static json_object *why_doc(const struct whyrun *w, const struct pdread *r, const struct dtltl *t)
{
	json_object *d = jsonout_new(REPORT_DTL_WHY), *a = json_object_new_array();
	if (!d)
		return NULL;
	json_object_object_add(d, "file", json_object_new_string(w->o->in.path));
	json_object_object_add(d, "threshold_ns", ju(w->o->threshold_us * 1000));
	json_object_object_add(d, "samples", ju(w->samples));
	json_object *ks = json_object_new_object();
	for (int k = 0; k < HSET_NR_KINDS; k++)
		if (w->kind_samples[k])
			json_object_object_add(ks, kind_name((enum hset_kind)k), ju(w->kind_samples[k]));
	json_object_object_add(d, "kinds", ks);
	json_object_object_add(d, "above", ju(w->above));
	for (size_t i = 0; i < w->nbest; i++)
		json_object_array_add(a, sample_json(w, &w->best[i]));
	json_object_object_add(d, "worst", a);
	const struct dtlmerge_stats *ms = dtlmerge_stats(dtltl_merge(t));
	const struct pdread_stats *rs = pdread_stats(r);
	json_object *in = json_object_new_object();
	uint64_t gaps = 0;
	for (int k = 0; k < DTLMERGE_GAP_NR_KINDS; k++)
		if (k != DTLMERGE_GAP_TB_BACKWARDS)
			gaps += ms->gaps[k];
	json_object_object_add(in, "dtl_entries", ju(w->entries));
	json_object_object_add(in, "dtl_gaps", ju(gaps));
	json_object_object_add(in, "ring_full", ju(w->ring_full));
	json_object_object_add(in, "late_entries", ju(ms->late));
	json_object_object_add(in, "bad_cpu", ju(w->bad_cpu_entries + w->bad_cpu_events));
	json_object_object_add(in, "events", ju(w->events));
	json_object_object_add(in, "lost_events", ju(rs->lost_events + rs->lost_samples));
	json_object_object_add(in, "undecoded", ju(w->loss.unknown + w->loss.no_raw + w->loss.bad_raw));
	json_object_object_add(d, "input", in);
	return d;
}

static void text_sample(const struct whyrun *w, size_t i, const struct worst *b)
{
	const struct latauto_result *r = &b->r;
	char a[32], c[32];
	char victim[48] = "";
	if (b->pid >= 0)
		snprintf(victim, sizeof(victim), " of pid %" PRId32 " (%s)", b->pid, b->comm);
	printf("#%zu CPU %" PRIu32 "  %s latency %s%s, from %" PRIu64 ".%09" PRIu64 " s\n", i + 1, b->cpu,
	       kind_name(b->kind), report_dur(a, sizeof(a), b->latency_ns), victim,
	       b->from_ns / (uint64_t)1000000000, b->from_ns % (uint64_t)1000000000);
	uint64_t sum = r->other_ns;
	for (size_t k = 0; k < r->nr_parts; k++) {
		const struct latauto_part *p = &r->parts[k];
		char who[64];
		if (p->cls == LATAUTO_UNKNOWN || p->cls == LATAUTO_HV)
			snprintf(who, sizeof(who), "%s", p->name);
		else
			snprintf(who, sizeof(who), "%" PRId32 " %s", p->id, p->name);
		printf("   %-10s %-28s %5" PRIu64 " x %11s %6.2f %%\n", latauto_cls_name(p->cls), who, p->count,
		       report_dur(c, sizeof(c), p->ns), b->latency_ns ? 100.0 * (double)p->ns / (double)b->latency_ns : 0);
		sum += p->ns;
	}
	if (r->other_ns)
		printf("   %-10s %-28s         %11s\n", "other", "", report_dur(c, sizeof(c), r->other_ns));
	printf("   %-10s %-28s         %11s%s\n", "sum", "", report_dur(c, sizeof(c), sum),
	       sum == b->latency_ns ? " (the parts add up to the latency)" : "");
	for (size_t k = 0; k < r->nr_hv; k++) {
		const struct cause_hv_span *h = &r->hv[k];
		char pr[32], dr[32], sym[160];
		dtl_cmd_sym(w->syms, h->hv.srr0, sym, sizeof(sym), false);
		printf("   hypervisor: %s of it, preempted (%s) at srr0 0x%" PRIx64 "%s%s, dispatched (%s)\n",
		       report_dur(c, sizeof(c), h->ns), dtl_preempt_reason_str(h->hv.preempt_reason, pr), h->hv.srr0,
		       sym[0] ? " " : "", sym, dtl_dispatch_reason_str(h->hv.dispatch_reason, dr));
	}
	if (r->hv_more)
		printf("   hypervisor: %zu spans more\n", r->hv_more);
	if (r->hv_source != CAUSE_HV_DTL)	/* (the document's "dtl") */
		printf("   (no DTL entry of CPU %" PRIu32 " up to this sample: its hypervisor time is unknown)\n",
		       b->cpu);
	if (r->ring_short)
		printf("   (the events kept start after the wakeup: the earliest part is unknown)\n");
	if (r->hv_short)
		printf("   (the hypervisor's spans kept start after the wakeup: its time here is at least the above)\n");
}

static void why_text(const struct whyrun *w, const struct json_object *doc)
{
	(void)doc;
	char a[32];
	printf("%s: %s: %" PRIu64 " samples, %" PRIu64 " at or above %s; %" PRIu64
	       " DTL entries as the hypervisor's spans\n",
	       WHY_PROG, w->o->in.path, w->samples, w->above, report_dur(a, sizeof(a), w->o->threshold_us * 1000),
	       w->entries);
	for (size_t i = 0; i < w->nbest; i++) {
		printf("\n");
		text_sample(w, i, &w->best[i]);
	}
}

static int why_emit(struct whyrun *w, const struct pdread *r, const struct dtltl *t)
{
	json_object *doc = why_doc(w, r, t);
	if (!doc) {
		fprintf(stderr, "%s: out of memory\n", WHY_PROG);
		return EXIT_ERR;
	}
	int rc = 0;
	if (!w->o->json)
		why_text(w, doc);
	if (w->o->json || w->o->json_file)
		rc = jsonout_write(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED,
				   w->o->json ? NULL : w->o->json_file, w->o->force, WHY_PROG);
	if (!rc && w->o->renders.nr)
		rc = jsonout_render(doc, &w->o->renders, w->o->force, WHY_PROG);
	json_object_put(doc);
	return rc ? EXIT_ERR : 0;
}

int dtl_cmd_why(int argc, char **argv)
{
	struct why o = { .top = 5 };
	struct whyrun w = { .o = &o };
	struct pdread *r = NULL;
	struct dtltl *t = NULL;
	struct dtltl_item it;
	int first, rc, ret = EXIT_ERR;

	if ((rc = dtl_cmd_parse(&dtl_why_cli, argc, argv, &o, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_why_cli, &o.in, argc, argv, first))
		return EXIT_ERR;
	if (dtl_cmd_open(&r, o.in.path, false, false, WHY_PROG))
		return EXIT_ERR;
	if (dtl_cmd_syms(&w.syms, r, o.in.kallsyms, o.in.no_symbols, WHY_PROG) || setup(&w, r) < 0)
		goto out;
	if ((rc = dtltl_new(&t, r, &o.in.to)) < 0)
		goto read_err;
	while ((rc = dtltl_next(t, &it)) > 0) {
		if (it.kind == DTLTL_ENTRY)
			feed_entry(&w, &it.entry);
		else if (feed_record(&w, r, it.ev) < 0)
			goto out;
	}
	if (rc < 0) {
read_err:
		fprintf(stderr, "%s: %s: %s\n", WHY_PROG, o.in.path,
			*pdread_strerror(r) ? pdread_strerror(r) : strerror(-rc));
		goto out;
	}
	if (!w.lat) {
		if (!w.d)
			fprintf(stderr, "%s: %s has no tracepoint samples: record sched:sched_switch and "
					"sched:sched_wakeup with the DTL\n", WHY_PROG, o.in.path);
		else
			no_wakeups(&w);
		goto out;
	}
	dtl_cmd_tb_warnings(WHY_PROG, o.in.path, t);
	if (!w.entries)
		fprintf(stderr, "%s: %s holds no DTL entries: no hypervisor time can be named\n", WHY_PROG,
			o.in.path);
	if (w.ring_full)
		fprintf(stderr, "%s: %" PRIu64 " polls copied a full hypervisor ring (85 entries): the hypervisor "
				"overwrote entries before them, and a preemption of a lost entry shows no "
				"hypervisor time (a shorter vpa_dtl period keeps them)\n", WHY_PROG, w.ring_full);
	ret = why_emit(&w, r, t);
	if (!ret && o.in.strict)
		ret = dtl_cmd_verdict(WHY_PROG, t, r);
out:
	dtltl_free(t);
	latauto_free(w.an);
	latency_free(w.lat);
	tpdecode_free(w.d);
	ksym_free(w.syms);
	free(w.best);
	cmdio_pdr_close(r, WHY_PROG, o.in.path);
	return ret;
}
