/* SPDX-License-Identifier: MIT */
/* tlat.c - the timerlat engine (see tlat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tlat.h"

const char *tlat_ctx_name(int ctx)
{
	static const char *const names[TLAT_NR_CTX] = { "irq", "thread", "user" };
	return ctx >= 0 && ctx < TLAT_NR_CTX ? names[ctx] : "?";
}

int tlat_init(struct tlat *t, uint32_t nr_cpus, const struct tlat_cfg *cfg)
{
	memset(t, 0, sizeof(*t));
	if (!nr_cpus || nr_cpus > 65536)
		return -EINVAL;
	t->cfg = *cfg;
	t->cpus = calloc(nr_cpus, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	t->nr_cpus = nr_cpus;
	for (uint32_t c = 0; c < nr_cpus; c++)
		for (int x = 0; x < TLAT_NR_CTX; x++) {
			int err = lhist_init(&t->cpus[c].s[x].h, &cfg->hist);
			if (err)
				return err;
		}
	return 0;
}

void tlat_fini(struct tlat *t)
{
	for (uint32_t c = 0; t->cpus && c < t->nr_cpus; c++)
		for (int x = 0; x < TLAT_NR_CTX; x++)
			lhist_fini(&t->cpus[c].s[x].h);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

bool tlat_add(struct tlat *t, uint32_t cpu, int ctx, uint32_t seq, uint64_t lat_ns, uint64_t ts_ns)
{
	if (cpu >= t->nr_cpus || ctx < 0 || ctx >= TLAT_NR_CTX) {
		t->bad_cpu++;
		return false;
	}
	struct tlat_series *s = &t->cpus[cpu].s[ctx];
	struct tlat_sample smp = { .lat_ns = lat_ns, .ts_ns = ts_ns, .seq = seq };
	if (s->seen) {
		/* the next number is last + 1; more skipped some, the same
		 * or fewer began again */
		if (seq > s->last.seq) {
			s->missed += seq - s->last.seq - 1;
		} else {
			s->restarts++;
			s->first_seq = seq;
		}
	} else {
		s->first_seq = seq;
	}
	s->last = smp;
	s->seen = true;
	if (!s->h.total || lat_ns > s->worst.lat_ns)
		s->worst = smp;
	/* (latencies are far below INT64_MAX ns; a larger one is kept as it) */
	lhist_record(&s->h, lat_ns > INT64_MAX ? INT64_MAX : (int64_t)lat_ns);
	t->samples++;
	uint64_t stop = t->cfg.stop_ns[ctx];
	if (!stop || lat_ns < stop)
		return false;
	t->hits++;
	if (!t->stop.hit)
		t->stop = (struct tlat_stop){ .hit = true, .cpu = cpu, .ctx = ctx, .sample = smp };
	return true;
}

int tlat_load(struct tlat *t, uint32_t cpu, int ctx, const struct tlat_totals *tot)
{
	if (cpu >= t->nr_cpus || ctx < 0 || ctx >= TLAT_NR_CTX)
		return -ERANGE;
	struct tlat_series *s = &t->cpus[cpu].s[ctx];
	lhist_reset(&s->h);
	for (uint32_t i = 0; tot->counts && i < s->h.cfg.nr_buckets; i++)
		s->h.counts[i] = tot->counts[i];
	s->h.total = tot->count;
	s->h.above = tot->over;
	s->h.below = 0;
	s->h.min_ns = tot->count ? (int64_t)tot->min_ns : 0;
	s->h.max_ns = tot->count ? (int64_t)tot->max_ns : 0;
	s->h.sum_ns = tot->sum_ns > INT64_MAX ? INT64_MAX : (int64_t)tot->sum_ns;
	s->worst = tot->worst;
	s->last = tot->last;
	s->missed = tot->missed;
	s->restarts = tot->restarts;
	s->first_seq = tot->first_seq;
	s->seen = tot->count > 0;
	t->samples += tot->count;
	return 0;
}

uint64_t tlat_missed(const struct tlat *t, int ctx)
{
	uint64_t n = 0;
	for (uint32_t c = 0; ctx >= 0 && ctx < TLAT_NR_CTX && c < t->nr_cpus; c++)
		n += t->cpus[c].s[ctx].missed;
	return n;
}

int tlat_merge_ctx(const struct tlat *t, int ctx, struct lhist *out)
{
	if (ctx < 0 || ctx >= TLAT_NR_CTX)
		return -EINVAL;
	lhist_reset(out);
	for (uint32_t c = 0; c < t->nr_cpus; c++) {
		int err = lhist_merge(out, &t->cpus[c].s[ctx].h);
		if (err)
			return err;
	}
	return 0;
}
