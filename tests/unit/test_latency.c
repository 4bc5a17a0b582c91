/* SPDX-License-Identifier: MIT */
/* Unit tests of lib/engine/latency.c on generated event streams, and of the
 * engine fed through engine/hsource.h's hsource_feed (live perf, report). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/hsource.h"
#include "engine/latency.h"
#include "test_tpe.h"

static struct latency *L;

static struct latency *mk(uint32_t ncpu, void (*tweak)(struct latency_cfg *))
{
	struct latency_cfg cfg;
	struct latency *l;
	latency_cfg_default(&cfg, ncpu);
	if (tweak)
		tweak(&cfg);
	assert_int_equal(latency_new(&l, &cfg), 0);
	return l;
}

static void feed(const struct tpevent *e)
{
	assert_int_equal(latency_feed(L, e), 0);
}

static void sw(uint64_t t, uint32_t cpu, int prev, int pprio, int next, int nprio)
{
	struct tpevent e;
	tt_switch(&e, t, cpu, prev, pprio, NULL, next, nprio, NULL);
	feed(&e);
}

static void wk(enum tpevent_kind k, uint64_t t, uint32_t cpu, int pid, int prio, int target)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = k;
	e.time_ns = t;
	e.cpu = cpu;
	e.wake.pid = pid;
	e.wake.prio = prio;
	e.wake.target_cpu = target;
	snprintf(e.wake.comm, sizeof(e.wake.comm), "task%d", pid);
	feed(&e);
}

static void wakeup(uint64_t t, uint32_t cpu, int pid, int prio, int target)
{
	wk(TPEVENT_SCHED_WAKEUP, t, cpu, pid, prio, target);
}

static void mig(uint64_t t, int pid, int prio, int orig, int dest)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = TPEVENT_SCHED_MIGRATE;
	e.time_ns = t;
	e.cpu = (uint32_t)orig;
	e.migrate.pid = pid;
	e.migrate.prio = prio;
	e.migrate.orig_cpu = orig;
	e.migrate.dest_cpu = dest;
	feed(&e);
}

static void tmr(enum tpevent_kind k, uint64_t t, uint32_t cpu, uint64_t timer, int64_t v)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = k;
	e.time_ns = t;
	e.cpu = cpu;
	if (k == TPEVENT_HRTIMER_START) {
		e.hrtimer_start.hrtimer = timer;
		e.hrtimer_start.expires_ns = v;
		e.hrtimer_start.softexpires_ns = v;
	} else {
		e.hrtimer.hrtimer = timer;
		e.hrtimer.now_ns = v;
	}
	feed(&e);
}

/* an event of kind k at t on cpu, its fields zero */
static struct tpevent ev_at(enum tpevent_kind k, uint64_t t, uint32_t cpu)
{
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.kind = k;
	e.time_ns = t;
	e.cpu = cpu;
	return e;
}

static void pi(enum tpevent_kind k, uint64_t t, uint32_t cpu)
{
	struct tpevent e = ev_at(k, t, cpu);
	feed(&e);
}

static uint64_t total(enum hset_kind t, uint32_t cpu)
{
	const struct lhist *h = hset_hist(latency_set(L), t, cpu);
	return h ? h->total : 0;
}

static int64_t maxv(enum hset_kind t, uint32_t cpu)
{
	const struct lhist *h = hset_hist(latency_set(L), t, cpu);
	assert_non_null(h);
	return h->max_ns;
}

static int teardown(void **state)
{
	(void)state;
	latency_free(L);
	L = NULL;
	return 0;
}

