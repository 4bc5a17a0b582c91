/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/pdwrite (perf.data writer): byte layouts checked by
 * hand in both byte orders: the file header, attrs, features, samples.
 * test_pdwrite_io.c and test_pdwrite_rt.c have the rest.
 */
#include "test_pdwrite.h"

/* ----------------------------------------------------- file header, attrs */

static void file_header_case(bool be)
{
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, false, 0);
	assert_int_equal(pdwrite_needs_swap(w), be != (bool)BYTES_HOST_BIG_ENDIAN);
	struct pdformat_attr a = tp_attr(372, PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_IDENTIFIER);
	uint64_t ids[2] = { 7, 8 };
	assert_int_equal(pdwrite_add_evsel(w, &a, "sched:sched_switch", ids, 2), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "h"), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	struct pdread_sample s = { .time = 5, .id = 7 };
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
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
	assert_int_equal(ld32(&im, 120), PDFORMAT_TYPE_TRACEPOINT);
	assert_int_equal(ld32(&im, 124), 128);
	assert_int_equal(ld64(&im, 128), 372);
	assert_int_equal(ld64(&im, 120 + 128), 104);
	assert_int_equal(ld64(&im, 120 + 136), 16);
	/* Features: HOSTNAME, EVENT_DESC, SAMPLE_TIME, nothing else. */
	for (int f = 0; f < PDFORMAT_FEAT_BITS; f++)
		assert_int_equal(feat_bit(&im, f), f == PDFORMAT_FEAT_HOSTNAME ||
				 f == PDFORMAT_FEAT_EVENT_DESC || f == PDFORMAT_FEAT_SAMPLE_TIME);
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
	assert_int_equal(ld32(&im, d), PDFORMAT_RECORD_SAMPLE);
	assert_int_equal(ld16(&im, d + 6), 24);
	assert_int_equal(ld64(&im, d + 8), 7);
	assert_int_equal(ld64(&im, d + 16), 5);
	/* SAMPLE_TIME tracked from the samples. */
	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_SAMPLE_TIME, &off, &size));
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
	struct pdwrite *w = wopen(fd, be, false, attr_size);
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.size = 64;		/* ignored: the writer's attr_size is written */
	a.config = 0x0102030405060708ULL;
	a.sample_period = 4000;
	a.sample_type = PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID;
	a.read_format = PDFORMAT_FORMAT_ID;
	a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_FREQ) |
		  (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) | (1ULL << PDFORMAT_ATTR_FLAG_USE_CLOCKID) |
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
	assert_int_equal(pdwrite_add_evsel(w, &a, "raw", NULL, 0), 0);
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
	assert_int_equal(ld64(&im, p + 24), PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID);
	assert_int_equal(ld64(&im, p + 32), PDFORMAT_FORMAT_ID);
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
	struct pdformat_attr back;
	size_t used;
	assert_int_equal(pdread_decode_attr(im.p + p, asz, im.swap, &back, &used), 0);
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
	attr_case(false, PDFORMAT_ATTR_VER0);
	attr_case(true, PDFORMAT_ATTR_VER0);
	attr_case(true, PDFORMAT_ATTR_VER8);
}

static void test_attr_size_config3(void **state)
{
	(void)state;
	/* auto size: VER7, raised to VER8 by an evsel with config3 */
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, false, false, 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TIME);
	assert_int_equal(pdwrite_add_evsel(w, &a, "a", NULL, 0), 0);
	a.config3 = 0x33;
	assert_int_equal(pdwrite_add_evsel(w, &a, "b", NULL, 0), 1);
	struct img im;
	wfinish(w, fd, false, &im);
	assert_int_equal(ld64(&im, 16), 152);
	size_t p = (size_t)ld64(&im, 24);
	assert_int_equal(ld32(&im, p + 4), 136);
	assert_int_equal(ld64(&im, p + 152 + 128), 0x33);
	free(im.p);

	/* explicit VER7 cannot hold config3 */
	fd = new_fd();
	w = wopen(fd, false, false, PDFORMAT_ATTR_VER7);
	assert_int_equal(pdwrite_add_evsel(w, &a, "b", NULL, 0), -EINVAL);
	pdwrite_close(w);
	close(fd);
}

