/* SPDX-License-Identifier: MIT */
/*
 * One percentile rule for the three histograms (issue 10).  The same 200
 * latencies go through each command's own filling and reporting path:
 *
 *   hist         wakeup latencies fed to the trackers (lib/engine/latency.c) as
 *                sched_wakeup / sched_switch pairs, read back with
 *                lhist_percentile_ns() like src/hist/output.c and histout.c;
 *   osnoise hist workload gaps fed to the osnoise engine (lib/engine/osneng.c) as
 *                OSWORK_GAP records, read back with osneng_hist_percentile_ns()
 *                like src/osnoise/output.c (1 us buckets, 256 of them);
 *   dtl report   enqueue_to_dispatch of DTL entries (lib/engine/dtlstat.c) at a
 *                512 MHz timebase, read back with dtlstat_hist_percentile()
 *                like src/cmd_dtl_report.c.
 *
 * The known answer is the nearest-rank value of the sorted latencies (the
 * ceil(p/100 * n)-th smallest), computed here in integers.  Each command's
 * percentile must lie in [known, last value of the bucket holding known] of
 * its own buckets, and the three must agree with each other to the coarsest
 * of those buckets.  The latencies sit inside their 1 us buckets (never on an
 * edge) and 200 * p/100 is a whole number for p50/p90/p99, so a lower-edge
 * rule or a rank off by one fails.  One latency (300 us) is past osnoise's
 * 256 buckets: its over bucket.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "format/dtl.h"
#include "engine/dtlstat.h"
#include "engine/latency.h"
#include "base/lhist.h"
#include "engine/osneng.h"
#include "live/oswork.h"
#include "format/tpevent.h"
#include "test_tpe.h"

#define N 200
#define TB_FREQ 512000000ull	/* POWER timebase: 1 tick = 1.953125 ns */

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

/* The latencies in feeding order (ns, multiples of 125: whole ticks). */
static uint64_t lat_ns[N];

static void make_latencies(void)
{
	/* k-th smallest: (k+1) us + 125..875 ns, fed in a scrambled order */
	for (uint64_t k = 0; k < N - 1; k++)
		lat_ns[(k * 73) % N] = (k + 1) * 1000 + 125 * (1 + k % 7);
	lat_ns[(uint64_t)(N - 1) * 73 % N] = 300000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The nearest-rank value: the ceil(p/100 * N)-th smallest (p to 1/100). */
static uint64_t known_ns(double p)
{
	uint64_t s[N];
	memcpy(s, lat_ns, sizeof(s));
	qsort(s, N, sizeof(s[0]), cmp_u64);
	uint64_t p100 = (uint64_t)(p * 100 + 0.5);
	uint64_t rank = (p100 * N + 9999) / 10000;
	return s[(rank ? rank : 1) - 1];
}

static uint64_t ns_to_ticks(uint64_t ns)
{
	return ns * 64 / 125;	/* exact for multiples of 125 ns */
}

/* ---- hist: wakeup latencies through the trackers ------------------------------ */

static void feed(struct latency *l, const struct tpevent *e)
{
	assert_int_equal(latency_feed(l, e), 0);
}

static void sw(struct latency *l, uint64_t t, int prev, int pprio, int next, int nprio)
{
	struct tpevent e;
	tt_switch(&e, t, 0, prev, pprio, NULL, next, nprio, NULL);
	feed(l, &e);
}

static void wakeup(struct latency *l, uint64_t t, int pid, int prio)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = TPEVENT_SCHED_WAKEUP;
	e.time_ns = t;
	e.wake.pid = pid;
	e.wake.prio = prio;
	snprintf(e.wake.comm, sizeof(e.wake.comm), "task%d", pid);
	feed(l, &e);
}

static void hist_pcts(int64_t out[NPCT])
{
	struct latency_cfg cfg;
	struct latency *l;
	latency_cfg_default(&cfg, 1);
	assert_int_equal(latency_new(&l, &cfg), 0);
	uint64_t t = 1000000;
	sw(l, t, 0, 120, 100, 120);			/* a CFS task runs on CPU0 */
	for (int i = 0; i < N; i++) {
		wakeup(l, t += 10000, 200, 10);		/* RT task 200 woken */
		sw(l, t += lat_ns[i], 100, 120, 200, 10);	/* and run */
		sw(l, t += 10000, 200, 10, 100, 120);
	}
	const struct lhist *h = hset_hist(latency_set(l), HSET_WAKEUP, 0);
	assert_non_null(h);
	assert_int_equal(h->total, N);
	for (size_t i = 0; i < NPCT; i++)
		assert_int_equal(lhist_percentile_ns(h, pcts[i], &out[i]), 0);
	latency_free(l);
}

/* ---- osnoise hist: workload gaps through the engine --------------------------- */

static struct oswork_rec wq[N + 2];
static size_t wq_n, wq_pos;

static bool wq_peek(void *arg, size_t idx, struct oswork_rec *r)
{
	(void)arg;
	(void)idx;
	if (wq_pos == wq_n)
		return false;
	*r = wq[wq_pos];
	return true;
}

static void wq_pop(void *arg, size_t idx)
{
	(void)arg;
	(void)idx;
	wq_pos++;
}

