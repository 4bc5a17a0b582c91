/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/live/perfring.c over a synthetic ring in plain memory (a control
 * page and a 256-byte data area): normal records, records and a header that
 * wrap the end, corrupt sizes (too small, too big, a head/tail gap larger
 * than the area), PERF_RECORD_LOST, an early stop and resume, a callback
 * error, an empty ring.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "live/perfring.h"

#define CTL 4096u
#define DATA 256u

struct fake {
	_Alignas(16) uint8_t mem[CTL + DATA];
	struct perfring r;
	uint8_t bounce[PERFRING_MAX_RECORD];
};

static struct perf_event_mmap_page *pg(struct fake *f)
{
	return (struct perf_event_mmap_page *)f->mem;
}

static struct fake *fake_new(uint64_t start)
{
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	pg(f)->data_head = pg(f)->data_tail = start;
	assert_int_equal(perfring_init(&f->r, f->mem, CTL, DATA, f->bounce), 0);
	return f;
}

static void fake_free(struct fake *f)
{
	perfring_fini(&f->r);
	free(f);
}

/* Write n bytes at ring position pos, wrapping. */
static void put(struct fake *f, uint64_t pos, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		f->mem[CTL + (pos + i) % DATA] = ((const uint8_t *)p)[i];
}

/* Append a record of `size` bytes at data_head: header, then bytes tag,
 * tag+1, ...; advance data_head by `size` (by 8 when size < 8). */
static void emit(struct fake *f, uint32_t type, uint16_t size, uint8_t tag)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	uint64_t head = pg(f)->data_head;
	put(f, head, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++) {
		uint8_t b = (uint8_t)(tag + i - sizeof(h));
		put(f, head + i, &b, 1);
	}
	pg(f)->data_head = head + (size >= sizeof(h) ? size : sizeof(h));
}

static void emit_lost(struct fake *f, uint64_t lost)
{
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .misc = 0, .size = 24 };
	uint64_t head = pg(f)->data_head, id = 99;
	put(f, head, &h, sizeof(h));
	put(f, head + 8, &id, 8);
	put(f, head + 16, &lost, 8);
	pg(f)->data_head = head + 24;
}

/* What the callback saw. */
struct seen {
	int n;
	uint32_t type[16];
	uint16_t size[16];
	int bad_body;			/* records whose body bytes were not tag, tag+1, ... */
	int stop_at;			/* return `ret` for record number stop_at (1-based), once */
	int ret;
	int calls;
};

static int on_rec(void *arg, const struct perf_event_header *h, const uint8_t *rec)
{
	struct seen *s = arg;
	struct perf_event_header rh;
	s->calls++;
	assert_true(s->calls < 64);		/* a walker that stops advancing fails here */
	memcpy(&rh, rec, sizeof(rh));
	assert_int_equal(rh.size, h->size);
	assert_int_equal(rh.type, h->type);
	if (s->stop_at && s->n + 1 == s->stop_at) {
		s->stop_at = 0;
		return s->ret;
	}
	if (h->type != PERF_RECORD_LOST)
		for (size_t i = sizeof(rh) + 1; i < h->size; i++)
			if ((uint8_t)(rec[i] - rec[i - 1]) != 1)
				s->bad_body++;
	s->type[s->n] = h->type;
	s->size[s->n++] = h->size;
	return 0;
}

static void test_normal(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit(f, PERF_RECORD_COMM, 24, 2);
	emit(f, PERF_RECORD_SAMPLE, 32, 3);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.size[0], 16);
	assert_int_equal(s.type[1], PERF_RECORD_COMM);
	assert_int_equal(s.size[2], 32);
	assert_int_equal(s.bad_body, 0);
	assert_int_equal(pg(f)->data_tail, 72);
	assert_int_equal(f->r.st.records, 3);
	assert_int_equal(f->r.st.corrupt + f->r.st.lost_records, 0);
	fake_free(f);
}

static void test_wrap(void **state)
{
	/* a 40-byte record from 240: 16 bytes before the end, 24 after */
	struct fake *f = fake_new(1000 * DATA + 240);
	struct seen s = { 0 };
	emit(f, PERF_RECORD_SAMPLE, 40, 7);
	emit(f, PERF_RECORD_SAMPLE, 16, 8);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.size[0], 40);
	assert_int_equal(s.size[1], 16);
	assert_int_equal(s.bad_body, 0);
	assert_int_equal(pg(f)->data_tail, 1000 * DATA + 296);
	fake_free(f);

	/* the header itself split by the end (a position 4 bytes before it) */
	f = fake_new(DATA - 4);
	memset(&s, 0, sizeof(s));
	emit(f, PERF_RECORD_SAMPLE, 24, 9);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.size[0], 24);
	assert_int_equal(s.bad_body, 0);
	assert_int_equal(f->r.st.corrupt, 0);
	fake_free(f);
}