static void test_basic_wakeup(void **state)
{
	(void)state;
	L = mk(2, NULL);
	sw(0, 0, 0, 120, 100, 120);		/* task100 (CFS) runs on CPU0 */
	wakeup(1000, 0, 200, 10, 0);		/* RT task 200 woken onto CPU0 */
	wakeup(1500, 0, 300, 120, 0);		/* CFS task: not tracked */
	sw(6000, 0, 100, 120, 200, 10);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 5000);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 0);
	assert_int_equal(total(HSET_WAKEUP, 1), 0);
	const struct hset_max *m = hset_max(latency_set(L), HSET_WAKEUP, 0);
	assert_true(m->valid);
	assert_int_equal(m->pid, 200);
	assert_int_equal(m->prio, 10);
	assert_string_equal(m->comm, "task200");
	assert_int_equal(m->latency_ns, 5000);
	assert_int_equal(m->timer_offset_ns, 0);
	assert_true(m->has_culprit);
	assert_int_equal(m->culprit_pid, 100);
	assert_int_equal(m->culprit_prio, 120);
	assert_string_equal(m->culprit_comm, "task100");
	assert_int_equal(m->time_ns, 6000);
	/* the CFS task 300 later runs: nothing filed */
	sw(7000, 0, 200, 10, 300, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
	/* a bigger one moves the max, a smaller one does not */
	wakeup(8000, 0, 200, 10, 0);
	sw(20000, 0, 300, 120, 200, 10);
	wakeup(21000, 0, 201, 10, 0);
	sw(22000, 0, 200, 10, 201, 10);	/* equal prio switched out: sharedprio */
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP, 0)->latency_ns, 12000);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 1);
	/* bad cpu */
	struct tpevent e;
	memset(&e, 0, sizeof(e));
	e.cpu = 2;
	e.kind = TPEVENT_SCHED_SWITCH;
	assert_int_equal(latency_feed(L, &e), -ERANGE);
	assert_int_equal(latency_stats(L)->bad_cpu, 1);
	/* reset clears histograms and max records */
	latency_reset(L);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
	assert_false(hset_max(latency_set(L), HSET_WAKEUP, 0)->valid);
}

static void test_waking_stamp(void **state)
{
	(void)state;
	L = mk(1, NULL);
	sw(0, 0, 0, 120, 100, 120);
	wk(TPEVENT_SCHED_WAKING, 1000, 0, 200, 10, 0);
	wakeup(2000, 0, 200, 10, 0);
	sw(6000, 0, 100, 120, 200, 10);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 5000);
	/* wakeup_new behaves the same; no waking: stamp at the wakeup */
	sw(7000, 0, 200, 10, 100, 120);
	wk(TPEVENT_SCHED_WAKEUP_NEW, 8000, 0, 201, 20, 0);
	sw(9000, 0, 100, 120, 201, 20);
	assert_int_equal(total(HSET_WAKEUP, 0), 2);
	assert_int_equal(hset_hist(latency_set(L), HSET_WAKEUP, 0)->min_ns, 1000);
}

static void waking_only(struct latency_cfg *c) { c->start_on_waking = true; }

static void test_start_on_waking(void **state)
{
	(void)state;
	L = mk(1, waking_only);
	sw(0, 0, 0, 120, 100, 120);
	wk(TPEVENT_SCHED_WAKING, 1000, 0, 200, 10, 0);
	sw(4000, 0, 100, 120, 200, 10);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 3000);
}

static void test_priority_drop(void **state)
{
	(void)state;
	L = mk(1, NULL);
	sw(0, 0, 0, 120, 100, 120);
	wakeup(1000, 0, 200, 10, 0);
	sw(2000, 0, 100, 120, 201, 5);		/* higher-priority task first: dropped */
	sw(3000, 0, 201, 5, 200, 10);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 0);
	assert_int_equal(latency_stats(L)->dropped_prio, 1);

	/* a lower-priority task switched in first keeps the tracking */
	sw(4000, 0, 200, 10, 100, 120);
	wakeup(5000, 0, 200, 10, 0);
	wakeup(5100, 0, 300, 20, 0);		/* lower prio than tracked: ignored */
	sw(6000, 0, 100, 120, 300, 20);
	sw(9000, 0, 300, 20, 200, 10);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 4000);
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP, 0)->culprit_pid, 300);
	assert_true(latency_stats(L)->wake_ignored >= 1);

	/* a higher-priority wakeup replaces the tracked task */
	sw(10000, 0, 200, 10, 100, 120);
	wakeup(11000, 0, 400, 30, 0);
	wakeup(12000, 0, 401, 15, 0);
	sw(20000, 0, 100, 120, 401, 15);
	assert_int_equal(total(HSET_WAKEUP, 0), 2);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 8000);
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP, 0)->pid, 401);
	assert_int_equal(latency_stats(L)->replaced, 1);

	/* a wakeup of a lower priority than the running RT task is ignored */
	wakeup(21000, 0, 402, 50, 0);
	sw(22000, 0, 401, 15, 402, 50);
	assert_int_equal(total(HSET_WAKEUP, 0), 2);
}

