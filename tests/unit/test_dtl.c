/* SPDX-License-Identifier: MIT */
/* test_dtl.c - unit tests of the DTL entry decoder (lib/format/dtl.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "format/dtl.h"

/* The documentation's example (vpa-dtl.rst): 1680 bytes = header + 34 entries. */
#define DOC_BOOT_TB	21349649546353231ULL
#define DOC_TB_FREQ	512000000ULL

static void test_layout_be_fields(void **state)
{
	(void)state;
	/* +1: deliberately misaligned */
	uint8_t buf[DTL_ENTRY_SIZE + 1], *p = buf + 1;
	static const uint8_t raw[DTL_ENTRY_SIZE] = {
		3, 2, 0x01, 0x02,			/* reasons, processor_id 0x0102 */
		0x00, 0x00, 0x1b, 0x98,			/* 7064 */
		0x00, 0x00, 0x00, 0xbb,			/* 187 */
		0x00, 0x64, 0xe3, 0x3d,			/* 6611773 */
		0x00, 0x4c, 0x0a, 0x6d, 0x5f, 0x6c, 0x6b, 0xe0, /* timebase */
		0xc0, 0, 0, 0, 0, 0, 0x12, 0x34,	/* fault_addr */
		0xc0, 0, 0, 0, 0, 0x0f, 0x80, 0x94,	/* srr0 */
		0x80, 0, 0, 0, 0, 0, 0x10, 0x33,	/* srr1 */
	};
	struct dtl_entry e, e2;
	uint8_t back[DTL_ENTRY_SIZE];

	memcpy(p, raw, sizeof(raw));
	dtl_decode(p, &e);
	assert_int_equal(e.dispatch_reason, 3);
	assert_int_equal(e.preempt_reason, 2);
	assert_int_equal(e.processor_id, 0x0102);
	assert_int_equal(e.enqueue_to_dispatch_tb, 7064);
	assert_int_equal(e.ready_to_enqueue_tb, 187);
	assert_int_equal(e.waiting_to_ready_tb, 6611773);
	assert_true(e.timebase == 0x004c0a6d5f6c6be0ULL);
	assert_true(e.fault_addr == 0xc000000000001234ULL);
	assert_true(e.srr0 == 0xc0000000000f8094ULL);
	assert_true(e.srr1 == 0x8000000000001033ULL);
	dtl_encode(&e, back);
	assert_memory_equal(back, raw, sizeof(raw));
	dtl_decode(back, &e2);
	assert_memory_equal(&e, &e2, sizeof(e));
	assert_false(dtl_raw_is_header(raw));
	assert_false(dtl_raw_is_skipped(raw));
}

static void test_reason_names(void **state)
{
	(void)state;
	char buf[DTL_REASON_BUFSZ];

	assert_string_equal(dtl_dispatch_reason_str(3, buf), "decrementer_interrupt");
	assert_string_equal(dtl_dispatch_reason_str(10, buf), "priv_doorbell");
	assert_string_equal(dtl_dispatch_reason_str(5, buf), "firmware_internal_event");
	assert_null(dtl_dispatch_reason_name(11));
	assert_string_equal(dtl_dispatch_reason_str(11, buf), "unknown(11)");
	assert_string_equal(dtl_dispatch_reason_str(255, buf), "unknown(255)");
	assert_string_equal(dtl_preempt_reason_str(2, buf), "H_CEDE");
	assert_string_equal(dtl_preempt_reason_str(9, buf), "HDEC_adjunct");
	assert_null(dtl_preempt_reason_name(10));
	assert_string_equal(dtl_preempt_reason_str(10, buf), "unknown(10)");
	assert_int_equal(dtl_preempt_reason_code("H_CEDE"), 2);
	assert_int_equal(dtl_dispatch_reason_code("unknown(200)"), 200);
	assert_int_equal(dtl_dispatch_reason_code("nonsense"), -ENOENT);
}

