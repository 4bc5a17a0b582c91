/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/base/lhist.c and lib/print/histout.c (file format, max line, JSON). */
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

#include "base/lhist.h"
#include "engine/latency.h"
#include "print/histout.h"

static void test_default_record(void **state)
{
	(void)state;
	struct lhist h;
	assert_int_equal(lhist_init(&h, NULL), 0);
	assert_int_equal(h.cfg.nr_buckets, 10240);
	assert_int_equal(h.cfg.bucket_ns, 1000);
	lhist_record(&h, 999);		/* bucket 0 (truncation like latency_hist) */
	lhist_record(&h, 1000);		/* bucket 1 */
	lhist_record(&h, 1999);		/* bucket 1 */
	lhist_record(&h, 10239999);	/* last bucket */
	lhist_record(&h, 10240000);	/* above */
	lhist_record(&h, -5);		/* below */
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.counts[1], 2);
	assert_int_equal(h.counts[10239], 1);
	assert_int_equal(h.above, 1);
	assert_int_equal(h.below, 1);
	assert_int_equal(h.total, 6);
	assert_int_equal(h.min_ns, -5);
	assert_int_equal(h.max_ns, 10240000);
	assert_int_equal(lhist_avg_ns(&h), (999 + 1000 + 1999 + 10239999 + 10240000 - 5) / 6);
	lhist_reset(&h);
	assert_int_equal(h.total, 0);
	assert_int_equal(h.counts[1], 0);
	int64_t v;
	assert_int_equal(lhist_percentile_ns(&h, 50, &v), -ENODATA);
	lhist_fini(&h);
	lhist_fini(&h);		/* idempotent */
}

static void test_geometry(void **state)
{
	(void)state;
	struct lhist h;
	struct lhist_cfg c = { .lo_ns = -500, .bucket_ns = 250, .nr_buckets = 8 };
	assert_int_equal(lhist_init(&h, &c), 0);
	lhist_record(&h, -501);		/* below */
	lhist_record(&h, -500);		/* bucket 0 */
	lhist_record(&h, -1);		/* bucket 1 */
	lhist_record(&h, 0);		/* bucket 2 */
	lhist_record(&h, 1499);		/* bucket 7 */
	lhist_record(&h, 1500);		/* above */
	assert_int_equal(h.below, 1);
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.counts[1], 1);
	assert_int_equal(h.counts[2], 1);
	assert_int_equal(h.counts[7], 1);
	assert_int_equal(h.above, 1);
	assert_int_equal(lhist_bucket_lo_ns(&h, 2), 0);
	assert_int_equal(lhist_hi_ns(&h), 1500);
	lhist_fini(&h);

	struct lhist_cfg bad = { .lo_ns = 0, .bucket_ns = 0, .nr_buckets = 8 };
	assert_int_equal(lhist_init(&h, &bad), -EINVAL);
	bad.bucket_ns = 1;
	bad.nr_buckets = 0;
	assert_int_equal(lhist_init(&h, &bad), -EINVAL);
	bad.nr_buckets = LHIST_MAX_BUCKETS + 1;
	assert_int_equal(lhist_init(&h, &bad), -EINVAL);
	bad.nr_buckets = 1024;
	bad.bucket_ns = UINT64_MAX / 512;
	assert_int_equal(lhist_init(&h, &bad), -EINVAL);
}