static void test_already_running(void **state)
{
	(void)state;
	L = mk(1, NULL);
	sw(0, 0, 0, 120, 200, 10);
	wakeup(1000, 0, 200, 10, 0);		/* running: ignored */
	sw(2000, 0, 200, 10, 100, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
	assert_int_equal(latency_stats(L)->wake_ignored, 1);

	/* tracked, then switched out before a switch-in (it was running) */
	wakeup(3000, 0, 300, 10, 0);
	sw(3500, 0, 300, 10, 100, 120);
	assert_int_equal(latency_stats(L)->dropped_running, 1);
	sw(4000, 0, 100, 120, 300, 10);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
}

static void test_sharedprio(void **state)
{
	(void)state;
	L = mk(1, NULL);
	/* running task of the same priority at the wakeup */
	sw(0, 0, 0, 120, 100, 10);
	wakeup(1000, 0, 200, 10, 0);
	sw(3000, 0, 100, 10, 200, 10);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 1);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP_SHAREDPRIO, 0)->latency_ns, 2000);

	/* equal-priority task switched in before it */
	sw(4000, 0, 200, 10, 0, 120);
	wakeup(5000, 0, 200, 10, 0);
	sw(5500, 0, 0, 120, 300, 10);
	sw(7000, 0, 300, 10, 200, 10);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 2);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);

	/* equal priority to the previously tracked task */
	sw(8000, 0, 200, 10, 0, 120);
	wakeup(9000, 0, 200, 20, 0);
	wakeup(9100, 0, 201, 20, 0);		/* same prio as tracked: shared, replaces */
	sw(9500, 0, 0, 120, 201, 20);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 0), 3);

	/* clean again afterwards */
	sw(10000, 0, 201, 20, 0, 120);
	wakeup(11000, 0, 200, 20, 0);
	sw(12000, 0, 0, 120, 200, 20);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
}

static void test_migration(void **state)
{
	(void)state;
	L = mk(2, NULL);
	sw(0, 0, 0, 120, 100, 120);
	sw(0, 1, 0, 120, 101, 120);
	wakeup(1000, 0, 200, 10, 0);
	mig(1500, 200, 10, 0, 1);
	sw(2000, 0, 100, 120, 102, 120);	/* nothing happens on CPU0 */
	sw(4000, 1, 101, 120, 200, 10);
	assert_int_equal(total(HSET_WAKEUP, 0), 0);
	assert_int_equal(total(HSET_WAKEUP, 1), 1);
	assert_int_equal(maxv(HSET_WAKEUP, 1), 3000);
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP, 1)->culprit_pid, 101);
	assert_int_equal(latency_stats(L)->migrated, 1);
	/* a migration of an untracked task changes nothing */
	mig(5000, 999, 10, 0, 1);
	assert_int_equal(latency_stats(L)->migrated, 1);
	/* wakeup onto another CPU than the waker's */
	wakeup(6000, 0, 201, 10, 1);
	sw(6500, 1, 200, 10, 201, 10);
	assert_int_equal(total(HSET_WAKEUP_SHAREDPRIO, 1), 1);
}

static void pid300(struct latency_cfg *c) { c->pid = 300; }

static void test_pid_filter(void **state)
{
	(void)state;
	L = mk(1, pid300);
	sw(0, 0, 0, 120, 100, 5);
	wakeup(1000, 0, 200, 10, 0);		/* not the pid */
	wakeup(1100, 0, 300, 120, 0);		/* the pid: tracked although CFS and low prio */
	sw(2000, 0, 100, 5, 201, 130);		/* lower priority first: kept */
	sw(3000, 0, 201, 130, 300, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 1900);
	assert_int_equal(hset_max(latency_set(L), HSET_WAKEUP, 0)->pid, 300);
	/* the priority rule at the switch still applies */
	sw(4000, 0, 300, 120, 100, 5);
	wakeup(5000, 0, 300, 120, 0);
	sw(6000, 0, 100, 5, 200, 10);
	sw(7000, 0, 200, 10, 300, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 1);
	assert_int_equal(latency_stats(L)->dropped_prio, 1);
}

