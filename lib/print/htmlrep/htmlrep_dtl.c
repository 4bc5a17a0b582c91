/* SPDX-License-Identifier: MIT */
/* htmlrep_dtl.c - the page of a latscope.dtl-report/1 document. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htmlrep_int.h"

#define TW 1300		/* timeline width */
#define TL 86		/* its label column */
#define TR 16
#define PW (TW - TL - TR)
#define LANE_TASK 13
#define LANE_HV 28
#define LANE_WORST 18
#define LANE_GAP 10
#define BLOCK (LANE_TASK + LANE_HV + LANE_WORST + LANE_GAP)
#define TOP 64

#define C_PRE "#d62728"
#define C_DELAY "#ff9f1c"
#define C_CEDE "#9ecae1"
#define C_IDLE "#e9e9e9"

struct tl {
	uint64_t start_ns, bin_ns;
	size_t bins;
	struct json_object *tasks;
	uint64_t worst_max;
};

static double tx(const struct tl *t, double bin)
{
	return TL + bin / (double)t->bins * PW;
}

static double tx_ns(const struct tl *t, uint64_t ns)
{
	double b = ns < t->start_ns ? 0 : (double)(ns - t->start_ns) / (double)t->bin_ns;
	if (b > (double)t->bins)
		b = (double)t->bins;
	return tx(t, b);
}

static uint64_t at(struct json_object *c, const char *key, size_t i)
{
	return report_u64v(report_idx(report_get(c, key), i));
}

static int64_t task_at(struct json_object *c, size_t i)
{
	struct json_object *v = report_idx(report_get(c, "task"), i);
	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

/* The task lane: runs of one dominant task as one rectangle. */
static void lane_tasks(FILE *f, const struct tl *t, struct json_object *c, double y)
{
	size_t n = report_len(report_get(c, "task"));
	if (n > t->bins)
		n = t->bins;
	for (size_t i = 0; i < n;) {
		int64_t k = task_at(c, i);
		size_t j = i + 1;
		while (j < n && task_at(c, j) == k)
			j++;
		struct json_object *tk = k >= 0 ? report_idx(t->tasks, (size_t)k) : NULL;
		if (tk) {
			int64_t pid = report_i64(tk, "pid");
			const char *comm = report_str(tk, "comm");
			char col[8];
			double x0 = tx(t, (double)i), x1 = tx(t, (double)j);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
				"<title>", x0, y, x1 - x0, LANE_TASK - 1,
				pid == 0 ? C_IDLE : pid < 0 ? "#f6f6f6" : htmlrep_colour(col, comm));
			htmlrep_esc(f, pid == 0 ? "[idle]" : pid < 0 ? "[unknown]" : comm);
			if (pid > 0)
				fprintf(f, " (pid %" PRId64 ")", pid);
			fputs("</title></rect>", f);
			if (x1 - x0 > 8.0 * (double)strlen(comm) + 8 && pid > 0) {
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" pointer-events=\"none\">",
					x0 + 3, y + LANE_TASK - 3);
				htmlrep_esc(f, comm);
				fputs("</text>", f);
			}
			fputc('\n', f);
		}
		i = j;
	}
}

/* The hypervisor lane: per bin the share of the bin preempted, waiting for
 * the dispatch and ceded, stacked from the bottom, one path per class. */
static void lane_hv(FILE *f, const struct tl *t, struct json_object *c, double y)
{
	static const struct { const char *key, *colour; } cls[] = {
		{ "preempted_ns", C_PRE }, { "delay_ns", C_DELAY }, { "ceded_ns", C_CEDE },
	};
	size_t n = report_len(report_get(c, "preempted_ns"));
	if (n > t->bins)
		n = t->bins;
	double *base = calloc(n ? n : 1, sizeof(double));
	if (!base)
		return;
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#ccc\"/>\n",
		TL, y, PW, LANE_HV);
	for (size_t k = 0; k < sizeof(cls) / sizeof(cls[0]); k++) {
		fprintf(f, "<path fill=\"%s\" d=\"", cls[k].colour);
		for (size_t i = 0; i < n; i++) {
			double v = (double)at(c, cls[k].key, i) / (double)t->bin_ns;
			if (v > 1 - base[i])
				v = 1 - base[i];
			if (v <= 0)
				continue;
			double h = v * LANE_HV;
			if (h < 0.6)
				h = 0.6;	/* a sliver stays visible */
			double x0 = tx(t, (double)i), x1 = tx(t, (double)(i + 1));
			fprintf(f, "M%.1f %.1fh%.1fv%.1fh%.1fz", x0, y + LANE_HV - base[i] * LANE_HV - h, x1 - x0,
				h, x0 - x1);
			base[i] += v;
		}
		fputs("\"/>\n", f);
	}
	free(base);
}

