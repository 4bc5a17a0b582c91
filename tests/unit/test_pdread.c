/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/pdread: perf's ordering rules (FINISHED_ROUND two-round
 * lag, ties, records without time, late records), zstd-compressed records
 * (one record split across two frames), unknown and lost records, attr
 * versions and big-endian flag bits, and clean errors with file offsets on
 * malformed input.  Files are built with lib/pdwrite into memfds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <zstd.h>

#include "base/bytes.h"
#include "format/pdread.h"
#include "format/pdwrite.h"

struct img {
	uint8_t *p;
	size_t len;
};

static struct pdformat_attr sw_attr(void)
{
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDFORMAT_TYPE_SOFTWARE;
	a.config = 9;
	a.sample_period = 1;
	a.sample_type = PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU |
			PDFORMAT_SAMPLE_PERIOD;
	a.flags = 1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL;
	return a;
}

static struct pdwrite *wopen(int *fd, bool be, bool pipe)
{
	*fd = memfd_create("pdr-test", MFD_CLOEXEC);
	assert_true(*fd >= 0);
	struct pdwrite *w = NULL;
	struct pdwrite_opts o = { .big_endian = be, .pipe = pipe };
	assert_int_equal(pdwrite_open_fd(&w, *fd, false, &o), 0);
	uint64_t ids[2] = { 100, 101 };
	struct pdformat_attr a = sw_attr();
	assert_int_equal(pdwrite_add_evsel(w, &a, "dummy", ids, 2), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	return w;
}

static void wclose(struct pdwrite *w, int fd, struct img *im)
{
	assert_int_equal(pdwrite_close(w), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	im->len = (size_t)st.st_size;
	im->p = malloc(im->len);
	assert_non_null(im->p);
	assert_int_equal(pread(fd, im->p, im->len, 0), (ssize_t)im->len);
	close(fd);
}

static void sample(struct pdwrite *w, uint64_t t, uint32_t cpu)
{
	struct pdread_sample s;
	memset(&s, 0, sizeof(s));
	s.id = 100 + cpu;
	s.pid = s.tid = 42;
	s.time = t;
	s.cpu = cpu;
	s.period = t;	/* lets the test recognise the record */
	assert_int_equal(pdwrite_write_sample(w, 0, PDFORMAT_MISC_KERNEL, &s), 0);
}

/* Deliver every record; the samples' keys (time, or time * 4 + cpu with
 * cpu4) in delivery order into out[max].  Returns how many samples. */
static size_t drain_samples(struct pdread *r, uint64_t *out, size_t max, bool cpu4)
{
	struct pdread_event ev;
	size_t n = 0;
	int rc;
	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE)
			continue;
		assert_true(ev.has_sample);
		assert_int_equal(ev.sample.period, ev.sample.time);
		if (n < max)
			out[n++] = cpu4 ? ev.sample.time * 4 + ev.sample.cpu : ev.sample.time;
	}
	assert_int_equal(rc, 0);
	return n;
}

/* Read all samples, returning their times in delivery order. */
static size_t read_times(const struct img *im, uint64_t *out, size_t max, struct pdread_stats *st)
{
	struct pdread *r;
	assert_int_equal(pdread_open_mem(&r, im->p, im->len, NULL), 0);
	size_t n = drain_samples(r, out, max, false);
	if (st)
		*st = *pdread_stats(r);
	pdread_close(r);
	return n;
}

static void ordering_case(bool be, bool pipe)
{
	int fd;
	struct pdwrite *w = wopen(&fd, be, pipe);
	sample(w, 10, 0);
	sample(w, 30, 1);
	pdwrite_finished_round(w);	/* flush <= 0: nothing; next limit 30 */
	sample(w, 20, 0);
	sample(w, 40, 1);
	pdwrite_finished_round(w);	/* flush <= 30: 10 20 30; next limit 40 */
	sample(w, 5, 0);	/* older than what was released: late */
	sample(w, 35, 1);
	sample(w, 35, 0);	/* tie: file order kept */
	struct img im;
	wclose(w, fd, &im);
	uint64_t t[16];
	struct pdread_stats st;
	size_t n = read_times(&im, t, 16, &st);
	assert_int_equal(n, 7);
	uint64_t want[] = { 10, 20, 30, 5, 35, 35, 40 };
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i], want[i]);
	assert_int_equal(st.out_of_order, 1);
	free(im.p);
}

