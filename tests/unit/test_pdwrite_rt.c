/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/tracedata and lib/pdwrite: format collection, then
 * writer -> reader (lib/pdread) round trips in file and pipe mode,
 * a duplicate tracing data copy and the task COMMs (checkpoints:
 * test_pdwrite_ckpt.c).
 */
#include "test_pdwrite.h"

/* ------------------------------------------------------------- tracedata */

static void test_tfs_collect_offline(void **state)
{
	(void)state;
	if (!have_formats())
		skip();
	struct tracedata_formats *f;
	const char *specs[] = { "sched:sched_wak*", "sched:sched_switch", "sched:sched_waking" };
	assert_int_equal(tracedata_collect(FORMATS_DIR, specs, 3, &f), 0);
	assert_int_equal(f->nr_events, 4);	/* glob sorted, duplicates kept once */
	assert_string_equal(f->events[0].name, "sched_wakeup");
	assert_string_equal(f->events[1].name, "sched_wakeup_new");
	assert_string_equal(f->events[2].name, "sched_waking");
	assert_string_equal(f->events[3].name, "sched_switch");
	const struct tracedata_event *sw = tracedata_find(f, "sched", "sched_switch");
	assert_non_null(sw);
	assert_true(sw->id > 0);
	char want[32];
	snprintf(want, sizeof(want), "\nID: %llu\n", (unsigned long long)sw->id);
	assert_non_null(strstr(sw->format, want));
	assert_non_null(strstr(f->header_page, "commit"));
	assert_null(tracedata_find(f, "irq", "irq_handler_entry"));

	/* The blob parses with libtraceevent the way perf parses it. */
	void *blob;
	size_t len;
	assert_int_equal(tracedata_tracing_data(f, false, &blob, &len), 0);
	assert_true(len > 1000);
	free(blob);
	tracedata_free(f);

	const char *sys_only[] = { "irq" };
	assert_int_equal(tracedata_collect(FORMATS_DIR, sys_only, 1, &f), 0);
	assert_true(f->nr_events >= 5);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_string_equal(f->events[i].system, "irq");
	tracedata_free(f);

	const char *none[] = { "nosuch:*" };
	assert_int_equal(tracedata_collect(FORMATS_DIR, none, 1, &f), -ENOENT);
	const char *bad[] = { ":x" };
	assert_int_equal(tracedata_collect(FORMATS_DIR, bad, 1, &f), -EINVAL);
	const char *bad2[] = { "sched:" };
	assert_int_equal(tracedata_collect(FORMATS_DIR, bad2, 1, &f), -EINVAL);
	tracedata_free(NULL);
}

