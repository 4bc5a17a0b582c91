/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the automatic analysis of a noise gap (lib/engine/noiseauto.c)
 * on constructed event sequences: the noise accounting (lib/engine/noise.c)
 * turns the events into windows, the analysis sums them per source; the parts
 * and the hardware remainder add up to the gap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/noise.h"
#include "engine/noiseauto.h"

#define WL 100

static void on_win(void *arg, const struct noise_win *w)
{
	assert_int_equal(noiseauto_win(arg, w), 0);
}

static struct noise *mk(struct noiseauto **a)
{
	struct noise *n;
	assert_int_equal(noiseauto_new(a, 2), 0);
	struct noise_sink s = { .arg = *a, .win = on_win };
	assert_int_equal(noise_new(&n, 2, NULL, &s), 0);
	assert_int_equal(noise_set_workload(n, 0, WL), 0);
	assert_int_equal(noise_set_workload(n, 1, WL + 1), 0);
	noise_period_begin(n, 0, 0);
	noise_period_begin(n, 1, 0);
	return n;
}

static void ev(struct noise *n, enum tpevent_kind k, uint32_t cpu, uint64_t t, int id, const char *name)
{
	struct tpevent e = { .kind = k, .time_ns = t, .cpu = cpu };
	switch (k) {
	case TPEVENT_IRQ_ENTRY:
	case TPEVENT_IRQ_EXIT:
		e.irq.irq = id;
		if (name)
			strncpy(e.irq.name, name, TPEVENT_NAME_LEN - 1);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
	case TPEVENT_SOFTIRQ_EXIT:
		e.softirq.vec = (unsigned)id;
		break;
	default:
		break;
	}
	assert_int_equal(noise_event(n, &e), 0);
}

static void sw(struct noise *n, uint32_t cpu, uint64_t t, int prev, const char *pc, int next, const char *nc)
{
	struct tpevent e = { .kind = TPEVENT_SCHED_SWITCH, .time_ns = t, .cpu = cpu };
	e.sw.prev_pid = prev;
	e.sw.next_pid = next;
	strncpy(e.sw.prev_comm, pc, TPEVENT_COMM_LEN - 1);
	strncpy(e.sw.next_comm, nc, TPEVENT_COMM_LEN - 1);
	assert_int_equal(noise_event(n, &e), 0);
}

static uint64_t sum_parts(const struct noiseauto_result *r)
{
	uint64_t s = r->other_ns;
	for (size_t i = 0; i < r->nr_parts; i++)
		s += r->parts[i].net_ns;
	return s;
}

/* a thread with a softirq and an IRQ nested, twice the same IRQ, and time no
 * event explains: each source once, net, largest first; they add up */
static void test_nested_sources(void **state)
{
	struct noiseauto *a;
	struct noiseauto_result r;
	(void)state;
	struct noise *n = mk(&a);
	/* before the gap: an IRQ that must not count */
	ev(n, TPEVENT_IRQ_ENTRY, 0, 100, 11, "virtio0");
	ev(n, TPEVENT_IRQ_EXIT, 0, 300, 11, NULL);
	/* the gap 1000..11000 */
	ev(n, TPEVENT_IRQ_ENTRY, 0, 1500, 11, "virtio0");
	ev(n, TPEVENT_IRQ_EXIT, 0, 2000, 11, NULL);		/* 500 */
	sw(n, 0, 2500, WL, "ls-osnoise/0", 42, "kworker/0:1");
	ev(n, TPEVENT_SOFTIRQ_ENTRY, 0, 3000, 1, NULL);
	ev(n, TPEVENT_IRQ_ENTRY, 0, 3200, 11, "virtio0");
	ev(n, TPEVENT_IRQ_EXIT, 0, 3500, 11, NULL);		/* 300 */
	ev(n, TPEVENT_SOFTIRQ_EXIT, 0, 4000, 1, NULL);		/* 1000 - 300 = 700 */
	sw(n, 0, 7000, 42, "kworker/0:1", WL, "ls-osnoise/0");	/* 4500 - 1000 = 3500 */
	assert_int_equal(noise_gap(n, 0, 1000, 11000), 0);
	assert_int_equal(noiseauto_gap(a, 0, 1000, 11000, &r), 0);

	assert_int_equal(r.duration_ns, 10000);
	assert_int_equal(r.nr_parts, 3);
	assert_int_equal(r.parts[0].cls, NOISE_THREAD);
	assert_int_equal(r.parts[0].id, 42);
	assert_string_equal(r.parts[0].name, "kworker/0:1");
	assert_int_equal(r.parts[0].net_ns, 3500);
	assert_int_equal(r.parts[1].cls, NOISE_IRQ);
	assert_int_equal(r.parts[1].count, 2);
	assert_int_equal(r.parts[1].net_ns, 800);
	assert_string_equal(r.parts[1].name, "virtio0");
	assert_int_equal(r.parts[2].cls, NOISE_SOFTIRQ);
	assert_string_equal(r.parts[2].name, "TIMER");
	assert_int_equal(r.parts[2].net_ns, 700);
	assert_int_equal(r.class_ns[NOISE_IRQ], 800);
	assert_int_equal(r.hw_ns, 10000 - 3500 - 800 - 700);
	assert_int_equal(r.excess_ns, 0);
	assert_int_equal(sum_parts(&r) + r.hw_ns - r.excess_ns, r.duration_ns);
	assert_false(r.ring_short);
	/* shares in hundredths of a percent */
	assert_int_equal(noiseauto_share_e2(r.parts[0].net_ns, r.duration_ns), 3500);
	assert_int_equal(noiseauto_share_e2(1, 3), 3333);
	assert_int_equal(noiseauto_share_e2(5, 0), 0);
	/* the other CPU saw nothing: all hardware */
	assert_int_equal(noiseauto_gap(a, 1, 1000, 11000, &r), 0);
	assert_int_equal(r.nr_parts, 0);
	assert_int_equal(r.hw_ns, 10000);
	noise_free(n);
	noiseauto_free(a);
}

