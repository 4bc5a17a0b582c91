/* SPDX-License-Identifier: MIT */
/* htmlrep_hist.c - the pages of latscope.hist/1 and latscope.osnoise/1 documents. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htmlrep_int.h"

/* A histogram of [[lower_ns, count], ...] buckets bucket_ns wide, drawn. */
int htmlrep_pairs_hist(FILE *f, const char *title, struct json_object *pairs, uint64_t bucket_ns,
		       struct json_object *stats)
{
	size_t n = report_len(pairs);
	struct htmlrep_bucket *b = calloc(n ? n : 1, sizeof(*b));
	struct htmlrep_mark m[8];
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = report_idx(pairs, i);
		uint64_t lo = report_u64v(report_idx(p, 0));
		b[i] = (struct htmlrep_bucket){ lo, lo + (bucket_ns ? bucket_ns : 1),
						report_u64v(report_idx(p, 1)) };
	}
	size_t nm = htmlrep_marks(stats, m, 8);
	htmlrep_loghist(f, title, b, n, m, nm);
	free(b);
	return 0;
}

static void hist_row(FILE *f, const char *who, struct json_object *c)
{
	struct json_object *ml = report_get(c, "max_latency");
	fprintf(f, "<tr><td class=\"l\">%s</td><td>%" PRIu64 "</td>", who, report_u64(c, "total"));
	htmlrep_td_dur(f, c, "min_ns");
	htmlrep_td_dur(f, c, "avg_ns");
	htmlrep_td_dur(f, c, "p50_ns");
	htmlrep_td_dur(f, c, "p99_ns");
	htmlrep_td_dur(f, c, "p99_9_ns");
	htmlrep_td_dur(f, c, "max_ns");
	fputs("<td class=\"l\">", f);
	if (ml) {
		htmlrep_esc(f, report_str(ml, "comm"));
		fprintf(f, " (pid %" PRId64 ", prio %" PRId64 ")</td><td class=\"l\">", report_i64(ml, "pid"),
			report_i64(ml, "prio"));
		if (report_has(ml, "culprit_comm")) {
			htmlrep_esc(f, report_str(ml, "culprit_comm"));
			fprintf(f, " (pid %" PRId64 ", prio %" PRId64 ")", report_i64(ml, "culprit_pid"),
				report_i64(ml, "culprit_prio"));
		}
		fprintf(f, "</td><td>%.6f</td></tr>\n", (double)report_u64(ml, "time_ns") / 1e9);
	} else {
		fputs("</td><td></td><td></td></tr>\n", f);
	}
}

int htmlrep_hist(FILE *f, struct json_object *doc)
{
	struct json_object *hs = report_get(doc, "histograms"), *un = report_get(doc, "unavailable");
	uint64_t bns = report_u64(doc, "bucket_ns");
	char sub[200];
	int rc = 0;

	snprintf(sub, sizeof(sub), "latscope hist: latency_hist-style histograms, %" PRIu64 " ns buckets "
		 "from %" PRIu64 " ns; per kind and CPU the log-scale histogram and its worst case", bns,
		 report_u64(doc, "lo_ns"));
	htmlrep_page_start(f, "Latency histograms", sub);
	if (report_len(un)) {
		fputs("<p class=\"note\">Not measured here:", f);
		for (size_t i = 0; i < report_len(un); i++) {
			fputc(' ', f);
			htmlrep_esc(f, json_object_get_string(report_idx(un, i)));
		}
		fputs("</p>\n", f);
	}
	if (!hs || !json_object_is_type(hs, json_type_object)) {
		htmlrep_page_end(f);
		return 0;
	}
	json_object_object_foreach(hs, kind, h) {
		struct json_object *cpus = report_get(h, "cpus"), *all = report_get(h, "all");
		size_t n = report_len(cpus);
		fputs("<h2>", f);
		htmlrep_esc(f, kind);
		fprintf(f, "</h2>\n");
		if (!report_u64(all, "total")) {
			fputs("<p class=\"note\">no samples</p>\n", f);
			continue;
		}
		fputs("<table><tr><th class=\"l\">CPU</th><th>samples</th><th>min</th><th>avg</th><th>p50</th>"
		      "<th>p99</th><th>p99.9</th><th>max</th><th class=\"l\">worst case: victim</th>"
		      "<th class=\"l\">culprit</th><th>at (s)</th></tr>\n", f);
		for (size_t i = 0; i < n; i++) {
			struct json_object *c = report_idx(cpus, i);
			char who[32];
			snprintf(who, sizeof(who), "CPU %" PRId64, report_i64(c, "cpu"));
			hist_row(f, who, c);
		}
		hist_row(f, "all", all);
		fputs("</table>\n", f);
		if (!report_get(all, "buckets")) {
			fputs("<p class=\"note\">No buckets in this document (written without "
			      "<code>--buckets-json</code>): the percentiles above only.</p>\n", f);
			continue;
		}
		fputs("<div class=\"grid\">\n", f);
		for (size_t i = 0; i <= n && !rc; i++) {
			struct json_object *c = i < n ? report_idx(cpus, i) : all;
			char t[64];
			if (i < n)
				snprintf(t, sizeof(t), "%s, CPU %" PRId64, kind, report_i64(c, "cpu"));
			else
				snprintf(t, sizeof(t), "%s, all CPUs", kind);
			rc = htmlrep_pairs_hist(f, t, report_get(c, "buckets"), bns, c);
		}
		fputs("</div>\n", f);
	}
	htmlrep_page_end(f);
	return rc;
}

