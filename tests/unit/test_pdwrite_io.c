/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/pdwrite (perf.data writer): pipe mode, the AUXTRACE
 * index, the default hostname, errors and the tracing data blob, in both
 * byte orders.
 */
#include "test_pdwrite.h"

/* ------------------------------------------------------------- pipe mode */

static void pipe_case(bool be)
{
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, true, 0);
	struct pdformat_attr a = tp_attr(372, PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_IDENTIFIER);
	uint64_t ids[2] = { 7, 8 };
	assert_int_equal(pdwrite_add_evsel(w, &a, "sched:sched_switch", ids, 2), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "h"), 0);
	assert_int_equal(pdwrite_set_nrcpus(w, 2, 2), 0);
	uint8_t blob[13];
	memset(blob, 0x77, sizeof(blob));
	assert_int_equal(pdwrite_set_tracing_data(w, blob, sizeof(blob)), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	/* evsels may still arrive in a stream */
	uint64_t id3 = 9;
	assert_int_equal(pdwrite_add_evsel(w, &a, "late", &id3, 1), 1);
	struct pdread_sample s = { .time = 5, .id = 7 };
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
	struct pdread_auxtrace ax = { .offset = 0, .cpu = 1, .tid = (uint32_t)-1 };
	assert_int_equal(pdwrite_write_auxtrace(w, &ax, blob, 5), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	assert_memory_equal(im.p, be ? "2ELIFREP" : "PERFILE2", 8);
	assert_int_equal(ld64(&im, 8), 16);
	size_t p = 16;
	/* HEADER_ATTR: attr (128) + ids */
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_HEADER_ATTR);
	assert_int_equal(ld16(&im, p + 6), 8 + 128 + 16);
	assert_int_equal(ld32(&im, p + 8), PDFORMAT_TYPE_TRACEPOINT);
	assert_int_equal(ld32(&im, p + 12), 128);
	assert_int_equal(ld64(&im, p + 8 + 128), 7);
	assert_int_equal(ld64(&im, p + 8 + 136), 8);
	p += 8 + 128 + 16;
	/* HEADER_FEATURE records, ascending ids, 8-aligned sizes */
	int feats[8], nf = 0;
	while (ld32(&im, p) == PDFORMAT_RECORD_HEADER_FEATURE) {
		uint16_t size = ld16(&im, p + 6);
		assert_int_equal(size % 8, 0);
		assert_true(nf < 8);
		feats[nf++] = (int)ld64(&im, p + 8);
		if (feats[nf - 1] == PDFORMAT_FEAT_HOSTNAME) {
			assert_int_equal(ld32(&im, p + 16), 64);
			assert_string_equal((char *)im.p + p + 20, "h");
		}
		p += size;
	}
	assert_int_equal(nf, 3);
	assert_int_equal(feats[0], PDFORMAT_FEAT_HOSTNAME);
	assert_int_equal(feats[1], PDFORMAT_FEAT_NRCPUS);
	assert_int_equal(feats[2], PDFORMAT_FEAT_EVENT_DESC);
	/* HEADER_TRACING_DATA: 16-byte record, u32 size = padded blob, blob follows */
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_HEADER_TRACING_DATA);
	assert_int_equal(ld16(&im, p + 6), 16);
	assert_int_equal(ld32(&im, p + 8), 16);
	assert_memory_equal(im.p + p + 16, blob, sizeof(blob));
	assert_int_equal(im.p[p + 16 + 13], 0);
	p += 16 + 16;
	/* the late evsel: HEADER_ATTR then a new EVENT_DESC */
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_HEADER_ATTR);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_HEADER_FEATURE);
	assert_int_equal(ld64(&im, p + 8), PDFORMAT_FEAT_EVENT_DESC);
	assert_int_equal(ld32(&im, p + 16), 2);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_SAMPLE);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDFORMAT_RECORD_AUXTRACE);
	assert_int_equal(ld16(&im, p + 6), 48);
	assert_int_equal(ld64(&im, p + 8), 8);
	p += 48 + 8;
	assert_int_equal(p, im.len);	/* nothing else at close */
	free(im.p);
}

static void test_pipe_le(void **state) { (void)state; pipe_case(false); }
static void test_pipe_be(void **state) { (void)state; pipe_case(true); }

/* -------------------------------------------------------------- auxtrace */

