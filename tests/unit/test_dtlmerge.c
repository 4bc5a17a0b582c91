/* SPDX-License-Identifier: MIT */
/* test_dtlmerge.c - unit tests of the DTL merge module on hand-built buffers. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/dtlmerge.h"
#include "format/pdformat.h"

#define BOOT_TB 1000000ULL
#define FREQ 512000000ULL
/* timebase for a time in us since boot_tb: 512 ticks per us */
#define TB_US(us) (BOOT_TB + (uint64_t)(us) * 512)

/* A fake "file" the pread callback reads from. */
static uint8_t file[4 << 20];
static size_t file_len;
static int pread_calls;

static int fake_pread(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	pread_calls++;
	if (off + len > file_len)
		return -ENODATA;
	memcpy(buf, file + off, len);
	return 0;
}

/* Append a payload (header optional, then entries at the given us times). */
static uint64_t put_payload(bool header, bool swap, const uint64_t *us, size_t n, uint8_t cpu_tag)
{
	uint64_t off = file_len;

	if (header) {
		struct dtl_tbinfo tb = { BOOT_TB, FREQ };
		dtl_header_write(file + file_len, &tb, swap);
		memset(file + file_len + 24, 0xee, 24);
		file_len += DTL_ENTRY_SIZE;
	}
	for (size_t i = 0; i < n; i++) {
		struct dtl_entry e = {
			.dispatch_reason = 7, .preempt_reason = 4,
			.processor_id = cpu_tag, .timebase = TB_US(us[i]),
			.enqueue_to_dispatch_tb = (uint32_t)i,
		};
		dtl_encode(&e, file + file_len);
		file_len += DTL_ENTRY_SIZE;
	}
	return off;
}

static struct dtlmerge *new_merge(bool pipe, bool swap)
{
	struct dtlmerge *m;
	struct dtlmerge_opts o = { .swap = swap };

	if (!pipe) {
		o.pread = fake_pread;
	}
	assert_int_equal(dtlmerge_new(&m, &o), 0);
	return m;
}

static void add(struct dtlmerge *m, bool pipe, uint32_t cpu, uint64_t aux_off, uint64_t foff, uint64_t size)
{
	struct dtlmerge_buf_info bi = { .size = size, .offset = aux_off, .cpu = cpu, .idx = cpu,
				    .payload_file_offset = foff };
	assert_int_equal(dtlmerge_add_buffer(m, &bi, pipe ? file + foff : NULL), 0);
}

/* Drive like the command: records at times rec_us[], collect the sequence. */
struct ev { char kind; uint32_t cpu; uint64_t us; };

static size_t run(struct dtlmerge *m, const uint64_t *rec_us, size_t nrec, struct ev *out, size_t max)
{
	size_t n = 0;
	struct dtlmerge_item it;

	for (size_t r = 0; r < nrec; r++) {
		uint64_t t = rec_us[r] * 1000;
		while (dtlmerge_next_before(m, t, &it) > 0) {
			assert_true(n < max);
			out[n++] = (struct ev){ 'd', it.cpu, it.time_ns / 1000 };
		}
		dtlmerge_note_time(m, t);
		assert_true(n < max);
		out[n++] = (struct ev){ 'r', 0, rec_us[r] };
	}
	while (dtlmerge_next(m, &it) > 0) {
		assert_true(n < max);
		out[n++] = (struct ev){ 'd', it.cpu, it.time_ns / 1000 };
	}
	return n;
}

static void check_sorted(const struct ev *ev, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		assert_true(ev[i - 1].us <= ev[i].us);
		/* ties: the record first */
		if (ev[i - 1].us == ev[i].us)
			assert_false(ev[i - 1].kind == 'd' && ev[i].kind == 'r');
	}
}