static void test_tfs_live(void **state)
{
	(void)state;
	struct tracedata_formats *f;
	const char *specs[] = { "sched:sched_switch" };
	if (tracedata_collect(NULL, specs, 1, &f) < 0)
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
	tracedata_free(f);
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


static void roundtrip_case(bool be, bool pipe)
{
	struct tracedata_formats *tf;
	void *blob;
	size_t blen;
	switch_wakeup_formats(be, &tf, &blob, &blen);

	int fd = new_fd();
	struct pdwrite *w = wopen(fd, be, pipe, 0);
	bool swap = pdwrite_needs_swap(w);
	uint64_t st = PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU |
		      PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW | PDFORMAT_SAMPLE_IDENTIFIER;
	uint64_t ids[2][2] = { { 101, 102 }, { 103, 104 } };
	for (int i = 0; i < 2; i++) {
		struct pdformat_attr a = tp_attr(tf->events[i].id, st);
		assert_int_equal(pdwrite_add_evsel(w, &a, sw_specs[i], ids[i], 2), i);
	}
	assert_int_equal(pdwrite_set_tracing_data(w, blob, blen), 0);
	free(blob);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "rt-host"), 0);
	assert_int_equal(pdwrite_set_string_feature(w, PDFORMAT_FEAT_ARCH, be ? "ppc64" : "x86_64"), 0);
	assert_int_equal(pdwrite_set_nrcpus(w, 8, 2), 0);
	const char *argv[] = { "latscope", "hist", "record" };
	assert_int_equal(pdwrite_set_cmdline(w, 3, argv), 0);
	if (pipe)
		assert_int_equal(pdwrite_set_sample_time(w, 0, 0), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);

	uint8_t body[24] = { 0 };
	bytes_st32(body, 500, swap);
	bytes_st32(body + 4, 500, swap);
	memcpy(body + 8, "worker", 7);
	struct pdread_sample cs = { .pid = 500, .tid = 500, .time = 1, .cpu = 0, .id = 101 };
	assert_int_equal(pdwrite_write_with_trailer(w, 0, PDFORMAT_RECORD_COMM, 0, body, 15, &cs), 0);

	uint64_t priv[1] = { 0 };
	assert_int_equal(pdwrite_write_auxtrace_info(w, PDFORMAT_AUXTRACE_VPA_DTL, priv, 1), 0);
	uint8_t pay[40];
	for (int i = 0; i < 40; i++)
		pay[i] = (uint8_t)(3 * i);
	struct pdread_auxtrace ax = { .offset = 4096, .idx = 1, .tid = (uint32_t)-1, .cpu = 1 };
	assert_int_equal(pdwrite_write_auxtrace(w, &ax, pay, 37), 0);

	static struct rt_expect ex[RT_N];
	uint64_t t = 2000000000ULL;
	for (int n = 0; n < RT_N; n++) {
		struct rt_expect *e = &ex[n];
		t += 1000 + (uint64_t)(n * 37 % 500);
		e->time = t;
		e->evsel = n % 3 == 0;
		e->cpu = (uint32_t)(n & 1);
		e->pid = 500 + (uint32_t)(n % 7);
		const struct tracedata_event *te = &tf->events[e->evsel];
		e->raw_size = e->evsel ? 36 : 64;
		memset(e->raw, 0, sizeof(e->raw));
		bytes_st16(e->raw, (uint16_t)te->id, swap);
		bytes_st32(e->raw + 4, e->pid, swap);
		snprintf((char *)e->raw + 8, 16, "w%d", n);
		bytes_st32(e->raw + 24, e->pid + 1, swap);
		struct pdread_sample s = { .ip = 0xffffffff81000000ULL + (uint64_t)n, .pid = e->pid,
					.tid = e->pid, .time = e->time, .cpu = e->cpu, .period = 1,
					.id = ids[e->evsel][e->cpu], .raw = e->raw,
					.raw_size = e->raw_size };
		assert_int_equal(pdwrite_write_sample(w, e->evsel, PDFORMAT_MISC_KERNEL, &s), 0);
		if (n % 50 == 49)
			assert_int_equal(pdwrite_finished_round(w), 0);
	}
	struct img im;
	wfinish(w, fd, be, &im);

	struct pdread *r = NULL;
	int err = pdread_open_mem(&r, im.p, im.len, NULL);
	if (err)
		fail_msg("pdread_open_mem: %s", r ? pdread_strerror(r) : strerror(-err));
	const struct pdread_info *in = pdread_info(r);
	assert_int_equal(in->pipe, pipe);
	assert_int_equal(in->big_endian, be);
	assert_int_equal(in->needs_swap, swap);
	assert_int_equal(pdread_needs_swap(r), swap);
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
		assert_int_equal(pdread_auxtrace_index(r, 0, &aoff, NULL), 0);
		assert_int_equal(ld32(&im, (size_t)aoff), PDFORMAT_RECORD_AUXTRACE);
		assert_int_equal(pdread_auxtrace_index(r, 1, &aoff, NULL), -ERANGE);
		assert_int_equal(in->data_size, ld64(&im, 48));
		assert_non_null(pdread_tep(r));
		assert_int_equal(pdread_nr_evsels(r), 2);
	}

	int samples[2] = { 0, 0 }, comms = 0, auxs = 0, infos = 0, n = 0;
	struct pdread_event ev;
	while ((err = pdread_next(r, &ev)) > 0) {
		if (ev.type == PDFORMAT_RECORD_COMM) {
			comms++;
			assert_true(ev.has_sample);
			assert_int_equal(ev.sample.time, 1);
			assert_int_equal(ev.sample.pid, 500);
			assert_string_equal((const char *)ev.data + 16, "worker");
		} else if (ev.type == PDFORMAT_RECORD_AUXTRACE) {
			auxs++;
			assert_int_equal(ev.auxtrace.size, 40);
			assert_int_equal(ev.auxtrace.offset, 4096);
			assert_int_equal(ev.auxtrace.cpu, 1);
			assert_int_equal(ev.auxtrace.idx, 1);
			assert_int_equal(ev.aux_size, 40);
			assert_memory_equal(ev.aux_data, pay, 37);
		} else if (ev.type == PDFORMAT_RECORD_AUXTRACE_INFO) {
			infos++;
		} else if (ev.type == PDFORMAT_RECORD_SAMPLE) {
			assert_true(n < RT_N);
			const struct rt_expect *e = &ex[n++];
			assert_non_null(ev.evsel);
			assert_int_equal(ev.evsel->idx, e->evsel);
			assert_true(ev.has_sample);
			assert_int_equal(ev.misc, PDFORMAT_MISC_KERNEL);
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
		fail_msg("pdread_next: %s", pdread_strerror(r));
	assert_int_equal(n, RT_N);
	assert_int_equal(samples[1], RT_N / 3);
	assert_int_equal(comms, 1);
	assert_int_equal(auxs, 1);
	assert_int_equal(infos, 1);
	assert_int_equal(pdread_stats(r)->unknown_id, 0);
	assert_int_equal(pdread_stats(r)->bad_samples, 0);

	/* After the stream: evsel names, ids, formats and features. */
	assert_int_equal(pdread_nr_evsels(r), 2);
	for (int i = 0; i < 2; i++) {
		const struct pdread_evsel *e = pdread_evsel(r, (size_t)i);
		assert_non_null(e);
		assert_non_null(e->name);
		assert_string_equal(e->name, sw_specs[i]);
		assert_int_equal(e->nr_ids, 2);
		assert_int_equal(e->ids[1], ids[i][1]);
		assert_int_equal(e->attr.config, tf->events[i].id);
		assert_int_equal(e->attr.sample_type, st);
		assert_true(pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL));
		assert_non_null(e->tp);
		assert_ptr_equal(pdread_evsel_by_id(r, ids[i][0]), e);
	}
	struct tep_handle *tep = pdread_tep(r);
	assert_non_null(tep);
	assert_non_null(tep_find_event_by_name(tep, "sched", "sched_switch"));
	assert_int_equal(tep_is_file_bigendian(tep), be);
	if (pipe) {
		assert_string_equal(in->hostname, "rt-host");
		assert_int_equal(in->nr_cpus_online, 2);
		assert_string_equal(in->cmdline, "latscope hist record");
		assert_int_equal(in->nr_auxtrace_index, 0);
	}
	pdread_close(r);
	free(im.p);
	tracedata_free(tf);
}

