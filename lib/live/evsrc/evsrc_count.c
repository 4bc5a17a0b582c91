/* SPDX-License-Identifier: MIT */
/* evsrc_count.c - the counting twins: fired against delivered (see evsrc.h, firecount.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evsrc_int.h"
#include "base/firedtab.h"
#include "live/firecount.h"

const char *evsrc_count_note(const struct evsrc *s)
{
	return s->count_note;
}

/* every event's firings on traced CPU index ci, as of the last read */
static uint64_t cpu_fired(const struct evsrc *s, size_t ci)
{
	uint64_t f = 0;
	for (size_t i = 0; i < s->nr_ev; i++)
		f += s->ev[i].fired[ci];
	return f;
}

void evsrc_twins_off(struct evsrc *s, const char *why, int err)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		for (size_t c = 0; s->ev[i].twin && c < s->nr_cpus; c++)
			if (s->ev[i].twin[c] >= 0) {
				close(s->ev[i].twin[c]);
				s->ev[i].twin[c] = -1;
			}
	s->st.counting = false;
	snprintf(s->count_note, sizeof(s->count_note), "%s: %s", why, strerror(-err));
}

int evsrc_count(struct evsrc *s)
{
	int err = 0;

	if (!s->st.counting)
		return -EOPNOTSUPP;
	/* the twins first: every sample of a firing they counted is in its
	 * ring by now (the kernel writes it in the firing), so the drain
	 * below reads it; firings after the read only make delivered larger,
	 * and a figure taken while the events run is a lower bound */
	for (size_t i = 0; i < s->nr_ev && !err; i++)
		for (size_t c = 0; c < s->nr_cpus && !err; c++) {
			uint64_t v;
			if (s->ev[i].twin[c] < 0)
				continue;
			err = firecount_read(s->ev[i].twin[c], &v);
			if (!err)
				s->ev[i].fired[c] = v;
		}
	if (err) {
		evsrc_twins_off(s, "reading the counting events", err);
		evsrc_seterr(s, "%s", s->count_note);
		return err;
	}
	evsrc_drain_all(s);
	uint64_t fired = 0, und = 0;
	for (size_t c = 0; c < s->nr_cpus; c++) {
		struct evsrc_cpu *cp = &s->cpus[c];
		uint64_t f = cpu_fired(s, c);
		uint64_t seen = cp->samples + cp->ring.st.lost;
		/* a ring left with records (its queue full) has delivered
		 * more than it counted so far: keep the earlier figure */
		if (!cp->pending && f > seen && f - seen > cp->undelivered)
			cp->undelivered = f - seen;
		fired += f;
		und += cp->undelivered;
	}
	s->st.fired = fired;
	s->st.undelivered = und;
	return 0;
}

int evsrc_fired_table(const struct evsrc *s, struct firedtab *t)
{
	int err = firedtab_alloc(t, s->st.counting ? s->nr_cpus : 0, s->st.counting ? s->nr_cpus * s->nr_ev : 0);
	if (err)
		return err;
	t->counted = s->st.counting;
	snprintf(t->note, sizeof(t->note), "%s", s->count_note);
	t->throttles = s->st.throttles;
	t->unthrottles = s->st.unthrottles;
	if (!s->st.counting)
		return 0;
	size_t k = 0;
	for (size_t c = 0; c < s->nr_cpus; c++) {
		struct firedtab_cpu *fc = &t->cpu[c];
		fc->cpu = (uint32_t)s->cpus[c].cpu;
		fc->samples = s->cpus[c].samples;
		fc->lost = s->cpus[c].ring.st.lost;
		fc->fired = cpu_fired(s, c);
		fc->undelivered = s->cpus[c].undelivered;
		for (size_t i = 0; i < s->nr_ev; i++) {
			struct firedtab_event *e = &t->ev[k++];
			e->config = (uint64_t)s->ev[i].id;
			e->cpu = fc->cpu;
			e->fired = s->ev[i].fired[c];
			e->delivered = s->ev[i].got[c];
			snprintf(e->name, sizeof(e->name), "%s", s->ev[i].name);
		}
	}
	return 0;
}
