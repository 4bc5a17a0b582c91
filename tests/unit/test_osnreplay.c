/* SPDX-License-Identifier: MIT */
/*
 * Replay equals live, through the real osnoise engine (lib/engine/osneng.c) on both
 * paths.  A generated stream of tracepoint events and workload records (2
 * CPUs, nested NMI/IRQ/softirq/thread windows, gaps with and without
 * interference, a timer arriving exactly at a gap's end, sub-threshold gaps,
 * periods) is run the way `osnoise record` runs: the events are delivered to
 * osneng_event() in rounds like the command's evsrc_read() callback, each written
 * as a tracepoint sample with the attr the event source declares
 * (evsrc_tp_attr) and a payload built from the formats in tests/data/formats;
 * the workload records come from a queue per CPU through osneng_use_source()
 * like the workload's rings and are written by the engine itself
 * (osneng_record).  The file is then replayed with osneng_replay(), its
 * parameters taken from the file (osneng_params_take).  Every statistic,
 * contributor, histogram bucket, trace line, period and the stop must be
 * identical.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <event-parse.h>

#include "base/bytes.h"
#include "live/evsrc.h"
#include "engine/noise.h"
#include "engine/osneng.h"
#include "live/oswork.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "format/tpencode.h"
#include "format/tpevent.h"
#include "test_tpe.h"

#define FORMATS_DIR "tests/data/formats"
#define WL0 500
#define WL1 501
#define ROUND_NS 250013		/* the live rounds: not aligned with anything */

/* One item of the generated stream: an event or a workload record. */
struct item {
	bool is_rec;
	struct tpevent e;
	struct oswork_rec r;
};

static struct item items[4096];
static size_t nr_items;

static void add_ev(const struct tpevent *e)
{
	items[nr_items].is_rec = false;
	items[nr_items++].e = *e;
}

static void add_rec(uint32_t type, uint32_t cpu, uint64_t t0, uint64_t t1, uint64_t v0, uint64_t v1,
		    uint64_t v2)
{
	struct item *it = &items[nr_items++];
	memset(it, 0, sizeof(*it));
	it->is_rec = true;
	it->r.type = type;
	it->r.cpu = cpu;
	it->r.t0_ns = t0;
	it->r.t1_ns = t1;
	it->r.v[0] = v0;
	it->r.v[1] = v1;
	it->r.v[2] = v2;
}

static uint64_t key(const struct item *it)
{
	return it->is_rec ? it->r.t1_ns : it->e.time_ns;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	uint64_t kx = key(x), ky = key(y);
	if (kx != ky)
		return kx < ky ? -1 : 1;
	/* events before records at the same time, as live merging does */
	return (int)x->is_rec - (int)y->is_rec;
}

static void ev_irq(bool entry, uint32_t cpu, uint64_t t, int irq, const char *name)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPEVENT_IRQ_ENTRY : TPEVENT_IRQ_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.irq.irq = irq;
	if (entry)
		snprintf(e.irq.name, sizeof(e.irq.name), "%s", name);
	add_ev(&e);
}

static void ev_vec(bool entry, uint32_t cpu, uint64_t t)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPEVENT_VECTOR_ENTRY : TPEVENT_VECTOR_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.vector.vector = 236;
	snprintf(e.vector.name, sizeof(e.vector.name), "local_timer");
	add_ev(&e);
}

static void ev_soft(bool entry, uint32_t cpu, uint64_t t, uint32_t vec)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPEVENT_SOFTIRQ_ENTRY : TPEVENT_SOFTIRQ_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.softirq.vec = vec;
	add_ev(&e);
}

static void ev_nmi(uint32_t cpu, uint64_t t, int64_t d)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = TPEVENT_NMI;
	e.cpu = cpu;
	e.time_ns = t;
	e.nmi.delta_ns = d;
	add_ev(&e);
}

static void ev_sw(uint32_t cpu, uint64_t t, int prev, const char *pc, int next, const char *nc)
{
	struct tpevent e;
	tt_switch(&e, t, cpu, prev, 120, pc, next, 120, nc);
	add_ev(&e);
}

