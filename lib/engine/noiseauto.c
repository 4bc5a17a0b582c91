/* SPDX-License-Identifier: MIT */
/*
 * noiseauto.c - the automatic analysis of one OS-noise gap: the windows that
 * arrived inside it summed per source (see noiseauto.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/noiseauto.h"

struct acpu {
	struct noise_win ring[NOISEAUTO_RING];
	uint64_t head;			/* windows fed */
};

struct noiseauto {
	unsigned nr_cpus;
	struct acpu *cpus;
};

int noiseauto_new(struct noiseauto **out, unsigned nr_cpus)
{
	*out = NULL;
	if (!nr_cpus || nr_cpus > 4096)
		return -EINVAL;
	struct noiseauto *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->cpus = calloc(nr_cpus, sizeof(*a->cpus));
	if (!a->cpus) {
		free(a);
		return -ENOMEM;
	}
	a->nr_cpus = nr_cpus;
	*out = a;
	return 0;
}

void noiseauto_free(struct noiseauto *a)
{
	if (!a)
		return;
	free(a->cpus);
	free(a);
}

int noiseauto_win(struct noiseauto *a, const struct noise_win *w)
{
	if (w->cpu >= a->nr_cpus)
		return -EINVAL;
	struct acpu *c = &a->cpus[w->cpu];
	c->ring[c->head++ % NOISEAUTO_RING] = *w;
	return 0;
}

static bool same_source(const struct noiseauto_part *p, const struct noise_win *w)
{
	return p->cls == w->cls && p->id == w->id && !strncmp(p->name, w->name, sizeof(p->name));
}

static int by_net_desc(const void *x, const void *y)
{
	const struct noiseauto_part *a = x, *b = y;
	if (a->net_ns != b->net_ns)
		return a->net_ns > b->net_ns ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int noiseauto_gap(const struct noiseauto *a, unsigned cpu, uint64_t start_ns, uint64_t end_ns,
		  struct noiseauto_result *r)
{
	/* every source seen, before the cut to NOISEAUTO_MAX_PARTS */
	struct noiseauto_part all[NOISEAUTO_RING];
	size_t nall = 0;

	if (cpu >= a->nr_cpus || end_ns < start_ns)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->start_ns = start_ns;
	r->duration_ns = end_ns - start_ns;
	const struct acpu *c = &a->cpus[cpu];
	uint64_t avail = c->head < NOISEAUTO_RING ? c->head : NOISEAUTO_RING;
	uint64_t i;
	for (i = 0; i < avail; i++) {	/* newest first */
		const struct noise_win *w = &c->ring[(c->head - 1 - i) % NOISEAUTO_RING];
		if (w->end_ns < start_ns)
			break;		/* closed before the gap: so did every older one */
		if (w->start_ns < start_ns || w->start_ns > end_ns)
			continue;
		size_t k;
		for (k = 0; k < nall && !same_source(&all[k], w); k++)
			;
		if (k == nall) {
			memset(&all[k], 0, sizeof(all[k]));
			all[k].cls = w->cls;
			all[k].id = w->id;
			memcpy(all[k].name, w->name, sizeof(all[k].name));
			all[k].name[sizeof(all[k].name) - 1] = 0;
			nall++;
		}
		all[k].count++;
		all[k].net_ns += w->net_ns;
		r->class_ns[w->cls] += w->net_ns;
	}
	r->ring_short = i == avail && c->head > NOISEAUTO_RING;
	qsort(all, nall, sizeof(all[0]), by_net_desc);
	uint64_t explained = 0;
	for (size_t k = 0; k < nall; k++) {
		explained += all[k].net_ns;
		if (k < NOISEAUTO_MAX_PARTS) {
			r->parts[r->nr_parts++] = all[k];
		} else {
			r->other_ns += all[k].net_ns;
			r->other_count += all[k].count;
		}
	}
	if (explained <= r->duration_ns)
		r->hw_ns = r->duration_ns - explained;
	else
		r->excess_ns = explained - r->duration_ns;
	return 0;
}

uint64_t noiseauto_share_e2(uint64_t part_ns, uint64_t total_ns)
{
	if (!total_ns)
		return 0;
	/* no overflow below 1.8e15 ns (21 days) of part */
	if (part_ns > UINT64_MAX / 10000)
		return part_ns / (total_ns / 10000 ? total_ns / 10000 : 1);
	return part_ns * 10000 / total_ns;
}