/* A wakeup fed after later switches of its target CPU (a live ring's
 * writer stalled past the reader's slack): its switch-in is already behind,
 * so it must start no measurement, or the next wake's switch-in would be
 * filed against its stamp (one sample for two wakes, too long); counted. */
static void test_late_wakeup(void **state)
{
	(void)state;
	L = mk(2, pid300);
	sw(0, 1, 0, 120, 100, 120);
	/* in order: woken from CPU0 at 1000, runs at 1500, sleeps at 1600 */
	wakeup(1000, 0, 300, 10, 1);
	sw(1500, 1, 100, 120, 300, 10);
	sw(1600, 1, 300, 10, 100, 120);
	assert_int_equal(total(HSET_WAKEUP, 1), 1);
	/* the next wake at 2000 ran at 2500 and slept at 2600, but CPU0 wrote
	 * its wakeup late: CPU1's switches come first */
	sw(2500, 1, 100, 120, 300, 10);
	sw(2600, 1, 300, 10, 100, 120);
	wakeup(2000, 0, 300, 10, 1);
	assert_int_equal(latency_stats(L)->late_wakeups, 1);
	/* the wake after it is measured from its own stamp */
	wakeup(3000, 0, 300, 10, 1);
	sw(3200, 1, 100, 120, 300, 10);
	assert_int_equal(total(HSET_WAKEUP, 1), 2);
	assert_int_equal(maxv(HSET_WAKEUP, 1), 500);
	assert_int_equal(hset_hist(latency_set(L), HSET_WAKEUP, 1)->min_ns, 200);
	/* a wakeup at the time of the CPU's last switch is in order */
	sw(3300, 1, 300, 10, 100, 120);
	wakeup(3300, 0, 300, 10, 1);
	sw(3400, 1, 100, 120, 300, 10);
	assert_int_equal(total(HSET_WAKEUP, 1), 3);
	assert_int_equal(latency_stats(L)->late_wakeups, 1);
}

static void all_tasks_small(struct latency_cfg *c)
{
	c->all_tasks = true;
	c->pid_table = 8;
}

static void test_all_tasks_and_eviction(void **state)
{
	(void)state;
	L = mk(1, all_tasks_small);
	sw(0, 0, 0, 120, 100, 120);
	wakeup(1000, 0, 300, 120, 0);
	wakeup(2000, 0, 301, 120, 0);
	sw(3000, 0, 100, 120, 300, 120);
	sw(7000, 0, 300, 120, 301, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 2);
	assert_int_equal(hset_hist(latency_set(L), HSET_WAKEUP, 0)->min_ns, 2000);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 5000);
	/* woken while running (no switch-in follows): no stale stamp later */
	wakeup(7100, 0, 301, 120, 0);
	sw(8000, 0, 301, 120, 300, 120);	/* 301 sleeps */
	wakeup(9000, 0, 301, 120, 0);
	sw(9500, 0, 300, 120, 301, 120);
	assert_int_equal(total(HSET_WAKEUP, 0), 3);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 5000);
	assert_int_equal(hset_hist(latency_set(L), HSET_WAKEUP, 0)->min_ns, 500);
	/* more waiting tasks than slots: evictions counted, nothing breaks */
	for (int i = 0; i < 100; i++)
		wakeup(10000 + (uint64_t)i, 0, 1000 + i, 120, 0);
	assert_true(latency_stats(L)->pid_evictions >= 92);
	for (int i = 0; i < 100; i++)
		sw(20000 + (uint64_t)i, 0, 999 + i, 120, 1000 + i, 120);
	assert_true(total(HSET_WAKEUP, 0) >= 3 + 1);
	assert_true(total(HSET_WAKEUP, 0) <= 3 + 8);
}