/* A deterministic stream: 3 periods of 1 ms on each of 2 CPUs. */
static void generate(void)
{
	nr_items = 0;
	uint32_t seed = 12345;
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		int wl = cpu ? WL1 : WL0;
		add_rec(OSWORK_TID, cpu, 0, 0, (uint64_t)wl, 100, 0);
		for (int p = 0; p < 3; p++) {
			uint64_t base = 1000000000ULL + (uint64_t)p * 1000000 + cpu * 7;
			add_rec(OSWORK_PERIOD_BEGIN, cpu, base, base, 0, 0, 0);
			uint64_t t = base + 1000;
			for (int g = 0; g < 12; g++) {
				seed = seed * 1103515245 + 12345;
				unsigned kind = (seed >> 16) % 6;
				uint64_t s = t, e;
				switch (kind) {
				case 0:	/* HW: nothing inside, or a timer arriving
					 * exactly at the gap's end (inside it) */
					e = s + 3000 + (seed % 5000);
					if ((seed >> 8) & 1) {
						ev_vec(true, cpu, e);
						ev_vec(false, cpu, e + 600);
					}
					break;
				case 1:	/* local timer + TIMER softirq */
					ev_vec(true, cpu, s + 100);
					ev_vec(false, cpu, s + 2100);
					ev_soft(true, cpu, s + 2200, 1);
					ev_soft(false, cpu, s + 3000, 1);
					e = s + 3300;
					break;
				case 2:	/* preempted by a thread with an IRQ and an NMI inside */
					ev_sw(cpu, s + 200, wl, "osnoise/x", 42 + (int)cpu, "noisegen");
					ev_irq(true, cpu, s + 5000, 11, "virtio0-input");
					ev_nmi(cpu, s + 5500, 300);
					ev_irq(false, cpu, s + 7000, 11, NULL);
					ev_sw(cpu, s + 50000, 42 + (int)cpu, "noisegen", wl, "osnoise/x");
					e = s + 50300;
					break;
				case 3:	/* below the threshold */
					e = s + 400;
					break;
				case 4:	/* RCU softirq with a nested IRQ */
					ev_soft(true, cpu, s + 100, 9);
					ev_irq(true, cpu, s + 300, 24, "nvme0q1");
					ev_irq(false, cpu, s + 900, 24, NULL);
					ev_soft(false, cpu, s + 1500, 9);
					e = s + 1700;
					break;
				default: /* a kworker */
					ev_sw(cpu, s + 100, wl, "osnoise/x", 77, "kworker/0:1");
					ev_sw(cpu, s + 9100, 77, "kworker/0:1", wl, "osnoise/x");
					e = s + 9200;
					break;
				}
				add_rec(OSWORK_GAP, cpu, s, e, 0, 0, 0);
				t = e + 20000;
			}
			uint64_t end = base + 900000;
			add_rec(OSWORK_PERIOD_END, cpu, end, end, end - base, 7, 2100);
			/* between periods: the workload sleeps */
			ev_sw(cpu, end + 10, wl, "osnoise/x", 0, "swapper");
			ev_sw(cpu, end + 90000, 0, "swapper", wl, "osnoise/x");
		}
	}
	qsort(items, nr_items, sizeof(items[0]), cmp_item);
}

/* ---- raw tracepoint payloads from the formats ---------------------------- */

static struct tep_handle *enc_tep;
static struct tpdecode *enc;		/* lib/tpencode over enc_tep */

/* ---- the engine's output, logged ------------------------------------------- */

struct log {
	char (*l)[OSNENG_LINE_LEN];
	size_t n, cap;
};

static void log_add(struct log *g, const char *s)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->l = realloc(g->l, g->cap * sizeof(*g->l));
		assert_non_null(g->l);
	}
	snprintf(g->l[g->n++], OSNENG_LINE_LEN, "%s", s);
}

static void log_line(void *arg, const char *line)
{
	log_add(arg, line);
}