/* windows longer than the gap (the clocks differ): the excess said, the sum holds */
static void test_excess_and_bounds(void **state)
{
	struct noiseauto *a;
	struct noiseauto_result r;
	struct noise_win w = { .cls = NOISE_IRQ, .cpu = 1, .start_ns = 1000, .end_ns = 3000, .net_ns = 2000,
			       .id = 5, .name = "eth0" };
	(void)state;
	assert_int_equal(noiseauto_new(&a, 2), 0);
	assert_int_equal(noiseauto_win(a, &w), 0);
	assert_int_equal(noiseauto_gap(a, 1, 1000, 2500, &r), 0);
	assert_int_equal(r.hw_ns, 0);
	assert_int_equal(r.excess_ns, 500);
	assert_int_equal(sum_parts(&r) + r.hw_ns - r.excess_ns, r.duration_ns);
	assert_int_equal(noiseauto_gap(a, 2, 1000, 2500, &r), -EINVAL);
	assert_int_equal(noiseauto_gap(a, 1, 2500, 1000, &r), -EINVAL);
	w.cpu = 7;
	assert_int_equal(noiseauto_win(a, &w), -EINVAL);
	assert_int_equal(noiseauto_new(&(struct noiseauto *){ NULL }, 0), -EINVAL);
	noiseauto_free(a);
}

/* more sources than listed: the rest in other; a ring that overflowed during
 * the gap is said */
static void test_many_sources(void **state)
{
	struct noiseauto *a;
	struct noiseauto_result r;
	(void)state;
	assert_int_equal(noiseauto_new(&a, 1), 0);
	for (int i = 0; i < NOISEAUTO_RING + 10; i++) {
		struct noise_win w = { .cls = NOISE_THREAD, .cpu = 0, .start_ns = 10000 + (uint64_t)i * 10,
				       .end_ns = 10000 + (uint64_t)i * 10 + 5, .net_ns = 5, .id = 1000 + i % 20 };
		snprintf(w.name, sizeof(w.name), "t%d", i % 20);
		assert_int_equal(noiseauto_win(a, &w), 0);
	}
	assert_int_equal(noiseauto_gap(a, 0, 10000, 20000, &r), 0);
	assert_int_equal(r.nr_parts, NOISEAUTO_MAX_PARTS);
	assert_true(r.other_ns > 0);
	assert_true(r.ring_short);
	assert_int_equal(sum_parts(&r), NOISEAUTO_RING * 5);	/* what the ring kept */
	assert_int_equal(sum_parts(&r) + r.hw_ns, r.duration_ns);
	/* a gap after all of them: nothing inside, the ring was not short for it */
	assert_int_equal(noiseauto_gap(a, 0, 50000, 60000, &r), 0);
	assert_int_equal(r.nr_parts, 0);
	assert_false(r.ring_short);
	noiseauto_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_sources),
		cmocka_unit_test(test_excess_and_bounds),
		cmocka_unit_test(test_many_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