static void test_timer(void **state)
{
	(void)state;
	L = mk(2, NULL);
	sw(0, 0, 0, 120, 100, 120);
	tmr(TPEVENT_HRTIMER_START, 100, 0, 0xaaa, 10000);
	tmr(TPEVENT_HRTIMER_EXPIRE_ENTRY, 12050, 0, 0xaaa, 12000);
	wk(TPEVENT_SCHED_WAKING, 12100, 0, 200, 10, 0);
	wakeup(12200, 0, 200, 10, 0);
	tmr(TPEVENT_HRTIMER_EXPIRE_EXIT, 12300, 0, 0xaaa, 0);
	sw(15000, 0, 100, 120, 200, 10);
	assert_int_equal(total(HSET_MISSED_TIMER, 0), 1);
	assert_int_equal(maxv(HSET_MISSED_TIMER, 0), 2000);
	const struct hset_max *m = hset_max(latency_set(L), HSET_MISSED_TIMER, 0);
	assert_int_equal(m->pid, 200);
	assert_int_equal(m->timer_offset_ns, 2000);
	assert_int_equal(m->culprit_pid, 100);
	assert_int_equal(maxv(HSET_WAKEUP, 0), 2900);
	assert_int_equal(total(HSET_TIMERANDWAKEUP, 0), 1);
	assert_int_equal(maxv(HSET_TIMERANDWAKEUP, 0), 4900);
	m = hset_max(latency_set(L), HSET_TIMERANDWAKEUP, 0);
	assert_int_equal(m->timer_offset_ns, 2000);
	assert_int_equal(m->latency_ns, 4900);

	/* a timer that wakes nobody, a wakeup outside the window */
	tmr(TPEVENT_HRTIMER_START, 16000, 0, 0xbbb, 20000);
	tmr(TPEVENT_HRTIMER_EXPIRE_ENTRY, 20500, 0, 0xbbb, 20400);
	tmr(TPEVENT_HRTIMER_EXPIRE_EXIT, 20600, 0, 0xbbb, 0);
	sw(21000, 0, 200, 10, 100, 120);
	wakeup(21500, 0, 200, 10, 0);
	sw(22000, 0, 100, 120, 200, 10);
	assert_int_equal(total(HSET_MISSED_TIMER, 0), 1);
	assert_int_equal(total(HSET_WAKEUP, 0), 2);
	assert_int_equal(total(HSET_TIMERANDWAKEUP, 0), 1);	/* not a timer wakeup */

	/* cancelled: expire without a known start; on CPU1 the wakeup is ignored */
	tmr(TPEVENT_HRTIMER_START, 23000, 1, 0xccc, 30000);
	tmr(TPEVENT_HRTIMER_CANCEL, 23500, 1, 0xccc, 0);
	tmr(TPEVENT_HRTIMER_EXPIRE_ENTRY, 30100, 1, 0xccc, 30100);
	wakeup(30200, 1, 201, 10, 1);
	tmr(TPEVENT_HRTIMER_EXPIRE_EXIT, 30300, 1, 0xccc, 0);
	assert_int_equal(latency_stats(L)->timer_unknown, 1);
	assert_int_equal(total(HSET_MISSED_TIMER, 1), 0);

	/* a timer waking a task that would not preempt the current one */
	sw(31000, 0, 200, 10, 150, 5);
	tmr(TPEVENT_HRTIMER_START, 31100, 0, 0xddd, 32000);
	tmr(TPEVENT_HRTIMER_EXPIRE_ENTRY, 32100, 0, 0xddd, 32050);
	wakeup(32200, 0, 202, 10, 0);
	tmr(TPEVENT_HRTIMER_EXPIRE_EXIT, 32300, 0, 0xddd, 0);
	assert_int_equal(total(HSET_MISSED_TIMER, 0), 1);
	/* ... unless it goes to another CPU */
	tmr(TPEVENT_HRTIMER_START, 33000, 0, 0xeee, 34000);
	tmr(TPEVENT_HRTIMER_EXPIRE_ENTRY, 34100, 0, 0xeee, 34030);
	wakeup(34200, 0, 203, 10, 1);
	wakeup(34250, 0, 204, 10, 1);		/* only the first wakeup counts */
	tmr(TPEVENT_HRTIMER_EXPIRE_EXIT, 34300, 0, 0xeee, 0);
	assert_int_equal(total(HSET_MISSED_TIMER, 0), 2);
	assert_int_equal(hset_hist(latency_set(L), HSET_MISSED_TIMER, 0)->min_ns, 30);
}