static void test_auxtrace_index(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++) {
		int fd = new_fd();
		struct pdwrite *w = wopen(fd, be, false, 0);
		struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TIME);
		assert_int_equal(pdwrite_add_evsel(w, &a, "vpa_dtl/dtl_all/", NULL, 0), 0);
		uint64_t priv[3] = { 0, 1, 2 };
		assert_int_equal(pdwrite_write_auxtrace_info(w, PDFORMAT_AUXTRACE_VPA_DTL, priv, 3), 0);
		uint8_t pay[16];
		for (int i = 0; i < 16; i++)
			pay[i] = (uint8_t)(i + 1);
		struct pdread_auxtrace ax = { .offset = 0, .reference = 0, .idx = 0, .tid = (uint32_t)-1,
					   .cpu = 0 };
		assert_int_equal(pdwrite_write_auxtrace(w, &ax, pay, 13), 0);
		ax.offset = 16;
		ax.cpu = 1;
		ax.idx = 1;
		assert_int_equal(pdwrite_write_auxtrace(w, &ax, pay, 16), 0);
		assert_int_equal(pdwrite_finished_round(w), 0);
		struct img im;
		wfinish(w, fd, be, &im);

		size_t d = data_off(&im);
		assert_int_equal(ld32(&im, d), PDFORMAT_RECORD_AUXTRACE_INFO);
		assert_int_equal(ld16(&im, d + 6), 16 + 24);
		assert_int_equal(ld32(&im, d + 8), PDFORMAT_AUXTRACE_VPA_DTL);
		assert_int_equal(ld64(&im, d + 32), 2);
		size_t off, size;
		assert_true(feat_sec(&im, PDFORMAT_FEAT_AUXTRACE, &off, &size));
		assert_int_equal(size, 8 + 2 * 16);
		assert_int_equal(ld64(&im, off), 2);
		size_t r1 = (size_t)ld64(&im, off + 8), r2 = (size_t)ld64(&im, off + 24);
		assert_int_equal(ld64(&im, off + 16), 48);
		assert_int_equal(r1, d + 40);
		assert_int_equal(r2, r1 + 48 + 16);
		assert_int_equal(ld32(&im, r1), PDFORMAT_RECORD_AUXTRACE);
		assert_int_equal(ld16(&im, r1 + 6), 48);
		assert_int_equal(ld64(&im, r1 + 8), 16);	/* 13 padded */
		assert_int_equal(ld32(&im, r1 + 36), 0xffffffffu);
		assert_memory_equal(im.p + r1 + 48, pay, 13);
		assert_int_equal(im.p[r1 + 48 + 13], 0);
		assert_int_equal(ld64(&im, r2 + 16), 16);
		assert_int_equal(ld32(&im, r2 + 40), 1);
		assert_int_equal(ld32(&im, r2 + 48 + 16), PDFORMAT_RECORD_FINISHED_ROUND);
		free(im.p);
	}
}

/* pdwrite_open() on a path; HOSTNAME defaults to uname's node name. */
static void test_open_path_default_hostname(void **state)
{
	(void)state;
	char path[] = "/tmp/pdw-test-XXXXXX";
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	close(tfd);
	struct pdwrite *w;
	struct pdwrite_opts o = { .big_endian = true };
	assert_int_equal(pdwrite_open(&w, path, &o), 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TIME);
	assert_int_equal(pdwrite_add_evsel(w, &a, "a", NULL, 0), 0);
	assert_int_equal(pdwrite_close(w), 0);
	struct img im;
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	unlink(path);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	im.len = (size_t)st.st_size;
	im.p = malloc(im.len);
	assert_int_equal(pread(fd, im.p, im.len, 0), (ssize_t)im.len);
	close(fd);
	im.swap = !BYTES_HOST_BIG_ENDIAN;
	assert_int_equal(data_size(&im), 0);
	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_HOSTNAME, &off, &size));
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	assert_string_equal((char *)im.p + off + 4, u.nodename);
	assert_false(feat_bit(&im, PDFORMAT_FEAT_SAMPLE_TIME));	/* no samples, no times */
	assert_false(feat_bit(&im, PDFORMAT_FEAT_AUXTRACE));
	free(im.p);
	assert_int_equal(pdwrite_open(&w, "/nonexistent-dir/x", NULL), -ENOENT);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void **state)
{
	(void)state;
	struct pdwrite *w = NULL;
	struct pdwrite_opts o = { .attr_size = 100 };
	int fd = new_fd();
	assert_int_equal(pdwrite_open_fd(&w, fd, false, &o), -EINVAL);
	assert_null(w);
	/* file mode needs a seekable descriptor */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	o.attr_size = 0;
	assert_int_equal(pdwrite_open_fd(&w, pfd[1], false, &o), -ESPIPE);
	/* late evsels in file mode, bad indexes, oversized records */
	w = wopen(fd, false, false, 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_RAW | PDFORMAT_SAMPLE_READ);
	assert_int_equal(pdwrite_add_evsel(w, &a, "a", NULL, 0), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_add_evsel(w, &a, "b", NULL, 0), -EBUSY);
	struct pdread_sample s = { 0 };
	assert_int_equal(pdwrite_write_sample(w, 1, 0, &s), -EINVAL);
	assert_int_equal(pdwrite_write_sample(w, -1, 0, &s), -EINVAL);
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), -EINVAL);	/* READ without data */
	uint8_t rd[16] = { 0 };
	s.read = rd;
	s.read_size = 16;		/* read_format 0 means 8 bytes */
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), -EINVAL);
	s.read_size = 8;
	static uint8_t big[70000];
	s.raw = big;
	s.raw_size = 65520;	/* fits a u16 alone, not with the header and READ */
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), -E2BIG);
	s.raw_size = 16;
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
	assert_int_equal(pdwrite_write_record(w, 1, 0, big, 65528), -EINVAL);
	assert_int_equal(pdwrite_write_record(w, 1, 0, big, 65520), 0);
	/* recoverable errors are not sticky */
	assert_int_equal(pdwrite_close(w), 0);
	close(fd);

	/* write errors are sticky and returned by pdwrite_close() */
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	close(pfd[0]);
	o.pipe = true;
	assert_int_equal(pdwrite_open_fd(&w, pfd[1], true, &o), 0);
	assert_int_equal(pdwrite_add_evsel(w, &a, "a", NULL, 0), 0);
	int err = 0;
	for (int i = 0; i < 5000 && !err; i++)
		err = pdwrite_write_record(w, 1, 0, big, 64);
	assert_int_equal(err, -EPIPE);
	assert_int_equal(pdwrite_finished_round(w), -EPIPE);
	assert_int_equal(pdwrite_close(w), -EPIPE);
	signal(SIGPIPE, old);
	assert_int_equal(pdwrite_close(NULL), 0);
}

