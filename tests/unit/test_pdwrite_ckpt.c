/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/pdwrite's checkpoints (pdwrite_checkpoint), read back
 * by lib/pdread: the layout (the feature payloads before the data, each
 * checkpoint's feature table a HEADER_EVENT_TYPE record that ends the data,
 * header bit 0; lib/format/pdformat.h PDFORMAT_CKPT_MAGIC), a recording readable
 * at every moment of its writing (the file cut at every byte from the first
 * checkpoint to the end of pdwrite_close, under the header the writer had
 * written by then), features set late, the finished file, and the older
 * checkpoint layout (a killed hist recording of before: the fuzz seed).
 */
#include "test_pdwrite.h"

struct ck_read {
	int samples;
	uint64_t last_time;
	bool in_order;		/* sample k (from 1) has time 1000 + 10 k */
	bool unterminated, table;
	uint64_t checkpoint_size, data_offset, tail;
	bool tep, version_ok, names_ok;
	const char *version;	/* "" when absent; valid until the next ck_read */
	bool cmdline;
	uint64_t dups, event_type_records;
	int event_type_delivered;	/* must stay 0: the reader skips them */
};

/* Read im to the end (a read error fails the test); no_td: skip the
 * tracing data (its parse forks a child: thousands of reads stay fast). */
static void ck_read_opts(const struct img *im, struct ck_read *o, bool no_td)
{
	static char version[64];
	struct pdread *r = NULL;
	struct pdread_opts po = { .no_tracing_data = no_td };
	int err = pdread_open_mem(&r, im->p, im->len, &po);
	if (err)
		fail_msg("pdread_open_mem (%zu bytes): %s", im->len, r ? pdread_strerror(r) : strerror(-err));
	memset(o, 0, sizeof(*o));
	o->in_order = true;
	struct pdread_event ev;
	while ((err = pdread_next(r, &ev)) > 0) {
		o->event_type_delivered += ev.type == PDFORMAT_RECORD_HEADER_EVENT_TYPE;
		if (ev.type != PDFORMAT_RECORD_SAMPLE)
			continue;
		o->samples++;
		o->last_time = ev.sample.time;
		o->in_order &= ev.sample.time == 1000 + 10 * (uint64_t)o->samples;
		/* the formats and the names are known by the first sample */
		o->tep = pdread_tep(r) != NULL && ev.evsel && ev.evsel->tp != NULL;
		o->names_ok = ev.evsel && ev.evsel->name && !strncmp(ev.evsel->name, "sched:", 6);
	}
	if (err < 0)
		fail_msg("pdread_next (%zu bytes): %s", im->len, pdread_strerror(r));
	const struct pdread_info *in = pdread_info(r);
	o->unterminated = in->unterminated;
	o->table = in->checkpoint_table;
	o->checkpoint_size = in->checkpoint_size;
	o->data_offset = in->data_offset;
	o->tail = in->unterminated_tail;
	snprintf(version, sizeof(version), "%s", in->version ? in->version : "");
	o->version = version;
	o->version_ok = !strcmp(version, "ck-test 1");
	o->cmdline = in->cmdline != NULL;
	o->dups = in->dup_tracing_data;
	o->event_type_records = pdread_stats(r)->by_type[PDFORMAT_RECORD_HEADER_EVENT_TYPE];
	pdread_close(r);
}

static void ck_read(const struct img *im, struct ck_read *o)
{
	ck_read_opts(im, o, false);
}

/* A writer of sched_switch samples (times 1010, 1020, ...) with the
 * formats and VERSION "ck-test 1", checkpoints only when forced. */
struct ckw {
	int fd;
	struct pdwrite *w;
	struct tracedata_formats *tf;
	uint64_t ids[2];
	uint8_t raw[64];
	uint64_t t;
	int n;
};

