/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the LATSCOPE_OSNOISE feature (lib/format/pdformat.h): the osnoise
 * engine's run parameters written by lib/pdwrite (pdwrite_set_osnoise_params,
 * osneng_record) and read back by lib/pdread (pdread_osnp.c) and
 * osneng_params_take: round trips in both byte orders, the bytes of the
 * layout, a hand-made section, truncated / oversized / wrong-version /
 * malformed sections (refused with the file offset), the pipe (not sent),
 * a checkpoint, and the VERSION text of older recordings (the fallback).
 */
#include "test_pdwrite.h"

#include "engine/osneng.h"

/* A file with one evsel, one record and, when set, params or raw bytes as
 * the LATSCOPE_OSNOISE feature; its image in *im. */
static void write_file(bool be, const struct pdformat_osnp *p, const void *raw, size_t raw_len,
		       const char *version, struct img *im)
{
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, false, 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TIME);
	uint64_t id = 1;
	assert_true(pdwrite_add_evsel(w, &a, "sched:sched_switch", &id, 1) >= 0);
	if (p)
		assert_int_equal(pdwrite_set_osnoise_params(w, p), 0);
	if (raw)
		assert_int_equal(pdwrite_set_raw_feature(w, PDFORMAT_FEAT_LATSCOPE_OSNOISE, raw, raw_len), 0);
	if (version)
		assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_VERSION, version), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_finished_round(w), 0);
	wfinish(w, fd, be, im);
}

static struct pdformat_osnp sample_params(void)
{
	struct pdformat_osnp p;
	memset(&p, 0, sizeof(p));
	p.threshold_us = 5;
	p.period_us = 1000000;
	p.runtime_us = 900000;
	p.stop_us = 30;
	p.stop_total_us = 400;
	p.flags = PDFORMAT_OSNP_NO_WORKLOAD | PDFORMAT_OSNP_SOFTIRQ_IN_THREADS;
	p.cpus[0] = 0x6;		/* CPUs 1, 2 */
	p.cpus[2] = 1ull << 3;		/* CPU 131 */
	return p;
}

/* A valid version-1 section for sample_params(), built by hand from the
 * layout in pdformat.h (not through the writer), in little-endian. */
static size_t hand_section(uint8_t *b, size_t cap)
{
	struct pdformat_osnp p = sample_params();
	size_t len = PDFORMAT_OSNP_FIXED + 3 * 8;
	assert_true(len <= cap);
	memset(b, 0, len);
	memcpy(b, "LSOP", 4);
	b[4] = 'l';
	bytes_st16(b + 6, 1, BYTES_HOST_BIG_ENDIAN);
	bytes_st32(b + 8, (uint32_t)len, BYTES_HOST_BIG_ENDIAN);
	bytes_st32(b + 12, 3, BYTES_HOST_BIG_ENDIAN);
	const uint64_t v[] = { p.threshold_us, p.period_us, p.runtime_us, p.stop_us,
			       p.stop_total_us, p.flags, p.cpus[0], p.cpus[1], p.cpus[2] };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bytes_st64(b + 16 + 8 * i, v[i], BYTES_HOST_BIG_ENDIAN);
	return len;
}

static void assert_params(const struct pdformat_osnp *got, const struct pdformat_osnp *want)
{
	assert_int_equal(got->version, PDFORMAT_OSNP_VERSION);
	assert_int_equal(got->threshold_us, want->threshold_us);
	assert_int_equal(got->period_us, want->period_us);
	assert_int_equal(got->runtime_us, want->runtime_us);
	assert_int_equal(got->stop_us, want->stop_us);
	assert_int_equal(got->stop_total_us, want->stop_total_us);
	assert_int_equal(got->flags, want->flags);
	assert_memory_equal(got->cpus, want->cpus, sizeof(got->cpus));
}

static void roundtrip(bool be)
{
	struct pdformat_osnp p = sample_params();
	struct img im;
	write_file(be, &p, NULL, 0, NULL, &im);
	/* the bytes: magic, tag in the file's order, version, size, 3 words */
	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_LATSCOPE_OSNOISE, &off, &size));
	assert_int_equal(size, PDFORMAT_OSNP_FIXED + 3 * 8);
	assert_memory_equal(im.p + off, "LSOP", 4);
	assert_int_equal(im.p[off + 4], be ? 'B' : 'l');
	assert_int_equal(ld16(&im, off + 6), 1);
	assert_int_equal(ld32(&im, off + 8), size);
	assert_int_equal(ld32(&im, off + 12), 3);
	assert_int_equal(ld64(&im, off + 64 + 16), 1ull << 3);
	struct pdread *r;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	const struct pdread_info *in = pdread_info(r);
	assert_true(in->has_osnoise_params);
	assert_int_equal(in->osnoise_params.big_endian, be);
	assert_params(&in->osnoise_params, &p);
	assert_true(osneng_is_recording(r));
	pdread_close(r);
	free(im.p);
}

