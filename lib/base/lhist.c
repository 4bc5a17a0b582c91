/* SPDX-License-Identifier: MIT */
/* lhist.c - linear latency histogram (see lhist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/lhist.h"

void lhist_cfg_default(struct lhist_cfg *cfg)
{
	cfg->lo_ns = 0;
	cfg->bucket_ns = LHIST_DEFAULT_BUCKET_NS;
	cfg->nr_buckets = LHIST_DEFAULT_BUCKETS;
}

int lhist_init(struct lhist *h, const struct lhist_cfg *cfg)
{
	struct lhist_cfg def;

	memset(h, 0, sizeof(*h));
	if (!cfg) {
		lhist_cfg_default(&def);
		cfg = &def;
	}
	if (cfg->bucket_ns == 0 || cfg->nr_buckets == 0 || cfg->nr_buckets > LHIST_MAX_BUCKETS)
		return -EINVAL;
	/* the whole range must fit in int64 */
	if (cfg->bucket_ns > (uint64_t)INT64_MAX / cfg->nr_buckets)
		return -EINVAL;
	int64_t span = (int64_t)(cfg->bucket_ns * cfg->nr_buckets);
	if (cfg->lo_ns > 0 && cfg->lo_ns > INT64_MAX - span)
		return -EINVAL;
	h->counts = calloc(cfg->nr_buckets, sizeof(*h->counts));
	if (!h->counts)
		return -ENOMEM;
	h->cfg = *cfg;
	return 0;
}

void lhist_fini(struct lhist *h)
{
	if (!h)
		return;
	free(h->counts);
	h->counts = NULL;
}

static void lhist_sum_add(struct lhist *h, int64_t v)
{
	if (__builtin_add_overflow(h->sum_ns, v, &h->sum_ns))
		h->sum_ns = v > 0 ? INT64_MAX : INT64_MIN;
}

void lhist_record(struct lhist *h, int64_t v_ns)
{
	if (h->total == 0 || v_ns < h->min_ns)
		h->min_ns = v_ns;
	if (h->total == 0 || v_ns > h->max_ns)
		h->max_ns = v_ns;
	h->total++;
	lhist_sum_add(h, v_ns);
	if (v_ns < h->cfg.lo_ns) {
		h->below++;
		return;
	}
	uint64_t idx = ((uint64_t)v_ns - (uint64_t)h->cfg.lo_ns) / h->cfg.bucket_ns;
	if (idx >= h->cfg.nr_buckets) {
		h->above++;
		return;
	}
	h->counts[idx]++;
}

void lhist_reset(struct lhist *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->cfg.nr_buckets * sizeof(*h->counts));
	h->total = h->below = h->above = 0;
	h->min_ns = h->max_ns = h->sum_ns = 0;
}

int lhist_merge(struct lhist *dst, const struct lhist *src)
{
	if (!lhist_same_geometry(&dst->cfg, &src->cfg) || !dst->counts || !src->counts)
		return -EINVAL;
	if (src->total == 0)
		return 0;
	if (dst->total == 0 || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (dst->total == 0 || src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (uint32_t i = 0; i < dst->cfg.nr_buckets; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->below += src->below;
	dst->above += src->above;
	lhist_sum_add(dst, src->sum_ns);
	return 0;
}

int64_t lhist_avg_ns(const struct lhist *h)
{
	if (h->total == 0)
		return 0;
	return h->sum_ns / (int64_t)h->total;
}

uint64_t lhist_rank(double pct, uint64_t total)
{
	unsigned __int128 ppm = (unsigned __int128)llround(pct * 1e6);	/* 100 % = 1e8 */
	unsigned __int128 r = (ppm * total + 99999999u) / 100000000u;

	if (r < 1)
		r = 1;
	return r > total ? total : (uint64_t)r;
}

/* Upper bound of bucket i: the largest value it holds (the next bucket's
 * lower edge - 1), saturated to INT64_MAX. */
static int64_t lhist_bucket_top(const struct lhist_layout *l, uint32_t i)
{
	if (l->kind == LHIST_LOGLIN) {
		uint64_t e = lhist_loglin_lo(i + 1, l->sub_bits) - 1;
		return e > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)e;
	}
	__int128 e = (__int128)l->lo + (__int128)((unsigned __int128)(i + 1ull) * l->width) - 1;
	return e > INT64_MAX ? INT64_MAX : (int64_t)e;
}

static bool lhist_layout_ok(const struct lhist_layout *l)
{
	if (l->kind == LHIST_LINEAR)
		return l->width >= 1;
	if (l->kind != LHIST_LOGLIN || l->sub_bits < 1 || l->sub_bits > 16)
		return false;
	/* the end of the last bucket must fit in 63 bits */
	return (l->nr_buckets >> l->sub_bits) <= 63 - l->sub_bits;
}

int lhist_pct_buckets(const struct lhist_layout *l, const struct lhist_counts *c, double pct,
		      int64_t *out)
{
	if (!(pct >= 0.0 && pct <= 100.0) || !lhist_layout_ok(l))
		return -EINVAL;
	if (c->total == 0)
		return -ENODATA;
	uint64_t rank = lhist_rank(pct, c->total);
	int64_t v = c->max;		/* in the overflow: the maximum */
	uint64_t seen = c->below;

	if (rank == 1) {
		*out = c->min;
		return 0;
	}
	if (rank == c->total) {
		*out = c->max;
		return 0;
	}
	if (seen >= rank) {		/* below the first bucket: under its lower edge */
		v = l->kind == LHIST_LOGLIN ? -1 : l->lo - 1;
	} else {
		for (uint32_t i = 0; i < l->nr_buckets; i++) {
			seen += c->counts[i];
			if (seen >= rank) {
				v = lhist_bucket_top(l, i);
				break;
			}
		}
	}
	if (v > c->max)
		v = c->max;
	if (v < c->min)
		v = c->min;
	*out = v;
	return 0;
}

int lhist_percentile_ns(const struct lhist *h, double pct, int64_t *out_ns)
{
	struct lhist_layout l = {
		.kind = LHIST_LINEAR, .nr_buckets = h->cfg.nr_buckets,
		.lo = h->cfg.lo_ns, .width = h->cfg.bucket_ns,
	};
	struct lhist_counts c = {
		.counts = h->counts, .below = h->below, .above = h->above, .total = h->total,
		.min = h->min_ns, .max = h->max_ns,
	};

	return lhist_pct_buckets(&l, &c, pct, out_ns);
}