static void test_irqsoff_nesting(void **state)
{
	(void)state;
	L = mk(1, NULL);
	/* irqsoff nested in preemptoff */
	pi(TPEVENT_PREEMPT_DISABLE, 1000, 0);
	pi(TPEVENT_IRQ_DISABLE, 2000, 0);
	pi(TPEVENT_IRQ_DISABLE, 2100, 0);		/* repeated: keeps the first stamp */
	pi(TPEVENT_IRQ_ENABLE, 5000, 0);
	pi(TPEVENT_PREEMPT_ENABLE, 9000, 0);
	assert_int_equal(maxv(HSET_IRQSOFF, 0), 3000);
	assert_int_equal(maxv(HSET_PREEMPTOFF, 0), 8000);
	assert_int_equal(maxv(HSET_PREEMPTIRQSOFF, 0), 8000);
	/* overlapping windows: combined covers both */
	pi(TPEVENT_IRQ_DISABLE, 10000, 0);
	pi(TPEVENT_PREEMPT_DISABLE, 11000, 0);
	pi(TPEVENT_IRQ_ENABLE, 12000, 0);
	pi(TPEVENT_PREEMPT_ENABLE, 17000, 0);
	assert_int_equal(total(HSET_IRQSOFF, 0), 2);
	assert_int_equal(total(HSET_PREEMPTIRQSOFF, 0), 2);
	assert_int_equal(hset_hist(latency_set(L), HSET_PREEMPTIRQSOFF, 0)->min_ns, 7000);
	assert_int_equal(hset_hist(latency_set(L), HSET_PREEMPTOFF, 0)->min_ns, 6000);
	/* enable without a disable */
	pi(TPEVENT_IRQ_ENABLE, 18000, 0);
	assert_int_equal(latency_stats(L)->unmatched_enable, 1);
	assert_int_equal(total(HSET_IRQSOFF, 0), 2);
}

static void both(struct latency_cfg *c) { c->both_off = true; }

static void test_irqsoff_both(void **state)
{
	(void)state;
	L = mk(1, both);
	pi(TPEVENT_PREEMPT_DISABLE, 1000, 0);
	pi(TPEVENT_IRQ_DISABLE, 2000, 0);
	pi(TPEVENT_IRQ_ENABLE, 5000, 0);
	pi(TPEVENT_PREEMPT_ENABLE, 9000, 0);
	assert_int_equal(maxv(HSET_PREEMPTIRQSOFF, 0), 3000);
	pi(TPEVENT_IRQ_DISABLE, 10000, 0);
	pi(TPEVENT_PREEMPT_DISABLE, 11000, 0);
	pi(TPEVENT_IRQ_ENABLE, 12000, 0);
	pi(TPEVENT_PREEMPT_ENABLE, 17000, 0);
	assert_int_equal(hset_hist(latency_set(L), HSET_PREEMPTIRQSOFF, 0)->min_ns, 1000);
	/* irqs off alone is no combined window */
	pi(TPEVENT_IRQ_DISABLE, 20000, 0);
	pi(TPEVENT_IRQ_ENABLE, 30000, 0);
	assert_int_equal(total(HSET_PREEMPTIRQSOFF, 0), 2);
	assert_int_equal(total(HSET_IRQSOFF, 0), 3);
}

static void idle(uint64_t t, uint32_t cpu, uint32_t state)
{
	struct tpevent e = ev_at(TPEVENT_CPU_IDLE, t, cpu);
	e.cpu_idle.state = state;
	e.cpu_idle.cpu_id = cpu;
	feed(&e);
}

/* power:cpu_idle stops and restarts the preemption-off section around the
 * idle wait (the kernel's stop/start_critical_timings), as the event
 * sequence of a 7.2 kernel shows it: a task's schedule() disables
 * preemption, the CPU switches to idle, which enters and leaves its wait
 * (irqs reported on before it), and the next task enables preemption. */
