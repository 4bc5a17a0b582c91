/* SPDX-License-Identifier: MIT */
/* report.c - `latscope dtl report`: DTL statistics per CPU and in total. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "bytes.h"
#include "dtl.h"
#include "jsonv.h"
#include "ksym.h"
#include "dtl_cmd.h"
#include "dtlmerge.h"
#include "dtlstat.h"
#include "dtltask.h"
#include "dtltl.h"
#include "tpevent.h"
#include "parse.h"
#include "pdread.h"

#define NBINS 24

static const char *const time_names[DTLS_NTIMES] = {
	"enqueue_to_dispatch", "ready_to_enqueue", "waiting_to_ready",
};

struct rep {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT, DTL_CMD_READ_OPTS */
	bool json, no_hist, total_only, have_cpus, timeline;
	uint64_t top;
	struct dtltask *tasks;
	struct dtlt *dt;
	/* where the vCPUs were (srr0), per symbol of syms, [nsyms] = unresolved */
	struct ksym *syms;
	uint64_t *sym_count, *sym_hv;
	size_t nsyms;
	uint64_t last_addr;
	size_t last_idx;
	const struct dtlt_stats *tl;
	uint64_t late;
	uint64_t dropped;		/* AUX buffers with a CPU out of range */
	uint64_t ring_full;		/* polls that copied all the hypervisor ring lets through */
	uint8_t aux_seen[DTLS_MAX_CPUS];
	struct ps_cpuset cpus;
	uint64_t tb_freq_opt, boot_tb_opt;
	bool have_boot_tb;
	uint64_t min_rec_ns, max_rec_ns;	/* fast path: timed records seen */
	uint64_t aux_flags[3], lost_events, lost_records, aux_records;
	uint64_t first_sample_ns, last_sample_ns;
};
_Static_assert(offsetof(struct rep, in) == 0, "struct dtl_cmd_in first");

#define REP_FLAG(n, f, h) CLI_OPT(n, 0, CLI_T_FLAG, struct rep, f, CLI_NONE, 0, 0, 0, NULL, h, NULL)
static const struct cli_opt report_opts[] = {
	DTL_CMD_INPUT,
	REP_FLAG("json", json, "one JSON document instead of text"),
	REP_FLAG("no-hist", no_hist, "text: leave out the histograms"),
	REP_FLAG("total-only", total_only, "text: only the total, no per-CPU sections"),
	CLI_CPU_PERF(struct rep, cpus, have_cpus, "only these CPUs"),
	CLI_OPT("tb-freq", 0, CLI_T_U64, struct rep, tb_freq_opt, CLI_NONE, 1, 0, 0, "HZ",
		"timebase frequency of the entries (overrides the\nheader records)", "a positive integer"),
	CLI_OPT("boot-tb", 0, CLI_T_U64, struct rep, boot_tb_opt, CLI_GIVEN(struct rep, have_boot_tb), 0, 0, 0,
		"N", "boot timebase of the entries (overrides the header\nrecords)", "an integer"),
	CLI_OPT("top", 0, CLI_T_U64, struct rep, top, CLI_NONE, 0, 1000000, 0, "N",
		"rows of the per-task table (default 20; 0 = all)", NULL),
	DTL_CMD_READ_OPTS("symbols for srr0 from this kallsyms file (the top\n"
			  "symbols where the vCPUs were taken, by count and by\n"
			  "hypervisor time; default: /proc/kallsyms when the\n"
			  "recording's osrelease and arch are this machine's)"),
	CLI_END
};

const struct cli_cmd dtl_report_cli = {
	.name = "latscope dtl report",
	.usage = "usage: latscope dtl report [options] FILE",
	.intro =
"Statistics of the DTL entries of a perf.data file, per CPU and in total:\n"
"dispatch and preempt reason counts; the three DTL times (enqueue_to_dispatch,\n"
"ready_to_enqueue, waiting_to_ready) as latency histograms in microseconds with\n"
"min/avg/max and p50/p90/p99/p99.9; the hypervisor time taken from the\n"
"partition (enqueue_to_dispatch + ready_to_enqueue, as the kernel's stolen-time\n"
"accounting counts it) as a share of the recorded time (each CPU's first to\n"
"last DTL entry); dispatches per second; how often a vCPU came back on another\n"
"physical processor; the worst dispatch delays with time and CPU.\n",
	.opts = report_opts,
	.outro =
"When the file also has sched:sched_switch samples (or comes through a pipe),\n"
"the entries are merged with them into one timeline and every involuntary\n"
"interruption (any preempt reason but H_CEDE, H_CONFER, H_CONFER_ADJUNCT, which\n"
"are the partition's own choice) is charged to the task that was running on\n"
"that vCPU when the hypervisor took it: per task the interruptions, their\n"
"hypervisor time (enqueue_to_dispatch + ready_to_enqueue), the worst one, and\n"
"that time as a share of the task's run time.  Idle time is shown as [idle];\n"
"entries before a CPU's first sched_switch as [unknown].\n",
	.operands = true,
};