static void ckw_open(struct ckw *c, bool be)
{
	void *blob;
	size_t blen;
	memset(c, 0, sizeof(*c));
	switch_wakeup_formats(be, &c->tf, &blob, &blen);
	c->fd = new_fd();
	/* an hour between checkpoints: only the forced ones happen, however
	 * slow the machine (a "not due" check must not race a timer) */
	struct pdwrite_opts o = { .big_endian = be, .checkpoint = true, .checkpoint_ns = 3600000000000ULL };
	assert_int_equal(pdwrite_open_fd(&c->w, c->fd, false, &o), 0);
	uint64_t st = PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_RAW |
		      PDFORMAT_SAMPLE_IDENTIFIER;
	for (int i = 0; i < 2; i++) {
		c->ids[i] = 11 + (uint64_t)i;
		struct pdformat_attr a = tp_attr(c->tf->events[i].id, st);
		assert_int_equal(pdwrite_add_evsel(c->w, &a, sw_specs[i], &c->ids[i], 1), i);
	}
	assert_int_equal(pdwrite_set_tracing_data(c->w, blob, blen), 0);
	free(blob);
	assert_int_equal(pdwrite_set_string_feature(c->w, PDFORMAT_FEAT_VERSION, "ck-test 1"), 0);
	assert_int_equal(pdwrite_begin_data(c->w), 0);
	bytes_st16(c->raw, (uint16_t)c->tf->events[0].id, pdwrite_needs_swap(c->w));
	c->t = 1000;
}

static void ckw_samples(struct ckw *c, int count)
{
	for (int k = 0; k < count; k++, c->n++) {
		struct pdread_sample s = { .pid = 7, .tid = 7, .time = c->t += 10, .cpu = 0, .id = c->ids[0],
					   .raw = c->raw, .raw_size = sizeof(c->raw) };
		assert_int_equal(pdwrite_write_sample(c->w, 0, 0, &s), 0);
	}
}

/* The checkpoint table record the header of im points at: checked against
 * the layout of lib/format/pdformat.h; its offset and size. */
static void check_table(const struct img *im, size_t *at, size_t *size)
{
	*at = data_off(im) + data_size(im);
	assert_true(feat_bit(im, PDFORMAT_FEAT_RESERVED));
	assert_int_equal(ld32(im, *at), PDFORMAT_RECORD_HEADER_EVENT_TYPE);
	assert_int_equal(ld16(im, *at + 4), 0);
	*size = ld16(im, *at + 6);
	assert_int_equal(*size % 8, 0);
	assert_true(*size >= PDFORMAT_CKPT_MIN_SIZE);
	assert_true(*at + *size <= im->len);
	assert_int_equal(ld64(im, *at + 8), PDFORMAT_CKPT_MAGIC);
	for (size_t i = 0; i < 4; i++)	/* ends with the header's bitmap */
		assert_int_equal(ld64(im, *at + *size - 32 + 8 * i), ld64(im, 72 + 8 * i));
}