/* ----------------------------------------------------- tracing data blob */

struct bcur {
	const uint8_t *p, *end;
	bool swap;
};

static const uint8_t *bc_take(struct bcur *c, size_t n)
{
	assert_true((size_t)(c->end - c->p) >= n);
	const uint8_t *at = c->p;
	c->p += n;
	return at;
}

static uint32_t bc_u32(struct bcur *c) { return bytes_ld32(bc_take(c, 4), c->swap); }
static uint64_t bc_u64(struct bcur *c) { return bytes_ld64(bc_take(c, 8), c->swap); }

static void bc_text(struct bcur *c, const char *want)
{
	uint64_t n = bc_u64(c);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(bc_take(c, n), want, n);
}

static void blob_case(bool be)
{
	static const char fmt_a[] = "name: a\nID: 10\nformat:\n";
	static const char fmt_b[] = "name: b\nID: 11\nformat:\n";
	static const char fmt_f[] = "name: function\nID: 1\nformat:\n";
	static const char fmt_c[] = "name: c\nID: 12\nformat:\n";
	struct pdwrite_tp_format f[] = {
		{ "sched", fmt_a }, { "irq", fmt_c }, { "ftrace", fmt_f }, { "sched", fmt_b },
	};
	void *blob;
	size_t len;
	assert_int_equal(pdwrite_tracing_data_build(be, 65536, "HP", f, 4, "PK", "1 init\n", &blob, &len), 0);
	struct bcur c = { blob, (const uint8_t *)blob + len, be != (bool)BYTES_HOST_BIG_ENDIAN };
	assert_memory_equal(bc_take(&c, 3), "\x17\x08\x44", 3);
	assert_memory_equal(bc_take(&c, 7), "tracing", 7);
	assert_memory_equal(bc_take(&c, 4), "0.6", 4);
	assert_int_equal(*bc_take(&c, 1), be ? 1 : 0);
	assert_int_equal(*bc_take(&c, 1), 8);
	assert_int_equal(bc_u32(&c), 65536);
	assert_memory_equal(bc_take(&c, 12), "header_page", 12);
	bc_text(&c, "HP");
	assert_memory_equal(bc_take(&c, 13), "header_event", 13);
	uint64_t he = bc_u64(&c);
	assert_true(he > 0);
	assert_non_null(memmem(bc_take(&c, he), he, "type_len", 8));
	assert_int_equal(bc_u32(&c), 1);		/* ftrace formats */
	bc_text(&c, fmt_f);
	assert_int_equal(bc_u32(&c), 2);		/* systems */
	assert_memory_equal(bc_take(&c, 6), "sched", 6);
	assert_int_equal(bc_u32(&c), 2);
	bc_text(&c, fmt_a);
	bc_text(&c, fmt_b);
	assert_memory_equal(bc_take(&c, 4), "irq", 4);
	assert_int_equal(bc_u32(&c), 1);
	bc_text(&c, fmt_c);
	assert_int_equal(bc_u32(&c), 0);		/* kallsyms */
	assert_int_equal(bc_u32(&c), 2);		/* printk */
	assert_memory_equal(bc_take(&c, 2), "PK", 2);
	bc_text(&c, "1 init\n");			/* saved_cmdlines (0.6) */
	assert_ptr_equal(c.p, c.end);
	free(blob);

	assert_int_equal(pdwrite_tracing_data_build(be, 4096, NULL, NULL, 0, NULL, NULL, &blob, &len), 0);
	free(blob);
	struct pdwrite_tp_format bad = { NULL, "x" };
	assert_int_equal(pdwrite_tracing_data_build(be, 4096, NULL, &bad, 1, NULL, NULL, &blob, &len), -EINVAL);
}

static void test_tracing_blob_le(void **state) { (void)state; blob_case(false); }
static void test_tracing_blob_be(void **state) { (void)state; blob_case(true); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_le),
		cmocka_unit_test(test_pipe_be),
		cmocka_unit_test(test_auxtrace_index),
		cmocka_unit_test(test_open_path_default_hostname),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tracing_blob_le),
		cmocka_unit_test(test_tracing_blob_be),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
