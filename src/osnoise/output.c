/* SPDX-License-Identifier: MIT */
/*
 * output.c - the views of `latscope osnoise`: the top table, the details
 * under it, the histogram, the stop, the trace header and the JSON summary;
 * the verdict at the end of every mode.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/lhist.h"
#include "cmdio.h"
#include "firedout.h"
#include "commands.h"
#include "jsonout.h"
#include "live/evsrc.h"
#include "base/jsonv.h"
#include "engine/noise.h"
#include "osnoise.h"
#include "live/oswork.h"
#include "base/sysinfo.h"

static void print_lines(struct ctx *c, FILE *f)
{
	const char *lines[OSNENG_LINE_RING];
	size_t n = osneng_recent_lines(c->run.e, lines, OSNENG_LINE_RING);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
}

/* The engine's stop: 0 running, OSNENG_STOP_SINGLE or OSNENG_STOP_TOTAL. */
int osnoise_stop_why(const struct ctx *c)
{
	return c->run.e ? osneng_stop(c->run.e)->why : 0;
}

static const struct osneng_cpu *ocpu(const struct ctx *c, size_t i)
{
	return osneng_cpu(c->run.e, i);
}

static uint64_t wrec_lost(const struct ctx *c)
{
	uint64_t n = 0;
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		n += oswork_lost(c->run.w, i);
	return n;
}

/* Events the attribution did not see: lost from the perf rings or the
 * recording, or (bpf) program runs the kernel skipped. */
static uint64_t events_lost(const struct ctx *c)
{
	if (c->res.bst_read)
		return c->res.bst.recursion_misses;
	return c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
}

/* Switches the attribution saw with a prev that the last one did not put
 * on: the accounting's (perf, a recording) or the BPF programs'. */
static uint64_t unseen_switches(const struct ctx *c)
{
	return noise_anomalies(c->run.n)->switch_mismatch + (c->res.bst_read ? c->res.bst.switch_mismatch : 0);
}

/* What the results miss: events lost by the kernel, workload records lost,
 * samples skipped as unreadable. */
uint64_t osnoise_dropped(const struct ctx *c)
{
	return events_lost(c) + firedtab_undelivered(&c->res.fired) + wrec_lost(c) + c->res.cnt.unknown_id +
	       c->res.cnt.bad_samples + c->res.cnt.undecoded + c->res.cnt.bad_wrec;
}

/* ---- output --------------------------------------------------------------- */

static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S;
	snprintf(buf, len, "%3" PRIu64 " %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 86400,
		 s / 3600 % 24, s / 60 % 60, s % 60);
}

