/* SPDX-License-Identifier: MIT */
/*
 * text.c - the text forms of a latscope.timerlat/1 document: top's table,
 * hist's columns (rtla timerlat hist's layout: an index column in us, one
 * column per CPU and context, then the summary rows), the stop and the
 * stack, and the losses on stderr.  Everything shown is read from the
 * document (lib/report/report.h's getters), so the text and the JSON cannot
 * disagree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/report.h"
#include "timerlat.h"

static const char *const ctx_keys[] = { "irq", "thread", "user" };
static const char *const ctx_cols[] = { "IRQ", "Thr", "Usr" };
static const char *const ctx_titles[] = { "IRQ latency (us)", "Thread latency (us)", "Return to user (us)" };

/* ns as us with one decimal ("-" when null) into buf */
static const char *us1(char *buf, size_t n, json_object *o, const char *key)
{
	if (!report_has(o, key))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f", (double)report_i64(o, key) / 1000.0);
	return buf;
}

/* The contexts in the document (user only when it has them). */
static int doc_nctx(json_object *doc)
{
	return report_has(report_get(doc, "all"), "user") ? 3 : 2;
}

static void print_heading(FILE *f, json_object *doc, const char *what)
{
	json_object *s = report_get(doc, "settings");
	char d[32];
	fprintf(f, "%s", what);
	if (report_has(s, "cpus"))
		fprintf(f, ": CPUs %s, period %" PRIu64 " us, %s threads", report_str(s, "cpus"),
			report_u64(s, "period_ns") / 1000, report_str(s, "threads"));
	else
		fprintf(f, ": %s", report_str(report_get(doc, "source"), "file"));
	if (report_has(doc, "duration_ns"))
		fprintf(f, ", %s", report_dur(d, sizeof(d), report_u64(doc, "duration_ns")));
	fputc('\n', f);
}

/* The stop and the stack the kernel printed, when the document has them. */
static void print_stop(FILE *f, json_object *doc)
{
	json_object *s = report_get(doc, "stop"), *st = report_get(doc, "stack");
	char a[32], b[32];
	if (s && report_has(s, "latency_ns"))
		fprintf(f, "stop: CPU%" PRIu64 " %s latency %s us >= %s us (activation #%" PRIu64 ")%s\n",
			report_u64(s, "cpu"), report_str(s, "context"), us1(a, sizeof(a), s, "latency_ns"),
			us1(b, sizeof(b), s, "threshold_ns"), report_u64(s, "seq"),
			json_object_get_boolean(report_get(s, "before_window")) ?
				" (recorded just before the window opened; the kernel stopped after it)" : "");
	else if (s)
		fprintf(f, "stop: the kernel stopped tracing on CPU%" PRIu64 " (a threshold was hit; its record "
			   "was not read)\n", report_u64(s, "cpu"));
	if (s && report_u64(s, "hits") > 1)
		fprintf(f, "      %" PRIu64 " samples at or above their threshold\n", report_u64(s, "hits"));
	if (!st)
		return;
	json_object *fr = report_get(st, "frames");
	fprintf(f, "stack of CPU%" PRIu64 " (print_stack):\n", report_u64(st, "cpu"));
	for (size_t i = 0; i < report_len(fr); i++)
		fprintf(f, "   => %s\n", json_object_get_string(report_idx(fr, i)));
}

static void top_row(FILE *f, const char *name, json_object *o, int nctx, bool cur)
{
	char v[4][32];
	fprintf(f, "%4s %9" PRIu64, name, report_u64(report_get(o, "irq"), "count"));
	for (int x = 0; x < nctx; x++) {
		json_object *s = report_get(o, ctx_keys[x]);
		fprintf(f, " | %8s %8s %8s %8s", cur ? us1(v[0], sizeof(v[0]), s, "cur_ns") : "",
			us1(v[1], sizeof(v[1]), s, "min_ns"), us1(v[2], sizeof(v[2]), s, "avg_ns"),
			us1(v[3], sizeof(v[3]), s, "max_ns"));
	}
	fputc('\n', f);
}