static void test_irqsoff_idle(void **state)
{
	(void)state;
	L = mk(2, NULL);
	idle(500, 0, 1);			/* no preempt event seen on CPU 0 yet: ignored */
	idle(600, 0, TPEVENT_CPU_IDLE_EXIT);
	pi(TPEVENT_PREEMPT_ENABLE, 700, 0);	/* so unmatched */
	assert_int_equal(total(HSET_PREEMPTOFF, 0), 0);
	assert_int_equal(latency_stats(L)->unmatched_enable, 1);
	pi(TPEVENT_PREEMPT_DISABLE, 1000, 0);	/* schedule() of a task going to sleep */
	pi(TPEVENT_IRQ_DISABLE, 1100, 0);
	sw(1200, 0, 100, 120, 0, 120);		/* to swapper/0 */
	pi(TPEVENT_IRQ_ENABLE, 1300, 0);
	pi(TPEVENT_IRQ_DISABLE, 1400, 0);	/* do_idle */
	idle(1500, 0, 1);			/* the wait: section 1000-1500 filed */
	pi(TPEVENT_IRQ_ENABLE, 1510, 0);	/* irqs on before the wait */
	assert_int_equal(total(HSET_PREEMPTOFF, 0), 1);
	assert_int_equal(maxv(HSET_PREEMPTOFF, 0), 500);
	assert_int_equal(maxv(HSET_PREEMPTIRQSOFF, 0), 510);	/* either off: to the irq enable */
	pi(TPEVENT_IRQ_DISABLE, 900000, 0);	/* the wake-up interrupt */
	pi(TPEVENT_IRQ_ENABLE, 901000, 0);
	idle(902000, 0, TPEVENT_CPU_IDLE_EXIT);	/* preemption off again from here */
	pi(TPEVENT_IRQ_DISABLE, 902500, 0);
	sw(903000, 0, 0, 120, 101, 120);
	pi(TPEVENT_IRQ_ENABLE, 903100, 0);
	pi(TPEVENT_PREEMPT_ENABLE, 903200, 0);	/* the task switched in */
	assert_int_equal(total(HSET_PREEMPTOFF, 0), 2);
	assert_int_equal(maxv(HSET_PREEMPTOFF, 0), 1200);	/* 902000-903200, not the idle wait */
	assert_int_equal(maxv(HSET_PREEMPTIRQSOFF, 0), 1200);
	assert_int_equal(total(HSET_IRQSOFF, 0), 4);
	assert_int_equal(maxv(HSET_IRQSOFF, 0), 1000);
	/* the CPU going idle again, then the idle loop going round: each
	 * time from leaving the wait to entering it again */
	pi(TPEVENT_PREEMPT_DISABLE, 920000, 0);
	idle(920400, 0, 1);
	assert_int_equal(total(HSET_PREEMPTOFF, 0), 3);
	idle(930000, 0, TPEVENT_CPU_IDLE_EXIT);
	idle(930300, 0, 1);
	assert_int_equal(total(HSET_PREEMPTOFF, 0), 4);
	assert_int_equal(hset_hist(latency_set(L), HSET_PREEMPTOFF, 0)->min_ns, 300);
	/* CPU 1 saw no preempt event: its idle events change nothing */
	pi(TPEVENT_IRQ_DISABLE, 940000, 1);
	idle(941000, 1, TPEVENT_CPU_IDLE_EXIT);
	pi(TPEVENT_IRQ_ENABLE, 942000, 1);
	assert_int_equal(maxv(HSET_PREEMPTIRQSOFF, 1), 2000);
	assert_int_equal(total(HSET_PREEMPTOFF, 1), 0);
}

static void test_config_and_names(void **state)
{
	(void)state;
	struct latency_cfg c;
	struct latency *l;
	latency_cfg_default(&c, 0);
	assert_int_equal(latency_new(&l, &c), -EINVAL);
	assert_null(l);
	latency_cfg_default(&c, 1);
	c.hist.bucket_ns = 0;
	assert_int_equal(latency_new(&l, &c), -EINVAL);
	assert_string_equal(hset_kind_name(HSET_WAKEUP_SHAREDPRIO), "wakeup/sharedprio");
	assert_string_equal(hset_kind_name(HSET_MISSED_TIMER), "missed_timer_offsets");
	assert_null(hset_kind_name(HSET_NR_KINDS));
	assert_true(hset_kind_has_maxfile(HSET_TIMERANDWAKEUP));
	assert_false(hset_kind_has_maxfile(HSET_IRQSOFF));
	bool has[TPEVENT_NR_KINDS] = { 0 };
	has[TPEVENT_SCHED_SWITCH] = true;
	has[TPEVENT_SCHED_WAKING] = true;
	assert_true(latency_type_supported(HSET_WAKEUP, has));
	assert_false(latency_type_supported(HSET_MISSED_TIMER, has));
	assert_false(latency_type_supported(HSET_IRQSOFF, has));
	has[TPEVENT_HRTIMER_START] = has[TPEVENT_HRTIMER_EXPIRE_ENTRY] = has[TPEVENT_HRTIMER_EXPIRE_EXIT] = true;
	assert_true(latency_type_supported(HSET_TIMERANDWAKEUP, has));
	has[TPEVENT_PREEMPT_DISABLE] = has[TPEVENT_PREEMPT_ENABLE] = true;
	assert_true(latency_type_supported(HSET_PREEMPTIRQSOFF, has));
	assert_false(latency_type_supported(HSET_IRQSOFF, has));
}