static void checkpoint_case(bool be)
{
	struct ckw c;
	ckw_open(&c, be);
	struct img im;
	struct ck_read rd;
	size_t tab, tsize, off, len;

	/* a checkpoint: everything so far readable, formats, names, features */
	ckw_samples(&c, 10);
	assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
	ckw_samples(&c, 5);		/* buffered: lost by a kill now */
	snap(c.fd, &im);
	im.swap = be != (bool)BYTES_HOST_BIG_ENDIAN;
	ck_read(&im, &rd);
	assert_int_equal(rd.samples, 10);
	assert_int_equal(rd.last_time, 1100);
	assert_true(rd.unterminated);
	assert_true(rd.table);
	assert_true(rd.checkpoint_size > 0);
	assert_true(rd.tep);
	assert_true(rd.names_ok);
	assert_true(rd.version_ok);
	assert_int_equal(rd.tail, 0);
	/* the layout: the data ends with the table record; the formats (set
	 * before the data) lie between the attrs and the data, SAMPLE_TIME
	 * (known only now) inside the record: first and last time so far */
	check_table(&im, &tab, &tsize);
	assert_int_equal(tab + tsize, im.len);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_TRACING_DATA, &off, &len));
	assert_true(off + len <= data_off(&im));
	assert_true(feat_sec(&im, PDFORMAT_FEAT_EVENT_DESC, &off, &len));
	assert_true(off + len <= data_off(&im));
	assert_true(feat_sec(&im, PDFORMAT_FEAT_SAMPLE_TIME, &off, &len));
	assert_true(off > tab && off + len <= tab + tsize);
	assert_int_equal(ld64(&im, off), 1010);
	assert_int_equal(ld64(&im, off + 8), 1100);
	assert_false(feat_bit(&im, PDFORMAT_FEAT_AUXTRACE));
	free(im.p);

	/* not due yet: no work (the buffer is not flushed) */
	uint64_t before = rd.checkpoint_size;
	assert_int_equal(pdwrite_checkpoint(c.w, false), 0);
	snap(c.fd, &im);
	ck_read(&im, &rd);
	assert_int_equal(rd.checkpoint_size, before);
	assert_int_equal(rd.samples, 10);
	free(im.p);

	/* a kill after the buffer spilled past the checkpoint, in the middle
	 * of a record: the records after the checkpoint are read, the torn
	 * one is left out and counted */
	ckw_samples(&c, 1500);		/* > 64 KiB: flushed on the way */
	snap(c.fd, &im);
	struct img torn = { .p = im.p, .len = im.len - 40 };	/* tear the last record */
	ck_read(&torn, &rd);
	assert_true(rd.unterminated);
	assert_int_equal(rd.checkpoint_size, before);
	assert_true(rd.samples > 15);
	assert_true(rd.samples < c.n);
	assert_true(rd.in_order);
	assert_true(rd.tail > 0);
	free(im.p);

	/* a second checkpoint: the first table is now a record in the data */
	assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
	snap(c.fd, &im);
	im.swap = be != (bool)BYTES_HOST_BIG_ENDIAN;
	ck_read(&im, &rd);
	assert_int_equal(rd.samples, c.n);
	assert_int_equal(rd.event_type_records, 2);	/* the old table, and the new one read on */
	assert_int_equal(rd.event_type_delivered, 0);	/* counted, not delivered */
	check_table(&im, &tab, &tsize);
	assert_int_equal(ld32(&im, data_off(&im) + before), PDFORMAT_RECORD_HEADER_EVENT_TYPE);
	free(im.p);

	/* the finished file: a normal recording (features after the data,
	 * bit 0 clear, exact data size); the data starts at a sample; the
	 * formats written once (their slot points before the data) */
	assert_int_equal(pdwrite_close(c.w), 0);
	snap(c.fd, &im);
	close(c.fd);
	im.swap = be != (bool)BYTES_HOST_BIG_ENDIAN;
	ck_read(&im, &rd);
	assert_false(rd.unterminated);
	assert_false(rd.table);
	assert_int_equal(rd.checkpoint_size, 0);
	assert_int_equal(rd.samples, c.n);
	assert_true(rd.in_order);
	assert_true(rd.tep);
	assert_true(rd.names_ok);
	assert_true(rd.version_ok);
	assert_int_equal(rd.dups, 0);
	assert_int_equal(rd.event_type_records, 2);
	assert_false(feat_bit(&im, PDFORMAT_FEAT_RESERVED));
	assert_int_equal(ld32(&im, data_off(&im)), PDFORMAT_RECORD_SAMPLE);
	assert_true(feat_sec(&im, PDFORMAT_FEAT_TRACING_DATA, &off, &len));
	assert_true(off + len <= data_off(&im));
	assert_true(feat_sec(&im, PDFORMAT_FEAT_SAMPLE_TIME, &off, &len));
	assert_true(off >= data_off(&im) + data_size(&im));
	assert_int_equal(ld64(&im, off + 8), c.t);
	free(im.p);
	tracedata_free(c.tf);
}

static void test_checkpoint_le(void **state) { (void)state; checkpoint_case(false); }
static void test_checkpoint_be(void **state) { (void)state; checkpoint_case(true); }