static void test_header_file_order(void **state)
{
	(void)state;
	uint8_t h[DTL_ENTRY_SIZE];
	struct dtl_tbinfo in = { DOC_BOOT_TB, DOC_TB_FREQ }, out;

	/* same order as the host */
	dtl_header_write(h, &in, false);
	assert_true(dtl_raw_is_header(h));
	assert_true(dtl_raw_is_skipped(h));
	dtl_header_read(h, false, &out);
	assert_true(out.boot_tb == DOC_BOOT_TB && out.tb_freq == DOC_TB_FREQ);
	/* a cross-endian file: written swapped, must be read swapped */
	dtl_header_write(h, &in, true);
	dtl_header_read(h, true, &out);
	assert_true(out.boot_tb == DOC_BOOT_TB && out.tb_freq == DOC_TB_FREQ);
	/* read natively (perf's mistake) it is garbage */
	dtl_header_read(h, false, &out);
	assert_true(out.tb_freq != DOC_TB_FREQ);
	/* padding bytes are ignored: fill them with garbage */
	dtl_header_write(h, &in, false);
	memset(h + 24, 0xa5, 24);
	dtl_header_read(h, false, &out);
	assert_true(out.boot_tb == DOC_BOOT_TB && out.tb_freq == DOC_TB_FREQ);
}

static void test_time_conversion(void **state)
{
	(void)state;
	struct dtl_tbinfo tb = { DOC_BOOT_TB, DOC_TB_FREQ };
	/* perf script in the docs prints 105373.359913 for this timebase */
	uint64_t ns = dtl_tb_to_ns(21403600706628832ULL, &tb);
	assert_true(ns / 1000 == 105373359913ULL);
	/* the same formula written out */
	uint64_t want = (uint64_t)(((double)(21403600706628832ULL - DOC_BOOT_TB) /
				     (double)DOC_TB_FREQ) * 1e9);
	assert_true(ns == want);
	/* exact integer form: within 1 us of the double, and exact for small values */
	uint64_t ex = dtl_tb_to_ns_exact(21403600706628832ULL, &tb);
	assert_true(ex - ns + 1000 <= 2000);
	assert_true(dtl_tb_to_ns_exact(DOC_BOOT_TB + 512, &tb) == 1000);
	assert_true(dtl_tb_to_ns(DOC_BOOT_TB + 512, &tb) == 1000);
	assert_true(dtl_tb_to_ns(0, &tb) == 0);
	/* timebase before boot_tb: unsigned wrap, saturates instead of UB */
	assert_true(dtl_tb_to_ns(DOC_BOOT_TB - 1, &tb) == UINT64_MAX);
	struct dtl_tbinfo zero = { 0, 0 };
	assert_true(dtl_tb_to_ns(1234, &zero) == 0);
	assert_true(dtl_ticks_to_ns(512, DOC_TB_FREQ) == 1000);
	assert_true(dtl_ticks_to_ns(7064, DOC_TB_FREQ) == 13796);
	/* exact vs double over many values: never more than 1 ns apart at small scale */
	for (uint64_t d = 1; d < 200000; d += 7) {
		struct dtl_tbinfo t = { 1000, DOC_TB_FREQ };
		uint64_t a = dtl_tb_to_ns(1000 + d, &t), b = dtl_tb_to_ns_exact(1000 + d, &t);
		assert_true(a + 1 >= b && b + 1 >= a);
	}
}

struct collect {
	int n;
	struct dtl_entry e[64];
	uint64_t off[64];
};

static int collect_fn(void *ctx, const struct dtl_entry *e, uint64_t off)
{
	struct collect *c = ctx;
	if (c->n < 64) {
		c->e[c->n] = *e;
		c->off[c->n] = off;
	}
	c->n++;
	return 0;
}

static void build_doc_payload(uint8_t *buf, bool swap)
{
	struct dtl_tbinfo tb = { DOC_BOOT_TB, DOC_TB_FREQ };
	dtl_header_write(buf, &tb, swap);
	memset(buf + 24, 0x5a, 24);		/* uninitialised padding */
	for (int i = 1; i < 35; i++) {
		struct dtl_entry e = {
			.dispatch_reason = 3, .preempt_reason = 2,
			.processor_id = (uint16_t)(i % 4),
			.enqueue_to_dispatch_tb = 7064, .ready_to_enqueue_tb = 187,
			.waiting_to_ready_tb = 6611773,
			.timebase = 21403600706628832ULL + (uint64_t)i * 512000,
			.srr0 = 0xc0000000000f8094ULL,
		};
		dtl_encode(&e, buf + i * DTL_ENTRY_SIZE);
	}
}