static const struct { const char *key, *name, *colour; } classes[] = {
	{ "hw_ns", "HW", "#7f7f7f" }, { "nmi_ns", "NMI", "#9467bd" }, { "irq_ns", "IRQ", "#d62728" },
	{ "softirq_ns", "SIRQ", "#ff9f1c" }, { "thread_ns", "THREAD", "#1f77b4" },
};
#define NCLS (sizeof(classes) / sizeof(classes[0]))

/* Noise per CPU as a stacked horizontal bar per class, in % of the runtime. */
static void noise_bars(FILE *f, struct json_object *cpus)
{
	size_t n = report_len(cpus);
	const int W = 1000, L = 80, R = 170, RH = 24, T = 40;
	double mx = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = report_idx(cpus, i);
		double rt = (double)report_u64(c, "runtime_ns"), s = 0;
		for (size_t k = 0; k < NCLS && rt > 0; k++)
			s += (double)report_u64(c, classes[k].key) / rt * 100;
		if (s > mx)
			mx = s;
	}
	/* a round scale: 1, 2 or 5 times a power of ten */
	double top = 0.001;
	for (double dec = 0.001; dec <= 100 && top < mx; dec *= 10)
		for (int k = 0; k < 3 && top < mx; k++)
			top = dec * (k == 0 ? 1 : k == 1 ? 2 : 5);
	if (top < mx)
		top = mx;
	int h = T + (int)n * RH + 46;
	fprintf(f, "<svg id=\"noise\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", W, h, W, h);
	int x = L;
	for (size_t k = 0; k < NCLS; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"8\" width=\"14\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"18\" font-size=\"12\">%s</text>\n", x, classes[k].colour, x + 18,
			classes[k].name);
		x += 90;
	}
	int pw = W - L - R;
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = report_idx(cpus, i);
		double rt = (double)report_u64(c, "runtime_ns"), xs = L, s = 0;
		int y = T + (int)i * RH;
		char d[32];
		fprintf(f, "<g class=\"cpu-noise\"><text x=\"4\" y=\"%d\" font-size=\"13\">CPU %" PRId64 "</text>\n",
			y + 16, report_i64(c, "cpu"));
		for (size_t k = 0; k < NCLS && rt > 0; k++) {
			uint64_t ns = report_u64(c, classes[k].key);
			double p = (double)ns / rt * 100, w = p / top * pw;
			if (ns)
				fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
					"fill=\"%s\"><title>CPU %" PRId64 " %s: %s, %.4f %% of the runtime</title>"
					"</rect>\n", classes[k].name, xs, y + 3, w < 0.5 ? 0.5 : w, RH - 6,
					classes[k].colour, report_i64(c, "cpu"), classes[k].name,
					report_dur(d, sizeof(d), ns), p);
			xs += w;
			s += p;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%.4g %% (%s)</text></g>\n", xs + 6, y + 16,
			s, report_dur(d, sizeof(d), report_u64(c, "noise_ns")));
	}
	int ya = T + (int)n * RH;
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", L, ya, L + pw, ya);
	for (int k = 0; k <= 5; k++) {
		double xv = L + pw * k / 5.0;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.3g %%</text>\n",
			xv, ya, xv, ya + 5, xv, ya + 17, top * k / 5.0);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#444\">noise, "
		"%% of the measured runtime, by class</text>\n</svg>\n", L + pw / 2, ya + 36);
}

