/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/pdwrite (perf.data writer) and lib/tfsformat: byte
 * layouts checked by hand in both byte orders, then writer -> reader
 * (lib/pdread) round trips in file and pipe mode.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/syscall.h>

#include <traceevent/event-parse.h>

#include "bytes.h"
#include "pdread.h"
#include "pdwrite.h"
#include "tfsformat.h"

#define FORMATS_DIR "tests/data/formats"

/* ------------------------------------------------------------- helpers */

struct img {
	uint8_t *p;
	size_t len;
	bool swap;		/* image order differs from the host's */
};

static int new_fd(void)
{
	int fd = memfd_create("pdw-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static struct pdw *wopen(int fd, bool be, bool pipe, uint32_t attr_size)
{
	struct pdw *w = NULL;
	struct pdw_opts o = { .big_endian = be, .pipe = pipe, .attr_size = attr_size };
	assert_int_equal(pdw_open_fd(&w, fd, false, &o), 0);
	assert_non_null(w);
	return w;
}

/* Close w and slurp what it wrote. */
static void wfinish(struct pdw *w, int fd, bool be, struct img *im)
{
	assert_int_equal(pdw_close(w), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	im->len = (size_t)st.st_size;
	im->p = malloc(im->len ? im->len : 1);
	assert_non_null(im->p);
	assert_int_equal(pread(fd, im->p, im->len, 0), (ssize_t)im->len);
	close(fd);
	im->swap = be != (bool)BY_HOST_BIG_ENDIAN;
}

static uint64_t ld64(const struct img *im, size_t off)
{
	assert_true(off + 8 <= im->len);
	return by_ld64(im->p + off, im->swap);
}

static uint32_t ld32(const struct img *im, size_t off)
{
	assert_true(off + 4 <= im->len);
	return by_ld32(im->p + off, im->swap);
}

static uint16_t ld16(const struct img *im, size_t off)
{
	assert_true(off + 2 <= im->len);
	return by_ld16(im->p + off, im->swap);
}

static struct pdf_attr tp_attr(uint64_t config, uint64_t sample_type)
{
	struct pdf_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDF_TYPE_TRACEPOINT;
	a.config = config;
	a.sample_period = 1;
	a.sample_type = sample_type;
	a.flags = (1ULL << PDF_ATTR_FLAG_DISABLED) | (1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL);
	return a;
}

/* Offset of the first data record in a file image. */
static size_t data_off(const struct img *im) { return (size_t)ld64(im, 40); }
static size_t data_size(const struct img *im) { return (size_t)ld64(im, 48); }

static bool feat_bit(const struct img *im, int f)
{
	return (ld64(im, 72 + 8 * (size_t)(f / 64)) >> (f % 64)) & 1;
}

/* Find feature f's {offset, size} in a file image; false if absent. */
static bool feat_sec(const struct img *im, int f, size_t *off, size_t *size)
{
	if (!feat_bit(im, f))
		return false;
	size_t tab = data_off(im) + data_size(im);
	size_t slot = 0;
	for (int i = 1; i < f; i++)
		slot += feat_bit(im, i);
	*off = (size_t)ld64(im, tab + 16 * slot);
	*size = (size_t)ld64(im, tab + 16 * slot + 8);
	assert_true(*off + *size <= im->len);
	return true;
}

/* ----------------------------------------------------- file header, attrs */

static void file_header_case(bool be)
{
	int fd = new_fd();
	struct pdw *w = wopen(fd, be, false, 0);
	assert_int_equal(pdw_needs_swap(w), be != (bool)BY_HOST_BIG_ENDIAN);
	struct pdf_attr a = tp_attr(372, PDF_SAMPLE_TIME | PDF_SAMPLE_IDENTIFIER);
	uint64_t ids[2] = { 7, 8 };
	assert_int_equal(pdw_add_evsel(w, &a, "sched:sched_switch", ids, 2), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "h"), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	struct pdr_sample s = { .time = 5, .id = 7 };
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	assert_memory_equal(im.p, be ? "2ELIFREP" : "PERFILE2", 8);
	assert_int_equal(ld64(&im, 8), 104);
	assert_int_equal(ld64(&im, 16), 128 + 16);	/* default attr VER7 + ids section */
	assert_int_equal(ld64(&im, 24), 104 + 16);	/* attrs after the 2 ids */
	assert_int_equal(ld64(&im, 32), 144);
	assert_int_equal(ld64(&im, 40), 104 + 16 + 144);
	assert_int_equal(ld64(&im, 48), 24);		/* one 24-byte sample */
	assert_int_equal(ld64(&im, 56), 0);
	assert_int_equal(ld64(&im, 64), 0);
	/* ids, then the attr entry pointing at them */
	assert_int_equal(ld64(&im, 104), 7);
	assert_int_equal(ld64(&im, 112), 8);
	assert_int_equal(ld32(&im, 120), PDF_TYPE_TRACEPOINT);
	assert_int_equal(ld32(&im, 124), 128);
	assert_int_equal(ld64(&im, 128), 372);
	assert_int_equal(ld64(&im, 120 + 128), 104);
	assert_int_equal(ld64(&im, 120 + 136), 16);
	/* Features: HOSTNAME, EVENT_DESC, SAMPLE_TIME, nothing else. */
	for (int f = 0; f < PDF_FEAT_BITS; f++)
		assert_int_equal(feat_bit(&im, f), f == PDF_FEAT_HOSTNAME ||
				 f == PDF_FEAT_EVENT_DESC || f == PDF_FEAT_SAMPLE_TIME);
	/* The bitmap is an array of u64 words in the file's order. */
	if (be) {
		assert_int_equal(im.p[72 + 7], 0x08);	/* bit 3 */
		assert_int_equal(im.p[72 + 6], 0x10);	/* bit 12 */
		assert_int_equal(im.p[72 + 5], 0x20);	/* bit 21 */
	} else {
		assert_int_equal(im.p[72], 0x08);
		assert_int_equal(im.p[73], 0x10);
		assert_int_equal(im.p[74], 0x20);
	}
	/* The sample record: header, IDENTIFIER first, then TIME. */
	size_t d = data_off(&im);
	assert_int_equal(ld32(&im, d), PDF_RECORD_SAMPLE);
	assert_int_equal(ld16(&im, d + 6), 24);
	assert_int_equal(ld64(&im, d + 8), 7);
	assert_int_equal(ld64(&im, d + 16), 5);
	/* SAMPLE_TIME tracked from the samples. */
	size_t off, size;
	assert_true(feat_sec(&im, PDF_FEAT_SAMPLE_TIME, &off, &size));
	assert_int_equal(size, 16);
	assert_int_equal(ld64(&im, off), 5);
	assert_int_equal(ld64(&im, off + 8), 5);
	free(im.p);
}

static void test_file_header_le(void **state) { (void)state; file_header_case(false); }
static void test_file_header_be(void **state) { (void)state; file_header_case(true); }

static void attr_case(bool be, uint32_t attr_size)
{
	int fd = new_fd();
	struct pdw *w = wopen(fd, be, false, attr_size);
	struct pdf_attr a;
	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.size = 64;		/* ignored: the writer's attr_size is written */
	a.config = 0x0102030405060708ULL;
	a.sample_period = 4000;
	a.sample_type = PDF_SAMPLE_IP | PDF_SAMPLE_TID;
	a.read_format = PDF_FORMAT_ID;
	a.flags = (1ULL << PDF_ATTR_FLAG_DISABLED) | (1ULL << PDF_ATTR_FLAG_FREQ) |
		  (1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL) | (1ULL << PDF_ATTR_FLAG_USE_CLOCKID) |
		  (1ULL << 37);
	a.wakeup_events = 3;
	a.bp_type = 9;
	a.config1 = 11;
	a.config2 = 12;
	a.branch_sample_type = 13;
	a.sample_regs_user = 14;
	a.sample_stack_user = 15;
	a.clockid = 1;
	a.sample_regs_intr = 16;
	a.aux_watermark = 17;
	a.sample_max_stack = 18;
	a.aux_sample_size = 19;
	a.aux_action = 20;
	a.sig_data = 21;
	assert_int_equal(pdw_add_evsel(w, &a, "raw", NULL, 0), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	uint32_t asz = attr_size ? attr_size : 128;
	assert_int_equal(ld64(&im, 16), asz + 16);
	size_t p = (size_t)ld64(&im, 24);
	assert_int_equal(ld32(&im, p), 4);
	assert_int_equal(ld32(&im, p + 4), asz);
	assert_int_equal(ld64(&im, p + 8), 0x0102030405060708ULL);
	assert_int_equal(im.p[p + 8], be ? 0x01 : 0x08);
	assert_int_equal(ld64(&im, p + 16), 4000);
	assert_int_equal(ld64(&im, p + 24), PDF_SAMPLE_IP | PDF_SAMPLE_TID);
	assert_int_equal(ld64(&im, p + 32), PDF_FORMAT_ID);
	/* Flags: bit n at byte n/8, bit n%8 (LE) or 7-n%8 (BE). */
	static const uint8_t le_flags[8] = { 0x01, 0x04, 0x04, 0x02, 0x20, 0, 0, 0 };
	static const uint8_t be_flags[8] = { 0x80, 0x20, 0x20, 0x40, 0x04, 0, 0, 0 };
	assert_memory_equal(im.p + p + 40, be ? be_flags : le_flags, 8);
	assert_int_equal(ld32(&im, p + 48), 3);
	assert_int_equal(ld32(&im, p + 52), 9);
	assert_int_equal(ld64(&im, p + 56), 11);
	if (asz >= 128) {
		assert_int_equal(ld64(&im, p + 64), 12);
		assert_int_equal(ld64(&im, p + 72), 13);
		assert_int_equal(ld64(&im, p + 80), 14);
		assert_int_equal(ld32(&im, p + 88), 15);
		assert_int_equal(ld32(&im, p + 92), 1);
		assert_int_equal(ld64(&im, p + 96), 16);
		assert_int_equal(ld32(&im, p + 104), 17);
		assert_int_equal(ld16(&im, p + 108), 18);
		assert_int_equal(ld32(&im, p + 112), 19);
		assert_int_equal(ld32(&im, p + 116), 20);
		assert_int_equal(ld64(&im, p + 120), 21);
	}
	/* The entry's ids section follows the attr bytes directly. */
	assert_int_equal(ld64(&im, p + asz), 104);
	assert_int_equal(ld64(&im, p + asz + 8), 0);

	/* The reader's decoder gets the host-order attr back. */
	struct pdf_attr back;
	size_t used;
	assert_int_equal(pdr_decode_attr(im.p + p, asz, im.swap, &back, &used), 0);
	assert_int_equal(used, asz);
	assert_int_equal(back.flags, a.flags);
	assert_int_equal(back.config, a.config);
	if (asz >= 128)
		assert_int_equal(back.sig_data, 21);
	else
		assert_int_equal(back.config2, 0);
	free(im.p);
}

static void test_attr_layout(void **state)
{
	(void)state;
	attr_case(false, 0);
	attr_case(true, 0);
	attr_case(false, PDF_ATTR_VER0);
	attr_case(true, PDF_ATTR_VER0);
	attr_case(true, PDF_ATTR_VER8);
}

static void test_attr_size_config3(void **state)
{
	(void)state;
	/* auto size: VER7, raised to VER8 by an evsel with config3 */
	int fd = new_fd();
	struct pdw *w = wopen(fd, false, false, 0);
	struct pdf_attr a = tp_attr(1, PDF_SAMPLE_TIME);
	assert_int_equal(pdw_add_evsel(w, &a, "a", NULL, 0), 0);
	a.config3 = 0x33;
	assert_int_equal(pdw_add_evsel(w, &a, "b", NULL, 0), 1);
	struct img im;
	wfinish(w, fd, false, &im);
	assert_int_equal(ld64(&im, 16), 152);
	size_t p = (size_t)ld64(&im, 24);
	assert_int_equal(ld32(&im, p + 4), 136);
	assert_int_equal(ld64(&im, p + 152 + 128), 0x33);
	free(im.p);

	/* explicit VER7 cannot hold config3 */
	fd = new_fd();
	w = wopen(fd, false, false, PDF_ATTR_VER7);
	assert_int_equal(pdw_add_evsel(w, &a, "b", NULL, 0), -EINVAL);
	pdw_close(w);
	close(fd);
}

/* ------------------------------------------------------ features, strings */

static void features_case(bool be)
{
	int fd = new_fd();
	struct pdw *w = wopen(fd, be, false, 0);
	struct pdf_attr a = tp_attr(372, PDF_SAMPLE_TIME);
	uint64_t ids[3] = { 21, 22, 23 };
	assert_int_equal(pdw_add_evsel(w, &a, "sched:sched_switch", ids, 3), 0);
	char s63[64], s64[65];
	memset(s63, 'x', 63);
	s63[63] = '\0';
	memset(s64, 'y', 64);
	s64[64] = '\0';
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "host"), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_OSRELEASE, s63), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_VERSION, s64), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_ARCH, ""), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_NRCPUS, "x"), -EINVAL);
	assert_int_equal(pdw_set_nrcpus(w, 4, 2), 0);
	const char *argv[] = { "latscope", "record" };
	assert_int_equal(pdw_set_cmdline(w, 2, argv), 0);
	assert_int_equal(pdw_set_sample_time(w, 100, 200), 0);
	static const uint8_t raw5[5] = { 1, 2, 3, 4, 5 };
	assert_int_equal(pdw_set_raw_feature(w, PDF_FEAT_PMU_CAPS, raw5, 5), 0);
	assert_int_equal(pdw_set_raw_feature(w, 0, raw5, 5), -EINVAL);
	assert_int_equal(pdw_set_raw_feature(w, PDF_FEAT_BITS, raw5, 5), -EINVAL);
	uint8_t td[3] = { 0x17, 0x08, 0x44 };
	assert_int_equal(pdw_set_tracing_data(w, td, 3), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	struct pdr_sample s = { .time = 150 };	/* explicit SAMPLE_TIME wins */
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	/* Table: one {offset,size} per set bit, ascending; payloads 8-aligned
	 * after the table, in the same order. */
	static const int want[] = { PDF_FEAT_TRACING_DATA, PDF_FEAT_HOSTNAME, PDF_FEAT_OSRELEASE,
				    PDF_FEAT_VERSION, PDF_FEAT_ARCH, PDF_FEAT_NRCPUS,
				    PDF_FEAT_CMDLINE, PDF_FEAT_EVENT_DESC, PDF_FEAT_SAMPLE_TIME,
				    PDF_FEAT_PMU_CAPS };
	size_t nw = sizeof(want) / sizeof(want[0]);
	size_t tab = data_off(&im) + data_size(&im);
	size_t prev_end = tab + 16 * nw;
	for (size_t i = 0; i < nw; i++) {
		assert_true(feat_bit(&im, want[i]));
		size_t off = (size_t)ld64(&im, tab + 16 * i);
		size_t size = (size_t)ld64(&im, tab + 16 * i + 8);
		assert_int_equal(off % 8, 0);
		assert_true(off >= prev_end && off < prev_end + 8);
		prev_end = off + size;
	}
	assert_int_equal(prev_end, im.len - ((8 - prev_end % 8) % 8));
	int nbits = 0;
	for (int f = 0; f < PDF_FEAT_BITS; f++)
		nbits += feat_bit(&im, f);
	assert_int_equal(nbits, (int)nw);

	size_t off, size;
	assert_true(feat_sec(&im, PDF_FEAT_TRACING_DATA, &off, &size));
	assert_int_equal(size, 3);
	assert_memory_equal(im.p + off, td, 3);
	/* strings: u32 len = strlen+1 rounded up to 64, NUL padded */
	assert_true(feat_sec(&im, PDF_FEAT_HOSTNAME, &off, &size));
	assert_int_equal(size, 4 + 64);
	assert_int_equal(ld32(&im, off), 64);
	assert_string_equal((char *)im.p + off + 4, "host");
	for (size_t i = 4 + 5; i < size; i++)
		assert_int_equal(im.p[off + i], 0);
	assert_true(feat_sec(&im, PDF_FEAT_OSRELEASE, &off, &size));
	assert_int_equal(ld32(&im, off), 64);
	assert_int_equal(size, 68);
	assert_true(feat_sec(&im, PDF_FEAT_VERSION, &off, &size));
	assert_int_equal(ld32(&im, off), 128);
	assert_int_equal(size, 132);
	assert_true(feat_sec(&im, PDF_FEAT_ARCH, &off, &size));
	assert_int_equal(ld32(&im, off), 64);
	assert_true(feat_sec(&im, PDF_FEAT_NRCPUS, &off, &size));
	assert_int_equal(size, 8);
	assert_int_equal(ld32(&im, off), 4);
	assert_int_equal(ld32(&im, off + 4), 2);
	assert_true(feat_sec(&im, PDF_FEAT_CMDLINE, &off, &size));
	assert_int_equal(size, 4 + 2 * 68);
	assert_int_equal(ld32(&im, off), 2);
	assert_string_equal((char *)im.p + off + 8, "latscope");
	assert_string_equal((char *)im.p + off + 8 + 68, "record");
	assert_true(feat_sec(&im, PDF_FEAT_SAMPLE_TIME, &off, &size));
	assert_int_equal(ld64(&im, off), 100);
	assert_int_equal(ld64(&im, off + 8), 200);
	assert_true(feat_sec(&im, PDF_FEAT_PMU_CAPS, &off, &size));
	assert_int_equal(size, 5);
	assert_memory_equal(im.p + off, raw5, 5);
	/* EVENT_DESC: nr, attr_size, {attr, nr_ids, string, ids} */
	assert_true(feat_sec(&im, PDF_FEAT_EVENT_DESC, &off, &size));
	assert_int_equal(size, 8 + 128 + 4 + 4 + 64 + 24);
	assert_int_equal(ld32(&im, off), 1);
	assert_int_equal(ld32(&im, off + 4), 128);
	assert_memory_equal(im.p + off + 8, im.p + ld64(&im, 24), 128);
	assert_int_equal(ld32(&im, off + 136), 3);
	assert_int_equal(ld32(&im, off + 140), 64);
	assert_string_equal((char *)im.p + off + 144, "sched:sched_switch");
	assert_int_equal(ld64(&im, off + 208), 21);
	assert_int_equal(ld64(&im, off + 224), 23);
	free(im.p);
}