static void log_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p)
{
	char s[OSNENG_LINE_LEN];
	snprintf(s, sizeof(s), "period cpu %u end %llu runtime %llu noise %llu max %llu hw %llu "
		 "nmi %llu irq %llu softirq %llu thread %llu", cpu, (unsigned long long)end_ns,
		 (unsigned long long)p->runtime_ns, (unsigned long long)p->noise_ns,
		 (unsigned long long)p->max_single_ns, (unsigned long long)p->hw_count,
		 (unsigned long long)p->count[NOISE_NMI], (unsigned long long)p->count[NOISE_IRQ],
		 (unsigned long long)p->count[NOISE_SOFTIRQ], (unsigned long long)p->count[NOISE_THREAD]);
	log_add(arg, s);
}

/* ---- the workload's rings: one queue of records per CPU --------------------- */

static struct oswork_rec wq[2][1024];
static size_t wq_n[2], wq_pos[2];

static bool wq_peek(void *arg, size_t idx, struct oswork_rec *r)
{
	(void)arg;
	if (wq_pos[idx] == wq_n[idx])
		return false;
	*r = wq[idx][wq_pos[idx]];
	return true;
}

static void wq_pop(void *arg, size_t idx)
{
	(void)arg;
	wq_pos[idx]++;
}

/* ---- live run, recorded --------------------------------------------------------- */

static const char *const specs[] = {
	"sched:sched_switch", "irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
	"irq:softirq_exit", "irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
	"nmi:nmi_handler"
};

/* The tracepoint events of the recording, by tep id: evsel index, sample id. */
struct tp_evsel {
	int idx;
	uint64_t id;
};

static void write_event(struct pdwrite *w, const struct tp_evsel *tev, const struct tpevent *e)
{
	uint8_t raw[256];
	int tid_id = tpencode_id(enc, e);
	ssize_t n = tpencode(enc, e, raw, sizeof(raw));
	assert_true(tid_id >= 0 && n > 0);
	struct pdread_sample s;
	memset(&s, 0, sizeof(s));
	s.id = tev[tid_id].id;
	s.time = e->time_ns;
	s.cpu = e->cpu;
	s.pid = (uint32_t)e->pid;
	s.tid = (uint32_t)e->tid;
	s.raw = raw;
	s.raw_size = (uint32_t)n;
	assert_int_equal(pdwrite_write_sample(w, tev[tid_id].idx, PDFORMAT_MISC_KERNEL, &s), 0);
}

/*
 * The live run of `osnoise record` with options o on the generated stream:
 * *ep gets the engine (the caller frees it), the recording goes to path.
 */
static void live_record(const struct osneng_opts *o, const char *path, struct log *log,
			struct osneng **ep)
{
	struct tracedata_formats *f;
	assert_int_equal(tracedata_collect(FORMATS_DIR, specs, sizeof(specs) / sizeof(specs[0]), &f), 0);
	enc_tep = tep_alloc();
	assert_non_null(enc_tep);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_int_equal(tep_parse_event(enc_tep, f->events[i].format,
						 strlen(f->events[i].format), f->events[i].system), 0);
	tep_set_file_bigendian(enc_tep, BYTES_HOST_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	enc = tpdecode_new(enc_tep);
	assert_non_null(enc);
	struct pdwrite *w;
	struct pdwrite_opts po = { .big_endian = BYTES_HOST_BIG_ENDIAN, .checkpoint = true };
	assert_int_equal(pdwrite_open(&w, path, &po), 0);
	static struct tp_evsel tev[4096];
	for (size_t i = 0; i < f->nr_events; i++) {
		struct pdformat_attr a;
		evsrc_tp_attr(f->events[i].id, &a);
		char name[96];
		snprintf(name, sizeof(name), "%s:%s", f->events[i].system, f->events[i].name);
		assert_true(f->events[i].id < 4096);
		struct tp_evsel *t = &tev[f->events[i].id];
		t->id = i + 1;	/* the kernel's ids are small; the workload's is not */
		t->idx = pdwrite_add_evsel(w, &a, name, &t->id, 1);
		assert_true(t->idx >= 0);
	}
	void *blob;
	size_t blen;
	assert_int_equal(tracedata_tracing_data(f, BYTES_HOST_BIG_ENDIAN, &blob, &blen), 0);
	assert_int_equal(pdwrite_set_tracing_data(w, blob, blen), 0);
	free(blob);

	struct osneng_sink sk = { .arg = log, .line = log_line, .period = log_period };
	assert_int_equal(osneng_new(ep, o, &sk), 0);
	struct osneng *e = *ep;
	assert_int_equal(osneng_record(e, w), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);

	/* the workload's records wait in its rings; its threads are known first */
	wq_n[0] = wq_n[1] = wq_pos[0] = wq_pos[1] = 0;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < nr_items; i++) {
		const struct item *it = &items[i];
		if (!it->is_rec || (it->r.type != OSWORK_TID && !o->no_workload))
			first = key(it) < first ? key(it) : first;	/* the run starts */
		if (!it->is_rec) {
			last = it->e.time_ns > last ? it->e.time_ns : last;
		} else if (it->r.type != OSWORK_TID) {
			wq[it->r.cpu][wq_n[it->r.cpu]++] = it->r;
		} else if (!o->no_workload) {
			assert_int_equal(osneng_set_tid(e, it->r.cpu, (int32_t)it->r.v[0], it->r.v[1], it->r.t1_ns), 0);
		}
	}
	if (!o->no_workload) {
		struct osneng_wsrc src = { .peek = wq_peek, .pop = wq_pop };
		osneng_use_source(e, &src);
	}
	osneng_start(e, first);

