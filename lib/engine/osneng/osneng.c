/* SPDX-License-Identifier: MIT */
/*
 * osneng.c - the osnoise engine (see osneng.h): workload records merged with
 * tracepoint events into the noise accounting, stop thresholds, histogram,
 * trace lines, replay of a recording and the kernel tracer's records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/lhist.h"
#include "engine/osneng.h"
#include "live/osnkernel.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tpevent.h"

#ifndef LATSCOPE_VERSION
#define LATSCOPE_VERSION "unknown"
#endif

#define NS_PER_S	((uint64_t)1000000000)

struct osneng {
	struct osneng_opts o;
	struct osneng_sink sink;
	unsigned list[PARSE_MAX_CPUS];
	size_t nr;
	int16_t idx_of[PARSE_MAX_CPUS];
	struct noise *n;
	struct osneng_cpu *cpu;
	bool *active;			/* a period in progress, by index */
	uint64_t *pstart;		/* its start */
	struct osneng_wsrc src;
	struct pdwrite *pw;
	int wrec_evsel;
	struct osneng_times t;
	uint64_t nw_next_ns;		/* no-workload: next period boundary */
	struct osneng_stop stop;
	uint64_t hits;			/* gaps above stop_us */
	struct osneng_stop last_hit;	/* the last of them */
	struct noiseauto *an;		/* opts.auto_analysis: the recent windows */
	struct noiseauto_result an_res;	/* the last hit's analysis */
	bool an_valid;
	bool halted;
	struct osneng_counts counts;
	char lines[OSNENG_LINE_RING][OSNENG_LINE_LEN];
	uint64_t nr_lines;
	uint64_t line_ts_ns;		/* kernel tracer: the record's own time for its line */
	bool kernel_tracer;		/* fed by the kernel tracer: its threads are osnoise/N */
};

/* ---- set-up and accessors -------------------------------------------------- */

static void sink_win(void *arg, const struct noise_win *w);
int osneng_hist_percentile_ns(const struct osneng_hist *h, uint64_t bucket_us, uint64_t entries,
			    double pct, uint64_t *out_ns)
{
	if (!h->b || !bucket_us || !entries || entries > UINT32_MAX ||
	    bucket_us > (uint64_t)INT64_MAX / 1000 / entries)
		return -EINVAL;
	struct lhist_layout l = {
		.kind = LHIST_LINEAR, .nr_buckets = (uint32_t)entries, .width = bucket_us * 1000,
	};
	struct lhist_counts c = {
		.counts = h->b, .above = h->b[entries], .total = h->count,
		.min = (int64_t)h->min_ns, .max = (int64_t)h->max_ns,
	};
	int64_t v;
	int rc = lhist_pct_buckets(&l, &c, pct, &v);
	if (rc == 0)
		*out_ns = (uint64_t)v;
	return rc;
}

static void sink_gap(void *arg, const struct noise_gap *g);
static void sink_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p);

int osneng_new(struct osneng **ep, const struct osneng_opts *o, const struct osneng_sink *sink)
{
	struct osneng *e = calloc(1, sizeof(*e));
	*ep = e;
	if (!e)
		return -ENOMEM;
	e->o = *o;
	if (sink)
		e->sink = *sink;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++) {
		e->idx_of[cpu] = -1;
		if (parse_cpuset_has(&o->cpus, cpu)) {
			e->idx_of[cpu] = (int16_t)e->nr;
			e->list[e->nr++] = cpu;
		}
	}
	if (!e->nr)
		return -EINVAL;
	e->cpu = calloc(e->nr, sizeof(*e->cpu));
	e->active = calloc(e->nr, sizeof(bool));
	e->pstart = calloc(e->nr, sizeof(uint64_t));
	if (!e->cpu || !e->active || !e->pstart)
		return -ENOMEM;
	for (size_t i = 0; i < e->nr; i++) {
		e->cpu[i].cpu = e->list[i];
		if (o->hist && !(e->cpu[i].hist.b = calloc(o->entries + 1, sizeof(uint64_t))))
			return -ENOMEM;
	}
	struct noise_opts no = {
		.threshold_ns = o->threshold_us * 1000,
		.stop_single_ns = o->stop_us * 1000,
		.stop_total_ns = o->stop_total_us * 1000,
		.no_workload = o->no_workload,
		.softirq_in_threads = o->softirq_in_threads,
	};
	struct noise_sink sk = { .arg = e, .win = sink_win, .gap = sink_gap, .period = sink_period };
	if (o->auto_analysis) {
		int err = noiseauto_new(&e->an, e->list[e->nr - 1] + 1);
		if (err < 0)
			return err;
	}
	return noise_new(&e->n, e->list[e->nr - 1] + 1, &no, &sk);
}