static void test_features_le(void **state) { (void)state; features_case(false); }
static void test_features_be(void **state) { (void)state; features_case(true); }

/* -------------------------------------------------------------- samples */

/* Expected body size (after the 8-byte header) for sample s of attr a. */
static size_t expect_body(const struct pdf_attr *a, const struct pdr_sample *s)
{
	uint64_t t = a->sample_type;
	size_t n = 0;
	static const uint64_t u64s[] = { PDF_SAMPLE_IDENTIFIER, PDF_SAMPLE_IP, PDF_SAMPLE_TID,
		PDF_SAMPLE_TIME, PDF_SAMPLE_ADDR, PDF_SAMPLE_ID, PDF_SAMPLE_STREAM_ID,
		PDF_SAMPLE_CPU, PDF_SAMPLE_PERIOD, PDF_SAMPLE_DATA_SRC, PDF_SAMPLE_TRANSACTION,
		PDF_SAMPLE_PHYS_ADDR, PDF_SAMPLE_CGROUP, PDF_SAMPLE_DATA_PAGE_SIZE,
		PDF_SAMPLE_CODE_PAGE_SIZE };
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++)
		n += (t & u64s[i]) ? 8 : 0;
	if (t & (PDF_SAMPLE_WEIGHT | PDF_SAMPLE_WEIGHT_STRUCT))
		n += 8;
	if (t & PDF_SAMPLE_READ)
		n += s->read_size;
	if (t & PDF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * s->callchain_nr;
	if (t & PDF_SAMPLE_RAW)
		n += (4 + s->raw_size + 7) / 8 * 8;
	if (t & PDF_SAMPLE_BRANCH_STACK) {
		n += 8 + 24 * s->branch_nr;
		if (a->branch_sample_type & PDF_BRANCH_HW_INDEX)
			n += 8;
		if (a->branch_sample_type & PDF_BRANCH_COUNTERS)
			n += 8 * s->branch_nr;
	}
	if (t & PDF_SAMPLE_REGS_USER)
		n += 8 + (s->user_regs_abi ? 8 * (size_t)__builtin_popcountll(a->sample_regs_user) : 0);
	if (t & PDF_SAMPLE_STACK_USER)
		n += 8 + (s->user_stack_size ? (s->user_stack_size + 7) / 8 * 8 + 8 : 0);
	if (t & PDF_SAMPLE_REGS_INTR)
		n += 8 + (s->intr_regs_abi ? 8 * (size_t)__builtin_popcountll(a->sample_regs_intr) : 0);
	if (t & PDF_SAMPLE_AUX)
		n += 8 + (s->aux_size + 7) / 8 * 8;
	return n;
}

