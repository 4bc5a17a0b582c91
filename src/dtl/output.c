/* SPDX-License-Identifier: MIT */
/*
 * output.c - `latscope dtl report` output: the text and JSON sections per
 * CPU and in total, the worst delays, the symbols where the vCPUs were taken
 * and the per-task timeline tables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "format/ksym.h"
#include "report.h"

static const char *const time_names[DTLSTAT_NTIMES] = {
	"enqueue_to_dispatch", "ready_to_enqueue", "waiting_to_ready",
};


static double ticks_us(uint64_t ticks, uint64_t f)
{
	return f ? (double)ticks * 1e6 / (double)f : 0;
}

uint64_t dtl_rep_freq_of(const struct dtlstat *s, const struct dtlstat_cpu *c, const struct rep *o)
{
	if (o->tb_freq_opt)
		return o->tb_freq_opt;	/* --tb-freq overrides the headers */
	if (c && dtl_tbinfo_valid(&c->tbi))
		return c->tbi.tb_freq;
	if (dtlstat_tbinfo(s).tb_freq)
		return dtlstat_tbinfo(s).tb_freq;
	return o->tb_freq_opt ? o->tb_freq_opt : DTL_DEFAULT_TB_FREQ;
}

/* The timebase parameters of a CPU's entries, --boot-tb/--tb-freq applied. */
struct dtl_tbinfo dtl_rep_eff_tbi(const struct dtlstat *s, const struct dtlstat_cpu *c, const struct rep *o)
{
	struct dtl_tbinfo tbi = c && dtl_tbinfo_valid(&c->tbi) ? c->tbi : dtlstat_tbinfo(s);

	if (o->have_boot_tb)
		tbi.boot_tb = o->boot_tb_opt;
	if (o->tb_freq_opt)
		tbi.tb_freq = o->tb_freq_opt;
	return tbi;
}