/* A second copy of the tracing data (a file with the feature and the record)
 * is skipped and counted, never swapped under the bound events. */
static void test_dup_tracing_data(void **state)
{
	(void)state;
	if (!have_formats())
		skip();
	struct tracedata_formats *tf;
	const char *specs[] = { "sched:sched_switch" };
	void *blob;
	size_t blen;
	sched_formats(specs, 1, false, &tf, &blob, &blen);
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, false, false, 0);
	uint64_t id = 5;
	struct pdformat_attr a = tp_attr(tf->events[0].id, PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_RAW | PDFORMAT_SAMPLE_IDENTIFIER);
	assert_int_equal(pdwrite_add_evsel(w, &a, specs[0], &id, 1), 0);
	assert_int_equal(pdwrite_set_tracing_data(w, blob, blen), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	size_t padded = (blen + 7) & ~(size_t)7;
	uint8_t raw[64] = { 0 };
	bytes_st16(raw, (uint16_t)tf->events[0].id, false);
	struct pdread_sample s = { .time = 5, .id = id, .raw = raw, .raw_size = 64 };
	assert_int_equal(pdwrite_write_sample(w, 0, 0, &s), 0);
	struct img im;
	wfinish(w, fd, false, &im);
	/* splice a HEADER_TRACING_DATA record + blob in front of the sample */
	size_t doff = (size_t)ld64(&im, 40), dsize = (size_t)ld64(&im, 48);
	size_t add = 16 + padded;
	uint8_t *np = calloc(1, im.len + add);
	assert_non_null(np);
	memcpy(np, im.p, doff);
	bytes_st32(np + doff, PDFORMAT_RECORD_HEADER_TRACING_DATA, false);
	bytes_st16(np + doff + 4, 0, false);
	bytes_st16(np + doff + 6, 16, false);
	bytes_st32(np + doff + 8, (uint32_t)padded, false);
	memcpy(np + doff + 16, blob, blen);
	memcpy(np + doff + add, im.p + doff, im.len - doff);
	bytes_st64(np + 48, dsize + add, false);
	/* the feature table follows the data: its offsets move by add */
	uint64_t bits = ld64(&im, 72);
	size_t nf = (size_t)__builtin_popcountll(bits);
	for (size_t i = 0; i < nf; i++) {
		size_t e = doff + add + dsize + 16 * i;
		bytes_st64(np + e, bytes_ld64(np + e, false) + add, false);
	}
	free(im.p);
	free(blob);
	struct img im2 = { .p = np, .len = im.len + add };
	struct pdread *r = NULL;
	assert_int_equal(pdread_open_mem(&r, im2.p, im2.len, NULL), 0);
	struct tep_handle *tep0 = pdread_tep(r);
	assert_non_null(tep0);
	struct pdread_event ev;
	int samples = 0, err;
	while ((err = pdread_next(r, &ev)) > 0)
		if (ev.type == PDFORMAT_RECORD_SAMPLE) {
			samples++;
			assert_non_null(ev.evsel->tp);
		}
	assert_int_equal(err, 0);
	assert_int_equal(samples, 1);
	assert_ptr_equal(pdread_tep(r), tep0);
	assert_int_equal(pdread_info(r)->dup_tracing_data, 1);
	pdread_close(r);
	free(np);
	tracedata_free(tf);
}

