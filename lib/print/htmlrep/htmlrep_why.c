/* SPDX-License-Identifier: MIT */
/*
 * htmlrep_why.c - the page of a latscope.dtl-why/1 document: what was read
 * and lost, then each of the worst samples on its own time line, from the
 * wakeup to the switch-in: the vCPU's lane (the woken task waiting), the
 * hypervisor's lane under it (each DTL span where it held the vCPU, its
 * reasons and srr0 in the tooltip), the parts as one stacked bar in
 * proportion, and the parts' table.  Every drawn span carries its ns
 * (data-ns) for the checks of tests/html_check.py.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "htmlrep_int.h"

#define WW 900		/* the picture */
#define WL 150		/* the lanes' names */
#define WP (WW - WL - 10)	/* the time axis */
#define LH 22		/* a lane */

static const char *part_colour(char *buf, const char *cls, const char *name)
{
	if (!strcmp(cls, "hypervisor"))
		return "#d62728";
	if (!strcmp(cls, "irq"))
		return "#ff7f0e";
	if (!strcmp(cls, "softirq"))
		return "#bcbd22";
	if (!strcmp(cls, "vector"))
		return "#9467bd";
	if (!strcmp(cls, "unknown"))
		return "#cccccc";
	return htmlrep_colour(buf, name);
}

/* x of time t in [from, to] (clamped) */
static double xof(uint64_t t, uint64_t from, uint64_t to)
{
	if (t < from)
		t = from;
	if (t > to)
		t = to;
	return WL + (to > from ? (double)(t - from) * WP / (double)(to - from) : 0);
}

static void lanes(FILE *f, struct json_object *s)
{
	uint64_t from = report_u64(s, "from_ns"), to = report_u64(s, "to_ns"), lat = report_u64(s, "latency_ns");
	struct json_object *hv = report_get(s, "hypervisor"), *parts = report_get(s, "parts");
	char d[32], c[8];
	fprintf(f, "<svg class=\"why\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" data-from=\"%" PRIu64 "\" data-to=\"%" PRIu64
		   "\" data-x0=\"%d\" data-w=\"%d\">\n",
		WW, 4 * LH + 24, WW, 4 * LH + 24, from, to, WL, WP);
	fprintf(f, "<text x=\"4\" y=\"%d\">vCPU %" PRIu64 " (waiting)</text>"
		   "<rect class=\"wait\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#aec7e8\">"
		   "<title>pid %" PRId64 " woken, not running: %s</title></rect>\n",
		LH - 7, report_u64(s, "cpu"), WL, 4, WP, LH - 8, report_i64(s, "pid"), report_dur(d, sizeof(d), lat));
	fprintf(f, "<text x=\"4\" y=\"%d\">hypervisor</text>"
		   "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
		2 * LH - 7, WL, 2 * LH - 4, WL + WP, 2 * LH - 4);
	for (size_t i = 0; i < report_len(hv); i++) {
		struct json_object *h = report_idx(hv, i);
		double x0 = xof(report_u64(h, "start_ns"), from, to), x1 = xof(report_u64(h, "end_ns"), from, to);
		fprintf(f, "<rect class=\"hv\" data-ns=\"%" PRIu64 "\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			   "fill=\"#d62728\"><title>", report_u64(h, "ns"), x0, LH + 4, x1 - x0 < 1 ? 1 : x1 - x0,
			LH - 8);
		fprintf(f, "the hypervisor held the vCPU %s here: preempted (", report_dur(d, sizeof(d), report_u64(h, "ns")));
		htmlrep_esc(f, report_str(h, "preempt_reason"));
		fputs(") at ", f);
		htmlrep_esc(f, report_str(h, "srr0"));
		if (*report_str(h, "symbol")) {
			fputc(' ', f);
			htmlrep_esc(f, report_str(h, "symbol"));
		}
		fputs(", dispatched (", f);
		htmlrep_esc(f, report_str(h, "dispatch_reason"));
		fputs(")</title></rect>\n", f);
	}
	/* the parts in proportion, largest first */
	fprintf(f, "<text x=\"4\" y=\"%d\">the parts</text>\n", 3 * LH - 7);
	double x = WL;
	for (size_t i = 0; i < report_len(parts); i++) {
		struct json_object *p = report_idx(parts, i);
		uint64_t ns = report_u64(p, "ns");
		double w = lat ? (double)ns * WP / (double)lat : 0;
		fprintf(f, "<rect class=\"part\" data-ns=\"%" PRIu64 "\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			   "fill=\"%s\"><title>", ns, x, 2 * LH + 4, w, LH - 8,
			part_colour(c, report_str(p, "class"), report_str(p, "name")));
		htmlrep_esc(f, report_str(p, "class"));
		fputc(' ', f);
		htmlrep_esc(f, report_str(p, "name"));
		fprintf(f, ": %s</title></rect>\n", report_dur(d, sizeof(d), ns));
		x += w;
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
		   "fill=\"#555\">%s</text>\n</svg>\n", WL, 4 * LH + 6, WL + WP, 4 * LH + 6,
		report_dur(d, sizeof(d), lat));
}