static void test_ordering_le(void **s) { (void)s; ordering_case(false, false); }
static void test_ordering_be(void **s) { (void)s; ordering_case(true, false); }
static void test_ordering_pipe(void **s) { (void)s; ordering_case(false, true); }

/* Unordered mode delivers in file order. */
static void test_unordered(void **state)
{
	(void)state;
	int fd;
	struct pdwrite *w = wopen(&fd, false, false);
	sample(w, 30, 0);
	sample(w, 10, 1);
	struct img im;
	wclose(w, fd, &im);
	struct pdread *r;
	struct pdread_opts o = { .unordered = true };
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, &o), 0);
	struct pdread_event ev;
	uint64_t t[2];
	int n = 0;
	while (pdread_next(r, &ev) > 0)
		if (ev.type == PDFORMAT_RECORD_SAMPLE)
			t[n++] = ev.sample.time;
	assert_int_equal(n, 2);
	assert_int_equal(t[0], 30);
	assert_int_equal(t[1], 10);
	pdread_close(r);
	free(im.p);
}

/* Build host-order raw records of samples for compression tests. */
static size_t raw_sample(uint8_t *p, uint64_t t)
{
	/* IDENTIFIER TID TIME CPU PERIOD = 5 u64 + header */
	bytes_st32(p, PDFORMAT_RECORD_SAMPLE, false);
	bytes_st16(p + 4, PDFORMAT_MISC_KERNEL, false);
	bytes_st16(p + 6, 48, false);
	bytes_st64(p + 8, 100, false);
	bytes_st32(p + 16, 42, false);
	bytes_st32(p + 20, 42, false);
	bytes_st64(p + 24, t, false);
	bytes_st64(p + 32, 0, false);
	bytes_st64(p + 40, t, false);
	return 48;
}

static void compressed_case(uint32_t type)
{
	int fd;
	struct pdwrite *w = wopen(&fd, BYTES_HOST_BIG_ENDIAN, false);
	uint8_t plain[48 * 4];
	size_t len = 0;
	for (int i = 0; i < 4; i++)
		len += raw_sample(plain + len, 100 + (uint64_t)i);
	/* one zstd stream, cut so that record 2 spans the two COMPRESSED records */
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	assert_non_null(cc);
	uint8_t z1[512], z2[512];
	ZSTD_inBuffer in = { plain, 72, 0 };
	ZSTD_outBuffer o1 = { z1, sizeof(z1), 0 };
	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &o1, &in, ZSTD_e_flush)));
	ZSTD_inBuffer in2 = { plain + 72, len - 72, 0 };
	ZSTD_outBuffer o2 = { z2, sizeof(z2), 0 };
	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &o2, &in2, ZSTD_e_end)));
	ZSTD_freeCCtx(cc);
	for (int k = 0; k < 2; k++) {
		const uint8_t *z = k ? z2 : z1;
		size_t zl = k ? o2.pos : o1.pos;
		uint8_t body[600];
		size_t bl = 0;
		if (type == PDFORMAT_RECORD_COMPRESSED2) {
			bytes_st64(body, zl, false);
			bl = 8;
		}
		memcpy(body + bl, z, zl);
		bl += zl;
		assert_int_equal(pdwrite_write_record(w, type, 0, body, bl), 0);
	}
	struct img im;
	wclose(w, fd, &im);
	uint64_t t[8];
	struct pdread_stats st;
	size_t n = read_times(&im, t, 8, &st);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(t[i], 100 + i);
	assert_int_equal(st.compressed_records, 2);
	assert_int_equal(st.decompressed_bytes, len);
	free(im.p);
}

static void test_compressed2(void **s) { (void)s; compressed_case(PDFORMAT_RECORD_COMPRESSED2); }

