/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the bpf histogram backend's pure parts: the bucket rule the
 * BPF programs use (live/bpf/bpfhist_abi.h) files every value where
 * lhist_record() does, for the geometries `hist` takes (default, sub-us,
 * negative offset, one bucket, wide buckets), at and around every edge;
 * bpfhist_open() refuses bad or too large configurations before it touches
 * the kernel; and bpfhist_misses_text() names every program that missed runs
 * (the kernel's recursion_misses, a loss) and sums them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/lhist.h"
#include "live/bpf/bpfhist_abi.h"
#include "live/bpfhist.h"

/* v filed by lhist and by the BPF rule: the same place */
static void same_place(const struct lhist_cfg *g, int64_t v)
{
	struct lhist h;
	uint32_t idx = UINT32_MAX;

	assert_int_equal(lhist_init(&h, g), 0);
	lhist_record(&h, v);
	enum bpfhist_where w = bpfhist_bucket(v, g->lo_ns, g->bucket_ns, g->nr_buckets, &idx);
	if (h.below) {
		assert_int_equal(w, BPFHIST_BELOW);
	} else if (h.above) {
		assert_int_equal(w, BPFHIST_ABOVE);
	} else {
		assert_int_equal(w, BPFHIST_IN);
		assert_true(idx < g->nr_buckets);
		assert_int_equal(h.counts[idx], 1);
	}
	lhist_fini(&h);
}

static void test_buckets_agree(void **state)
{
	(void)state;
	struct lhist_cfg g[] = {
		{ 0, 0, 0 },			/* the default, filled below */
		{ 0, 100, 1000 },		/* --resolution 100ns */
		{ -50000, 1000, 200 },		/* --offset -50us */
		{ 7, 1, 1 },			/* one 1 ns bucket */
		{ 1000, 1000000, 3 },		/* 1 ms buckets from 1 us */
	};
	lhist_cfg_default(&g[0]);
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		int64_t hi = g[i].lo_ns + (int64_t)(g[i].bucket_ns * g[i].nr_buckets);
		int64_t edges[] = { g[i].lo_ns, hi, g[i].lo_ns + (int64_t)g[i].bucket_ns, 0, INT64_MAX,
				    INT64_MIN, 999, 1000, 1001, 10239999, 10240000 };
		for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
			for (int64_t d = -2; d <= 2; d++) {
				int64_t v;
				if (__builtin_add_overflow(edges[e], d, &v))
					continue;
				same_place(&g[i], v);
			}
		/* and a sweep through the whole range */
		uint64_t step = g[i].bucket_ns * g[i].nr_buckets / 997 + 1;
		for (int64_t v = g[i].lo_ns - 3; v < hi + 3; v += (int64_t)step)
			same_place(&g[i], v);
	}
}

static void test_open_refuses(void **state)
{
	(void)state;
	struct bpfhist *b = (struct bpfhist *)&b;
	struct bpfhist_cfg c = { .nr_cpus = 0 };
	char why[256];
	lhist_cfg_default(&c.hist);
	int err = bpfhist_open(&b, &c, why, sizeof(why));
	assert_null(b);
	if (bpfhist_built()) {		/* compiled out: every open says why */
		assert_int_equal(err, -EOPNOTSUPP);
		assert_non_null(strstr(why, bpfhist_built()));
		return;
	}
	assert_int_equal(err, -EINVAL);
	c.nr_cpus = BPFHIST_MAX_CPUS + 1;
	assert_int_equal(bpfhist_open(&b, &c, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "at most"));
	c.nr_cpus = 2;
	c.hist.nr_buckets = BPFHIST_MAX_BUCKETS + 1;
	assert_int_equal(bpfhist_open(&b, &c, why, sizeof(why)), -E2BIG);
	assert_null(b);
	bpfhist_close(NULL);
	bpfhist_stop(NULL);
	assert_false(bpfhist_has_timers(NULL));
}

static void set_prog(struct bpfhist_stats *st, const char *name, uint64_t runs, uint64_t misses)
{
	struct bpfload_prog *p = &st->progs[st->nr_progs++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->run_cnt = runs;
	p->recursion_misses = misses;
}

static void test_misses_text(void **state)
{
	struct bpfhist_stats st;
	char b[128];

	(void)state;
	_Static_assert(sizeof(st.progs[0].name) == 48, "the 48 n below");
	memset(&st, 0, sizeof(st));
	memset(b, 'x', sizeof(b));
	assert_int_equal(bpfhist_misses_text(&st, b, sizeof(b)), 0);	/* no program */
	assert_string_equal(b, "");
	set_prog(&st, "bpfhist_waking", 100, 0);
	set_prog(&st, "bpfhist_switch", 200, 0);
	assert_int_equal(bpfhist_misses_text(&st, b, sizeof(b)), 0);	/* none missed */
	assert_string_equal(b, "");
	set_prog(&st, "bpfhist_expire_entry", 50, 3);
	assert_int_equal(bpfhist_misses_text(&st, b, sizeof(b)), 3);
	assert_string_equal(b, "bpfhist_expire_entry 3");
	st.progs[0].recursion_misses = 1;	/* in the programs' order */
	assert_int_equal(bpfhist_misses_text(&st, b, sizeof(b)), 4);
	assert_string_equal(b, "bpfhist_waking 1, bpfhist_expire_entry 3");
	/* a short buffer: cut, NUL-terminated, the total still whole */
	assert_int_equal(bpfhist_misses_text(&st, b, 10), 4);
	assert_string_equal(b, "bpfhist_w");
	assert_int_equal(bpfhist_misses_text(&st, b, 0), 4);
	/* a name of the field's full 48 bytes without its NUL stays inside the field */
	memset(st.progs[1].name, 'n', sizeof(st.progs[1].name));
	st.progs[1].recursion_misses = 2;
	assert_int_equal(bpfhist_misses_text(&st, b, sizeof(b)), 6);
	assert_string_equal(b, "bpfhist_waking 1, " "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn" " 2, bpfhist_expire_entry 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_agree),
		cmocka_unit_test(test_open_refuses),
		cmocka_unit_test(test_misses_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