/* The worst dispatch delay of each bin as a tick, log height from 1 us to
 * the largest, coloured by size. */
static void lane_worst(FILE *f, const struct tl *t, struct json_object *c, double y)
{
	static const struct { uint64_t below; const char *colour; } cls[] = {
		{ 100000, "#9a9a9a" }, { 1000000, "#ff7f0e" }, { UINT64_MAX, "#b00000" },
	};
	size_t n = report_len(report_get(c, "worst_delay_ns"));
	if (n > t->bins)
		n = t->bins;
	double top = log10((double)(t->worst_max > 10000 ? t->worst_max : 10000) / 1000.0);
	for (size_t k = 0; k < sizeof(cls) / sizeof(cls[0]); k++) {
		uint64_t lo = k ? cls[k - 1].below : 0;
		fprintf(f, "<path fill=\"%s\" d=\"", cls[k].colour);
		for (size_t i = 0; i < n; i++) {
			uint64_t w = at(c, "worst_delay_ns", i);
			if (!at(c, "entries", i) || w < lo || w >= cls[k].below)
				continue;
			double v = w > 1000 ? log10((double)w / 1000.0) / top : 0;
			double h = 2 + v * (LANE_WORST - 3);
			double x0 = tx(t, (double)i), x1 = tx(t, (double)(i + 1));
			double bw = x1 - x0 > 3 ? x1 - x0 - 1 : x1 - x0;
			fprintf(f, "M%.1f %.1fh%.1fv%.1fh%.1fz", x0, y + LANE_WORST - h, bw, h, -bw);
		}
		fputs("\"/>\n", f);
	}
}

static void time_axis(FILE *f, const struct tl *t, double y)
{
	uint64_t span = t->bin_ns * t->bins, step = 1;
	while (span / step > 12) {
		if (span / (step * 2) <= 12) {
			step *= 2;
			break;
		}
		if (span / (step * 5) <= 12) {
			step *= 5;
			break;
		}
		step *= 10;
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>\n", TL, y, TL + PW, y);
	for (uint64_t v = 0, k = 0; v <= span && k <= 20; v += step, k++) {
		double x = tx_ns(t, t->start_ns + v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-opacity=\"0.07\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.6g s</text>\n",
			x, y, x, y + 5, x, TOP - 6, x, y, x, y + 17, (double)v / 1e9);
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" fill=\"#444\">"
		"time since %.6f s (perf clock); one column = %.4g ms</text>\n", TL + PW / 2, y + 33,
		(double)t->start_ns / 1e9, (double)t->bin_ns / 1e6);
}

static void legend(FILE *f, int y)
{
	static const struct { const char *colour, *text; } it[] = {
		{ C_PRE, "preempted (taken while running)" },
		{ C_DELAY, "ready, waiting for a dispatch" },
		{ C_CEDE, "ceded / conferred (idle by choice)" },
		{ C_IDLE, "task lane: idle" },
		{ "#b00000", "worst delay of a column (tick, log height)" },
	};
	int x = TL;
	for (size_t i = 0; i < sizeof(it) / sizeof(it[0]); i++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\" stroke=\"#999\" "
			"stroke-width=\"0.5\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n",
			x, y, it[i].colour, x + 18, y + 10, it[i].text);
		x += 32 + (int)strlen(it[i].text) * 7;
	}
	fprintf(f, "<path d=\"M%d %dl6 10l6 -10z\" fill=\"#000\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">"
		"N: N-th worst delay</text>\n", x, y, x + 18, y + 10);
}