static void text_hist(const struct dtlstat_hist *h, uint64_t f)
{
	uint64_t bins[NBINS], maxc = 0;
	int lo = -1, hi = -1;

	dtlstat_hist_log2_us(h, f, bins, NBINS);
	for (int i = 0; i < NBINS; i++) {
		if (bins[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (bins[i] > maxc)
			maxc = bins[i];
	}
	for (int i = lo; i >= 0 && i <= hi; i++) {
		char range[64];
		int bar = maxc ? (int)((bins[i] * 40 + maxc - 1) / maxc) : 0;
		if (i == 0)
			snprintf(range, sizeof(range), "< 1");
		else if (i == NBINS - 1)
			snprintf(range, sizeof(range), ">= %llu", 1ULL << (i - 1));
		else
			snprintf(range, sizeof(range), "%llu - <%llu", 1ULL << (i - 1), 1ULL << i);
		printf("      %16s us |%-40.*s| %" PRIu64 "\n", range, bar,
		       "########################################", bins[i]);
	}
}

void dtl_rep_text_section(const struct dtlstat *s, const struct dtlstat_cpu *c, const char *title,
			  const struct rep *o, uint64_t span_tb, unsigned nr_vcpus)
{
	uint64_t f = dtl_rep_freq_of(s, c, o);
	double span_s = f ? (double)span_tb / (double)f : 0;
	char buf[DTL_REASON_BUFSZ];

	printf("\n%s: %" PRIu64 " dispatches", title, c->entries);
	if (span_s > 0 && nr_vcpus > 1)	/* a total: the vCPUs' spans added up */
		printf(" in %.6f vCPU-seconds (%u vCPUs' spans added), %.1f /s per vCPU", span_s,
		       nr_vcpus, (double)c->entries / span_s);
	else if (span_s > 0)
		printf(" in %.6f s, %.1f /s", span_s, (double)c->entries / span_s);
	printf("\n");
	printf("  hypervisor time (enqueue_to_dispatch + ready_to_enqueue): %.3f us", ticks_us(c->stolen_tb, f));
	if (span_tb)
		printf(" = %.4f %% of the recorded time", 100.0 * (double)c->stolen_tb / (double)span_tb);
	printf("\n");
	printf("  dispatched on another physical processor: %" PRIu64 " (%.2f %%)\n", c->proc_changes,
	       c->entries > 1 ? 100.0 * (double)c->proc_changes / (double)(c->entries - 1) : 0.0);
	if (c->tb_backwards)
		printf("  timebase went backwards: %" PRIu64 " times\n", c->tb_backwards);
	printf("  dispatch reasons:\n");
	for (int i = 0; i < 256; i++)
		if (c->dispatch[i])
			printf("    %-34s %12" PRIu64 "  %6.2f %%\n", dtl_dispatch_reason_str((unsigned)i, buf),
			       c->dispatch[i], 100.0 * (double)c->dispatch[i] / (double)c->entries);
	printf("  preempt reasons:\n");
	for (int i = 0; i < 256; i++)
		if (c->preempt[i])
			printf("    %-34s %12" PRIu64 "  %6.2f %%\n", dtl_preempt_reason_str((unsigned)i, buf),
			       c->preempt[i], 100.0 * (double)c->preempt[i] / (double)c->entries);
	for (int t = 0; t < DTLSTAT_NTIMES; t++) {
		const struct dtlstat_hist *h = &c->h[t];
		if (!h->count)
			continue;
		printf("  %s (us): min %.3f avg %.3f max %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f\n",
		       time_names[t], ticks_us(h->min, f), ticks_us(h->sum, f) / (double)h->count,
		       ticks_us(h->max, f), ticks_us(dtlstat_hist_percentile(h, 50), f),
		       ticks_us(dtlstat_hist_percentile(h, 90), f), ticks_us(dtlstat_hist_percentile(h, 99), f),
		       ticks_us(dtlstat_hist_percentile(h, 99.9), f));
		if (!o->no_hist)
			text_hist(h, f);
	}
}

static struct json_object *j_hist(const struct dtlstat_hist *h, uint64_t f)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	uint64_t bins[NBINS];

	json_object_object_add(o, "count", jsonnum_u64(h->count));
	json_object_object_add(o, "sum_ticks", jsonnum_u64(h->sum));
	/* the ticks as recorded, in ns where converted (docs/json.md) */
	json_object_object_add(o, "min_ns", jsonnum_u64(h->count ? dtl_ticks_to_ns(h->min, f) : 0));
	json_object_object_add(o, "avg_ns", jsonnum_u64(h->count ? dtl_ticks_to_ns(h->sum, f) / h->count : 0));
	json_object_object_add(o, "max_ns", jsonnum_u64(dtl_ticks_to_ns(h->max, f)));
	json_object_object_add(o, "p50_ns", jsonnum_u64(dtl_ticks_to_ns(dtlstat_hist_percentile(h, 50), f)));
	json_object_object_add(o, "p90_ns", jsonnum_u64(dtl_ticks_to_ns(dtlstat_hist_percentile(h, 90), f)));
	json_object_object_add(o, "p99_ns", jsonnum_u64(dtl_ticks_to_ns(dtlstat_hist_percentile(h, 99), f)));
	json_object_object_add(o, "p99_9_ns", jsonnum_u64(dtl_ticks_to_ns(dtlstat_hist_percentile(h, 99.9), f)));
	dtlstat_hist_log2_us(h, f, bins, NBINS);
	for (int i = 0; i < NBINS; i++) {
		if (!bins[i])
			continue;
		struct json_object *b = json_object_new_object();
		json_object_object_add(b, "lo_ns", jsonnum_u64(i ? (1ULL << (i - 1)) * 1000 : 0));
		if (i < NBINS - 1)
			json_object_object_add(b, "hi_ns", jsonnum_u64((1ULL << i) * 1000));
		json_object_object_add(b, "count", jsonnum_u64(bins[i]));
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "hist", a);
	return o;
}

struct json_object *dtl_rep_j_section(const struct dtlstat *s, const struct dtlstat_cpu *c,
				      const struct rep *o, uint64_t span_tb)
{
	struct json_object *j = json_object_new_object(), *d = json_object_new_object(),
			   *p = json_object_new_object(), *t = json_object_new_object();
	uint64_t f = dtl_rep_freq_of(s, c, o);
	double span_s = f ? (double)span_tb / (double)f : 0;
	char buf[DTL_REASON_BUFSZ];

	if (c->cpu != UINT32_MAX)
		json_object_object_add(j, "cpu", json_object_new_int64(c->cpu));
	json_object_object_add(j, "dispatches", jsonnum_u64(c->entries));
	json_object_object_add(j, "recorded_ns", jsonnum_u64(dtl_ticks_to_ns(span_tb, f)));
	json_object_object_add(j, "dispatches_per_sec", json_object_new_double(span_s > 0 ? (double)c->entries / span_s : 0));
	json_object_object_add(j, "hypervisor_ns", jsonnum_u64(dtl_ticks_to_ns(c->stolen_tb, f)));
	json_object_object_add(j, "hypervisor_share", json_object_new_double(span_tb ? (double)c->stolen_tb / (double)span_tb : 0));
	json_object_object_add(j, "processor_changes", jsonnum_u64(c->proc_changes));
	json_object_object_add(j, "timebase_backwards", jsonnum_u64(c->tb_backwards));
	for (int i = 0; i < 256; i++) {
		if (c->dispatch[i]) {
			/* duplicates in the table (firmware_internal_event) add up */
			const char *n = dtl_dispatch_reason_str((unsigned)i, buf);
			struct json_object *old;
			uint64_t v = c->dispatch[i];
			if (json_object_object_get_ex(d, n, &old))
				v += (uint64_t)json_object_get_int64(old);
			json_object_object_add(d, n, jsonnum_u64(v));
		}
		if (c->preempt[i])
			json_object_object_add(p, dtl_preempt_reason_str((unsigned)i, buf),
					       jsonnum_u64(c->preempt[i]));
	}
	json_object_object_add(j, "dispatch_reasons", d);
	json_object_object_add(j, "preempt_reasons", p);
	for (int i = 0; i < DTLSTAT_NTIMES; i++)
		json_object_object_add(t, time_names[i], j_hist(&c->h[i], f));
	json_object_object_add(j, "times", t);
	return j;
}

void dtl_rep_worst_text(const struct dtlstat *s, const struct rep *o)
{
	const struct dtlstat_worst *w;
	size_t n = dtlstat_worst(s, &w);
	char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ];

	if (!n)
		return;
	printf("\nWorst dispatch delays (enqueue_to_dispatch + ready_to_enqueue):\n");
	for (size_t i = 0; i < n; i++) {
		const struct dtlstat_cpu *c = dtlstat_cpu(s, w[i].cpu);
		struct dtl_tbinfo tbi = dtl_rep_eff_tbi(s, c, o);
		uint64_t f = dtl_rep_freq_of(s, c, o);
		uint64_t t = dtl_tbinfo_valid(&tbi) ? dtl_tb_to_ns(w[i].timebase, &tbi) : 0;
		printf("  %2zu. %12.3f us  cpu %-4u time %" PRIu64 ".%09" PRIu64 "  proc %-5u %s / %s\n",
		       i + 1, ticks_us(w[i].delay_tb, f), w[i].cpu, t / 1000000000u, t % 1000000000u,
		       w[i].e.processor_id, dtl_dispatch_reason_str(w[i].e.dispatch_reason, b1),
		       dtl_preempt_reason_str(w[i].e.preempt_reason, b2));
	}
}