static void test_corrupt_small(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit(f, PERF_RECORD_SAMPLE, 4, 2);	/* size < 8: head moves 8 */
	emit(f, PERF_RECORD_SAMPLE, 16, 3);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(f->r.st.corrupt, 1);
	assert_int_equal(f->r.st.corrupt_bytes, 24);
	assert_int_equal(pg(f)->data_tail, pg(f)->data_head);
	/* the walk goes on with what comes after */
	emit(f, PERF_RECORD_SAMPLE, 16, 4);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(f->r.st.corrupt, 1);
	assert_int_equal(f->r.st.records, 2);
	fake_free(f);

	/* size 0 (a zeroed ring): no endless loop */
	f = fake_new(0);
	pg(f)->data_head = 64;
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(f->r.st.corrupt_bytes, 64);
	assert_int_equal(pg(f)->data_tail, 64);
	fake_free(f);
}

static void test_corrupt_big(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit(f, PERF_RECORD_SAMPLE, 16, 2);
	pg(f)->data_head -= 8;			/* the second claims 8 bytes past the head */
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(f->r.st.corrupt, 1);
	assert_int_equal(f->r.st.corrupt_bytes, 8);
	assert_int_equal(pg(f)->data_tail, 24);
	fake_free(f);

	/* a size larger than the area itself */
	f = fake_new(0);
	struct perf_event_header huge = { .type = PERF_RECORD_SAMPLE, .size = 60000 };
	put(f, 0, &huge, sizeof(huge));
	pg(f)->data_head = 64;
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(f->r.st.corrupt_bytes, 64);
	fake_free(f);

	/* head more than the area ahead of tail, and head behind tail */
	f = fake_new(0);
	pg(f)->data_head = DATA + 8;
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(f->r.st.corrupt, 1);
	assert_int_equal(f->r.st.corrupt_bytes, DATA + 8);
	assert_int_equal(pg(f)->data_tail, DATA + 8);
	pg(f)->data_head = 8;
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(f->r.st.corrupt, 2);
	assert_int_equal(pg(f)->data_tail, 8);
	fake_free(f);
}

static void test_lost(void **state)
{
	struct fake *f = fake_new(0);
	struct seen s = { 0 };
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit_lost(f, 7);
	emit_lost(f, 5);
	emit(f, PERF_RECORD_SAMPLE, 16, 2);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 4);			/* LOST still reaches the callback */
	assert_int_equal(s.type[1], PERF_RECORD_LOST);
	assert_int_equal(f->r.st.lost, 12);
	assert_int_equal(f->r.st.lost_records, 2);

	struct perfring_stats tot = { 0 };
	perfring_stats_add(&tot, &f->r.st);
	perfring_stats_add(&tot, &f->r.st);
	assert_int_equal(tot.lost, 24);
	assert_int_equal(tot.records, 8);
	fake_free(f);
}

static void test_stop_resume(void **state)
{
	struct fake *f = fake_new(DATA - 16);
	struct seen s = { .stop_at = 2, .ret = PERFRING_STOPPED };
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit_lost(f, 3);				/* stopped at: not counted yet */
	emit(f, PERF_RECORD_SAMPLE, 32, 3);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), PERFRING_STOPPED);
	assert_int_equal(s.n, 1);
	assert_int_equal(pg(f)->data_tail, DATA);
	assert_int_equal(f->r.st.lost, 0);
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.type[1], PERF_RECORD_LOST);
	assert_int_equal(s.size[2], 32);
	assert_int_equal(f->r.st.lost, 3);
	assert_int_equal(f->r.st.records, 3);
	assert_int_equal(pg(f)->data_tail, pg(f)->data_head);

	/* a negative errno stops the same way and comes back */
	struct seen e = { .stop_at = 1, .ret = -EIO };
	emit(f, PERF_RECORD_SAMPLE, 16, 4);
	uint64_t tail = pg(f)->data_tail;
	assert_int_equal(perfring_walk(&f->r, on_rec, &e), -EIO);
	assert_int_equal(pg(f)->data_tail, tail);
	assert_int_equal(perfring_walk(&f->r, on_rec, &e), 0);
	assert_int_equal(e.n, 1);
	fake_free(f);
}

static void test_empty(void **state)
{
	struct fake *f = fake_new(12345 * 8);
	struct seen s = { 0 };
	assert_int_equal(perfring_walk(&f->r, on_rec, &s), 0);
	assert_int_equal(s.calls, 0);
	assert_int_equal(pg(f)->data_tail, 12345 * 8);
	assert_int_equal(f->r.st.records + f->r.st.corrupt + f->r.st.lost, 0);
	/* no callback: everything is consumed and counted */
	emit(f, PERF_RECORD_SAMPLE, 16, 1);
	emit_lost(f, 2);
	assert_int_equal(perfring_walk(&f->r, NULL, NULL), 0);
	assert_int_equal(f->r.st.records, 2);
	assert_int_equal(f->r.st.lost, 2);
	fake_free(f);
}

static void test_init(void **state)
{
	struct perfring r;
	uint8_t page[64];
	assert_int_equal(perfring_init(&r, NULL, 0, 64, NULL), -EINVAL);
	perfring_fini(&r);
	assert_int_equal(perfring_init(&r, page, 0, 0, NULL), -EINVAL);
	perfring_fini(&r);
	assert_int_equal(perfring_init(&r, page, 0, 64, NULL), 0);	/* owns its bounce buffer */
	assert_true(r.own_bounce);
	assert_non_null(r.bounce);
	perfring_fini(&r);
	assert_null(r.bounce);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_corrupt_small),
		cmocka_unit_test(test_corrupt_big),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_stop_resume),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_init),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