static void test_percentiles_merge(void **state)
{
	(void)state;
	struct lhist a, b;
	int64_t v;
	assert_int_equal(lhist_init(&a, NULL), 0);
	assert_int_equal(lhist_init(&b, NULL), 0);
	/* 1.3..100.3 us, one sample each: the k-th smallest is k us + 300 ns */
	for (int i = 1; i <= 100; i++)
		lhist_record(&a, i * 1000 + 300);
	/* nearest rank: the last value of the bucket holding the ceil(p% * 100)-th */
	assert_int_equal(lhist_percentile_ns(&a, 50, &v), 0);
	assert_int_equal(v, 50999);	/* 50.3 us is in [50, 51) us */
	assert_int_equal(lhist_percentile_ns(&a, 90, &v), 0);
	assert_int_equal(v, 90999);
	assert_int_equal(lhist_percentile_ns(&a, 99, &v), 0);
	assert_int_equal(v, 99999);
	assert_int_equal(lhist_percentile_ns(&a, 99.99, &v), 0);
	assert_int_equal(v, 100300);	/* rank 100: the maximum, exact */
	assert_int_equal(lhist_percentile_ns(&a, 0, &v), 0);
	assert_int_equal(v, 1300);	/* rank 1: the minimum, exact */
	assert_int_equal(lhist_percentile_ns(&a, 100, &v), 0);
	assert_int_equal(v, 100300);
	assert_int_equal(lhist_percentile_ns(&a, 101, &v), -EINVAL);
	assert_int_equal(lhist_percentile_ns(&a, -1, &v), -EINVAL);

	/* above-range tail gives the max */
	lhist_record(&b, 20000000);
	lhist_record(&b, 30000000);
	assert_int_equal(lhist_percentile_ns(&b, 99, &v), 0);
	assert_int_equal(v, 30000000);
	assert_int_equal(lhist_percentile_ns(&b, 50, &v), 0);
	assert_int_equal(v, 20000000);	/* rank 1 of 2: the minimum */

	assert_int_equal(lhist_merge(&a, &b), 0);
	assert_int_equal(a.total, 102);
	assert_int_equal(a.above, 2);
	assert_int_equal(a.max_ns, 30000000);
	assert_int_equal(a.min_ns, 1300);
	assert_int_equal(a.counts[50], 1);

	struct lhist c;
	struct lhist_cfg g = { 0, 100, 10 };
	assert_int_equal(lhist_init(&c, &g), 0);
	assert_int_equal(lhist_merge(&a, &c), -EINVAL);
	/* merging into an empty histogram copies min/max */
	lhist_record(&c, 5);
	struct lhist d;
	assert_int_equal(lhist_init(&d, &g), 0);
	assert_int_equal(lhist_merge(&d, &c), 0);
	assert_int_equal(d.min_ns, 5);
	assert_int_equal(d.max_ns, 5);
	lhist_fini(&a);
	lhist_fini(&b);
	lhist_fini(&c);
	lhist_fini(&d);
}

/* lhist_pct_buckets on its own: the rank in integers, the region below the
 * first bucket, the overflow, a log-linear layout. */
static void test_pct_buckets(void **state)
{
	(void)state;
	int64_t v;
	/* 1000 values: 1..999, one per bucket of width 1 starting at 1, and 5000
	 * above the range */
	static uint64_t ones[999];
	for (int i = 0; i < 999; i++)
		ones[i] = 1;
	struct lhist_layout lin = { .kind = LHIST_LINEAR, .nr_buckets = 999, .lo = 1, .width = 1 };
	struct lhist_counts c = { .counts = ones, .above = 1, .total = 1000, .min = 1, .max = 5000 };
	/* rank 999 (a double product 99.9 / 100 * 1000 is above 999) */
	assert_int_equal(lhist_pct_buckets(&lin, &c, 99.9, &v), 0);
	assert_int_equal(v, 999);	/* [999, 1000) holds 999 only: exact, not the maximum */
	assert_int_equal(lhist_pct_buckets(&lin, &c, 50, &v), 0);
	assert_int_equal(v, 500);	/* 1-wide buckets: the exact value */

	/* 3 below the range (min -40), 1 in bucket [0, 10), 1 above (max 500) */
	uint64_t two[2] = { 1, 0 };
	struct lhist_layout l2 = { .kind = LHIST_LINEAR, .nr_buckets = 2, .lo = 0, .width = 10 };
	struct lhist_counts c2 = { .counts = two, .below = 3, .above = 1, .total = 5, .min = -40, .max = 500 };
	assert_int_equal(lhist_pct_buckets(&l2, &c2, 40, &v), 0);
	assert_int_equal(v, -1);	/* rank 2, below: under the first lower edge */
	assert_int_equal(lhist_pct_buckets(&l2, &c2, 80, &v), 0);
	assert_int_equal(v, 9);		/* rank 4: the top of [0, 10) */
	assert_int_equal(lhist_pct_buckets(&l2, &c2, 100, &v), 0);
	assert_int_equal(v, 500);

	/* log-linear, 2 sub-bits: [0][1][2][3] [4,5)[5,6)[6,7)[7,8) [8,10)... */
	uint64_t lg[24] = { 0 };
	lg[lhist_loglin_index(9, 2)]++;		/* bucket [8, 10) */
	lg[lhist_loglin_index(13, 2)]++;	/* bucket [12, 14) */
	lg[lhist_loglin_index(40, 2)]++;	/* bucket [40, 48) */
	assert_int_equal(lhist_loglin_lo(lhist_loglin_index(13, 2), 2), 12);
	struct lhist_layout ll = { .kind = LHIST_LOGLIN, .nr_buckets = 24, .sub_bits = 2 };
	struct lhist_counts c3 = { .counts = lg, .total = 3, .min = 9, .max = 40 };
	assert_int_equal(lhist_pct_buckets(&ll, &c3, 50, &v), 0);
	assert_int_equal(v, 13);	/* the top of [12, 14) */
	ll.sub_bits = 0;
	assert_int_equal(lhist_pct_buckets(&ll, &c3, 50, &v), -EINVAL);
	c3.total = 0;
	ll.sub_bits = 2;
	assert_int_equal(lhist_pct_buckets(&ll, &c3, 50, &v), -ENODATA);
}