/* ------------------------------------------------------ features, strings */

static void features_case(bool be)
{
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, false, 0);
	struct pdformat_attr a = tp_attr(372, PDFORMAT_SAMPLE_TIME);
	uint64_t ids[3] = { 21, 22, 23 };
	assert_int_equal(pdwrite_add_evsel(w, &a, "sched:sched_switch", ids, 3), 0);
	char s63[64], s64[65];
	memset(s63, 'x', 63);
	s63[63] = '\0';
	memset(s64, 'y', 64);
	s64[64] = '\0';
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "host"), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_OSRELEASE, s63), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_VERSION, s64), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_ARCH, ""), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_NRCPUS, "x"), -EINVAL);
	assert_int_equal(pdwrite_set_nrcpus(w, 4, 2), 0);
	const char *argv[] = { "latscope", "record" };
	assert_int_equal(pdwrite_set_cmdline(w, 2, argv), 0);
	assert_int_equal(pdwrite_set_sample_time(w, 100, 200), 0);
	static const uint8_t raw5[5] = { 1, 2, 3, 4, 5 };
	assert_int_equal(pdwrite_set_raw_feature(w, PDFORMAT_FEAT_PMU_CAPS, raw5, 5), 0);
	assert_int_equal(pdwrite_set_raw_feature(w, 0, raw5, 5), -EINVAL);
	assert_int_equal(pdwrite_set_raw_feature(w, PDFORMAT_FEAT_BITS, raw5, 5), -EINVAL);
	uint8_t td[3] = { 0x17, 0x08, 0x44 };
	assert_int_equal(pdwrite_set_tracing_data(w, td, 3), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	struct pdread_sample s = { .time = 150 };	/* explicit SAMPLE_TIME wins */
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	/* Table: one {offset,size} per set bit, ascending; payloads 8-aligned
	 * after the table, in the same order. */
	static const int want[] = { PDFORMAT_FEAT_TRACING_DATA, PDFORMAT_FEAT_HOSTNAME, PDFORMAT_FEAT_OSRELEASE,
				    PDFORMAT_FEAT_VERSION, PDFORMAT_FEAT_ARCH, PDFORMAT_FEAT_NRCPUS,
				    PDFORMAT_FEAT_CMDLINE, PDFORMAT_FEAT_EVENT_DESC, PDFORMAT_FEAT_SAMPLE_TIME,
				    PDFORMAT_FEAT_PMU_CAPS };
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
	for (int f = 0; f < PDFORMAT_FEAT_BITS; f++)
		nbits += feat_bit(&im, f);
	assert_int_equal(nbits, (int)nw);

	size_t off, size;
	assert_true(feat_sec(&im, PDFORMAT_FEAT_TRACING_DATA, &off, &size));
	assert_int_equal(size, 3);
	assert_memory_equal(im.p + off, td, 3);
	/* strings: u32 len = strlen+1 rounded up to 64, NUL padded */
	assert_true(feat_sec(&im, PDFORMAT_FEAT_HOSTNAME, &off, &size));
	assert_int_equal(size, 4 + 64);
	assert_int_equal(ld32(&im, off), 64);
	assert_string_equal((char *)im.p + off + 4, "host");
	for (size_t i = 4 + 5; i < size; i++)
		assert_int_equal(im.p[off + i], 0);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_OSRELEASE, &off, &size));
	assert_int_equal(ld32(&im, off), 64);
	assert_int_equal(size, 68);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_VERSION, &off, &size));
	assert_int_equal(ld32(&im, off), 128);
	assert_int_equal(size, 132);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_ARCH, &off, &size));
	assert_int_equal(ld32(&im, off), 64);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_NRCPUS, &off, &size));
	assert_int_equal(size, 8);
	assert_int_equal(ld32(&im, off), 4);
	assert_int_equal(ld32(&im, off + 4), 2);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_CMDLINE, &off, &size));
	assert_int_equal(size, 4 + 2 * 68);
	assert_int_equal(ld32(&im, off), 2);
	assert_string_equal((char *)im.p + off + 8, "latscope");
	assert_string_equal((char *)im.p + off + 8 + 68, "record");
	assert_true(feat_sec(&im, PDFORMAT_FEAT_SAMPLE_TIME, &off, &size));
	assert_int_equal(ld64(&im, off), 100);
	assert_int_equal(ld64(&im, off + 8), 200);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_PMU_CAPS, &off, &size));
	assert_int_equal(size, 5);
	assert_memory_equal(im.p + off, raw5, 5);
	/* EVENT_DESC: nr, attr_size, {attr, nr_ids, string, ids} */
	assert_true(feat_sec(&im, PDFORMAT_FEAT_EVENT_DESC, &off, &size));
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
static size_t expect_body(const struct pdformat_attr *a, const struct pdread_sample *s)
{
	uint64_t t = a->sample_type;
	size_t n = 0;
	static const uint64_t u64s[] = { PDFORMAT_SAMPLE_IDENTIFIER, PDFORMAT_SAMPLE_IP, PDFORMAT_SAMPLE_TID,
		PDFORMAT_SAMPLE_TIME, PDFORMAT_SAMPLE_ADDR, PDFORMAT_SAMPLE_ID, PDFORMAT_SAMPLE_STREAM_ID,
		PDFORMAT_SAMPLE_CPU, PDFORMAT_SAMPLE_PERIOD, PDFORMAT_SAMPLE_DATA_SRC, PDFORMAT_SAMPLE_TRANSACTION,
		PDFORMAT_SAMPLE_PHYS_ADDR, PDFORMAT_SAMPLE_CGROUP, PDFORMAT_SAMPLE_DATA_PAGE_SIZE,
		PDFORMAT_SAMPLE_CODE_PAGE_SIZE };
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++)
		n += (t & u64s[i]) ? 8 : 0;
	if (t & (PDFORMAT_SAMPLE_WEIGHT | PDFORMAT_SAMPLE_WEIGHT_STRUCT))
		n += 8;
	if (t & PDFORMAT_SAMPLE_READ)
		n += s->read_size;
	if (t & PDFORMAT_SAMPLE_CALLCHAIN)
		n += 8 + 8 * s->callchain_nr;
	if (t & PDFORMAT_SAMPLE_RAW)
		n += (4 + s->raw_size + 7) / 8 * 8;
	if (t & PDFORMAT_SAMPLE_BRANCH_STACK) {
		n += 8 + 24 * s->branch_nr;
		if (a->branch_sample_type & PDFORMAT_BRANCH_HW_INDEX)
			n += 8;
		if (a->branch_sample_type & PDFORMAT_BRANCH_COUNTERS)
			n += 8 * s->branch_nr;
	}
	if (t & PDFORMAT_SAMPLE_REGS_USER)
		n += 8 + (s->user_regs_abi ? 8 * (size_t)__builtin_popcountll(a->sample_regs_user) : 0);
	if (t & PDFORMAT_SAMPLE_STACK_USER)
		n += 8 + (s->user_stack_size ? (s->user_stack_size + 7) / 8 * 8 + 8 : 0);
	if (t & PDFORMAT_SAMPLE_REGS_INTR)
		n += 8 + (s->intr_regs_abi ? 8 * (size_t)__builtin_popcountll(a->sample_regs_intr) : 0);
	if (t & PDFORMAT_SAMPLE_AUX)
		n += 8 + (s->aux_size + 7) / 8 * 8;
	return n;
}

