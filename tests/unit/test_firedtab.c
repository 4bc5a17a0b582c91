/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for what the kernel fired against what it delivered: the
 * base/firedtab table and its LATSCOPE_FIRED section (round trips in both
 * byte orders through pdwrite and pdread, the bytes of the layout,
 * truncated / oversized / wrong-version / malformed sections refused with
 * their offset), and the keep-busy self-test's verdict from the counts
 * (idlecheck_judge: the old rule, half of /proc/interrupts, called 73 % ok).
 */
#include "test_pdwrite.h"

#include "base/firedtab.h"
#include "live/idlecheck.h"

static void sample_table(struct firedtab *t)
{
	memset(t, 0, sizeof(*t));
	assert_int_equal(firedtab_alloc(t, 2, 3), 0);
	t->counted = true;
	t->throttles = 7;
	t->unthrottles = 6;
	t->cpu[0] = (struct firedtab_cpu){ .cpu = 0, .fired = 100, .samples = 98, .lost = 2, .undelivered = 0 };
	t->cpu[1] = (struct firedtab_cpu){ .cpu = 5, .fired = 4000000000ull, .samples = 2000000000ull,
					   .lost = 1, .undelivered = 1999999999ull };
	t->ev[0] = (struct firedtab_event){ .config = 316, .cpu = 0, .fired = 100, .delivered = 98 };
	t->ev[1] = (struct firedtab_event){ .config = 316, .cpu = 5, .fired = 3000000000ull,
					    .delivered = 1000000000ull };
	t->ev[2] = (struct firedtab_event){ .config = 1ull << 40, .cpu = 5, .fired = 1000000000ull,
					    .delivered = 1000000000ull };
}

static void same(const struct firedtab *a, const struct firedtab *b)
{
	assert_true(b->counted);
	assert_int_equal(a->nr_cpu, b->nr_cpu);
	assert_int_equal(a->nr_ev, b->nr_ev);
	assert_int_equal(a->throttles, b->throttles);
	assert_int_equal(a->unthrottles, b->unthrottles);
	for (size_t i = 0; i < a->nr_cpu; i++) {
		assert_int_equal(a->cpu[i].cpu, b->cpu[i].cpu);
		assert_int_equal(a->cpu[i].fired, b->cpu[i].fired);
		assert_int_equal(a->cpu[i].samples, b->cpu[i].samples);
		assert_int_equal(a->cpu[i].lost, b->cpu[i].lost);
		assert_int_equal(a->cpu[i].undelivered, b->cpu[i].undelivered);
	}
	for (size_t i = 0; i < a->nr_ev; i++) {
		assert_int_equal(a->ev[i].config, b->ev[i].config);
		assert_int_equal(a->ev[i].cpu, b->ev[i].cpu);
		assert_int_equal(a->ev[i].fired, b->ev[i].fired);
		assert_int_equal(a->ev[i].delivered, b->ev[i].delivered);
	}
	assert_int_equal(firedtab_fired(b), 4000000100ull);
	assert_int_equal(firedtab_undelivered(b), 1999999999ull);
}

/* a recording carrying t (or raw bytes) as LATSCOPE_FIRED; its image */
static void write_file(bool be, const struct firedtab *t, const void *raw, size_t raw_len, struct img *im)
{
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, false, 0);
	struct pdformat_attr a = tp_attr(316, PDFORMAT_SAMPLE_TIME);
	uint64_t id = 1;
	assert_true(pdwrite_add_evsel(w, &a, "sched:sched_switch", &id, 1) >= 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_finished_round(w), 0);
	/* set after the data began, as the recorders do at their end */
	if (t)
		assert_int_equal(pdwrite_set_fired(w, t), 0);
	if (raw)
		assert_int_equal(pdwrite_set_raw_feature(w, PDFORMAT_FEAT_LATSCOPE_FIRED, raw, raw_len), 0);
	wfinish(w, fd, be, im);
}

static void roundtrip(bool be)
{
	struct firedtab t, *rt;
	struct img im;
	struct pdread *r = NULL;
	sample_table(&t);
	write_file(be, &t, NULL, 0, &im);
	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_LATSCOPE_FIRED, &off, &size));
	assert_int_equal(size, FIREDTAB_FIXED + 2 * FIREDTAB_CPU_REC + 3 * FIREDTAB_EV_REC);
	/* the layout: magic, tag, version, size, counts, in the file's order */
	assert_memory_equal(im.p + off, "LSFC", 4);
	assert_int_equal(im.p[off + 4], be ? 'B' : 'l');
	assert_int_equal(ld16(&im, off + 6), FIREDTAB_VERSION);
	assert_int_equal(ld32(&im, off + 8), size);
	assert_int_equal(ld32(&im, off + 12), 2);
	assert_int_equal(ld32(&im, off + 16), 3);
	assert_int_equal(ld64(&im, off + 24), 7);
	assert_int_equal(ld32(&im, off + 40 + 40), 5);	/* the second CPU */
	assert_int_equal(ld64(&im, off + 40 + 80 + 32 + 32), 1ull << 40);	/* the third event */
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	rt = &((struct pdread_info *)pdread_info(r))->fired;
	same(&t, rt);
	pdread_close(r);
	firedtab_free(&t);
	free(im.p);
}

