/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: timerlat -a's analysis (lib/engine/tlatauto.c) on a made
 * activation: the IRQ latency split at the timer's IRQ window, the rest of
 * the timer's IRQ, the softirq and the interrupted (blocking) thread after
 * the IRQ sample, the unexplained remainder; the parts add up to the
 * thread latency.  An idle CPU, an IRQ sample, and an activation whose IRQ
 * sample was not seen.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/tlatauto.h"

#define E0 1000000000ULL	/* the timer's expiry, trace clock */

static void win(struct tlatauto *a, enum noise_class cls, int32_t id, const char *name, uint64_t start,
		uint64_t dur)
{
	struct noise_win w = { .cls = cls, .cpu = 1, .start_ns = start, .end_ns = start + dur, .net_ns = dur,
			       .id = id };
	snprintf(w.name, sizeof(w.name), "%s", name);
	tlatauto_win(a, &w);
}

static uint64_t sum(const struct tlatauto_result *r)
{
	uint64_t s = r->handler_delay_ns + r->irq_ns + r->timer_irq_rest_ns + r->after.other_ns + r->after.hw_ns;
	for (size_t i = 0; i < r->after.nr_parts; i++)
		s += r->after.parts[i].net_ns;
	return s - r->after.excess_ns;
}

static void test_thread_split(void **state)
{
	(void)state;
	struct tlatauto *a;
	assert_int_equal(tlatauto_new(&a, 2), 0);
	win(a, NOISE_IRQ, 236, "local_timer", E0 + 4000, 26000);		/* the timer's IRQ */
	tlatauto_irq_sample(a, 1, 5, 10000, E0 + 10000, 77, "kworker/1:2");
	win(a, NOISE_SOFTIRQ, 1, "TIMER", E0 + 31000, 5000);
	win(a, NOISE_THREAD, 77, "kworker/1:2", E0 + 36000, 20000);
	struct tlatauto_result r;
	assert_int_equal(tlatauto_explain(a, 1, 1, 5, 60000, &r), 0);
	assert_true(r.irq_sample_seen && r.timer_irq_seen);
	assert_int_equal(r.expiry_ns, E0);
	assert_int_equal(r.handler_delay_ns, 4000);
	assert_int_equal(r.irq_ns, 6000);
	assert_false(r.from_idle);
	assert_int_equal(r.after.duration_ns, 50000);
	assert_int_equal(r.timer_irq_rest_ns, 20000);
	assert_int_equal(r.blocking_pid, 77);
	assert_string_equal(r.blocking_comm, "kworker/1:2");
	assert_int_equal(r.blocking_ns, 20000);
	assert_int_equal(r.after.hw_ns, 5000);
	assert_int_equal(sum(&r), 60000);
	/* another activation's sample: its IRQ sample was not seen */
	assert_int_equal(tlatauto_explain(a, 1, 1, 6, 60000, &r), -ENOENT);
	assert_false(r.irq_sample_seen);
	assert_int_equal(tlatauto_explain(a, 7, 1, 5, 60000, &r), -EINVAL);
	tlatauto_free(a);
}

static void test_idle_irq(void **state)
{
	(void)state;
	struct tlatauto *a;
	assert_int_equal(tlatauto_new(&a, 2), 0);
	/* an IRQ sample that stopped the run: the timer's IRQ window came
	 * before it was written (an earlier activation's) does not count */
	win(a, NOISE_IRQ, 236, "local_timer", E0 - 900000, 3000);
	tlatauto_irq_sample(a, 1, 9, 250000, E0 + 250000, 0, "<idle>");
	struct tlatauto_result r;
	assert_int_equal(tlatauto_explain(a, 1, 0, 9, 250000, &r), 0);
	assert_true(r.from_idle);
	assert_false(r.timer_irq_seen);
	assert_int_equal(r.handler_delay_ns, 0);
	assert_int_equal(r.irq_ns, 250000);
	assert_int_equal(r.latency_ns, 250000);
	assert_int_equal(sum(&r), 250000);
	/* the timer's IRQ seen, starting before the expiry by the stamps'
	 * skew: no negative delay */
	win(a, NOISE_IRQ, 236, "local_timer", E0 + 249000, 5000);
	assert_int_equal(tlatauto_explain(a, 1, 0, 9, 250000, &r), 0);
	assert_true(r.timer_irq_seen);
	assert_int_equal(r.handler_delay_ns + r.irq_ns, 250000);
	assert_int_equal(r.handler_delay_ns, 249000);
	tlatauto_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_split),
		cmocka_unit_test(test_idle_irq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