static void two_cpus(bool pipe, bool swap)
{
	static const uint64_t c0[] = { 10, 30, 50, 70 }, c1[] = { 20, 30, 40, 90, 95 };
	static const uint64_t rec[] = { 5, 30, 45, 60 };
	struct ev ev[32];
	struct dtlmerge *m;
	uint64_t f0, f1;
	size_t n;

	file_len = 0;
	f0 = put_payload(true, swap, c0, 4, 0);
	f1 = put_payload(true, swap, c1, 5, 1);
	m = new_merge(pipe, swap);
	add(m, pipe, 0, 0, f0, 5 * 48);
	add(m, pipe, 1, 0, f1, 6 * 48);
	n = run(m, rec, 4, ev, 32);
	assert_int_equal(n, 4 + 9);
	check_sorted(ev, n);
	/* record 30 comes before both DTL entries at 30 */
	assert_int_equal(ev[3].kind, 'r');
	assert_int_equal(ev[3].us, 30);
	assert_int_equal(ev[4].kind, 'd');
	assert_int_equal(ev[4].cpu, 0);	/* equal times: lower cpu first */
	assert_int_equal(ev[5].cpu, 1);
	/* entries after the last record (60) are flushed: 70, 90, 95 */
	assert_int_equal(ev[n - 1].us, 95);
	assert_int_equal(ev[n - 3].us, 70);
	assert_int_equal(dtlmerge_stats(m)->entries, 9);
	assert_int_equal(dtlmerge_stats(m)->headers, 2);
	assert_int_equal(dtlmerge_stats(m)->late, 0);
	assert_int_equal(dtlmerge_stats(m)->no_tbinfo, 0);
	dtlmerge_free(m);
}

static void test_file_mode(void **s) { (void)s; two_cpus(false, false); }
static void test_pipe_mode(void **s) { (void)s; two_cpus(true, false); }
static void test_cross_endian_header(void **s) { (void)s; two_cpus(false, true); two_cpus(true, true); }

/* A buffer consumed partly, then another buffer arrives for the same CPU. */
static void test_split_partial(void **state)
{
	(void)state;
	static const uint64_t a[] = { 10, 20, 30 }, b[] = { 40, 50 };
	struct dtlmerge_item it;
	struct dtlmerge *m;
	uint64_t fa, fb;

	for (int pipe = 0; pipe < 2; pipe++) {
		file_len = 0;
		fa = put_payload(true, false, a, 3, 0);
		fb = put_payload(false, false, b, 2, 0);
		m = new_merge(pipe, false);
		add(m, pipe, 3, 0, fa, 4 * 48);
		assert_int_equal(dtlmerge_next_before(m, 25000, &it), 1);
		assert_int_equal(it.time_ns, 10000);
		assert_int_equal(it.slot_off, 48);
		assert_int_equal(it.cpu, 3);
		assert_int_equal(dtlmerge_next_before(m, 25000, &it), 1);
		assert_int_equal(it.time_ns, 20000);
		assert_int_equal(dtlmerge_next_before(m, 25000, &it), 0);
		/* the split continuation: no header, time from the CPU's header */
		add(m, pipe, 3, 4 * 48, fb, 2 * 48);
		assert_int_equal(dtlmerge_next_before(m, 45000, &it), 1);
		assert_int_equal(it.time_ns, 30000);
		assert_int_equal(it.slot_off, 144);
		assert_int_equal(dtlmerge_next_before(m, 45000, &it), 1);
		assert_int_equal(it.time_ns, 40000);
		assert_int_equal(it.slot_off, 0);
		assert_int_equal(it.buf_offset, 4 * 48);
		assert_int_equal(it.e.enqueue_to_dispatch_tb, 0);
		assert_int_equal(dtlmerge_next(m, &it), 1);
		assert_int_equal(it.time_ns, 50000);
		assert_int_equal(dtlmerge_next(m, &it), 0);
		assert_int_equal(dtlmerge_stats(m)->gaps[DTLMERGE_GAP_OFFSET], 0);
		dtlmerge_free(m);
	}
}