void timerlat_text_top(FILE *f, json_object *doc)
{
	int nctx = doc_nctx(doc);
	print_heading(f, doc, "timerlat top");
	fprintf(f, "%14s", "");
	for (int x = 0; x < nctx; x++)
		fprintf(f, " | %-35s", ctx_titles[x]);
	fprintf(f, "\n CPU     count");
	for (int x = 0; x < nctx; x++)
		fprintf(f, " | %8s %8s %8s %8s", "cur", "min", "avg", "max");
	fputc('\n', f);
	json_object *cpus = report_get(doc, "cpus");
	for (size_t i = 0; i < report_len(cpus); i++) {
		char n[16];
		json_object *o = report_idx(cpus, i);
		snprintf(n, sizeof(n), "%" PRIu64, report_u64(o, "cpu"));
		top_row(f, n, o, nctx, true);
	}
	if (report_len(cpus) > 1)
		top_row(f, "all", report_get(doc, "all"), nctx, false);
	print_stop(f, doc);
}

/* hist: a column's buckets walked in order (the document's [lo_ns, count]
 * pairs, ascending) */
struct col {
	json_object *b;			/* the buckets array */
	size_t i;
	json_object *series;
};

static bool col_lo(const struct col *c, int64_t *lo)
{
	json_object *p = report_idx(c->b, c->i);
	if (!p)
		return false;
	*lo = json_object_get_int64(report_idx(p, 0));
	return true;
}

/* The columns of the document: per CPU, the contexts asked for. */
static size_t hist_cols(json_object *doc, const struct tl_out *o, struct col *cols, size_t max, char names[][16])
{
	json_object *cpus = report_get(doc, "cpus");
	int nctx = doc_nctx(doc);
	size_t n = 0;
	for (size_t i = 0; i < report_len(cpus); i++)
		for (int x = 0; x < nctx && n < max; x++) {
			if ((x == 0 && o->no_irq) || (x > 0 && o->no_thread))
				continue;
			json_object *s = report_get(report_idx(cpus, i), ctx_keys[x]);
			cols[n] = (struct col){ .b = report_get(s, "buckets"), .series = s };
			snprintf(names[n], 16, "%s-%03" PRIu64, ctx_cols[x], report_u64(report_idx(cpus, i), "cpu"));
			n++;
		}
	return n;
}

static void hist_rows(FILE *f, struct col *cols, size_t n, const struct tl_out *o, uint64_t bucket_ns)
{
	uint64_t entries = o->entries;
	for (uint64_t r = 0; r < entries; r++) {
		int64_t row = (int64_t)(r * bucket_ns), lo;
		if (!o->with_zeros) {
			/* the next row any column has */
			int64_t next = INT64_MAX;
			for (size_t k = 0; k < n; k++)
				if (col_lo(&cols[k], &lo) && lo < next)
					next = lo;
			if (next == INT64_MAX)
				return;
			row = next;
			r = (uint64_t)next / bucket_ns;
		}
		fprintf(f, "%-6" PRIu64, (uint64_t)row / 1000);
		for (size_t k = 0; k < n; k++) {
			uint64_t cnt = 0;
			if (col_lo(&cols[k], &lo) && lo == row) {
				cnt = report_u64v(report_idx(report_idx(cols[k].b, cols[k].i), 1));
				cols[k].i++;
			}
			fprintf(f, " %9" PRIu64, cnt);
		}
		fputc('\n', f);
	}
}

static void summary_row(FILE *f, const char *name, struct col *cols, size_t n, const char *key)
{
	char v[32];
	fprintf(f, "%-6s", name);
	for (size_t k = 0; k < n; k++) {
		if (!strcmp(key, "count") || !strcmp(key, "over") || !strcmp(key, "missed"))
			fprintf(f, " %9" PRIu64, report_u64(cols[k].series, key));
		else
			fprintf(f, " %9s", us1(v, sizeof(v), cols[k].series, key));
	}
	fputc('\n', f);
}