int htmlrep_osnoise(FILE *f, struct json_object *doc)
{
	struct json_object *cpus = report_get(doc, "cpus");
	char sub[300], d1[32], d2[32];
	int rc = 0;

	snprintf(sub, sizeof(sub), "latscope osnoise %s: %s measured, threshold %s, backend %s",
		 report_str(doc, "mode"), report_dur(d1, sizeof(d1), report_u64(doc, "duration_ns")),
		 report_dur(d2, sizeof(d2), report_u64(doc, "threshold_ns")), report_str(doc, "backend"));
	htmlrep_page_start(f, "OS noise: who took the CPU from the workload", sub);
	if (report_u64(doc, "events_lost") || report_u64(doc, "dropped"))
		fprintf(f, "<p class=\"warn\">Events lost: %" PRIu64 ", dropped: %" PRIu64
			": the attribution is incomplete.</p>\n", report_u64(doc, "events_lost"),
			report_u64(doc, "dropped"));
	fputs("<h2>Noise per CPU by class</h2>\n", f);
	noise_bars(f, cpus);
	fputs("<table><tr><th>CPU</th><th>runtime</th><th>noise</th><th>available</th><th>max noise "
	      "in a period</th><th>max single</th><th>HW</th><th>NMI</th><th>IRQ</th><th>SIRQ</th>"
	      "<th>THREAD</th></tr>\n", f);
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *c = report_idx(cpus, i);
		fprintf(f, "<tr><td>%" PRId64 "</td>", report_i64(c, "cpu"));
		htmlrep_td_dur(f, c, "runtime_ns");
		htmlrep_td_dur(f, c, "noise_ns");
		fprintf(f, "<td>%.5f %%</td>", report_dbl(c, "cpu_available_pct"));
		htmlrep_td_dur(f, c, "max_noise_ns");
		htmlrep_td_dur(f, c, "max_single_ns");
		for (size_t k = 0; k < REPORT_NOISE_CLASSES; k++)
			fprintf(f, "<td>%" PRIu64 "</td>", report_u64(c, report_noise_class_keys[k]));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	bool any_hist = false, no_p50 = false;
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *h = report_get(report_idx(cpus, i), "hist");
		any_hist |= h != NULL;
		no_p50 |= h && !report_has(h, "p50_ns");
	}
	if (any_hist) {
		fputs("<h2>Gap histograms (each interruption of the workload)</h2>\n<div class=\"grid\">\n", f);
		for (size_t i = 0; i < report_len(cpus) && !rc; i++) {
			struct json_object *c = report_idx(cpus, i), *h = report_get(c, "hist");
			char t[48];
			if (!h)
				continue;
			snprintf(t, sizeof(t), "CPU %" PRId64 " gaps", report_i64(c, "cpu"));
			rc = htmlrep_pairs_hist(f, t, report_get(h, "buckets"), report_u64(h, "bucket_ns"), h);
		}
		fputs("</div>\n", f);
		if (no_p50)	/* a document written before p50_ns */
			fputs("<p class=\"note\">p50 is not in this osnoise document; the marks are the "
			      "percentiles it has.</p>\n", f);
	}
	fputs("<h2>Top contributors</h2>\n<table><tr><th>CPU</th><th class=\"l\">class</th>"
	      "<th class=\"l\">name</th><th>id</th><th>count</th><th>total</th><th>max</th></tr>\n", f);
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *c = report_idx(cpus, i), *top = report_get(c, "top");
		for (size_t k = 0; k < report_len(top) && k < 10; k++) {
			struct json_object *e = report_idx(top, k);
			fprintf(f, "<tr><td>%" PRId64 "</td><td class=\"l\">", report_i64(c, "cpu"));
			htmlrep_esc(f, report_str(e, "class"));
			fputs("</td><td class=\"l\">", f);
			htmlrep_esc(f, report_str(e, "name"));
			fprintf(f, "</td><td>%" PRId64 "</td><td>%" PRIu64 "</td>", report_i64(e, "id"),
				report_u64(e, "count"));
			htmlrep_td_dur(f, e, "total_ns");
			htmlrep_td_dur(f, e, "max_ns");
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
	htmlrep_page_end(f);
	return rc;
}