void osneng_free(struct osneng *e)
{
	if (!e)
		return;
	for (size_t i = 0; e->cpu && i < e->nr; i++)
		free(e->cpu[i].hist.b);
	free(e->cpu);
	free(e->active);
	free(e->pstart);
	noise_free(e->n);
	noiseauto_free(e->an);
	free(e);
}

const struct osneng_opts *osneng_opts(const struct osneng *e) { return &e->o; }
size_t osneng_nr(const struct osneng *e) { return e->nr; }
const unsigned *osneng_list(const struct osneng *e) { return e->list; }
const struct osneng_cpu *osneng_cpu(const struct osneng *e, size_t idx) { return &e->cpu[idx]; }
struct noise *osneng_noise(const struct osneng *e) { return e->n; }
const struct osneng_stop *osneng_stop(const struct osneng *e) { return &e->stop; }
bool osneng_stopped(const struct osneng *e) { return e->stop.why != OSNENG_RUNNING; }
uint64_t osneng_hits(const struct osneng *e, struct osneng_stop *last)
{
	if (last)
		*last = e->last_hit;
	return e->hits;
}
const struct noiseauto_result *osneng_auto(const struct osneng *e)
{
	return e->an_valid ? &e->an_res : NULL;
}
const struct osneng_times *osneng_times(const struct osneng *e) { return &e->t; }
const struct osneng_counts *osneng_counts(const struct osneng *e) { return &e->counts; }
void osneng_halt(struct osneng *e) { e->halted = true; }

int osneng_index(const struct osneng *e, unsigned cpu)
{
	return cpu < PARSE_MAX_CPUS ? e->idx_of[cpu] : -1;
}

void osneng_use_source(struct osneng *e, const struct osneng_wsrc *src)
{
	e->src = *src;
}

static bool w_peek(void *arg, size_t idx, struct oswork_rec *r) { return oswork_peek(arg, idx, r); }
static void w_pop(void *arg, size_t idx) { oswork_pop(arg, idx); }
static void w_stop(void *arg) { oswork_request_stop(arg); }

void osneng_use_workload(struct osneng *e, struct oswork *w)
{
	struct osneng_wsrc s = { .arg = w, .peek = w_peek, .pop = w_pop, .stop = w_stop };
	osneng_use_source(e, &s);
}

void osneng_start(struct osneng *e, uint64_t t_ns)
{
	e->t.start_ns = t_ns;
	e->t.warm_end_ns = t_ns + e->o.warmup_ns;
	e->nw_next_ns = e->t.warm_end_ns;
}

void osneng_set_end(struct osneng *e, uint64_t t_ns)
{
	e->t.end_ns = t_ns;
}

/* ---- trace lines -------------------------------------------------------------- */

static void fmt_ts(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_S, ns % NS_PER_S);
}

static void add_line(struct osneng *e, const char *line)
{
	if (!e->stop.why) {	/* keep the events that led up to the stop */
		char *dst = e->lines[e->nr_lines++ % OSNENG_LINE_RING];
		snprintf(dst, OSNENG_LINE_LEN, "%s", line);
	}
	if (e->sink.line)
		e->sink.line(e->sink.arg, line);
}

size_t osneng_recent_lines(const struct osneng *e, const char **out, size_t max)
{
	uint64_t first = e->nr_lines > OSNENG_LINE_RING ? e->nr_lines - OSNENG_LINE_RING : 0;
	size_t n = 0;
	for (uint64_t i = first; i < e->nr_lines && n < max; i++)
		out[n++] = e->lines[i % OSNENG_LINE_RING];
	return n;
}

/* Context prefix of trace lines: "osnoise/N-TID [NNN] ....." and time (the
 * workload thread's own name, ls-osnoise/N, for latscope's busy loop). */