static void test_gaps(void **state)
{
	(void)state;
	static const uint64_t a[] = { 10, 20 }, b[] = { 15, 30 };
	const struct dtlmerge_gap *g;
	struct dtlmerge_item it;
	struct dtlmerge *m;
	uint64_t fa, fb;
	size_t n;

	file_len = 0;
	fa = put_payload(true, false, a, 2, 0);
	fb = put_payload(false, false, b, 2, 0);
	memset(file + file_len, 0, 40);	/* 40 stray bytes after fb's entries */
	file_len += 40;
	m = new_merge(false, false);
	add(m, false, 0, 0, fa, 3 * 48);
	/* offset jumps (a hole of 96 bytes) and the size is not a multiple of 48 */
	add(m, false, 0, 3 * 48 + 96, fb, 2 * 48 + 40);
	dtlmerge_note_aux(m, 0, 12000, 0, 144, PDFORMAT_AUX_FLAG_TRUNCATED | PDFORMAT_AUX_FLAG_COLLISION);
	dtlmerge_note_aux(m, 1, 13000, 0, 144, PDFORMAT_AUX_FLAG_PARTIAL);
	dtlmerge_note_lost(m, 1, 14000, 7);
	n = 0;
	while (dtlmerge_next(m, &it) > 0)
		n++;
	assert_int_equal(n, 4);
	const struct dtlmerge_stats *st = dtlmerge_stats(m);
	assert_int_equal(st->gaps[DTLMERGE_GAP_OFFSET], 1);
	assert_int_equal(st->gaps[DTLMERGE_GAP_ODD_SIZE], 1);
	assert_int_equal(st->gaps[DTLMERGE_GAP_TB_BACKWARDS], 1);	/* 20 -> 15 */
	assert_int_equal(st->gaps[DTLMERGE_GAP_AUX_TRUNCATED], 1);
	assert_int_equal(st->gaps[DTLMERGE_GAP_AUX_COLLISION], 1);
	assert_int_equal(st->gaps[DTLMERGE_GAP_AUX_PARTIAL], 1);
	assert_int_equal(st->gaps[DTLMERGE_GAP_LOST], 1);
	assert_int_equal(st->lost_events, 7);
	size_t ng = dtlmerge_gaps(m, &g);
	assert_int_equal(ng, 7);
	/* buffer gaps are listed when the buffer's first entry comes out */
	const struct dtlmerge_gap *go = NULL, *gd = NULL;
	for (size_t i = 0; i < ng; i++) {
		if (g[i].kind == DTLMERGE_GAP_OFFSET)
			go = &g[i];
		if (g[i].kind == DTLMERGE_GAP_ODD_SIZE)
			gd = &g[i];
	}
	assert_non_null(go);
	assert_non_null(gd);
	assert_int_equal(go->a, 144);
	assert_int_equal(go->b, 240);
	assert_int_equal(go->cpu, 0);
	assert_int_equal(gd->b, 40);
	assert_string_equal(dtlmerge_gap_name(DTLMERGE_GAP_TB_BACKWARDS), "timebase_backwards");
	dtlmerge_free(m);
}

/* An entry that arrives after a newer record was delivered is flagged late. */
static void test_late(void **state)
{
	(void)state;
	static const uint64_t a[] = { 10 };
	struct dtlmerge_item it;
	struct dtlmerge *m;

	file_len = 0;
	put_payload(true, false, a, 1, 0);
	m = new_merge(true, false);
	dtlmerge_note_time(m, 50000);
	add(m, true, 0, 0, 0, 96);
	assert_int_equal(dtlmerge_next_before(m, 60000, &it), 1);
	assert_true(it.late);
	assert_int_equal(dtlmerge_stats(m)->late, 1);
	dtlmerge_free(m);
}

/* Without any header, entries still come out (default 512 MHz), counted. */
static void test_no_header_fallback(void **state)
{
	(void)state;
	static const uint64_t a[] = { 10, 20 };
	struct dtlmerge_item it;
	struct dtlmerge *m;
	struct dtlmerge_opts o = { .fallback = { BOOT_TB, FREQ } };

	file_len = 0;
	put_payload(false, false, a, 2, 0);
	m = new_merge(true, false);
	add(m, true, 0, 0, 0, 96);
	assert_int_equal(dtlmerge_next(m, &it), 1);
	assert_true(it.time_ns + 1 >= (TB_US(10) * 1000000000ULL) / FREQ);
	assert_true(it.time_ns <= (TB_US(10) * 1000000000ULL) / FREQ);
	assert_int_equal(dtlmerge_next(m, &it), 1);
	assert_int_equal(dtlmerge_stats(m)->no_tbinfo, 2);
	dtlmerge_free(m);
	/* with a fallback (debugfs: tb_freq from /proc/cpuinfo) */
	assert_int_equal(dtlmerge_new(&m, &o), 0);
	add(m, true, 0, 0, 0, 96);
	assert_int_equal(dtlmerge_next(m, &it), 1);
	assert_int_equal(it.time_ns, 10000);
	assert_int_equal(dtlmerge_stats(m)->no_tbinfo, 0);
	dtlmerge_free(m);
}

