/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/print/promexp.c: a set's histograms folded into the
 * exposition buckets (cumulative, below/above counted, +Inf = _count = the
 * buckets' sum, also for a torn read), sums
 * in seconds, the worst case as a gauge and an info series with escaped
 * labels, bad bounds refused.
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
#include <json-c/json.h>

#include "engine/noisemon.h"
#include "print/histout.h"
#include "print/promexp.h"

static char *render(const struct hset *s, const bool kinds[HSET_NR_KINDS], const uint64_t *b, size_t n,
		    int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = promexp_hset(f, "latscope", s, kinds, b, n);
	fclose(f);
	return buf;
}

static void test_histogram(void **state)
{
	(void)state;
	struct hset *s;
	assert_int_equal(hset_new(&s, 2, NULL), 0);
	int64_t v[] = { 800, 999, 1000, 4999, 5000, 12000, 20000000 /* past 10240 us */ };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(hset_record(s, HSET_WAKEUP, 1, v[i]), 0);
	assert_int_equal(hset_record(s, HSET_IRQSOFF, 0, 3000), 0);	/* not selected */
	bool kinds[HSET_NR_KINDS] = { [HSET_WAKEUP] = true };
	uint64_t b[] = { 1000, 5000, 10000000 };
	int rc;
	char *t = render(s, kinds, b, 3, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "# TYPE latscope_latency_seconds histogram\n"));
	assert_non_null(strstr(t,
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"1\",le=\"0.000001\"} 2\n"
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"1\",le=\"0.000005\"} 4\n"
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"1\",le=\"0.01\"} 6\n"
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"1\",le=\"+Inf\"} 7\n"
		"latscope_latency_seconds_sum{kind=\"wakeup\",cpu=\"1\"} 0.020024798\n"
		"latscope_latency_seconds_count{kind=\"wakeup\",cpu=\"1\"} 7\n"));
	assert_null(strstr(t, "irqsoff"));
	assert_null(strstr(t, "cpu=\"0\""));	/* no samples there */
	free(t);
	uint64_t bad[] = { 5000, 1000 };
	t = render(s, kinds, bad, 2, &rc);
	assert_int_equal(rc, -EINVAL);
	free(t);
	uint64_t odd[] = { 1500 };	/* not a bucket edge */
	t = render(s, kinds, odd, 1, &rc);
	assert_int_equal(rc, -EINVAL);
	free(t);
	hset_free(s);
}

/* A set read from maps the kernel fills meanwhile: a sample in a bucket,
 * not yet in the total.  +Inf and _count come from the buckets: the
 * exposition stays cumulative. */
static void test_torn_read(void **state)
{
	(void)state;
	struct hset *s;
	assert_int_equal(hset_new(&s, 1, NULL), 0);
	struct lhist *h = hset_hist_mut(s, HSET_WAKEUP, 0);
	assert_non_null(h);
	h->counts[3] = 5;	/* 3 us */
	h->above = 1;
	h->total = 4;		/* two behind the buckets */
	h->sum_ns = 4 * 3500;
	bool kinds[HSET_NR_KINDS] = { [HSET_WAKEUP] = true };
	uint64_t b[] = { 5000 };
	int rc;
	char *t = render(s, kinds, b, 1, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t,
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"0\",le=\"0.000005\"} 5\n"
		"latscope_latency_seconds_bucket{kind=\"wakeup\",cpu=\"0\",le=\"+Inf\"} 6\n"
		"latscope_latency_seconds_sum{kind=\"wakeup\",cpu=\"0\"} 1.4e-05\n"
		"latscope_latency_seconds_count{kind=\"wakeup\",cpu=\"0\"} 6\n"));
	free(t);
	hset_free(s);
}

static void test_worst_case(void **state)
{
	(void)state;
	struct hset *s;
	assert_int_equal(hset_new(&s, 1, NULL), 0);
	assert_int_equal(hset_record(s, HSET_TIMERANDWAKEUP, 0, 57000), 0);
	struct hset_max m = { .valid = true, .pid = 4242, .prio = 0, .latency_ns = 57000,
			      .has_culprit = true, .culprit_pid = 17, .culprit_prio = 120 };
	strcpy(m.comm, "cyc\"lic\\test");
	strcpy(m.culprit_comm, "kworker/0:1");
	assert_true(hset_offer_max(s, HSET_TIMERANDWAKEUP, 0, &m));
	bool kinds[HSET_NR_KINDS] = { [HSET_TIMERANDWAKEUP] = true };
	int rc;
	char *t = render(s, kinds, NULL, 0, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "latscope_latency_max_seconds{kind=\"timerandwakeup\",cpu=\"0\"} 5.7e-05\n"));
	/* a nice 0 culprit (kernel prio 120): -21, as the text and the JSON say */
	assert_non_null(strstr(t, "latscope_latency_max_info{kind=\"timerandwakeup\",cpu=\"0\","
				  "victim_comm=\"cyc\\\"lic\\\\test\",victim_pid=\"4242\",victim_prio=\"99\","
				  "culprit_comm=\"kworker/0:1\",culprit_pid=\"17\",culprit_prio=\"-21\"} 1\n"));
	struct json_object *j = histout_json(s, kinds, NULL, false), *hs, *h, *c, *mx, *v;
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "histograms", &hs));
	assert_true(json_object_object_get_ex(hs, "timerandwakeup", &h));
	assert_true(json_object_object_get_ex(h, "cpus", &c));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(c, 0), "max_latency", &mx));
	assert_true(json_object_object_get_ex(mx, "culprit_prio", &v));
	assert_int_equal(json_object_get_int(v), -21);
	assert_true(json_object_object_get_ex(mx, "prio", &v));
	assert_int_equal(json_object_get_int(v), 99);
	json_object_put(j);
	/* the default bounds: 13 of them, then +Inf */
	assert_non_null(strstr(t, "le=\"0.00005\"} 0\n"));
	assert_non_null(strstr(t, "le=\"0.0001\"} 1\n"));
	free(t);
	hset_free(s);
}