void osneng_trace_prefix(const struct osneng *e, char *buf, size_t len, unsigned cpu, uint64_t t_ns)
{
	char task[32];
	int i = osneng_index(e, cpu);
	int tid = i >= 0 ? e->cpu[i].tid : 0;
	snprintf(task, sizeof(task), e->kernel_tracer ? "osnoise/%u" : OSWORK_THREAD_NAME, cpu);
	snprintf(buf, len, "%16s-%-7d [%03u] ..... %6" PRIu64 ".%06" PRIu64 ":", task, tid, cpu,
		 t_ns / NS_PER_S, (t_ns % NS_PER_S) / 1000);
}

/* ---- noise sink ------------------------------------------------------------------ */

static void sink_win(void *arg, const struct noise_win *w)
{
	struct osneng *e = arg;
	char pre[96], ts[32], line[OSNENG_LINE_LEN];
	if (e->an)
		noiseauto_win(e->an, w);
	/* In workload mode the kernel reports threads other than the workload
	 * and every IRQ; the line ring keeps the last ones for a stop. */
	osneng_trace_prefix(e, pre, sizeof(pre), w->cpu, e->line_ts_ns ? e->line_ts_ns : w->end_ns);
	fmt_ts(ts, sizeof(ts), w->start_ns);
	switch (w->cls) {
	case NOISE_NMI:
		snprintf(line, sizeof(line), "%s nmi_noise: start %s duration %" PRIu64 " ns", pre, ts,
			 w->net_ns);
		break;
	case NOISE_IRQ:
		snprintf(line, sizeof(line), "%s irq_noise: %s:%d start %s duration %" PRIu64 " ns", pre,
			 w->name, w->id, ts, w->net_ns);
		break;
	case NOISE_SOFTIRQ:
		snprintf(line, sizeof(line), "%s softirq_noise: %8s:%d start %s duration %" PRIu64 " ns",
			 pre, w->name, w->id, ts, w->net_ns);
		break;
	default:
		snprintf(line, sizeof(line), "%s thread_noise: %8s:%d start %s duration %" PRIu64 " ns",
			 pre, w->name, w->id, ts, w->net_ns);
		break;
	}
	add_line(e, line);
}

static void hist_add(struct osneng *e, unsigned cpu, uint64_t ns)
{
	int i = osneng_index(e, cpu);
	if (i < 0 || !e->o.hist)
		return;
	struct osneng_hist *h = &e->cpu[i].hist;
	uint64_t b = ns / 1000 / e->o.bucket_us;
	h->b[b < e->o.entries ? b : e->o.entries]++;
	if (!h->count || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
}

static void sink_gap(void *arg, const struct noise_gap *g)
{
	struct osneng *e = arg;
	char pre[96], ts[32], line[OSNENG_LINE_LEN];
	hist_add(e, g->cpu, g->duration_ns);
	osneng_trace_prefix(e, pre, sizeof(pre), g->cpu,
			  e->line_ts_ns ? e->line_ts_ns : g->start_ns + g->duration_ns);
	fmt_ts(ts, sizeof(ts), g->start_ns);
	snprintf(line, sizeof(line), "%s sample_threshold: start %s duration %" PRIu64
		 " ns interference %" PRIu64, pre, ts, g->duration_ns, g->interference);
	add_line(e, line);
}

static void sink_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p)
{
	struct osneng *e = arg;
	if (e->sink.period)
		e->sink.period(e->sink.arg, cpu, end_ns, p);
}

/* ---- feeding ----------------------------------------------------------------------- */

/* A stop threshold: like the kernel, tracing ends here.  The periods in
 * progress are closed at the stop time so the totals include the stop. */
void osneng_set_stop(struct osneng *e, int why, unsigned cpu, uint64_t value_ns, uint64_t t_ns)
{
	if (e->stop.why)
		return;
	e->stop.why = why;
	e->stop.cpu = cpu;
	e->stop.value_ns = value_ns;
	e->stop.t_ns = t_ns;
	if (e->src.stop)
		e->src.stop(e->src.arg);
	for (size_t i = 0; i < e->nr; i++)
		if (e->active[i]) {
			e->active[i] = false;
			noise_period_end(e->n, e->list[i], t_ns,
					 t_ns > e->pstart[i] ? t_ns - e->pstart[i] : 0);
		}
}