static void timeline(FILE *f, struct json_object *doc)
{
	struct json_object *v = report_get(doc, "vcpu_timeline"), *cpus = report_get(v, "cpus");
	struct tl t = { .start_ns = report_u64(v, "start_ns"), .bin_ns = report_u64(v, "bin_ns"),
			.bins = (size_t)report_u64(v, "bins"), .tasks = report_get(v, "tasks") };
	size_t ncpu = report_len(cpus), shown = ncpu < HTMLREP_MAX_LANES ? ncpu : HTMLREP_MAX_LANES;
	char d1[32];

	fputs("<h2>Timeline: who had each vCPU</h2>\n", f);
	if (!v || !t.bin_ns || !t.bins || !ncpu) {
		fputs("<p class=\"note\">No timeline in this document (made by a latscope without "
		      "<code>vcpu_timeline</code>, or no entry had a time).</p>\n", f);
		return;
	}
	fprintf(f, "<p class=\"note\">Per vCPU, three lanes over the recording, %zu columns of %s: the "
		"task the kernel ran longest in the column (from the sched_switch samples; empty without "
		"them); the share of the column the hypervisor had the vCPU; the worst dispatch delay "
		"(enqueue_to_dispatch + ready_to_enqueue) of an entry dispatched in the column.</p>\n",
		t.bins, report_dur(d1, sizeof(d1), t.bin_ns));
	if (shown < ncpu)
		fprintf(f, "<p class=\"warn\">The first %zu of %zu vCPUs are drawn; the JSON document has "
			"them all.</p>\n", shown, ncpu);
	for (size_t i = 0; i < shown; i++) {
		struct json_object *c = report_idx(cpus, i);
		for (size_t k = 0; k < report_len(report_get(c, "worst_delay_ns")); k++)
			if (at(c, "worst_delay_ns", k) > t.worst_max)
				t.worst_max = at(c, "worst_delay_ns", k);
	}
	int h = TOP + (int)shown * BLOCK + 44;
	fprintf(f, "<svg id=\"timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", TW, h, TW, h);
	legend(f, 8);
	fprintf(f, "<text x=\"%d\" y=\"44\" font-size=\"11\" fill=\"#555\">lanes: task | hypervisor "
		"(share of the column) | worst dispatch delay (1 us .. %s, log)</text>\n", TL,
		report_dur(d1, sizeof(d1), t.worst_max));
	for (size_t i = 0; i < shown; i++) {
		struct json_object *c = report_idx(cpus, i);
		double y = TOP + (double)i * BLOCK;
		fprintf(f, "<g class=\"vcpu\" data-cpu=\"%" PRId64 "\">\n<text x=\"4\" y=\"%.1f\" font-size=\"13\" "
			"font-weight=\"bold\">vCPU %" PRId64 "</text><text x=\"4\" y=\"%.1f\" font-size=\"9\" "
			"fill=\"#777\">task / hv / worst</text>\n", report_i64(c, "cpu"), y + 22,
			report_i64(c, "cpu"), y + 34);
		fputs("<g class=\"lane-task\">", f);
		lane_tasks(f, &t, c, y);
		fputs("</g>\n<g class=\"lane-hv\">", f);
		lane_hv(f, &t, c, y + LANE_TASK);
		fputs("</g>\n<g class=\"lane-worst\">", f);
		lane_worst(f, &t, c, y + LANE_TASK + LANE_HV);
		fputs("</g>\n</g>\n", f);
	}
	/* the N worst dispatch delays of the report, numbered */
	struct json_object *w = report_get(doc, "worst");
	for (size_t k = 0; k < report_len(w); k++) {
		struct json_object *e = report_idx(w, k);
		int64_t cpu = report_i64(e, "cpu");
		for (size_t i = 0; i < shown; i++) {
			if (report_i64(report_idx(cpus, i), "cpu") != cpu)
				continue;
			double x = tx_ns(&t, report_u64(e, "time_ns"));
			double y = TOP + (double)i * BLOCK + LANE_TASK + LANE_HV;
			char d2[32];
			fprintf(f, "<g class=\"worst-mark\"><title>#%zu worst dispatch delay: %s on vCPU %" PRId64
				" at %.6f s (", k + 1, report_dur(d2, sizeof(d2), report_u64(e, "delay_ns")), cpu,
				(double)report_u64(e, "time_ns") / 1e9);
			htmlrep_esc(f, report_str(e, "preempt_reason"));
			fprintf(f, ")</title><path d=\"M%.1f %.1fl-5 -9h10z\" fill=\"#000\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" font-weight=\"bold\" "
				"text-anchor=\"middle\" fill=\"#000\">%zu</text></g>\n", x, y - 1, x + 8, y - 3, k + 1);
		}
	}
	time_axis(f, &t, TOP + (double)shown * BLOCK);
	fputs("</svg>\n", f);
	if (report_u64(v, "outside"))
		fprintf(f, "<p class=\"warn\">%" PRIu64 " times lay too far from the others to be drawn "
			"(corrupt timestamps?).</p>\n", report_u64(v, "outside"));
}