	/* rounds: the events read up to the round's end, then the records */
	size_t next = 0;
	for (uint64_t until = first; next < nr_items && !osneng_stopped(e); until += ROUND_NS) {
		for (; next < nr_items && key(&items[next]) <= until; next++)
			if (!items[next].is_rec) {
				write_event(w, tev, &items[next].e);
				osneng_event(e, &items[next].e);
			}
		osneng_advance(e, until);
		assert_int_equal(pdwrite_checkpoint(w, false), 0);
	}
	/* the end: what is left, then the last partial period */
	osneng_set_end(e, last);
	for (; next < nr_items; next++)
		if (!items[next].is_rec) {
			write_event(w, tev, &items[next].e);
			osneng_event(e, &items[next].e);
		}
	osneng_advance(e, UINT64_MAX);
	osneng_close(e);
	assert_int_equal(pdwrite_close(w), 0);
	tpdecode_free(enc);
	tep_free(enc_tep);
	tracedata_free(f);
}

/* ---- replay ---------------------------------------------------------------------- */

struct rsetup {
	struct osneng_opts o;	/* what the command line says */
	struct log *log;
};

static int replay_setup(void *arg, struct pdread *r, bool have_formats, struct osneng **ep)
{
	struct rsetup *x = arg;
	assert_true(have_formats);
	struct osneng_opts o = x->o;
	assert_true(osneng_params_take(r, &o, false, false));
	struct osneng_sink sk = { .arg = x->log, .line = log_line, .period = log_period };
	return osneng_new(ep, &o, &sk);
}

static void replay(const char *path, const struct osneng_opts *cli, struct log *log, struct osneng **ep)
{
	struct pdread *r;
	assert_int_equal(pdread_open(&r, path, NULL), 0);
	struct rsetup x = { .o = *cli, .log = log };
	assert_int_equal(osneng_replay(r, replay_setup, &x, ep), 0);
	pdread_close(r);
	const struct osneng_counts *n = osneng_counts(*ep);
	assert_int_equal(n->lost + n->unknown_id + n->bad_samples + n->undecoded + n->bad_wrec, 0);
}

/* ---- comparison ------------------------------------------------------------------ */