static void write_wrec(struct osneng *e, const struct oswork_rec *r)
{
	if (!e->pw)
		return;
	uint8_t raw[OSWORK_REC_RAW_SIZE];
	oswork_rec_encode(r, raw);
	struct pdread_sample s;
	memset(&s, 0, sizeof(s));
	s.id = OSNENG_WREC_ID;
	int i = osneng_index(e, r->cpu);
	s.pid = s.tid = (uint32_t)(i >= 0 ? e->cpu[i].tid : 0);
	s.time = r->t1_ns;
	s.cpu = r->cpu;
	s.raw = raw;
	s.raw_size = sizeof(raw);
	pdwrite_write_sample(e->pw, e->wrec_evsel, PDFORMAT_MISC_USER, &s);
}

_Static_assert(OSWORK_NR_CLASSES == NOISE_NR_CLASSES, "a counted gap has a value per class");

static void feed_wrec(struct osneng *e, const struct oswork_rec *r)
{
	write_wrec(e, r);
	int i = osneng_index(e, r->cpu);
	if (i < 0)
		return;
	struct osneng_cpu *pc = &e->cpu[i];
	switch (r->type) {
	case OSWORK_PERIOD_BEGIN:
		if (r->t1_ns >= e->t.warm_end_ns && !e->stop.why) {
			noise_period_begin(e->n, r->cpu, r->t1_ns);
			e->active[i] = true;
			e->pstart[i] = r->t1_ns;
		}
		break;
	case OSWORK_GAP: {
		if (!e->active[i])
			break;
		int rc;
		if (e->o.gap_counters) {
			struct noise_counted a;
			oswork_gap_unpack(r->v, a.count, a.net_ns);
			rc = noise_gap_counted(e->n, r->cpu, r->t0_ns, r->t1_ns, &a);
		} else {
			rc = noise_gap(e->n, r->cpu, r->t0_ns, r->t1_ns);
		}
		if (rc == NOISE_STOP) {
			e->hits++;
			if (e->an && noiseauto_gap(e->an, r->cpu, r->t0_ns, r->t1_ns, &e->an_res) == 0)
				e->an_valid = true;
			if (!e->o.stop_continue)
				osneng_set_stop(e, OSNENG_STOP_SINGLE, r->cpu, r->t1_ns - r->t0_ns, r->t1_ns);
			e->last_hit = (struct osneng_stop){ .why = OSNENG_STOP_SINGLE, .cpu = r->cpu,
							    .value_ns = r->t1_ns - r->t0_ns, .t_ns = r->t1_ns };
		}
		break;
	}
	case OSWORK_PERIOD_COUNTS:
		if (e->active[i])
			noise_period_counts(e->n, r->cpu, r->v);
		break;
	case OSWORK_PERIOD_END:
		if (!e->active[i])
			break;
		e->active[i] = false;
		noise_sub(e->n, r->cpu, r->v[1], r->v[2]);
		if (!pc->min_gap_ns || r->v[4] < pc->min_gap_ns)
			pc->min_gap_ns = r->v[4];
		pc->iters += r->v[3];
		pc->loop_ns += r->v[0];
		if (noise_period_end(e->n, r->cpu, r->t1_ns, r->v[0]) == NOISE_STOP) {
			const struct noise_stats *p = noise_cpu_period(e->n, r->cpu);
			osneng_set_stop(e, OSNENG_STOP_TOTAL, r->cpu, p->noise_ns, r->t1_ns);
		}
		break;
	default:
		break;
	}
}

int osneng_set_tid(struct osneng *e, unsigned cpu, int32_t tid, uint64_t floor_ns, uint64_t time_ns)
{
	int i = osneng_index(e, cpu);
	if (i < 0)
		return -EINVAL;
	e->cpu[i].tid = tid;
	e->cpu[i].floor_ns = floor_ns;
	noise_set_workload(e->n, cpu, tid);
	if (e->pw) {
		/* its name from the start, so perf script does not show :TID */
		char comm[16];
		snprintf(comm, sizeof(comm), OSWORK_THREAD_NAME, cpu);
		pdwrite_write_comm(e->pw, e->wrec_evsel, (uint32_t)getpid(), (uint32_t)tid, comm, time_ns);
	}
	struct oswork_rec t = { .type = OSWORK_TID, .cpu = cpu, .t1_ns = time_ns };
	t.v[0] = (uint64_t)tid;
	t.v[1] = floor_ns;
	write_wrec(e, &t);
	return 0;
}

/* Feed the workload records of every CPU with key < limit (or <= when
 * incl), oldest first across the CPUs: a stop on one CPU ends the run for
 * all at that time, as replay (which reads them in time order) sees it. */
