/* SPDX-License-Identifier: MIT */
/* evsrc_read.c - the rings drained, their samples decoded and delivered in time order (see evsrc.h). */
#include <linux/perf_event.h>
#include <string.h>

#include "evsrc_int.h"
#include "format/pdread.h"

static int event_idx(const struct evsrc *s, int id)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].id == id)
			return (int)i;
	return -1;
}

static bool q_full(const struct evsrc *s, const struct evsrc_cpu *c)
{
	return c->q_len == s->opts.queue_events;
}

static struct tpevent *q_at(const struct evsrc *s, struct evsrc_cpu *c, size_t i)
{
	return &c->q[(c->q_head + i) % s->opts.queue_events];
}

/* Insert keeping the queue sorted (records are nearly sorted already). */
static void q_insert(struct evsrc *s, struct evsrc_cpu *c, const struct tpevent *e)
{
	size_t pos = c->q_len;
	size_t steps = 0;
	while (pos > 0 && q_at(s, c, pos - 1)->time_ns > e->time_ns && steps < 256) {
		pos--;
		steps++;
	}
	if (pos > 0 && q_at(s, c, pos - 1)->time_ns > e->time_ns) {
		s->st.out_of_order++;
		pos = c->q_len;
	}
	for (size_t i = c->q_len; i > pos; i--)
		*q_at(s, c, i) = *q_at(s, c, i - 1);
	*q_at(s, c, pos) = *e;
	c->q_len++;
}

/* One ring record (perfring_cb): PERF_RECORD_LOST is counted by the walker. */
static int handle_record(void *arg, const struct perf_event_header *h, const uint8_t *rec)
{
	struct evsrc_cpu *c = arg;
	struct evsrc *s = c->owner;
	size_t size = h->size;

	if (q_full(s, c))
		return PERFRING_STOPPED;	/* resumed by the next drain */
	if (h->type == PERF_RECORD_LOST) {
		if (s->raw_cb)
			s->raw_cb(s->raw_arg, c->cpu, 0, rec, size);
		return 0;
	}
	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (s->raw_cb)	/* opts.track_tasks: for the recording */
			s->raw_cb(s->raw_arg, c->cpu, -1, rec, size);
		return 0;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	s->st.samples++;
	c->samples++;
	struct pdread_sample smp;
	if (pdread_parse_sample(&s->ev[s->first_ok].pattr, false, rec, size, false, &smp) < 0 || smp.raw_size < 2) {
		s->st.undecoded++;
		return 0;
	}
	uint16_t type;
	memcpy(&type, smp.raw, 2);
	int idx = event_idx(s, type);
	if (idx >= 0)
		s->ev[idx].got[c - s->cpus]++;
	if (s->raw_cb)
		s->raw_cb(s->raw_arg, c->cpu, idx, rec, size);
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	if (idx < 0 || tpdecode_decode(s->tpd, type, smp.raw, smp.raw_size, &e) < 0) {
		s->st.undecoded++;
		return 0;
	}
	e.time_ns = smp.time;
	e.cpu = smp.cpu;
	e.pid = (int32_t)smp.pid;
	e.tid = (int32_t)smp.tid;
	q_insert(s, c, &e);
	return 0;
}

/* Drain every ring until empty or its queue is full, then total the rings'
 * counters (lost events, corrupt data) into s->st.  Returns whether a ring
 * has records left. */
bool evsrc_drain_all(struct evsrc *s)
{
	struct perfring_stats tot = { 0 };
	bool pending = false;

	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct evsrc_cpu *c = &s->cpus[i];
		c->pending = perfring_walk(&c->ring, handle_record, c) == PERFRING_STOPPED;
		pending |= c->pending;
		perfring_stats_add(&tot, &c->ring.st);
	}
	s->st.throttles = tot.throttles;
	s->st.unthrottles = tot.unthrottles;
	s->st.lost = tot.lost;
	s->st.lost_records = tot.lost_records;
	s->st.corrupt = tot.corrupt;
	s->st.corrupt_bytes = tot.corrupt_bytes;
	return pending;
}

/* Pop the head of c's queue, count it and hand it to cb. */
static int deliver_head(struct evsrc *s, struct evsrc_cpu *c, evsrc_cb cb, void *arg)
{
	struct tpevent *e = q_at(s, c, 0);

	/* Older than one already delivered: its CPU wrote it to the ring more
	 * than the caller's slack after its time stamp (a vCPU the host
	 * descheduled in between, say).  Delivered all the same, marked, for
	 * the engines to tell what it cost them. */
	e->late = e->time_ns < s->last_delivered_ns;
	if (e->late) {
		s->st.out_of_order++;
		if (s->last_delivered_ns - e->time_ns > s->st.max_late_ns)
			s->st.max_late_ns = s->last_delivered_ns - e->time_ns;
	} else {
		s->last_delivered_ns = e->time_ns;
	}
	c->q_head = (c->q_head + 1) % s->opts.queue_events;
	c->q_len--;
	s->st.delivered++;
	return cb ? cb(arg, e) : 0;
}

/* Deliver in time order everything <= until; force: also the oldest of full queues. */
static int deliver(struct evsrc *s, uint64_t until_ns, evsrc_cb cb, void *arg, bool force)
{
	for (;;) {
		struct evsrc_cpu *best = NULL;
		for (size_t i = 0; i < s->nr_cpus; i++) {
			struct evsrc_cpu *c = &s->cpus[i];
			if (!c->q_len)
				continue;
			if (!best || q_at(s, c, 0)->time_ns < q_at(s, best, 0)->time_ns)
				best = c;
		}
		if (!best)
			return 0;
		struct tpevent *e = q_at(s, best, 0);
		if (e->time_ns > until_ns) {
			if (!force || !q_full(s, best))
				return 0;
			/* A full queue: release its older half out of order. */
			size_t n = best->q_len / 2;
			while (n--) {
				s->st.forced++;
				int r = deliver_head(s, best, cb, arg);
				if (r)
					return r;
			}
			continue;
		}
		int r = deliver_head(s, best, cb, arg);
		if (r)
			return r;
	}
}

int evsrc_read(struct evsrc *s, uint64_t until_ns, evsrc_cb cb, void *arg)
{
	for (int round = 0; round < 1000; round++) {
		bool pending = evsrc_drain_all(s);
		int r = deliver(s, until_ns, cb, arg, pending);
		if (r)
			return r;
		if (!pending)
			return 0;
	}
	return 0;
}
