/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the osnoise bpf backend's pure parts (docs/osnoise.md,
 * "Backends"): the busy loop's view of its CPU's counters
 * (oswork_view_advance: a read torn by an interrupt is refused, a gap gets
 * the counters' difference, entries saturate at 65535, the packing round
 * trips), the attribution from those differences through the engine
 * (osneng with gap_counters: interference, HW, net time per class, the
 * period's entry counters, sub-threshold gaps, a stop), the contributors the
 * programs total merged into the accounting (noise_add_contrib), the vector
 * table and the recursion-miss text (bpfload_misses_text, shared with bpfhist).
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
#include "engine/osneng.h"
#include "live/bpf/osnbpf_abi.h"
#include "live/osnbpf.h"
#include "live/oswork.h"

_Static_assert(OSWORK_NR_CLASSES == NOISE_NR_CLASSES && OSNBPF_NR_CLASSES == NOISE_NR_CLASSES,
	       "one numbering of the classes");

/* what a program does at an entry and at an exit of cls (osnbpf.bpf.c) */
static void entry(struct osnbpf_slot *s, int cls)
{
	s->count[cls]++;
	s->seq++;
}

static void exit_net(struct osnbpf_slot *s, int cls, uint64_t net_ns)
{
	s->net_ns[cls] += net_ns;
	s->seq++;
}

static void test_view_advance(void **state)
{
	(void)state;
	struct osnbpf_slot s;
	struct oswork_view v = { 0 };
	uint64_t gap[5], cnt[4], net[4];

	memset(&s, 0, sizeof(s));
	/* what happened before the loop's first read is the base, not a gap */
	entry(&s, OSNBPF_IRQ);
	exit_net(&s, OSNBPF_IRQ, 5000);
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, NULL), 0);
	assert_int_equal(v.seq, 2);
	assert_int_equal(v.count[OSNBPF_IRQ], 1);
	/* an IRQ, then a thread with a softirq nested in it (net times) */
	entry(&s, OSNBPF_IRQ);
	exit_net(&s, OSNBPF_IRQ, 1500);
	entry(&s, OSNBPF_THREAD);
	entry(&s, OSNBPF_SOFTIRQ);
	exit_net(&s, OSNBPF_SOFTIRQ, 700);
	exit_net(&s, OSNBPF_THREAD, 20000);
	uint64_t at_read = s.seq;
	/* one more after the time read: the read is torn, the view untouched */
	entry(&s, OSNBPF_IRQ);
	exit_net(&s, OSNBPF_IRQ, 900);
	assert_int_equal(oswork_view_advance(&v, &s, at_read, gap), -EAGAIN);
	assert_int_equal(v.seq, 2);
	assert_int_equal(v.net_ns[OSNBPF_IRQ], 5000);
	/* read again: the gap holds all of it */
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, gap), 0);
	oswork_gap_unpack(gap, cnt, net);
	assert_int_equal(cnt[OSNBPF_NMI], 0);
	assert_int_equal(cnt[OSNBPF_IRQ], 2);
	assert_int_equal(net[OSNBPF_IRQ], 2400);
	assert_int_equal(cnt[OSNBPF_SOFTIRQ], 1);
	assert_int_equal(net[OSNBPF_SOFTIRQ], 700);
	assert_int_equal(cnt[OSNBPF_THREAD], 1);
	assert_int_equal(net[OSNBPF_THREAD], 20000);
	/* nothing since: an empty difference (HW) */
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, gap), 0);
	oswork_gap_unpack(gap, cnt, net);
	for (int c = 0; c < 4; c++)
		assert_true(cnt[c] == 0 && net[c] == 0);
	/* more than 16 bits of entries in one gap: 65535, the others intact */
	s.count[OSNBPF_SOFTIRQ] += 70000;
	s.count[OSNBPF_NMI] += 65535;
	s.count[OSNBPF_THREAD] += 3;
	s.seq++;
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, gap), 0);
	oswork_gap_unpack(gap, cnt, net);
	assert_int_equal(cnt[OSNBPF_SOFTIRQ], 65535);
	assert_int_equal(cnt[OSNBPF_NMI], 65535);
	assert_int_equal(cnt[OSNBPF_IRQ], 0);
	assert_int_equal(cnt[OSNBPF_THREAD], 3);
}

/* ---- the engine fed with counted gaps ------------------------------------ */

#define NREC 16
static struct oswork_rec recs[NREC];
static size_t nrec, next_rec;

static bool src_peek(void *arg, size_t idx, struct oswork_rec *r)
{
	(void)arg;
	if (idx || next_rec == nrec)
		return false;
	*r = recs[next_rec];
	return true;
}