static int cmp_contrib(const void *a, const void *b)
{
	const struct noise_contrib *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

static size_t sorted_contribs(const struct ctx *c, unsigned cpu, struct noise_contrib *out,
			      size_t max)
{
	const struct noise_contrib *list;
	size_t n = noise_contribs(c->run.n, cpu, &list);
	if (n > 256)
		n = 256;
	memcpy(out, list, n * sizeof(*out));
	qsort(out, n, sizeof(*out), cmp_contrib);
	return n < max ? n : max;
}

static uint64_t run_ns(const struct ctx *c)
{
	const struct osneng_times *t = osneng_times(c->run.e);
	uint64_t end = t->end_ns ? t->end_ns : oswork_now_ns();
	uint64_t begin = t->warm_end_ns > t->start_ns ? t->warm_end_ns : t->start_ns;
	return end > begin ? end - begin : 0;
}

static void print_top_table(struct ctx *c, FILE *f, bool title)
{
	char dur[32];
	fmt_duration(dur, sizeof(dur), run_ns(c));
	if (title)
		fprintf(f, "%*s%s\n", 44, "", c->run.no_workload ? "Task and IRQ execution time"
							       : "Operating System Noise");
	fprintf(f, "duration: %s | time is in us\n", dur);
	fprintf(f, "CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single"
		   "          HW          NMI          IRQ      Softirq       Thread\n");
	for (size_t i = 0; i < c->run.nr; i++) {
		const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
		uint64_t rt = s->runtime_ns / 1000, nz = s->noise_ns / 1000;
		uint64_t av = noise_avail_e5(rt, nz);
		fprintf(f, "%3u #%-6" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %3" PRIu64 ".%05" PRIu64
			" %12" PRIu64 " %12" PRIu64, c->run.list[i], s->periods, rt, nz, av / 100000,
			av % 100000, s->max_noise_ns / 1000, s->max_single_ns / 1000);
		if (c->run.attribution)
			fprintf(f, " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				"\n", s->hw_count, s->count[NOISE_NMI], s->count[NOISE_IRQ],
				s->count[NOISE_SOFTIRQ], s->count[NOISE_THREAD]);
		else	/* without tracepoints nothing is known about the gaps */
			fprintf(f, " %12s %12s %12s %12s %12s\n", "-", "-", "-", "-", "-");
	}
}

static void pct(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	if (!whole)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
}

static void print_details(struct ctx *c, FILE *f)
{
	char vm[128], p[5][16];
	const char *hv = sysinfo_vm_name(vm, sizeof(vm));
	long tck = sysconf(_SC_CLK_TCK);
	if (!c->run.no_workload && c->run.attribution && !c->run.kmode) {
		fprintf(f, "\nNoise breakdown (net time inside noise gaps, us; threshold %" PRIu64
			" us):\n", c->run.threshold_us);
		fprintf(f, "CPU        Noise           HW          NMI          IRQ      Softirq"
			   "       Thread   Below-threshold (count/us/floor ns)\n");
		for (size_t i = 0; i < c->run.nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
			fprintf(f, "%3u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				" %12" PRIu64 "   %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
				c->run.list[i], s->noise_ns / 1000, s->hw_ns / 1000,
				s->net_ns[NOISE_NMI] / 1000, s->net_ns[NOISE_IRQ] / 1000,
				s->net_ns[NOISE_SOFTIRQ] / 1000, s->net_ns[NOISE_THREAD] / 1000,
				s->sub_count, s->sub_ns / 1000, ocpu(c, i)->floor_ns);
			pct(p[0], sizeof(p[0]), s->hw_ns, s->noise_ns);
			pct(p[1], sizeof(p[1]), s->hw_count, s->gaps);
			fprintf(f, "    HW share: %s of the noise time, %s of the %" PRIu64 " gaps\n", p[0],
				p[1], s->gaps);
		}
	}
	if (!c->run.no_workload && !c->run.attribution)
		for (size_t i = 0; i < c->run.nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
			fprintf(f, "\ncpu%u below the threshold: %" PRIu64 " gaps, %" PRIu64
				" us (floor %" PRIu64 " ns)", c->run.list[i], s->sub_count, s->sub_ns / 1000,
				ocpu(c, i)->floor_ns);
		}
	if (hv) {
		fprintf(f, "\nVirtual machine (%s): HW noise here is mostly the hypervisor taking the vCPU.\n",
			vm);
		if (!c->run.replaying) {
			fprintf(f, "/proc/stat steal over the run:");
			for (size_t i = 0; i < c->run.nr; i++)
				fprintf(f, " cpu%u %" PRIu64 " ms", c->run.list[i],
					(c->run.steal1[i] - c->run.steal0[i]) * 1000 / (uint64_t)(tck > 0 ? tck : 100));
			fprintf(f, "\n");
		}
	}
	if (c->run.attribution && c->out.top_n) {
		fprintf(f, "\nTop interference per CPU (net us%s):\n",
			c->run.no_workload || c->run.kmode ? "" : ", inside noise gaps");
		struct noise_contrib *k = calloc(256, sizeof(*k));
		for (size_t i = 0; k && i < c->run.nr; i++) {
			size_t n = sorted_contribs(c, c->run.list[i], k, c->out.top_n);
			for (size_t j = 0; j < n; j++)
				fprintf(f, "%3u %-8s %24s:%-7d count %-8" PRIu64 " total %-10" PRIu64
					" max %" PRIu64 "\n", c->run.list[i], noise_class_name(k[j].cls),
					k[j].name, k[j].id, k[j].count, k[j].total_ns / 1000,
					k[j].max_ns / 1000);
		}
		free(k);
	}
	if (c->run.kmode) {
		fprintf(f, "(from the kernel osnoise tracer; %" PRIu64 " events lost in its buffer)\n",
			c->res.cnt.lost);
		return;
	}
	if (c->run.softirq_in_threads)
		fprintf(f, "PREEMPT_RT: softirqs run in threads and count as the time of the thread that "
			   "ran them, as the kernel tracer counts them\n");
	if (!c->run.no_workload) {
		fprintf(f, "\nTime-read loop:");
		for (size_t i = 0; i < c->run.nr; i++) {
			const struct osneng_cpu *pc = ocpu(c, i);
			if (!pc->iters) {
				/* the loop's figures come at the end of a period */
				fprintf(f, " cpu%u no figures (the run ended before its first period did);",
					c->run.list[i]);
				continue;
			}
			fprintf(f, " cpu%u %.1f ns/iteration, smallest gap %" PRIu64 " ns;", c->run.list[i],
				(double)pc->loop_ns / (double)pc->iters, pc->min_gap_ns);
		}
		fprintf(f, "\n");
	}
	if (c->run.attribution && c->res.bst_read) {
		char names[512];
		bpfload_misses_text(c->res.bst.progs, c->res.bst.nr_progs, names, sizeof(names));
		fprintf(f, "bpf: %" PRIu64 " program runs, %" PRIu64 " skipped by the kernel's recursion "
			   "guard%s%s%s, %" PRIu64 " windows not in the contributor table (full), %" PRIu64
			   " dropped (lost exits)\n", c->res.bst.runs, c->res.bst.recursion_misses, names[0] ? " (" : "",
			names, names[0] ? ")" : "", c->res.bst.contrib_full, c->res.bst.dropped);
		if (c->run.bpf && osnbpf_absent(c->run.bpf)[0])
			fprintf(f, "tracepoints this kernel lacks (their programs left out): %s\n",
				osnbpf_absent(c->run.bpf));
		if (c->res.bst.switch_mismatch)
			fprintf(f, "%" PRIu64 " context switches came with no program run (the kernel ran "
				   "none while the task before ran): those tasks' entries are counted, "
				   "without their time\n", c->res.bst.switch_mismatch);
	} else if (c->run.attribution) {
		const struct noise_anomalies *a = noise_anomalies(c->run.n);
		uint64_t lost = c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
		uint64_t samples = c->run.s ? evsrc_stats(c->run.s)->samples : c->res.cnt.samples;
		if (lost)
			fprintf(f, "%" PRIu64 " events lost (%.2f%%)%s, attribution is incomplete%s\n", lost,
				samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0,
				c->run.replaying ? " while recording" : "",
				c->run.replaying ? "" : "; raise --ring-size");
		else
			fprintf(f, "0 events lost\n");
		if (c->run.s && evsrc_note(c->run.s)[0])
			fprintf(f, "tracepoints left out: %s\n", evsrc_note(c->run.s));
		if (c->run.s || c->res.fired.counted)
			firedout_text(&c->res.fired, f);
		if (a->switch_mismatch)
			fprintf(f, "%" PRIu64 " context switches came with no event (the kernel "
				   "reported none while the task before ran): those tasks' entries "
				   "are counted, without their time\n", a->switch_mismatch);
		if (a->unmatched_exit + a->dropped_open + a->negative + a->history_overflow)
			fprintf(f, "event stream anomalies: %" PRIu64 " unmatched exits, %" PRIu64
				" dropped entries, %" PRIu64 " negative, %" PRIu64
				" history overflows\n", a->unmatched_exit, a->dropped_open, a->negative,
				a->history_overflow);
	} else {
		fprintf(f, "attribution off: %s\n", c->run.attr_why);
	}
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		if (oswork_lost(c->run.w, i))
			fprintf(f, "cpu%u: %" PRIu64 " workload records lost (collector too slow)\n",
				c->run.list[i], oswork_lost(c->run.w, i));
	if (c->res.cnt.unknown_id + c->res.cnt.bad_samples + c->res.cnt.undecoded + c->res.cnt.bad_wrec)
		fprintf(f, "skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", c->res.cnt.unknown_id,
			c->res.cnt.bad_samples, c->res.cnt.undecoded, c->res.cnt.bad_wrec);
	if (c->run.s && evsrc_stats(c->run.s)->corrupt_bytes)
		fprintf(f, "corrupt ring data: %" PRIu64 " bytes skipped\n",
			evsrc_stats(c->run.s)->corrupt_bytes);
	if (c->res.cnt.out_of_order + c->res.cnt.forced)
		fprintf(f, "ordering: %" PRIu64 " events delivered out of order, %" PRIu64
			" queue flushes forced by a full queue\n", c->res.cnt.out_of_order, c->res.cnt.forced);
	if (c->res.cnt.duplicates)
		fprintf(f, "duplicates: %" PRIu64 " samples byte for byte the one before them (the recorder "
			"wrote part of a ring twice), dropped: nothing is missing\n", c->res.cnt.duplicates);
}

static void print_stop(struct ctx *c, FILE *f)
{
	const struct osneng_stop *st = c->run.e ? osneng_stop(c->run.e) : NULL;
	if (!st || !st->why)
		return;
	if (st->why == OSNENG_STOP_SINGLE)
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u single noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->opt.stop_us);
	else
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u period noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->opt.stop_total_us);
	if (!(c->mode == M_TRACE && c->out.events)) {
		fprintf(f, "Events leading up to the stop:\n");
		print_lines(c, f);
	}
}

