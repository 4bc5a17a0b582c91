/* SPDX-License-Identifier: MIT */
/*
 * fieldwork.c - `latscope osnoise`'s field-work options, as rtla has them:
 * -a/--auto US (stop at a single gap above US, keep the trace, analyse that
 * gap: lib/engine/noiseauto.h), -t/--trace[=FILE] (the run's events in a
 * perf.data file), --on-threshold and --on-end ACTION (src/action.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "osnoise.h"

#define DEFAULT_TRACE "osnoise_trace.data"

int osnoise_fieldwork_settle(struct ctx *c)
{
	bool live = !c->opt.input && !c->opt.kernel_text;

	if (c->fw.have_auto && !c->opt.have_stop)
		c->opt.stop_us = c->fw.auto_us;
	if (c->fw.have_auto && live && c->mode != M_RECORD)
		c->fw.trace = c->fw.trace_asked = true;	/* a replay is its own trace */
	if (c->fw.on_thr.trace || c->fw.on_end.trace)
		c->fw.trace = true;
	if (c->fw.on_end.trace)
		c->fw.trace_asked = true;
	const char *f = c->fw.on_thr.trace_file ? c->fw.on_thr.trace_file : c->fw.on_end.trace_file;
	const char *g = c->fw.on_end.trace_file;
	if ((c->fw.trace_file && f && strcmp(c->fw.trace_file, f)) || (f && g && strcmp(f, g))) {
		fprintf(stderr, "%s: one trace file per run: -t '%s', trace,file='%s'\n", c->prog,
			c->fw.trace_file ? c->fw.trace_file : f, c->fw.trace_file ? f : g);
		return EXIT_ERR;
	}
	if (!c->fw.trace_file)
		c->fw.trace_file = f ? f : DEFAULT_TRACE;
	if (!live && (c->fw.trace || c->fw.on_thr.n || c->fw.on_end.n)) {
		fprintf(stderr, "%s: -t and --on-threshold/--on-end act on a live run; %s reads one "
				"measured already (-a alone analyses its stop)\n", c->prog,
			c->opt.input ? "-i" : "--parse-kernel");
		return EXIT_ERR;
	}
	if (c->mode == M_RECORD && c->fw.trace) {
		fprintf(stderr, "%s: record writes every event to -o already; -t, -a and the trace "
				"action are for top, hist and trace\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.on_thr.n && !c->opt.stop_us && !c->opt.stop_total_us) {
		fprintf(stderr, "%s: --on-threshold needs a threshold: -a US, -s US or -S US\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.on_thr.cont && c->opt.stop_total_us) {
		fprintf(stderr, "%s: --on-threshold continue goes on after single gaps (-s, -a); "
				"-S stops the run\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.on_thr.cont && c->fw.have_auto) {
		fprintf(stderr, "%s: -a stops at the gap it analyses; --on-threshold continue would "
				"go on (use -s US for that)\n", c->prog);
		return EXIT_ERR;
	}
	if (c->fw.have_auto && c->opt.no_workload) {
		fprintf(stderr, "%s: -a analyses a gap of the busy loop; --no-workload has none\n",
			c->prog);
		return EXIT_ERR;
	}
	return 0;
}

const char *osnoise_fieldwork_kernel_conflict(const struct ctx *c)
{
	if (c->fw.trace || c->fw.have_auto)
		return "keeps no perf.data trace and analyses no gap (-t, -a)";
	if (c->fw.on_thr.n || c->fw.on_end.n)
		return "runs no --on-threshold/--on-end actions";
	if (c->opt.dma_latency_us >= 0)
		return "does not hold /dev/cpu_dma_latency (--dma-latency)";
	return NULL;
}

static void run_actions(struct ctx *c, const struct action_list *l, const char *what,
			const struct osneng_stop *hit)
{
	struct action_event ev = {
		.what = what, .command = "osnoise", .cpu = hit && hit->why ? (int)hit->cpu : -1,
		.latency_ns = hit && hit->why ? hit->value_ns : 0,
		.threshold_ns = (hit && hit->why == OSNENG_STOP_TOTAL ? c->opt.stop_total_us : c->opt.stop_us) * 1000,
		.trace_file = c->fw.trace_kept ? c->fw.trace_file : NULL,
	};
	fflush(stdout);
	action_run(l, &ev, c->prog);
}

void osnoise_on_threshold(struct ctx *c)
{
	struct osneng_stop hit;
	if (!c->run.e || !c->fw.on_thr.n)
		return;
	if (osneng_stop(c->run.e)->why)
		hit = *osneng_stop(c->run.e);
	else if (!osneng_hits(c->run.e, &hit))
		return;
	run_actions(c, &c->fw.on_thr, "threshold", &hit);
}

void osnoise_on_end(struct ctx *c)
{
	struct osneng_stop hit = { 0 };
	if (!c->fw.on_end.n)
		return;
	if (c->run.e && osneng_stop(c->run.e)->why)
		hit = *osneng_stop(c->run.e);
	else if (c->run.e)
		osneng_hits(c->run.e, &hit);
	run_actions(c, &c->fw.on_end, "end", &hit);
}

static void row(FILE *f, const char *cls, const char *id, const char *who, uint64_t count, int64_t ns,
		uint64_t total)
{
	uint64_t abs_ns = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	uint64_t e2 = noiseauto_share_e2(abs_ns, total);
	char cnt[24] = "";
	if (count)
		snprintf(cnt, sizeof(cnt), "%" PRIu64 "x", count);
	fprintf(f, "  %-8s %6s %-28.28s %5s %12" PRId64 " ns %s%3" PRIu64 ".%02" PRIu64 " %%\n", cls, id,
		who, cnt, ns, ns < 0 ? "-" : " ", e2 / 100, e2 % 100);
}

void osnoise_print_auto(const struct ctx *c, FILE *f)
{
	if (!c->fw.have_auto || !c->run.e)
		return;
	const struct noiseauto_result *r = osneng_auto(c->run.e);
	if (!r) {
		fprintf(f, "latscope osnoise auto-analysis: no single gap above %" PRIu64 " us\n", c->opt.stop_us);
		return;
	}
	fprintf(f, "latscope osnoise auto-analysis: cpu %u: gap of %" PRIu64 " ns (%" PRIu64 ".%03" PRIu64
		" us > %" PRIu64 " us) from %" PRIu64 ".%09" PRIu64 "\n", r->cpu, r->duration_ns,
		r->duration_ns / 1000, r->duration_ns % 1000, c->opt.stop_us, r->start_ns / NS_PER_S,
		r->start_ns % NS_PER_S);
	fprintf(f, "  %-8s %6s %-28s %5s %15s %8s\n", "class", "id", "who", "count", "net time", "share");
	const struct noiseauto_part *longest = NULL;
	for (size_t i = 0; i < r->nr_parts; i++) {
		const struct noiseauto_part *p = &r->parts[i];
		char id[16], who[64];
		snprintf(id, sizeof(id), "%d", p->id);
		switch (p->cls) {
		case NOISE_THREAD:
			snprintf(who, sizeof(who), "%s (pid %d)", p->name, p->id);
			if (!longest)
				longest = p;
			break;
		case NOISE_NMI:
			snprintf(id, sizeof(id), "-");
			snprintf(who, sizeof(who), "NMI");
			break;
		default:
			snprintf(who, sizeof(who), "%s", p->name);
			break;
		}
		row(f, noise_class_name(p->cls), id, who, p->count, (int64_t)p->net_ns, r->duration_ns);
	}
	if (r->other_ns || r->other_count)
		row(f, "other", "-", "sources not listed", r->other_count, (int64_t)r->other_ns, r->duration_ns);
	row(f, "hw", "-", "no event (HW or hypervisor)", 0, (int64_t)r->hw_ns, r->duration_ns);
	if (r->excess_ns)
		row(f, "excess", "-", "events' time beyond the gap", 0, -(int64_t)r->excess_ns, r->duration_ns);
	row(f, "total", "-", "the gap", 0, (int64_t)r->duration_ns, r->duration_ns);
	if (longest)
		fprintf(f, "  the task that ran in the gap the longest: %s (pid %d), %" PRIu64 " ns\n",
			longest->name, longest->id, longest->net_ns);
	else if (!r->nr_parts)
		fprintf(f, "  no IRQ, softirq, NMI or thread ran in the gap: the hardware (in a VM: the "
			   "hypervisor) took the CPU\n");
	if (r->ring_short)
		fprintf(f, "  (more than %d entries since the gap's start: the oldest of them are not "
			   "listed, they count as hw)\n", NOISEAUTO_RING);
	if (!c->run.attribution)
		fprintf(f, "  (no attribution: %s; every gap is hw)\n", c->run.attr_why);
}
