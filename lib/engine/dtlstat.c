/* SPDX-License-Identifier: MIT */
/* dtlstat.c - DTL statistics (see dtlstat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dtlstat.h"
#include "base/lhist.h"

struct dtlstat {
	struct dtlstat_cpu *cpu[DTLSTAT_MAX_CPUS];
	uint32_t nr_cpus;
	struct dtl_scan_stats scan;
	struct dtl_tbinfo tbi;
	struct dtlstat_worst worst[DTLSTAT_NWORST];
	size_t nr_worst;
	uint64_t worst_floor;		/* smallest delay in a full worst list */
};

int dtlstat_new(struct dtlstat **sp)
{
	*sp = calloc(1, sizeof(**sp));
	return *sp ? 0 : -ENOMEM;
}

void dtlstat_free(struct dtlstat *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr_cpus; i++)
		free(s->cpu[i]);
	free(s);
}

unsigned dtlstat_bucket(uint64_t v)
{
	return lhist_loglin_index(v > UINT32_MAX ? UINT32_MAX : v, DTLSTAT_SUB_BITS);
}

uint64_t dtlstat_bucket_low(unsigned idx)
{
	return lhist_loglin_lo(idx, DTLSTAT_SUB_BITS);
}

/* A CPU's counters and the slicer of its AUX stream (pub first: s->cpu[]
 * points at it, and free() of it frees both). */
struct cpu_priv {
	struct dtlstat_cpu pub;
	struct dtl_slicer sl;
};

static struct dtlstat_cpu *get_cpu(struct dtlstat *s, uint32_t cpu)
{
	struct dtlstat_cpu *c;

	if (cpu >= DTLSTAT_MAX_CPUS)
		return NULL;
	c = s->cpu[cpu];
	if (c)
		return c;
	struct cpu_priv *cp = calloc(1, sizeof(*cp));
	if (!cp)
		return NULL;
	dtl_slicer_init_stream(&cp->sl);
	c = &cp->pub;
	c->cpu = cpu;
	for (int i = 0; i < DTLSTAT_NTIMES; i++)
		c->h[i].min = UINT64_MAX;
	s->cpu[cpu] = c;
	if (cpu + 1 > s->nr_cpus)
		s->nr_cpus = cpu + 1;
	return c;
}

static inline __attribute__((always_inline)) void hist_add(struct dtlstat_hist *h, uint32_t v)
{
	/* count is derived from the CPU's entries (see finish()) */
	h->sum += v;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	h->b[dtlstat_bucket(v)]++;
}

static void worst_insert(struct dtlstat *s, uint32_t cpu, const struct dtl_entry *e, uint64_t d)
{
	size_t i = s->nr_worst < DTLSTAT_NWORST ? s->nr_worst++ : DTLSTAT_NWORST - 1;

	while (i > 0 && s->worst[i - 1].delay_tb < d) {
		s->worst[i] = s->worst[i - 1];
		i--;
	}
	s->worst[i] = (struct dtlstat_worst){ d, e->timebase, cpu, *e };
	if (s->nr_worst == DTLSTAT_NWORST)
		s->worst_floor = s->worst[DTLSTAT_NWORST - 1].delay_tb;
}

/* The hot path: account the raw big-endian entry at p (timebase tb, > 0). */
static inline __attribute__((always_inline)) void account_raw(struct dtlstat *s, struct dtlstat_cpu *c, const uint8_t *p, uint64_t tb)
{
	uint32_t e2d = dtl_raw_enqueue_to_dispatch(p), r2e = dtl_raw_ready_to_enqueue(p),
		 w2r = dtl_raw_waiting_to_ready(p);
	uint16_t proc = dtl_raw_processor_id(p);
	uint64_t d = (uint64_t)e2d + r2e;

	c->entries++;
	c->dispatch[dtl_raw_dispatch_reason(p)]++;
	c->preempt[dtl_raw_preempt_reason(p)]++;
	hist_add(&c->h[DTLSTAT_E2D], e2d);
	hist_add(&c->h[DTLSTAT_R2E], r2e);
	hist_add(&c->h[DTLSTAT_W2R], w2r);
	if (__builtin_expect(!c->first_tb, 0))
		c->first_tb = tb;
	if (__builtin_expect(tb < c->last_tb, 0))
		c->tb_backwards++;
	else
		c->last_tb = tb;
	c->proc_changes += (uint64_t)(c->have_proc & (proc != c->last_proc));
	c->have_proc = true;
	c->last_proc = proc;
	if (__builtin_expect(d > s->worst_floor || s->nr_worst < DTLSTAT_NWORST, 0)) {
		struct dtl_entry e;
		dtl_decode(p, &e);
		worst_insert(s, c->cpu, &e, d);
	}
}