static void row_dur(FILE *f, uint64_t ns)
{
	char d[32];
	fprintf(f, "<td>%s</td>", report_dur(d, sizeof(d), ns));
}

static void hists(FILE *f, struct json_object *doc)
{
	static const char *const keys[] = { "enqueue_to_dispatch", "ready_to_enqueue", "waiting_to_ready" };
	struct json_object *times = report_get(report_get(doc, "total"), "times");
	fputs("<h2>DTL times, all vCPUs</h2>\n<p class=\"note\">enqueue_to_dispatch + ready_to_enqueue "
	      "is the dispatch delay (the hypervisor's stolen time); waiting_to_ready is the partition "
	      "waiting for its own event after a cede.</p>\n<div class=\"grid\">\n", f);
	for (size_t k = 0; k < 3; k++) {
		struct json_object *h = report_get(times, keys[k]), *hb = report_get(h, "hist");
		size_t n = report_len(hb);
		struct htmlrep_bucket *b = calloc(n ? n : 1, sizeof(*b));
		struct htmlrep_mark m[8];
		if (!b)
			return;
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = report_idx(hb, i);
			b[i] = (struct htmlrep_bucket){ report_u64(e, "lo_ns"), report_u64(e, "hi_ns"),
							report_u64(e, "count") };
		}
		size_t nm = htmlrep_marks(h, m, 8);
		htmlrep_loghist(f, keys[k], b, n, m, nm);
		free(b);
	}
	fputs("</div>\n", f);
}

static void cpu_table(FILE *f, struct json_object *doc)
{
	struct json_object *cpus = report_get(doc, "cpus");
	fputs("<h2>Per vCPU</h2>\n<table><tr><th>vCPU</th><th>dispatches</th><th>per s</th>"
	      "<th>hypervisor time</th><th>share</th><th>dispatch delay p99</th><th>max</th>"
	      "<th>other processor</th></tr>\n", f);
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *c = report_idx(cpus, i);
		struct json_object *e = report_get(report_get(c, "times"), "enqueue_to_dispatch");
		fprintf(f, "<tr><td>%" PRId64 "</td><td>%" PRIu64 "</td><td>%.1f</td>", report_i64(c, "cpu"),
			report_u64(c, "dispatches"), report_dbl(c, "dispatches_per_sec"));
		row_dur(f, report_u64(c, "hypervisor_ns"));
		fprintf(f, "<td>%.2f %%</td>", report_dbl(c, "hypervisor_share") * 100);
		row_dur(f, report_u64(e, "p99_ns"));
		row_dur(f, report_u64(e, "max_ns"));
		fprintf(f, "<td>%" PRIu64 "</td></tr>\n", report_u64(c, "processor_changes"));
	}
	fputs("</table>\n", f);
}