static void test_doc_example_scan(void **state)
{
	(void)state;
	uint8_t buf[1680 + 8];
	struct collect c = { 0 };
	struct dtl_scan_stats st = { 0 };
	struct dtl_tbinfo tbi = { 0, 0 };

	for (int swap = 0; swap < 2; swap++) {
		memset(&c, 0, sizeof(c));
		memset(&st, 0, sizeof(st));
		memset(&tbi, 0, sizeof(tbi));
		build_doc_payload(buf, swap);
		assert_int_equal(dtl_payload_slots(1680, NULL), 35);
		assert_int_equal(dtl_scan_payload(0, buf, 1680, swap, &tbi, &st, collect_fn, &c), 0);
		assert_true(tbi.boot_tb == DOC_BOOT_TB);
		assert_true(tbi.tb_freq == DOC_TB_FREQ);
		assert_int_equal(st.slots, 35);
		assert_int_equal(st.headers, 1);
		assert_int_equal(st.entries, 34);
		assert_int_equal(c.n, 34);
		assert_int_equal(c.off[0], 0x30);
		assert_int_equal(c.e[0].enqueue_to_dispatch_tb, 7064);
		assert_int_equal(c.e[0].ready_to_enqueue_tb, 187);
		assert_int_equal(c.e[0].waiting_to_ready_tb, 6611773);
		assert_true(dtl_tb_to_ns(c.e[0].timebase, &tbi) / 1000 == 105373359913ULL + 1000);
	}
}

static void test_odd_payload_and_skips(void **state)
{
	(void)state;
	uint8_t buf[48 * 4 + 20];
	struct collect c = { 0 };
	struct dtl_scan_stats st = { 0 };
	struct dtl_tbinfo tbi = { 0, 0 };
	struct dtl_entry e = { .dispatch_reason = 200, .preempt_reason = 77, .timebase = 5 };

	memset(buf, 0, sizeof(buf));
	dtl_encode(&e, buf);			/* out-of-range reasons */
	/* slot 1 all zero: skipped, not a header */
	e.timebase = 0x8000000000000000ULL;	/* negative as signed: skipped like perf */
	dtl_encode(&e, buf + 96);
	e.timebase = 9;
	dtl_encode(&e, buf + 144);
	assert_int_equal(dtl_scan_payload(0, buf, sizeof(buf), false, &tbi, &st, collect_fn, &c), 0);
	assert_int_equal(st.slots, 4);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.headers, 0);
	assert_int_equal(st.odd_payloads, 1);
	assert_int_equal(st.tail_bytes, 20);
	assert_int_equal(st.bad_reasons, 2);
	assert_false(dtl_tbinfo_valid(&tbi));
	assert_int_equal(c.off[1], 144);
	/* shorter than one slot: nothing, counted */
	assert_int_equal(dtl_scan_payload(0, buf, 47, false, &tbi, &st, collect_fn, &c), 0);
	assert_int_equal(st.odd_payloads, 2);
	assert_int_equal(st.tail_bytes, 67);
}

/*
 * The vpa_dtl driver's copy into an AUX buffer of aux bytes, as its source
 * does it (docs/dtl.md, "The AUX buffer wrap"), for n_polls polls of
 * per_poll[i] entries (entry k has timebase k + 1): returns the stream the
 * perf core hands out (bytes [0, *stream_len) of the CPU's AUX stream, what
 * a reader copies out at each commit) and the timebases that reached it in
 * *reached (their number in *n_reached).  Test model, written from the
 * driver's description, independent of the slicer.
 */
struct drv {
	uint64_t aux;			/* buffer bytes */
	uint8_t *buf;			/* the AUX buffer */
	uint64_t threshold, head, head_size;
	bool header_done;
	uint64_t core;			/* the core's aux_head */
	uint8_t *stream;
	uint64_t stream_len;
	uint64_t next_tb;
	uint64_t ends[8192];		/* where each commit ended: a reader's */
	size_t nends;			/* payload ends at one of them */
};