static void test_roundtrip_le(void **state) { (void)state; roundtrip(false); }
static void test_roundtrip_be(void **state) { (void)state; roundtrip(true); }

/* The reader follows the section's own tag, whatever the file's order. */
static void test_hand_made(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t len = hand_section(b, sizeof(b));
	for (int be = 0; be < 2; be++) {
		struct img im;
		write_file(be, NULL, b, len, NULL, &im);
		struct pdread *r;
		assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
		struct pdformat_osnp want = sample_params();
		assert_true(pdread_info(r)->has_osnoise_params);
		assert_false(pdread_info(r)->osnoise_params.big_endian);
		assert_params(&pdread_info(r)->osnoise_params, &want);
		pdread_close(r);
		free(im.p);
	}
}

/* Open an image whose section is b[0..len): must fail with err and a message
 * holding what and the section's file offset (+ delta). */
static void refused(const uint8_t *b, size_t len, int err, const char *what, size_t delta)
{
	struct img im;
	write_file(false, NULL, b, len, NULL, &im);
	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_LATSCOPE_OSNOISE, &off, &size));
	struct pdread *r = NULL;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), err);
	const char *msg = pdread_strerror(r);
	char at[64];
	snprintf(at, sizeof(at), "at file offset %#zx", off + delta);
	if (!strstr(msg, what) || !strstr(msg, at) || !strstr(msg, "LATSCOPE_OSNOISE"))
		fail_msg("message '%s' lacks '%s' or '%s'", msg, what, at);
	pdread_close(r);
	free(im.p);
}

static void test_truncated(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t len = hand_section(b, sizeof(b));
	refused(b, len - 8, -EINVAL, "truncated", 0);
	refused(b, 15, -EINVAL, "less than its 16-byte header", 0);
	refused(b, 0, -EINVAL, "less than its 16-byte header", 0);
}

static void test_oversized(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t len = hand_section(b, sizeof(b));
	memset(b + len, 0, 8);
	refused(b, len + 8, -EINVAL, "oversized", 0);
	/* a size field that disagrees with the words */
	bytes_st32(b + 8, (uint32_t)len + 8, BYTES_HOST_BIG_ENDIAN);
	refused(b, len + 8, -EINVAL, "size field", 8);
	/* more CPU words than latscope has CPUs */
	bytes_st32(b + 12, PDFORMAT_OSNP_MAX_WORDS + 1, BYTES_HOST_BIG_ENDIAN);
	refused(b, len, -EINVAL, "CPU bitmap words", 12);
	bytes_st32(b + 12, 0, BYTES_HOST_BIG_ENDIAN);
	refused(b, len, -EINVAL, "CPU bitmap words", 12);
}

static void test_wrong_version(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t len = hand_section(b, sizeof(b));
	bytes_st16(b + 6, 2, BYTES_HOST_BIG_ENDIAN);
	refused(b, len, -ENOTSUP, "version 2", 6);
	bytes_st16(b + 6, 0, BYTES_HOST_BIG_ENDIAN);
	refused(b, len, -ENOTSUP, "version 0", 6);
}

static void test_malformed(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t len = hand_section(b, sizeof(b));
	b[4] = 'x';
	refused(b, len, -EINVAL, "byte order tag", 4);
	len = hand_section(b, sizeof(b));
	b[0] = 'X';
	refused(b, len, -EINVAL, "does not start with", 0);
	len = hand_section(b, sizeof(b));
	bytes_st64(b + 56, 4, BYTES_HOST_BIG_ENDIAN);
	refused(b, len, -EINVAL, "unknown flags", 56);
	/* a big-endian tag on little-endian fields reads as wrong values */
	len = hand_section(b, sizeof(b));
	b[4] = 'B';
	refused(b, len, -ENOTSUP, "version 256", 6);
}

/* osneng_record: the section plus a plain VERSION; osneng_params_take gives the
 * run's options back (the CLI's threshold wins when higher, its CPUs when
 * given). */