static void feed_wrecs_until(struct osneng *e, uint64_t limit, bool incl)
{
	struct oswork_rec r, best;
	while (e->src.peek) {
		size_t bi = e->nr;
		for (size_t i = 0; i < e->nr; i++)
			if (e->src.peek(e->src.arg, i, &r) &&
			    (r.t1_ns < limit || (incl && r.t1_ns == limit)) &&
			    (bi == e->nr || r.t1_ns < best.t1_ns)) {
				bi = i;
				best = r;
			}
		if (bi == e->nr)
			return;
		e->src.pop(e->src.arg, bi);
		feed_wrec(e, &best);
	}
}

/* No-workload period boundaries due before limit (generated here). */
static void nw_boundaries(struct osneng *e, uint64_t limit)
{
	if (e->t.end_ns && limit > e->t.end_ns)
		limit = e->t.end_ns;	/* the run is over: no boundary after its end */
	while (e->o.no_workload && e->nw_next_ns && e->nw_next_ns <= limit) {
		uint64_t t = e->nw_next_ns;
		for (size_t i = 0; i < e->nr; i++) {
			unsigned cpu = e->list[i];
			if (e->active[i]) {
				noise_period_end(e->n, cpu, t, e->o.period_us * 1000);
				e->active[i] = false;
			}
			if (!e->stop.why && t >= e->t.warm_end_ns) {
				noise_period_begin(e->n, cpu, t);
				e->active[i] = true;
				e->pstart[i] = t;
			}
		}
		e->nw_next_ns += e->o.period_us * 1000;
	}
}

void osneng_close(struct osneng *e)
{
	if (!e->o.no_workload || e->stop.why)
		return;
	for (size_t i = 0; i < e->nr; i++)
		if (e->active[i]) {
			e->active[i] = false;
			noise_period_end(e->n, e->list[i], e->t.end_ns,
					 e->t.end_ns > e->pstart[i] ? e->t.end_ns - e->pstart[i] : 0);
		}
}

int osneng_event(void *engine, const struct tpevent *ev)
{
	struct osneng *e = engine;
	int i = osneng_index(e, ev->cpu);
	if (i < 0 || e->stop.why)
		return 0;
	if (e->o.no_workload)
		nw_boundaries(e, ev->time_ns);
	else
		feed_wrecs_until(e, ev->time_ns, false);
	if (!e->stop.why)	/* a record before it may have stopped the run */
		noise_event(e->n, ev);
	return 0;
}

void osneng_advance(struct osneng *e, uint64_t until_ns)
{
	if (e->o.no_workload)
		nw_boundaries(e, until_ns);
	else
		feed_wrecs_until(e, until_ns, true);
	if (e->pw)
		pdwrite_finished_round(e->pw);
}

/* ---- recording ------------------------------------------------------------------------ */

int osneng_record(struct osneng *e, struct pdwrite *pw)
{
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDFORMAT_TYPE_SOFTWARE;
	a.config = 9;	/* PERF_COUNT_SW_DUMMY */
	a.sample_period = 1;
	a.sample_type = PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU |
			PDFORMAT_SAMPLE_RAW;
	a.flags = (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) | (1ULL << PDFORMAT_ATTR_FLAG_USE_CLOCKID);
	a.clockid = CLOCK_MONOTONIC;
	uint64_t id = OSNENG_WREC_ID;
	int idx = pdwrite_add_evsel(pw, &a, OSWORK_EVSEL_NAME, &id, 1);
	if (idx < 0)
		return idx;
	e->pw = pw;
	e->wrec_evsel = idx;
	/* The run's parameters, so replay uses the same threshold and period:
	 * latscope's own feature section; VERSION says only who wrote it. */
	struct pdformat_osnp p;
	osneng_params_to_osnp(&e->o, &p);
	int err = pdwrite_set_osnoise_params(pw, &p);
	if (!err)
		err = pdwrite_set_string_feature(pw, PDFORMAT_FEAT_VERSION, "latscope " LATSCOPE_VERSION);
	return err;
}

/* ---- replay --------------------------------------------------------------------------- */

static int replay_setup(struct pdread *r, osneng_setup_fn setup, void *arg, struct osneng **ep,
			struct tpdecode **d)
{
	*d = pdread_tep(r) ? tpdecode_new(pdread_tep(r)) : NULL;
	int err = setup(arg, r, *d != NULL, ep);
	if (!err && !*ep)
		err = -EINVAL;
	return err;
}