/* Write one sample of type t for attr a in byte order be; parse it back
 * with the reader's sample parser and compare. */
static void sample_roundtrip(bool be, struct pdf_attr a, unsigned raw_size, unsigned variant)
{
	bool swap = be != (bool)BY_HOST_BIG_ENDIAN;
	uint8_t raw[64], cc[3 * 8], br[2 * 24], regs[3 * 8], stack[16], aux[13], rd[5 * 8];
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(0xA0 + i);
	for (int i = 0; i < 3; i++) {
		by_st64(cc + 8 * i, 0xffffffff81000000ULL + (uint64_t)i, swap);
		by_st64(regs + 8 * i, 0x1000 + (uint64_t)i, swap);
	}
	for (size_t i = 0; i < sizeof(br); i++)
		br[i] = (uint8_t)i;
	memset(stack, 0x5a, sizeof(stack));
	memset(aux, 0x3c, sizeof(aux));
	struct pdr_sample s = {
		.ip = 0xffffffff81234567ULL, .pid = 1234, .tid = 1235, .time = 1000000007ULL,
		.addr = 0xdead0000ULL, .id = 77, .stream_id = 78, .cpu = 3, .period = 4000,
		.callchain_nr = variant % 4, .callchain = cc,
		.raw_size = raw_size, .raw = raw,
		.branch_nr = variant % 3, .branch_hw_idx = 5, .branch = br,
		.user_regs_abi = variant & 1 ? 2 : 0, .user_regs = regs,
		.user_stack_size = variant & 2 ? 13 : 0, .user_stack = stack, .user_stack_dyn_size = 9,
		.weight = 0x0001000200000003ULL, .data_src = 0x42, .transaction = 0x43,
		.intr_regs_abi = variant & 4 ? 2 : 0, .intr_regs = regs,
		.phys_addr = 0x1234000, .cgroup = 99, .data_page_size = 4096, .code_page_size = 2097152,
		.aux_size = variant % 2 ? 13 : 0, .aux = aux,
	};
	if (a.sample_type & PDF_SAMPLE_READ) {
		/* non-group: value, [enabled], [running], [id], [lost] */
		size_t n = 0;
		if (a.read_format & PDF_FORMAT_GROUP)
			by_st64(rd + 8 * n++, 2, swap);
		if (a.read_format & PDF_FORMAT_TOTAL_TIME_ENABLED)
			by_st64(rd + 8 * n++, 111, swap);
		size_t members = (a.read_format & PDF_FORMAT_GROUP) ? 2 : 1;
		for (size_t m = 0; m < members && n < 5; m++) {
			by_st64(rd + 8 * n++, 500 + m, swap);
			if ((a.read_format & PDF_FORMAT_ID) && n < 5)
				by_st64(rd + 8 * n++, 600 + m, swap);
		}
		s.read = rd;
		s.read_size = (uint32_t)(8 * n);
	}

	int fd = new_fd();
	struct pdw *w = wopen(fd, be, false, 0);
	assert_int_equal(pdw_add_evsel(w, &a, "ev", NULL, 0), 0);
	assert_int_equal(pdw_write_sample(w, 0, PDF_MISC_KERNEL, &s), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	size_t d = data_off(&im);
	size_t size = ld16(&im, d + 6);
	assert_int_equal(ld32(&im, d), PDF_RECORD_SAMPLE);
	assert_int_equal(ld16(&im, d + 4), PDF_MISC_KERNEL);
	assert_int_equal(size, 8 + expect_body(&a, &s));
	assert_int_equal(size % 8, 0);
	assert_int_equal(data_size(&im), size);

	struct pdr_sample b;
	assert_int_equal(pdr_parse_sample(&a, im.swap, im.p + d, size, false, &b), 0);
	uint64_t t = a.sample_type;
	if (t & PDF_SAMPLE_IP)
		assert_int_equal(b.ip, s.ip);
	if (t & PDF_SAMPLE_TID) {
		assert_int_equal(b.pid, s.pid);
		assert_int_equal(b.tid, s.tid);
	}
	if (t & PDF_SAMPLE_TIME)
		assert_int_equal(b.time, s.time);
	if (t & PDF_SAMPLE_ADDR)
		assert_int_equal(b.addr, s.addr);
	if (t & (PDF_SAMPLE_ID | PDF_SAMPLE_IDENTIFIER))
		assert_int_equal(b.id, s.id);
	if (t & PDF_SAMPLE_STREAM_ID)
		assert_int_equal(b.stream_id, s.stream_id);
	if (t & PDF_SAMPLE_CPU)
		assert_int_equal(b.cpu, s.cpu);
	if (t & PDF_SAMPLE_PERIOD)
		assert_int_equal(b.period, s.period);
	if (t & PDF_SAMPLE_READ) {
		assert_int_equal(b.read_size, s.read_size);
		assert_memory_equal(b.read, s.read, s.read_size);
	}
	if (t & PDF_SAMPLE_CALLCHAIN) {
		assert_int_equal(b.callchain_nr, s.callchain_nr);
		if (s.callchain_nr)
			assert_memory_equal(b.callchain, cc, 8 * s.callchain_nr);
	}
	if (t & PDF_SAMPLE_RAW) {
		/* stored size includes the kernel-style padding */
		assert_int_equal(b.raw_size, (4 + raw_size + 7) / 8 * 8 - 4);
		assert_int_equal((4 + b.raw_size) % 8, 0);
		if (raw_size)
			assert_memory_equal(b.raw, raw, raw_size);
		for (size_t i = raw_size; i < b.raw_size; i++)
			assert_int_equal(b.raw[i], 0);
	}
	if (t & PDF_SAMPLE_BRANCH_STACK) {
		assert_int_equal(b.branch_nr, s.branch_nr);
		if (a.branch_sample_type & PDF_BRANCH_HW_INDEX)
			assert_int_equal(b.branch_hw_idx, 5);
		if (s.branch_nr)
			assert_memory_equal(b.branch, br, 24 * s.branch_nr);
	}
	if (t & PDF_SAMPLE_REGS_USER) {
		assert_int_equal(b.user_regs_abi, s.user_regs_abi);
		if (s.user_regs_abi)
			assert_memory_equal(b.user_regs, regs, 8 * (size_t)__builtin_popcountll(a.sample_regs_user));
	}
	if (t & PDF_SAMPLE_STACK_USER) {
		assert_int_equal(b.user_stack_size, s.user_stack_size ? 16 : 0);
		if (s.user_stack_size) {
			assert_memory_equal(b.user_stack, stack, 13);
			assert_int_equal(b.user_stack_dyn_size, 9);
		}
	}
	if (t & (PDF_SAMPLE_WEIGHT | PDF_SAMPLE_WEIGHT_STRUCT))
		assert_int_equal(b.weight, s.weight);
	if (t & PDF_SAMPLE_DATA_SRC)
		assert_int_equal(b.data_src, s.data_src);
	if (t & PDF_SAMPLE_TRANSACTION)
		assert_int_equal(b.transaction, s.transaction);
	if (t & PDF_SAMPLE_REGS_INTR)
		assert_int_equal(b.intr_regs_abi, s.intr_regs_abi);
	if (t & PDF_SAMPLE_PHYS_ADDR)
		assert_int_equal(b.phys_addr, s.phys_addr);
	if (t & PDF_SAMPLE_CGROUP)
		assert_int_equal(b.cgroup, s.cgroup);
	if (t & PDF_SAMPLE_DATA_PAGE_SIZE)
		assert_int_equal(b.data_page_size, s.data_page_size);
	if (t & PDF_SAMPLE_CODE_PAGE_SIZE)
		assert_int_equal(b.code_page_size, s.code_page_size);
	if (t & PDF_SAMPLE_AUX) {
		assert_int_equal(b.aux_size, s.aux_size ? 16 : 0);
		if (s.aux_size)
			assert_memory_equal(b.aux, aux, 13);
	}
	free(im.p);
}

static void test_sample_combos(void **state)
{
	(void)state;
	static const uint64_t types[] = {
		0,
		PDF_SAMPLE_IP,
		PDF_SAMPLE_TID | PDF_SAMPLE_TIME,
		PDF_SAMPLE_IP | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU |
			PDF_SAMPLE_PERIOD | PDF_SAMPLE_RAW | PDF_SAMPLE_IDENTIFIER,
		PDF_SAMPLE_ADDR | PDF_SAMPLE_ID | PDF_SAMPLE_STREAM_ID,
		PDF_SAMPLE_READ | PDF_SAMPLE_ID,
		PDF_SAMPLE_CALLCHAIN | PDF_SAMPLE_TIME,
		PDF_SAMPLE_RAW,
		PDF_SAMPLE_BRANCH_STACK | PDF_SAMPLE_CPU,
		PDF_SAMPLE_REGS_USER | PDF_SAMPLE_STACK_USER,
		PDF_SAMPLE_WEIGHT | PDF_SAMPLE_DATA_SRC | PDF_SAMPLE_TRANSACTION,
		PDF_SAMPLE_WEIGHT_STRUCT | PDF_SAMPLE_REGS_INTR | PDF_SAMPLE_PHYS_ADDR,
		PDF_SAMPLE_CGROUP | PDF_SAMPLE_DATA_PAGE_SIZE | PDF_SAMPLE_CODE_PAGE_SIZE,
		PDF_SAMPLE_AUX | PDF_SAMPLE_TIME,
		PDF_SAMPLE_KNOWN_MASK & ~(uint64_t)PDF_SAMPLE_WEIGHT_STRUCT,
		PDF_SAMPLE_KNOWN_MASK & ~(uint64_t)PDF_SAMPLE_WEIGHT,
	};
	static const uint64_t rfs[] = { 0, PDF_FORMAT_ID | PDF_FORMAT_TOTAL_TIME_ENABLED,
					PDF_FORMAT_GROUP | PDF_FORMAT_ID };
	static const uint64_t bsts[] = { 0, PDF_BRANCH_HW_INDEX, PDF_BRANCH_COUNTERS };
	int n = 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		for (unsigned v = 0; v < 8; v++) {
			struct pdf_attr a = tp_attr(1, types[i]);
			a.read_format = rfs[v % 3];
			a.branch_sample_type = bsts[v % 3];
			a.sample_regs_user = 0x7;	/* 3 regs */
			a.sample_regs_intr = 0x5;	/* 2 regs */
			unsigned raw_size = (unsigned)(v * 7 % 20);
			sample_roundtrip(false, a, raw_size, v);
			sample_roundtrip(true, a, raw_size, v);
			n += 2;
		}
	}
	/* Random masks over every known bit (fixed seed: reproducible). */
	uint64_t x = 0x2545F4914F6CDD1DULL;
	for (int i = 0; i < 300; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t t = x & PDF_SAMPLE_KNOWN_MASK;
		if ((t & PDF_SAMPLE_WEIGHT) && (t & PDF_SAMPLE_WEIGHT_STRUCT))
			t &= ~(uint64_t)PDF_SAMPLE_WEIGHT;
		struct pdf_attr a = tp_attr(1, t);
		unsigned v = (unsigned)(x >> 40) & 7;
		a.read_format = rfs[v % 3];
		a.branch_sample_type = bsts[(x >> 50) % 3];
		a.sample_regs_user = (x >> 20) & 0x7;
		a.sample_regs_intr = (x >> 23) & 0x7;
		sample_roundtrip(i & 1, a, (unsigned)(x >> 30) % 60, v);
		n++;
	}
	assert_true(n > 500);
}