static void worst_table(FILE *f, struct json_object *doc)
{
	struct json_object *w = report_get(doc, "worst");
	fputs("<h2>The worst dispatch delays</h2>\n<table><tr><th>#</th><th>vCPU</th><th>time (s)</th>"
	      "<th>delay</th><th>processor</th><th class=\"l\">preempt reason</th>"
	      "<th class=\"l\">dispatch reason</th></tr>\n", f);
	for (size_t i = 0; i < report_len(w); i++) {
		struct json_object *e = report_idx(w, i);
		fprintf(f, "<tr><td>%zu</td><td>%" PRId64 "</td><td>%.6f</td>", i + 1, report_i64(e, "cpu"),
			(double)report_u64(e, "time_ns") / 1e9);
		row_dur(f, report_u64(e, "delay_ns"));
		fprintf(f, "<td>%" PRId64 "</td><td class=\"l\">", report_i64(e, "processor_id"));
		htmlrep_esc(f, report_str(e, "preempt_reason"));
		fputs("</td><td class=\"l\">", f);
		htmlrep_esc(f, report_str(e, "dispatch_reason"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void sym_table(FILE *f, struct json_object *doc)
{
	struct json_object *s = report_get(doc, "symbols");
	fputs("<h2>Where the vCPUs were taken (srr0)</h2>\n", f);
	if (!json_object_get_boolean(report_get(s, "resolved"))) {
		fputs("<p class=\"note\">No symbols (no kallsyms for this recording: "
		      "<code>--kallsyms FILE</code>).</p>\n", f);
		return;
	}
	static const char *const keys[] = { "by_count", "by_hypervisor_time" };
	fputs("<div class=\"grid\">", f);
	for (size_t k = 0; k < 2; k++) {
		struct json_object *a = report_get(s, keys[k]);
		fprintf(f, "<table><tr><th class=\"l\">symbol (%s)</th><th>entries</th>"
			"<th>hypervisor time</th></tr>\n", k ? "by hypervisor time" : "by count");
		for (size_t i = 0; i < report_len(a) && i < 15; i++) {
			struct json_object *e = report_idx(a, i);
			fputs("<tr><td class=\"l\">", f);
			htmlrep_esc(f, report_str(e, "symbol"));
			fprintf(f, "</td><td>%" PRIu64 "</td>", report_u64(e, "count"));
			row_dur(f, report_u64(e, "hypervisor_ns"));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("</div>\n", f);
}

static void task_table(FILE *f, struct json_object *doc)
{
	struct json_object *t = report_get(doc, "tasks");
	if (!t)
		return;
	fputs("<h2>Who the hypervisor hurt (involuntary interruptions per task)</h2>\n"
	      "<table><tr><th class=\"l\">task</th><th>pid</th><th>interruptions</th>"
	      "<th>hypervisor time</th><th>worst</th><th>worst on vCPU</th><th>share of its run time</th>"
	      "</tr>\n", f);
	for (size_t i = 0; i < report_len(t); i++) {
		struct json_object *e = report_idx(t, i);
		fputs("<tr><td class=\"l\">", f);
		htmlrep_esc(f, json_object_get_boolean(report_get(e, "idle")) ? "[idle]"
			       : json_object_get_boolean(report_get(e, "unknown")) ? "[unknown]"
			       : report_str(e, "comm"));
		fprintf(f, "</td><td>%" PRId64 "</td><td>%" PRIu64 "</td>", report_i64(e, "pid"),
			report_u64(e, "interruptions"));
		row_dur(f, report_u64(e, "hypervisor_ns"));
		row_dur(f, report_u64(e, "worst_ns"));
		fprintf(f, "<td>%" PRId64 "</td><td>%.3f %%</td></tr>\n", report_i64(e, "worst_cpu"),
			report_dbl(e, "share_of_run") * 100);
	}
	fputs("</table>\n", f);
}

int htmlrep_dtl(FILE *f, struct json_object *doc)
{
	struct json_object *tot = report_get(doc, "total"), *data = report_get(doc, "data");
	char d1[32], sub[600];

	snprintf(sub, sizeof(sub), "latscope dtl report of %s", report_str(doc, "file"));
	htmlrep_page_start(f, "POWER DTL: when the hypervisor had the vCPUs", sub);
	fprintf(f, "<div class=\"kv\"><div>hypervisor share <b>%.3f %%</b></div>"
		"<div>hypervisor time <b>%s</b></div><div>DTL entries <b>%" PRIu64 "</b></div>"
		"<div>vCPUs <b>%zu</b></div><div>dispatches/s <b>%.1f</b></div>"
		"<div>timebase <b>%" PRIu64 " Hz</b></div></div>\n",
		report_dbl(tot, "hypervisor_share") * 100,
		report_dur(d1, sizeof(d1), report_u64(tot, "hypervisor_ns")),
		report_u64(data, "entries"), report_len(report_get(doc, "cpus")),
		report_dbl(tot, "dispatches_per_sec"), report_u64(doc, "tb_freq_hz"));
	uint64_t lost = report_u64(data, "aux_truncated") + report_u64(data, "aux_partial") +
			report_u64(data, "aux_collision") + report_u64(data, "lost_records");
	if (lost)
		fprintf(f, "<p class=\"warn\">DATA LOST while recording: %" PRIu64 " AUX records truncated, "
			"partial or collided, or LOST records.</p>\n", lost);
	if (report_u64(data, "ring_full_polls"))
		fprintf(f, "<p class=\"warn\">%" PRIu64 " of %" PRIu64 " polls copied all the hypervisor's "
			"ring lets through: entries were probably overwritten (poll more often).</p>\n",
			report_u64(data, "ring_full_polls"), report_u64(data, "polls"));
	timeline(f, doc);
	hists(f, doc);
	cpu_table(f, doc);
	worst_table(f, doc);
	task_table(f, doc);
	sym_table(f, doc);
	htmlrep_page_end(f);
	return 0;
}