static void src_pop(void *arg, size_t idx)
{
	(void)arg;
	(void)idx;
	next_rec++;
}

static void rec(uint32_t type, uint64_t t0, uint64_t t1, const uint64_t *v)
{
	struct oswork_rec *r = &recs[nrec++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->cpu = 1;
	r->t0_ns = t0;
	r->t1_ns = t1;
	if (v)
		memcpy(r->v, v, sizeof(r->v));
}

static struct osneng *engine(uint64_t stop_us)
{
	struct osneng_opts o = { .threshold_us = 1, .period_us = 1000, .runtime_us = 1000,
				 .stop_us = stop_us, .gap_counters = true };
	struct osneng_wsrc src = { .peek = src_peek, .pop = src_pop };
	struct osneng *e;

	parse_cpuset_add(&o.cpus, 1);
	assert_int_equal(osneng_new(&e, &o, NULL), 0);
	osneng_use_source(e, &src);
	osneng_start(e, 0);
	return e;
}

static void test_engine_counted(void **state)
{
	(void)state;
	struct osnbpf_slot s;
	struct oswork_view v = { 0 };
	uint64_t gap[5];

	memset(&s, 0, sizeof(s));
	nrec = next_rec = 0;
	rec(OSWORK_PERIOD_BEGIN, 1000, 1000, NULL);
	/* 3 us gap: one IRQ of 2.5 us net */
	entry(&s, OSNBPF_IRQ);
	exit_net(&s, OSNBPF_IRQ, 2500);
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, gap), 0);
	rec(OSWORK_GAP, 2000, 5000, gap);
	/* 2 us with nothing: HW */
	rec(OSWORK_GAP, 7000, 9000, NULL);
	/* 35 us: two threads, one IRQ nested in the second */
	entry(&s, OSNBPF_THREAD);
	exit_net(&s, OSNBPF_THREAD, 12000);
	entry(&s, OSNBPF_THREAD);
	entry(&s, OSNBPF_IRQ);
	exit_net(&s, OSNBPF_IRQ, 1000);
	exit_net(&s, OSNBPF_THREAD, 18000);
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, gap), 0);
	rec(OSWORK_GAP, 10000, 45000, gap);
	/* a softirq inside a gap below the threshold: no gap (the loop's view
	 * moves on; the period's counters count its entry) */
	entry(&s, OSNBPF_SOFTIRQ);
	exit_net(&s, OSNBPF_SOFTIRQ, 300);
	assert_int_equal(oswork_view_advance(&v, &s, s.seq, NULL), 0);
	uint64_t pc[5] = { 0, 3, 1, 2, 0 }, pe[5] = { 49000, 1, 600, 1000, 20 };
	rec(OSWORK_PERIOD_COUNTS, 50000, 50000, pc);
	rec(OSWORK_PERIOD_END, 50000, 50000, pe);

	struct osneng *e = engine(0);
	osneng_advance(e, UINT64_MAX);
	const struct noise_stats *t = noise_cpu_stats(osneng_noise(e), 1);
	assert_int_equal(t->periods, 1);
	assert_int_equal(t->gaps, 3);
	assert_int_equal(t->noise_ns, 3000 + 2000 + 35000);
	assert_int_equal(t->hw_count, 1);
	assert_int_equal(t->hw_ns, 2000);
	assert_int_equal(t->net_ns[NOISE_IRQ], 3500);
	assert_int_equal(t->net_ns[NOISE_THREAD], 30000);
	assert_int_equal(t->net_ns[NOISE_SOFTIRQ], 0);	/* not inside a noise gap */
	assert_int_equal(t->count[NOISE_NMI], 0);
	assert_int_equal(t->count[NOISE_IRQ], 3);
	assert_int_equal(t->count[NOISE_SOFTIRQ], 1);
	assert_int_equal(t->count[NOISE_THREAD], 2);
	assert_int_equal(t->max_single_ns, 35000);
	assert_int_equal(t->sub_count, 1);
	assert_int_equal(t->sub_ns, 600);
	assert_false(osneng_stopped(e));
	osneng_free(e);

	/* the same gaps with -s 30: the 35 us one stops the run there */
	next_rec = 0;
	e = engine(30);
	osneng_advance(e, UINT64_MAX);
	assert_true(osneng_stopped(e));
	assert_int_equal(osneng_stop(e)->value_ns, 35000);
	assert_int_equal(osneng_stop(e)->t_ns, 45000);
	t = noise_cpu_stats(osneng_noise(e), 1);
	assert_int_equal(t->gaps, 3);
	assert_int_equal(t->count[NOISE_THREAD], 0);	/* the period's counts came later */
	osneng_free(e);
}

