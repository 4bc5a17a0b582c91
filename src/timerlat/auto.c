/* SPDX-License-Identifier: MIT */
/*
 * auto.c - `latscope timerlat -a US`: the analyser (lib/engine/tlatauto.h)
 * fed with the window's IRQ samples and the osnoise events the tracer
 * writes while an activation is under way; at the stop, the sample split
 * into parts that add up to it, as the document's "auto" object and as
 * text drawn from it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "engine/osneng.h"
#include "engine/tlatauto.h"
#include "live/osnkernel.h"
#include "report/report.h"
#include "timerlat.h"

int timerlat_auto_setup(struct tl *c, uint32_t nr_cpus)
{
	if (!c->opt.auto_us || c->run.aa)
		return 0;
	int err = tlatauto_new(&c->run.aa, nr_cpus > 4096 ? 4096 : nr_cpus);
	if (err < 0) {
		fprintf(stderr, "%s: -a: %s\n", c->prog, strerror(-err));
		return -1;
	}
	return 0;
}

void timerlat_auto_rec(struct tl *c, const struct osnkernel_rec *r)
{
	struct noise_win w;
	if (r->kind == OSNKERNEL_TIMERLAT && r->context == OSNKERNEL_TLAT_IRQ)
		tlatauto_irq_sample(c->run.aa, r->cpu, r->seq, r->latency_ns, r->ts_ns, r->pid, r->comm);
	else if (osneng_kernel_win(r, &w))
		tlatauto_win(c->run.aa, &w);
}

static json_object *ju(uint64_t v)
{
	return jsonnum_u64(v);
}

static json_object *after_json(const struct noiseauto_result *a)
{
	json_object *o = json_object_new_object(), *parts = json_object_new_array();
	json_object_object_add(o, "duration_ns", ju(a->duration_ns));
	for (size_t i = 0; i < a->nr_parts; i++) {
		const struct noiseauto_part *p = &a->parts[i];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "class", json_object_new_string(noise_class_name(p->cls)));
		json_object_object_add(e, "name", json_object_new_string(p->name));
		json_object_object_add(e, "id", json_object_new_int64(p->id));
		json_object_object_add(e, "count", ju(p->count));
		json_object_object_add(e, "net_ns", ju(p->net_ns));
		json_object_array_add(parts, e);
	}
	json_object_object_add(o, "parts", parts);
	json_object_object_add(o, "other_ns", ju(a->other_ns));
	json_object_object_add(o, "other_count", ju(a->other_count));
	json_object_object_add(o, "unexplained_ns", ju(a->hw_ns));
	json_object_object_add(o, "excess_ns", ju(a->excess_ns));
	json_object_object_add(o, "ring_short", json_object_new_boolean(a->ring_short));
	return o;
}

/* The sum of the parts (it equals latency_ns: the test of the analysis). */
static uint64_t parts_sum(const struct tlatauto_result *r)
{
	uint64_t s = r->handler_delay_ns + r->irq_ns;
	if (r->ctx == 0)
		return s;
	s += r->timer_irq_rest_ns;
	for (size_t i = 0; i < r->after.nr_parts; i++)
		s += r->after.parts[i].net_ns;
	return s + r->after.other_ns + r->after.hw_ns - r->after.excess_ns;
}

json_object *timerlat_auto_json(const struct tl *c)
{
	const struct tlat_stop *st = &c->run.t.stop;
	if (!c->run.aa || !st->hit)
		return NULL;
	struct tlatauto_result r;
	int err = tlatauto_explain(c->run.aa, st->cpu, st->ctx, st->sample.seq, st->sample.lat_ns, &r);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "cpu", ju(r.cpu));
	json_object_object_add(o, "context", json_object_new_string(tlat_ctx_name(r.ctx)));
	json_object_object_add(o, "seq", ju(r.seq));
	json_object_object_add(o, "latency_ns", ju(r.latency_ns));
	json_object_object_add(o, "irq_sample_seen", json_object_new_boolean(!err));
	if (err) {	/* the IRQ sample of that activation was not read */
		json_object_object_add(o, "sum_ns", NULL);
		return o;
	}
	json_object_object_add(o, "irq_latency_ns", ju(r.irq_latency_ns));
	json_object_object_add(o, "timer_irq_seen", json_object_new_boolean(r.timer_irq_seen));
	json_object_object_add(o, "handler_delay_ns", ju(r.handler_delay_ns));
	json_object_object_add(o, "from_idle", json_object_new_boolean(r.from_idle));
	json_object_object_add(o, "irq_ns", ju(r.irq_ns));
	json_object_object_add(o, "timer_irq_rest_ns", ju(r.timer_irq_rest_ns));
	json_object *b = NULL;
	if (r.blocking_pid >= 0) {
		b = json_object_new_object();
		json_object_object_add(b, "pid", json_object_new_int64(r.blocking_pid));
		json_object_object_add(b, "comm", json_object_new_string(r.blocking_comm));
		json_object_object_add(b, "net_ns", ju(r.blocking_ns));
	}
	json_object_object_add(o, "interrupted", b);
	json_object_object_add(o, "after_irq", r.ctx ? after_json(&r.after) : NULL);
	json_object_object_add(o, "sum_ns", ju(parts_sum(&r)));
	return o;
}