static void test_unknown_and_lost(void **state)
{
	(void)state;
	int fd;
	struct pdwrite *w = wopen(&fd, false, false);
	uint8_t junk[24] = { 1, 2, 3 };
	assert_int_equal(pdwrite_write_record(w, 99, 0, junk, sizeof(junk)), 0);	/* user range, unknown */
	assert_int_equal(pdwrite_write_record(w, 40, 0, junk, sizeof(junk)), 0);	/* kernel range, unknown */
	struct pdread_sample tr;
	memset(&tr, 0, sizeof(tr));
	tr.id = 100;
	tr.time = 7;
	uint8_t lost[16];
	bytes_st64(lost, 100, false);
	bytes_st64(lost + 8, 12, false);
	assert_int_equal(pdwrite_write_with_trailer(w, 0, PDFORMAT_RECORD_LOST, 0, lost, 16, &tr), 0);
	uint8_t ls[8];
	bytes_st64(ls, 5, false);
	assert_int_equal(pdwrite_write_with_trailer(w, 0, PDFORMAT_RECORD_LOST_SAMPLES, 0, ls, 8, &tr), 0);
	sample(w, 9, 0);
	struct img im;
	wclose(w, fd, &im);
	uint64_t t[4];
	struct pdread_stats st;
	assert_int_equal(read_times(&im, t, 4, &st), 1);
	assert_int_equal(st.unknown_records, 2);
	assert_int_equal(st.lost_records, 1);
	assert_int_equal(st.lost_events, 12);
	assert_int_equal(st.lost_samples_records, 1);
	assert_int_equal(st.lost_samples, 5);
	free(im.p);
}

/* Every attr ABI size decodes; big-endian flag bits are mirrored per byte. */
static void test_attr_versions(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136 };
	for (int be = 0; be < 2; be++) {
		bool swap = be != BYTES_HOST_BIG_ENDIAN;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			uint8_t b[160];
			memset(b, 0, sizeof(b));
			bytes_st32(b, 2, swap);
			bytes_st32(b + 4, sizes[i], swap);
			bytes_st64(b + 8, 0x174, swap);
			bytes_st64(b + 24, PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_RAW, swap);
			/* flags: disabled (0), freq (10), sample_id_all (18) */
			int bits[] = { 0, 10, 18 };
			for (int k = 0; k < 3; k++) {
				int n = bits[k];
				b[40 + n / 8] |= (uint8_t)(1u << (be ? 7 - n % 8 : n % 8));
			}
			if (sizes[i] >= 72)
				bytes_st64(b + 64, 0xc2, swap);
			if (sizes[i] >= 96)
				bytes_st32(b + 92, 1, swap);
			if (sizes[i] >= 136)
				bytes_st64(b + 128, 0xc3, swap);
			struct pdformat_attr a;
			size_t used = 0;
			assert_int_equal(pdread_decode_attr(b, sizeof(b), swap, &a, &used), 0);
			assert_int_equal(used, sizes[i]);
			assert_int_equal(a.config, 0x174);
			assert_int_equal(a.flags, (1ULL << 0) | (1ULL << 10) | (1ULL << 18));
			assert_int_equal(a.config2, sizes[i] >= 72 ? 0xc2 : 0);
			assert_int_equal(a.clockid, sizes[i] >= 96 ? 1 : 0);
			assert_int_equal(a.config3, sizes[i] >= 136 ? 0xc3 : 0);
		}
	}
	/* size larger than what is there */
	uint8_t b[64] = { 0 };
	bytes_st32(b + 4, 200, false);
	struct pdformat_attr a;
	assert_int_equal(pdread_decode_attr(b, sizeof(b), false, &a, NULL), -EINVAL);
}

/* Errors: each is negative, and the message names an offset. */
static void expect_error(const uint8_t *p, size_t len, const char *needle)
{
	struct pdread *r;
	int rc = pdread_open_mem(&r, p, len, NULL);
	if (rc == 0) {
		struct pdread_event ev;
		while ((rc = pdread_next(r, &ev)) > 0)
			;
	}
	assert_true(rc < 0);
	const char *msg = pdread_strerror(r);
	if (!strstr(msg, needle) || !strstr(msg, "offset"))
		fail_msg("error '%s' lacks '%s' or an offset", msg, needle);
	pdread_close(r);
}