static double ticks_us(uint64_t ticks, uint64_t f)
{
	return f ? (double)ticks * 1e6 / (double)f : 0;
}

static uint64_t freq_of(const struct dtls *s, const struct dtls_cpu *c, const struct rep *o)
{
	if (o->tb_freq_opt)
		return o->tb_freq_opt;	/* --tb-freq overrides the headers */
	if (c && dtl_tbinfo_valid(&c->tbi))
		return c->tbi.tb_freq;
	if (dtls_tbinfo(s).tb_freq)
		return dtls_tbinfo(s).tb_freq;
	return o->tb_freq_opt ? o->tb_freq_opt : DTL_DEFAULT_TB_FREQ;
}

/* The timebase parameters of a CPU's entries, --boot-tb/--tb-freq applied. */
static struct dtl_tbinfo eff_tbi(const struct dtls *s, const struct dtls_cpu *c, const struct rep *o)
{
	struct dtl_tbinfo tbi = c && dtl_tbinfo_valid(&c->tbi) ? c->tbi : dtls_tbinfo(s);

	if (o->have_boot_tb)
		tbi.boot_tb = o->boot_tb_opt;
	if (o->tb_freq_opt)
		tbi.tb_freq = o->tb_freq_opt;
	return tbi;
}

static void text_hist(const struct dtls_hist *h, uint64_t f)
{
	uint64_t bins[NBINS], maxc = 0;
	int lo = -1, hi = -1;

	dtls_hist_log2_us(h, f, bins, NBINS);
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

static void text_section(const struct dtls *s, const struct dtls_cpu *c, const char *title,
			 const struct rep *o, uint64_t span_tb)
{
	uint64_t f = freq_of(s, c, o);
	double span_s = f ? (double)span_tb / (double)f : 0;
	char buf[DTL_REASON_BUFSZ];

	printf("\n%s: %" PRIu64 " dispatches", title, c->entries);
	if (span_s > 0)
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
	for (int t = 0; t < DTLS_NTIMES; t++) {
		const struct dtls_hist *h = &c->h[t];
		if (!h->count)
			continue;
		printf("  %s (us): min %.3f avg %.3f max %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f\n",
		       time_names[t], ticks_us(h->min, f), ticks_us(h->sum, f) / (double)h->count,
		       ticks_us(h->max, f), ticks_us(dtls_hist_percentile(h, 50), f),
		       ticks_us(dtls_hist_percentile(h, 90), f), ticks_us(dtls_hist_percentile(h, 99), f),
		       ticks_us(dtls_hist_percentile(h, 99.9), f));
		if (!o->no_hist)
			text_hist(h, f);
	}
}

static struct json_object *j_hist(const struct dtls_hist *h, uint64_t f)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	uint64_t bins[NBINS];

	json_object_object_add(o, "count", jsonv_u64(h->count));
	json_object_object_add(o, "sum_ticks", jsonv_u64(h->sum));
	json_object_object_add(o, "min_us", json_object_new_double(h->count ? ticks_us(h->min, f) : 0));
	json_object_object_add(o, "avg_us", json_object_new_double(h->count ? ticks_us(h->sum, f) / (double)h->count : 0));
	json_object_object_add(o, "max_us", json_object_new_double(ticks_us(h->max, f)));
	json_object_object_add(o, "p50_us", json_object_new_double(ticks_us(dtls_hist_percentile(h, 50), f)));
	json_object_object_add(o, "p90_us", json_object_new_double(ticks_us(dtls_hist_percentile(h, 90), f)));
	json_object_object_add(o, "p99_us", json_object_new_double(ticks_us(dtls_hist_percentile(h, 99), f)));
	json_object_object_add(o, "p99_9_us", json_object_new_double(ticks_us(dtls_hist_percentile(h, 99.9), f)));
	dtls_hist_log2_us(h, f, bins, NBINS);
	for (int i = 0; i < NBINS; i++) {
		if (!bins[i])
			continue;
		struct json_object *b = json_object_new_object();
		json_object_object_add(b, "lo_us", jsonv_u64(i ? 1ULL << (i - 1) : 0));
		if (i < NBINS - 1)
			json_object_object_add(b, "hi_us", jsonv_u64(1ULL << i));
		json_object_object_add(b, "count", jsonv_u64(bins[i]));
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "hist", a);
	return o;
}