/* entries counted outside a period are not the period's */
static void test_period_counts(void **state)
{
	(void)state;
	struct noise *n;
	uint64_t c[NOISE_NR_CLASSES] = { 1, 2, 3, 4 };

	assert_int_equal(noise_new(&n, 2, NULL, NULL), 0);
	assert_int_equal(noise_period_counts(n, 1, c), 0);
	assert_int_equal(noise_period_counts(n, 2, c), -EINVAL);
	noise_period_begin(n, 1, 0);
	noise_period_counts(n, 1, c);
	noise_period_counts(n, 1, c);
	noise_period_end(n, 1, 10, 10);
	const struct noise_stats *t = noise_cpu_stats(n, 1);
	for (int k = 0; k < NOISE_NR_CLASSES; k++)
		assert_int_equal(t->count[k], 2 * c[k]);
	noise_free(n);
}

static void test_add_contrib(void **state)
{
	(void)state;
	struct noise *n;
	const struct noise_contrib *list;
	struct noise_contrib k = { .cls = NOISE_IRQ, .id = 236, .name = "local_timer", .count = 10,
				   .total_ns = 20000, .max_ns = 3000 };

	assert_int_equal(noise_new(&n, 1, NULL, NULL), 0);
	assert_int_equal(noise_add_contrib(n, 0, &k), 0);
	k.count = 5;
	k.total_ns = 5000;
	k.max_ns = 4000;
	assert_int_equal(noise_add_contrib(n, 0, &k), 0);
	assert_int_equal(noise_contribs(n, 0, &list), 1);
	assert_int_equal(list[0].count, 15);
	assert_int_equal(list[0].total_ns, 25000);
	assert_int_equal(list[0].max_ns, 4000);
	assert_string_equal(list[0].name, "local_timer");
	assert_int_equal(noise_add_contrib(n, 1, &k), -EINVAL);
	/* the table grows past its first 256 slots: nothing lost */
	k.cls = NOISE_THREAD;
	for (int pid = 1; pid <= 300; pid++) {
		k.id = pid;
		k.count = 2;
		assert_int_equal(noise_add_contrib(n, 0, &k), 0);
	}
	assert_int_equal(noise_contribs(n, 0, &list), 301);
	assert_int_equal(noise_anomalies(n)->contrib_overflow, 0);
	/* at its largest (4096 a CPU, 3/4 used), a contributor evicted per new
	 * one, its windows counted by their count */
	for (int pid = 301; pid <= 5000; pid++) {
		k.id = pid;
		assert_int_equal(noise_add_contrib(n, 0, &k), 0);
	}
	size_t kept = noise_contribs(n, 0, &list);
	assert_int_equal(kept, 3072);
	assert_int_equal(noise_anomalies(n)->contrib_evicted, 5001 - kept);
	assert_int_equal(noise_anomalies(n)->contrib_overflow, 2 * (5001 - kept));
	noise_free(n);
}

static void test_vectors_and_misses(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct osnbpf_slot), OSNBPF_SLOT_BYTES);
	assert_string_equal(osnbpf_vector_name(0), "local_timer");
	assert_string_equal(osnbpf_vector_name(3), "call_function_single");
	assert_string_equal(osnbpf_vector_name(OSNBPF_NR_VECTORS - 1), "deferred_error_apic");
	assert_null(osnbpf_vector_name(OSNBPF_NR_VECTORS));
	for (uint32_t i = 0; i < OSNBPF_NR_VECTORS; i++)
		assert_non_null(osnbpf_vector_name(i));

	struct osnbpf_stats st = { .nr_progs = 3 };
	char buf[128];
	snprintf(st.progs[0].name, sizeof(st.progs[0].name), "osnbpf_switch");
	st.progs[0].recursion_misses = 3;
	snprintf(st.progs[1].name, sizeof(st.progs[1].name), "osnbpf_irq_entry");
	snprintf(st.progs[2].name, sizeof(st.progs[2].name), "osnbpf_nmi");
	st.progs[2].recursion_misses = 1;
	assert_int_equal(bpfload_misses_text(st.progs, st.nr_progs, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "osnbpf_switch 3, osnbpf_nmi 1");
	st.progs[0].recursion_misses = st.progs[2].recursion_misses = 0;
	assert_int_equal(bpfload_misses_text(st.progs, st.nr_progs, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_advance),
		cmocka_unit_test(test_engine_counted),
		cmocka_unit_test(test_period_counts),
		cmocka_unit_test(test_add_contrib),
		cmocka_unit_test(test_vectors_and_misses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