/* One workload record of the file. */
static void replay_wrec(struct osneng *e, const struct pdread_sample *s, bool *any_wrec)
{
	struct oswork_rec w;
	if (oswork_rec_decode(s->raw, s->raw_size, &w) < 0) {
		e->counts.bad_wrec++;
		return;
	}
	if (osneng_index(e, w.cpu) < 0)
		return;		/* a CPU not asked for */
	if (w.type == OSWORK_TID) {
		osneng_set_tid(e, w.cpu, (int32_t)w.v[0], w.v[1], w.t1_ns);
		return;
	}
	if (!*any_wrec && w.type == OSWORK_PERIOD_BEGIN) {
		*any_wrec = true;
		if (e->o.warmup_ns)
			e->t.warm_end_ns = w.t1_ns + e->o.warmup_ns;
	}
	if (!e->o.no_workload)
		feed_wrec(e, &w);
}

/* One tracepoint sample of the file. */
static void replay_tp(struct osneng *e, const struct tpdecode *d, const struct pdread_event *ev)
{
	struct tpdecode_losses l = { 0 };
	struct tpevent t;
	if (tpdecode_decode_sample(d, ev, &t, &l) < 0) {
		/* other events and tracepoints the accounting does not use are no loss */
		e->counts.undecoded += l.no_raw + l.bad_raw;
		return;
	}
	osneng_event(e, &t);
}

int osneng_replay(struct pdread *r, osneng_setup_fn setup, void *arg, struct osneng **ep)
{
	struct osneng *e = NULL;
	struct tpdecode *d = NULL;
	struct pdread_event ev;
	bool any_wrec = false;
	int err;
	*ep = NULL;
	while (!(e && (e->stop.why || e->halted)) && (err = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.evsel || !ev.has_sample)
			continue;
		if (!e) {
			err = replay_setup(r, setup, arg, ep, &d);
			e = *ep;
			if (err)
				goto out;
		}
		e->counts.samples++;
		const struct pdread_sample *s = &ev.sample;
		if (!e->t.start_ns)
			osneng_start(e, s->time);
		if (s->time > e->t.end_ns)
			e->t.end_ns = s->time;
		if (ev.evsel->name && !strcmp(ev.evsel->name, OSWORK_EVSEL_NAME))
			replay_wrec(e, s, &any_wrec);
		else
			replay_tp(e, d, &ev);
	}
	if (err < 0)
		goto out;
	if (!e) {	/* no sample at all */
		err = replay_setup(r, setup, arg, ep, &d);
		e = *ep;
		if (err)
			goto out;
	}
	if (e->o.no_workload)
		nw_boundaries(e, e->t.end_ns + 1);
	const struct pdread_stats *st = pdread_stats(r);
	e->counts.lost = st->lost_events + st->lost_samples;
	e->counts.unknown_id = st->unknown_id;
	e->counts.bad_samples = st->bad_samples;
	e->counts.out_of_order = st->out_of_order;
	e->counts.duplicates = st->duplicates;
	e->counts.forced = st->forced_flushes;
	osneng_close(e);
	err = 0;
out:
	tpdecode_free(d);
	return err;
}

/* ---- kernel tracer -------------------------------------------------------------------- */

