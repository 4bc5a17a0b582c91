/* SPDX-License-Identifier: MIT */
/*
 * doc.c - `latscope timerlat`'s latscope.timerlat/1 document (docs/json.md,
 * docs/schema/timerlat.json): the run's settings, what it lost or missed,
 * the stop and the stack the kernel printed, and per CPU and context the
 * latencies (count, exact min/avg/max, percentiles, the worst activation,
 * and for hist the non-empty buckets).  The text (text.c), --json, --html
 * and --render all draw this one document.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "jsonout.h"
#include "timerlat.h"

static json_object *ju(uint64_t v)
{
	return jsonnum_u64(v);
}

static json_object *ji(int64_t v)
{
	return json_object_new_int64(v);
}

/* p50, p99, p99.9 of h by the one percentile rule (lib/base/lhist.h); null
 * without samples */
static void add_pcts(json_object *o, const struct lhist *h)
{
	static const struct { const char *key; double pct; } p[] = {
		{ "p50_ns", 50.0 }, { "p99_ns", 99.0 }, { "p99_9_ns", 99.9 },
	};
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		int64_t v;
		json_object_object_add(o, p[i].key, lhist_percentile_ns(h, p[i].pct, &v) ? NULL : ji(v));
	}
}

static json_object *buckets_json(const struct lhist *h)
{
	json_object *a = json_object_new_array();
	for (uint32_t i = 0; i < h->cfg.nr_buckets; i++) {
		if (!h->counts[i])
			continue;
		json_object *b = json_object_new_array();
		json_object_array_add(b, ji(lhist_bucket_lo_ns(h, i)));
		json_object_array_add(b, ju(h->counts[i]));
		json_object_array_add(a, b);
	}
	return a;
}

/* One histogram's figures (count 0: min, avg, max and the percentiles
 * null). */
static json_object *hist_json(const struct lhist *h, bool buckets)
{
	json_object *o = json_object_new_object();
	bool any = h->total > 0;
	json_object_object_add(o, "count", ju(h->total));
	json_object_object_add(o, "min_ns", any ? ji(h->min_ns) : NULL);
	json_object_object_add(o, "avg_ns", any ? ji(lhist_avg_ns(h)) : NULL);
	json_object_object_add(o, "max_ns", any ? ji(h->max_ns) : NULL);
	add_pcts(o, h);
	json_object_object_add(o, "over", ju(h->above));
	if (buckets)
		json_object_object_add(o, "buckets", buckets_json(h));
	return o;
}

static json_object *series_json(const struct tlat_series *s, bool buckets)
{
	json_object *o = hist_json(&s->h, buckets);
	json_object_object_add(o, "cur_ns", s->seen ? ju(s->last.lat_ns) : NULL);
	json_object_object_add(o, "missed", ju(s->missed));
	json_object_object_add(o, "restarts", ju(s->restarts));
	json_object_object_add(o, "seq_first", s->seen ? ju(s->first_seq) : NULL);
	json_object_object_add(o, "seq_last", s->seen ? ju(s->last.seq) : NULL);
	json_object *w = NULL;
	if (s->h.total) {
		w = json_object_new_object();
		json_object_object_add(w, "latency_ns", ju(s->worst.lat_ns));
		json_object_object_add(w, "seq", ju(s->worst.seq));
		json_object_object_add(w, "ts_ns", ju(s->worst.ts_ns));
	}
	json_object_object_add(o, "worst", w);
	return o;
}

/* The contexts the run has: user only with -u or user samples. */
static bool has_user(const struct tl *c)
{
	if (c->opt.uthreads)
		return true;
	for (uint32_t cpu = 0; cpu < c->run.t.nr_cpus; cpu++)
		if (c->run.t.cpus[cpu].s[TLAT_USER].h.total)
			return true;
	return false;
}

/* Whether cpu is shown: a measured CPU of a live run, a CPU with records
 * in a saved trace. */
static bool shown_cpu(const struct tl *c, uint32_t cpu)
{
	if (c->run.live)
		return parse_cpuset_has(&c->run.cpus, cpu);
	const struct tlat_cpu *t = &c->run.t.cpus[cpu];
	return t->s[TLAT_IRQ].h.total || t->s[TLAT_THREAD].h.total || t->s[TLAT_USER].h.total;
}

static json_object *cpus_json(const struct tl *c, bool buckets, int nctx)
{
	json_object *a = json_object_new_array();
	for (uint32_t cpu = 0; cpu < c->run.t.nr_cpus; cpu++) {
		if (!shown_cpu(c, cpu))
			continue;
		json_object *o = json_object_new_object();
		json_object_object_add(o, "cpu", ju(cpu));
		for (int x = 0; x < nctx; x++)
			json_object_object_add(o, tlat_ctx_name(x), series_json(&c->run.t.cpus[cpu].s[x], buckets));
		json_object_array_add(a, o);
	}
	return a;
}

/* Every CPU's samples of each context together. */
static json_object *all_json(const struct tl *c, bool buckets, int nctx)
{
	json_object *o = json_object_new_object();
	struct lhist h;
	if (lhist_init(&h, &c->run.t.cfg.hist))
		return o;
	for (int x = 0; x < nctx; x++)
		if (!tlat_merge_ctx(&c->run.t, x, &h))
			json_object_object_add(o, tlat_ctx_name(x), hist_json(&h, buckets));
	lhist_fini(&h);
	return o;
}