static struct json_object *j_section(const struct dtls *s, const struct dtls_cpu *c,
				     const struct rep *o, uint64_t span_tb)
{
	struct json_object *j = json_object_new_object(), *d = json_object_new_object(),
			   *p = json_object_new_object(), *t = json_object_new_object();
	uint64_t f = freq_of(s, c, o);
	double span_s = f ? (double)span_tb / (double)f : 0;
	char buf[DTL_REASON_BUFSZ];

	if (c->cpu != UINT32_MAX)
		json_object_object_add(j, "cpu", json_object_new_int64(c->cpu));
	json_object_object_add(j, "dispatches", jsonv_u64(c->entries));
	json_object_object_add(j, "recorded_ns", jsonv_u64(dtl_ticks_to_ns(span_tb, f)));
	json_object_object_add(j, "dispatches_per_sec", json_object_new_double(span_s > 0 ? (double)c->entries / span_s : 0));
	json_object_object_add(j, "hypervisor_ns", jsonv_u64(dtl_ticks_to_ns(c->stolen_tb, f)));
	json_object_object_add(j, "hypervisor_share", json_object_new_double(span_tb ? (double)c->stolen_tb / (double)span_tb : 0));
	json_object_object_add(j, "processor_changes", jsonv_u64(c->proc_changes));
	json_object_object_add(j, "timebase_backwards", jsonv_u64(c->tb_backwards));
	for (int i = 0; i < 256; i++) {
		if (c->dispatch[i]) {
			/* duplicates in the table (firmware_internal_event) add up */
			const char *n = dtl_dispatch_reason_str((unsigned)i, buf);
			struct json_object *old;
			uint64_t v = c->dispatch[i];
			if (json_object_object_get_ex(d, n, &old))
				v += (uint64_t)json_object_get_int64(old);
			json_object_object_add(d, n, jsonv_u64(v));
		}
		if (c->preempt[i])
			json_object_object_add(p, dtl_preempt_reason_str((unsigned)i, buf),
					       jsonv_u64(c->preempt[i]));
	}
	json_object_object_add(j, "dispatch_reasons", d);
	json_object_object_add(j, "preempt_reasons", p);
	for (int i = 0; i < DTLS_NTIMES; i++)
		json_object_object_add(t, time_names[i], j_hist(&c->h[i], f));
	json_object_object_add(j, "times", t);
	return j;
}

static void worst_text(const struct dtls *s, const struct rep *o)
{
	const struct dtls_worst *w;
	size_t n = dtls_worst(s, &w);
	char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ];

	if (!n)
		return;
	printf("\nWorst dispatch delays (enqueue_to_dispatch + ready_to_enqueue):\n");
	for (size_t i = 0; i < n; i++) {
		const struct dtls_cpu *c = dtls_cpu(s, w[i].cpu);
		struct dtl_tbinfo tbi = eff_tbi(s, c, o);
		uint64_t f = freq_of(s, c, o);
		uint64_t t = dtl_tbinfo_valid(&tbi) ? dtl_tb_to_ns(w[i].timebase, &tbi) : 0;
		printf("  %2zu. %12.3f us  cpu %-4u time %" PRIu64 ".%09" PRIu64 "  proc %-5u %s / %s\n",
		       i + 1, ticks_us(w[i].delay_tb, f), w[i].cpu, t / 1000000000u, t % 1000000000u,
		       w[i].e.processor_id, dtl_dispatch_reason_str(w[i].e.dispatch_reason, b1),
		       dtl_preempt_reason_str(w[i].e.preempt_reason, b2));
	}
}

static struct json_object *worst_json(const struct dtls *s, const struct rep *o)
{
	const struct dtls_worst *w;
	size_t n = dtls_worst(s, &w);
	struct json_object *a = json_object_new_array();
	char b1[DTL_REASON_BUFSZ];

	for (size_t i = 0; i < n; i++) {
		const struct dtls_cpu *c = dtls_cpu(s, w[i].cpu);
		struct dtl_tbinfo tbi = eff_tbi(s, c, o);
		struct json_object *j = json_object_new_object();
		json_object_object_add(j, "cpu", json_object_new_int64(w[i].cpu));
		json_object_object_add(j, "time_ns", jsonv_u64(
			dtl_tbinfo_valid(&tbi) ? dtl_tb_to_ns(w[i].timebase, &tbi) : 0));
		json_object_object_add(j, "timebase", jsonv_u64(w[i].timebase));
		json_object_object_add(j, "delay_us", json_object_new_double(ticks_us(w[i].delay_tb, freq_of(s, c, o))));
		json_object_object_add(j, "processor_id", json_object_new_int64(w[i].e.processor_id));
		json_object_object_add(j, "dispatch_reason",
				       json_object_new_string(dtl_dispatch_reason_str(w[i].e.dispatch_reason, b1)));
		json_object_object_add(j, "preempt_reason",
				       json_object_new_string(dtl_preempt_reason_str(w[i].e.preempt_reason, b1)));
		json_object_array_add(a, j);
	}
	return a;
}