static void parts_table(FILE *f, struct json_object *s)
{
	struct json_object *parts = report_get(s, "parts");
	uint64_t lat = report_u64(s, "latency_ns");
	char d[32];
	fputs("<table><tr><th class=\"l\">class</th><th class=\"l\">who</th><th>turns</th><th>time</th>"
	      "<th>share</th></tr>\n", f);
	for (size_t i = 0; i < report_len(parts); i++) {
		struct json_object *p = report_idx(parts, i);
		uint64_t ns = report_u64(p, "ns");
		fputs("<tr><td class=\"l\">", f);
		htmlrep_esc(f, report_str(p, "class"));
		fputs("</td><td class=\"l\">", f);
		if (strcmp(report_str(p, "class"), "hypervisor") && strcmp(report_str(p, "class"), "unknown"))
			fprintf(f, "%" PRId64 " ", report_i64(p, "id"));
		htmlrep_esc(f, report_str(p, "name"));
		fprintf(f, "</td><td>%" PRIu64 "</td><td>%s</td><td>%.2f %%</td></tr>\n", report_u64(p, "count"),
			report_dur(d, sizeof(d), ns), lat ? 100.0 * (double)ns / (double)lat : 0);
	}
	fputs("</table>\n", f);
}

int htmlrep_why(FILE *f, struct json_object *doc)
{
	struct json_object *in = report_get(doc, "input"), *worst = report_get(doc, "worst");
	char sub[400], d[32];
	snprintf(sub, sizeof(sub), "latscope dtl why: %s: %" PRIu64 " wakeup samples, %" PRIu64 " at or above %s; "
		 "%" PRIu64 " DTL entries as the hypervisor's spans", report_str(doc, "file"), report_u64(doc, "samples"),
		 report_u64(doc, "above"), report_dur(d, sizeof(d), report_u64(doc, "threshold_ns")),
		 report_u64(in, "dtl_entries"));
	htmlrep_page_start(f, "Who took the CPU: the worst wakeup latencies, the hypervisor included", sub);
	if (!report_u64(in, "dtl_entries"))
		fputs("<p class=\"warn\">The recording holds no DTL entry: the hypervisor's time is unknown.</p>\n", f);
	if (report_u64(in, "ring_full") || report_u64(in, "dtl_gaps"))
		fprintf(f, "<p class=\"warn\">DTL entries are missing: %" PRIu64 " polls copied a full hypervisor "
			   "ring (entries overwritten before them), %" PRIu64 " gaps in the stream.  A preemption "
			   "whose entry is missing shows no hypervisor time.</p>\n",
			report_u64(in, "ring_full"), report_u64(in, "dtl_gaps"));
	for (size_t i = 0; i < report_len(worst); i++) {
		struct json_object *s = report_idx(worst, i);
		fprintf(f, "<h2>#%zu CPU %" PRIu64 ": ", i + 1, report_u64(s, "cpu"));
		htmlrep_esc(f, report_str(s, "kind"));
		fprintf(f, " latency %s of pid %" PRId64 " (", report_dur(d, sizeof(d), report_u64(s, "latency_ns")),
			report_i64(s, "pid"));
		htmlrep_esc(f, report_str(s, "comm"));
		fprintf(f, "), the hypervisor %s of it</h2>\n", report_dur(d, sizeof(d), report_u64(s, "hypervisor_ns")));
		if (!json_object_get_boolean(report_get(s, "dtl")))
			fputs("<p class=\"note\">No DTL entry of this CPU in the recording: its hypervisor time is "
			      "unknown.</p>\n", f);
		lanes(f, s);
		parts_table(f, s);
	}
	htmlrep_page_end(f);
	return 0;
}
