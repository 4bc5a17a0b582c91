/* SPDX-License-Identifier: MIT */
/*
 * Replay equals live: a generated stream of tracepoint events and workload
 * records (2 CPUs, nested NMI/IRQ/softirq/thread windows, gaps with and
 * without interference, sub-threshold gaps, periods) is fed to the noise
 * accounting directly ("live") and written to a perf.data file the way
 * `osnoise record` does (tracepoint samples with raw payloads built from the
 * formats in tests/data/formats, workload records as a software event), then
 * read back with pdread, decoded with tpdecode and fed again ("replay").
 * Every statistic and every contributor must be identical.
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

#include "noise.h"
#include "oswork.h"
#include "pdread.h"
#include "pdwrite.h"
#include "tfsformat.h"
#include "tpevent.h"

#define FORMATS_DIR "tests/data/formats"
#define WL0 500
#define WL1 501

/* One item of the generated stream: an event or a workload record. */
struct item {
	bool is_rec;
	struct tpe e;
	struct osw_rec r;
};

static struct item items[4096];
static size_t nr_items;

static void add_ev(const struct tpe *e)
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
	struct tpe e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPE_IRQ_ENTRY : TPE_IRQ_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.irq.irq = irq;
	if (entry)
		snprintf(e.irq.name, sizeof(e.irq.name), "%s", name);
	add_ev(&e);
}

static void ev_vec(bool entry, uint32_t cpu, uint64_t t)
{
	struct tpe e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPE_VECTOR_ENTRY : TPE_VECTOR_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.vector.vector = 236;
	snprintf(e.vector.name, sizeof(e.vector.name), "local_timer");
	add_ev(&e);
}

static void ev_soft(bool entry, uint32_t cpu, uint64_t t, uint32_t vec)
{
	struct tpe e;
	memset(&e, 0, sizeof(e));
	e.kind = entry ? TPE_SOFTIRQ_ENTRY : TPE_SOFTIRQ_EXIT;
	e.cpu = cpu;
	e.time_ns = t;
	e.softirq.vec = vec;
	add_ev(&e);
}

static void ev_nmi(uint32_t cpu, uint64_t t, int64_t d)
{
	struct tpe e;
	memset(&e, 0, sizeof(e));
	e.kind = TPE_NMI;
	e.cpu = cpu;
	e.time_ns = t;
	e.nmi.delta_ns = d;
	add_ev(&e);
}

static void ev_sw(uint32_t cpu, uint64_t t, int prev, const char *pc, int next, const char *nc)
{
	struct tpe e;
	memset(&e, 0, sizeof(e));
	e.kind = TPE_SCHED_SWITCH;
	e.cpu = cpu;
	e.time_ns = t;
	e.sw.prev_pid = prev;
	e.sw.next_pid = next;
	snprintf(e.sw.prev_comm, sizeof(e.sw.prev_comm), "%s", pc);
	snprintf(e.sw.next_comm, sizeof(e.sw.next_comm), "%s", nc);
	e.sw.prev_prio = e.sw.next_prio = 120;
	add_ev(&e);
}

/* A deterministic stream: 3 periods of 1 ms on each of 2 CPUs. */
static void generate(void)
{
	nr_items = 0;
	uint32_t seed = 12345;
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		int wl = cpu ? WL1 : WL0;
		add_rec(OSW_TID, cpu, 0, 0, (uint64_t)wl, 100, 0);
		for (int p = 0; p < 3; p++) {
			uint64_t base = 1000000000ULL + (uint64_t)p * 1000000 + cpu * 7;
			add_rec(OSW_PERIOD_BEGIN, cpu, base, base, 0, 0, 0);
			uint64_t t = base + 1000;
			for (int g = 0; g < 12; g++) {
				seed = seed * 1103515245 + 12345;
				unsigned kind = (seed >> 16) % 6;
				uint64_t s = t, e;
				switch (kind) {
				case 0:	/* HW: nothing inside */
					e = s + 3000 + (seed % 5000);
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
				add_rec(OSW_GAP, cpu, s, e, 0, 0, 0);
				t = e + 20000;
			}
			uint64_t end = base + 900000;
			add_rec(OSW_PERIOD_END, cpu, end, end, end - base, 7, 2100);
			/* between periods: the workload sleeps */
			ev_sw(cpu, end + 10, wl, "osnoise/x", 0, "swapper");
			ev_sw(cpu, end + 90000, 0, "swapper", wl, "osnoise/x");
		}
	}
	qsort(items, nr_items, sizeof(items[0]), cmp_item);
}