static int syms_init(struct rep *o)
{
	if (!o->syms)
		return 0;
	o->nsyms = ksym_count(o->syms);
	o->sym_count = calloc(o->nsyms + 1, sizeof(uint64_t));
	o->sym_hv = calloc(o->nsyms + 1, sizeof(uint64_t));
	o->last_idx = SIZE_MAX;
	return o->sym_count && o->sym_hv ? 0 : -ENOMEM;
}

/* One entry's srr0 and hypervisor ticks into the per-symbol counters. */
static void sym_account(struct rep *o, const uint8_t *raw)
{
	uint64_t a = by_ld64_be(raw + 32);
	size_t i;

	if (a == o->last_addr && o->last_idx != SIZE_MAX) {
		i = o->last_idx;
	} else {
		struct ksym_hit h;
		i = ksym_lookup(o->syms, a, &h) ? h.index : o->nsyms;
		o->last_addr = a;
		o->last_idx = i;
	}
	o->sym_count[i]++;
	o->sym_hv[i] += (uint64_t)by_ld32_be(raw + 4) + by_ld32_be(raw + 8);
}

static void sym_payload(struct rep *o, const uint8_t *p, uint64_t len)
{
	for (uint64_t off = 0; off + DTL_ENTRY_SIZE <= len; off += DTL_ENTRY_SIZE)
		if (!dtl_raw_is_skipped(p + off))
			sym_account(o, p + off);
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

static void syms_text(const struct rep *o, uint64_t f)
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

static struct json_object *syms_json(const struct rep *o, uint64_t f)
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
			json_object_object_add(e, "count", jsonv_u64(o->sym_count[v[k]]));
			json_object_object_add(e, "hypervisor_ns", jsonv_u64(dtl_ticks_to_ns(o->sym_hv[v[k]], f)));
			json_object_array_add(a, e);
		}
		free(v);
		json_object_object_add(j, pass ? "by_hypervisor_time" : "by_count", a);
	}
	return j;
}

/* A poll of the vpa_dtl driver copies at most 84 entries (85-entry ring,
 * the oldest dropped on overflow); its first also has the header. */
static void note_ring(struct rep *o, const struct pdr_event *ev, const struct pdr *r)
{
	if (ev->size < 32 || !dtlt_is_dtl_evsel(r, ev->evsel))
		return;
	uint64_t size = pdr_u64(r, ev->data + 16);
	uint32_t cpu = ev->has_sample ? ev->sample.cpu : UINT32_MAX;
	bool first = cpu < DTLS_MAX_CPUS && !o->aux_seen[cpu];
	if (cpu < DTLS_MAX_CPUS)
		o->aux_seen[cpu] = 1;
	if (dtl_poll_filled_ring(size, first))
		o->ring_full++;
}

static bool has_sched_switch(const struct pdr *r)
{
	for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
		const struct pdr_evsel *e = pdr_evsel(r, i);
		if (e->name && !strcmp(e->name, "sched:sched_switch"))
			return true;
	}
	return false;
}

/*
 * The merged timeline: every entry into the statistics (in time order) and
 * every involuntary interruption charged to the task on its CPU.
 */