/* The COMM records of every live thread, as perf record starts: this
 * process's own thread is among them under its name, with the evsel's id. */
static void test_task_comms(void **state)
{
	(void)state;
	int fd = new_fd();
	struct pdwrite *w = wopen(fd, false, false, 0);
	struct pdformat_attr a = tp_attr(1, PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_IDENTIFIER);
	uint64_t id = 77;
	assert_int_equal(pdwrite_add_evsel(w, &a, "sched:sched_switch", &id, 1), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_write_task_comms(w, 0, NULL), 0);
	assert_int_equal(pdwrite_write_task_comms(w, 3, NULL), -EINVAL);
	assert_true(pdwrite_write_task_comms(w, 0, "/nonexistent") < 0);
	struct img im;
	wfinish(w, fd, false, &im);
	struct pdread *r = NULL;
	assert_int_equal(pdread_open_mem(&r, im.p, im.len, NULL), 0);
	struct pdread_event ev;
	int n = 0, mine = 0, err;
	char self[16] = "";
	FILE *f = fopen("/proc/thread-self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(self, sizeof(self), f));
	fclose(f);
	self[strcspn(self, "\n")] = '\0';
	while ((err = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_COMM)
			continue;
		n++;
		assert_true(ev.has_sample);
		assert_int_equal(ev.sample.id, 77);
		uint32_t pid = bytes_ld32(ev.data + 8, false), tid = bytes_ld32(ev.data + 12, false);
		if (tid == (uint32_t)syscall(SYS_gettid)) {
			mine++;
			assert_int_equal(pid, (uint32_t)getpid());
			assert_string_equal((const char *)ev.data + 16, self);
		}
	}
	assert_int_equal(err, 0);
	assert_true(n > 1);	/* init and this process at least */
	assert_int_equal(mine, 1);
	pdread_close(r);
	free(im.p);
}

static void test_roundtrip_file_le(void **state) { (void)state; roundtrip_case(false, false); }
static void test_roundtrip_file_be(void **state) { (void)state; roundtrip_case(true, false); }
static void test_roundtrip_pipe_le(void **state) { (void)state; roundtrip_case(false, true); }
static void test_roundtrip_pipe_be(void **state) { (void)state; roundtrip_case(true, true); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tfs_collect_offline),
		cmocka_unit_test(test_tfs_live),
		cmocka_unit_test(test_task_comms),
		cmocka_unit_test(test_dup_tracing_data),
		cmocka_unit_test(test_roundtrip_file_le),
		cmocka_unit_test(test_roundtrip_file_be),
		cmocka_unit_test(test_roundtrip_pipe_le),
		cmocka_unit_test(test_roundtrip_pipe_be),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