/* The exact bytes of a BE sample: u64s and each u32 of the pairs swapped. */
static void test_sample_bytes_be(void **state)
{
	(void)state;
	struct pdf_attr a = tp_attr(1, PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_IP | PDF_SAMPLE_TID |
				       PDF_SAMPLE_TIME | PDF_SAMPLE_CPU | PDF_SAMPLE_RAW);
	static const uint8_t raw[5] = { 1, 2, 3, 4, 5 };
	struct pdr_sample s = { .id = 0x11, .ip = 0x0102030405060708ULL, .pid = 0x0a0b0c0d,
				.tid = 0x01020304, .time = 0x99, .cpu = 1, .raw = raw, .raw_size = 5 };
	int fd = new_fd();
	struct pdw *w = wopen(fd, true, false, 0);
	assert_int_equal(pdw_add_evsel(w, &a, "ev", NULL, 0), 0);
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, true, &im);
	static const uint8_t want[] = {
		0, 0, 0, 9, 0, 0, 0, 64,			/* header: type, misc, size */
		0, 0, 0, 0, 0, 0, 0, 0x11,			/* IDENTIFIER */
		1, 2, 3, 4, 5, 6, 7, 8,				/* IP */
		0x0a, 0x0b, 0x0c, 0x0d, 1, 2, 3, 4,		/* pid, tid */
		0, 0, 0, 0, 0, 0, 0, 0x99,			/* TIME */
		0, 0, 0, 1, 0, 0, 0, 0,				/* cpu, res */
		0, 0, 0, 12, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, /* RAW: size 12 (5 + pad) */
	};
	assert_int_equal(data_size(&im), sizeof(want));
	assert_memory_equal(im.p + data_off(&im), want, sizeof(want));
	free(im.p);
}

static void test_raw_padding(void **state)
{
	(void)state;
	for (unsigned n = 0; n <= 20; n++) {
		struct pdf_attr a = tp_attr(1, PDF_SAMPLE_RAW);
		uint8_t raw[20];
		memset(raw, 0xff, sizeof(raw));
		struct pdr_sample s = { .raw = raw, .raw_size = n };
		int fd = new_fd();
		struct pdw *w = wopen(fd, false, false, 0);
		assert_int_equal(pdw_add_evsel(w, &a, "ev", NULL, 0), 0);
		assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
		struct img im;
		wfinish(w, fd, false, &im);
		size_t d = data_off(&im);
		uint32_t stored = ld32(&im, d + 8);
		assert_int_equal((4 + stored) % 8, 0);
		assert_true(stored >= n && stored < n + 8);
		assert_int_equal(ld16(&im, d + 6), 8 + 4 + stored);
		for (size_t i = n; i < stored; i++)
			assert_int_equal(im.p[d + 12 + i], 0);
		free(im.p);
	}
}

