/* SPDX-License-Identifier: MIT */
/* test_dtlstat.c - unit tests of the DTL statistics (lib/engine/dtlstat.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/dtlstat.h"

static void test_buckets(void **state)
{
	(void)state;
	unsigned prev = 0;

	for (uint64_t v = 0; v < 100000; v++) {
		unsigned b = dtlstat_bucket(v);
		assert_true(b < DTLSTAT_NBUCKETS);
		assert_true(b >= prev);
		assert_true(dtlstat_bucket_low(b) <= v);
		assert_true(b + 1 == DTLSTAT_NBUCKETS || dtlstat_bucket_low(b + 1) > v);
		prev = b;
	}
	assert_true(dtlstat_bucket(UINT32_MAX) == DTLSTAT_NBUCKETS - 1);
	assert_true(dtlstat_bucket(UINT64_MAX) == DTLSTAT_NBUCKETS - 1);
}

static void put(uint8_t *p, uint8_t d, uint8_t r, uint16_t proc, uint32_t e2d, uint32_t r2e,
		uint32_t w2r, uint64_t tb)
{
	struct dtl_entry e = { .dispatch_reason = d, .preempt_reason = r, .processor_id = proc,
			       .enqueue_to_dispatch_tb = e2d, .ready_to_enqueue_tb = r2e,
			       .waiting_to_ready_tb = w2r, .timebase = tb };
	dtl_encode(&e, p);
}

static void test_payload_accounting(void **state)
{
	(void)state;
	struct dtlstat *s;
	uint8_t buf[48 * 6 + 10];
	struct dtl_tbinfo tb = { 1000, 512000000 };
	const struct dtlstat_cpu *c;
	struct dtlstat_cpu tot;
	const struct dtlstat_worst *w;

	memset(buf, 0, sizeof(buf));
	dtl_header_write(buf, &tb, true);		/* a cross-endian file */
	put(buf + 48, 3, 2, 10, 512, 100, 5000, 512000000 + 1000);
	put(buf + 96, 7, 4, 10, 1024, 0, 7, 1024000000 + 1000);
	put(buf + 144, 3, 2, 11, 51200, 512, 0, 1536000000 + 1000);
	put(buf + 192, 200, 99, 11, 0, 0, 0, 2048000000 + 1000);	/* unknown reasons */
	/* slot 5 all zero: skipped */
	assert_int_equal(dtlstat_new(&s), 0);
	assert_int_equal(dtlstat_add_payload(s, 2, 0, buf, sizeof(buf), true, true), 0);
	assert_int_equal(dtlstat_add_payload(s, DTLSTAT_MAX_CPUS, 0, buf, 48, true, true), -ERANGE);
	c = dtlstat_cpu(s, 2);
	assert_non_null(c);
	assert_null(dtlstat_cpu(s, 1));
	assert_int_equal(dtlstat_nr_cpus(s), 3);
	assert_int_equal(c->entries, 4);
	assert_true(c->tbi.boot_tb == 1000 && c->tbi.tb_freq == 512000000);
	assert_int_equal(c->dispatch[3], 2);
	assert_int_equal(c->dispatch[200], 1);
	assert_int_equal(c->preempt[99], 1);
	assert_int_equal(c->h[DTLSTAT_E2D].count, 4);
	assert_int_equal(c->h[DTLSTAT_E2D].min, 0);
	assert_int_equal(c->h[DTLSTAT_E2D].max, 51200);
	assert_int_equal(c->h[DTLSTAT_E2D].sum, 512 + 1024 + 51200);
	assert_int_equal(c->stolen_tb, 512 + 100 + 1024 + 51200 + 512);
	assert_int_equal(c->proc_changes, 1);
	assert_int_equal(dtlstat_span_tb(c), 1536000000);
	const struct dtl_scan_stats *st = dtlstat_scan_stats(s);
	assert_int_equal(st->headers, 1);
	assert_int_equal(st->skipped, 1);
	assert_int_equal(st->entries, 4);
	assert_int_equal(st->bad_reasons, 1);
	assert_int_equal(st->odd_payloads, 1);
	assert_int_equal(st->tail_bytes, 10);
	assert_int_equal(dtlstat_worst(s, &w), 4);
	assert_int_equal(w[0].delay_tb, 51712);
	assert_int_equal(w[0].cpu, 2);
	assert_int_equal(w[1].delay_tb, 1024);
	/* a second CPU, total */
	assert_int_equal(dtlstat_add_payload(s, 0, 48, buf + 48, 48, true, true), 0);
	dtlstat_total(s, &tot);
	assert_int_equal(tot.entries, 5);
	assert_int_equal(tot.dispatch[3], 3);
	assert_int_equal(tot.h[DTLSTAT_W2R].max, 5000);
	assert_true(dtlstat_tbinfo(s).tb_freq == 512000000);
	dtlstat_free(s);
}

static void test_percentiles_and_log2(void **state)
{
	(void)state;
	struct dtlstat *s;
	const struct dtlstat_cpu *c;
	uint64_t bins[24];

	assert_int_equal(dtlstat_new(&s), 0);
	/* 1000 entries with e2d = 512 * i ticks = i us */
	for (uint32_t i = 1; i <= 1000; i++) {
		struct dtl_entry e = { .timebase = 100 + i, .enqueue_to_dispatch_tb = 512 * i };
		assert_int_equal(dtlstat_add_entry(s, 0, &e), 0);
	}
	c = dtlstat_cpu(s, 0);
	uint64_t p50 = dtlstat_hist_percentile(&c->h[DTLSTAT_E2D], 50);
	uint64_t p99 = dtlstat_hist_percentile(&c->h[DTLSTAT_E2D], 99);
	/* within one bucket (6.25 %) of the true value */
	assert_true(p50 >= 500 * 512 && p50 <= 500 * 512 * 1.0625 + 1);
	assert_true(p99 >= 990 * 512 && p99 <= 990 * 512 * 1.0625 + 1);
	assert_int_equal(dtlstat_hist_percentile(&c->h[DTLSTAT_E2D], 100), 1000 * 512);
	assert_int_equal(dtlstat_hist_percentile(&c->h[DTLSTAT_E2D], 0), 512);
	dtlstat_hist_log2_us(&c->h[DTLSTAT_E2D], 512000000, bins, 24);
	uint64_t tot = 0;
	for (int i = 0; i < 24; i++)
		tot += bins[i];
	assert_int_equal(tot, 1000);
	assert_int_equal(bins[0], 0);	/* nothing below 1 us */
	assert_int_equal(bins[1], 1);	/* [1,2) us */
	assert_int_equal(bins[2], 2);	/* [2,4) us */
	assert_int_equal(bins[10], 489);	/* [512,1024) us: 512..1000 */
	dtlstat_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_payload_accounting),
		cmocka_unit_test(test_percentiles_and_log2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