/* Percentile pct (0..100) of a CPU's gap histogram in us (truncated), by the
 * nearest-rank rule of lib/base/lhist.h; 0 with no gap. */
static uint64_t hist_pct_us(const struct ctx *c, const struct osneng_hist *h, double pct)
{
	uint64_t v = 0;
	if (osneng_hist_percentile_ns(h, c->out.bucket_us, c->out.entries, pct, &v))
		return 0;
	return v / 1000;
}

/* The summary's percentiles: the text's row label, the JSON key. */
static const struct { const char *label, *key; double pct; } hist_pcts[] = {
	{ "p50:", "p50_ns", 50 }, { "p99:", "p99_ns", 99 }, { "p99.9:", "p99_9_ns", 99.9 },
	{ "p99.99:", "p99_99_ns", 99.99 },
};

/* True when the percentile pct of h falls among the values past its last
 * bucket (the "over:" row): the histogram holds no value for it (the rank of
 * lib/base/lhist.h's rule; rank count is the exact max). */
static bool hist_pct_clipped(const struct ctx *c, const struct osneng_hist *h, double pct)
{
	uint64_t over = h->b[c->out.entries];
	if (!h->count || !over)
		return false;
	uint64_t rank = lhist_rank(pct, h->count);
	return rank > h->count - over && rank < h->count;
}