static void test_trailer(void **state)
{
	(void)state;
	for (int be = 0; be <= 1; be++) {
		struct pdf_attr a = tp_attr(1, PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_ID |
					       PDF_SAMPLE_STREAM_ID | PDF_SAMPLE_CPU |
					       PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_RAW);
		struct pdf_attr nb = a;
		nb.flags = 0;		/* no sample_id_all: no trailer */
		int fd = new_fd();
		struct pdw *w = wopen(fd, be, false, 0);
		uint64_t id1 = 5, id2 = 6;
		assert_int_equal(pdw_add_evsel(w, &a, "a", &id1, 1), 0);
		assert_int_equal(pdw_add_evsel(w, &nb, "b", &id2, 1), 1);
		bool swap = pdw_needs_swap(w);
		uint8_t body[13];
		by_st32(body, 42, swap);
		by_st32(body + 4, 43, swap);
		memcpy(body + 8, "comm", 5);
		struct pdr_sample s = { .pid = 42, .tid = 43, .time = 1000, .id = 5, .stream_id = 9,
					.cpu = 1 };
		assert_int_equal(pdw_write_with_trailer(w, 0, PDF_RECORD_COMM, 0, body, 13, &s), 0);
		assert_int_equal(pdw_write_with_trailer(w, 1, PDF_RECORD_COMM, 0, body, 13, &s), 0);
		assert_int_equal(pdw_write_with_trailer(w, 2, PDF_RECORD_COMM, 0, body, 13, &s), -EINVAL);
		struct img im;
		wfinish(w, fd, be, &im);
		size_t d = data_off(&im);
		assert_int_equal(ld32(&im, d), PDF_RECORD_COMM);
		assert_int_equal(ld16(&im, d + 6), 8 + 16 + 48);
		assert_memory_equal(im.p + d + 8, body, 13);
		assert_int_equal(im.p[d + 8 + 13], 0);
		size_t t = d + 24;	/* TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
		assert_int_equal(ld32(&im, t), 42);
		assert_int_equal(ld32(&im, t + 4), 43);
		assert_int_equal(ld64(&im, t + 8), 1000);
		assert_int_equal(ld64(&im, t + 16), 5);
		assert_int_equal(ld64(&im, t + 24), 9);
		assert_int_equal(ld32(&im, t + 32), 1);
		assert_int_equal(ld32(&im, t + 36), 0);
		assert_int_equal(ld64(&im, t + 40), 5);
		struct pdr_sample b;
		assert_int_equal(pdr_parse_sample(&a, im.swap, im.p + d, 72, true, &b), 0);
		assert_int_equal(b.time, 1000);
		assert_int_equal(b.cpu, 1);
		assert_int_equal(b.tid, 43);
		size_t d2 = d + 72;
		assert_int_equal(ld16(&im, d2 + 6), 8 + 16);
		free(im.p);
	}
}

/* ------------------------------------------------------------- pipe mode */

static void pipe_case(bool be)
{
	int fd = new_fd();
	struct pdw *w = wopen(fd, be, true, 0);
	struct pdf_attr a = tp_attr(372, PDF_SAMPLE_TIME | PDF_SAMPLE_IDENTIFIER);
	uint64_t ids[2] = { 7, 8 };
	assert_int_equal(pdw_add_evsel(w, &a, "sched:sched_switch", ids, 2), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "h"), 0);
	assert_int_equal(pdw_set_nrcpus(w, 2, 2), 0);
	uint8_t blob[13];
	memset(blob, 0x77, sizeof(blob));
	assert_int_equal(pdw_set_tracing_data(w, blob, sizeof(blob)), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	/* evsels may still arrive in a stream */
	uint64_t id3 = 9;
	assert_int_equal(pdw_add_evsel(w, &a, "late", &id3, 1), 1);
	struct pdr_sample s = { .time = 5, .id = 7 };
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	struct pdr_auxtrace ax = { .offset = 0, .cpu = 1, .tid = (uint32_t)-1 };
	assert_int_equal(pdw_write_auxtrace(w, &ax, blob, 5), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	assert_memory_equal(im.p, be ? "2ELIFREP" : "PERFILE2", 8);
	assert_int_equal(ld64(&im, 8), 16);
	size_t p = 16;
	/* HEADER_ATTR: attr (128) + ids */
	assert_int_equal(ld32(&im, p), PDF_RECORD_HEADER_ATTR);
	assert_int_equal(ld16(&im, p + 6), 8 + 128 + 16);
	assert_int_equal(ld32(&im, p + 8), PDF_TYPE_TRACEPOINT);
	assert_int_equal(ld32(&im, p + 12), 128);
	assert_int_equal(ld64(&im, p + 8 + 128), 7);
	assert_int_equal(ld64(&im, p + 8 + 136), 8);
	p += 8 + 128 + 16;
	/* HEADER_FEATURE records, ascending ids, 8-aligned sizes */
	int feats[8], nf = 0;
	while (ld32(&im, p) == PDF_RECORD_HEADER_FEATURE) {
		uint16_t size = ld16(&im, p + 6);
		assert_int_equal(size % 8, 0);
		assert_true(nf < 8);
		feats[nf++] = (int)ld64(&im, p + 8);
		if (feats[nf - 1] == PDF_FEAT_HOSTNAME) {
			assert_int_equal(ld32(&im, p + 16), 64);
			assert_string_equal((char *)im.p + p + 20, "h");
		}
		p += size;
	}
	assert_int_equal(nf, 3);
	assert_int_equal(feats[0], PDF_FEAT_HOSTNAME);
	assert_int_equal(feats[1], PDF_FEAT_NRCPUS);
	assert_int_equal(feats[2], PDF_FEAT_EVENT_DESC);
	/* HEADER_TRACING_DATA: 16-byte record, u32 size = padded blob, blob follows */
	assert_int_equal(ld32(&im, p), PDF_RECORD_HEADER_TRACING_DATA);
	assert_int_equal(ld16(&im, p + 6), 16);
	assert_int_equal(ld32(&im, p + 8), 16);
	assert_memory_equal(im.p + p + 16, blob, sizeof(blob));
	assert_int_equal(im.p[p + 16 + 13], 0);
	p += 16 + 16;
	/* the late evsel: HEADER_ATTR then a new EVENT_DESC */
	assert_int_equal(ld32(&im, p), PDF_RECORD_HEADER_ATTR);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDF_RECORD_HEADER_FEATURE);
	assert_int_equal(ld64(&im, p + 8), PDF_FEAT_EVENT_DESC);
	assert_int_equal(ld32(&im, p + 16), 2);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDF_RECORD_SAMPLE);
	p += ld16(&im, p + 6);
	assert_int_equal(ld32(&im, p), PDF_RECORD_AUXTRACE);
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
		struct pdw *w = wopen(fd, be, false, 0);
		struct pdf_attr a = tp_attr(1, PDF_SAMPLE_TIME);
		assert_int_equal(pdw_add_evsel(w, &a, "vpa_dtl/dtl_all/", NULL, 0), 0);
		uint64_t priv[3] = { 0, 1, 2 };
		assert_int_equal(pdw_write_auxtrace_info(w, PDF_AUXTRACE_VPA_DTL, priv, 3), 0);
		uint8_t pay[16];
		for (int i = 0; i < 16; i++)
			pay[i] = (uint8_t)(i + 1);
		struct pdr_auxtrace ax = { .offset = 0, .reference = 0, .idx = 0, .tid = (uint32_t)-1,
					   .cpu = 0 };
		assert_int_equal(pdw_write_auxtrace(w, &ax, pay, 13), 0);
		ax.offset = 16;
		ax.cpu = 1;
		ax.idx = 1;
		assert_int_equal(pdw_write_auxtrace(w, &ax, pay, 16), 0);
		assert_int_equal(pdw_finished_round(w), 0);
		struct img im;
		wfinish(w, fd, be, &im);

		size_t d = data_off(&im);
		assert_int_equal(ld32(&im, d), PDF_RECORD_AUXTRACE_INFO);
		assert_int_equal(ld16(&im, d + 6), 16 + 24);
		assert_int_equal(ld32(&im, d + 8), PDF_AUXTRACE_VPA_DTL);
		assert_int_equal(ld64(&im, d + 32), 2);
		size_t off, size;
		assert_true(feat_sec(&im, PDF_FEAT_AUXTRACE, &off, &size));
		assert_int_equal(size, 8 + 2 * 16);
		assert_int_equal(ld64(&im, off), 2);
		size_t r1 = (size_t)ld64(&im, off + 8), r2 = (size_t)ld64(&im, off + 24);
		assert_int_equal(ld64(&im, off + 16), 48);
		assert_int_equal(r1, d + 40);
		assert_int_equal(r2, r1 + 48 + 16);
		assert_int_equal(ld32(&im, r1), PDF_RECORD_AUXTRACE);
		assert_int_equal(ld16(&im, r1 + 6), 48);
		assert_int_equal(ld64(&im, r1 + 8), 16);	/* 13 padded */
		assert_int_equal(ld32(&im, r1 + 36), 0xffffffffu);
		assert_memory_equal(im.p + r1 + 48, pay, 13);
		assert_int_equal(im.p[r1 + 48 + 13], 0);
		assert_int_equal(ld64(&im, r2 + 16), 16);
		assert_int_equal(ld32(&im, r2 + 40), 1);
		assert_int_equal(ld32(&im, r2 + 48 + 16), PDF_RECORD_FINISHED_ROUND);
		free(im.p);
	}
}

/* pdw_open() on a path; HOSTNAME defaults to uname's node name. */
static void test_open_path_default_hostname(void **state)
{
	(void)state;
	char path[] = "/tmp/pdw-test-XXXXXX";
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	close(tfd);
	struct pdw *w;
	struct pdw_opts o = { .big_endian = true };
	assert_int_equal(pdw_open(&w, path, &o), 0);
	struct pdf_attr a = tp_attr(1, PDF_SAMPLE_TIME);
	assert_int_equal(pdw_add_evsel(w, &a, "a", NULL, 0), 0);
	assert_int_equal(pdw_close(w), 0);
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
	im.swap = !BY_HOST_BIG_ENDIAN;
	assert_int_equal(data_size(&im), 0);
	size_t off, size;
	assert_true(feat_sec(&im, PDF_FEAT_HOSTNAME, &off, &size));
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	assert_string_equal((char *)im.p + off + 4, u.nodename);
	assert_false(feat_bit(&im, PDF_FEAT_SAMPLE_TIME));	/* no samples, no times */
	assert_false(feat_bit(&im, PDF_FEAT_AUXTRACE));
	free(im.p);
	assert_int_equal(pdw_open(&w, "/nonexistent-dir/x", NULL), -ENOENT);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void **state)
{
	(void)state;
	struct pdw *w = NULL;
	struct pdw_opts o = { .attr_size = 100 };
	int fd = new_fd();
	assert_int_equal(pdw_open_fd(&w, fd, false, &o), -EINVAL);
	assert_null(w);
	/* file mode needs a seekable descriptor */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	o.attr_size = 0;
	assert_int_equal(pdw_open_fd(&w, pfd[1], false, &o), -ESPIPE);
	/* late evsels in file mode, bad indexes, oversized records */
	w = wopen(fd, false, false, 0);
	struct pdf_attr a = tp_attr(1, PDF_SAMPLE_RAW | PDF_SAMPLE_READ);
	assert_int_equal(pdw_add_evsel(w, &a, "a", NULL, 0), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	assert_int_equal(pdw_add_evsel(w, &a, "b", NULL, 0), -EBUSY);
	struct pdr_sample s = { 0 };
	assert_int_equal(pdw_write_sample(w, 1, 0, &s), -EINVAL);
	assert_int_equal(pdw_write_sample(w, -1, 0, &s), -EINVAL);
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), -EINVAL);	/* READ without data */
	uint8_t rd[16] = { 0 };
	s.read = rd;
	s.read_size = 16;		/* read_format 0 means 8 bytes */
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), -EINVAL);
	s.read_size = 8;
	static uint8_t big[70000];
	s.raw = big;
	s.raw_size = 65520;	/* fits a u16 alone, not with the header and READ */
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), -E2BIG);
	s.raw_size = 16;
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	assert_int_equal(pdw_write_record(w, 1, 0, big, 65528), -EINVAL);
	assert_int_equal(pdw_write_record(w, 1, 0, big, 65520), 0);
	/* recoverable errors are not sticky */
	assert_int_equal(pdw_close(w), 0);
	close(fd);

	/* write errors are sticky and returned by pdw_close() */
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	close(pfd[0]);
	o.pipe = true;
	assert_int_equal(pdw_open_fd(&w, pfd[1], true, &o), 0);
	assert_int_equal(pdw_add_evsel(w, &a, "a", NULL, 0), 0);
	int err = 0;
	for (int i = 0; i < 5000 && !err; i++)
		err = pdw_write_record(w, 1, 0, big, 64);
	assert_int_equal(err, -EPIPE);
	assert_int_equal(pdw_finished_round(w), -EPIPE);
	assert_int_equal(pdw_close(w), -EPIPE);
	signal(SIGPIPE, old);
	assert_int_equal(pdw_close(NULL), 0);
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