static int run_timeline(struct pdr *r, struct dtls *s, struct rep *o, const char *path)
{
	struct dtlt_item it;
	struct tpd *d = NULL;
	uint64_t end_ns = 0;
	int rc;

	(void)path;
	if (o->tb_freq_opt) {
		o->in.to.fallback.tb_freq = o->tb_freq_opt;
		o->in.to.override_tb_freq = true;
	}
	if (o->have_boot_tb) {
		o->in.to.fallback.boot_tb = o->boot_tb_opt;
		o->in.to.override_boot_tb = true;
		if (!o->in.to.fallback.tb_freq)
			o->in.to.fallback.tb_freq = DTL_DEFAULT_TB_FREQ;
	}
	rc = dtltask_new(&o->tasks);
	if (rc)
		return rc;
	rc = dtlt_new(&o->dt, r, &o->in.to);
	if (rc)
		return rc;
	o->tl = dtlt_stats(o->dt);
	while ((rc = dtlt_next(o->dt, &it)) > 0) {
		if (it.kind == DTLT_ENTRY) {
			const struct dtlm_item *e = &it.entry;
			if (e->time_ns > end_ns)
				end_ns = e->time_ns;
			if (o->have_cpus && !ps_cpuset_has(&o->cpus, e->cpu))
				continue;
			if (o->syms)
				sym_account(o, e->raw);
			rc = dtls_add_raw(s, e->cpu, e->raw, &e->tbi);
			if (!rc)
				rc = dtltask_entry(o->tasks, e->cpu, e->time_ns, &e->e, e->tbi.tb_freq);
			if (rc == -ERANGE)
				rc = 0;
			if (rc < 0)
				return rc;
			continue;
		}
		const struct pdr_event *ev = it.ev;
		if (ev->has_sample && (ev->sample.type & PDF_SAMPLE_TIME) && ev->sample.time > end_ns)
			end_ns = ev->sample.time;
		switch (ev->type) {
		case PDF_RECORD_AUX:
			o->aux_records++;
			note_ring(o, ev, r);
			if (ev->size >= 32) {
				uint64_t fl = pdr_u64(r, ev->data + 24);
				o->aux_flags[0] += !!(fl & PDF_AUX_FLAG_TRUNCATED);
				o->aux_flags[1] += !!(fl & PDF_AUX_FLAG_PARTIAL);
				o->aux_flags[2] += !!(fl & PDF_AUX_FLAG_COLLISION);
			}
			continue;
		case PDF_RECORD_LOST:
			o->lost_records++;
			if (ev->size >= 24)
				o->lost_events += pdr_u64(r, ev->data + 16);
			continue;
		case PDF_RECORD_SAMPLE:
			break;
		default:
			continue;
		}
		const struct pdr_evsel *es = ev->evsel;
		if (!es || !es->tp || !ev->sample.raw || !(ev->sample.type & PDF_SAMPLE_CPU))
			continue;
		if (!d) {
			d = tpd_new(pdr_tep(r));
			if (!d)
				return -ENOMEM;
		}
		struct tpe e;
		if (tpd_kind(d, (int)es->attr.config) != TPE_SCHED_SWITCH ||
		    tpd_decode(d, (int)es->attr.config, ev->sample.raw, ev->sample.raw_size, &e))
			continue;
		rc = dtltask_switch(o->tasks, ev->sample.cpu, ev->sample.time, e.sw.prev_pid,
				    e.sw.prev_comm, e.sw.next_pid, e.sw.next_comm);
		if (rc == -ERANGE)
			rc = 0;
		if (rc < 0)
			break;
	}
	tpd_free(d);
	if (rc < 0)
		return rc;
	dtltask_end(o->tasks, end_ns);
	const struct dtlm_stats *ms = dtlm_stats(dtlt_merge(o->dt));
	struct dtl_scan_stats sc = {
		.payloads = ms->buffers, .slots = ms->entries + ms->headers + ms->skipped,
		.headers = ms->headers, .skipped = ms->skipped, .odd_payloads = ms->odd_buffers,
		.tail_bytes = ms->tail_bytes,
	};
	dtls_set_scan(s, &sc);
	o->late = ms->late;
	o->dropped = o->tl->bad_cpu_buffers;
	return 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void tasks_text(struct rep *o)
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

static struct json_object *tasks_json(struct rep *o)
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
		json_object_object_add(j, "interruptions", jsonv_u64(k->interruptions));
		json_object_object_add(j, "hypervisor_ns", jsonv_u64(hv));
		json_object_object_add(j, "worst_ns", jsonv_u64(dtl_ticks_to_ns(k->worst_ticks, f)));
		if (k->interruptions) {
			json_object_object_add(j, "worst_cpu", json_object_new_int64(k->worst_cpu));
			json_object_object_add(j, "worst_time_ns", jsonv_u64(k->worst_time_ns));
		}
		json_object_object_add(j, "run_ns", jsonv_u64(k->run_ns));
		json_object_object_add(j, "share_of_run", json_object_new_double(share(hv, k->run_ns)));
		json_object_array_add(a, j);
	}
	return a;
}

static struct json_object *timeline_json(const struct rep *o)
{
	static const char *const src[] = { "none", "index", "scan", "stream" };
	struct json_object *j = json_object_new_object();
	const struct dtlt_stats *t = o->tl;

	json_object_object_add(j, "source", json_object_new_string(src[t->source]));
	if (t->why_scan[0])
		json_object_object_add(j, "why_scan", json_object_new_string(t->why_scan));
	json_object_object_add(j, "late_entries", jsonv_u64(o->late));
	json_object_object_add(j, "unindexed_buffers", jsonv_u64(t->unindexed_buffers));
	json_object_object_add(j, "dropped_buffers", jsonv_u64(t->bad_cpu_buffers));
	if (t->source == DTLT_SRC_STREAM) {
		json_object_object_add(j, "reorder_window_ns", jsonv_u64(t->window_ns));
		json_object_object_add(j, "forced_records", jsonv_u64(t->forced_records));
	}
	return j;
}