/* Write one sample of type t for attr a in byte order be; parse it back
 * with the reader's sample parser and compare. */
static void sample_roundtrip(bool be, struct pdformat_attr a, unsigned raw_size, unsigned variant)
{
	bool swap = be != (bool)BYTES_HOST_BIG_ENDIAN;
	uint8_t raw[64], cc[3 * 8], br[2 * 24], regs[3 * 8], stack[16], aux[13], rd[5 * 8];
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(0xA0 + i);
	for (int i = 0; i < 3; i++) {
		bytes_st64(cc + 8 * i, 0xffffffff81000000ULL + (uint64_t)i, swap);
		bytes_st64(regs + 8 * i, 0x1000 + (uint64_t)i, swap);
	}
	for (size_t i = 0; i < sizeof(br); i++)
		br[i] = (uint8_t)i;
	memset(stack, 0x5a, sizeof(stack));
	memset(aux, 0x3c, sizeof(aux));
	struct pdread_sample s = {
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
	if (a.sample_type & PDFORMAT_SAMPLE_READ) {
		/* non-group: value, [enabled], [running], [id], [lost] */
		size_t n = 0;
		if (a.read_format & PDFORMAT_FORMAT_GROUP)
			bytes_st64(rd + 8 * n++, 2, swap);
		if (a.read_format & PDFORMAT_FORMAT_TOTAL_TIME_ENABLED)
			bytes_st64(rd + 8 * n++, 111, swap);
		size_t members = (a.read_format & PDFORMAT_FORMAT_GROUP) ? 2 : 1;
		for (size_t m = 0; m < members && n < 5; m++) {
			bytes_st64(rd + 8 * n++, 500 + m, swap);
			if ((a.read_format & PDFORMAT_FORMAT_ID) && n < 5)
				bytes_st64(rd + 8 * n++, 600 + m, swap);
		}
		s.read = rd;
		s.read_size = (uint32_t)(8 * n);
	}

	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, false, 0);
	assert_int_equal(pdwrite_add_evsel(w, &a, "ev", NULL, 0), 0);
	assert_int_equal(pdwrite_write_sample(w, 0, PDFORMAT_MISC_KERNEL, &s), 0);
	struct img im;
	wfinish(w, fd, be, &im);

	size_t d = data_off(&im);
	size_t size = ld16(&im, d + 6);
	assert_int_equal(ld32(&im, d), PDFORMAT_RECORD_SAMPLE);
	assert_int_equal(ld16(&im, d + 4), PDFORMAT_MISC_KERNEL);
	assert_int_equal(size, 8 + expect_body(&a, &s));
	assert_int_equal(size % 8, 0);
	assert_int_equal(data_size(&im), size);

	struct pdread_sample b;
	assert_int_equal(pdread_parse_sample(&a, im.swap, im.p + d, size, false, &b), 0);
	uint64_t t = a.sample_type;
	if (t & PDFORMAT_SAMPLE_IP)
		assert_int_equal(b.ip, s.ip);
	if (t & PDFORMAT_SAMPLE_TID) {
		assert_int_equal(b.pid, s.pid);
		assert_int_equal(b.tid, s.tid);
	}
	if (t & PDFORMAT_SAMPLE_TIME)
		assert_int_equal(b.time, s.time);
	if (t & PDFORMAT_SAMPLE_ADDR)
		assert_int_equal(b.addr, s.addr);
	if (t & (PDFORMAT_SAMPLE_ID | PDFORMAT_SAMPLE_IDENTIFIER))
		assert_int_equal(b.id, s.id);
	if (t & PDFORMAT_SAMPLE_STREAM_ID)
		assert_int_equal(b.stream_id, s.stream_id);
	if (t & PDFORMAT_SAMPLE_CPU)
		assert_int_equal(b.cpu, s.cpu);
	if (t & PDFORMAT_SAMPLE_PERIOD)
		assert_int_equal(b.period, s.period);
	if (t & PDFORMAT_SAMPLE_READ) {
		assert_int_equal(b.read_size, s.read_size);
		assert_memory_equal(b.read, s.read, s.read_size);
	}
	if (t & PDFORMAT_SAMPLE_CALLCHAIN) {
		assert_int_equal(b.callchain_nr, s.callchain_nr);
		if (s.callchain_nr)
			assert_memory_equal(b.callchain, cc, 8 * s.callchain_nr);
	}
	if (t & PDFORMAT_SAMPLE_RAW) {
		/* stored size includes the kernel-style padding */
		assert_int_equal(b.raw_size, (4 + raw_size + 7) / 8 * 8 - 4);
		assert_int_equal((4 + b.raw_size) % 8, 0);
		if (raw_size)
			assert_memory_equal(b.raw, raw, raw_size);
		for (size_t i = raw_size; i < b.raw_size; i++)
			assert_int_equal(b.raw[i], 0);
	}
	if (t & PDFORMAT_SAMPLE_BRANCH_STACK) {
		assert_int_equal(b.branch_nr, s.branch_nr);
		if (a.branch_sample_type & PDFORMAT_BRANCH_HW_INDEX)
			assert_int_equal(b.branch_hw_idx, 5);
		if (s.branch_nr)
			assert_memory_equal(b.branch, br, 24 * s.branch_nr);
	}
	if (t & PDFORMAT_SAMPLE_REGS_USER) {
		assert_int_equal(b.user_regs_abi, s.user_regs_abi);
		if (s.user_regs_abi)
			assert_memory_equal(b.user_regs, regs, 8 * (size_t)__builtin_popcountll(a.sample_regs_user));
	}
	if (t & PDFORMAT_SAMPLE_STACK_USER) {
		assert_int_equal(b.user_stack_size, s.user_stack_size ? 16 : 0);
		if (s.user_stack_size) {
			assert_memory_equal(b.user_stack, stack, 13);
			assert_int_equal(b.user_stack_dyn_size, 9);
		}
	}
	if (t & (PDFORMAT_SAMPLE_WEIGHT | PDFORMAT_SAMPLE_WEIGHT_STRUCT))
		assert_int_equal(b.weight, s.weight);
	if (t & PDFORMAT_SAMPLE_DATA_SRC)
		assert_int_equal(b.data_src, s.data_src);
	if (t & PDFORMAT_SAMPLE_TRANSACTION)
		assert_int_equal(b.transaction, s.transaction);
	if (t & PDFORMAT_SAMPLE_REGS_INTR)
		assert_int_equal(b.intr_regs_abi, s.intr_regs_abi);
	if (t & PDFORMAT_SAMPLE_PHYS_ADDR)
		assert_int_equal(b.phys_addr, s.phys_addr);
	if (t & PDFORMAT_SAMPLE_CGROUP)
		assert_int_equal(b.cgroup, s.cgroup);
	if (t & PDFORMAT_SAMPLE_DATA_PAGE_SIZE)
		assert_int_equal(b.data_page_size, s.data_page_size);
	if (t & PDFORMAT_SAMPLE_CODE_PAGE_SIZE)
		assert_int_equal(b.code_page_size, s.code_page_size);
	if (t & PDFORMAT_SAMPLE_AUX) {
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
		PDFORMAT_SAMPLE_IP,
		PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME,
		PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU |
			PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW | PDFORMAT_SAMPLE_IDENTIFIER,
		PDFORMAT_SAMPLE_ADDR | PDFORMAT_SAMPLE_ID | PDFORMAT_SAMPLE_STREAM_ID,
		PDFORMAT_SAMPLE_READ | PDFORMAT_SAMPLE_ID,
		PDFORMAT_SAMPLE_CALLCHAIN | PDFORMAT_SAMPLE_TIME,
		PDFORMAT_SAMPLE_RAW,
		PDFORMAT_SAMPLE_BRANCH_STACK | PDFORMAT_SAMPLE_CPU,
		PDFORMAT_SAMPLE_REGS_USER | PDFORMAT_SAMPLE_STACK_USER,
		PDFORMAT_SAMPLE_WEIGHT | PDFORMAT_SAMPLE_DATA_SRC | PDFORMAT_SAMPLE_TRANSACTION,
		PDFORMAT_SAMPLE_WEIGHT_STRUCT | PDFORMAT_SAMPLE_REGS_INTR | PDFORMAT_SAMPLE_PHYS_ADDR,
		PDFORMAT_SAMPLE_CGROUP | PDFORMAT_SAMPLE_DATA_PAGE_SIZE | PDFORMAT_SAMPLE_CODE_PAGE_SIZE,
		PDFORMAT_SAMPLE_AUX | PDFORMAT_SAMPLE_TIME,
		PDFORMAT_SAMPLE_KNOWN_MASK & ~(uint64_t)PDFORMAT_SAMPLE_WEIGHT_STRUCT,
		PDFORMAT_SAMPLE_KNOWN_MASK & ~(uint64_t)PDFORMAT_SAMPLE_WEIGHT,
	};
	static const uint64_t rfs[] = { 0, PDFORMAT_FORMAT_ID | PDFORMAT_FORMAT_TOTAL_TIME_ENABLED,
					PDFORMAT_FORMAT_GROUP | PDFORMAT_FORMAT_ID };
	static const uint64_t bsts[] = { 0, PDFORMAT_BRANCH_HW_INDEX, PDFORMAT_BRANCH_COUNTERS };
	int n = 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		for (unsigned v = 0; v < 8; v++) {
			struct pdformat_attr a = tp_attr(1, types[i]);
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
		uint64_t t = x & PDFORMAT_SAMPLE_KNOWN_MASK;
		if ((t & PDFORMAT_SAMPLE_WEIGHT) && (t & PDFORMAT_SAMPLE_WEIGHT_STRUCT))
			t &= ~(uint64_t)PDFORMAT_SAMPLE_WEIGHT;
		struct pdformat_attr a = tp_attr(1, t);
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
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID |
				       PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_RAW);
	static const uint8_t raw[5] = { 1, 2, 3, 4, 5 };
	struct pdread_sample s = { .id = 0x11, .ip = 0x0102030405060708ULL, .pid = 0x0a0b0c0d,
				.tid = 0x01020304, .time = 0x99, .cpu = 1, .raw = raw, .raw_size = 5 };
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, true, false, 0);
	assert_int_equal(pdwrite_add_evsel(w, &a, "ev", NULL, 0), 0);
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
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
		struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_RAW);
		uint8_t raw[20];
		memset(raw, 0xff, sizeof(raw));
		struct pdread_sample s = { .raw = raw, .raw_size = n };
		int fd = new_fd();
		struct pdwrite *w = wopen(fd, false, false, 0);
		assert_int_equal(pdwrite_add_evsel(w, &a, "ev", NULL, 0), 0);
		assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
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
		struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_ID |
					       PDFORMAT_SAMPLE_STREAM_ID | PDFORMAT_SAMPLE_CPU |
					       PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_RAW);
		struct pdformat_attr nb = a;
		nb.flags = 0;		/* no sample_id_all: no trailer */
		int fd = new_fd();
		struct pdwrite *w = wopen(fd, be, false, 0);
		uint64_t id1 = 5, id2 = 6;
		assert_int_equal(pdwrite_add_evsel(w, &a, "a", &id1, 1), 0);
		assert_int_equal(pdwrite_add_evsel(w, &nb, "b", &id2, 1), 1);
		bool swap = pdwrite_needs_swap(w);
		uint8_t body[13];
		bytes_st32(body, 42, swap);
		bytes_st32(body + 4, 43, swap);
		memcpy(body + 8, "comm", 5);
		struct pdread_sample s = { .pid = 42, .tid = 43, .time = 1000, .id = 5, .stream_id = 9,
					.cpu = 1 };
		assert_int_equal(pdwrite_write_with_trailer(w, 0, PDFORMAT_RECORD_COMM, 0, body, 13, &s), 0);
		assert_int_equal(pdwrite_write_with_trailer(w, 1, PDFORMAT_RECORD_COMM, 0, body, 13, &s), 0);
		assert_int_equal(pdwrite_write_with_trailer(w, 2, PDFORMAT_RECORD_COMM, 0, body, 13, &s), -EINVAL);
		struct img im;
		wfinish(w, fd, be, &im);
		size_t d = data_off(&im);
		assert_int_equal(ld32(&im, d), PDFORMAT_RECORD_COMM);
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
		struct pdread_sample b;
		assert_int_equal(pdread_parse_sample(&a, im.swap, im.p + d, 72, true, &b), 0);
		assert_int_equal(b.time, 1000);
		assert_int_equal(b.cpu, 1);
		assert_int_equal(b.tid, 43);
		size_t d2 = d + 72;
		assert_int_equal(ld16(&im, d2 + 6), 8 + 16);
		free(im.p);
	}
}

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