/* A buffer bigger than one chunk is read back in several preads, in order. */
static void test_big_buffer_chunks(void **state)
{
	(void)state;
	enum { N = 50000 };
	static uint64_t us[N];
	struct dtlmerge_item it;
	struct dtlmerge *m;
	uint64_t prev = 0, n = 0;

	for (int i = 0; i < N; i++)
		us[i] = 100 + (uint64_t)i;
	file_len = 0;
	put_payload(true, false, us, N, 0);
	m = new_merge(false, false);
	pread_calls = 0;
	add(m, false, 5, 0, 0, (uint64_t)(N + 1) * 48);
	while (dtlmerge_next(m, &it) > 0) {
		assert_true(it.time_ns >= prev);
		assert_int_equal(it.slot_off, (n + 1) * 48);
		prev = it.time_ns;
		n++;
	}
	assert_int_equal(n, N);
	assert_true(pread_calls >= 3);
	dtlmerge_free(m);
}

/* pipe mode budget: copies are counted and released once consumed */
static void test_pipe_budget(void **state)
{
	(void)state;
	static const uint64_t a[] = { 1, 2, 3 };
	struct dtlmerge_opts o = { .max_copy_bytes = 200 };
	struct dtlmerge_item it;
	struct dtlmerge *m;

	file_len = 0;
	put_payload(true, false, a, 3, 0);
	assert_int_equal(dtlmerge_new(&m, &o), 0);
	add(m, true, 0, 0, 0, 4 * 48);
	assert_false(dtlmerge_over_budget(m));
	add(m, true, 1, 0, 0, 4 * 48);
	assert_true(dtlmerge_over_budget(m));
	dtlmerge_note_forced(m);
	while (dtlmerge_over_budget(m) && dtlmerge_next(m, &it) > 0)
		;
	assert_false(dtlmerge_over_budget(m));
	assert_int_equal(dtlmerge_stats(m)->gaps[DTLMERGE_GAP_FORCED], 1);
	assert_int_equal(dtlmerge_stats(m)->copied_peak_bytes, 8 * 48);
	dtlmerge_free(m);
}

static void test_bad_cpu_and_pread_error(void **state)
{
	(void)state;
	struct dtlmerge *m = new_merge(false, false);
	struct dtlmerge_buf_info bi = { .size = 96, .cpu = DTLMERGE_MAX_CPUS };
	struct dtlmerge_item it;

	assert_int_equal(dtlmerge_add_buffer(m, &bi, NULL), -ERANGE);
	assert_int_equal(dtlmerge_stats(m)->dropped_buffers, 1);
	/* payload beyond the end of the "file" */
	bi.cpu = 0;
	bi.payload_file_offset = sizeof(file);
	assert_int_equal(dtlmerge_add_buffer(m, &bi, NULL), -ENODATA);
	assert_int_equal(dtlmerge_next(m, &it), 0);
	dtlmerge_free(m);
}


/* ---- source mode: buffers pulled on demand from an index-like list ---- */

struct srcbuf { uint32_t cpu; uint64_t foff, size, aux_off; };
static struct srcbuf srcv[600];
static size_t nsrc;
static int src_calls;

static int list_src(void *ctx, uint64_t pos, struct dtlmerge_buf_info *bi, uint64_t *at, uint64_t *next)
{
	(void)ctx;
	src_calls++;
	if (pos >= nsrc)
		return 0;
	*bi = (struct dtlmerge_buf_info){ .size = srcv[pos].size, .offset = srcv[pos].aux_off,
				      .cpu = srcv[pos].cpu, .idx = srcv[pos].cpu,
				      .payload_file_offset = srcv[pos].foff };
	*at = pos;
	*next = pos + 1;
	return 1;
}