static void test_errors(void **state)
{
	(void)state;
	int fd;
	struct pdwrite *w = wopen(&fd, false, false);
	for (int i = 0; i < 50; i++)
		sample(w, 100 + (uint64_t)i, 0);
	struct img im;
	wclose(w, fd, &im);
	uint8_t *c = malloc(im.len);
	assert_non_null(c);

	expect_error(im.p, 10, "too short");
	memcpy(c, im.p, im.len);
	memcpy(c, "NOTPERF!", 8);
	expect_error(c, im.len, "bad magic");
	/* file cut inside the data section: header points past the end */
	uint64_t doff = bytes_ld64(im.p + 40, false), dsz = bytes_ld64(im.p + 48, false);
	expect_error(im.p, (size_t)(doff + dsz / 2), "truncated");
	/* a record whose size is below 8 */
	memcpy(c, im.p, im.len);
	bytes_st16(c + doff + 6, 4, false);
	expect_error(c, im.len, "size 4");
	/* a record running past the data section */
	memcpy(c, im.p, im.len);
	bytes_st16(c + doff + dsz - 48 + 6, 0xfff8, false);
	expect_error(c, im.len, "past the end");
	/* data size 0 but features after the data: not a killed writer's file */
	memcpy(c, im.p, im.len);
	bytes_st64(c + 48, 0, false);
	expect_error(c, im.len, "data size is 0");
	/* a killed writer: data size 0, nothing after the data; then cut in a record */
	for (int cut_in = 0; cut_in < 2; cut_in++) {
		size_t len = (size_t)(doff + dsz) - (cut_in ? 20 : 0);
		memcpy(c, im.p, len);
		bytes_st64(c + 48, 0, false);
		struct pdread *r;
		struct pdread_event ev;
		int rc, n = 0;
		assert_int_equal(pdread_open_mem(&r, c, len, NULL), 0);
		while ((rc = pdread_next(r, &ev)) > 0)
			n += ev.type == PDFORMAT_RECORD_SAMPLE;
		assert_int_equal(rc, 0);
		assert_true(pdread_info(r)->unterminated);
		assert_int_equal(n, cut_in ? 49 : 50);
		assert_true(cut_in ? pdread_info(r)->unterminated_tail > 0 : pdread_info(r)->unterminated_tail == 0);
		pdread_close(r);
	}
	free(c);
	free(im.p);
}

/* AUXTRACE payloads come with their record, in file and pipe mode. */
static void test_auxtrace_payload(void **state)
{
	(void)state;
	for (int pipe = 0; pipe < 2; pipe++) {
		int fd;
		struct pdwrite *w = wopen(&fd, false, pipe);
		uint8_t pay[100];
		for (int i = 0; i < 100; i++)
			pay[i] = (uint8_t)i;
		struct pdread_auxtrace a = { .size = 104, .offset = 4096, .idx = 1, .tid = (uint32_t)-1, .cpu = 1 };
		assert_int_equal(pdwrite_write_auxtrace(w, &a, pay, sizeof(pay)), 0);
		sample(w, 5, 0);
		struct img im;
		wclose(w, fd, &im);
		struct pdread *r;
		assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
		struct pdread_event ev;
		int seen = 0, samples = 0;
		while (pdread_next(r, &ev) > 0) {
			if (ev.type == PDFORMAT_RECORD_AUXTRACE) {
				seen++;
				assert_int_equal(ev.auxtrace.offset, 4096);
				assert_int_equal(ev.auxtrace.cpu, 1);
				assert_true(ev.aux_size >= 100);
				assert_non_null(ev.aux_data);
				assert_memory_equal(ev.aux_data, pay, 100);
				if (!pipe) {
					uint8_t back[100];
					assert_int_equal(pdread_pread(r, ev.aux_file_offset, back, 100), 0);
					assert_memory_equal(back, pay, 100);
				}
			}
			samples += ev.type == PDFORMAT_RECORD_SAMPLE;
		}
		assert_int_equal(seen, 1);
		assert_int_equal(samples, 1);
		pdread_close(r);
		free(im.p);
	}
}

/* A forced flush under the memory cap keeps everything, still counted. */
static void test_queue_cap(void **state)
{
	(void)state;
	int fd;
	struct pdwrite *w = wopen(&fd, false, false);
	for (int i = 0; i < 200000; i++)
		sample(w, 1000000 - (uint64_t)i, 0);	/* descending, no rounds */
	struct img im;
	wclose(w, fd, &im);
	struct pdread *r;
	struct pdread_opts o = { .max_queue_bytes = 4u << 20 };
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, &o), 0);
	struct pdread_event ev;
	size_t n = 0;
	while (pdread_next(r, &ev) > 0)
		n += ev.type == PDFORMAT_RECORD_SAMPLE;
	assert_int_equal(n, 200000);
	assert_true(pdread_stats(r)->forced_flushes > 0);
	assert_true(pdread_stats(r)->queue_peak_bytes <= (8u << 20) + (4u << 20));
	pdread_close(r);
	free(im.p);
}