static void apply(struct noise *n, const struct item *it, bool *active)
{
	if (!it->is_rec) {
		noise_event(n, &it->e);
		return;
	}
	const struct osw_rec *r = &it->r;
	switch (r->type) {
	case OSW_TID:
		noise_set_workload(n, r->cpu, (int32_t)r->v[0]);
		break;
	case OSW_PERIOD_BEGIN:
		noise_period_begin(n, r->cpu, r->t1_ns);
		active[r->cpu] = true;
		break;
	case OSW_GAP:
		if (active[r->cpu])
			noise_gap(n, r->cpu, r->t0_ns, r->t1_ns);
		break;
	case OSW_PERIOD_END:
		noise_sub(n, r->cpu, r->v[1], r->v[2]);
		noise_period_end(n, r->cpu, r->t1_ns, r->v[0]);
		active[r->cpu] = false;
		break;
	}
}

/* ---- raw tracepoint payloads from the formats ---------------------------- */

static struct tep_handle *enc_tep;

static struct tep_event *find_ev(const char *sys, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(enc_tep, sys, name);
	assert_non_null(e);
	return e;
}

static void put_num(struct tep_event *e, uint8_t *buf, const char *field, uint64_t v)
{
	struct tep_format_field *f = tep_find_any_field(e, field);
	assert_non_null(f);
	switch (f->size) {
	case 1: buf[f->offset] = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(buf + f->offset, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(buf + f->offset, &x, 4); break; }
	case 8: memcpy(buf + f->offset, &v, 8); break;
	default: fail();
	}
}

static void put_str(struct tep_event *e, uint8_t *buf, const char *field, const char *s)
{
	struct tep_format_field *f = tep_find_any_field(e, field);
	assert_non_null(f);
	size_t n = strlen(s);
	assert_true(n < (size_t)f->size);
	memcpy(buf + f->offset, s, n);
}

/* Builds the payload of e; returns its size. */
static size_t encode(const struct tpe *t, uint8_t *buf, int *id)
{
	struct tep_event *e = NULL;
	size_t size = 0;
	memset(buf, 0, 256);
	switch (t->kind) {
	case TPE_SCHED_SWITCH:
		e = find_ev("sched", "sched_switch");
		put_str(e, buf, "prev_comm", t->sw.prev_comm);
		put_num(e, buf, "prev_pid", (uint64_t)t->sw.prev_pid);
		put_num(e, buf, "prev_prio", (uint64_t)t->sw.prev_prio);
		put_num(e, buf, "prev_state", 0);
		put_str(e, buf, "next_comm", t->sw.next_comm);
		put_num(e, buf, "next_pid", (uint64_t)t->sw.next_pid);
		put_num(e, buf, "next_prio", (uint64_t)t->sw.next_prio);
		break;
	case TPE_IRQ_ENTRY: {
		e = find_ev("irq", "irq_handler_entry");
		put_num(e, buf, "irq", (uint64_t)t->irq.irq);
		struct tep_format_field *f = tep_find_field(e, "name");
		assert_non_null(f);
		size_t end = 0;
		for (struct tep_format_field *g = e->format.common_fields; g; g = g->next)
			if ((size_t)(g->offset + g->size) > end)
				end = (size_t)(g->offset + g->size);
		for (struct tep_format_field *g = e->format.fields; g; g = g->next)
			if ((size_t)(g->offset + g->size) > end)
				end = (size_t)(g->offset + g->size);
		size_t n = strlen(t->irq.name) + 1;
		uint32_t loc = (uint32_t)end | (uint32_t)n << 16;
		memcpy(buf + f->offset, &loc, 4);
		memcpy(buf + end, t->irq.name, n);
		size = end + n;
		break;
	}
	case TPE_IRQ_EXIT:
		e = find_ev("irq", "irq_handler_exit");
		put_num(e, buf, "irq", (uint64_t)t->irq.irq);
		put_num(e, buf, "ret", 1);
		break;
	case TPE_SOFTIRQ_ENTRY:
	case TPE_SOFTIRQ_EXIT:
		e = find_ev("irq", t->kind == TPE_SOFTIRQ_ENTRY ? "softirq_entry" : "softirq_exit");
		put_num(e, buf, "vec", t->softirq.vec);
		break;
	case TPE_VECTOR_ENTRY:
	case TPE_VECTOR_EXIT:
		e = find_ev("irq_vectors", t->kind == TPE_VECTOR_ENTRY ? "local_timer_entry"
								   : "local_timer_exit");
		put_num(e, buf, "vector", (uint64_t)t->vector.vector);
		break;
	case TPE_NMI:
		e = find_ev("nmi", "nmi_handler");
		put_num(e, buf, "handler", 0xffffffff81000000ULL);
		put_num(e, buf, "delta_ns", (uint64_t)t->nmi.delta_ns);
		put_num(e, buf, "handled", 1);
		break;
	default:
		fail();
	}
	put_num(e, buf, "common_type", (uint64_t)e->id);
	put_num(e, buf, "common_pid", (uint64_t)t->pid);
	if (!size) {
		for (struct tep_format_field *g = e->format.fields; g; g = g->next)
			if ((size_t)(g->offset + g->size) > size)
				size = (size_t)(g->offset + g->size);
	}
	*id = e->id;
	return size;
}

