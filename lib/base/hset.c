/* SPDX-License-Identifier: MIT */
/* hset.c - a run's histograms per kind and CPU with their worst cases (see hset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hset.h"

struct hset {
	uint32_t nr_cpus;
	struct lhist_cfg cfg;
	struct lhist *h[HSET_NR_KINDS];		/* nr_cpus each; counts NULL until used */
	struct hset_max *max[HSET_NR_KINDS];	/* nr_cpus each */
};

static const char *const hset_names[HSET_NR_KINDS] = {
	[HSET_WAKEUP] = "wakeup",
	[HSET_WAKEUP_SHAREDPRIO] = "wakeup/sharedprio",
	[HSET_MISSED_TIMER] = "missed_timer_offsets",
	[HSET_TIMERANDWAKEUP] = "timerandwakeup",
	[HSET_IRQSOFF] = "irqsoff",
	[HSET_PREEMPTOFF] = "preemptoff",
	[HSET_PREEMPTIRQSOFF] = "preemptirqsoff",
};

const char *hset_kind_name(enum hset_kind k)
{
	return (unsigned)k < HSET_NR_KINDS ? hset_names[k] : NULL;
}

bool hset_kind_has_maxfile(enum hset_kind k)
{
	return k == HSET_WAKEUP || k == HSET_WAKEUP_SHAREDPRIO || k == HSET_MISSED_TIMER ||
	       k == HSET_TIMERANDWAKEUP;
}

int hset_new(struct hset **out, uint32_t nr_cpus, const struct lhist_cfg *cfg)
{
	struct lhist probe;
	int err;

	*out = NULL;
	if (!nr_cpus || nr_cpus > HSET_MAX_CPUS)
		return -EINVAL;
	struct hset *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (cfg)
		s->cfg = *cfg;
	else
		lhist_cfg_default(&s->cfg);
	err = lhist_init(&probe, &s->cfg);	/* validate the geometry */
	if (err) {
		free(s);
		return err;
	}
	lhist_fini(&probe);
	s->nr_cpus = nr_cpus;
	for (int k = 0; k < HSET_NR_KINDS; k++) {
		s->h[k] = calloc(nr_cpus, sizeof(*s->h[k]));
		s->max[k] = calloc(nr_cpus, sizeof(*s->max[k]));
		if (!s->h[k] || !s->max[k]) {
			hset_free(s);
			return -ENOMEM;
		}
	}
	*out = s;
	return 0;
}

void hset_free(struct hset *s)
{
	if (!s)
		return;
	for (int k = 0; k < HSET_NR_KINDS; k++) {
		for (uint32_t c = 0; s->h[k] && c < s->nr_cpus; c++)
			lhist_fini(&s->h[k][c]);
		free(s->h[k]);
		free(s->max[k]);
	}
	free(s);
}

uint32_t hset_nr_cpus(const struct hset *s)
{
	return s->nr_cpus;
}

const struct lhist_cfg *hset_geometry(const struct hset *s)
{
	return &s->cfg;
}

static bool in_range(const struct hset *s, enum hset_kind k, uint32_t cpu)
{
	return (unsigned)k < HSET_NR_KINDS && cpu < s->nr_cpus;
}

const struct lhist *hset_hist(const struct hset *s, enum hset_kind k, uint32_t cpu)
{
	return in_range(s, k, cpu) && s->h[k][cpu].counts ? &s->h[k][cpu] : NULL;
}

struct lhist *hset_hist_mut(struct hset *s, enum hset_kind k, uint32_t cpu)
{
	if (!in_range(s, k, cpu))
		return NULL;
	struct lhist *h = &s->h[k][cpu];
	if (!h->counts && lhist_init(h, &s->cfg) < 0)
		return NULL;
	return h;
}

int hset_record(struct hset *s, enum hset_kind k, uint32_t cpu, int64_t v_ns)
{
	if (!in_range(s, k, cpu))
		return -ERANGE;
	struct lhist *h = hset_hist_mut(s, k, cpu);
	if (!h)
		return -ENOMEM;
	lhist_record(h, v_ns);
	return 0;
}

const struct hset_max *hset_max(const struct hset *s, enum hset_kind k, uint32_t cpu)
{
	static const struct hset_max none;
	return in_range(s, k, cpu) ? &s->max[k][cpu] : &none;
}

bool hset_offer_max(struct hset *s, enum hset_kind k, uint32_t cpu, const struct hset_max *m)
{
	if (!in_range(s, k, cpu) || !m->valid)
		return false;
	struct hset_max *cur = &s->max[k][cpu];
	if (cur->valid && m->latency_ns <= cur->latency_ns)
		return false;
	*cur = *m;
	cur->comm[HSET_COMM_LEN - 1] = '\0';
	cur->culprit_comm[HSET_COMM_LEN - 1] = '\0';
	return true;
}

void hset_reset(struct hset *s)
{
	for (int k = 0; k < HSET_NR_KINDS; k++)
		for (uint32_t c = 0; c < s->nr_cpus; c++) {
			if (s->h[k][c].counts)
				lhist_reset(&s->h[k][c]);
			memset(&s->max[k][c], 0, sizeof(s->max[k][c]));
		}
}