static void print_hist(struct ctx *c, FILE *f)
{
	char dur[32];
	size_t show[PARSE_MAX_CPUS];
	size_t ns = 0;
	for (size_t i = 0; i < c->run.nr; i++)
		if (ocpu(c, i)->hist.count)
			show[ns++] = i;
	if (!c->out.no_header) {
		fmt_duration(dur, sizeof(dur), run_ns(c));
		fprintf(f, "# latscope osnoise histogram\n# Time unit is microseconds (us)\n"
			   "# Duration: %s\n", dur);
		fprintf(f, "Index");
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "   CPU-%03u", c->run.list[show[k]]);
		fprintf(f, "\n");
	}
	for (uint64_t b = 0; b < c->out.entries; b++) {
		uint64_t tot = 0;
		for (size_t k = 0; k < ns; k++)
			tot += ocpu(c, show[k])->hist.b[b];
		if (!tot && !c->out.with_zeros)
			continue;
		fprintf(f, "%-6" PRIu64, b * c->out.bucket_us);
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "%9" PRIu64 " ", ocpu(c, show[k])->hist.b[b]);
		fprintf(f, "\n");
	}
	if (c->out.no_summary)
		return;
#define ROW(label, expr) do { \
		fprintf(f, "%-6s", label); \
		for (size_t k = 0; k < ns; k++) { const struct osneng_hist *h = &ocpu(c, show[k])->hist; \
			fprintf(f, "%9" PRIu64 " ", (uint64_t)(expr)); } \
		fprintf(f, "\n"); } while (0)
	ROW("over:", h->b[c->out.entries]);
	ROW("count:", h->count);
	ROW("min:", h->min_ns / 1000);
	fprintf(f, "%-6s", "avg:");
	for (size_t k = 0; k < ns; k++) {
		const struct osneng_hist *h = &ocpu(c, show[k])->hist;
		fprintf(f, "%9.2f ", h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0);
	}
	fprintf(f, "\n");
	ROW("max:", h->max_ns / 1000);
#undef ROW
	bool clipped = false;
	for (size_t p = 0; p < sizeof(hist_pcts) / sizeof(hist_pcts[0]); p++) {
		fprintf(f, "%-7s", hist_pcts[p].label);
		for (size_t k = 0; k < ns; k++) {
			const struct osneng_hist *h = &ocpu(c, show[k])->hist;
			char v[32];
			if (hist_pct_clipped(c, h, hist_pcts[p].pct)) {
				/* the rank lies past the last bucket: only a bound is known */
				snprintf(v, sizeof(v), ">%" PRIu64, c->out.entries * c->out.bucket_us);
				clipped = true;
			} else {
				snprintf(v, sizeof(v), "%" PRIu64, hist_pct_us(c, h, hist_pcts[p].pct));
			}
			fprintf(f, "%8s ", v);
		}
		fprintf(f, "\n");
	}
	if (clipped)
		fprintf(f, "# a percentile shown as >%" PRIu64 " lies past the last bucket (-E %" PRIu64 " x -b %"
			   PRIu64 " us): only that bound is known; raise -E or -b to see it\n",
			c->out.entries * c->out.bucket_us, c->out.entries, c->out.bucket_us);
}

static json_object *jdouble5(uint64_t e5)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%05" PRIu64, e5 / 100000, e5 % 100000);
	return json_object_new_double_s((double)e5 / 100000.0, buf);
}

static json_object *ju(uint64_t v)
{
	return jsonv_u64(v);	/* one rule for 64-bit values in every command */
}

/* the bpf backend's programs and counts (docs/osnoise.md, "Backends") */
static json_object *bpf_json(const struct ctx *c)
{
	const struct osnbpf_stats *b = &c->res.bst;
	json_object *o = json_object_new_object(), *progs = json_object_new_array();
	for (uint32_t i = 0; i < b->nr_progs && i < OSNBPF_MAX_PROGS; i++) {
		json_object *p = json_object_new_object();
		json_object_object_add(p, "name", json_object_new_string(b->progs[i].name));
		json_object_object_add(p, "run_cnt", b->run_cnt_known ? ju(b->progs[i].run_cnt) : NULL);
		json_object_object_add(p, "recursion_misses", ju(b->progs[i].recursion_misses));
		json_object_array_add(progs, p);
	}
	json_object_object_add(o, "programs", progs);
	json_object_object_add(o, "program_runs", ju(b->runs));
	json_object_object_add(o, "recursion_misses", ju(b->recursion_misses));
	json_object_object_add(o, "contrib_full", ju(b->contrib_full));
	json_object_object_add(o, "dropped", ju(b->dropped));
	json_object_object_add(o, "unmatched_exits", ju(b->unmatched));
	json_object_object_add(o, "switch_mismatch", ju(b->switch_mismatch));
	json_object_object_add(o, "absent", json_object_new_string(c->run.bpf ? osnbpf_absent(c->run.bpf) : ""));
	return o;
}