static char *capture_hist(const struct lhist *h, const struct lhist_cfg *cfg, bool nz)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(histout_hist_file(f, h, cfg, nz), 0);
	fclose(f);
	return buf;
}

static void test_file_format(void **state)
{
	(void)state;
	struct lhist h;
	assert_int_equal(lhist_init(&h, NULL), 0);
	lhist_record(&h, 3500);
	lhist_record(&h, 3900);
	lhist_record(&h, 7100);
	lhist_record(&h, 20000000);
	char *out = capture_hist(&h, NULL, false);
	const char *head =
		"#Minimum latency: 3 microseconds\n"
		"#Average latency: 5003 microseconds\n"
		"#Maximum latency: 20000 microseconds\n"
		"#Total samples: 4\n"
		"#There are 0 samples lower than 0 microseconds.\n"
		"#There are 1 samples greater or equal than 10240 microseconds.\n"
		"#usecs\t         samples\n"
		"     0\t               0\n";
	assert_memory_equal(out, head, strlen(head));
	assert_non_null(strstr(out, "\n     3\t               2\n     4\t               0\n"));
	assert_non_null(strstr(out, "\n     7\t               1\n"));
	assert_non_null(strstr(out, "\n 10239\t               0\n"));
	/* 7 header lines + 10240 rows */
	int lines = 0;
	for (char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 7 + 10240);
	free(out);

	out = capture_hist(&h, NULL, true);
	assert_non_null(strstr(out, "#usecs\t         samples\n     3\t               2\n"
				    "     7\t               1\n"));
	free(out);
	lhist_fini(&h);

	/* empty */
	out = capture_hist(NULL, NULL, true);
	assert_string_equal(out,
		"#Minimum latency: <undef> microseconds\n"
		"#Average latency: <undef> microseconds\n"
		"#Maximum latency: <undef> microseconds\n"
		"#Total samples: 0\n"
		"#There are 0 samples lower than 0 microseconds.\n"
		"#There are 0 samples greater or equal than 10240 microseconds.\n"
		"#usecs\t         samples\n");
	free(out);

	/* sub-microsecond buckets print ns rows */
	struct lhist_cfg g = { 0, 100, 50 };
	assert_int_equal(lhist_init(&h, &g), 0);
	lhist_record(&h, 250);
	out = capture_hist(&h, NULL, true);
	assert_string_equal(out,
		"#Minimum latency: 0.250 microseconds\n"
		"#Average latency: 0.250 microseconds\n"
		"#Maximum latency: 0.250 microseconds\n"
		"#Total samples: 1\n"
		"#There are 0 samples lower than 0.000 microseconds.\n"
		"#There are 0 samples greater or equal than 5.000 microseconds.\n"
		"#nsecs\t         samples\n"
		"   200\t               1\n");
	free(out);
	lhist_fini(&h);
}

