/* SPDX-License-Identifier: MIT */
/* histout.c - latency histogram output (see histout.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "engine/latency.h"
#include "print/histout.h"

static bool whole_us(const struct lhist_cfg *cfg)
{
	return cfg->bucket_ns % 1000 == 0 && cfg->lo_ns % 1000 == 0;
}

/* ns -> "v" in us: truncated integer (like latency_hist) or 3 decimals. */
static void fmt_us(char *b, size_t n, int64_t ns, bool integer)
{
	if (integer) {
		snprintf(b, n, "%" PRId64, ns / 1000);
		return;
	}
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(b, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

int histout_hist_file(FILE *f, const struct lhist *h, const struct lhist_cfg *cfg,
		    bool nonzero_only)
{
	struct lhist_cfg def;
	char mn[32], av[32], mx[32];

	if (h)
		cfg = &h->cfg;
	if (!cfg) {
		lhist_cfg_default(&def);
		cfg = &def;
	}
	bool us = whole_us(cfg);
	uint64_t total = h ? h->total : 0;
	if (total) {
		fmt_us(mn, sizeof(mn), h->min_ns, us);
		fmt_us(av, sizeof(av), lhist_avg_ns(h), us);
		fmt_us(mx, sizeof(mx), h->max_ns, us);
	} else {
		snprintf(mn, sizeof(mn), "<undef>");
		snprintf(av, sizeof(av), "<undef>");
		snprintf(mx, sizeof(mx), "<undef>");
	}
	int64_t lo = cfg->lo_ns;
	int64_t hi = lo + (int64_t)(cfg->bucket_ns * cfg->nr_buckets);
	char los[32], his[32];
	fmt_us(los, sizeof(los), lo, us);
	fmt_us(his, sizeof(his), hi, us);
	fprintf(f, "#Minimum latency: %s microseconds\n", mn);
	fprintf(f, "#Average latency: %s microseconds\n", av);
	fprintf(f, "#Maximum latency: %s microseconds\n", mx);
	fprintf(f, "#Total samples: %" PRIu64 "\n", total);
	fprintf(f, "#There are %" PRIu64 " samples lower than %s microseconds.\n",
		h ? h->below : 0, los);
	fprintf(f, "#There are %" PRIu64 " samples greater or equal than %s microseconds.\n",
		h ? h->above : 0, his);
	fprintf(f, "#%s\t%16s\n", us ? "usecs" : "nsecs", "samples");
	for (uint32_t i = 0; i < cfg->nr_buckets; i++) {
		uint64_t c = h ? h->counts[i] : 0;
		if (nonzero_only && !c)
			continue;
		int64_t v = lo + (int64_t)((uint64_t)i * cfg->bucket_ns);
		fprintf(f, "%6" PRId64 "\t%16" PRIu64 "\n", us ? v / 1000 : v, c);
	}
	return ferror(f) ? -EIO : 0;
}

int histout_maxline(char *buf, size_t len, const struct hset_max *m)
{
	int n;
	if (!m || !m->valid) {
		n = snprintf(buf, len, "(none)\n");
	} else {
		char cul[64];
		if (m->has_culprit)
			snprintf(cul, sizeof(cul), "%d %d %s", m->culprit_pid,
				 hset_user_prio(m->culprit_prio), m->culprit_comm);
		else
			snprintf(cul, sizeof(cul), "-1 -1 (unknown)");
		n = snprintf(buf, len, "%d %d %" PRId64 " (%" PRId64 ") %s <- %s %" PRIu64 ".%06" PRIu64 "\n",
			     m->pid, hset_user_prio(m->prio), m->latency_ns / 1000,
			     m->timer_offset_ns / 1000, m->comm[0] ? m->comm : "(unknown)", cul,
			     m->time_ns / 1000000000u, (m->time_ns % 1000000000u) / 1000u);
	}
	if (n < 0)
		return -EIO;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}

static const double lh_pcts[] = { 50.0, 90.0, 99.0, 99.9, 99.99 };
/* The JSON keys: one spelling in every command (docs/json.md) */
static const char *const lh_pct_keys[] = { "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns" };
#define LH_NR_PCT (sizeof(lh_pcts) / sizeof(lh_pcts[0]))

static int jadd(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, k, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int jadd_arr(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *lh_json_hist(const struct lhist *h, bool buckets)
{
	struct json_object *o = json_object_new_object();
	int err = 0;
	if (!o)
		return NULL;
	err |= jadd(o, "total", json_object_new_int64((int64_t)h->total));
	err |= jadd(o, "below", json_object_new_int64((int64_t)h->below));
	err |= jadd(o, "above", json_object_new_int64((int64_t)h->above));
	if (h->total) {
		err |= jadd(o, "min_ns", json_object_new_int64(h->min_ns));
		err |= jadd(o, "avg_ns", json_object_new_int64(lhist_avg_ns(h)));
		err |= jadd(o, "max_ns", json_object_new_int64(h->max_ns));
		for (size_t i = 0; i < LH_NR_PCT; i++) {
			int64_t v = 0;
			lhist_percentile_ns(h, lh_pcts[i], &v);
			err |= jadd(o, lh_pct_keys[i], json_object_new_int64(v));
		}
	}
	if (buckets) {
		struct json_object *a = json_object_new_array();
		err |= jadd(o, "buckets", a);
		for (uint32_t i = 0; a && !err && i < h->cfg.nr_buckets; i++) {
			if (!h->counts[i])
				continue;
			struct json_object *p = json_object_new_array();
			err |= jadd_arr(a, p);
			if (p) {
				err |= jadd_arr(p, json_object_new_int64(lhist_bucket_lo_ns(h, i)));
				err |= jadd_arr(p, json_object_new_int64((int64_t)h->counts[i]));
			}
		}
	}
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *lh_json_max(const struct hset_max *m)
{
	struct json_object *o = json_object_new_object();
	int err = 0;
	if (!o)
		return NULL;
	err |= jadd(o, "latency_ns", json_object_new_int64(m->latency_ns));
	err |= jadd(o, "timer_offset_ns", json_object_new_int64(m->timer_offset_ns));
	err |= jadd(o, "pid", json_object_new_int(m->pid));
	err |= jadd(o, "prio", json_object_new_int(hset_user_prio(m->prio)));	/* as the text */
	err |= jadd(o, "comm", json_object_new_string(m->comm));
	if (m->has_culprit) {
		err |= jadd(o, "culprit_pid", json_object_new_int(m->culprit_pid));
		err |= jadd(o, "culprit_prio", json_object_new_int(hset_user_prio(m->culprit_prio)));
		err |= jadd(o, "culprit_comm", json_object_new_string(m->culprit_comm));
	}
	err |= jadd(o, "time_ns", jsonnum_u64(m->time_ns));
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *histout_json(const struct hset *set, const bool types[HSET_NR_KINDS],
			       const bool unsupported[HSET_NR_KINDS], bool buckets)
{
	const struct lhist_cfg *geo = hset_geometry(set);
	struct json_object *root = json_object_new_object();
	struct json_object *hs, *un;
	int err = 0;

	if (!root)
		return NULL;
	err |= jadd(root, "bucket_ns", json_object_new_int64((int64_t)geo->bucket_ns));
	err |= jadd(root, "lo_ns", json_object_new_int64(geo->lo_ns));
	err |= jadd(root, "nr_buckets", json_object_new_int64(geo->nr_buckets));
	err |= jadd(root, "histograms", hs = json_object_new_object());
	err |= jadd(root, "unavailable", un = json_object_new_array());
	for (int t = 0; !err && t < HSET_NR_KINDS; t++) {
		if (!types[t])
			continue;
		if (unsupported && unsupported[t]) {
			err |= jadd_arr(un, json_object_new_string(hset_kind_name(t)));
			continue;
		}
		struct json_object *to = json_object_new_object(), *cpus;
		struct lhist all;
		err |= jadd(hs, hset_kind_name(t), to);
		if (err)
			break;
		err |= jadd(to, "cpus", cpus = json_object_new_array());
		if (lhist_init(&all, geo) < 0) {
			err = 1;
			break;
		}
		for (uint32_t c = 0; !err && c < hset_nr_cpus(set); c++) {
			const struct lhist *h = hset_hist(set, t, c);
			if (!h)
				continue;
			lhist_merge(&all, h);
			struct json_object *co = lh_json_hist(h, buckets);
			err |= jadd_arr(cpus, co);
			if (!co)
				break;
			err |= jadd(co, "cpu", json_object_new_int((int)c));
			const struct hset_max *m = hset_max(set, t, c);
			if (m->valid)
				err |= jadd(co, "max_latency", lh_json_max(m));
		}
		if (!err)
			err |= jadd(to, "all", lh_json_hist(&all, buckets));
		lhist_fini(&all);
	}
	if (err) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

struct json_object *histout_json_engine_stats(const struct latency_stats *st)
{
	struct json_object *so = json_object_new_object();
	int err = 0;
	if (so) {
		err |= jadd(so, "events", json_object_new_int64((int64_t)st->events));
		err |= jadd(so, "bad_cpu", json_object_new_int64((int64_t)st->bad_cpu));
		err |= jadd(so, "pid_evictions", json_object_new_int64((int64_t)st->pid_evictions));
		err |= jadd(so, "timer_evictions",
			    json_object_new_int64((int64_t)st->timer_evictions));
		err |= jadd(so, "alloc_failures",
			    json_object_new_int64((int64_t)st->alloc_failures));
		err |= jadd(so, "wake_ignored", json_object_new_int64((int64_t)st->wake_ignored));
		err |= jadd(so, "dropped_prio", json_object_new_int64((int64_t)st->dropped_prio));
		err |= jadd(so, "dropped_running",
			    json_object_new_int64((int64_t)st->dropped_running));
		err |= jadd(so, "replaced", json_object_new_int64((int64_t)st->replaced));
		err |= jadd(so, "migrated", json_object_new_int64((int64_t)st->migrated));
		err |= jadd(so, "timer_unknown", json_object_new_int64((int64_t)st->timer_unknown));
		err |= jadd(so, "timer_early", json_object_new_int64((int64_t)st->timer_early));
		err |= jadd(so, "unmatched_enable",
			    json_object_new_int64((int64_t)st->unmatched_enable));
		err |= jadd(so, "late_wakeups", json_object_new_int64((int64_t)st->late_wakeups));
	}
	if (err) {
		json_object_put(so);
		return NULL;
	}
	return so;
}

/* The below/above-range row of the terminal table. */
static void term_edge(FILE *f, const struct hset *set, enum hset_kind t, const struct lhist *all,
		      uint32_t ncols, bool above)
{
	fprintf(f, "%15s", above ? "above" : "below");
	for (uint32_t c = 0; c < hset_nr_cpus(set); c++) {
		const struct lhist *h = hset_hist(set, t, c);
		if (h && h->total)
			fprintf(f, " %9" PRIu64, above ? h->above : h->below);
	}
	if (ncols > 1)
		fprintf(f, " %9" PRIu64, above ? all->above : all->below);
	fprintf(f, "\n");
}

/* One kind's terminal table, shared by its parts: a column per CPU with
 * samples (ncols of them) and "all" (the merged histogram) when there are
 * several; values divided by div (1 ns or 1000 us). */
struct term {
	FILE *f;
	const struct hset *set;
	enum hset_kind t;
	const struct lhist *all;
	uint32_t ncols;
	int64_t div;
};

/* The header row: "latency", then the columns' names. */
static void term_header(const struct term *tm)
{
	FILE *f = tm->f;
	fprintf(f, "%15s", "latency");
	for (uint32_t c = 0; c < hset_nr_cpus(tm->set); c++) {
		const struct lhist *h = hset_hist(tm->set, tm->t, c);
		if (h && h->total) {
			char col[16];
			snprintf(col, sizeof(col), "CPU%u", c);
			fprintf(f, " %9s", col);
		}
	}
	if (tm->ncols > 1)
		fprintf(f, " %9s", "all");
	fprintf(f, "\n");
}

/* The buckets' rows between the below and above rows: the non-zero ones,
 * from the first to the last, grouped to at most max_rows (a group is
 * labelled with its range), the empty groups left out. */
static void term_buckets(const struct term *tm, unsigned max_rows)
{
	FILE *f = tm->f;
	const struct lhist *all = tm->all;
	uint32_t ncpu = hset_nr_cpus(tm->set);
	uint32_t first = UINT32_MAX, last = 0, nz = 0;
	for (uint32_t i = 0; i < all->cfg.nr_buckets; i++)
		if (all->counts[i]) {
			if (first == UINT32_MAX)
				first = i;
			last = i;
			nz++;
		}
	uint32_t group = 1;
	if (nz > max_rows && first != UINT32_MAX)
		group = (last - first) / max_rows + 1;
	if (all->below)
		term_edge(f, tm->set, tm->t, all, tm->ncols, false);
	for (uint32_t i = first; first != UINT32_MAX && i <= last; i += group) {
		uint32_t end = i + group > all->cfg.nr_buckets ? all->cfg.nr_buckets : i + group;
		uint64_t sum = 0;
		for (uint32_t k = i; k < end; k++)
			sum += all->counts[k];
		if (!sum)
			continue;
		char lab[48];
		if (group == 1)
			snprintf(lab, sizeof(lab), "%" PRId64, lhist_bucket_lo_ns(all, i) / tm->div);
		else
			snprintf(lab, sizeof(lab), "%" PRId64 "-%" PRId64,
				 lhist_bucket_lo_ns(all, i) / tm->div,
				 (lhist_bucket_lo_ns(all, end) - 1) / tm->div);
		fprintf(f, "%15s", lab);
		for (uint32_t c = 0; c < ncpu; c++) {
			const struct lhist *h = hset_hist(tm->set, tm->t, c);
			if (!h || !h->total)
				continue;
			uint64_t s = 0;
			for (uint32_t k = i; k < end; k++)
				s += h->counts[k];
			fprintf(f, " %9" PRIu64, s);
		}
		if (tm->ncols > 1)
			fprintf(f, " %9" PRIu64, sum);
		fprintf(f, "\n");
	}
	if (all->above)
		term_edge(f, tm->set, tm->t, all, tm->ncols, true);
}

/* The summary rows: min, avg, max, the percentiles and the total. */
static void term_summary(const struct term *tm)
{
	FILE *f = tm->f;
	uint32_t ncpu = hset_nr_cpus(tm->set);
	const char *rows[] = { "min", "avg", "max", "p50", "p90", "p99", "p99.9", "p99.99", "total" };
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		fprintf(f, "%15s", rows[r]);
		for (uint32_t c = 0; c <= ncpu; c++) {
			const struct lhist *h = c < ncpu ? hset_hist(tm->set, tm->t, c) : tm->all;
			if (!h || !h->total || (c == ncpu && tm->ncols <= 1))
				continue;
			int64_t v = 0;
			char b[32];
			if (r == 0)
				v = h->min_ns;
			else if (r == 1)
				v = lhist_avg_ns(h);
			else if (r == 2)
				v = h->max_ns;
			else if (r < 8)
				lhist_percentile_ns(h, lh_pcts[r - 3], &v);
			if (r == 8)
				snprintf(b, sizeof(b), "%" PRIu64, h->total);
			else
				snprintf(b, sizeof(b), "%" PRId64, v / tm->div);
			fprintf(f, " %9s", b);
		}
		fprintf(f, "\n");
	}
}

int histout_term(FILE *f, const struct hset *set, enum hset_kind t, unsigned max_rows)
{
	const struct lhist_cfg *geo = hset_geometry(set);
	uint32_t ncpu = hset_nr_cpus(set);
	struct lhist all;
	bool us = whole_us(geo);
	const char *unit = us ? "us" : "ns";

	if (!max_rows)
		max_rows = 40;
	if (lhist_init(&all, geo) < 0)
		return -ENOMEM;
	struct term tm = { .f = f, .set = set, .t = t, .all = &all, .div = us ? 1000 : 1 };
	for (uint32_t c = 0; c < ncpu; c++) {
		const struct lhist *h = hset_hist(set, t, c);
		if (h && h->total) {
			lhist_merge(&all, h);
			tm.ncols++;
		}
	}
	fprintf(f, "%s (%s)\n", hset_kind_name(t), unit);
	if (!all.total) {
		fprintf(f, "  no samples\n");
		lhist_fini(&all);
		return ferror(f) ? -EIO : 0;
	}
	term_header(&tm);
	term_buckets(&tm, max_rows);
	term_summary(&tm);
	lhist_fini(&all);
	return ferror(f) ? -EIO : 0;
}
