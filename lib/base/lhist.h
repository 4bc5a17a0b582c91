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
 * The one percentile rule of latscope (hist, osnoise hist, dtl report):
 * nearest rank on the buckets.  The p-th percentile of count values is the
 * smallest bucket upper bound (the largest value a bucket holds: the next
 * bucket's lower edge - 1, values being integers) such that at least
 * rank = ceil(p/100 * count) values (1 at least) lie at or below it, clamped
 * to the exact [min, max]; where the rank-th value is known exactly (rank 1 is
 * the minimum, rank count the maximum) it is that value.  With 1-wide
 * buckets it is the exact nearest-rank value.  Values below the first bucket
 * count as one bucket ending under its lower edge; values past the last
 * bucket (overflow) give the maximum.  p is read to 6 decimals.
 */

/* Bucket layouts: linear, or log-linear (HDR-style) over values >= 0. */
enum lhist_kind {
	LHIST_LINEAR = 0,	/* bucket i = [lo + i*width, lo + (i+1)*width) */
	LHIST_LOGLIN = 1,	/* bucket i = [lhist_loglin_lo(i), lhist_loglin_lo(i+1)) */
};

struct lhist_layout {
	int kind;			/* enum lhist_kind */
	uint32_t nr_buckets;
	int64_t lo;			/* linear: the first bucket's lower edge */
	uint64_t width;			/* linear: bucket width, >= 1 */
	unsigned sub_bits;		/* log-linear: 2^sub_bits buckets per power of two */
};

/* The counts lhist_pct_buckets() reads (all borrowed). */
struct lhist_counts {
	const uint64_t *counts;		/* layout.nr_buckets */
	uint64_t below, above;		/* values under the first / past the last bucket */
	uint64_t total;			/* below + above + the buckets' sum */
	int64_t min, max;		/* exact; read when total > 0 */
};

/*
 * lhist_pct_buckets - the percentile pct (0..100) of the histogram c laid out
 * as l, by the rule above, in *out (the unit of the layout: ns, or ticks for
 * a timebase histogram).  Returns 0, -ENODATA with no values, -EINVAL for pct
 * outside 0..100 or a bad layout.
 */
int lhist_pct_buckets(const struct lhist_layout *l, const struct lhist_counts *c, double pct,
		      int64_t *out);

/*
 * lhist_rank - the rule's rank: ceil(pct/100 * total) with pct read to 6
 * decimals, in integers (99.9 % of 1000 is 999, not 1000 as a double product
 * can make it); 1..total (1 for total 0).
 */
uint64_t lhist_rank(double pct, uint64_t total);

/*
 * lhist_percentile_ns - lhist_pct_buckets() on h (below and above included).
 * Returns 0, or -ENODATA with no samples, -EINVAL for pct outside 0..100.
 */
int lhist_percentile_ns(const struct lhist *h, double pct, int64_t *out_ns);

/*
 * Log-linear buckets: values below 2^sub_bits have a bucket each, then every
 * power of two [2^e, 2^(e+1)) is cut into 2^sub_bits equal buckets (relative
 * width <= 2^-sub_bits).  sub_bits 1..16.
 */
static inline unsigned lhist_loglin_index(uint64_t v, unsigned sub_bits)
{
	unsigned e;

	if (v < (1ull << sub_bits))
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return ((e - sub_bits + 1) << sub_bits) |
	       (unsigned)((v >> (e - sub_bits)) & ((1u << sub_bits) - 1));
}

/* Lowest value of log-linear bucket idx. */
static inline uint64_t lhist_loglin_lo(unsigned idx, unsigned sub_bits)
{
	unsigned grp = idx >> sub_bits, sub = idx & ((1u << sub_bits) - 1);

	if (grp == 0)
		return sub;
	return (uint64_t)((1u << sub_bits) | sub) << (grp - 1);
}

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