static void test_maxline(void **state)
{
	(void)state;
	struct hset_max m;
	char buf[256];
	memset(&m, 0, sizeof(m));
	assert_int_equal(histout_maxline(buf, sizeof(buf), &m), 7);
	assert_string_equal(buf, "(none)\n");
	m.valid = true;
	m.pid = 4242;
	m.prio = 0;		/* user prio 99 */
	strcpy(m.comm, "cyclictest");
	m.latency_ns = 57999;
	m.timer_offset_ns = 12400;
	m.has_culprit = true;
	m.culprit_pid = 17;
	m.culprit_prio = 120;	/* SCHED_OTHER: -21 as latency_hist prints it */
	strcpy(m.culprit_comm, "ksoftirqd/1");
	m.time_ns = 123456789012345ull;
	int n = histout_maxline(buf, sizeof(buf), &m);
	assert_string_equal(buf, "4242 99 57 (12) cyclictest <- 17 -21 ksoftirqd/1 123456.789012\n");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(histout_maxline(buf, 10, &m), -ENOSPC);
	m.has_culprit = false;
	histout_maxline(buf, sizeof(buf), &m);
	assert_string_equal(buf, "4242 99 57 (12) cyclictest <- -1 -1 (unknown) 123456.789012\n");
}

static void test_json_term(void **state)
{
	(void)state;
	struct latency *l;
	struct latency_cfg cfg;
	latency_cfg_default(&cfg, 2);
	assert_int_equal(latency_new(&l, &cfg), 0);
	/* irqsoff samples on both CPUs through preemptirq events */
	struct tpevent e;
	for (int c = 0; c < 2; c++) {
		memset(&e, 0, sizeof(e));
		e.cpu = (uint32_t)c;
		e.kind = TPEVENT_IRQ_DISABLE;
		e.time_ns = 1000;
		latency_feed(l, &e);
		e.kind = TPEVENT_IRQ_ENABLE;
		e.time_ns = 1000 + 5000 * (uint64_t)(c + 1);
		latency_feed(l, &e);
	}
	bool types[HSET_NR_KINDS] = { 0 }, uns[HSET_NR_KINDS] = { 0 };
	types[HSET_IRQSOFF] = true;
	types[HSET_PREEMPTOFF] = true;
	uns[HSET_PREEMPTOFF] = true;
	struct json_object *j = histout_json(latency_set(l), types, uns, true);
	assert_non_null(j);
	const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(s, "\"unavailable\":[\"preemptoff\"]"));
	assert_non_null(strstr(s, "\"irqsoff\":{\"cpus\":[{\"total\":1"));
	assert_non_null(strstr(s, "\"buckets\":[[5000,1]]"));
	assert_non_null(strstr(s, "\"buckets\":[[10000,1]]"));
	assert_non_null(strstr(s, "\"all\":{\"total\":2,\"below\":0,\"above\":0,\"min_ns\":5000,"
				  "\"avg_ns\":7500,\"max_ns\":10000"));
	json_object_put(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(histout_term(f, latency_set(l), HSET_IRQSOFF, 0), 0);
	assert_int_equal(histout_term(f, latency_set(l), HSET_WAKEUP, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "irqsoff (us)\n        latency      CPU0      CPU1       all\n"
				    "              5         1         0         1\n"
				    "             10         0         1         1\n"
				    "            min         5        10         5\n"));
	assert_non_null(strstr(buf, "wakeup (us)\n  no samples\n"));
	free(buf);
	latency_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_record),
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_percentiles_merge),
		cmocka_unit_test(test_pct_buckets),
		cmocka_unit_test(test_file_format),
		cmocka_unit_test(test_maxline),
		cmocka_unit_test(test_json_term),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