/* Fill the derived fields (counts, stolen time) of a CPU. */
static void finish(const struct dtlstat_cpu *cc)
{
	struct dtlstat_cpu *c = (struct dtlstat_cpu *)cc;	/* our own allocation */

	for (int i = 0; i < DTLSTAT_NTIMES; i++)
		c->h[i].count = c->entries;
	c->stolen_tb = c->h[DTLSTAT_E2D].sum + c->h[DTLSTAT_R2E].sum;
}

int dtlstat_add_entry(struct dtlstat *s, uint32_t cpu, const struct dtl_entry *e)
{
	struct dtlstat_cpu *c = get_cpu(s, cpu);

	uint8_t raw[DTL_ENTRY_SIZE];

	if (!c)
		return cpu >= DTLSTAT_MAX_CPUS ? -ERANGE : -ENOMEM;
	dtl_encode(e, raw);
	account_raw(s, c, raw, e->timebase);
	if (e->dispatch_reason >= DTL_NR_DISPATCH_REASONS || e->preempt_reason >= DTL_NR_PREEMPT_REASONS)
		s->scan.bad_reasons++;
	s->scan.entries++;
	return 0;
}

int dtlstat_add_raw(struct dtlstat *s, uint32_t cpu, const uint8_t *raw, const struct dtl_tbinfo *tbi)
{
	struct dtlstat_cpu *c = get_cpu(s, cpu);

	if (!c)
		return cpu >= DTLSTAT_MAX_CPUS ? -ERANGE : -ENOMEM;
	if (tbi && dtl_tbinfo_valid(tbi)) {
		if (!dtl_tbinfo_valid(&c->tbi))
			c->tbi = *tbi;
		if (!dtl_tbinfo_valid(&s->tbi))
			s->tbi = *tbi;
	}
	account_raw(s, c, raw, dtl_raw_timebase(raw));
	if (raw[0] >= DTL_NR_DISPATCH_REASONS || raw[1] >= DTL_NR_PREEMPT_REASONS)
		s->scan.bad_reasons++;
	s->scan.entries++;
	return 0;
}

void dtlstat_set_scan(struct dtlstat *s, const struct dtl_scan_stats *sc)
{
	uint64_t entries = s->scan.entries, bad = s->scan.bad_reasons;

	s->scan = *sc;
	s->scan.entries = entries;
	s->scan.bad_reasons = bad;
}

int dtlstat_add_payload(struct dtlstat *s, uint32_t cpu, uint64_t pos, const void *data, uint64_t len,
			bool last, bool swap)
{
	struct dtlstat_cpu *c = get_cpu(s, cpu);

	if (!c)
		return cpu >= DTLSTAT_MAX_CPUS ? -ERANGE : -ENOMEM;
	struct dtl_slicer *sl = &((struct cpu_priv *)c)->sl;
	struct dtl_slice_stats before = sl->st;
	const uint8_t *p;
	uint64_t at, ent0 = c->entries, bad = 0;
	size_t n;

	dtl_slicer_feed(sl, pos, data, len, last);
	while ((n = dtl_slicer_next(sl, &p, &at)) > 0) {
		for (size_t i = 0; i < n; i++, p += DTL_ENTRY_SIZE) {
			uint64_t tb = dtl_raw_timebase(p);
			if (__builtin_expect((int64_t)tb <= 0, 0)) {
				struct dtl_tbinfo h;

				if (dtl_slot_kind(p, swap, &h) == DTL_SLOT_HEADER) {
					s->scan.headers++;
					if (!dtl_tbinfo_valid(&c->tbi))
						c->tbi = h;
					if (!dtl_tbinfo_valid(&s->tbi))
						s->tbi = h;
				} else {
					s->scan.skipped++;
				}
				continue;
			}
			account_raw(s, c, p, tb);
			bad += (dtl_raw_dispatch_reason(p) >= DTL_NR_DISPATCH_REASONS) |
			       (dtl_raw_preempt_reason(p) >= DTL_NR_PREEMPT_REASONS);
		}
	}
	if (last)
		s->scan.payloads++;
	s->scan.slots += sl->st.slots - before.slots;
	s->scan.odd_payloads += sl->st.cut_pieces - before.cut_pieces;
	s->scan.tail_bytes += sl->st.cut_bytes - before.cut_bytes;
	s->scan.wrap_gaps += sl->st.wrap_gaps - before.wrap_gaps;
	c->aux_wraps += sl->st.wrap_gaps - before.wrap_gaps;
	s->scan.wrap_gap_bytes += sl->st.gap_bytes - before.gap_bytes;
	s->scan.holes += sl->st.holes - before.holes;
	s->scan.hole_bytes += sl->st.hole_bytes - before.hole_bytes;
	c->aux_holes += sl->st.holes - before.holes;
	c->aux_hole_bytes += sl->st.hole_bytes - before.hole_bytes;
	s->scan.entries += c->entries - ent0;
	s->scan.bad_reasons += bad;
	return 0;
}

