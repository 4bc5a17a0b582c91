/* SPDX-License-Identifier: MIT */
/*
 * figures.c - what the results of a `latscope osnoise` run say, for every
 * view (output.c's text, json.c's document) and for the run's own checks
 * (the stop, the status line): the losses, the measured time, the
 * contributors in order, the histogram's percentiles.
 */
#include <stdlib.h>
#include <string.h>

#include "base/lhist.h"
#include "live/evsrc.h"
#include "engine/noise.h"
#include "osnoise.h"
#include "live/oswork.h"

/* The engine's stop: 0 running, OSNENG_STOP_SINGLE or OSNENG_STOP_TOTAL. */
int osnoise_stop_why(const struct ctx *c)
{
	return c->run.e ? osneng_stop(c->run.e)->why : 0;
}

uint64_t osnoise_wrec_lost(const struct ctx *c)
{
	uint64_t n = 0;
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		n += oswork_lost(c->run.w, i);
	return n;
}

uint64_t osnoise_events_lost(const struct ctx *c)
{
	if (c->res.bst_read)
		return c->res.bst.recursion_misses;
	return c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
}

uint64_t osnoise_unseen_switches(const struct ctx *c)
{
	return noise_anomalies(c->run.n)->switch_mismatch + (c->res.bst_read ? c->res.bst.switch_mismatch : 0);
}

/* What the results miss: events lost by the kernel, workload records lost,
 * samples skipped as unreadable. */
uint64_t osnoise_dropped(const struct ctx *c)
{
	return osnoise_events_lost(c) + firedtab_undelivered(&c->res.fired) + osnoise_wrec_lost(c) +
	       c->res.cnt.unknown_id + c->res.cnt.bad_samples + c->res.cnt.undecoded + c->res.cnt.bad_wrec;
}

static int cmp_contrib(const void *a, const void *b)
{
	const struct noise_contrib *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

size_t osnoise_sorted_contribs(const struct ctx *c, unsigned cpu, struct noise_contrib *out, size_t max)
{
	const struct noise_contrib *list;
	size_t n = noise_contribs(c->run.n, cpu, &list);
	if (n > 256)
		n = 256;
	memcpy(out, list, n * sizeof(*out));
	qsort(out, n, sizeof(*out), cmp_contrib);
	return n < max ? n : max;
}

uint64_t osnoise_run_ns(const struct ctx *c)
{
	const struct osneng_times *t = osneng_times(c->run.e);
	uint64_t end = t->end_ns ? t->end_ns : oswork_now_ns();
	uint64_t begin = t->warm_end_ns > t->start_ns ? t->warm_end_ns : t->start_ns;
	return end > begin ? end - begin : 0;
}

const struct osnoise_pct osnoise_hist_pcts[OSNOISE_NR_PCTS] = {
	{ "p50:", "p50_ns", 50 }, { "p99:", "p99_ns", 99 }, { "p99.9:", "p99_9_ns", 99.9 },
	{ "p99.99:", "p99_99_ns", 99.99 },
};

bool osnoise_hist_pct_clipped(const struct ctx *c, const struct osneng_hist *h, double pct)
{
	uint64_t over = h->b[c->out.entries];
	if (!h->count || !over)
		return false;
	uint64_t rank = lhist_rank(pct, h->count);
	return rank > h->count - over && rank < h->count;
}

uint64_t osnoise_gaps(const struct ctx *c)
{
	uint64_t n = 0;
	for (size_t i = 0; c->run.e && i < c->run.nr; i++)
		n += osneng_cpu(c->run.e, i)->hist.count;
	return n;
}