/* hsource_feed: the kinds choose the wakeup stamp (waking only: at the
 * waking), what was fed is counted, a bad geometry is said. */
static void test_feed(void **state)
{
	(void)state;
	struct latency_cfg cfg;
	struct hsource_feed f;
	struct hsource_why why;
	struct hsource_stats st;
	bool has[TPEVENT_NR_KINDS] = { false };
	struct tpevent e[3];

	latency_cfg_default(&cfg, 1);
	has[TPEVENT_SCHED_SWITCH] = has[TPEVENT_SCHED_WAKING] = true;
	assert_int_equal(hsource_feed_init(&f, &cfg, 2, has, &why), 0);
	assert_int_equal(latency_config(f.lat)->nr_cpus, 2);
	assert_true(latency_config(f.lat)->start_on_waking);
	tt_switch(&e[0], 1000, 1, 0, 120, NULL, 100, 120, NULL);
	memset(&e[1], 0, sizeof(e[1]));
	e[1].kind = TPEVENT_SCHED_WAKING;
	e[1].time_ns = 2000;
	e[1].cpu = 1;
	e[1].wake.pid = 200;
	e[1].wake.prio = 10;
	e[1].wake.target_cpu = 1;
	tt_switch(&e[2], 5000, 1, 100, 120, NULL, 200, 10, NULL);
	for (int i = 0; i < 3; i++)
		hsource_feed_event(&f, &e[i]);
	memset(&st, 0, sizeof(st));
	hsource_feed_stats(&f, &st);
	assert_int_equal(st.seen, 3);
	assert_true(st.any_event && st.any_cpu);
	assert_int_equal(st.first_ns, 1000);
	assert_int_equal(st.last_ns, 5000);
	assert_int_equal(st.max_cpu, 1);
	assert_ptr_equal(st.track, latency_stats(f.lat));
	assert_int_equal(hset_max(latency_set(f.lat), HSET_WAKEUP, 1)->latency_ns, 3000);
	hsource_feed_free(&f);
	assert_null(f.lat);
	/* with sched_wakeup in the stream the stamp is not the waking */
	has[TPEVENT_SCHED_WAKEUP] = true;
	assert_int_equal(hsource_feed_init(&f, &cfg, 0, has, &why), 0);
	assert_false(latency_config(f.lat)->start_on_waking);
	assert_int_equal(latency_config(f.lat)->nr_cpus, 1);	/* 0 CPUs: one */
	hsource_feed_free(&f);
	/* a geometry the histograms refuse */
	cfg.hist.bucket_ns = 0;
	assert_int_equal(hsource_feed_init(&f, &cfg, 1, has, &why), -EINVAL);
	assert_null(f.lat);
	assert_string_equal(why.reason, "cannot set up the histograms: bad histogram geometry "
					"(check --resolution/--buckets/--offset)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_basic_wakeup, teardown),
		cmocka_unit_test_teardown(test_waking_stamp, teardown),
		cmocka_unit_test_teardown(test_start_on_waking, teardown),
		cmocka_unit_test_teardown(test_priority_drop, teardown),
		cmocka_unit_test_teardown(test_already_running, teardown),
		cmocka_unit_test_teardown(test_sharedprio, teardown),
		cmocka_unit_test_teardown(test_migration, teardown),
		cmocka_unit_test_teardown(test_pid_filter, teardown),
		cmocka_unit_test_teardown(test_late_wakeup, teardown),
		cmocka_unit_test_teardown(test_all_tasks_and_eviction, teardown),
		cmocka_unit_test_teardown(test_timer, teardown),
		cmocka_unit_test_teardown(test_irqsoff_nesting, teardown),
		cmocka_unit_test_teardown(test_irqsoff_both, teardown),
		cmocka_unit_test_teardown(test_irqsoff_idle, teardown),
		cmocka_unit_test(test_config_and_names),
		cmocka_unit_test(test_feed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