int dtl_cmd_report(int argc, char **argv)
{
	struct rep o = { .top = 20 };
	struct pdr *r;
	struct dtls *s;
	struct pdr_event ev;
	uint8_t *pay = NULL;
	size_t pay_cap = 0;
	int first, rc, ret = 0;

	if ((rc = dtl_cmd_parse(&dtl_report_cli, argc, argv, &o, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_report_cli, &o.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = o.in.path;
	if (dtls_new(&s)) {
		fprintf(stderr, "latscope dtl report: out of memory\n");
		return EXIT_ERR;
	}
	if (dtl_cmd_open(&r, path, false, true)) {
		dtls_free(s);
		return EXIT_ERR;
	}
	bool swap = pdr_needs_swap(r);
	if (dtl_cmd_syms(&o.syms, r, o.in.kallsyms, o.in.no_symbols, "latscope dtl report") ||
	    syms_init(&o)) {
		ret = EXIT_ERR;
		goto out;
	}
	o.timeline = pdr_info(r)->pipe || has_sched_switch(r) || o.have_boot_tb;
	if (o.timeline) {
		rc = run_timeline(r, s, &o, path);
		if (rc < 0)
			goto read_err;
		goto results;
	}
	/* no sched_switch to charge: read the AUX data in file order, no merge */
	pdr_close(r);
	if (dtl_cmd_open(&r, path, true, true)) {
		dtls_free(s);
		return EXIT_ERR;
	}
	while ((rc = pdr_next(r, &ev)) > 0) {
		if (ev.type < PDF_RECORD_USER_START && ev.has_sample && ev.sample.time &&
		    (ev.sample.type & PDF_SAMPLE_TIME)) {
			if (!o.min_rec_ns || ev.sample.time < o.min_rec_ns)
				o.min_rec_ns = ev.sample.time;
			if (ev.sample.time > o.max_rec_ns)
				o.max_rec_ns = ev.sample.time;
		}
		switch (ev.type) {
		case PDF_RECORD_AUXTRACE: {
			const struct pdr_auxtrace *a = &ev.auxtrace;
			if (!dtlt_file_has_dtl(r))
				break;
			if (o.have_cpus && !ps_cpuset_has(&o.cpus, a->cpu))
				break;
			if (ev.aux_data) {
				rc = dtls_add_payload(s, a->cpu, ev.aux_data, a->size, swap);
				if (!rc && o.syms)
					sym_payload(&o, ev.aux_data, a->size);
			} else {
				/* large payload left in the file: read it in whole-slot chunks */
				uint64_t done = 0;
				const uint64_t chunk = DTL_ENTRY_SIZE * 21845ULL;
				if (!pay) {
					pay = malloc(chunk);
					pay_cap = chunk;
				}
				rc = pay ? 0 : -ENOMEM;
				while (!rc && done < a->size) {
					uint64_t n = a->size - done < pay_cap ? a->size - done : pay_cap;
					rc = pdr_pread(r, ev.aux_file_offset + done, pay, (size_t)n);
					if (!rc)
						rc = dtls_add_payload(s, a->cpu, pay, n, swap);
					if (!rc && o.syms)
						sym_payload(&o, pay, n);
					done += n;
				}
			}
			if (rc == -ERANGE) {
				o.dropped++;
				rc = 0;
			}
			if (rc < 0)
				goto read_err;
			break;
		}
		case PDF_RECORD_AUX:
			o.aux_records++;
			note_ring(&o, &ev, r);
			if (ev.size >= 32) {
				uint64_t fl = pdr_u64(r, ev.data + 24);
				o.aux_flags[0] += !!(fl & PDF_AUX_FLAG_TRUNCATED);
				o.aux_flags[1] += !!(fl & PDF_AUX_FLAG_PARTIAL);
				o.aux_flags[2] += !!(fl & PDF_AUX_FLAG_COLLISION);
			}
			break;
		case PDF_RECORD_LOST:
			o.lost_records++;
			if (ev.size >= 24)
				o.lost_events += pdr_u64(r, ev.data + 16);
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
read_err:
		fprintf(stderr, "latscope dtl report: %s: %s\n", path,
			*pdr_strerror(r) ? pdr_strerror(r) : strerror(-rc));
		ret = EXIT_ERR;
		goto out;
	}

results:;
	struct dtls_cpu *tot = malloc(sizeof(*tot));
	if (!tot) {
		ret = EXIT_ERR;
		goto out;
	}
	dtls_total(s, tot);
	uint64_t tot_span = 0;
	for (uint32_t i = 0; i < dtls_nr_cpus(s); i++) {
		const struct dtls_cpu *cc = dtls_cpu(s, i);
		if (cc)
			tot_span += dtls_span_tb(cc);
	}
	const struct dtl_scan_stats *sc = dtls_scan_stats(s);
	struct dtl_tbinfo tbi = dtls_tbinfo(s);
	if (o.json) {
		struct json_object *j = json_object_new_object(), *cpus = json_object_new_array(),
				   *data = json_object_new_object();
		json_object_object_add(j, "file", json_object_new_string(path));
		json_object_object_add(j, "boot_tb", jsonv_u64(tbi.boot_tb));
		json_object_object_add(j, "tb_freq", jsonv_u64(freq_of(s, NULL, &o)));
		json_object_object_add(j, "has_header", json_object_new_boolean(dtl_tbinfo_valid(&tbi)));
		json_object_object_add(data, "payloads", jsonv_u64(sc->payloads));
		json_object_object_add(data, "slots", jsonv_u64(sc->slots));
		json_object_object_add(data, "entries", jsonv_u64(sc->entries));
		json_object_object_add(data, "headers", jsonv_u64(sc->headers));
		json_object_object_add(data, "skipped_slots", jsonv_u64(sc->skipped));
		json_object_object_add(data, "odd_payloads", jsonv_u64(sc->odd_payloads));
		json_object_object_add(data, "tail_bytes", jsonv_u64(sc->tail_bytes));
		json_object_object_add(data, "unknown_reasons", jsonv_u64(sc->bad_reasons));
		json_object_object_add(data, "aux_truncated", jsonv_u64(o.aux_flags[0]));
		json_object_object_add(data, "aux_partial", jsonv_u64(o.aux_flags[1]));
		json_object_object_add(data, "aux_collision", jsonv_u64(o.aux_flags[2]));
		json_object_object_add(data, "lost_records", jsonv_u64(o.lost_records));
		json_object_object_add(data, "lost_events", jsonv_u64(o.lost_events));
		json_object_object_add(data, "dropped_buffers", jsonv_u64(o.dropped));
		json_object_object_add(data, "ring_full_polls", jsonv_u64(o.ring_full));
		json_object_object_add(data, "polls", jsonv_u64(o.aux_records));
		json_object_object_add(data, "unknown_id_samples", jsonv_u64(pdr_stats(r)->unknown_id));
		json_object_object_add(data, "short_samples", jsonv_u64(pdr_stats(r)->bad_samples));
		json_object_object_add(data, "late_entries", jsonv_u64(o.late));
		json_object_object_add(j, "data", data);
		for (uint32_t i = 0; i < dtls_nr_cpus(s); i++) {
			const struct dtls_cpu *cc = dtls_cpu(s, i);
			if (cc && cc->entries)
				json_object_array_add(cpus, j_section(s, cc, &o, dtls_span_tb(cc)));
		}
		json_object_object_add(j, "cpus", cpus);
		json_object_object_add(j, "total", j_section(s, tot, &o, tot_span));
		json_object_object_add(j, "worst", worst_json(s, &o));
		json_object_object_add(j, "symbols", syms_json(&o, freq_of(s, NULL, &o)));
		if (o.timeline) {
			json_object_object_add(j, "timeline", timeline_json(&o));
			json_object_object_add(j, "tasks", tasks_json(&o));
		}
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
		json_object_put(j);
	} else {
		printf("DTL report: %s\n", path);
		printf("  %" PRIu64 " entries in %" PRIu64 " AUX payloads", sc->entries, sc->payloads);
		if (dtl_tbinfo_valid(&tbi))
			printf(", boot_tb %" PRIu64 ", tb_freq %" PRIu64 " Hz\n", tbi.boot_tb, tbi.tb_freq);
		else
			printf(", no header record: tb_freq %" PRIu64 " Hz assumed\n", freq_of(s, NULL, &o));
		printf("  slots %" PRIu64 ": headers %" PRIu64 ", skipped %" PRIu64
		       "; payloads not a multiple of 48: %" PRIu64 " (%" PRIu64 " bytes ignored)"
		       "; entries with unknown reasons: %" PRIu64 "\n", sc->slots, sc->headers,
		       sc->skipped, sc->odd_payloads, sc->tail_bytes, sc->bad_reasons);
		if (o.aux_flags[0] || o.aux_flags[1] || o.aux_flags[2] || o.lost_records)
			printf("  DATA LOST: AUX truncated %" PRIu64 ", partial %" PRIu64 ", collision %" PRIu64
			       ", LOST records %" PRIu64 " (%" PRIu64 " events)\n", o.aux_flags[0],
			       o.aux_flags[1], o.aux_flags[2], o.lost_records, o.lost_events);
		if (o.ring_full)
			printf("  PROBABLY LOST: %" PRIu64 " of %" PRIu64 " polls copied 84 entries, all the hypervisor's "
			       "85-entry ring lets through: older entries were overwritten before them "
			       "(poll more often: -c)\n", o.ring_full, o.aux_records);
		if (!o.total_only) {
			for (uint32_t i = 0; i < dtls_nr_cpus(s); i++) {
				const struct dtls_cpu *cc = dtls_cpu(s, i);
				char title[32];
				if (!cc || !cc->entries)
					continue;
				snprintf(title, sizeof(title), "CPU %u", i);
				text_section(s, cc, title, &o, dtls_span_tb(cc));
			}
		}
		if (tot->entries)
			text_section(s, tot, "Total", &o, tot_span);
		worst_text(s, &o);
		if (sc->entries)
			syms_text(&o, freq_of(s, NULL, &o));
		if (o.timeline)
			tasks_text(&o);
	}
	free(tot);
	if (cio_finish(stdout, "latscope dtl report", "standard output")) {
		ret = EXIT_ERR;
		goto out;
	}
	if (!sc->entries) {
		fprintf(stderr, "latscope dtl report: %s has no DTL entries: no vpa_dtl AUX data (record with "
			"-e vpa_dtl/dtl_all/, or `latscope dtl record`)\n", path);
		ret = EXIT_ERR;
		goto out;
	}
	if (o.timeline) {
		dtl_cmd_tb_warnings("latscope dtl report", path, o.dt);
	} else {
		/* the fast path: headers and each CPU's entry span against the records */
		for (uint32_t i = 0; i < dtls_nr_cpus(s); i++) {
			const struct dtls_cpu *cc = dtls_cpu(s, i);
			if (!cc || !cc->entries)
				continue;
			struct dtl_tbinfo tb = eff_tbi(s, cc, &o);
			if (tb.tb_freq < DTLM_TB_FREQ_MIN || tb.tb_freq > DTLM_TB_FREQ_MAX) {
				fprintf(stderr, "latscope dtl report: %s: CPU %u's tb_freq is %" PRIu64 " Hz, outside "
					"1 MHz..10 GHz: DTL times are probably wrong; --tb-freq overrides it\n",
					path, i, tb.tb_freq);
				break;
			}
			uint64_t a = dtl_tb_to_ns(cc->first_tb, &tb), b = dtl_tb_to_ns(cc->last_tb, &tb);
			if (o.max_rec_ns && (a + DTLT_FAR_NS < o.min_rec_ns || b > o.max_rec_ns + DTLT_FAR_NS)) {
				fprintf(stderr, "latscope dtl report: %s: CPU %u's DTL entries (%" PRIu64 ".%09" PRIu64
					" s to %" PRIu64 ".%09" PRIu64 " s) lie more than a day from the records: boot_tb "
					"or tb_freq is probably wrong; --boot-tb and --tb-freq override them\n", path, i,
					a / 1000000000u, a % 1000000000u, b / 1000000000u, b % 1000000000u);
				break;
			}
		}
	}
	if (o.dropped)
		fprintf(stderr, "latscope dtl report: %s: %" PRIu64 " AUX buffers dropped (CPU number out of "
			"range 0..%d)\n", path, o.dropped, DTLS_MAX_CPUS - 1);
	if (o.in.strict) {
		ret = dtl_cmd_verdict("latscope dtl report", o.dt, r);
		if (!ret && o.dropped) {
			fprintf(stderr, "latscope dtl report: --strict: the result is incomplete: %" PRIu64
				" AUX buffers dropped; exit 1\n", o.dropped);
			ret = EXIT_THRESHOLD;
		}
	}
	if (o.timeline && o.tl && o.tl->source == DTLT_SRC_SCAN && o.tl->why_scan[0])
		fprintf(stderr, "latscope dtl report: %s: %s; found %" PRIu64 " AUX buffers by scanning the "
			"data section instead\n", path, o.tl->why_scan, o.tl->dtl_buffers);
	if (o.late)
		fprintf(stderr, "latscope dtl report: %s: %" PRIu64 " DTL entries came after a newer record "
			"(beyond the reorder window): their tasks may be wrong\n", path, o.late);
out:
	dtltask_free(o.tasks);
	ksym_free(o.syms);
	free(o.sym_count);
	free(o.sym_hv);
	dtlt_free(o.dt);
	free(pay);
	cio_pdr_close(r, "latscope dtl report", path);
	dtls_free(s);
	return ret;
}