void osneng_kernel_rec(struct osneng *e, const struct osnkernel_rec *k)
{
	if (k->kind == OSNKERNEL_LOST) {
		/* counted whatever the CPU: a loss is never dropped silently */
		e->counts.lost += k->lost ? k->lost : 1;
		if (e->sink.lost)
			e->sink.lost(e->sink.arg, k->cpu, k->lost);
		return;
	}
	if (k->kind == OSNKERNEL_MARK) {
		if (!strcmp(k->desc, OSNKERNEL_MARK_START) && !e->t.kwin_start_ns)
			e->t.kwin_start_ns = k->ts_ns;
		else if (!strcmp(k->desc, OSNKERNEL_MARK_END) && !e->t.kwin_end_ns)
			e->t.kwin_end_ns = k->ts_ns;
		if (e->sink.mark)
			e->sink.mark(e->sink.arg, k->cpu, k->ts_ns, k->desc);
		return;
	}
	int i = osneng_index(e, k->cpu);
	if (i < 0 || e->stop.why)
		return;
	/* its line (--events) shows the kernel's time of the record, and comes
	 * in the kernel's order */
	e->line_ts_ns = k->ts_ns;
	e->kernel_tracer = true;
	if (!e->t.start_ns || k->ts_ns < e->t.start_ns)
		e->t.start_ns = k->ts_ns;
	if (k->ts_ns > e->t.end_ns)
		e->t.end_ns = k->ts_ns;
	if (!e->cpu[i].tid && !strncmp(k->comm, "osnoise/", 8))
		e->cpu[i].tid = k->pid;
	switch (k->kind) {
	case OSNKERNEL_PERIOD: {
		struct noise_stats p;
		memset(&p, 0, sizeof(p));
		p.periods = 1;
		p.runtime_ns = k->runtime_us * 1000;
		p.noise_ns = k->noise_us * 1000;
		p.max_noise_ns = p.noise_ns;
		p.max_single_ns = k->max_single_us * 1000;
		p.hw_count = k->hw;
		p.count[NOISE_NMI] = k->nmi;
		p.count[NOISE_IRQ] = k->irq;
		p.count[NOISE_SOFTIRQ] = k->softirq;
		p.count[NOISE_THREAD] = k->thread;
		noise_add_period(e->n, k->cpu, k->ts_ns, &p);
		if (e->o.stop_total_us && k->noise_us > e->o.stop_total_us)
			osneng_set_stop(e, OSNENG_STOP_TOTAL, k->cpu, p.noise_ns, k->ts_ns);
		break;
	}
	case OSNKERNEL_SAMPLE: {
		struct noise_gap g;
		memset(&g, 0, sizeof(g));
		g.cpu = k->cpu;
		g.start_ns = k->start_ns;
		g.duration_ns = k->duration_ns;
		g.interference = k->interference;
		g.hw = !k->interference;
		sink_gap(e, &g);
		if (e->o.stop_us && k->duration_ns > e->o.stop_us * 1000)
			osneng_set_stop(e, OSNENG_STOP_SINGLE, k->cpu, k->duration_ns, k->ts_ns);
		break;
	}
	default: {
		struct noise_win w;
		if (osneng_kernel_win(k, &w))
			noise_add_window(e->n, &w);
		break;
	}
	}
	e->line_ts_ns = 0;
}

bool osneng_kernel_win(const struct osnkernel_rec *k, struct noise_win *w)
{
	if (k->kind != OSNKERNEL_NMI && k->kind != OSNKERNEL_IRQ && k->kind != OSNKERNEL_SOFTIRQ &&
	    k->kind != OSNKERNEL_THREAD)
		return false;
	memset(w, 0, sizeof(*w));
	w->cls = k->kind == OSNKERNEL_NMI ? NOISE_NMI : k->kind == OSNKERNEL_IRQ ? NOISE_IRQ :
		 k->kind == OSNKERNEL_SOFTIRQ ? NOISE_SOFTIRQ : NOISE_THREAD;
	w->cpu = k->cpu;
	w->start_ns = k->start_ns;
	w->end_ns = k->start_ns + k->duration_ns;
	w->net_ns = k->duration_ns;
	w->id = k->id;
	const char *d = k->desc;
	while (*d == ' ')
		d++;
	snprintf(w->name, sizeof(w->name), "%s", k->kind == OSNKERNEL_NMI ? "nmi" : d);
	return true;
}

void osneng_kernel_text(struct osneng *e, struct osneng_kbuf *kb, const char *data, size_t n)
{
	while (n) {
		size_t room = sizeof(kb->buf) - 1 - kb->len;
		size_t take = n < room ? n : room;
		memcpy(kb->buf + kb->len, data, take);
		kb->len += take;
		data += take;
		n -= take;
		kb->buf[kb->len] = 0;
		char *start = kb->buf, *nl;
		while ((nl = strchr(start, '\n'))) {
			*nl = 0;
			struct osnkernel_rec r;
			int err = osnkernel_parse_line(start, &r);
			if (!err)
				osneng_kernel_rec(e, &r);
			else if (err == -EINVAL)
				kb->bad++;
			start = nl + 1;
		}
		size_t rest = kb->len - (size_t)(start - kb->buf);
		if (rest == sizeof(kb->buf) - 1)
			rest = 0;	/* an absurdly long line: drop it */
		memmove(kb->buf, start, rest);
		kb->len = rest;
	}
}
