/* SPDX-License-Identifier: MIT */
/*
 * json.c - `latscope osnoise`'s latscope.osnoise/1 document (docs/json.md):
 * the run's settings, what it lost or skipped, the stop and per CPU the
 * noise, the histogram and the top contributors; written as --json,
 * --json=FILE, --html and --render ask.  The figures it shares with the
 * text views are output.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"
#include "firedout.h"
#include "jsonout.h"
#include "live/evsrc.h"
#include "base/jsonnum.h"
#include "engine/noise.h"
#include "osnoise.h"
#include "base/sysinfo.h"

static json_object *jdouble5(uint64_t e5)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%05" PRIu64, e5 / 100000, e5 % 100000);
	return json_object_new_double_s((double)e5 / 100000.0, buf);
}

static json_object *ju(uint64_t v)
{
	return jsonnum_u64(v);	/* one rule for 64-bit values in every command */
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

/* The document's first keys: the run's settings (the recording's in a
 * replay), its attribution, the machine (vm: its name, NULL on bare
 * metal), the collector's CPU time, the backend and the events it lost. */
static void add_run_json(const struct ctx *c, json_object *root, const char *vm)
{
	static const char *const mode_names[] = { "top", "hist", "trace", "record" };
	json_object_object_add(root, "tool", json_object_new_string("latscope osnoise"));
	json_object_object_add(root, "mode", json_object_new_string(mode_names[c->mode]));
	json_object_object_add(root, "workload", json_object_new_boolean(!c->run.no_workload));
	json_object_object_add(root, "threshold_ns", ju(c->run.threshold_us * 1000));
	json_object_object_add(root, "period_ns", ju(c->run.period_us * 1000));
	json_object_object_add(root, "runtime_ns", ju(c->run.runtime_us * 1000));
	json_object_object_add(root, "duration_ns", ju(osnoise_run_ns(c)));
	json_object_object_add(root, "attribution", json_object_new_boolean(c->run.attribution));
	if (!c->run.kmode)
		json_object_object_add(root, "softirq_in_threads", json_object_new_boolean(c->run.softirq_in_threads));
	if (!c->run.attribution)
		json_object_object_add(root, "attribution_off", json_object_new_string(c->run.attr_why));
	json_object_object_add(root, "vm", vm ? json_object_new_string(vm) : NULL);
	struct rusage ru;
	if (!getrusage(RUSAGE_THREAD, &ru))	/* the collector (main) thread */
		json_object_object_add(root, "collector_cpu_ns",
				       ju(((uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
					   (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec) * 1000));
	json_object_object_add(root, "backend", c->run.ran ? json_object_new_string(c->run.ran) : NULL);
	json_object_object_add(root, "events_lost", ju(osnoise_events_lost(c)));
}

/* --kernel: the run's window in the kernel's trace clock (its markers) and
 * the instance's buffer. */
static json_object *kernel_window_json(const struct ctx *c)
{
	const struct osneng_times *t = osneng_times(c->run.e);
	json_object *kw = json_object_new_object();
	json_object_object_add(kw, "start_ns", t->kwin_start_ns ? ju(t->kwin_start_ns) : NULL);
	json_object_object_add(kw, "end_ns", t->kwin_end_ns ? ju(t->kwin_end_ns) : NULL);
	json_object_object_add(kw, "buffer_kb", ju(c->run.kbuf_bytes / 1024));
	return kw;
}

/* What the reader, the decoders and the rings skipped or reordered. */
static json_object *skipped_json(const struct ctx *c)
{
	const struct osneng_counts *n = &c->res.cnt;
	json_object *sk = json_object_new_object();
	json_object_object_add(sk, "unknown_id", ju(n->unknown_id));
	json_object_object_add(sk, "bad_samples", ju(n->bad_samples));
	json_object_object_add(sk, "undecoded", ju(n->undecoded));
	json_object_object_add(sk, "bad_workload_records", ju(n->bad_wrec));
	json_object_object_add(sk, "workload_records_lost", ju(osnoise_wrec_lost(c)));
	json_object_object_add(sk, "out_of_order", ju(n->out_of_order));
	json_object_object_add(sk, "forced_flushes", ju(n->forced));
	if (n->duplicates)
		json_object_object_add(sk, "duplicates", ju(n->duplicates));
	json_object_object_add(sk, "corrupt_ring_bytes", ju(c->run.s ? evsrc_stats(c->run.s)->corrupt_bytes : 0));
	return sk;
}

/* The event stream's anomalies, as the accounting (and the bpf programs) saw them. */
static json_object *anomalies_json(const struct ctx *c)
{
	const struct noise_anomalies *an = noise_anomalies(c->run.n);
	json_object *aj = json_object_new_object();
	json_object_object_add(aj, "unmatched_exit", ju(an->unmatched_exit));
	json_object_object_add(aj, "dropped_open", ju(an->dropped_open));
	json_object_object_add(aj, "unseen_switch_in", ju(osnoise_unseen_switches(c)));
	json_object_object_add(aj, "negative", ju(an->negative));
	json_object_object_add(aj, "history_overflow", ju(an->history_overflow));
	json_object_object_add(aj, "contrib_overflow", ju(an->contrib_overflow));
	json_object_object_add(aj, "contrib_evicted", ju(an->contrib_evicted));
	return aj;
}

/* The stop threshold that was hit, NULL (JSON null) when none was. */
static json_object *stop_json(const struct ctx *c)
{
	const struct osneng_stop *st = osneng_stop(c->run.e);
	if (!st->why)
		return NULL;
	json_object *stop = json_object_new_object();
	json_object_object_add(stop, "reason", json_object_new_string(
				       st->why == OSNENG_STOP_SINGLE ? "single" : "total"));
	json_object_object_add(stop, "cpu", ju(st->cpu));
	json_object_object_add(stop, "value_ns", ju(st->value_ns));
	return stop;
}

/* A CPU's gap histogram: its buckets (the empty ones with --with-zeros), the
 * summary, the percentiles and which of them are clipped. */
static json_object *hist_json(const struct ctx *c, const struct osneng_hist *h)
{
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
	for (size_t p = 0; p < OSNOISE_NR_PCTS; p++) {
		json_object_object_add(hj, osnoise_hist_pcts[p].key, ju(jhist_pct_ns(c, h, osnoise_hist_pcts[p].pct)));
		if (osnoise_hist_pct_clipped(c, h, osnoise_hist_pcts[p].pct))
			json_object_array_add(cl, json_object_new_string(osnoise_hist_pcts[p].key));
	}
	json_object_object_add(hj, "clipped", cl);
	return hj;
}

/* The top contributors of CPU cpu, largest first, in k (room for 256 of
 * them, the caller's; NULL: none listed). */
static json_object *top_json(const struct ctx *c, unsigned cpu, struct noise_contrib *k)
{
	json_object *cj = json_object_new_array();
	size_t n = k && c->run.attribution ? osnoise_sorted_contribs(c, cpu, k, c->out.top_n) : 0;
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
	return cj;
}

/* The CPU at index i: its periods and noise, the classes (null without
 * attribution), below the threshold, the loop's figures, its steal (live,
 * in a VM), its histogram and its top contributors (k: top_json's). */
static json_object *cpu_json(const struct ctx *c, size_t i, bool in_vm, struct noise_contrib *k)
{
	const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
	long tck = sysconf(_SC_CLK_TCK);
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
	const struct osneng_cpu *pc = osneng_cpu(c->run.e, i);
	json_object_object_add(o, "floor_ns", ju(pc->floor_ns));
	if (!c->run.no_workload) {
		json_object_object_add(o, "loop_ns_per_iteration",
				       json_object_new_double(pc->iters ? (double)pc->loop_ns /
							      (double)pc->iters : 0.0));
		json_object_object_add(o, "smallest_gap_ns", ju(pc->min_gap_ns));
	}
	if (in_vm && !c->run.replaying)
		json_object_object_add(o, "steal_ns",
				       ju((c->run.steal1[i] - c->run.steal0[i]) * 1000000000 /
					  (uint64_t)(tck > 0 ? tck : 100)));
	if (pc->hist.b)
		json_object_object_add(o, "hist", hist_json(c, &pc->hist));
	json_object_object_add(o, "top", top_json(c, c->run.list[i], k));
	return o;
}

/* The latscope.osnoise/1 document (docs/json.md); the caller puts it. */
static json_object *build_json(struct ctx *c)
{
	char vm[128];
	const char *hv = sysinfo_vm_name(vm, sizeof(vm));
	json_object *root = jsonout_new(REPORT_OSNOISE);
	add_run_json(c, root, hv ? vm : NULL);
	if (c->res.bst_read)
		json_object_object_add(root, "bpf", bpf_json(c));
	if (c->run.kmode && !c->run.replaying)
		json_object_object_add(root, "kernel_window", kernel_window_json(c));
	json_object_object_add(root, "skipped", skipped_json(c));
	json_object_object_add(root, "dropped", ju(osnoise_dropped(c)));
	if (c->run.s || c->res.fired.counted)
		json_object_object_add(root, "fired", firedout_json(&c->res.fired));
	json_object_object_add(root, "anomalies", anomalies_json(c));
	json_object_object_add(root, "stop", stop_json(c));
	json_object *cpus = json_object_new_array();
	struct noise_contrib *k = calloc(256, sizeof(*k));	/* top_json's room, for every CPU */
	for (size_t i = 0; i < c->run.nr; i++)
		json_object_array_add(cpus, cpu_json(c, i, hv != NULL, k));
	free(k);
	json_object_object_add(root, "cpus", cpus);
	return root;
}

/* The JSON document on stdout (--json) or in --json=FILE, and its page in
 * --html FILE; 0 or EXIT_ERR. */
int osnoise_print_json(struct ctx *c)
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
