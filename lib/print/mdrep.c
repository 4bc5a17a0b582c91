/* SPDX-License-Identifier: MIT */
/* mdrep.c - a report document as a Markdown summary (see mdrep.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <json-c/json.h>

#include "print/mdrep.h"
#include "report/report.h"

bool mdrep_supported(const char *schema)
{
	return schema && (!strcmp(schema, REPORT_DTL_REPORT) || !strcmp(schema, REPORT_HIST) ||
			  !strcmp(schema, REPORT_OSNOISE) || !strcmp(schema, REPORT_TIMERLAT));
}

/* Text in a table cell: | and \ escaped, control characters as spaces. */
static void cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*')
			fputc('\\', f);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	}
}

static void dur(FILE *f, struct json_object *o, const char *key)
{
	char b[32];
	if (report_has(o, key))
		fprintf(f, " %s |", report_dur(b, sizeof(b), report_u64(o, key)));
	else
		fputs("  |", f);
}

/* ---- losses ------------------------------------------------------------------------ */

/* The non-zero counters of o among keys, after the others already said
 * (*n of them): "name N". */
static void losses_of(FILE *f, struct json_object *o, const char *prefix, const char *const *keys,
		      size_t *n)
{
	for (size_t i = 0; keys[i]; i++) {
		uint64_t v = report_u64(o, keys[i]);
		if (v)
			fprintf(f, "%s`%s%s` %" PRIu64, (*n)++ ? ", " : "", prefix, keys[i], v);
	}
}

/* fired against delivered (docs/json.md): the kernel's firings never delivered */
static const char *const fired_keys[] = { "undelivered", "throttles", "unthrottles", NULL };

static void losses_end(FILE *f, size_t n)
{
	fprintf(f, "%s\n\n", n ? "" : "none named");
}

/* ---- hist -------------------------------------------------------------------------- */

static void hist_worst(FILE *f, struct json_object *m)
{
	char b[32];
	if (!m) {
		fputs("  |\n", f);
		return;
	}
	fprintf(f, " %s: %" PRId64 " ", report_dur(b, sizeof(b), report_u64(m, "latency_ns")),
		report_i64(m, "pid"));
	cell(f, report_str(m, "comm"));
	fprintf(f, " (prio %" PRId64 ")", report_i64(m, "prio"));
	if (report_has(m, "culprit_pid")) {
		fprintf(f, " ← %" PRId64 " ", report_i64(m, "culprit_pid"));
		cell(f, report_str(m, "culprit_comm"));
		fprintf(f, " (prio %" PRId64 ")", report_i64(m, "culprit_prio"));
	}
	fputs(" |\n", f);
}