static void compare(const struct osneng *a, const struct osneng *b, const struct log *la,
		    const struct log *lb)
{
	const struct osneng_opts *oa = osneng_opts(a), *ob = osneng_opts(b);
	assert_int_equal(oa->threshold_us, ob->threshold_us);
	assert_int_equal(oa->period_us, ob->period_us);
	assert_int_equal(oa->runtime_us, ob->runtime_us);
	assert_int_equal(oa->no_workload, ob->no_workload);
	assert_int_equal(osneng_nr(a), osneng_nr(b));
	for (size_t i = 0; i < osneng_nr(a); i++) {
		const struct osneng_cpu *x = osneng_cpu(a, i), *y = osneng_cpu(b, i);
		assert_int_equal(x->cpu, y->cpu);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->floor_ns, y->floor_ns);
		assert_int_equal(x->min_gap_ns, y->min_gap_ns);
		assert_int_equal(x->iters, y->iters);
		assert_int_equal(x->loop_ns, y->loop_ns);
		assert_int_equal(x->hist.count, y->hist.count);
		assert_int_equal(x->hist.min_ns, y->hist.min_ns);
		assert_int_equal(x->hist.max_ns, y->hist.max_ns);
		assert_int_equal(x->hist.sum_ns, y->hist.sum_ns);
		assert_memory_equal(x->hist.b, y->hist.b, (oa->entries + 1) * sizeof(uint64_t));
		unsigned cpu = x->cpu;
		const struct noise_stats *sx = noise_cpu_stats(osneng_noise(a), cpu);
		const struct noise_stats *sy = noise_cpu_stats(osneng_noise(b), cpu);
		assert_memory_equal(sx, sy, sizeof(*sx));
		const struct noise_contrib *cx, *cy;
		size_t nx = noise_contribs(osneng_noise(a), cpu, &cx);
		size_t ny = noise_contribs(osneng_noise(b), cpu, &cy);
		assert_int_equal(nx, ny);
		for (size_t k = 0; k < nx; k++) {
			bool found = false;
			for (size_t j = 0; j < ny; j++)
				if (cx[k].cls == cy[j].cls && cx[k].id == cy[j].id &&
				    !strcmp(cx[k].name, cy[j].name)) {
					assert_int_equal(cx[k].count, cy[j].count);
					assert_int_equal(cx[k].total_ns, cy[j].total_ns);
					assert_int_equal(cx[k].max_ns, cy[j].max_ns);
					found = true;
				}
			assert_true(found);
		}
	}
	assert_memory_equal(noise_anomalies(osneng_noise(a)), noise_anomalies(osneng_noise(b)),
			    sizeof(struct noise_anomalies));
	const struct osneng_stop *ta = osneng_stop(a), *tb = osneng_stop(b);
	assert_int_equal(ta->why, tb->why);
	assert_int_equal(ta->cpu, tb->cpu);
	assert_int_equal(ta->value_ns, tb->value_ns);
	assert_int_equal(ta->t_ns, tb->t_ns);
	/* every trace line and period, in order */
	if (getenv("OSNREPLAY_DEBUG"))
		for (size_t i = 0; i < la->n || i < lb->n; i++)
			fprintf(stderr, "%s\n%s\n\n", i < la->n ? la->l[i] : "-", i < lb->n ? lb->l[i] : "-");
	assert_int_equal(la->n, lb->n);
	for (size_t i = 0; i < la->n; i++)
		assert_string_equal(la->l[i], lb->l[i]);
	const char *ra[OSNENG_LINE_RING], *rb[OSNENG_LINE_RING];
	size_t na = osneng_recent_lines(a, ra, OSNENG_LINE_RING), nb = osneng_recent_lines(b, rb, OSNENG_LINE_RING);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(ra[i], rb[i]);
}

static struct osneng_opts base_opts(void)
{
	struct osneng_opts o;
	memset(&o, 0, sizeof(o));
	parse_cpuset_add(&o.cpus, 0);
	parse_cpuset_add(&o.cpus, 1);
	o.threshold_us = 1;
	o.period_us = o.runtime_us = 1000;
	o.hist = true;
	o.bucket_us = 1;
	o.entries = 64;
	return o;
}

/* The live run with o, its recording replayed with the command line cli;
 * both engines compared.  Returns the live engine (freed by the caller). */
static struct osneng *live_vs_replay(const struct osneng_opts *o, const struct osneng_opts *cli,
				   bool expect_all)
{
	char dir[] = "/tmp/latscope-osnreplay.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/osnoise.data", dir);
	struct log ll = { 0 }, lr = { 0 };
	struct osneng *live, *rep;
	live_record(o, path, &ll, &live);
	replay(path, cli, &lr, &rep);
	compare(live, rep, &ll, &lr);
	if (expect_all) {	/* every sample was read: events, and records unless no-workload */
		size_t want = 0;
		for (size_t i = 0; i < nr_items; i++)
			want += !items[i].is_rec || !o->no_workload;
		assert_int_equal(osneng_counts(rep)->samples, want);
	}
	if (osneng_stopped(live))	/* replay stops reading where the live run stopped */
		assert_int_equal(osneng_times(rep)->end_ns, osneng_stop(live)->t_ns);
	osneng_free(rep);
	unlink(path);
	rmdir(dir);
	free(ll.l);
	free(lr.l);
	return live;
}