const struct dtl_scan_stats *dtlstat_scan_stats(const struct dtlstat *s)
{
	return &s->scan;
}

const struct dtlstat_cpu *dtlstat_cpu(const struct dtlstat *s, uint32_t cpu)
{
	if (cpu >= DTLSTAT_MAX_CPUS || !s->cpu[cpu])
		return NULL;
	finish(s->cpu[cpu]);
	return s->cpu[cpu];
}

uint32_t dtlstat_nr_cpus(const struct dtlstat *s)
{
	return s->nr_cpus;
}

struct dtl_tbinfo dtlstat_tbinfo(const struct dtlstat *s)
{
	return s->tbi;
}

size_t dtlstat_worst(const struct dtlstat *s, const struct dtlstat_worst **w)
{
	*w = s->worst;
	return s->nr_worst;
}

uint64_t dtlstat_span_tb(const struct dtlstat_cpu *c)
{
	return c->entries >= 2 && c->last_tb > c->first_tb ? c->last_tb - c->first_tb : 0;
}

static void hist_merge(struct dtlstat_hist *d, const struct dtlstat_hist *h)
{
	d->count += h->count;
	d->sum += h->sum;
	if (h->min < d->min)
		d->min = h->min;
	if (h->max > d->max)
		d->max = h->max;
	for (unsigned i = 0; i < DTLSTAT_NBUCKETS; i++)
		d->b[i] += h->b[i];
}

void dtlstat_total(const struct dtlstat *s, struct dtlstat_cpu *out)
{
	bool first = true;

	memset(out, 0, sizeof(*out));
	out->cpu = UINT32_MAX;
	for (int i = 0; i < DTLSTAT_NTIMES; i++)
		out->h[i].min = UINT64_MAX;
	for (uint32_t n = 0; n < s->nr_cpus; n++) {
		const struct dtlstat_cpu *c = s->cpu[n];
		if (!c || !c->entries)
			continue;
		finish(c);
		out->entries += c->entries;
		for (int i = 0; i < 256; i++) {
			out->dispatch[i] += c->dispatch[i];
			out->preempt[i] += c->preempt[i];
		}
		for (int i = 0; i < DTLSTAT_NTIMES; i++)
			hist_merge(&out->h[i], &c->h[i]);
		out->stolen_tb += c->stolen_tb;
		out->tb_backwards += c->tb_backwards;
		out->proc_changes += c->proc_changes;
		if (first || c->first_tb < out->first_tb)
			out->first_tb = c->first_tb;
		if (c->last_tb > out->last_tb)
			out->last_tb = c->last_tb;
		if (first)
			out->tbi = c->tbi;
		first = false;
	}
}

uint64_t dtlstat_hist_percentile(const struct dtlstat_hist *h, double p)
{
	static const struct lhist_layout l = {
		.kind = LHIST_LOGLIN, .nr_buckets = DTLSTAT_NBUCKETS, .sub_bits = DTLSTAT_SUB_BITS,
	};
	struct lhist_counts c = {
		.counts = h->b, .total = h->count, .min = (int64_t)h->min, .max = (int64_t)h->max,
	};
	int64_t v;

	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	return lhist_pct_buckets(&l, &c, p, &v) ? 0 : (uint64_t)v;
}

void dtlstat_hist_log2_us(const struct dtlstat_hist *h, uint64_t tb_freq, uint64_t *out, size_t nout)
{
	memset(out, 0, nout * sizeof(*out));
	if (!nout || !tb_freq)
		return;
	for (unsigned i = 0; i < DTLSTAT_NBUCKETS; i++) {
		uint64_t us, k = 0;

		if (!h->b[i])
			continue;
		us = dtl_ticks_to_ns(dtlstat_bucket_low(i), tb_freq) / 1000;
		while (us) {
			k++;
			us >>= 1;
		}
		if (k >= nout)
			k = nout - 1;
		out[k] += h->b[i];
	}
}