/* ---- the text, from the document ------------------------------------------------ */

static void line(FILE *f, const char *what, uint64_t ns, uint64_t total, const char *note)
{
	fprintf(f, "  %-36s %12.2f us %6.2f %%%s%s\n", what, (double)ns / 1000.0,
		total ? (double)ns * 100.0 / (double)total : 0.0, note ? "  " : "", note ? note : "");
}

void timerlat_text_auto(FILE *f, json_object *doc)
{
	json_object *a = report_get(doc, "auto");
	if (!a)
		return;
	uint64_t total = report_u64(a, "latency_ns");
	fprintf(f, "auto-analysis: CPU%" PRIu64 " %s latency %.2f us, activation #%" PRIu64 "\n",
		report_u64(a, "cpu"), report_str(a, "context"), (double)total / 1000.0, report_u64(a, "seq"));
	if (!report_has(a, "sum_ns")) {
		fputs("  (the activation's IRQ sample was not read: no split)\n", f);
		return;
	}
	json_object *in = report_get(a, "interrupted");
	bool idle = report_get(a, "from_idle") && json_object_get_boolean(report_get(a, "from_idle"));
	line(f, "timer expiry to its IRQ handler", report_u64(a, "handler_delay_ns"), total,
	     idle ? "(exit from idle)" : report_get(a, "timer_irq_seen") &&
		   !json_object_get_boolean(report_get(a, "timer_irq_seen")) ? "(the timer's IRQ event not seen)" : NULL);
	line(f, "IRQ handler to the IRQ sample", report_u64(a, "irq_ns"), total, NULL);
	json_object *af = report_get(a, "after_irq");
	if (af) {
		fprintf(f, "  after the IRQ sample (%.2f us), net:\n", (double)report_u64(af, "duration_ns") / 1000.0);
		line(f, "  the timer's IRQ, the rest of it", report_u64(a, "timer_irq_rest_ns"), total, NULL);
		json_object *parts = report_get(af, "parts");
		for (size_t i = 0; i < report_len(parts); i++) {
			json_object *p = report_idx(parts, i);
			char what[96];
			snprintf(what, sizeof(what), "  %s %s:%" PRId64 " (x%" PRIu64 ")", report_str(p, "class"),
				 report_str(p, "name"), report_i64(p, "id"), report_u64(p, "count"));
			bool blocking = in && !strcmp(report_str(p, "class"), "thread") &&
					report_i64(p, "id") == report_i64(in, "pid");
			line(f, what, report_u64(p, "net_ns"), total, blocking ? "(blocking thread)" : NULL);
		}
		if (report_u64(af, "other_ns"))
			line(f, "  other sources", report_u64(af, "other_ns"), total, NULL);
		line(f, "  unexplained (scheduling, hypervisor)", report_u64(af, "unexplained_ns"), total, NULL);
		if (report_u64(af, "excess_ns"))
			fprintf(f, "  %-36s %12.2f us (the events' time beyond the interval)\n", "  less overlap",
				(double)report_u64(af, "excess_ns") / 1000.0);
	}
	fprintf(f, "  %-36s %12.2f us (the parts add up to the latency)\n", "sum", (double)report_u64(a, "sum_ns") / 1000.0);
	if (in)
		fprintf(f, "  the IRQ interrupted %s (pid %" PRId64 ")\n", report_str(in, "comm"), report_i64(in, "pid"));
}