void timerlat_text_hist(FILE *f, json_object *doc, const struct tl_out *o)
{
	enum { MAXCOLS = 3 * 1024 };
	static struct col cols[MAXCOLS];
	static char names[MAXCOLS][16];
	size_t n = hist_cols(doc, o, cols, MAXCOLS, names);
	uint64_t bucket_ns = report_u64(report_get(doc, "settings"), "bucket_ns");
	if (!bucket_ns)
		bucket_ns = 1000;
	if (!o->no_header) {
		fputs("# ", f);
		print_heading(f, doc, "timerlat hist");
		fprintf(f, "# bucket %" PRIu64 " us, %" PRIu64 " entries; latencies in us\n", bucket_ns / 1000,
			o->entries);
		fprintf(f, "%-6s", "Index");
		for (size_t k = 0; k < n; k++)
			fprintf(f, " %9s", names[k]);
		fputc('\n', f);
	}
	hist_rows(f, cols, n, o, bucket_ns);
	if (!o->no_summary) {
		static const struct { const char *name, *key; } rows[] = {
			{ "over:", "over" }, { "count:", "count" }, { "min:", "min_ns" }, { "avg:", "avg_ns" },
			{ "max:", "max_ns" }, { "p50:", "p50_ns" }, { "p99:", "p99_ns" }, { "p99.9:", "p99_9_ns" },
			{ "missed:", "missed" },
		};
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
			summary_row(f, rows[r].name, cols, n, rows[r].key);
	}
	print_stop(f, doc);
}

void timerlat_text_trace_header(FILE *f)
{
	fputs("# the timerlat tracer's records of the window, as the kernel writes them:\n"
	      "#  TASK-PID  [CPU]  FLAGS  TIMESTAMP: #ACTIVATION context CONTEXT timer_latency NS ns\n", f);
}

void timerlat_text_losses(FILE *f, json_object *doc, const char *prog)
{
	json_object *in = report_get(doc, "input"), *m = report_get(in, "missed");
	uint64_t lost = report_u64(in, "lost_lines"), over = report_u64(in, "overrun");
	if (lost || over)
		fprintf(f, "%s: the ring lost records: %" PRIu64 " overwritten before they were read (the "
			   "instance's stats), %" PRIu64 " said by the trace ([LOST])\n", prog, over, lost);
	uint64_t mi = report_u64(m, "irq"), mt = report_u64(m, "thread"), mu = report_u64(m, "user");
	if (mi || mt || mu) {
		fprintf(f, "%s: activations with no record (missed): irq %" PRIu64 ", thread %" PRIu64, prog, mi, mt);
		if (report_has(m, "user") && mu)
			fprintf(f, ", user %" PRIu64, mu);
		fputs(" (by CPU: ", f);
		json_object *cpus = report_get(doc, "cpus");
		bool first = true;
		for (size_t i = 0; i < report_len(cpus); i++) {
			json_object *c = report_idx(cpus, i);
			uint64_t n = 0;
			for (int x = 0; x < 3; x++)
				n += report_u64(report_get(c, ctx_keys[x]), "missed");
			if (n) {
				fprintf(f, "%sCPU%" PRIu64 " %" PRIu64, first ? "" : ", ", report_u64(c, "cpu"), n);
				first = false;
			}
		}
		fputs(")\n", f);
	}
	if (report_u64(in, "restarts"))
		fprintf(f, "%s: the activation numbers began again %" PRIu64 " times (the tracer's threads "
			   "restarted: another instance started or stopped timerlat)\n", prog,
			report_u64(in, "restarts"));
	if (report_u64(in, "malformed"))
		fprintf(f, "%s: %" PRIu64 " malformed tracer lines skipped\n", prog, report_u64(in, "malformed"));
	if (report_u64(in, "bad_cpu"))
		fprintf(f, "%s: %" PRIu64 " records of a CPU out of range skipped\n", prog, report_u64(in, "bad_cpu"));
}