static uint32_t bc_u32(struct bcur *c) { return by_ld32(bc_take(c, 4), c->swap); }
static uint64_t bc_u64(struct bcur *c) { return by_ld64(bc_take(c, 8), c->swap); }

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
	struct pdw_tp_format f[] = {
		{ "sched", fmt_a }, { "irq", fmt_c }, { "ftrace", fmt_f }, { "sched", fmt_b },
	};
	void *blob;
	size_t len;
	assert_int_equal(pdw_tracing_data_build(be, 65536, "HP", f, 4, "PK", "1 init\n", &blob, &len), 0);
	struct bcur c = { blob, (const uint8_t *)blob + len, be != (bool)BY_HOST_BIG_ENDIAN };
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

	assert_int_equal(pdw_tracing_data_build(be, 4096, NULL, NULL, 0, NULL, NULL, &blob, &len), 0);
	free(blob);
	struct pdw_tp_format bad = { NULL, "x" };
	assert_int_equal(pdw_tracing_data_build(be, 4096, NULL, &bad, 1, NULL, NULL, &blob, &len), -EINVAL);
}

static void test_tracing_blob_le(void **state) { (void)state; blob_case(false); }
static void test_tracing_blob_be(void **state) { (void)state; blob_case(true); }

/* ------------------------------------------------------------- tfsformat */

static bool have_formats(void)
{
	struct stat st;
	return stat(FORMATS_DIR "/sched/sched_switch/format", &st) == 0;
}

static void test_tfs_collect_offline(void **state)
{
	(void)state;
	if (!have_formats())
		skip();
	struct tfs_formats *f;
	const char *specs[] = { "sched:sched_wak*", "sched:sched_switch", "sched:sched_waking" };
	assert_int_equal(tfs_collect(FORMATS_DIR, specs, 3, &f), 0);
	assert_int_equal(f->nr_events, 4);	/* glob sorted, duplicates kept once */
	assert_string_equal(f->events[0].name, "sched_wakeup");
	assert_string_equal(f->events[1].name, "sched_wakeup_new");
	assert_string_equal(f->events[2].name, "sched_waking");
	assert_string_equal(f->events[3].name, "sched_switch");
	const struct tfs_event *sw = tfs_find(f, "sched", "sched_switch");
	assert_non_null(sw);
	assert_true(sw->id > 0);
	char want[32];
	snprintf(want, sizeof(want), "\nID: %llu\n", (unsigned long long)sw->id);
	assert_non_null(strstr(sw->format, want));
	assert_non_null(strstr(f->header_page, "commit"));
	assert_null(tfs_find(f, "irq", "irq_handler_entry"));

	/* The blob parses with libtraceevent the way perf parses it. */
	void *blob;
	size_t len;
	assert_int_equal(tfs_tracing_data(f, false, &blob, &len), 0);
	assert_true(len > 1000);
	free(blob);
	tfs_free(f);

	const char *sys_only[] = { "irq" };
	assert_int_equal(tfs_collect(FORMATS_DIR, sys_only, 1, &f), 0);
	assert_true(f->nr_events >= 5);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_string_equal(f->events[i].system, "irq");
	tfs_free(f);

	const char *none[] = { "nosuch:*" };
	assert_int_equal(tfs_collect(FORMATS_DIR, none, 1, &f), -ENOENT);
	const char *bad[] = { ":x" };
	assert_int_equal(tfs_collect(FORMATS_DIR, bad, 1, &f), -EINVAL);
	const char *bad2[] = { "sched:" };
	assert_int_equal(tfs_collect(FORMATS_DIR, bad2, 1, &f), -EINVAL);
	tfs_free(NULL);
}

static void test_tfs_live(void **state)
{
	(void)state;
	struct tfs_formats *f;
	const char *specs[] = { "sched:sched_switch" };
	if (tfs_collect(NULL, specs, 1, &f) < 0)
		skip();	/* no readable tracefs here */
	assert_int_equal(f->nr_events, 1);
	FILE *idf = fopen("/sys/kernel/tracing/events/sched/sched_switch/id", "r");
	if (idf) {
		unsigned long long id = 0;
		assert_int_equal(fscanf(idf, "%llu", &id), 1);
		fclose(idf);
		assert_int_equal(f->events[0].id, id);
	}
	assert_true(f->page_size >= 4096);
	tfs_free(f);
}

/* ------------------------------------------- writer -> reader round trips */

struct rt_expect {
	uint64_t time;
	uint32_t pid, cpu;
	int evsel;
	uint8_t raw[64];
	uint32_t raw_size;
};

#define RT_N 300

/* The formats of specs from tests/data/formats and their tracing-data blob
 * (caller frees both: tfs_free, free). */
static void sched_formats(const char **specs, size_t n, bool be, struct tfs_formats **tf,
			  void **blob, size_t *blen)
{
	assert_int_equal(tfs_collect(FORMATS_DIR, specs, n, tf), 0);
	assert_int_equal(tfs_tracing_data(*tf, be, blob, blen), 0);
}