/* Percentile pct of a CPU's gap histogram in ns (0 with no gap), for the JSON. */
static uint64_t jhist_pct_ns(const struct ctx *c, const struct osneng_hist *h, double pct)
{
	uint64_t v = 0;
	return osneng_hist_percentile_ns(h, c->out.bucket_us, c->out.entries, pct, &v) ? 0 : v;
}

/* The latscope.osnoise/1 document (docs/json.md); the caller puts it. */
static json_object *build_json(struct ctx *c)
{
	static const char *const mode_names[] = { "top", "hist", "trace", "record" };
	char vm[128];
	const char *hv = sysinfo_vm_name(vm, sizeof(vm));
	long tck = sysconf(_SC_CLK_TCK);
	json_object *root = jsonout_new(REPORT_OSNOISE);
	json_object_object_add(root, "tool", json_object_new_string("latscope osnoise"));
	json_object_object_add(root, "mode", json_object_new_string(mode_names[c->mode]));
	json_object_object_add(root, "workload", json_object_new_boolean(!c->run.no_workload));
	json_object_object_add(root, "threshold_ns", ju(c->run.threshold_us * 1000));
	json_object_object_add(root, "period_ns", ju(c->run.period_us * 1000));
	json_object_object_add(root, "runtime_ns", ju(c->run.runtime_us * 1000));
	json_object_object_add(root, "duration_ns", ju(run_ns(c)));
	json_object_object_add(root, "attribution", json_object_new_boolean(c->run.attribution));
	if (!c->run.kmode)
		json_object_object_add(root, "softirq_in_threads", json_object_new_boolean(c->run.softirq_in_threads));
	if (!c->run.attribution)
		json_object_object_add(root, "attribution_off", json_object_new_string(c->run.attr_why));
	json_object_object_add(root, "vm", hv ? json_object_new_string(vm) : NULL);
	struct rusage ru;
	if (!getrusage(RUSAGE_THREAD, &ru))	/* the collector (main) thread */
		json_object_object_add(root, "collector_cpu_ns",
				       ju(((uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
					   (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec) * 1000));
	json_object_object_add(root, "backend", c->run.ran ? json_object_new_string(c->run.ran) : NULL);
	json_object_object_add(root, "events_lost", ju(events_lost(c)));
	if (c->res.bst_read)
		json_object_object_add(root, "bpf", bpf_json(c));
	if (c->run.kmode && !c->run.replaying) {
		/* the run's window in the kernel's trace clock (its markers) */
		const struct osneng_times *t = osneng_times(c->run.e);
		json_object *kw = json_object_new_object();
		json_object_object_add(kw, "start_ns", t->kwin_start_ns ? ju(t->kwin_start_ns) : NULL);
		json_object_object_add(kw, "end_ns", t->kwin_end_ns ? ju(t->kwin_end_ns) : NULL);
		json_object_object_add(kw, "buffer_kb", ju(c->run.kbuf_bytes / 1024));
		json_object_object_add(root, "kernel_window", kw);
	}
	json_object *sk = json_object_new_object();
	json_object_object_add(sk, "unknown_id", ju(c->res.cnt.unknown_id));
	json_object_object_add(sk, "bad_samples", ju(c->res.cnt.bad_samples));
	json_object_object_add(sk, "undecoded", ju(c->res.cnt.undecoded));
	json_object_object_add(sk, "bad_workload_records", ju(c->res.cnt.bad_wrec));
	json_object_object_add(sk, "workload_records_lost", ju(wrec_lost(c)));
	json_object_object_add(sk, "out_of_order", ju(c->res.cnt.out_of_order));
	json_object_object_add(sk, "forced_flushes", ju(c->res.cnt.forced));
	if (c->res.cnt.duplicates)
		json_object_object_add(sk, "duplicates", ju(c->res.cnt.duplicates));
	json_object_object_add(sk, "corrupt_ring_bytes", ju(c->run.s ? evsrc_stats(c->run.s)->corrupt_bytes : 0));
	json_object_object_add(root, "skipped", sk);
	json_object_object_add(root, "dropped", ju(osnoise_dropped(c)));
	if (c->run.s || c->res.fired.counted)
		json_object_object_add(root, "fired", firedout_json(&c->res.fired));
	const struct noise_anomalies *an = noise_anomalies(c->run.n);
	json_object *aj = json_object_new_object();
	json_object_object_add(aj, "unmatched_exit", ju(an->unmatched_exit));
	json_object_object_add(aj, "dropped_open", ju(an->dropped_open));
	json_object_object_add(aj, "unseen_switch_in", ju(unseen_switches(c)));
	json_object_object_add(aj, "negative", ju(an->negative));
	json_object_object_add(aj, "history_overflow", ju(an->history_overflow));
	json_object_object_add(aj, "contrib_overflow", ju(an->contrib_overflow));
	json_object_object_add(root, "anomalies", aj);
	json_object *stop = NULL;
	const struct osneng_stop *st = osneng_stop(c->run.e);
	if (st->why) {
		stop = json_object_new_object();
		json_object_object_add(stop, "reason", json_object_new_string(
					       st->why == OSNENG_STOP_SINGLE ? "single" : "total"));
		json_object_object_add(stop, "cpu", ju(st->cpu));
		json_object_object_add(stop, "value_ns", ju(st->value_ns));
	}
	json_object_object_add(root, "stop", stop);
	json_object *cpus = json_object_new_array();
	struct noise_contrib *k = calloc(256, sizeof(*k));
	for (size_t i = 0; i < c->run.nr; i++) {
		const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
		json_object *o = json_object_new_object();
		uint64_t rt = s->runtime_ns / 1000, nz = s->noise_ns / 1000;
		json_object_object_add(o, "cpu", ju(c->run.list[i]));
		json_object_object_add(o, "periods", ju(s->periods));
		json_object_object_add(o, "runtime_ns", ju(s->runtime_ns));
		json_object_object_add(o, "noise_ns", ju(s->noise_ns));
		json_object_object_add(o, "cpu_available_pct", jdouble5(noise_avail_e5(rt, nz)));
		json_object_object_add(o, "max_noise_ns", ju(s->max_noise_ns));
		json_object_object_add(o, "max_single_ns", ju(s->max_single_ns));
		bool at = c->run.attribution;
#define JA(v) (at ? ju(v) : NULL)
		json_object_object_add(o, "hw", JA(s->hw_count));
		json_object_object_add(o, "nmi", JA(s->count[NOISE_NMI]));
		json_object_object_add(o, "irq", JA(s->count[NOISE_IRQ]));
		json_object_object_add(o, "softirq", JA(s->count[NOISE_SOFTIRQ]));
		json_object_object_add(o, "thread", JA(s->count[NOISE_THREAD]));
		json_object_object_add(o, "gaps", ju(s->gaps));
		json_object_object_add(o, "hw_ns", JA(s->hw_ns));
		json_object_object_add(o, "nmi_ns", JA(s->net_ns[NOISE_NMI]));
		json_object_object_add(o, "irq_ns", JA(s->net_ns[NOISE_IRQ]));
		json_object_object_add(o, "softirq_ns", JA(s->net_ns[NOISE_SOFTIRQ]));
		json_object_object_add(o, "thread_ns", JA(s->net_ns[NOISE_THREAD]));
#undef JA
		json_object_object_add(o, "below_threshold_count", ju(s->sub_count));
		json_object_object_add(o, "below_threshold_ns", ju(s->sub_ns));
		const struct osneng_cpu *pc = ocpu(c, i);
		json_object_object_add(o, "floor_ns", ju(pc->floor_ns));
		if (!c->run.no_workload) {
			json_object_object_add(o, "loop_ns_per_iteration",
					       json_object_new_double(pc->iters ? (double)pc->loop_ns /
								      (double)pc->iters : 0.0));
			json_object_object_add(o, "smallest_gap_ns", ju(pc->min_gap_ns));
		}
		if (hv && !c->run.replaying)
			json_object_object_add(o, "steal_ns",
					       ju((c->run.steal1[i] - c->run.steal0[i]) * 1000000000 /
						  (uint64_t)(tck > 0 ? tck : 100)));
		if (pc->hist.b) {
			const struct osneng_hist *h = &pc->hist;
			json_object *hj = json_object_new_object();
			json_object_object_add(hj, "bucket_ns", ju(c->out.bucket_us * 1000));
			json_object *bk = json_object_new_array();
			for (uint64_t b = 0; b < c->out.entries; b++)
				if (h->b[b] || c->out.with_zeros) {
					json_object *e = json_object_new_array();
					json_object_array_add(e, ju(b * c->out.bucket_us * 1000));
					json_object_array_add(e, ju(h->b[b]));
					json_object_array_add(bk, e);
				}
			json_object_object_add(hj, "buckets", bk);
			json_object_object_add(hj, "over", ju(h->b[c->out.entries]));
			json_object_object_add(hj, "count", ju(h->count));
			json_object_object_add(hj, "min_ns", ju(h->min_ns));
			json_object_object_add(hj, "avg_ns", ju(h->count ? h->sum_ns / h->count : 0));
			json_object_object_add(hj, "max_ns", ju(h->max_ns));
			/* clipped: the text's >TOP, a rank past the last bucket (the
			 * value here is the max, a bound) */
			json_object *cl = json_object_new_array();
			for (size_t p = 0; p < sizeof(hist_pcts) / sizeof(hist_pcts[0]); p++) {
				json_object_object_add(hj, hist_pcts[p].key, ju(jhist_pct_ns(c, h, hist_pcts[p].pct)));
				if (hist_pct_clipped(c, h, hist_pcts[p].pct))
					json_object_array_add(cl, json_object_new_string(hist_pcts[p].key));
			}
			json_object_object_add(hj, "clipped", cl);
			json_object_object_add(o, "hist", hj);
		}
		json_object *cj = json_object_new_array();
		size_t n = k && c->run.attribution ? sorted_contribs(c, c->run.list[i], k, c->out.top_n) : 0;
		for (size_t j = 0; j < n; j++) {
			json_object *e = json_object_new_object();
			json_object_object_add(e, "class",
					       json_object_new_string(noise_class_name(k[j].cls)));
			json_object_object_add(e, "name", json_object_new_string(k[j].name));
			json_object_object_add(e, "id", json_object_new_int(k[j].id));
			json_object_object_add(e, "count", ju(k[j].count));
			json_object_object_add(e, "total_ns", ju(k[j].total_ns));
			json_object_object_add(e, "max_ns", ju(k[j].max_ns));
			json_object_object_add(e, "unseen_starts", ju(k[j].unseen));
			json_object_array_add(cj, e);
		}
		json_object_object_add(o, "top", cj);
		json_object_array_add(cpus, o);
	}
	free(k);
	json_object_object_add(root, "cpus", cpus);
	return root;
}

/* The JSON document on stdout (--json) or in --json=FILE, and its page in
 * --html FILE; 0 or EXIT_ERR. */
static int print_json(struct ctx *c)
{
	json_object *root = build_json(c);
	int rc = 0;
	if (!root) {
		fprintf(stderr, "latscope osnoise: out of memory building JSON\n");
		return EXIT_ERR;
	}
	if (c->out.json || c->out.json_file)
		rc = jsonout_write(root, JSON_C_TO_STRING_PRETTY, c->out.json ? NULL : c->out.json_file, c->opt.force,
				   "latscope osnoise");
	if (jsonout_render(root, &c->out.renders, c->opt.force, "latscope osnoise"))
		rc = EXIT_ERR;
	json_object_put(root);
	return rc;
}

/*
 * Every loss, one line per kind on stderr, in every mode (the text report
 * and the JSON carry the counts too): events the kernel lost or never
 * reported, workload records lost, samples skipped, corrupt ring bytes.
 * Not when the run stopped because the reader of stdout left.
 */
static void print_losses(const struct ctx *c)
{
	const char *who = "latscope osnoise";
	if (c->res.bst_read) {
		char names[512];
		uint64_t miss = bpfload_misses_text(c->res.bst.progs, c->res.bst.nr_progs, names, sizeof(names));
		if (miss)
			fprintf(stderr, "%s: %" PRIu64 " bpf program runs skipped by the kernel's recursion guard "
				"(%s): those events were not seen, the attribution is incomplete\n", who, miss, names);
		if (c->res.bst.contrib_full)
			fprintf(stderr, "%s: %" PRIu64 " noise entries not in the contributor table (the bpf "
				"map is full): the table misses them, the totals do not\n", who, c->res.bst.contrib_full);
		if (c->res.bst.dropped)
			fprintf(stderr, "%s: %" PRIu64 " noise entries dropped (their exit was lost)\n", who,
				c->res.bst.dropped);
	}
	if (c->run.attribution && !c->run.kmode && c->run.n) {
		uint64_t lost = c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
		uint64_t samples = c->run.s ? evsrc_stats(c->run.s)->samples : c->res.cnt.samples;
		const struct noise_anomalies *a = noise_anomalies(c->run.n);
		if (lost)
			fprintf(stderr, "%s: %" PRIu64 " events lost (%.2f%%)%s: the attribution is incomplete%s\n",
				who, lost, samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0,
				c->run.replaying ? " while recording" : "",
				c->run.replaying ? "" : "; raise --ring-size");
		char fw[1024];
		if (firedout_warning(&c->res.fired, fw, sizeof(fw)))
			fprintf(stderr, "%s: warning: %s%s\n", who, fw,
				firedtab_undelivered(&c->res.fired) ? ": the attribution is incomplete" : "");
		if (unseen_switches(c))
			fprintf(stderr, "%s: %" PRIu64 " context switches came with no event: those tasks' "
				"entries are counted, without their time\n", who, unseen_switches(c));
		if (a->dropped_open)
			fprintf(stderr, "%s: %" PRIu64 " nested noise entries dropped (nesting too deep)\n", who,
				a->dropped_open);
		if (a->contrib_overflow)
			fprintf(stderr, "%s: %" PRIu64 " noise entries not in the contributor table (256 "
				"contributors a CPU, full): the table misses them, the totals do not\n", who,
				a->contrib_overflow);
		if (a->history_overflow)
			fprintf(stderr, "%s: %" PRIu64 " gaps held more entries than the history keeps: their "
				"entry counts and top contributor are incomplete\n", who, a->history_overflow);
	}
	if (c->run.kmode && c->res.cnt.lost && c->run.replaying)
		fprintf(stderr, "%s: the trace says the kernel tracer's buffer lost %" PRIu64 " events "
			"([LOST] lines): periods, samples and the attribution are incomplete\n", who,
			c->res.cnt.lost);
	else if (c->run.kmode && c->res.cnt.lost)
		fprintf(stderr, "%s: the kernel tracer's buffer lost %" PRIu64 " events (overrun): periods, "
			"samples and the attribution are incomplete; raise --ring-size (%" PRIu64
			" KiB per CPU) or -T\n", who, c->res.cnt.lost, c->run.kbuf_bytes / 1024);
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		if (oswork_lost(c->run.w, i))
			fprintf(stderr, "%s: cpu%u: %" PRIu64 " workload records lost (collector too slow)\n",
				who, c->run.list[i], oswork_lost(c->run.w, i));
	if (c->res.cnt.unknown_id + c->res.cnt.bad_samples + c->res.cnt.undecoded + c->res.cnt.bad_wrec)
		fprintf(stderr, "%s: skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", who, c->res.cnt.unknown_id,
			c->res.cnt.bad_samples, c->res.cnt.undecoded, c->res.cnt.bad_wrec);
	if (c->run.s && evsrc_stats(c->run.s)->corrupt_bytes)
		fprintf(stderr, "%s: corrupt ring data: %" PRIu64 " bytes skipped\n", who,
			evsrc_stats(c->run.s)->corrupt_bytes);
	if (c->res.cnt.forced)
		fprintf(stderr, "%s: %" PRIu64 " queue flushes forced by a full queue: events after them "
			"may be out of order (%" PRIu64 " were)\n", who, c->res.cnt.forced, c->res.cnt.out_of_order);
}

/*
 * The end of every mode: every loss named (print_losses), the verdict on
 * lost data (exit 1 when a stop threshold or --strict asks for one), then
 * stdout checked (exit 2 on a write error).  rc is the status so far.
 */
int osnoise_finish(struct ctx *c, int rc)
{
	/* a reader that left asked for nothing more (the flush finds out) */
	if (fflush(stdout) != 0)
		cmdio_note_error();	/* cmdio_finish() below names it */
	if (!cmdio_broken_pipe())
		print_losses(c);
	uint64_t d = osnoise_dropped(c);
	if (d && (c->opt.stop_us || c->opt.stop_total_us || c->opt.strict)) {
		fprintf(stderr, "latscope osnoise: %" PRIu64 " events or records were lost or skipped, "
				"so the run cannot pass %s: exit 1\n", d,
			c->opt.strict ? "--strict" : "its stop thresholds");
		if (rc == 0)
			rc = EXIT_THRESHOLD;
	}
	/* a reader that left (SIGPIPE) is cmdio_finish()'s one line */
	if (c->res.write_err && !cmdio_stdout_gone(c->res.write_err)) {
		fprintf(stderr, "latscope osnoise: error writing standard output: %s\n",
			strerror(c->res.write_err));
		clearerr(stdout);
		return EXIT_ERR;
	}
	if (cmdio_finish(stdout, "latscope osnoise", "standard output") || c->res.json_rc)
		return EXIT_ERR;
	return rc;
}

void osnoise_print_trace_header(FILE *f)
{
	fprintf(f, "# latscope osnoise trace: one record per period per CPU (time in us)\n");
	fprintf(f, "#                                                RUNTIME      NOISE  %% OF CPU   MAX SINGLE  "
		   "   Interference counters\n");
	fprintf(f, "#           TASK-PID      CPU#       TIMESTAMP      IN US      IN US  AVAILABLE  NOISE IN US"
		   "     HW    NMI    IRQ   SIRQ THREAD\n");
}

void osnoise_final_report(struct ctx *c)
{
	FILE *f = stdout;
	if (c->run.s) {
		c->res.cnt.out_of_order = evsrc_stats(c->run.s)->out_of_order;
		c->res.cnt.forced = evsrc_stats(c->run.s)->forced;
	}
	if (c->out.json) {
		c->res.json_rc = print_json(c);
		if (osnoise_stop_why(c))
			print_stop(c, stderr);
		osnoise_print_auto(c, stderr);
		return;
	}
	switch (c->mode) {
	case M_HIST:
		print_hist(c, f);
		break;
	case M_TOP:
	case M_RECORD:
		print_top_table(c, f, !c->out.quiet);
		break;
	case M_TRACE:
		break;
	}
	if (c->mode != M_HIST || !c->out.no_summary)
		print_details(c, c->mode == M_TRACE ? stderr : f);
	print_stop(c, f);
	osnoise_print_auto(c, f);
	if (c->out.json_file || c->out.renders.nr)
		c->res.json_rc = print_json(c);
}

uint64_t osnoise_gaps(const struct ctx *c)
{
	uint64_t n = 0;
	for (size_t i = 0; c->run.e && i < c->run.nr; i++)
		n += osneng_cpu(c->run.e, i)->hist.count;
	return n;
}

void osnoise_refresh_top(struct ctx *c)
{
	if (c->out.json || c->out.quiet || c->mode != M_TOP)
		return;
	if (isatty(STDOUT_FILENO))
		printf("\033[H\033[2J");
	print_top_table(c, stdout, true);
	fflush(stdout);
}
