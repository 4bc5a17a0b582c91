/* SPDX-License-Identifier: MIT */
/*
 * lhist.h - linear latency histogram (one per CPU and type).
 *
 * Prefix: lhist_.
 *
 * Values are signed nanoseconds.  Buckets are bucket_ns wide and start at
 * lo_ns (default 0 ns, 1000 ns wide, 10240 buckets: latency_hist's 1 us
 * resolution over 0..10239 us).  Values below lo_ns and at or above the last
 * bucket's end are counted apart (below/above) but still enter min, max and
 * the average.  Recording is O(1) and never allocates.  The module never
 * prints.
 */
#ifndef LATSCOPE_LHIST_H
#define LATSCOPE_LHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LHIST_DEFAULT_BUCKET_NS 1000
#define LHIST_DEFAULT_BUCKETS 10240
#define LHIST_MAX_BUCKETS (1u << 24)

struct lhist_cfg {
	int64_t lo_ns;			/* value of the first bucket's lower edge */
	uint64_t bucket_ns;		/* bucket width, >= 1 */
	uint32_t nr_buckets;		/* 1..LHIST_MAX_BUCKETS */
};

struct lhist {
	struct lhist_cfg cfg;
	uint64_t *counts;		/* nr_buckets, owned */
	uint64_t total;			/* all samples, below and above included */
	uint64_t below, above;
	int64_t min_ns, max_ns;		/* valid when total > 0 */
	int64_t sum_ns;			/* saturating */
};

/* The default geometry (0 ns, 1 us, 10240 buckets). */
void lhist_cfg_default(struct lhist_cfg *cfg);

/*
 * lhist_init - allocate the buckets of h for cfg (NULL = default).
 * Returns 0, -EINVAL for a bad geometry or -ENOMEM.  The caller frees the
 * buckets with lhist_fini() (h itself is the caller's).
 */
int lhist_init(struct lhist *h, const struct lhist_cfg *cfg);
void lhist_fini(struct lhist *h);

/* Record one value (O(1)). */
void lhist_record(struct lhist *h, int64_t v_ns);

/* Clear all counts, keep the geometry. */
void lhist_reset(struct lhist *h);

/* Add src into dst; -EINVAL when the geometries differ. */
int lhist_merge(struct lhist *dst, const struct lhist *src);

/* Average in ns (truncated), 0 with no samples. */
int64_t lhist_avg_ns(const struct lhist *h);

/*
 * lhist_percentile_ns - value below or at which pct percent of the samples
 * lie, from the buckets: the lower edge of the bucket holding the
 * ceil(pct/100 * total)-th sample, clamped to [min, max] (so samples below
 * or above the range give min or max).  Returns 0, or -ENODATA with no
 * samples, -EINVAL for pct outside 0..100.
 */
int lhist_percentile_ns(const struct lhist *h, double pct, int64_t *out_ns);

/* Lower edge of bucket i. */
static inline int64_t lhist_bucket_lo_ns(const struct lhist *h, uint32_t i)
{
	return h->cfg.lo_ns + (int64_t)((uint64_t)i * h->cfg.bucket_ns);
}

/* One past the last value that falls into a bucket. */
static inline int64_t lhist_hi_ns(const struct lhist *h)
{
	return lhist_bucket_lo_ns(h, h->cfg.nr_buckets);
}

static inline bool lhist_same_geometry(const struct lhist_cfg *a, const struct lhist_cfg *b)
{
	return a->lo_ns == b->lo_ns && a->bucket_ns == b->bucket_ns &&
	       a->nr_buckets == b->nr_buckets;
}

#endif