static void roundtrip_case(bool be, bool pipe)
{
	if (!have_formats())
		skip();
	struct tfs_formats *tf;
	const char *specs[] = { "sched:sched_switch", "sched:sched_wakeup" };
	void *blob;
	size_t blen;
	sched_formats(specs, 2, be, &tf, &blob, &blen);

	int fd = new_fd();
	struct pdw *w = wopen(fd, be, pipe, 0);
	bool swap = pdw_needs_swap(w);
	uint64_t st = PDF_SAMPLE_IP | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU |
		      PDF_SAMPLE_PERIOD | PDF_SAMPLE_RAW | PDF_SAMPLE_IDENTIFIER;
	uint64_t ids[2][2] = { { 101, 102 }, { 103, 104 } };
	for (int i = 0; i < 2; i++) {
		struct pdf_attr a = tp_attr(tf->events[i].id, st);
		assert_int_equal(pdw_add_evsel(w, &a, specs[i], ids[i], 2), i);
	}
	assert_int_equal(pdw_set_tracing_data(w, blob, blen), 0);
	free(blob);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "rt-host"), 0);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_ARCH, be ? "ppc64" : "x86_64"), 0);
	assert_int_equal(pdw_set_nrcpus(w, 8, 2), 0);
	const char *argv[] = { "latscope", "hist", "record" };
	assert_int_equal(pdw_set_cmdline(w, 3, argv), 0);
	if (pipe)
		assert_int_equal(pdw_set_sample_time(w, 0, 0), 0);
	assert_int_equal(pdw_begin_data(w), 0);

	uint8_t body[24] = { 0 };
	by_st32(body, 500, swap);
	by_st32(body + 4, 500, swap);
	memcpy(body + 8, "worker", 7);
	struct pdr_sample cs = { .pid = 500, .tid = 500, .time = 1, .cpu = 0, .id = 101 };
	assert_int_equal(pdw_write_with_trailer(w, 0, PDF_RECORD_COMM, 0, body, 15, &cs), 0);

	uint64_t priv[1] = { 0 };
	assert_int_equal(pdw_write_auxtrace_info(w, PDF_AUXTRACE_VPA_DTL, priv, 1), 0);
	uint8_t pay[40];
	for (int i = 0; i < 40; i++)
		pay[i] = (uint8_t)(3 * i);
	struct pdr_auxtrace ax = { .offset = 4096, .idx = 1, .tid = (uint32_t)-1, .cpu = 1 };
	assert_int_equal(pdw_write_auxtrace(w, &ax, pay, 37), 0);

	static struct rt_expect ex[RT_N];
	uint64_t t = 2000000000ULL;
	for (int n = 0; n < RT_N; n++) {
		struct rt_expect *e = &ex[n];
		t += 1000 + (uint64_t)(n * 37 % 500);
		e->time = t;
		e->evsel = n % 3 == 0;
		e->cpu = (uint32_t)(n & 1);
		e->pid = 500 + (uint32_t)(n % 7);
		const struct tfs_event *te = &tf->events[e->evsel];
		e->raw_size = e->evsel ? 36 : 64;
		memset(e->raw, 0, sizeof(e->raw));
		by_st16(e->raw, (uint16_t)te->id, swap);
		by_st32(e->raw + 4, e->pid, swap);
		snprintf((char *)e->raw + 8, 16, "w%d", n);
		by_st32(e->raw + 24, e->pid + 1, swap);
		struct pdr_sample s = { .ip = 0xffffffff81000000ULL + (uint64_t)n, .pid = e->pid,
					.tid = e->pid, .time = e->time, .cpu = e->cpu, .period = 1,
					.id = ids[e->evsel][e->cpu], .raw = e->raw,
					.raw_size = e->raw_size };
		assert_int_equal(pdw_write_sample(w, e->evsel, PDF_MISC_KERNEL, &s), 0);
		if (n % 50 == 49)
			assert_int_equal(pdw_finished_round(w), 0);
	}
	struct img im;
	wfinish(w, fd, be, &im);

	struct pdr *r = NULL;
	int err = pdr_open_mem(&r, im.p, im.len, NULL);
	if (err)
		fail_msg("pdr_open_mem: %s", r ? pdr_strerror(r) : strerror(-err));
	const struct pdr_info *in = pdr_info(r);
	assert_int_equal(in->pipe, pipe);
	assert_int_equal(in->big_endian, be);
	assert_int_equal(in->needs_swap, swap);
	assert_int_equal(pdr_needs_swap(r), swap);
	if (!pipe) {
		assert_string_equal(in->hostname, "rt-host");
		assert_string_equal(in->arch, be ? "ppc64" : "x86_64");
		assert_int_equal(in->nr_cpus_avail, 8);
		assert_int_equal(in->nr_cpus_online, 2);
		assert_string_equal(in->cmdline, "latscope hist record");
		assert_int_equal(in->first_sample_time, ex[0].time);
		assert_int_equal(in->last_sample_time, ex[RT_N - 1].time);
		assert_int_equal(in->nr_auxtrace_index, 1);
		uint64_t aoff = 0;
		assert_int_equal(pdr_auxtrace_index(r, 0, &aoff, NULL), 0);
		assert_int_equal(ld32(&im, (size_t)aoff), PDF_RECORD_AUXTRACE);
		assert_int_equal(pdr_auxtrace_index(r, 1, &aoff, NULL), -ERANGE);
		assert_int_equal(in->data_size, ld64(&im, 48));
		assert_non_null(pdr_tep(r));
		assert_int_equal(pdr_nr_evsels(r), 2);
	}

	int samples[2] = { 0, 0 }, comms = 0, auxs = 0, infos = 0, n = 0;
	struct pdr_event ev;
	while ((err = pdr_next(r, &ev)) > 0) {
		if (ev.type == PDF_RECORD_COMM) {
			comms++;
			assert_true(ev.has_sample);
			assert_int_equal(ev.sample.time, 1);
			assert_int_equal(ev.sample.pid, 500);
			assert_string_equal((const char *)ev.data + 16, "worker");
		} else if (ev.type == PDF_RECORD_AUXTRACE) {
			auxs++;
			assert_int_equal(ev.auxtrace.size, 40);
			assert_int_equal(ev.auxtrace.offset, 4096);
			assert_int_equal(ev.auxtrace.cpu, 1);
			assert_int_equal(ev.auxtrace.idx, 1);
			assert_int_equal(ev.aux_size, 40);
			assert_memory_equal(ev.aux_data, pay, 37);
		} else if (ev.type == PDF_RECORD_AUXTRACE_INFO) {
			infos++;
		} else if (ev.type == PDF_RECORD_SAMPLE) {
			assert_true(n < RT_N);
			const struct rt_expect *e = &ex[n++];
			assert_non_null(ev.evsel);
			assert_int_equal(ev.evsel->idx, e->evsel);
			assert_true(ev.has_sample);
			assert_int_equal(ev.misc, PDF_MISC_KERNEL);
			assert_int_equal(ev.sample.time, e->time);
			assert_int_equal(ev.sample.pid, e->pid);
			assert_int_equal(ev.sample.cpu, e->cpu);
			assert_int_equal(ev.sample.id, ids[e->evsel][e->cpu]);
			assert_true(ev.sample.raw_size >= e->raw_size);
			assert_memory_equal(ev.sample.raw, e->raw, e->raw_size);
			samples[e->evsel]++;
		}
	}
	if (err < 0)
		fail_msg("pdr_next: %s", pdr_strerror(r));
	assert_int_equal(n, RT_N);
	assert_int_equal(samples[1], RT_N / 3);
	assert_int_equal(comms, 1);
	assert_int_equal(auxs, 1);
	assert_int_equal(infos, 1);
	assert_int_equal(pdr_stats(r)->unknown_id, 0);
	assert_int_equal(pdr_stats(r)->bad_samples, 0);

	/* After the stream: evsel names, ids, formats and features. */
	assert_int_equal(pdr_nr_evsels(r), 2);
	for (int i = 0; i < 2; i++) {
		const struct pdr_evsel *e = pdr_evsel(r, (size_t)i);
		assert_non_null(e);
		assert_non_null(e->name);
		assert_string_equal(e->name, specs[i]);
		assert_int_equal(e->nr_ids, 2);
		assert_int_equal(e->ids[1], ids[i][1]);
		assert_int_equal(e->attr.config, tf->events[i].id);
		assert_int_equal(e->attr.sample_type, st);
		assert_true(pdf_attr_flag(&e->attr, PDF_ATTR_FLAG_SAMPLE_ID_ALL));
		assert_non_null(e->tp);
		assert_ptr_equal(pdr_evsel_by_id(r, ids[i][0]), e);
	}
	struct tep_handle *tep = pdr_tep(r);
	assert_non_null(tep);
	assert_non_null(tep_find_event_by_name(tep, "sched", "sched_switch"));
	assert_int_equal(tep_is_file_bigendian(tep), be);
	if (pipe) {
		assert_string_equal(in->hostname, "rt-host");
		assert_int_equal(in->nr_cpus_online, 2);
		assert_string_equal(in->cmdline, "latscope hist record");
		assert_int_equal(in->nr_auxtrace_index, 0);
	}
	pdr_close(r);
	free(im.p);
	tfs_free(tf);
}

/* ------------------------------------------------ checkpoints (kill-safe) */

/* What is on disk now, as a reader of a killed writer's file would see it. */
static void snap(int fd, struct img *im)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	im->len = (size_t)st.st_size;
	im->p = malloc(im->len ? im->len : 1);
	assert_non_null(im->p);
	assert_int_equal(pread(fd, im->p, im->len, 0), (ssize_t)im->len);
}

struct ck_read {
	int samples;
	uint64_t last_time;
	bool unterminated;
	uint64_t checkpoint_size, data_offset, tail;
	bool tep, version_ok, names_ok;
	uint64_t dups;
};

static void ck_read(const struct img *im, struct ck_read *o)
{
	struct pdr *r = NULL;
	int err = pdr_open_mem(&r, im->p, im->len, NULL);
	if (err)
		fail_msg("pdr_open_mem: %s", r ? pdr_strerror(r) : strerror(-err));
	memset(o, 0, sizeof(*o));
	struct pdr_event ev;
	while ((err = pdr_next(r, &ev)) > 0) {
		if (ev.type != PDF_RECORD_SAMPLE)
			continue;
		o->samples++;
		o->last_time = ev.sample.time;
		/* the formats and the names are known by the first sample */
		o->tep = pdr_tep(r) != NULL && ev.evsel && ev.evsel->tp != NULL;
		o->names_ok = ev.evsel && ev.evsel->name && !strncmp(ev.evsel->name, "sched:", 6);
	}
	if (err < 0)
		fail_msg("pdr_next: %s", pdr_strerror(r));
	const struct pdr_info *in = pdr_info(r);
	o->unterminated = in->unterminated;
	o->checkpoint_size = in->checkpoint_size;
	o->data_offset = in->data_offset;
	o->tail = in->unterminated_tail;
	o->version_ok = in->version && !strcmp(in->version, "ck-test 1");
	o->dups = in->dup_tracing_data;
	pdr_close(r);
}

