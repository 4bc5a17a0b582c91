/* SPDX-License-Identifier: MIT */
/*
 * run.c - `latscope hist report`: the histograms of a perf.data file; and
 * what a run saw into c for the outputs, shared with the live run (live.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdio.h"
#include "commands.h"
#include "engine/hsource.h"
#include "engine/tasklat.h"
#include "hist.h"
#include "format/pdread.h"
#include "firedout.h"

/* What a source saw (live) or the engine was fed (report) into c, for
 * the outputs. */
void hist_take_stats(struct hctx *c, const struct hsource_stats *st)
{
	c->run.track = st->track;
	c->in.any_cpu = st->any_cpu;
	c->in.max_cpu_seen = st->max_cpu;
	c->in.decoded_any = st->any_event;
	c->in.first_ns = st->first_ns;
	c->in.last_ns = st->last_ns;
	if (!c->run.ran || c->run.ran->events_in_userspace)	/* events fed to the trackers (perf, report) */
		c->in.decoded = st->seen;
	if (st->ring) {
		c->in.lost_events = st->ring->lost;
		c->in.undecoded = st->ring->undecoded;
		c->in.forced = st->ring->forced;
		c->in.out_of_order = st->ring->out_of_order;
		c->in.max_late_ns = st->ring->max_late_ns;
		c->in.ring_corrupt_bytes = st->ring->corrupt_bytes;
	}
	if (st->evs && evsrc_fired_table(st->evs, &c->in.fired) < 0)
		c->in.fired.counted = false;	/* out of memory: said as not counted */
	c->run.backend_dropped = st->dropped;
}

/* ---- report ----------------------------------------------------------- */

/*
 * At the first tracepoint sample: the decoder for r's formats, the kinds
 * the recording carries (every tracepoint needs CPU, TIME and RAW), and
 * the engine sized for its CPUs.  0 or -1 (said); *d and feed are the
 * caller's to free.
 */
static int report_setup(struct hctx *c, struct pdread *r, const char *path, struct tpdecode **d,
			struct hsource_feed *feed)
{
	struct hsource_why why;
	struct tep_handle *tep = pdread_tep(r);

	if (!tep) {
		fprintf(stderr, "%s: %s has tracepoint samples but no tracing data "
				"(formats); record it again with perf record or latscope\n",
			c->prog, path);
		return -1;
	}
	*d = tpdecode_new(tep);
	if (!*d) {
		fprintf(stderr, "%s: out of memory\n", c->prog);
		return -1;
	}
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		if (e->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		if (!(e->attr.sample_type & PDFORMAT_SAMPLE_CPU) ||
		    !(e->attr.sample_type & PDFORMAT_SAMPLE_TIME) ||
		    !(e->attr.sample_type & PDFORMAT_SAMPLE_RAW)) {
			fprintf(stderr, "%s: event %s was recorded without CPU/TIME/RAW "
					"in its samples; record system-wide (perf record -a)\n",
				c->prog, e->name ? e->name : "?");
			return -1;
		}
		enum tpevent_kind k = tpdecode_kind(*d, (int)e->attr.config);
		if (k != TPEVENT_UNKNOWN)
			c->in.has[k] = true;
	}
	const struct pdread_info *in = pdread_info(r);
	uint32_t n = in->nr_cpus_avail ? in->nr_cpus_avail : in->nr_cpus_online;
	if (!n || in->pipe)
		n = n > 1024 ? n : 1024;
	if (hsource_feed_init(feed, &c->o.lcfg, n, c->in.has, &why) < 0) {
		fprintf(stderr, "%s: %s\n", c->prog, why.reason);
		return -1;
	}
	if (c->run.tasks)
		latency_set_observer(feed->lat, tasklat_observe, c->run.tasks);
	return 0;
}

/* What the reader and the decoder skipped or lost, and the fired counts
 * the recording carries, into c. */
static void report_losses(struct hctx *c, struct pdread *r, const struct tpdecode_losses *loss)
{
	const struct pdread_stats *st = pdread_stats(r);

	c->in.no_raw = loss->no_raw;
	c->in.undecoded = loss->unknown;
	c->in.bad_raw = loss->bad_raw;
	c->in.lost_events = st->lost_events;
	c->in.lost_samples = st->lost_samples;
	c->in.unknown_id = st->unknown_id;
	c->in.bad_samples = st->bad_samples;
	c->in.out_of_order = st->out_of_order;
	c->in.duplicates = st->duplicates;
	c->in.forced = st->forced_flushes;
	if (pdread_info(r)->fired.counted && firedout_copy(&c->in.fired, &pdread_info(r)->fired) == 0)
		firedout_names(&c->in.fired, r);
}

int hist_report(struct hctx *c)
{
	struct pdread *r = NULL;
	struct tpdecode *d = NULL;
	struct tpdecode_losses loss = { 0 };	/* the loop skips non-tracepoint samples itself */
	struct hsource_feed feed = { 0 };
	struct pdread_event ev;
	int rc, ret = EXIT_ERR;
	const char *path = c->o.input ? c->o.input : "perf.data";

	cmdio_sigpipe_as_error();

	rc = cmdio_pdr_open(&r, path, NULL, c->prog);
	if (rc < 0) {
		if (rc == -ENOENT)
			fprintf(stderr, "%s: record one with `latscope hist record -o %s` or perf record "
					"-e 'sched:*,timer:hrtimer_*' -a\n", c->prog, path);
		return EXIT_ERR;
	}
	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.evsel || !ev.has_sample ||
		    ev.evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		if (!d && report_setup(c, r, path, &d, &feed) < 0)
			goto out;
		if (c->o.time_given &&
		    (ev.sample.time < c->o.time_lo_ns || ev.sample.time > c->o.time_hi_ns)) {
			c->in.outside++;
			continue;
		}
		struct tpevent t;
		if (tpdecode_decode_sample(d, &ev, &t, &loss) < 0)
			continue;
		hsource_feed_event(&feed, &t);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, path,
			*pdread_strerror(r) ? pdread_strerror(r) : strerror(-rc));
		goto out;
	}
	report_losses(c, r, &loss);
	if (!feed.lat) {
		fprintf(stderr, "%s: %s has no tracepoint samples; record sched:sched_switch, "
				"sched:sched_wakeup (and timer:hrtimer_*) with -a\n", c->prog, path);
		goto out;
	}
	struct hsource_stats fst = { 0 };
	hsource_feed_stats(&feed, &fst);
	hist_take_stats(c, &fst);
	c->run.lat = feed.lat;	/* the caller's to free */
	feed.lat = NULL;
	c->run.set = latency_set(c->run.lat);
	ret = hist_emit(c);
out:
	hsource_feed_free(&feed);
	tpdecode_free(d);
	cmdio_pdr_close(r, c->prog, path);
	return ret;
}
