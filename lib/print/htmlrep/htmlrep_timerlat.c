/* SPDX-License-Identifier: MIT */
/*
 * htmlrep_timerlat.c - the page of a latscope.timerlat/1 document: what was
 * lost or missed, the stop and the kernel's stack, a table per CPU and
 * context (count, min, avg, p99, max), and the IRQ, thread (and user
 * return) histograms of each CPU.
 */
#include <inttypes.h>
#include <stdio.h>

#include "htmlrep_int.h"

static const char *const ctx_keys[] = { "irq", "thread", "user" };
static const char *const ctx_names[] = { "IRQ", "thread", "return to user" };

static void losses(FILE *f, struct json_object *doc)
{
	struct json_object *in = report_get(doc, "input"), *m = report_get(in, "missed");
	uint64_t missed = report_u64(m, "irq") + report_u64(m, "thread") + report_u64(m, "user");
	if (report_u64(in, "overrun") || report_u64(in, "lost_lines") || missed)
		fprintf(f, "<p class=\"warn\">The ring lost records: %" PRIu64 " overwritten before they were "
			   "read, %" PRIu64 " activations with no record (irq %" PRIu64 ", thread %" PRIu64
			   ", user %" PRIu64 ").  The figures below are of the records read.</p>\n",
			report_u64(in, "overrun") > report_u64(in, "lost_lines") ? report_u64(in, "overrun")
										  : report_u64(in, "lost_lines"),
			missed, report_u64(m, "irq"), report_u64(m, "thread"), report_u64(m, "user"));
}

static void stop(FILE *f, struct json_object *doc)
{
	struct json_object *s = report_get(doc, "stop"), *st = report_get(doc, "stack");
	char a[32], b[32];
	if (s && report_has(s, "latency_ns")) {
		fprintf(f, "<p class=\"warn\">Stopped: CPU %" PRIu64 " ", report_u64(s, "cpu"));
		htmlrep_esc(f, report_str(s, "context"));
		fprintf(f, " latency %s at or above %s (activation #%" PRIu64 ").</p>\n",
			report_dur(a, sizeof(a), report_u64(s, "latency_ns")),
			report_dur(b, sizeof(b), report_u64(s, "threshold_ns")), report_u64(s, "seq"));
	} else if (s) {
		fprintf(f, "<p class=\"warn\">The kernel stopped tracing on CPU %" PRIu64 ".</p>\n",
			report_u64(s, "cpu"));
	}
	if (!st)
		return;
	struct json_object *fr = report_get(st, "frames");
	fprintf(f, "<h2>The kernel's stack (CPU %" PRIu64 ")</h2>\n<pre>", report_u64(st, "cpu"));
	for (size_t i = 0; i < report_len(fr); i++) {
		htmlrep_esc(f, json_object_get_string(report_idx(fr, i)));
		fputc('\n', f);
	}
	fputs("</pre>\n", f);
}

static void table(FILE *f, struct json_object *cpus, int nctx)
{
	fputs("<table><tr><th>CPU</th><th class=\"l\">context</th><th>count</th><th>min</th><th>avg</th>"
	      "<th>p99</th><th>max</th><th>missed</th></tr>\n", f);
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *c = report_idx(cpus, i);
		for (int x = 0; x < nctx; x++) {
			struct json_object *s = report_get(c, ctx_keys[x]);
			fprintf(f, "<tr><td>%" PRIu64 "</td><td class=\"l\">%s</td><td>%" PRIu64 "</td>",
				report_u64(c, "cpu"), ctx_names[x], report_u64(s, "count"));
			htmlrep_td_dur(f, s, "min_ns");
			htmlrep_td_dur(f, s, "avg_ns");
			htmlrep_td_dur(f, s, "p99_ns");
			htmlrep_td_dur(f, s, "max_ns");
			fprintf(f, "<td>%" PRIu64 "</td></tr>\n", report_u64(s, "missed"));
		}
	}
	fputs("</table>\n", f);
}

int htmlrep_timerlat(FILE *f, struct json_object *doc)
{
	struct json_object *cpus = report_get(doc, "cpus"), *set = report_get(doc, "settings");
	int nctx = report_has(report_get(doc, "all"), "user") ? 3 : 2;
	char sub[300], d[32], d2[32];
	if (report_has(set, "period_ns"))
		snprintf(sub, sizeof(sub), "latscope timerlat %s: CPUs %s, period %s, %s threads, %s measured",
			 report_str(doc, "mode"), report_str(set, "cpus"),
			 report_dur(d, sizeof(d), report_u64(set, "period_ns")), report_str(set, "threads"),
			 report_dur(d2, sizeof(d2), report_u64(doc, "duration_ns")));
	else
		snprintf(sub, sizeof(sub), "latscope timerlat %s: the saved trace %s", report_str(doc, "mode"),
			 report_str(report_get(doc, "source"), "file"));
	htmlrep_page_start(f, "Timer latency: how late the timer's IRQ and thread ran", sub);
	losses(f, doc);
	stop(f, doc);
	fputs("<h2>Latency per CPU and context</h2>\n", f);
	table(f, cpus, nctx);
	int rc = 0;
	uint64_t bns = report_u64(set, "bucket_ns");
	fputs("<h2>Histograms</h2>\n<div class=\"grid\">\n", f);
	for (size_t i = 0; i < report_len(cpus) && !rc; i++) {
		struct json_object *c = report_idx(cpus, i);
		for (int x = 0; x < nctx && !rc; x++) {
			struct json_object *s = report_get(c, ctx_keys[x]);
			char t[64];
			if (!report_get(s, "buckets"))
				continue;
			snprintf(t, sizeof(t), "CPU %" PRIu64 " %s latency", report_u64(c, "cpu"), ctx_names[x]);
			rc = htmlrep_pairs_hist(f, t, report_get(s, "buckets"), bns, s);
		}
	}
	fputs("</div>\n", f);
	htmlrep_page_end(f);
	return rc;
}