#define MOMENT_N 250
#define MOMENT_EVERY 25
#define MOMENT_MAX (MOMENT_N / MOMENT_EVERY + 1)

/*
 * Readable at every moment: the writer only appends, except the header,
 * which it rewrites once the checkpoint's table is on disk.  So when its
 * output had reached X bytes, the file was the final file's first X bytes
 * under the header of checkpoint k, for every k and X with L[k] <= X <=
 * L[k+1] (L[k]: the file size after checkpoint k; L[K+1]: the finished
 * file, whose header comes last).  Every such file reads without error,
 * says it is a killed checkpoint, and gives every sample written before
 * checkpoint k, in order, then maybe more (read on past it).
 */
static void moment_case(bool be)
{
	struct ckw c;
	ckw_open(&c, be);
	size_t L[MOMENT_MAX + 1];
	uint8_t hdr[MOMENT_MAX][PDFORMAT_FILE_HEADER_SIZE];
	int n_at[MOMENT_MAX], K = 0;
	while (c.n < MOMENT_N) {
		ckw_samples(&c, MOMENT_EVERY);
		if (c.n >= MOMENT_N)
			break;
		assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
		struct stat st;
		assert_int_equal(fstat(c.fd, &st), 0);
		L[K] = (size_t)st.st_size;
		assert_int_equal(pread(c.fd, hdr[K], sizeof(hdr[K]), 0), (ssize_t)sizeof(hdr[K]));
		n_at[K++] = c.n;
	}
	struct img fin;
	wfinish(c.w, c.fd, be, &fin);
	L[K] = fin.len;
	assert_true(K >= 8);

	uint8_t *buf = malloc(fin.len);
	assert_non_null(buf);
	memcpy(buf, fin.p, fin.len);
	size_t reads = 0;
	for (int k = 0; k < K; k++) {
		memcpy(buf, hdr[k], sizeof(hdr[k]));
		/* checkpoint k's header points at its table, which ends the file then */
		size_t tab, tsize;
		struct img hk = { .p = buf, .len = L[k], .swap = fin.swap };
		check_table(&hk, &tab, &tsize);
		assert_int_equal(tab + tsize, L[k]);
		for (size_t x = L[k]; x <= L[k + 1]; x++) {
			struct img im = { .p = buf, .len = x };
			struct ck_read rd;
			/* the formats at the ends and every 61 bytes */
			ck_read_opts(&im, &rd, !(x == L[k] || x == L[k + 1] || x % 61 == 0));
			reads++;
			if (!rd.unterminated || !rd.table || rd.samples < n_at[k] || rd.samples > MOMENT_N ||
			    !rd.in_order || !rd.names_ok || !rd.version_ok ||
			    rd.checkpoint_size != bytes_ld64(hdr[k] + 48, fin.swap))
				fail_msg("checkpoint %d cut at %zu: unterminated %d table %d samples %d (>= %d) in order %d "
					 "names %d version %d checkpoint size %llu", k, x, rd.unterminated, rd.table,
					 rd.samples, n_at[k], rd.in_order, rd.names_ok, rd.version_ok,
					 (unsigned long long)rd.checkpoint_size);
			if ((x == L[k] || x % 61 == 0) && !rd.tep)
				fail_msg("checkpoint %d cut at %zu: the formats are lost", k, x);
		}
	}
	assert_true(reads > fin.len - L[0]);
	/* and the finished file, whole */
	struct ck_read rd;
	ck_read(&fin, &rd);
	assert_false(rd.unterminated);
	assert_int_equal(rd.samples, MOMENT_N);
	assert_true(rd.in_order);
	assert_int_equal(rd.event_type_records, (uint64_t)K);
	assert_int_equal(rd.event_type_delivered, 0);
	free(buf);
	free(fin.p);
	tracedata_free(c.tf);
}

static void test_every_moment_le(void **state) { (void)state; moment_case(false); }
static void test_every_moment_be(void **state) { (void)state; moment_case(true); }