struct json_object *dtl_rep_worst_json(const struct dtlstat *s, const struct rep *o)
{
	const struct dtlstat_worst *w;
	size_t n = dtlstat_worst(s, &w);
	struct json_object *a = json_object_new_array();
	char b1[DTL_REASON_BUFSZ];

	for (size_t i = 0; i < n; i++) {
		const struct dtlstat_cpu *c = dtlstat_cpu(s, w[i].cpu);
		struct dtl_tbinfo tbi = dtl_rep_eff_tbi(s, c, o);
		struct json_object *j = json_object_new_object();
		json_object_object_add(j, "cpu", json_object_new_int64(w[i].cpu));
		json_object_object_add(j, "time_ns", jsonnum_u64(
			dtl_tbinfo_valid(&tbi) ? dtl_tb_to_ns(w[i].timebase, &tbi) : 0));
		json_object_object_add(j, "timebase_ticks", jsonnum_u64(w[i].timebase));
		json_object_object_add(j, "delay_ticks", jsonnum_u64(w[i].delay_tb));
		json_object_object_add(j, "delay_ns", jsonnum_u64(dtl_ticks_to_ns(w[i].delay_tb, dtl_rep_freq_of(s, c, o))));
		json_object_object_add(j, "processor_id", json_object_new_int64(w[i].e.processor_id));
		json_object_object_add(j, "dispatch_reason",
				       json_object_new_string(dtl_dispatch_reason_str(w[i].e.dispatch_reason, b1)));
		json_object_object_add(j, "preempt_reason",
				       json_object_new_string(dtl_preempt_reason_str(w[i].e.preempt_reason, b1)));
		json_object_array_add(a, j);
	}
	return a;
}