static json_object *settings_json(const struct tl *c)
{
	json_object *o = json_object_new_object();
	char cl[1024] = "";
	if (c->run.live)
		parse_cpulist_format(&c->run.cpus, cl, sizeof(cl));
	json_object_object_add(o, "cpus", c->run.live ? json_object_new_string(cl) : NULL);
	json_object_object_add(o, "period_ns", c->run.live ? ju(c->opt.period_us * 1000) : NULL);
	json_object_object_add(o, "threads", c->run.live ? json_object_new_string(c->opt.uthreads ? "user" : "kernel")
							 : NULL);
	json_object_object_add(o, "irq_threshold_ns", c->opt.irq_us ? ju(c->opt.irq_us * 1000) : NULL);
	json_object_object_add(o, "thread_threshold_ns", c->opt.thread_us ? ju(c->opt.thread_us * 1000) : NULL);
	json_object_object_add(o, "stack_threshold_ns", c->opt.stack_us ? ju(c->opt.stack_us * 1000) : NULL);
	json_object_object_add(o, "bucket_ns", ju(c->out.bucket_us * 1000));
	json_object_object_add(o, "entries", ju(c->out.entries));
	return o;
}

static json_object *input_json(const struct tl *c)
{
	const struct tl_input *in = &c->run.in;
	json_object *o = json_object_new_object(), *m = json_object_new_object();
	uint64_t restarts = 0;
	for (int x = 0; x < TLAT_NR_CTX; x++) {
		json_object_object_add(m, tlat_ctx_name(x), ju(tlat_missed(&c->run.t, x)));
		for (uint32_t cpu = 0; cpu < c->run.t.nr_cpus; cpu++)
			restarts += c->run.t.cpus[cpu].s[x].restarts;
	}
	json_object_object_add(o, "records", ju(in->records));
	json_object_object_add(o, "outside_window", ju(in->outside));
	json_object_object_add(o, "lost_lines", ju(in->lost_lines));
	bool bpf = c->run.ran && !strcmp(c->run.ran, "bpf");
	json_object_object_add(o, "overrun", c->run.live && !bpf ? ju(in->overrun) : NULL);
	json_object_object_add(o, "bpf_misses", bpf ? ju(c->run.bpf_misses) : NULL);
	json_object_object_add(o, "missed", m);
	json_object_object_add(o, "restarts", ju(restarts));
	json_object_object_add(o, "malformed", ju(in->malformed));
	json_object_object_add(o, "bad_cpu", ju(c->run.t.bad_cpu));
	return o;
}

/* The stop: the first sample at or above its threshold, or the kernel's
 * note when the records did not show it (it stopped on a sample the ring
 * lost); null without one. */
static json_object *stop_json(const struct tl *c)
{
	const struct tlat_stop *s = &c->run.t.stop;
	if (!s->hit && !c->run.in.kernel_stop)
		return NULL;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "cpu", ju(s->hit ? s->cpu : c->run.in.kernel_stop_cpu));
	json_object_object_add(o, "context", s->hit ? json_object_new_string(tlat_ctx_name(s->ctx)) : NULL);
	json_object_object_add(o, "latency_ns", s->hit ? ju(s->sample.lat_ns) : NULL);
	json_object_object_add(o, "threshold_ns", s->hit ? ju(c->run.t.cfg.stop_ns[s->ctx]) : NULL);
	json_object_object_add(o, "seq", s->hit ? ju(s->sample.seq) : NULL);
	json_object_object_add(o, "ts_ns", s->hit ? ju(s->sample.ts_ns) : NULL);
	json_object_object_add(o, "kernel_stopped", json_object_new_boolean(c->run.in.kernel_stop));
	json_object_object_add(o, "before_window", json_object_new_boolean(c->run.pre_stop_used));
	json_object_object_add(o, "hits", ju(c->run.t.hits));
	return o;
}

static json_object *stack_json(const struct tl *c)
{
	const struct tl_stack *st = &c->run.stack;
	if (!st->set)
		return NULL;
	json_object *o = json_object_new_object(), *f = json_object_new_array();
	json_object_object_add(o, "cpu", ju(st->cpu));
	json_object_object_add(o, "ts_ns", ju(st->ts_ns));
	for (uint32_t i = 0; i < st->nr; i++)
		json_object_array_add(f, json_object_new_string(st->frames[i]));
	json_object_object_add(o, "frames", f);
	return o;
}

static json_object *source_json(const struct tl *c)
{
	json_object *o = json_object_new_object();
	struct utsname u;
	json_object_object_add(o, "ran", json_object_new_string(c->run.ran ? c->run.ran : "trace"));
	json_object_object_add(o, "kernel", c->run.live && !uname(&u) ? json_object_new_string(u.release) : NULL);
	json_object_object_add(o, "file", c->opt.parse_kernel ? json_object_new_string(c->opt.parse_kernel) : NULL);
	return o;
}

json_object *timerlat_doc(const struct tl *c, bool buckets)
{
	static const char *const modes[] = { "top", "hist", "trace" };
	json_object *d = jsonout_new(REPORT_TIMERLAT);
	if (!d)
		return NULL;
	int nctx = has_user(c) ? TLAT_NR_CTX : TLAT_USER;
	json_object_object_add(d, "command", json_object_new_string("timerlat"));
	json_object_object_add(d, "mode", json_object_new_string(modes[c->mode]));
	json_object_object_add(d, "source", source_json(c));
	json_object_object_add(d, "settings", settings_json(c));
	uint64_t end = c->run.end_ns ? c->run.end_ns : c->run.start_ns;
	json_object_object_add(d, "duration_ns", c->run.live ? ju(end - c->run.start_ns) : NULL);
	json_object_object_add(d, "input", input_json(c));
	json_object_object_add(d, "stop", stop_json(c));
	json_object_object_add(d, "stack", stack_json(c));
	json_object_object_add(d, "auto", timerlat_auto_json(c));
	json_object_object_add(d, "cpus", cpus_json(c, buckets, nctx));
	json_object_object_add(d, "all", all_json(c, buckets, nctx));
	return d;
}