/*
 * A hostile layout: CPU 1's 300 buffers come first, CPU 0's 200 after them,
 * then CPU 2's, each buffer two entries; times interleave across CPUs.  The
 * merge must deliver every entry in time order from the first call, with at
 * most DTLMERGE_SOURCE_LOOKAHEAD buffers queued per CPU (the detach path), and
 * read the source a bounded number of times.
 */
static void test_source_layouts(void **state)
{
	(void)state;
	uint64_t aux[3] = { 0, 0, 0 };
	file_len = 0;
	nsrc = 0;
	const uint32_t order[3] = { 1, 0, 2 };
	const size_t per[3] = { 300, 200, 100 };
	for (int k = 0; k < 3; k++) {
		uint32_t cpu = order[k];
		for (size_t b = 0; b < per[k]; b++) {
			/* entry times: buffer b of any CPU covers [10b, 10b+5] us, CPU offsets apart */
			uint64_t us[2] = { 10 * b + cpu + 1, 10 * b + cpu + 5 };
			bool header = b == 0;
			uint64_t off = put_payload(header, false, us, 2, (uint8_t)cpu);
			uint64_t size = (header ? 3 : 2) * DTL_ENTRY_SIZE;
			srcv[nsrc++] = (struct srcbuf){ cpu, off, size, aux[cpu] };
			aux[cpu] += size;
		}
	}
	struct dtlmerge *m = new_merge(false, false);
	uint32_t cpus[3] = { 0, 1, 2 };
	src_calls = 0;
	assert_int_equal(dtlmerge_set_source(m, list_src, NULL, 0, cpus, 3), 0);
	struct dtlmerge_item it;
	uint64_t last = 0, n = 0;
	int rc;
	while ((rc = dtlmerge_next(m, &it)) > 0) {
		assert_true(it.time_ns >= last);
		last = it.time_ns;
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 2 * (300 + 200 + 100));
	const struct dtlmerge_stats *st = dtlmerge_stats(m);
	assert_int_equal(st->entries, n);
	assert_int_equal(st->gaps[DTLMERGE_GAP_OFFSET], 0);
	assert_int_equal(st->dropped_buffers, 0);
	/* bounded re-walks: far less than one walk of the list per buffer */
	assert_true(src_calls < 20 * (int)nsrc);
	dtlmerge_free(m);

	/* an interleaved layout (every real recording) is walked about once */
	file_len = 0;
	nsrc = 0;
	aux[0] = aux[1] = aux[2] = 0;
	for (size_t b = 0; b < 200; b++)
		for (uint32_t cpu = 0; cpu < 3; cpu++) {
			uint64_t us[2] = { 10 * b + cpu + 1, 10 * b + cpu + 5 };
			uint64_t off = put_payload(b == 0, false, us, 2, (uint8_t)cpu);
			uint64_t size = (b == 0 ? 3 : 2) * DTL_ENTRY_SIZE;
			srcv[nsrc++] = (struct srcbuf){ cpu, off, size, aux[cpu] };
			aux[cpu] += size;
		}
	m = new_merge(false, false);
	src_calls = 0;
	assert_int_equal(dtlmerge_set_source(m, list_src, NULL, 0, cpus, 3), 0);
	n = 0;
	last = 0;
	while ((rc = dtlmerge_next(m, &it)) > 0) {
		assert_true(it.time_ns >= last);
		last = it.time_ns;
		n++;
	}
	assert_int_equal(n, 2 * 600);
	assert_true(src_calls <= (int)nsrc + 8);
	dtlmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_cross_endian_header),
		cmocka_unit_test(test_split_partial),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_no_header_fallback),
		cmocka_unit_test(test_big_buffer_chunks),
		cmocka_unit_test(test_pipe_budget),
		cmocka_unit_test(test_bad_cpu_and_pread_error),
		cmocka_unit_test(test_source_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