/* the monitor's noise families: per CPU, per CPU and class (hw first, the
 * osnoise document's class names), times in seconds */
static void test_noise(void **state)
{
	(void)state;
	struct noisemon_cpu n = { .cpu = 3, .periods = 10, .runtime_ns = 100000000, .noise_ns = 2500000,
				  .gaps = 7, .max_single_ns = 1500000, .hw_count = 2, .hw_ns = 4000,
				  .count = { 0, 5, 1, 3 }, .net_ns = { 0, 12000, 3000, 2000000 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(promexp_noise(f, &n, 1), 0);
	fclose(f);
	const char *want[] = {
		"# TYPE latscope_noise_periods_total counter\n",
		"latscope_noise_periods_total{cpu=\"3\"} 10\n",
		"latscope_noise_runtime_seconds_total{cpu=\"3\"} 0.1\n",
		"latscope_noise_seconds_total{cpu=\"3\"} 0.0025\n",
		"# TYPE latscope_noise_max_single_seconds gauge\n",
		"latscope_noise_class_seconds_total{cpu=\"3\",class=\"hw\"} 4e-06\n",
		"latscope_noise_class_seconds_total{cpu=\"3\",class=\"thread\"} 0.002\n",
		"latscope_noise_class_events_total{cpu=\"3\",class=\"irq\"} 5\n",
		"latscope_noise_class_events_total{cpu=\"3\",class=\"softirq\"} 1\n",
		"latscope_noise_class_events_total{cpu=\"3\",class=\"hw\"} 2\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(buf, want[i]))
			fail_msg("no %s in:\n%s", want[i], buf);
	}
	free(buf);
}

/* --timerlat's families: 1 us buckets folded at the bounds (a bound
 * excludes itself), +Inf and _count every sample, the samples past the
 * program's last bucket in +Inf only; bad bounds refused. */
static void test_timerlat(void **state)
{
	(void)state;
	uint64_t counts[10] = { 0 };
	counts[0] = 4;	/* [0, 1) us */
	counts[1] = 3;	/* [1, 2) us */
	counts[4] = 2;	/* [4, 5) us */
	counts[9] = 1;	/* [9, 10) us */
	struct promexp_tlat t = { .cpu = 1, .context = "thread", .counts = counts, .nr_buckets = 10, .over = 5,
				  .count = 15, .sum_ns = 150000, .max_ns = 42000, .missed = 2 };
	const uint64_t bounds[] = { 1000, 5000, 10000 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(promexp_timerlat(f, &t, 1, bounds, 3), 0);
	fclose(f);
	const char *want[] = {
		"# TYPE latscope_timerlat_latency_seconds histogram\n",
		"latscope_timerlat_latency_seconds_bucket{cpu=\"1\",context=\"thread\",le=\"1e-06\"} 4\n",
		"latscope_timerlat_latency_seconds_bucket{cpu=\"1\",context=\"thread\",le=\"5e-06\"} 9\n",
		"latscope_timerlat_latency_seconds_bucket{cpu=\"1\",context=\"thread\",le=\"1e-05\"} 10\n",
		"latscope_timerlat_latency_seconds_bucket{cpu=\"1\",context=\"thread\",le=\"+Inf\"} 15\n",
		"latscope_timerlat_latency_seconds_sum{cpu=\"1\",context=\"thread\"} 0.00015\n",
		"latscope_timerlat_latency_seconds_count{cpu=\"1\",context=\"thread\"} 15\n",
		"latscope_timerlat_latency_max_seconds{cpu=\"1\",context=\"thread\"} 4.2e-05\n",
		"latscope_timerlat_missed_total{cpu=\"1\",context=\"thread\"} 2\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i]))
			fail_msg("no %s in:\n%s", want[i], buf);
	free(buf);
	const uint64_t bad[] = { 1000, 1500 };	/* not whole microseconds */
	f = open_memstream(&buf, &len);
	assert_int_equal(promexp_timerlat(f, &t, 1, bad, 2), -EINVAL);
	fclose(f);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_timerlat),
		cmocka_unit_test(test_torn_read),
		cmocka_unit_test(test_worst_case),
		cmocka_unit_test(test_noise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