static void hist_row(FILE *f, const char *label, struct json_object *c)
{
	fprintf(f, "| %s | %" PRIu64 " |", label, report_u64(c, "total"));
	static const char *const keys[] = { "min_ns", "avg_ns", "p50_ns", "p99_ns", "p99_9_ns", "max_ns" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		dur(f, c, keys[i]);
	hist_worst(f, report_get(c, "max_latency"));
}

static int hist_summary(FILE *f, struct json_object *doc)
{
	struct json_object *hs = report_get(doc, "histograms");
	fputs("## latscope hist\n\n", f);
	size_t shown = 0;
	if (hs && json_object_is_type(hs, json_type_object)) {
		json_object_object_foreach(hs, kind, h) {
			struct json_object *cpus = report_get(h, "cpus");
			size_t n = report_len(cpus);
			fprintf(f, "### %s\n\n", kind);
			shown++;
			if (!n) {
				fputs("no samples\n\n", f);
				continue;
			}
			fputs("| CPU | samples | min | avg | p50 | p99 | p99.9 | max | worst case (victim ← culprit) |\n"
			      "|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n", f);
			for (size_t i = 0; i < n; i++) {
				struct json_object *c = report_idx(cpus, i);
				char label[24];
				snprintf(label, sizeof(label), "%" PRId64, report_i64(c, "cpu"));
				hist_row(f, label, c);
			}
			if (report_has(h, "all") && n > 1)
				hist_row(f, "all", report_get(h, "all"));
			fputc('\n', f);
		}
	}
	if (!shown)
		fputs("no histogram\n\n", f);
	struct json_object *un = report_get(doc, "unavailable");
	for (size_t i = 0; i < report_len(un); i++)
		fprintf(f, "%s%s%s", i ? ", " : "Not available on this input: ",
			json_object_get_string(report_idx(un, i)), i + 1 == report_len(un) ? "\n\n" : "");
	static const char *const input_keys[] = {
		"lost_events", "lost_samples", "dropped", "undecoded", "bad_raw", "no_raw", "unknown_id",
		"bad_samples", "out_of_order", "duplicates", "forced_flushes", "outside_time", NULL,
	};
	struct json_object *in = report_get(doc, "input");
	size_t n = 0;
	fputs("**Losses:** ", f);
	losses_of(f, in, "input.", input_keys, &n);
	losses_of(f, report_get(in, "fired"), "input.fired.", fired_keys, &n);
	losses_end(f, n);
	return 0;
}

/* ---- osnoise ----------------------------------------------------------------------- */

static void osnoise_top(FILE *f, struct json_object *c)
{
	struct json_object *top = report_get(c, "top");
	struct json_object *t = report_idx(top, 0);
	char b[32];
	if (!t) {
		fputs("  |\n", f);
		return;
	}
	fprintf(f, " %s ", report_str(t, "class"));
	cell(f, report_str(t, "name"));
	fprintf(f, ":%" PRId64 ", %s in %" PRIu64 " |\n", report_i64(t, "id"),
		report_dur(b, sizeof(b), report_u64(t, "total_ns")), report_u64(t, "count"));
}

static int osnoise_summary(FILE *f, struct json_object *doc)
{
	struct json_object *cpus = report_get(doc, "cpus");
	fprintf(f, "## latscope osnoise %s\n\n", report_str(doc, "mode"));
	if (!report_len(cpus)) {
		fputs("no CPU measured\n\n", f);
	} else {
		fputs("| CPU | runtime | noise | % CPU available | max single | HW | NMI | IRQ | Softirq | Thread "
		      "| top contributor |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n", f);
		for (size_t i = 0; i < report_len(cpus); i++) {
			struct json_object *c = report_idx(cpus, i);
			fprintf(f, "| %" PRIu64 " |", report_u64(c, "cpu"));
			dur(f, c, "runtime_ns");
			dur(f, c, "noise_ns");
			fprintf(f, " %.5f |", report_dbl(c, "cpu_available_pct"));
			dur(f, c, "max_single_ns");
			for (size_t k = 0; k < REPORT_NOISE_CLASSES; k++)
				fprintf(f, " %" PRIu64 " |", report_u64(c, report_noise_class_keys[k]));
			osnoise_top(f, c);
		}
		fputc('\n', f);
	}
	if (report_has(doc, "attribution_off"))
		fprintf(f, "No attribution: %s\n\n", report_str(doc, "attribution_off"));
	static const char *const top_keys[] = { "events_lost", "dropped", NULL };
	static const char *const skipped_keys[] = {
		"unknown_id", "bad_samples", "undecoded", "bad_workload_records", "workload_records_lost",
		"out_of_order", "forced_flushes", "duplicates", "corrupt_ring_bytes", NULL,
	};
	static const char *const anomaly_keys[] = {
		"unmatched_exit", "dropped_open", "unseen_switch_in", "negative", "history_overflow",
		"contrib_overflow", NULL,
	};
	size_t n = 0;
	fputs("**Losses:** ", f);
	losses_of(f, doc, "", top_keys, &n);
	losses_of(f, report_get(doc, "skipped"), "skipped.", skipped_keys, &n);
	losses_of(f, report_get(doc, "fired"), "fired.", fired_keys, &n);
	losses_end(f, n);
	n = 0;
	fputs("**Anomalies:** ", f);
	losses_of(f, report_get(doc, "anomalies"), "", anomaly_keys, &n);
	losses_end(f, n);
	return 0;
}

/* ---- dtl report -------------------------------------------------------------------- */

static void dtl_row(FILE *f, const char *label, struct json_object *c)
{
	struct json_object *e2d = report_get(report_get(c, "times"), "enqueue_to_dispatch");
	fprintf(f, "| %s | %" PRIu64 " | %.1f |", label, report_u64(c, "dispatches"),
		report_dbl(c, "dispatches_per_sec"));
	dur(f, c, "hypervisor_ns");
	fprintf(f, " %.2f %% |", 100.0 * report_dbl(c, "hypervisor_share"));
	dur(f, e2d, "p99_ns");
	dur(f, e2d, "max_ns");
	fputc('\n', f);
}

static int dtl_summary(FILE *f, struct json_object *doc)
{
	struct json_object *cpus = report_get(doc, "cpus");
	char b[32];
	fputs("## latscope dtl report", f);
	if (report_has(doc, "file")) {
		fputs(": ", f);
		cell(f, report_str(doc, "file"));
	}
	fputs("\n\n", f);
	if (!report_len(cpus)) {
		fputs("no DTL entries\n\n", f);
	} else {
		fputs("| vCPU | dispatches | per second | hypervisor time | share | enqueue to dispatch p99 | max |\n"
		      "|---:|---:|---:|---:|---:|---:|---:|\n", f);
		for (size_t i = 0; i < report_len(cpus); i++) {
			struct json_object *c = report_idx(cpus, i);
			char label[24];
			snprintf(label, sizeof(label), "%" PRId64, report_i64(c, "cpu"));
			dtl_row(f, label, c);
		}
		if (report_len(cpus) > 1)
			dtl_row(f, "all", report_get(doc, "total"));
		fputc('\n', f);
	}
	struct json_object *worst = report_get(doc, "worst");
	size_t nw = report_len(worst) < 5 ? report_len(worst) : 5;
	if (nw) {
		fputs("Worst dispatch delays:\n\n| vCPU | delay | processor | dispatch reason | preempt reason |\n"
		      "|---:|---:|---:|:---|:---|\n", f);
		for (size_t i = 0; i < nw; i++) {
			struct json_object *w = report_idx(worst, i);
			fprintf(f, "| %" PRId64 " | %s | %" PRId64 " | ", report_i64(w, "cpu"),
				report_dur(b, sizeof(b), report_u64(w, "delay_ns")), report_i64(w, "processor_id"));
			cell(f, report_str(w, "dispatch_reason"));
			fputs(" | ", f);
			cell(f, report_str(w, "preempt_reason"));
			fputs(" |\n", f);
		}
		fputc('\n', f);
	}
	static const char *const data_keys[] = {
		"skipped_slots", "odd_payloads", "tail_bytes", "aux_wraps", "aux_holes", "aux_hole_bytes",
		"aux_errors", "unknown_reasons", "aux_truncated", "aux_partial", "aux_collision", "lost_records",
		"lost_events", "dropped_buffers", "ring_full_polls", "unknown_id_samples", "short_samples",
		"late_entries", "bad_switch_samples", NULL,
	};
	struct json_object *data = report_get(doc, "data");
	size_t n = 0;
	fputs("**Losses:** ", f);
	losses_of(f, data, "data.", data_keys, &n);
	struct json_object *stopped = report_get(data, "dtl_stopped_cpus");
	for (size_t i = 0; i < report_len(stopped); i++)
		fprintf(f, "%s%s%" PRId64, n++ ? ", " : "", i ? "" : "the DTL stopped on CPU ",
			json_object_get_int64(report_idx(stopped, i)));
	losses_end(f, n);
	return 0;
}

/* ---- timerlat ---------------------------------------------------------------------- */

static int timerlat_summary(FILE *f, struct json_object *doc)
{
	static const char *const ctxs[] = { "irq", "thread", "user" };
	struct json_object *cpus = report_get(doc, "cpus"), *in = report_get(doc, "input");
	fprintf(f, "# latscope timerlat %s\n\n", report_str(doc, "mode"));
	fputs("| CPU | context | count | min | avg | p99 | max | missed |\n|---|---|---|---|---|---|---|---|\n", f);
	for (size_t i = 0; i < report_len(cpus); i++) {
		struct json_object *c = report_idx(cpus, i);
		for (size_t x = 0; x < 3; x++) {
			struct json_object *o = report_get(c, ctxs[x]);
			if (!o)
				continue;
			fprintf(f, "| %" PRIu64 " | %s | %" PRIu64 " |", report_u64(c, "cpu"), ctxs[x],
				report_u64(o, "count"));
			dur(f, o, "min_ns");
			dur(f, o, "avg_ns");
			dur(f, o, "p99_ns");
			dur(f, o, "max_ns");
			fprintf(f, " %" PRIu64 " |\n", report_u64(o, "missed"));
		}
	}
	struct json_object *s = report_get(doc, "stop");
	if (s && report_has(s, "latency_ns")) {
		char b[32];
		fprintf(f, "\n**Stopped:** CPU %" PRIu64 " %s latency %s\n", report_u64(s, "cpu"),
			report_str(s, "context"), report_dur(b, sizeof(b), report_u64(s, "latency_ns")));
	}
	static const char *const in_keys[] = { "overrun", "lost_lines", "malformed", "bad_cpu", NULL };
	static const char *const missed_keys[] = { "irq", "thread", "user", NULL };
	size_t n = 0;
	fputs("\n**Losses:** ", f);
	losses_of(f, in, "input.", in_keys, &n);
	losses_of(f, report_get(in, "missed"), "input.missed.", missed_keys, &n);
	losses_end(f, n);
	return 0;
}

int mdrep_write(FILE *f, struct json_object *doc)
{
	const char *s = report_schema(doc);
	int rc;
	if (!s)
		return -EINVAL;
	if (!strcmp(s, REPORT_HIST))
		rc = hist_summary(f, doc);
	else if (!strcmp(s, REPORT_OSNOISE))
		rc = osnoise_summary(f, doc);
	else if (!strcmp(s, REPORT_DTL_REPORT))
		rc = dtl_summary(f, doc);
	else if (!strcmp(s, REPORT_TIMERLAT))
		rc = timerlat_summary(f, doc);
	else
		return -EINVAL;
	if (rc)
		return rc;
	return ferror(f) ? -EIO : 0;
}