static void drv_commit(struct drv *d, uint64_t size)
{
	for (uint64_t i = 0; i < size; i++)
		d->stream[d->stream_len++] = d->buf[(d->core + i) % d->aux];
	d->core += size;
	if (size && d->nends < 8192)
		d->ends[d->nends++] = d->stream_len;
}

static void drv_poll(struct drv *d, uint64_t n)
{
	uint64_t copied = 0;
	bool full = false;

	if (!d->header_done) {
		struct dtl_tbinfo tb = { 1, DTL_DEFAULT_TB_FREQ };
		dtl_header_write(d->buf, &tb, false);
		d->head = 1;
		copied = 1;
		d->header_done = true;
	}
	if (d->head + n >= d->threshold) {	/* the copy that fills the buffer */
		n = d->threshold - d->head;
		full = true;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct dtl_entry e = { .dispatch_reason = 3, .timebase = d->next_tb++ };
		dtl_encode(&e, d->buf + (d->head + i) * DTL_ENTRY_SIZE);
	}
	copied += n;
	d->head = full ? 0 : d->head + n;
	uint64_t size = copied * DTL_ENTRY_SIZE;
	if (size + d->head_size > d->aux) {
		/* the commit that reaches the end: the rest of the buffer, and the
		 * driver starts again at 0 over what this poll copied */
		size = d->aux - d->head_size;
		d->head_size = 0;
		d->head = 0;
	} else {
		d->head_size += size;
	}
	drv_commit(d, size);
}

struct slice_out {
	uint64_t tb[16384];
	size_t n;
	uint64_t bad;			/* slots neither entry nor header */
};

static void take_runs(struct dtl_slicer *sl, struct slice_out *o)
{
	const uint8_t *p;
	uint64_t at;
	size_t n;

	while ((n = dtl_slicer_next(sl, &p, &at)) > 0)
		for (size_t i = 0; i < n; i++, p += DTL_ENTRY_SIZE) {
			uint64_t tb = bytes_ld64_be(p + 16);
			if (tb == 0 && dtl_raw_is_header(p) && bytes_ld64(p + 8, false) == DTL_DEFAULT_TB_FREQ)
				continue;
			if (tb == 0 || p[0] != 3) {
				o->bad++;
				continue;
			}
			if (o->n < 16384)
				o->tb[o->n++] = tb;
		}
}

static void slice_case(uint64_t aux, unsigned seed)
{
	static struct drv d;
	memset(&d, 0, sizeof(d));
	d.aux = aux;
	d.threshold = (aux - 32) / DTL_ENTRY_SIZE;
	d.next_tb = 1;
	static struct slice_out o;

	memset(&o, 0, sizeof(o));
	struct dtl_slicer sl;
	uint64_t lap_gap = aux - d.threshold * DTL_ENTRY_SIZE;

	d.buf = calloc(1, aux);
	d.stream = calloc(1, 1 << 20);
	assert_non_null(d.buf);
	assert_non_null(d.stream);
	srand(seed);
	/* polls of 0..84 entries until the stream has 3.5 laps */
	while (d.stream_len < aux * 7 / 2)
		drv_poll(&d, (uint64_t)(rand() % 85));
	dtl_slicer_init(&sl);
	/* a reader's payloads: from one commit's end to a later one's (1 to 40
	 * commits), each fed in random chunks */
	for (size_t e = 0; e < d.nends;) {
		uint64_t pos = e ? d.ends[e - 1] : 0;
		e += 1 + (size_t)rand() % 40;
		if (e > d.nends)
			e = d.nends;
		uint64_t plen = d.ends[e - 1] - pos;
		for (uint64_t c = 0; c < plen;) {
			uint64_t clen = 1 + (uint64_t)rand() % 700;
			if (c + clen > plen)
				clen = plen - c;
			dtl_slicer_feed(&sl, pos + c, d.stream + pos + c, clen, c + clen == plen);
			take_runs(&sl, &o);
			c += clen;
		}
	}
	/* every entry whose bytes are in the stream, once, in order, nothing
	 * else (only an entry's first byte is 3: the model's entries have
	 * dispatch reason 3 and no other byte of 3) */
	size_t want = 0;
	assert_int_equal(o.bad, 0);
	for (uint64_t off = 0; off + DTL_ENTRY_SIZE <= d.stream_len; off += 16) {
		uint64_t tb = bytes_ld64_be(d.stream + off + 16);
		if (d.stream[off] != 3 || !tb || tb >= d.next_tb)
			continue;
		assert_true(want < o.n);
		assert_true(o.tb[want] == tb);
		want++;
	}
	assert_int_equal(want, o.n);
	assert_true(o.n > 2 * d.threshold);	/* the stream has entries of 3 laps */
	for (size_t i = 1; i < o.n; i++)
		assert_true(o.tb[i] > o.tb[i - 1]);
	assert_int_equal(sl.st.wrap_gaps, d.stream_len / aux);
	assert_int_equal(sl.st.gap_bytes, (d.stream_len / aux) * lap_gap);
	assert_int_equal(sl.st.cut_bytes, 0);
	free(d.buf);
	free(d.stream);
}