/* 64-bit offsets: the data section and features moved past 5 GiB in a
 * sparse file read exactly like the original. */
static void test_offsets_beyond_4g(void **state)
{
	(void)state;
	int fd;
	struct pdwrite *w = wopen(&fd, false, false);
	for (int i = 0; i < 100; i++)
		sample(w, 1000 + (uint64_t)i, (uint32_t)(i & 1));
	struct img im;
	wclose(w, fd, &im);
	const uint64_t shift = 5ULL << 30;
	uint64_t doff = bytes_ld64(im.p + 40, false), dsz = bytes_ld64(im.p + 48, false);
	char path[] = "/tmp/latscope-big-XXXXXX";
	int bfd = mkstemp(path);
	assert_true(bfd >= 0);
	unlink(path);
	uint8_t *head = malloc(doff);
	assert_non_null(head);
	memcpy(head, im.p, doff);
	bytes_st64(head + 40, doff + shift, false);
	assert_int_equal(pwrite(bfd, head, doff, 0), (ssize_t)doff);
	/* data + feature table + features, each feature offset moved too */
	size_t tail = im.len - doff;
	uint8_t *t = malloc(tail);
	assert_non_null(t);
	memcpy(t, im.p + doff, tail);
	int nfeat = 0;
	for (int b = 0; b < 256; b++)
		nfeat += (im.p[72 + b / 8] >> (b % 8)) & 1;
	for (int k = 0; k < nfeat; k++) {
		uint8_t *ent = t + dsz + 16 * (size_t)k;
		bytes_st64(ent, bytes_ld64(ent, false) + shift, false);
	}
	if (pwrite(bfd, t, tail, (off_t)(doff + shift)) != (ssize_t)tail) {
		close(bfd);
		free(head);
		free(t);
		free(im.p);
		skip();	/* the filesystem has no sparse files this large */
	}
	struct pdread *r;
	assert_int_equal(pdread_open_fd(&r, bfd, true, "big", NULL), 0);
	assert_true(pdread_info(r)->data_offset > (4ULL << 30));
	struct pdread_event ev;
	int n = 0;
	while (pdread_next(r, &ev) > 0)
		if (ev.type == PDFORMAT_RECORD_SAMPLE) {
			assert_int_equal(ev.sample.time, 1000 + (uint64_t)n);
			assert_true(ev.file_offset > (4ULL << 30));
			n++;
		}
	assert_int_equal(n, 100);
	assert_non_null(pdread_evsel(r, 0)->name);
	assert_string_equal(pdread_evsel(r, 0)->name, "dummy");
	pdread_close(r);
	free(head);
	free(t);
	free(im.p);
}

/*
 * The same ordered stream whatever the input: in memory, a mapped file, a
 * file read with read(2) (queued records stay in the 1 MiB input blocks,
 * which must not be reused under them) and a pipe that delivers a few
 * bytes at a time.  ~4.5 MB of samples on 4 CPUs in rounds of 600.
 */
static size_t read_mode(const struct img *im, int mode, uint64_t *out, size_t max, struct pdread_stats *st)
{
	struct pdread *r;
	struct pdread_opts o = { .no_map = mode == 2 };
	int fds[2] = { -1, -1 };
	pid_t pid = -1;
	if (mode == 0) {
		assert_int_equal(pdread_open_mem(&r, im->p, im->len, &o), 0);
	} else if (mode == 3) {
		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			for (size_t off = 0; off < im->len;) {
				size_t step = 1 + (off * 7919) % 3001;
				if (step > im->len - off)
					step = im->len - off;
				ssize_t w = write(fds[1], im->p + off, step);
				if (w <= 0)
					_exit(1);
				off += (size_t)w;
			}
			_exit(0);
		}
		close(fds[1]);
		assert_int_equal(pdread_open_fd(&r, fds[0], true, "pipe", &o), 0);
	} else {
		int fd = memfd_create("pdr-modes", MFD_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, im->p, im->len), (ssize_t)im->len);
		assert_int_equal(pdread_open_fd(&r, fd, true, "file", &o), 0);
	}
	size_t n = drain_samples(r, out, max, true);
	if (st)
		*st = *pdread_stats(r);
	pdread_close(r);
	if (pid > 0) {
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return n;
}