static void add_rec(uint32_t type, uint64_t t0, uint64_t t1, uint64_t v0)
{
	struct oswork_rec *r = &wq[wq_n++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->t0_ns = t0;
	r->t1_ns = t1;
	r->v[0] = v0;
}

static void osnoise_pcts(int64_t out[NPCT], uint64_t *bucket_ns)
{
	struct osneng_opts o;
	memset(&o, 0, sizeof(o));
	parse_cpuset_add(&o.cpus, 0);
	o.threshold_us = 1;
	o.period_us = o.runtime_us = 1000000;
	o.hist = true;
	o.bucket_us = 1;	/* the command's defaults */
	o.entries = 256;
	*bucket_ns = o.bucket_us * 1000;

	uint64_t base = 1000000000, t = base + 1000;
	wq_n = wq_pos = 0;
	add_rec(OSWORK_PERIOD_BEGIN, base, base, 0);
	for (int i = 0; i < N; i++) {
		add_rec(OSWORK_GAP, t, t + lat_ns[i], 0);
		t += lat_ns[i] + 20000;
	}
	add_rec(OSWORK_PERIOD_END, t, t, t - base);

	struct osneng *e = NULL;
	struct osneng_sink sk = { 0 };
	assert_int_equal(osneng_new(&e, &o, &sk), 0);
	assert_int_equal(osneng_set_tid(e, 0, 500, 100, 0), 0);
	struct osneng_wsrc src = { .peek = wq_peek, .pop = wq_pop };
	osneng_use_source(e, &src);
	osneng_start(e, base);
	osneng_set_end(e, t);
	osneng_advance(e, UINT64_MAX);
	osneng_close(e);

	const struct osneng_hist *h = &osneng_cpu(e, 0)->hist;
	assert_int_equal(h->count, N);
	assert_int_equal(h->b[o.entries], 1);	/* 300 us: the over bucket */
	for (size_t i = 0; i < NPCT; i++) {
		uint64_t v;
		assert_int_equal(osneng_hist_percentile_ns(h, o.bucket_us, o.entries, pcts[i], &v), 0);
		out[i] = (int64_t)v;
	}
	osneng_free(e);
}

/* ---- dtl report: enqueue_to_dispatch through the DTL statistics --------------- */

static void dtl_pcts(uint64_t ticks[NPCT], int64_t out[NPCT])
{
	struct dtlstat *s;
	assert_int_equal(dtlstat_new(&s), 0);
	for (int i = 0; i < N; i++) {
		struct dtl_entry e = {
			.dispatch_reason = 1, .timebase = 1000 + (uint64_t)i * 100000,
			.enqueue_to_dispatch_tb = (uint32_t)ns_to_ticks(lat_ns[i]),
		};
		assert_int_equal(dtlstat_add_entry(s, 0, &e), 0);
	}
	const struct dtlstat_hist *h = &dtlstat_cpu(s, 0)->h[DTLSTAT_E2D];
	assert_int_equal(h->count, N);
	for (size_t i = 0; i < NPCT; i++) {
		ticks[i] = dtlstat_hist_percentile(h, pcts[i]);
		out[i] = (int64_t)dtl_ticks_to_ns(ticks[i], TB_FREQ);
	}
	dtlstat_free(s);
}

/* ---- the three against the known answer and each other ------------------------ */

static void test_three_agree(void **state)
{
	(void)state;
	int64_t hv[NPCT], ov[NPCT], dv[NPCT];
	uint64_t dticks[NPCT], obucket_ns;
	make_latencies();
	hist_pcts(hv);
	osnoise_pcts(ov, &obucket_ns);
	dtl_pcts(dticks, dv);
	for (size_t i = 0; i < NPCT; i++) {
		int64_t k = (int64_t)known_ns(pcts[i]);
		/* hist: 1 us linear buckets from 0 */
		int64_t htop = k / LHIST_DEFAULT_BUCKET_NS * LHIST_DEFAULT_BUCKET_NS +
			       LHIST_DEFAULT_BUCKET_NS - 1;
		/* osnoise: 1 us buckets up to 256 us, then the over bucket (the max) */
		int64_t otop = k >= 256 * (int64_t)obucket_ns ? k :
			       k / (int64_t)obucket_ns * (int64_t)obucket_ns + (int64_t)obucket_ns - 1;
		/* dtl: log-linear buckets over ticks */
		uint64_t kt = ns_to_ticks((uint64_t)k);
		uint64_t dtop = dtlstat_bucket_low(dtlstat_bucket(kt) + 1) - 1;
		print_message("p%-6g known %7" PRId64 " ns: hist %7" PRId64 " osnoise %7" PRId64
			      " dtl %7" PRId64 " ns (%" PRIu64 " ticks)\n", pcts[i], k, hv[i], ov[i],
			      dv[i], dticks[i]);
		assert_in_range(hv[i], k, htop);
		assert_in_range(ov[i], k, otop);
		assert_in_range(dticks[i], kt, dtop);
		/* with each other, to the coarsest bucket (dtl's, <= 6.25 %) */
		int64_t res = (int64_t)dtl_ticks_to_ns(dtop - kt + 1, TB_FREQ) + 1;
		if (res < LHIST_DEFAULT_BUCKET_NS)
			res = LHIST_DEFAULT_BUCKET_NS;
		assert_true(llabs(hv[i] - ov[i]) < res);
		assert_true(llabs(hv[i] - dv[i]) < res);
		assert_true(llabs(ov[i] - dv[i]) < res);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