/* The slicer against the driver's layout: 4K and 16K buffers end each lap
 * with 64 unwritten bytes, 8K and 128K with 32; payloads cut anywhere the
 * commits allow, fed in chunks. */
static void test_slicer_wrap(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 4096, 8192, 16384, 131072 };
	for (unsigned i = 0; i < 4; i++)
		for (unsigned seed = 1; seed <= 5; seed++)
			slice_case(sizes[i], seed);
}

/* What a reader that steps 48 bytes from a payload's start gets wrong: a
 * payload across a lap's end (entries, 32 zero bytes, entries). */
/* holes of a CPU's AUX stream (bytes the reader never copied): a piece that
 * starts past the stream so far, from offset 0 for a whole stream; the
 * entries after a hole decode as ever */
static void test_slicer_holes(void **state)
{
	(void)state;
	uint8_t buf[3 * 48];
	struct dtl_entry e = { .dispatch_reason = 3 };
	struct dtl_slicer sl;
	const uint8_t *run;
	uint64_t at;
	size_t n, got = 0;

	for (int i = 0; i < 3; i++) {
		e.timebase = 100 + i;
		dtl_encode(&e, buf + 48 * i);
	}
	dtl_slicer_init_stream(&sl);
	dtl_slicer_feed(&sl, 480, buf, sizeof(buf), true);	/* overrun before the first read */
	while ((n = dtl_slicer_next(&sl, &run, &at)) > 0)
		got += n;
	assert_int_equal(sl.st.holes, 1);
	assert_int_equal(sl.st.hole_bytes, 480);
	dtl_slicer_feed(&sl, 480 + 144, buf, sizeof(buf), true);	/* continues: no hole */
	while ((n = dtl_slicer_next(&sl, &run, &at)) > 0)
		got += n;
	assert_int_equal(sl.st.holes, 1);
	dtl_slicer_feed(&sl, 480 + 288 + 960, buf, 96, true);	/* 960 bytes skipped */
	while ((n = dtl_slicer_next(&sl, &run, &at)) > 0) {
		assert_int_equal(at, 480 + 288 + 960);
		got += n;
	}
	assert_int_equal(sl.st.holes, 2);
	assert_int_equal(sl.st.hole_bytes, 480 + 960);
	assert_int_equal(got, 3 + 3 + 2);
	/* a single payload's slicer knows no stream: no hole at its start */
	dtl_slicer_init(&sl);
	dtl_slicer_feed(&sl, 480, buf, sizeof(buf), true);
	while (dtl_slicer_next(&sl, &run, &at) > 0)
		;
	assert_int_equal(sl.st.holes, 0);
}