static void checkpoint_case(bool be)
{
	if (!have_formats())
		skip();
	struct tfs_formats *tf;
	const char *specs[] = { "sched:sched_switch", "sched:sched_wakeup" };
	void *blob;
	size_t blen;
	sched_formats(specs, 2, be, &tf, &blob, &blen);

	int fd = new_fd();
	struct pdw *w = NULL;
	/* an hour between checkpoints: only the forced ones happen, however
	 * slow the machine (the "not due" check below must not race a timer) */
	struct pdw_opts o = { .big_endian = be, .checkpoint = true, .checkpoint_ns = 3600000000000ULL };
	assert_int_equal(pdw_open_fd(&w, fd, false, &o), 0);
	bool swap = pdw_needs_swap(w);
	uint64_t st = PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU | PDF_SAMPLE_RAW |
		      PDF_SAMPLE_IDENTIFIER;
	uint64_t ids[2] = { 11, 12 };
	for (int i = 0; i < 2; i++) {
		struct pdf_attr a = tp_attr(tf->events[i].id, st);
		assert_int_equal(pdw_add_evsel(w, &a, specs[i], &ids[i], 1), i);
	}
	assert_int_equal(pdw_set_tracing_data(w, blob, blen), 0);
	free(blob);
	assert_int_equal(pdw_set_string_feature(w, PDF_FEAT_VERSION, "ck-test 1"), 0);
	assert_int_equal(pdw_begin_data(w), 0);

	uint8_t raw[64] = { 0 };
	by_st16(raw, (uint16_t)tf->events[0].id, swap);
	uint64_t t = 1000;
	int n = 0;
#define CK_WRITE(count) do { \
		for (int k = 0; k < (count); k++, n++) { \
			struct pdr_sample s = { .pid = 7, .tid = 7, .time = t += 10, .cpu = 0, \
						.id = ids[0], .raw = raw, .raw_size = 64 }; \
			assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0); \
		} \
	} while (0)

	/* before the first checkpoint: header with data size 0, no data on
	 * disk yet (buffered): nothing to read */
	CK_WRITE(10);
	struct img im;
	struct ck_read rd;

	/* a checkpoint: everything so far readable, formats, names, features */
	assert_int_equal(pdw_checkpoint(w, true), 0);
	CK_WRITE(5);			/* buffered: lost by a kill now */
	snap(fd, &im);
	ck_read(&im, &rd);
	assert_int_equal(rd.samples, 10);
	assert_int_equal(rd.last_time, 1100);
	assert_true(rd.unterminated);
	assert_true(rd.checkpoint_size > 0);
	assert_true(rd.tep);
	assert_true(rd.names_ok);
	assert_true(rd.version_ok);
	assert_int_equal(rd.tail, 0);
	free(im.p);

	/* not due yet: no work (the buffer is not flushed) */
	uint64_t before = rd.checkpoint_size;
	assert_int_equal(pdw_checkpoint(w, false), 0);
	snap(fd, &im);
	ck_read(&im, &rd);
	assert_int_equal(rd.checkpoint_size, before);
	assert_int_equal(rd.samples, 10);
	free(im.p);

	/* a kill after the buffer spilled past the checkpoint, in the middle
	 * of a record: the records after the checkpoint are read, the torn
	 * one is left out and counted */
	CK_WRITE(1500);			/* > 64 KiB: flushed on the way */
	snap(fd, &im);
	size_t cut = im.len - 40;	/* tear the last record */
	struct img torn = { .p = im.p, .len = cut };
	ck_read(&torn, &rd);
	assert_true(rd.unterminated);
	assert_int_equal(rd.checkpoint_size, before);
	assert_true(rd.samples > 15);
	assert_true(rd.samples < n);
	assert_true(rd.tail > 0);
	free(im.p);

	/* the finished file: a normal recording (features, exact data size),
	 * its data section after the checkpoint's header records, no second
	 * copy of the formats for perf to choke on */
	assert_int_equal(pdw_close(w), 0);
	snap(fd, &im);
	close(fd);
	ck_read(&im, &rd);
	assert_false(rd.unterminated);
	assert_int_equal(rd.checkpoint_size, 0);
	assert_int_equal(rd.samples, n);
	assert_true(rd.tep);
	assert_true(rd.names_ok);
	assert_true(rd.version_ok);
	assert_int_equal(rd.dups, 0);
	/* the data section starts at a sample, not at a header record */
	uint32_t first_type = by_ld32(im.p + rd.data_offset, be != (bool)BY_HOST_BIG_ENDIAN);
	assert_int_equal(first_type, PDF_RECORD_SAMPLE);
	free(im.p);
	tfs_free(tf);
#undef CK_WRITE
}

static void test_checkpoint_le(void **state) { (void)state; checkpoint_case(false); }
static void test_checkpoint_be(void **state) { (void)state; checkpoint_case(true); }

/* A second copy of the tracing data (a file with the feature and the record)
 * is skipped and counted, never swapped under the bound events. */
static void test_dup_tracing_data(void **state)
{
	(void)state;
	if (!have_formats())
		skip();
	struct tfs_formats *tf;
	const char *specs[] = { "sched:sched_switch" };
	void *blob;
	size_t blen;
	sched_formats(specs, 1, false, &tf, &blob, &blen);
	int fd = new_fd();
	struct pdw *w = wopen(fd, false, false, 0);
	uint64_t id = 5;
	struct pdf_attr a = tp_attr(tf->events[0].id, PDF_SAMPLE_TIME | PDF_SAMPLE_RAW | PDF_SAMPLE_IDENTIFIER);
	assert_int_equal(pdw_add_evsel(w, &a, specs[0], &id, 1), 0);
	assert_int_equal(pdw_set_tracing_data(w, blob, blen), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	size_t padded = (blen + 7) & ~(size_t)7;
	uint8_t raw[64] = { 0 };
	by_st16(raw, (uint16_t)tf->events[0].id, false);
	struct pdr_sample s = { .time = 5, .id = id, .raw = raw, .raw_size = 64 };
	assert_int_equal(pdw_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, false, &im);
	/* splice a HEADER_TRACING_DATA record + blob in front of the sample */
	size_t doff = (size_t)ld64(&im, 40), dsize = (size_t)ld64(&im, 48);
	size_t add = 16 + padded;
	uint8_t *np = calloc(1, im.len + add);
	assert_non_null(np);
	memcpy(np, im.p, doff);
	by_st32(np + doff, PDF_RECORD_HEADER_TRACING_DATA, false);
	by_st16(np + doff + 4, 0, false);
	by_st16(np + doff + 6, 16, false);
	by_st32(np + doff + 8, (uint32_t)padded, false);
	memcpy(np + doff + 16, blob, blen);
	memcpy(np + doff + add, im.p + doff, im.len - doff);
	by_st64(np + 48, dsize + add, false);
	/* the feature table follows the data: its offsets move by add */
	uint64_t bits = ld64(&im, 72);
	size_t nf = (size_t)__builtin_popcountll(bits);
	for (size_t i = 0; i < nf; i++) {
		size_t e = doff + add + dsize + 16 * i;
		by_st64(np + e, by_ld64(np + e, false) + add, false);
	}
	free(im.p);
	free(blob);
	struct img im2 = { .p = np, .len = im.len + add };
	struct pdr *r = NULL;
	assert_int_equal(pdr_open_mem(&r, im2.p, im2.len, NULL), 0);
	struct tep_handle *tep0 = pdr_tep(r);
	assert_non_null(tep0);
	struct pdr_event ev;
	int samples = 0, err;
	while ((err = pdr_next(r, &ev)) > 0)
		if (ev.type == PDF_RECORD_SAMPLE) {
			samples++;
			assert_non_null(ev.evsel->tp);
		}
	assert_int_equal(err, 0);
	assert_int_equal(samples, 1);
	assert_ptr_equal(pdr_tep(r), tep0);
	assert_int_equal(pdr_info(r)->dup_tracing_data, 1);
	pdr_close(r);
	free(np);
	tfs_free(tf);
}

/* The COMM records of every live thread, as perf record starts: this
 * process's own thread is among them under its name, with the evsel's id. */
static void test_task_comms(void **state)
{
	(void)state;
	int fd = new_fd();
	struct pdw *w = wopen(fd, false, false, 0);
	struct pdf_attr a = tp_attr(1, PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_IDENTIFIER);
	uint64_t id = 77;
	assert_int_equal(pdw_add_evsel(w, &a, "sched:sched_switch", &id, 1), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	assert_int_equal(pdw_write_task_comms(w, 0, NULL), 0);
	assert_int_equal(pdw_write_task_comms(w, 3, NULL), -EINVAL);
	assert_true(pdw_write_task_comms(w, 0, "/nonexistent") < 0);
	struct img im;
	wfinish(w, fd, false, &im);
	struct pdr *r = NULL;
	assert_int_equal(pdr_open_mem(&r, im.p, im.len, NULL), 0);
	struct pdr_event ev;
	int n = 0, mine = 0, err;
	char self[16] = "";
	FILE *f = fopen("/proc/thread-self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(self, sizeof(self), f));
	fclose(f);
	self[strcspn(self, "\n")] = '\0';
	while ((err = pdr_next(r, &ev)) > 0) {
		if (ev.type != PDF_RECORD_COMM)
			continue;
		n++;
		assert_true(ev.has_sample);
		assert_int_equal(ev.sample.id, 77);
		uint32_t pid = by_ld32(ev.data + 8, false), tid = by_ld32(ev.data + 12, false);
		if (tid == (uint32_t)syscall(SYS_gettid)) {
			mine++;
			assert_int_equal(pid, (uint32_t)getpid());
			assert_string_equal((const char *)ev.data + 16, self);
		}
	}
	assert_int_equal(err, 0);
	assert_true(n > 1);	/* init and this process at least */
	assert_int_equal(mine, 1);
	pdr_close(r);
	free(im.p);
}

static void test_roundtrip_file_le(void **state) { (void)state; roundtrip_case(false, false); }
static void test_roundtrip_file_be(void **state) { (void)state; roundtrip_case(true, false); }
static void test_roundtrip_pipe_le(void **state) { (void)state; roundtrip_case(false, true); }
static void test_roundtrip_pipe_be(void **state) { (void)state; roundtrip_case(true, true); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_header_le),
		cmocka_unit_test(test_file_header_be),
		cmocka_unit_test(test_attr_layout),
		cmocka_unit_test(test_attr_size_config3),
		cmocka_unit_test(test_features_le),
		cmocka_unit_test(test_features_be),
		cmocka_unit_test(test_sample_combos),
		cmocka_unit_test(test_sample_bytes_be),
		cmocka_unit_test(test_raw_padding),
		cmocka_unit_test(test_trailer),
		cmocka_unit_test(test_pipe_le),
		cmocka_unit_test(test_pipe_be),
		cmocka_unit_test(test_auxtrace_index),
		cmocka_unit_test(test_open_path_default_hostname),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tracing_blob_le),
		cmocka_unit_test(test_tracing_blob_be),
		cmocka_unit_test(test_tfs_collect_offline),
		cmocka_unit_test(test_tfs_live),
		cmocka_unit_test(test_task_comms),
		cmocka_unit_test(test_checkpoint_le),
		cmocka_unit_test(test_checkpoint_be),
		cmocka_unit_test(test_dup_tracing_data),
		cmocka_unit_test(test_roundtrip_file_le),
		cmocka_unit_test(test_roundtrip_file_be),
		cmocka_unit_test(test_roundtrip_pipe_le),
		cmocka_unit_test(test_roundtrip_pipe_be),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