static const uint64_t *sort_key;
static int cmp_sym(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (sort_key[x] != sort_key[y])
		return sort_key[x] > sort_key[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The symbol indexes with entries, sorted by key (caller frees). */
static size_t sym_sorted(const struct rep *o, const uint64_t *key, size_t **out)
{
	size_t n = 0, *v = malloc((o->nsyms + 1) * sizeof(*v));

	*out = v;
	if (!v)
		return 0;
	for (size_t i = 0; i <= o->nsyms; i++)
		if (o->sym_count[i])
			v[n++] = i;
	sort_key = key;
	qsort(v, n, sizeof(*v), cmp_sym);
	return n;
}

static void sym_name(const struct rep *o, size_t i, char *buf, size_t len)
{
	struct ksym_hit h;

	if (i < o->nsyms && ksym_get(o->syms, i, &h))
		snprintf(buf, len, "%s%s%s%s", h.name, h.module ? " [" : "", h.module ? h.module : "",
			 h.module ? "]" : "");
	else
		snprintf(buf, len, "[unknown]");
}

void dtl_rep_syms_text(const struct rep *o, uint64_t f)
{
	printf("\nWhere the vCPUs were when the hypervisor took them (srr0):\n");
	if (!o->syms) {
		printf("  (no symbol table: pass --kallsyms FILE from the recorded kernel, or run on it)\n");
		return;
	}
	uint64_t total = 0;
	for (size_t i = 0; i <= o->nsyms; i++)
		total += o->sym_count[i];
	for (int pass = 0; pass < 2; pass++) {
		size_t *v, n = sym_sorted(o, pass ? o->sym_hv : o->sym_count, &v);
		printf("  by %s:\n", pass ? "hypervisor time" : "count");
		for (size_t k = 0; k < n && (!o->top || k < o->top); k++) {
			char name[KSYM_NAME_MAX + 32];
			size_t i = v[k];
			sym_name(o, i, name, sizeof(name));
			printf("    %-40s %12" PRIu64 " %7.2f%% %16.3f us\n", name, o->sym_count[i],
			       total ? 100.0 * (double)o->sym_count[i] / (double)total : 0,
			       (double)dtl_ticks_to_ns(o->sym_hv[i], f) / 1e3);
		}
		free(v);
	}
}

struct json_object *dtl_rep_syms_json(const struct rep *o, uint64_t f)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "resolved", json_object_new_boolean(o->syms != NULL));
	if (!o->syms)
		return j;
	for (int pass = 0; pass < 2; pass++) {
		size_t *v, n = sym_sorted(o, pass ? o->sym_hv : o->sym_count, &v);
		struct json_object *a = json_object_new_array();
		for (size_t k = 0; k < n && (!o->top || k < o->top); k++) {
			char name[KSYM_NAME_MAX + 32];
			struct json_object *e = json_object_new_object();
			sym_name(o, v[k], name, sizeof(name));
			json_object_object_add(e, "symbol", json_object_new_string(name));
			json_object_object_add(e, "count", jsonnum_u64(o->sym_count[v[k]]));
			json_object_object_add(e, "hypervisor_ns", jsonnum_u64(dtl_ticks_to_ns(o->sym_hv[v[k]], f)));
			json_object_array_add(a, e);
		}
		free(v);
		json_object_object_add(j, pass ? "by_hypervisor_time" : "by_count", a);
	}
	return j;
}

/* A poll of the vpa_dtl driver copies at most 84 entries (85-entry ring,
 * the oldest dropped on overflow); its first also has the header. */

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