static void test_slicer_gap_in_payload(void **state)
{
	(void)state;
	uint8_t buf[2 * 48 + 32 + 2 * 48];
	struct dtl_scan_stats st = { 0 };
	struct dtl_entry e = { .dispatch_reason = 3 };
	struct collect c = { 0 };

	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 2; i++) {
		e.timebase = 100 + i;
		dtl_encode(&e, buf + 48 * i);
		e.timebase = 200 + i;
		dtl_encode(&e, buf + 96 + 32 + 48 * i);
	}
	/* the payload starts 96 + 32 bytes before a lap's end at 8192 */
	assert_int_equal(dtl_scan_payload(8192 - 128, buf, sizeof(buf), false, NULL, &st, collect_fn, &c), 0);
	assert_int_equal(st.entries, 4);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.wrap_gaps, 1);
	assert_int_equal(st.wrap_gap_bytes, 32);
	assert_int_equal(st.tail_bytes, 0);
	assert_true(c.e[2].timebase == 200 && c.e[3].timebase == 201);
	assert_int_equal(c.off[2], 128);
	/* the same bytes elsewhere in the stream are no lap's end: cut slots */
	memset(&st, 0, sizeof(st));
	c.n = 0;
	assert_int_equal(dtl_scan_payload(8192 - 256, buf, sizeof(buf), false, NULL, &st, collect_fn, &c), 0);
	assert_int_equal(st.wrap_gaps, 0);
	assert_int_equal(st.tail_bytes, 32);
	/* a zero slot 64 bytes before a lap's end, then an entry: no lap end
	 * (the entry is where the run's last 16 bytes would be) */
	uint8_t z[96];
	memset(z, 0, sizeof(z));
	e.timebase = 300;
	dtl_encode(&e, z + 48);
	memset(&st, 0, sizeof(st));
	c.n = 0;
	assert_int_equal(dtl_scan_payload(4096 - 64, z, sizeof(z), false, NULL, &st, collect_fn, &c), 0);
	assert_int_equal(st.wrap_gaps, 0);
	assert_int_equal(st.entries, 1);
	assert_true(c.e[0].timebase == 300);
	/* the same in two pieces: the zero slot alone looks like a lap's end
	 * until the next piece shows an entry where its zeros would go on */
	struct dtl_slicer sl;
	const uint8_t *run;
	uint64_t at;
	size_t n, got = 0;
	dtl_slicer_init(&sl);
	dtl_slicer_feed(&sl, 4096 - 64, z, 48, false);
	while ((n = dtl_slicer_next(&sl, &run, &at)) > 0)
		got += n;
	dtl_slicer_feed(&sl, 4096 - 16, z + 48, 48, true);
	while ((n = dtl_slicer_next(&sl, &run, &at)) > 0) {
		assert_int_equal(at, 4096 - 16);
		assert_true(bytes_ld64_be(run + 16) == 300);
		got += n;
	}
	assert_int_equal(got, 1);
	assert_int_equal(sl.st.wrap_gaps, 0);
}

static int stop_fn(void *ctx, const struct dtl_entry *e, uint64_t off)
{
	(void)e; (void)off;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_scan_stop(void **state)
{
	(void)state;
	uint8_t buf[48 * 3];
	struct dtl_entry e = { .timebase = 1 };
	int n = 0;

	for (int i = 0; i < 3; i++)
		dtl_encode(&e, buf + 48 * i);
	assert_int_equal(dtl_scan_payload(0, buf, sizeof(buf), false, NULL, NULL, stop_fn, &n), 42);
	assert_int_equal(n, 2);
}

/* The driver copies at most 84 entries per poll (plus the header on a CPU's
 * first): exactly that much means the 85-entry ring overflowed before it. */
static void test_poll_filled_ring(void **state)
{
	(void)state;
	assert_true(dtl_poll_filled_ring(84 * DTL_ENTRY_SIZE, false));
	assert_true(dtl_poll_filled_ring(84 * DTL_ENTRY_SIZE, true));
	assert_true(dtl_poll_filled_ring(85 * DTL_ENTRY_SIZE, true));
	assert_false(dtl_poll_filled_ring(85 * DTL_ENTRY_SIZE, false));
	assert_false(dtl_poll_filled_ring(83 * DTL_ENTRY_SIZE, false));
	assert_false(dtl_poll_filled_ring(84 * DTL_ENTRY_SIZE + 8, false));
	assert_false(dtl_poll_filled_ring(0, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_be_fields),
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_header_file_order),
		cmocka_unit_test(test_time_conversion),
		cmocka_unit_test(test_doc_example_scan),
		cmocka_unit_test(test_odd_payload_and_skips),
		cmocka_unit_test(test_scan_stop),
		cmocka_unit_test(test_poll_filled_ring),
		cmocka_unit_test(test_slicer_wrap),
		cmocka_unit_test(test_slicer_gap_in_payload),
		cmocka_unit_test(test_slicer_holes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