static void compare(struct noise *a, struct noise *b)
{
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		const struct noise_stats *x = noise_cpu_stats(a, cpu), *y = noise_cpu_stats(b, cpu);
		assert_memory_equal(x, y, sizeof(*x));
		const struct noise_contrib *cx, *cy;
		size_t nx = noise_contribs(a, cpu, &cx), ny = noise_contribs(b, cpu, &cy);
		assert_int_equal(nx, ny);
		for (size_t i = 0; i < nx; i++) {
			bool found = false;
			for (size_t j = 0; j < ny; j++)
				if (cx[i].cls == cy[j].cls && cx[i].id == cy[j].id &&
				    !strcmp(cx[i].name, cy[j].name)) {
					assert_int_equal(cx[i].count, cy[j].count);
					assert_int_equal(cx[i].total_ns, cy[j].total_ns);
					assert_int_equal(cx[i].max_ns, cy[j].max_ns);
					found = true;
				}
			assert_true(found);
		}
	}
}

static void test_replay_equals_live(void **state)
{
	(void)state;
	generate();
	assert_true(nr_items > 200);

	/* live */
	struct noise *live;
	bool active[2] = { false, false };
	assert_int_equal(noise_new(&live, 2, NULL, NULL), 0);
	for (size_t i = 0; i < nr_items; i++)
		apply(live, &items[i], active);
	const struct noise_stats *ls = noise_cpu_stats(live, 0);
	assert_int_equal(ls->periods, 3);
	assert_true(ls->gaps > 0 && ls->hw_count > 0 && ls->sub_count > 0);
	assert_true(ls->count[NOISE_NMI] > 0 && ls->count[NOISE_SOFTIRQ] > 0 && ls->count[NOISE_THREAD] > 0);

	/* the recording */
	const char *specs[] = { "sched:sched_switch", "irq:irq_handler_entry", "irq:irq_handler_exit",
				"irq:softirq_entry", "irq:softirq_exit", "irq_vectors:local_timer_entry",
				"irq_vectors:local_timer_exit", "nmi:nmi_handler" };
	size_t nspec = sizeof(specs) / sizeof(specs[0]);
	struct tfs_formats *f;
	assert_int_equal(tfs_collect(FORMATS_DIR, specs, nspec, &f), 0);
	enc_tep = tep_alloc();
	assert_non_null(enc_tep);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_int_equal(tep_parse_event(enc_tep, f->events[i].format, strlen(f->events[i].format),
						 f->events[i].system), 0);
	char path[] = "/tmp/latscope-osnreplay.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct pdw *w;
	struct pdw_opts o = { .big_endian = false };
	assert_int_equal(pdw_open_fd(&w, fd, false, &o), 0);
	int evsel_of_id[4096];
	for (size_t i = 0; i < f->nr_events; i++) {
		struct pdf_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PDF_TYPE_TRACEPOINT;
		a.config = f->events[i].id;
		a.sample_period = 1;
		a.sample_type = PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU |
				PDF_SAMPLE_RAW;
		a.flags = 1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL;
		uint64_t id = 100 + i;
		char name[96];
		snprintf(name, sizeof(name), "%s:%s", f->events[i].system, f->events[i].name);
		int idx = pdw_add_evsel(w, &a, name, &id, 1);
		assert_true(idx >= 0);
		assert_true(f->events[i].id < 4096);
		evsel_of_id[f->events[i].id] = idx;
	}
	struct pdf_attr wa;
	memset(&wa, 0, sizeof(wa));
	wa.type = PDF_TYPE_SOFTWARE;
	wa.config = 9;
	wa.sample_period = 1;
	wa.sample_type = PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU |
			 PDF_SAMPLE_RAW;
	wa.flags = 1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL;
	uint64_t wid = 1ULL << 62;
	int wev = pdw_add_evsel(w, &wa, OSW_EVSEL_NAME, &wid, 1);
	assert_true(wev >= 0);
	void *blob;
	size_t blen;
	assert_int_equal(tfs_tracing_data(f, false, &blob, &blen), 0);
	assert_int_equal(pdw_set_tracing_data(w, blob, blen), 0);
	free(blob);
	assert_int_equal(pdw_begin_data(w), 0);
	for (size_t i = 0; i < nr_items; i++) {
		struct pdr_sample s;
		memset(&s, 0, sizeof(s));
		uint8_t raw[256];
		if (items[i].is_rec) {
			osw_rec_encode(&items[i].r, raw);
			s.id = wid;
			s.time = items[i].r.t1_ns;
			s.cpu = items[i].r.cpu;
			s.raw = raw;
			s.raw_size = OSW_REC_RAW_SIZE;
			assert_int_equal(pdw_write_sample(w, wev, PDF_MISC_USER, &s), 0);
		} else {
			int id;
			size_t n = encode(&items[i].e, raw, &id);
			int idx = evsel_of_id[id];
			s.id = 100 + (uint64_t)idx;
			s.time = items[i].e.time_ns;
			s.cpu = items[i].e.cpu;
			s.pid = s.tid = 1;
			s.raw = raw;
			s.raw_size = (uint32_t)n;
			assert_int_equal(pdw_write_sample(w, idx, PDF_MISC_KERNEL, &s), 0);
		}
		if (i % 64 == 63)
			pdw_finished_round(w);
	}
	assert_int_equal(pdw_close(w), 0);
	close(fd);
	tep_free(enc_tep);
	tfs_free(f);

	/* replay */
	struct pdr *r;
	assert_int_equal(pdr_open(&r, path, NULL), 0);
	struct tpd *d = tpd_new(pdr_tep(r));
	assert_non_null(d);
	struct noise *rep;
	assert_int_equal(noise_new(&rep, 2, NULL, NULL), 0);
	active[0] = active[1] = false;
	struct pdr_event pe;
	size_t n = 0;
	int err;
	while ((err = pdr_next(r, &pe)) > 0) {
		if (pe.type != PDF_RECORD_SAMPLE || !pe.evsel || !pe.has_sample)
			continue;
		struct item it;
		memset(&it, 0, sizeof(it));
		if (pe.evsel->name && !strcmp(pe.evsel->name, OSW_EVSEL_NAME)) {
			it.is_rec = true;
			assert_int_equal(osw_rec_decode(pe.sample.raw, pe.sample.raw_size, &it.r), 0);
		} else {
			assert_int_equal(tpd_decode(d, (int)pe.evsel->attr.config, pe.sample.raw,
						    pe.sample.raw_size, &it.e), 0);
			it.e.time_ns = pe.sample.time;
			it.e.cpu = pe.sample.cpu;
			it.e.pid = (int32_t)pe.sample.pid;
			it.e.tid = (int32_t)pe.sample.tid;
		}
		apply(rep, &it, active);
		n++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(n, nr_items);
	compare(live, rep);
	tpd_free(d);
	pdr_close(r);
	unlink(path);
	noise_free(rep);
	noise_free(live);
}

static void test_rec_codec(void **state)
{
	(void)state;
	struct osw_rec a = { .type = OSW_GAP, .cpu = 3, .t0_ns = 1, .t1_ns = 0x1122334455667788ULL,
			     .v = { 1, 2, 3, 4, 5 } }, b;
	uint8_t raw[OSW_REC_RAW_SIZE];
	osw_rec_encode(&a, raw);
	assert_int_equal(raw[0], OSW_REC_VERSION);	/* little-endian */
	assert_int_equal(raw[24], 0x88);
	assert_int_equal(osw_rec_decode(raw, sizeof(raw), &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(osw_rec_decode(raw, sizeof(raw) - 1, &b), -EINVAL);
	raw[0] = 2;
	assert_int_equal(osw_rec_decode(raw, sizeof(raw), &b), -EINVAL);
	raw[0] = 1;
	raw[13] = 0xff;	/* cpu out of range */
	assert_int_equal(osw_rec_decode(raw, sizeof(raw), &b), -EINVAL);
	assert_int_equal(osw_rec_decode(NULL, 0, &b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_codec),
		cmocka_unit_test(test_replay_equals_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