void dtl_rep_tasks_text(struct rep *o)
{
	const struct dtltask_row *rows;
	uint64_t f;
	size_t n = dtltask_rows(o->tasks, &rows, &f), shown = 0;

	printf("\nWho the hypervisor hurt (involuntary interruptions charged to the task on the vCPU):\n");
	printf("  %-16s %8s %13s %16s %13s %9s %14s\n", "task", "pid", "interruptions",
	       "hypervisor us", "worst us", "share", "run s");
	for (size_t i = 0; i < n; i++) {
		const struct dtltask_row *k = &rows[i];
		if (!k->interruptions && k->pid > 0)
			continue;	/* tasks never hurt: left out, counted below */
		if (o->top && shown >= o->top)
			break;
		char pid[16];
		if (k->pid > 0)
			snprintf(pid, sizeof(pid), "%d", k->pid);
		else
			snprintf(pid, sizeof(pid), "-");
		uint64_t hv = dtl_ticks_to_ns(k->hv_ticks, f);
		printf("  %-16s %8s %13" PRIu64 " %16.3f %13.3f %8.4f%% %14.6f\n", k->comm, pid,
		       k->interruptions, (double)hv / 1e3, (double)dtl_ticks_to_ns(k->worst_ticks, f) / 1e3,
		       100.0 * share(hv, k->run_ns), (double)k->run_ns / 1e9);
		shown++;
	}
	size_t unhurt = 0;
	for (size_t i = 0; i < n; i++)
		unhurt += !rows[i].interruptions && rows[i].pid > 0;
	if (unhurt)
		printf("  (%zu more tasks ran and were never interrupted)\n", unhurt);
	if (!n)
		printf("  (no sched_switch samples: no task can be named)\n");
}

struct json_object *dtl_rep_tasks_json(struct rep *o)
{
	const struct dtltask_row *rows;
	uint64_t f;
	size_t n = dtltask_rows(o->tasks, &rows, &f);
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		const struct dtltask_row *k = &rows[i];
		struct json_object *j = json_object_new_object();
		uint64_t hv = dtl_ticks_to_ns(k->hv_ticks, f);
		json_object_object_add(j, "comm", json_object_new_string(k->comm));
		json_object_object_add(j, "pid", json_object_new_int64(k->pid));
		json_object_object_add(j, "idle", json_object_new_boolean(k->pid == DTLTASK_PID_IDLE));
		json_object_object_add(j, "unknown", json_object_new_boolean(k->pid == DTLTASK_PID_UNKNOWN));
		json_object_object_add(j, "interruptions", jsonnum_u64(k->interruptions));
		json_object_object_add(j, "hypervisor_ns", jsonnum_u64(hv));
		json_object_object_add(j, "worst_ns", jsonnum_u64(dtl_ticks_to_ns(k->worst_ticks, f)));
		if (k->interruptions) {
			json_object_object_add(j, "worst_cpu", json_object_new_int64(k->worst_cpu));
			json_object_object_add(j, "worst_time_ns", jsonnum_u64(k->worst_time_ns));
		}
		json_object_object_add(j, "run_ns", jsonnum_u64(k->run_ns));
		json_object_object_add(j, "share_of_run", json_object_new_double(share(hv, k->run_ns)));
		json_object_array_add(a, j);
	}
	return a;
}

struct json_object *dtl_rep_timeline_json(const struct rep *o)
{
	static const char *const src[] = { "none", "index", "scan", "stream" };
	struct json_object *j = json_object_new_object();
	const struct dtltl_stats *t = o->tl;

	json_object_object_add(j, "source", json_object_new_string(src[t->source]));
	if (t->why_scan[0])
		json_object_object_add(j, "why_scan", json_object_new_string(t->why_scan));
	json_object_object_add(j, "late_entries", jsonnum_u64(o->late));
	json_object_object_add(j, "unindexed_buffers", jsonnum_u64(t->unindexed_buffers));
	json_object_object_add(j, "dropped_buffers", jsonnum_u64(t->bad_cpu_buffers));
	if (t->source == DTLTL_SRC_STREAM) {
		json_object_object_add(j, "reorder_window_ns", jsonnum_u64(t->window_ns));
		json_object_object_add(j, "forced_records", jsonnum_u64(t->forced_records));
	}
	return j;
}