static void test_roundtrip_le(void **state)
{
	(void)state;
	roundtrip(false);
}

static void test_roundtrip_be(void **state)
{
	(void)state;
	roundtrip(true);
}

static void test_absent(void **state)
{
	struct img im;
	struct pdread *r = NULL;
	(void)state;
	write_file(false, NULL, NULL, 0, &im);
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	assert_false(pdread_info(r)->fired.counted);
	pdread_close(r);
	free(im.p);
}

/* a damaged section: decode refuses it with the offset of the field */
static void refused(const uint8_t *p, size_t len, int err, size_t want_off)
{
	struct firedtab t = { 0 };
	size_t off = 99;
	const char *why = NULL;
	assert_int_equal(firedtab_decode(p, len, &t, &off, &why), err);
	assert_int_equal(off, want_off);
	assert_non_null(why);
	assert_true(why[0] != 0);
	assert_false(t.counted);
	/* and the reader says so, naming the file offset */
	struct img im;
	struct pdread *r = NULL;
	write_file(false, NULL, p, len, &im);
	size_t soff, ssize;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_LATSCOPE_FIRED, &soff, &ssize));
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), err);
	char at[64];
	snprintf(at, sizeof(at), "file offset %#zx", soff + want_off);
	assert_non_null(strstr(pdread_strerror(r), "LATSCOPE_FIRED"));
	if (!strstr(pdread_strerror(r), at))
		fail_msg("%s does not name offset %s", pdread_strerror(r), at);
	pdread_close(r);
	free(im.p);
}

static void test_malformed(void **state)
{
	struct firedtab t;
	uint8_t *b;
	size_t n;
	(void)state;
	sample_table(&t);
	assert_int_equal(firedtab_encode(&t, false, &b, &n), 0);
	refused(b, 39, -EINVAL, 0);			/* shorter than the header */
	refused(b, n - 1, -EINVAL, 0);			/* truncated */
	uint8_t *c = malloc(n + 8);
	assert_non_null(c);
	memcpy(c, b, n);
	memset(c + n, 0, 8);
	refused(c, n + 8, -EINVAL, 0);			/* oversized */
	memcpy(c, b, n);
	c[0] = 'X';
	refused(c, n, -EINVAL, 0);			/* magic */
	memcpy(c, b, n);
	c[4] = 'x';
	refused(c, n, -EINVAL, 4);			/* byte order tag */
	memcpy(c, b, n);
	bytes_st16(c + 6, 2, BYTES_HOST_BIG_ENDIAN);
	refused(c, n, -ENOTSUP, 6);			/* a later version */
	memcpy(c, b, n);
	bytes_st32(c + 12, 0xffffffffu, BYTES_HOST_BIG_ENDIAN);
	refused(c, n, -EINVAL, 12);			/* absurd CPU count */
	memcpy(c, b, n);
	c[5] = 1;
	refused(c, n, -EINVAL, 5);			/* reserved byte */
	memcpy(c, b, n);
	c[FIREDTAB_FIXED + 2 * FIREDTAB_CPU_REC + FIREDTAB_EV_REC + 12] = 1;
	refused(c, n, -EINVAL, FIREDTAB_FIXED + 2 * FIREDTAB_CPU_REC + FIREDTAB_EV_REC + 12);	/* an event's pad */
	memcpy(c, b, n);
	bytes_st32(c + 16, 4, BYTES_HOST_BIG_ENDIAN);
	refused(c, n, -EINVAL, 8);			/* counts and size disagree */
	free(c);
	free(b);
	firedtab_free(&t);
}

/* The self-test's verdict: exact, from the event's own counter. */
static void test_judge(void **state)
{
	(void)state;
	/* the case: 194 timer interrupts fired, 141 samples: drops */
	struct idlecheck_cpu_result r = { .cpu = 1, .irqs = 194, .samples = 141, .counted = 194 };
	assert_int_equal(idlecheck_judge(&r), IDLECHECK_DROPS);
	/* one firing neither delivered nor reported lost is a drop */
	r = (struct idlecheck_cpu_result){ .irqs = 150, .samples = 149, .counted = 150 };
	assert_int_equal(idlecheck_judge(&r), IDLECHECK_DROPS);
	/* ring losses are reported: not the silent drop */
	r = (struct idlecheck_cpu_result){ .irqs = 150, .samples = 140, .lost = 10, .counted = 150 };
	assert_int_equal(idlecheck_judge(&r), IDLECHECK_OK);
	/* LOC counts a few more at the window's edges: still ok */
	r = (struct idlecheck_cpu_result){ .irqs = 155, .samples = 150, .counted = 150 };
	assert_int_equal(idlecheck_judge(&r), IDLECHECK_OK);
	/* too few firings to tell */
	r = (struct idlecheck_cpu_result){ .irqs = 9, .samples = 0, .counted = 9 };
	assert_int_equal(idlecheck_judge(&r), IDLECHECK_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_le),
		cmocka_unit_test(test_roundtrip_be),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
