/* SPDX-License-Identifier: MIT */
/* lhist.c - linear latency histogram (see lhist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lhist.h"

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

int lhist_percentile_ns(const struct lhist *h, double pct, int64_t *out_ns)
{
	if (!(pct >= 0.0 && pct <= 100.0))
		return -EINVAL;
	if (h->total == 0)
		return -ENODATA;
	double want_d = ceil(pct / 100.0 * (double)h->total);
	uint64_t want = want_d < 1.0 ? 1 : (uint64_t)want_d;
	if (want > h->total)
		want = h->total;
	uint64_t seen = h->below;
	int64_t v;
	if (seen >= want) {
		v = h->min_ns;
	} else {
		v = h->max_ns;
		for (uint32_t i = 0; i < h->cfg.nr_buckets; i++) {
			seen += h->counts[i];
			if (seen >= want) {
				v = lhist_bucket_lo_ns(h, i);
				break;
			}
		}
	}
	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	*out_ns = v;
	return 0;
}