static void read_modes_case(bool pipe_format)
{
	int fd;
	struct pdwrite *w = wopen(&fd, false, pipe_format);
	const size_t total = 80000;
	uint64_t t[4] = { 1000, 1000, 1000, 1000 };
	for (size_t i = 0; i < total; i++) {
		uint32_t cpu = (uint32_t)(i % 4);
		t[cpu] += 1 + (i * 31) % 7;
		sample(w, t[cpu], cpu);
		if (i % 600 == 599)
			pdwrite_finished_round(w);
	}
	struct img im;
	wclose(w, fd, &im);
	assert_true(im.len > (3u << 20));	/* several input blocks */
	uint64_t *ref = malloc(total * sizeof(*ref)), *got = malloc(total * sizeof(*got));
	assert_non_null(ref);
	assert_non_null(got);
	assert_int_equal(read_mode(&im, 0, ref, total, NULL), total);
	for (size_t i = 1; i < total; i++)
		assert_true(ref[i - 1] / 4 <= ref[i] / 4);
	for (int mode = 1; mode <= 3; mode++) {
		if (mode == 3 && !pipe_format)
			continue;	/* a file-mode perf.data cannot come through a pipe */
		memset(got, 0, total * sizeof(*got));
		assert_int_equal(read_mode(&im, mode, got, total, NULL), total);
		assert_memory_equal(ref, got, total * sizeof(*got));
	}
	free(ref);
	free(got);
	free(im.p);
}

static void test_read_modes(void **s) { (void)s; read_modes_case(false); }
static void test_read_modes_pipe(void **s) { (void)s; read_modes_case(true); }

/*
 * A recorder that writes the end of a CPU's ring again in the next round
 * (perf 6.1 under load: the same records byte for byte): the copies are
 * dropped and counted, whatever the input (memory, mapped, read(2), pipe).
 * Samples that share a time but not every byte (another CPU, another
 * task) all stay.
 */
static void test_duplicates(void **state)
{
	(void)state;
	for (int pipe_format = 0; pipe_format < 2; pipe_format++) {
		int fd;
		struct pdwrite *w = wopen(&fd, false, pipe_format);
		sample(w, 10, 0);
		sample(w, 20, 0);
		sample(w, 30, 0);
		sample(w, 15, 1);
		sample(w, 30, 1);	/* time 30 on another CPU: not a copy */
		pdwrite_finished_round(w);
		sample(w, 20, 0);	/* the last two of CPU 0 again */
		sample(w, 30, 0);
		sample(w, 40, 0);
		sample(w, 35, 1);
		pdwrite_finished_round(w);
		struct pdread_sample o;
		memset(&o, 0, sizeof(o));
		o.id = 100;
		o.pid = o.tid = 43;	/* time 40 on CPU 0, another task */
		o.time = o.period = 40;
		assert_int_equal(pdwrite_write_sample(w, 0, PDFORMAT_MISC_KERNEL, &o), 0);
		struct img im;
		wclose(w, fd, &im);
		for (int mode = 0; mode < 4; mode++) {
			if (mode == 3 && !pipe_format)
				continue;	/* a file-mode perf.data cannot come through a pipe */
			uint64_t got[16];
			struct pdread_stats st;
			size_t n = read_mode(&im, mode, got, 16, &st);
			uint64_t want[] = { 10 * 4, 15 * 4 + 1, 20 * 4, 30 * 4, 30 * 4 + 1, 35 * 4 + 1, 40 * 4, 40 * 4 };
			assert_int_equal(n, sizeof(want) / sizeof(want[0]));
			for (size_t i = 0; i < n; i++)
				assert_int_equal(got[i], want[i]);
			assert_int_equal(st.duplicates, 2);
		}
		free(im.p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordering_le),
		cmocka_unit_test(test_ordering_be),
		cmocka_unit_test(test_ordering_pipe),
		cmocka_unit_test(test_unordered),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_compressed2),
		cmocka_unit_test(test_unknown_and_lost),
		cmocka_unit_test(test_attr_versions),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_auxtrace_payload),
		cmocka_unit_test(test_queue_cap),
		cmocka_unit_test(test_offsets_beyond_4g),
		cmocka_unit_test(test_read_modes),
		cmocka_unit_test(test_read_modes_pipe),
	};
	return cmocka_run_group_tests_name("pdread", tests, NULL, NULL);
}