static void test_replay_equals_live(void **state)
{
	(void)state;
	generate();
	assert_true(nr_items > 200);
	struct osneng_opts o = base_opts(), cli = base_opts();
	cli.threshold_us = 5;		/* the file's parameters win */
	cli.period_us = cli.runtime_us = 1000000;
	memset(&cli.cpus, 0, sizeof(cli.cpus));
	struct osneng *live = live_vs_replay(&o, &cli, true);
	const struct noise_stats *ls = noise_cpu_stats(osneng_noise(live), 0);
	assert_int_equal(ls->periods, 3);
	assert_true(ls->gaps > 0 && ls->hw_count > 0 && ls->sub_count > 0);
	assert_true(ls->count[NOISE_NMI] > 0 && ls->count[NOISE_SOFTIRQ] > 0 &&
		    ls->count[NOISE_THREAD] > 0);
	assert_false(osneng_stopped(live));
	osneng_free(live);
}

static void test_replay_equals_live_stop_single(void **state)
{
	(void)state;
	generate();
	struct osneng_opts o = base_opts();
	o.stop_us = 40;		/* the first preemption (50 us) */
	struct osneng *live = live_vs_replay(&o, &o, false);
	assert_int_equal(osneng_stop(live)->why, OSNENG_STOP_SINGLE);
	osneng_free(live);
}

static void test_replay_equals_live_stop_total(void **state)
{
	(void)state;
	generate();
	struct osneng_opts o = base_opts();
	struct osneng *live = live_vs_replay(&o, &o, true);
	uint64_t max_ns = 0;
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		const struct noise_stats *s = noise_cpu_stats(osneng_noise(live), cpu);
		max_ns = s->max_noise_ns > max_ns ? s->max_noise_ns : max_ns;
	}
	osneng_free(live);
	o.stop_total_us = max_ns / 1000 - 1;	/* the noisiest period stops the run */
	live = live_vs_replay(&o, &o, false);
	assert_int_equal(osneng_stop(live)->why, OSNENG_STOP_TOTAL);
	osneng_free(live);
}

static void test_replay_equals_live_no_workload(void **state)
{
	(void)state;
	generate();
	struct osneng_opts o = base_opts();
	o.no_workload = true;
	o.period_us = o.runtime_us = 700;
	struct osneng_opts cli = base_opts();
	struct osneng *live = live_vs_replay(&o, &cli, true);
	assert_true(noise_cpu_stats(osneng_noise(live), 1)->periods > 3);
	osneng_free(live);
}

static void test_rec_codec(void **state)
{
	(void)state;
	struct oswork_rec a = { .type = OSWORK_GAP, .cpu = 3, .t0_ns = 1, .t1_ns = 0x1122334455667788ULL,
			     .v = { 1, 2, 3, 4, 5 } }, b;
	uint8_t raw[OSWORK_REC_RAW_SIZE];
	oswork_rec_encode(&a, raw);
	assert_int_equal(raw[0], OSWORK_REC_VERSION);	/* little-endian */
	assert_int_equal(raw[24], 0x88);
	assert_int_equal(oswork_rec_decode(raw, sizeof(raw), &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(oswork_rec_decode(raw, sizeof(raw) - 1, &b), -EINVAL);
	raw[0] = 2;
	assert_int_equal(oswork_rec_decode(raw, sizeof(raw), &b), -EINVAL);
	raw[0] = 1;
	raw[13] = 0xff;	/* cpu out of range */
	assert_int_equal(oswork_rec_decode(raw, sizeof(raw), &b), -EINVAL);
	assert_int_equal(oswork_rec_decode(NULL, 0, &b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_codec),
		cmocka_unit_test(test_replay_equals_live),
		cmocka_unit_test(test_replay_equals_live_stop_single),
		cmocka_unit_test(test_replay_equals_live_stop_total),
		cmocka_unit_test(test_replay_equals_live_no_workload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