static void test_engine_record(void **state)
{
	(void)state;
	struct osneng_opts o;
	memset(&o, 0, sizeof(o));
	parse_cpuset_add(&o.cpus, 1);
	parse_cpuset_add(&o.cpus, 3);
	o.threshold_us = 7;
	o.period_us = 500000;
	o.runtime_us = 400000;
	o.stop_total_us = 90;
	struct osneng *e = NULL;
	assert_int_equal(osneng_new(&e, &o, NULL), 0);
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, false, false, 0);
	assert_int_equal(osneng_record(e, w), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_finished_round(w), 0);
	struct img im;
	wfinish(w, fd, false, &im);
	osneng_free(e);

	struct pdread *r;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	const struct pdread_info *in = pdread_info(r);
	assert_true(in->has_osnoise_params);
	assert_non_null(in->version);
	assert_true(!strncmp(in->version, "latscope ", 9));
	assert_null(strstr(in->version, "threshold"));
	struct osneng_opts got;
	memset(&got, 0, sizeof(got));
	got.threshold_us = 1;
	assert_true(osneng_params_take(r, &got, false, false));
	assert_int_equal(got.threshold_us, 7);
	assert_int_equal(got.period_us, 500000);
	assert_int_equal(got.runtime_us, 400000);
	assert_false(got.no_workload);
	assert_memory_equal(got.cpus.bits, o.cpus.bits, sizeof(o.cpus.bits));
	/* -T above the file's threshold wins; -c keeps the CLI's CPUs */
	struct osneng_opts cli;
	memset(&cli, 0, sizeof(cli));
	cli.threshold_us = 20;
	parse_cpuset_add(&cli.cpus, 0);
	assert_false(osneng_params_take(r, &cli, true, true));
	assert_int_equal(cli.threshold_us, 20);
	assert_true(parse_cpuset_has(&cli.cpus, 0));
	assert_false(parse_cpuset_has(&cli.cpus, 1));
	pdread_close(r);
	free(im.p);
}

/* A recording made before the feature: parameters as VERSION text. */
static void test_old_version_text(void **state)
{
	(void)state;
	struct osneng_opts o;
	memset(&o, 0, sizeof(o));
	parse_cpuset_add(&o.cpus, 2);
	o.threshold_us = 3;
	o.period_us = 250000;
	o.runtime_us = 200000;
	o.no_workload = true;
	char text[1024];
	osneng_params_format(&o, text, sizeof(text));
	struct img im;
	write_file(false, NULL, NULL, 0, text, &im);
	struct pdread *r;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	assert_false(pdread_info(r)->has_osnoise_params);
	assert_true(osneng_is_recording(r));
	struct osneng_opts got;
	memset(&got, 0, sizeof(got));
	assert_true(osneng_params_take(r, &got, false, false));
	assert_int_equal(got.threshold_us, 3);
	assert_int_equal(got.period_us, 250000);
	assert_int_equal(got.runtime_us, 200000);
	assert_true(got.no_workload);
	assert_true(parse_cpuset_has(&got.cpus, 2));
	assert_int_equal(parse_cpuset_count(&got.cpus), 1);
	pdread_close(r);
	free(im.p);
	/* neither: nothing taken */
	write_file(false, NULL, NULL, 0, "latscope 0.1.0", &im);
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	assert_false(osneng_params_take(r, &got, false, false));
	assert_false(osneng_is_recording(r));
	pdread_close(r);
	free(im.p);
}

/* A pipe carries no LATSCOPE_OSNOISE record (perf 6.1 stops at a feature
 * record it does not know); a checkpoint's feature table does. */
static void test_pipe_and_checkpoint(void **state)
{
	(void)state;
	struct pdformat_osnp p = sample_params();
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, false, true, 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TIME);
	uint64_t id = 1;
	assert_true(pdwrite_add_evsel(w, &a, "sched:sched_switch", &id, 1) >= 0);
	assert_int_equal(pdwrite_set_osnoise_params(w, &p), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_set_osnoise_params(w, &p), 0);	/* late: not sent either */
	struct img im;
	wfinish(w, fd, false, &im);
	for (size_t off = 16; off + 16 <= im.len; off += ld16(&im, off + 6)) {
		assert_true(ld16(&im, off + 6) >= 8);
		if (ld32(&im, off) == PDFORMAT_RECORD_HEADER_FEATURE)
			assert_true(ld64(&im, off + 8) < PDFORMAT_FEAT_LAST_KNOWN);
	}
	free(im.p);

	char path[] = "/tmp/test_osnparams.XXXXXX";
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	close(tfd);
	struct pdwrite_opts o = { .big_endian = false, .checkpoint = true, .force = true };
	assert_int_equal(pdwrite_open(&w, path, &o), 0);
	assert_true(pdwrite_add_evsel(w, &a, "sched:sched_switch", &id, 1) >= 0);
	assert_int_equal(pdwrite_set_osnoise_params(w, &p), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_finished_round(w), 0);
	assert_int_equal(pdwrite_checkpoint(w, true), 0);
	struct pdread *r;
	assert_int_equal(pdread_open(&r, path, NULL), 0);	/* as if the writer were killed */
	struct pdread_event ev;
	while (pdread_next(r, &ev) > 0)
		;
	assert_true(pdread_info(r)->unterminated);
	assert_true(pdread_info(r)->checkpoint_table);
	assert_true(pdread_info(r)->has_osnoise_params);
	assert_params(&pdread_info(r)->osnoise_params, &p);
	pdread_close(r);
	pdwrite_discard(w);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_le),
		cmocka_unit_test(test_roundtrip_be),
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_wrong_version),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_engine_record),
		cmocka_unit_test(test_old_version_text),
		cmocka_unit_test(test_pipe_and_checkpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