/* Features set after pdwrite_begin_data(): a checkpoint carries them inside
 * its table record while they fit (a record's size is a u16), leaves out
 * those that do not; pdwrite_close() writes them all. */
static void test_late_features(void **state)
{
	(void)state;
	struct ckw c;
	ckw_open(&c, false);
	struct img im;
	struct ck_read rd;
	ckw_samples(&c, 3);
	assert_int_equal(pdwrite_set_string_feature(c.w, PDFORMAT_FEAT_VERSION, "ck-test 2"), 0);
	static const char *argv[8];
	static char big[12000];
	memset(big, 'a', sizeof(big) - 1);
	for (int i = 0; i < 8; i++)
		argv[i] = big;	/* CMDLINE of 8 x 12 KB: more than a record holds */
	assert_int_equal(pdwrite_set_cmdline(c.w, 8, argv), 0);
	assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
	snap(c.fd, &im);
	ck_read(&im, &rd);
	assert_int_equal(rd.samples, 3);
	assert_string_equal(rd.version, "ck-test 2");	/* from inside the record */
	assert_false(rd.cmdline);			/* left out of the checkpoint */
	assert_true(rd.tep);
	free(im.p);

	wfinish(c.w, c.fd, false, &im);
	ck_read(&im, &rd);
	assert_string_equal(rd.version, "ck-test 2");
	assert_true(rd.cmdline);
	assert_int_equal(rd.samples, 3);
	free(im.p);
	tracedata_free(c.tf);
}

/* Nothing written since the last checkpoint: no new table record. */
static void test_idle_checkpoint(void **state)
{
	(void)state;
	struct ckw c;
	ckw_open(&c, false);
	ckw_samples(&c, 3);
	struct stat a, b;
	assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
	assert_int_equal(fstat(c.fd, &a), 0);
	assert_int_equal(pdwrite_checkpoint(c.w, true), 0);
	assert_int_equal(fstat(c.fd, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	struct img im;
	wfinish(c.w, c.fd, false, &im);
	struct ck_read rd;
	ck_read(&im, &rd);
	assert_int_equal(rd.event_type_records, 1);
	assert_int_equal(rd.samples, 3);
	free(im.p);
	tracedata_free(c.tf);
}

/* The layout of before (a checkpoint header with no features, the
 * features and formats as HEADER_FEATURE / HEADER_TRACING_DATA records at
 * the start of the data): a killed hist recording of then, the fuzz seed,
 * still reads, with its formats. */
static void test_old_layout(void **state)
{
	(void)state;
	FILE *f = fopen("fuzz/corpus/fuzz_pdread/checkpoint-killed-hist", "rb");
	if (!f)
		skip();
	struct img im = { .p = malloc(1 << 17) };
	assert_non_null(im.p);
	im.len = fread(im.p, 1, 1 << 17, f);
	fclose(f);
	struct pdread *r = NULL;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	struct pdread_event ev;
	int err, samples = 0, decoded = 0;
	while ((err = pdread_next(r, &ev)) > 0) {
		samples += ev.type == PDFORMAT_RECORD_SAMPLE;
		decoded += ev.type == PDFORMAT_RECORD_SAMPLE && ev.evsel && ev.evsel->tp;
	}
	assert_int_equal(err, 0);
	const struct pdread_info *in = pdread_info(r);
	assert_true(in->unterminated);
	assert_true(in->checkpoint_size > 0);
	assert_false(in->checkpoint_table);
	assert_true(samples > 100);
	assert_int_equal(decoded, samples);
	pdread_close(r);
	free(im.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checkpoint_le),
		cmocka_unit_test(test_checkpoint_be),
		cmocka_unit_test(test_every_moment_le),
		cmocka_unit_test(test_every_moment_be),
		cmocka_unit_test(test_late_features),
		cmocka_unit_test(test_idle_checkpoint),
		cmocka_unit_test(test_old_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
