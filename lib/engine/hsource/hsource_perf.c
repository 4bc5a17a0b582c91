/* SPDX-License-Identifier: MIT */
/*
 * hsource_perf.c - the perf backend (hsource.h): tracepoints through perf
 * rings (live/evsrc.h), decoded and fed in time order to the userspace
 * trackers (engine/latency.h); the one backend that can record (-o).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "engine/tasklat.h"
#include "hsource_int.h"

struct perf_src {
	struct evsrc *s;
	struct hsource_feed feed;	/* the engine and what it was fed */
	bool has[TPEVENT_NR_KINDS];	/* the kinds the opened events carry */
	int (*tap)(void *arg, const struct tpevent *ev);	/* hsource_cfg's */
	void *tap_arg;
	latency_sample_fn observer;	/* hsource_cfg's */
	void *observer_arg;
	struct tasklat *tasks;		/* hsource_cfg's: per-task latency */
};

/* every sample filed: to the per-task table and the caller's observer */
static void perf_observe(void *arg, const struct latency_sample *s)
{
	struct perf_src *p = arg;
	if (p->tasks)
		tasklat_observe(p->tasks, s);
	if (p->observer)
		p->observer(p->observer_arg, s);
}

static void perf_free(struct perf_src *p)
{
	hsource_feed_free(&p->feed);
	evsrc_close(p->s);
	free(p);
}

static int perf_open(void **state, const struct hsource_cfg *cfg, struct hsource_why *why)
{
	struct perf_src *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	struct evsrc_opts eo = { .ring_bytes = cfg->ring_bytes, .track_tasks = cfg->track_tasks };
	int err = evsrc_open(&p->s, cfg->events, cfg->nr_events, cfg->cpus, &eo);
	if (err < 0) {
		/* evsrc_strerror() names the cause and the fix (lib/privhint) */
		hsource_reason(why, "cannot open the tracepoints: %s",
			       p->s ? evsrc_strerror(p->s) : strerror(-err));
		perf_free(p);
		return err;
	}
	struct tpdecode *d = tpdecode_new(evsrc_tep(p->s));	/* for the events' kinds */
	if (!d) {
		perf_free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < evsrc_nr_events(p->s); i++) {
		enum tpevent_kind k = tpdecode_kind(d, evsrc_event_id(p->s, i));
		if (k != TPEVENT_UNKNOWN)
			p->has[k] = true;
	}
	tpdecode_free(d);
	err = hsource_feed_init(&p->feed, &cfg->lcfg, cfg->nr_cpus, p->has, why);
	if (err < 0) {
		perf_free(p);
		return err;
	}
	p->tap = cfg->tap;
	p->tap_arg = cfg->tap_arg;
	p->observer = cfg->observer;
	p->observer_arg = cfg->observer_arg;
	p->tasks = cfg->tasks;
	if (p->observer || p->tasks)
		latency_set_observer(p->feed.lat, perf_observe, p);
	*state = p;
	return 0;
}

static int perf_start(void *state, struct hsource_why *why)
{
	struct perf_src *p = state;
	int err = evsrc_enable(p->s);
	if (err < 0)
		hsource_reason(why, "%s", evsrc_strerror(p->s));
	return err < 0 ? err : 0;
}

static size_t perf_pollfds(void *state, struct pollfd **fds)
{
	return evsrc_pollfds(((struct perf_src *)state)->s, fds);
}

static int on_event(void *arg, const struct tpevent *ev)
{
	struct perf_src *p = arg;
	if (p->tap)
		p->tap(p->tap_arg, ev);
	hsource_feed_event(&p->feed, ev);
	return 0;
}

static int perf_drain(void *state, uint64_t until_ns, struct hsource_why *why)
{
	struct perf_src *p = state;
	int err = evsrc_read(p->s, until_ns, on_event, p);
	if (err < 0)
		hsource_reason(why, "reading the rings: %s", evsrc_strerror(p->s));
	return err < 0 ? err : 0;
}

/* The rings disabled, then every event they still hold (the last read's
 * failure is in the rings' counters: nothing more to do about it). */
static int perf_reset(void *state, struct hsource_why *why)
{
	(void)why;
	latency_reset(((struct perf_src *)state)->feed.lat);
	return 0;
}

/* what fired against what the rings delivered so far (a lower bound while
 * the events run): the loss no ring record shows (evsrc_count) */
static int perf_sync(void *state, struct hsource_why *why)
{
	struct perf_src *p = state;
	int err = evsrc_count(p->s);
	if (err < 0 && err != -EOPNOTSUPP) {
		hsource_reason(why, "%s", evsrc_strerror(p->s));
		return err;
	}
	return 0;
}

static int perf_finish(void *state, struct hsource_why *why)
{
	struct perf_src *p = state;
	evsrc_disable(p->s);
	evsrc_read(p->s, UINT64_MAX, on_event, p);
	return perf_sync(state, why);	/* exact: disabled, read to the end */
}

static const struct hset *perf_set(void *state)
{
	return latency_set(((struct perf_src *)state)->feed.lat);
}

static void perf_kinds(void *state, bool has[TPEVENT_NR_KINDS])
{
	struct perf_src *p = state;
	for (int k = 0; k < TPEVENT_NR_KINDS; k++)
		has[k] = has[k] || p->has[k];
}

static void perf_stats(void *state, struct hsource_stats *st)
{
	struct perf_src *p = state;
	hsource_feed_stats(&p->feed, st);
	st->ring = evsrc_stats(p->s);
	st->evs = p->s;
	st->lost = st->ring->lost + st->ring->undelivered;
}

static void perf_describe(void *state, char *buf, size_t len)
{
	struct perf_src *p = state;
	const struct evsrc_stats *st = evsrc_stats(p->s);
	snprintf(buf, len, "%" PRIu64 " events, %" PRIu64 " lost", p->feed.fed, st->lost + st->undelivered);
}

/* one rule for every recorder: the host's byte order (the kernel's records
 * are copied as they come), as perf writes */
static int perf_record(void *state, struct pdwrite *pw, bool *write_err)
{
	struct perf_src *p = state;
	int err = evsrc_describe(p->s, pw, BYTES_HOST_BIG_ENDIAN);
	if (err < 0)
		return err;
	evsrc_record_into(p->s, pw, write_err);
	return 0;
}

static void perf_close(void *state, struct hsource_why *why)
{
	(void)why;
	perf_free(state);
}

const struct hsource_ops hsource_perf = {
	.name = "perf",
	.title = "perf backend",
	.auto_name = "perf",
	.events_in_userspace = true,
	.tracking = HSOURCE_TRACK_ALL,
	.open = perf_open,
	.start = perf_start,
	.pollfds = perf_pollfds,
	.drain = perf_drain,
	.sync = perf_sync,
	.reset = perf_reset,
	.finish = perf_finish,
	.set = perf_set,
	.kinds = perf_kinds,
	.stats = perf_stats,
	.describe = perf_describe,
	.record = perf_record,
	.close = perf_close,
};
