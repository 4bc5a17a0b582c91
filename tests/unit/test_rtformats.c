/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the PREEMPT_RT event layout (tests/data/formats-rt61: Debian's
 * 6.1.0-56-rt-amd64).  Its common header has one more field,
 * common_preempt_lazy_count at offset 8, so every payload field sits 4 bytes
 * (sched_switch's prev_state and next_*: 8 bytes) later than on a mainline
 * kernel.  Payloads are built by hand at the RT offsets and decoded
 * (lib/format/tpevent/tpdecode.c) field by field, in both byte orders;
 * tpencode writes the same bytes; and the decoded events drive the latency
 * trackers (wakeup, missed_timer_offsets, timerandwakeup with victim and
 * culprit) and the noise accounting (a threaded IRQ handler: its hard top
 * half IRQ, its irq/N- thread THREAD).
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

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "engine/latency.h"
#include "engine/noise.h"
#include "format/tracedata.h"
#include "format/tpencode.h"
#include "format/tpevent.h"

#ifndef RTFORMATS_TEST_DATA
#define RTFORMATS_TEST_DATA "tests/data/formats-rt61"
#endif

struct rt {
	struct tep_handle *tep;
	struct tpdecode *d;
	bool swap;
};

static void rt_load(struct rt *rt, bool big)
{
	static const char *const specs[] = { "sched", "irq", "timer", "irq_vectors" };
	struct tracedata_formats *f = NULL;

	rt->tep = tep_alloc();
	assert_non_null(rt->tep);
	assert_int_equal(tracedata_collect(RTFORMATS_TEST_DATA, specs, sizeof(specs) / sizeof(specs[0]), &f), 0);
	tep_set_long_size(rt->tep, 8);
	tep_set_file_bigendian(rt->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_int_equal(tep_parse_event(rt->tep, f->events[i].format, strlen(f->events[i].format),
						 f->events[i].system), 0);
	tracedata_free(f);
	rt->d = tpdecode_new(rt->tep);
	assert_non_null(rt->d);
	rt->swap = big != (bool)BYTES_HOST_BIG_ENDIAN;
}

static void rt_free(struct rt *rt)
{
	tpdecode_free(rt->d);
	tep_free(rt->tep);
}

/* The id of sys:name, and that its field `field` is at offset off, size size. */
static int rt_field(struct rt *rt, const char *sys, const char *name, const char *field, int off, int size)
{
	struct tep_event *e = tep_find_event_by_name(rt->tep, sys, name);
	assert_non_null(e);
	struct tep_format_field *f = tep_find_any_field(e, field);
	if (!f)
		fail_msg("%s:%s has no field %s", sys, name, field);
	if (f->offset != off || f->size != size)
		fail_msg("%s:%s %s at %d size %d, expected %d size %d", sys, name, field, f->offset, f->size,
			 off, size);
	return e->id;
}

/* The common header of an RT record: type, flags, preempt count, pid, lazy count. */
static void rt_header(const struct rt *rt, uint8_t *b, int id, int32_t pid)
{
	bytes_st16(b, (uint16_t)id, rt->swap);
	b[2] = 0x0d;		/* irqs off | need resched | hardirq */
	b[3] = 0x11;		/* preempt depth 1, migrate-disable 1 */
	bytes_st32(b + 4, (uint32_t)pid, rt->swap);
	b[8] = 0x02;		/* common_preempt_lazy_count */
}

/* Decode b[len] as id, check that tpencode writes the same len bytes back. */
static void rt_decode(struct rt *rt, int id, const uint8_t *b, size_t len, struct tpevent *ev)
{
	uint8_t again[128];
	memset(ev, 0, sizeof(*ev));
	ev->time_ns = 77;
	ev->cpu = 1;
	assert_int_equal(tpdecode_decode(rt->d, id, b, len, ev), 0);
	assert_int_equal(ev->time_ns, 77);
	assert_int_equal(ev->common_flags, 0x0d);
	assert_int_equal(ev->common_preempt_count, 0x11);
	/* one byte short: the last field is out of reach */
	struct tpevent short_ev;
	assert_int_equal(tpdecode_decode(rt->d, id, b, len - 1, &short_ev), -EINVAL);

	struct tpevent in = *ev;
	int32_t pid = (int32_t)bytes_ld32(b + 4, rt->swap);
	in.pid = pid;
	assert_int_equal(tpencode_id(rt->d, &in), id);
	ssize_t n = tpencode(rt->d, &in, again, sizeof(again));
	assert_int_equal(n, (ssize_t)len);
	/* tpencode leaves common_preempt_lazy_count 0: everything else is equal */
	assert_int_equal(again[8], 0);
	again[8] = b[8];
	assert_memory_equal(again, b, len);
}

static void check_switch(bool big)
{
	struct rt rt;
	uint8_t b[72];
	struct tpevent ev;

	rt_load(&rt, big);
	int id = rt_field(&rt, "sched", "sched_switch", "common_preempt_lazy_count", 8, 1);
	assert_int_equal(rt_field(&rt, "sched", "sched_switch", "prev_comm", 12, 16), id);
	rt_field(&rt, "sched", "sched_switch", "prev_pid", 28, 4);
	rt_field(&rt, "sched", "sched_switch", "prev_prio", 32, 4);
	rt_field(&rt, "sched", "sched_switch", "prev_state", 40, 8);
	rt_field(&rt, "sched", "sched_switch", "next_comm", 48, 16);
	rt_field(&rt, "sched", "sched_switch", "next_pid", 64, 4);
	rt_field(&rt, "sched", "sched_switch", "next_prio", 68, 4);
	assert_int_equal(tpdecode_kind(rt.d, id), TPEVENT_SCHED_SWITCH);
	assert_int_equal(tpencode_size(rt.d, id), 72);

	memset(b, 0, sizeof(b));
	rt_header(&rt, b, id, 119);
	memcpy(b + 12, "irq/26-virtio0-", 15);	/* the kernel's 15-char comm of irq/26-virtio0-req.1 */
	bytes_st32(b + 28, 119, rt.swap);
	bytes_st32(b + 32, 49, rt.swap);	/* SCHED_FIFO 50 */
	bytes_st64(b + 40, 0x1, rt.swap);	/* S */
	memcpy(b + 48, "ktimers/1", 9);
	bytes_st32(b + 64, 28, rt.swap);
	bytes_st32(b + 68, 98, rt.swap);	/* SCHED_FIFO 1 */
	rt_decode(&rt, id, b, sizeof(b), &ev);
	assert_int_equal(ev.kind, TPEVENT_SCHED_SWITCH);
	assert_string_equal(ev.sw.prev_comm, "irq/26-virtio0-");
	assert_int_equal(ev.sw.prev_pid, 119);
	assert_int_equal(ev.sw.prev_prio, 49);
	assert_int_equal(ev.sw.prev_state, 1);
	assert_string_equal(ev.sw.next_comm, "ktimers/1");
	assert_int_equal(ev.sw.next_pid, 28);
	assert_int_equal(ev.sw.next_prio, 98);

	/* a state above 32 bits (the long is 8 bytes here) and a negative prio */
	bytes_st64(b + 40, 0x100000402ull, rt.swap);
	bytes_st32(b + 68, (uint32_t)-1, rt.swap);	/* SCHED_DEADLINE */
	rt_decode(&rt, id, b, sizeof(b), &ev);
	assert_true(ev.sw.prev_state == (int64_t)0x100000402ll);
	assert_int_equal(ev.sw.next_prio, -1);
	rt_free(&rt);
}

static void check_wake(bool big)
{
	static const char *const names[] = { "sched_wakeup", "sched_waking" };
	static const enum tpevent_kind kinds[] = { TPEVENT_SCHED_WAKEUP, TPEVENT_SCHED_WAKING };
	struct rt rt;
	uint8_t b[40];
	struct tpevent ev;

	rt_load(&rt, big);
	for (int i = 0; i < 2; i++) {
		int id = rt_field(&rt, "sched", names[i], "comm", 12, 16);
		rt_field(&rt, "sched", names[i], "pid", 28, 4);
		rt_field(&rt, "sched", names[i], "prio", 32, 4);
		rt_field(&rt, "sched", names[i], "target_cpu", 36, 4);
		assert_int_equal(tpdecode_kind(rt.d, id), kinds[i]);
		memset(b, 0, sizeof(b));
		rt_header(&rt, b, id, 0);
		memcpy(b + 12, "cyclictest", 10);
		bytes_st32(b + 28, 4242, rt.swap);
		bytes_st32(b + 32, 4, rt.swap);	/* SCHED_FIFO 95 */
		bytes_st32(b + 36, 1, rt.swap);
		rt_decode(&rt, id, b, sizeof(b), &ev);
		assert_int_equal(ev.kind, kinds[i]);
		assert_string_equal(ev.wake.comm, "cyclictest");
		assert_int_equal(ev.wake.pid, 4242);
		assert_int_equal(ev.wake.prio, 4);
		assert_int_equal(ev.wake.target_cpu, 1);
	}
	rt_free(&rt);
}

static void test_switch_le(void **st) { (void)st; check_switch(false); }
static void test_switch_be(void **st) { (void)st; check_switch(true); }
static void test_wake_le(void **st) { (void)st; check_wake(false); }
static void test_wake_be(void **st) { (void)st; check_wake(true); }

/* e encoded with the RT formats and decoded again: what an engine gets from
 * a recording made on the RT kernel. */
static struct tpevent via_rt(struct rt *rt, struct tpevent e)
{
	uint8_t b[256];
	struct tpevent out = { .time_ns = e.time_ns, .cpu = e.cpu, .pid = e.pid, .tid = e.tid };
	ssize_t n = tpencode(rt->d, &e, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(b[8], 0);	/* the lazy count, left alone by both sides */
	assert_int_equal(tpdecode_decode(rt->d, tpencode_id(rt->d, &e), b, (size_t)n, &out), 0);
	return out;
}

static struct tpevent sw(uint64_t t, int prev, int pprio, const char *pc, int next, int nprio, const char *nc)
{
	struct tpevent e = { .kind = TPEVENT_SCHED_SWITCH, .time_ns = t, .cpu = 1, .pid = prev, .tid = prev };
	e.sw.prev_pid = prev;
	e.sw.prev_prio = pprio;
	snprintf(e.sw.prev_comm, sizeof(e.sw.prev_comm), "%s", pc);
	e.sw.prev_state = 1;
	e.sw.next_pid = next;
	e.sw.next_prio = nprio;
	snprintf(e.sw.next_comm, sizeof(e.sw.next_comm), "%s", nc);
	return e;
}

static struct tpevent wake(enum tpevent_kind k, uint64_t t, int pid, int prio, const char *comm)
{
	struct tpevent e = { .kind = k, .time_ns = t, .cpu = 1 };
	e.wake.pid = pid;
	e.wake.prio = prio;
	e.wake.target_cpu = 1;
	snprintf(e.wake.comm, sizeof(e.wake.comm), "%s", comm);
	return e;
}

static struct tpevent timer_ev(enum tpevent_kind k, uint64_t t, int64_t v_ns)
{
	struct tpevent e = { .kind = k, .time_ns = t, .cpu = 1 };
	if (k == TPEVENT_HRTIMER_START) {
		e.hrtimer_start.hrtimer = 0xffffd0f340fe3e60ull;
		e.hrtimer_start.function = 0xffffffffb0b58c90ull;
		e.hrtimer_start.expires_ns = v_ns;
		e.hrtimer_start.softexpires_ns = v_ns;
		e.hrtimer_start.mode = 8;	/* ABS|HARD: an RT task's sleep on PREEMPT_RT */
	} else {
		e.hrtimer.hrtimer = 0xffffd0f340fe3e60ull;
		e.hrtimer.now_ns = v_ns;
		e.hrtimer.function = k == TPEVENT_HRTIMER_EXPIRE_ENTRY ? 0xffffffffb0b58c90ull : 0;
	}
	return e;
}

/* cyclictest's cycle as the RT guest records it, through the RT layout into
 * the trackers: timer 400 ns late, woken 200 ns later, switched in 1000 ns
 * after the waking. */
static void test_latency_rt(void **st)
{
	(void)st;
	struct rt rt;
	struct latency_cfg cfg;
	struct latency *l;

	rt_load(&rt, false);
	latency_cfg_default(&cfg, 2);
	assert_int_equal(latency_new(&l, &cfg), 0);
	struct tpevent evs[] = {
		timer_ev(TPEVENT_HRTIMER_START, 900, 10000),
		sw(1000, 500, 4, "cyclictest", 0, 120, "swapper/1"),
		timer_ev(TPEVENT_HRTIMER_EXPIRE_ENTRY, 10500, 10400),
		wake(TPEVENT_SCHED_WAKING, 10600, 500, 4, "cyclictest"),
		wake(TPEVENT_SCHED_WAKEUP, 10700, 500, 4, "cyclictest"),
		timer_ev(TPEVENT_HRTIMER_EXPIRE_EXIT, 10800, 0),
		sw(11600, 0, 120, "swapper/1", 500, 4, "cyclictest"),
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct tpevent e = via_rt(&rt, evs[i]);
		assert_int_equal(latency_feed(l, &e), 0);
	}
	const struct hset *s = latency_set(l);
	static const struct { enum hset_kind k; int64_t lat, off; } want[] = {
		{ HSET_WAKEUP, 1000, 0 },
		{ HSET_MISSED_TIMER, 400, 400 },
		{ HSET_TIMERANDWAKEUP, 1400, 400 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct hset_max *m = hset_max(s, want[i].k, 1);
		assert_non_null(m);
		assert_true(m->valid);
		assert_int_equal(m->latency_ns, want[i].lat);
		assert_int_equal(m->timer_offset_ns, want[i].off);
		assert_int_equal(m->pid, 500);
		assert_int_equal(m->prio, 4);
		assert_string_equal(m->comm, "cyclictest");
		assert_int_equal(hset_hist(s, want[i].k, 1)->total, 1);
	}
	const struct hset_max *m = hset_max(s, HSET_TIMERANDWAKEUP, 1);
	assert_true(m->has_culprit);
	assert_int_equal(m->culprit_pid, 0);
	assert_int_equal(m->culprit_prio, 120);
	assert_string_equal(m->culprit_comm, "swapper/1");
	latency_free(l);
	rt_free(&rt);
}

/* A threaded interrupt through the RT layout into the noise accounting: the
 * hard top half (irq_handler_entry/exit, name virtio0-req.1) is IRQ noise,
 * the handler's thread irq/26-virtio0- and ktimers/1 are THREAD noise. */
static void test_noise_rt(void **st)
{
	(void)st;
	struct rt rt;
	struct noise *n;

	rt_load(&rt, false);
	assert_int_equal(noise_new(&n, 2, NULL, NULL), 0);
	assert_int_equal(noise_set_workload(n, 1, 700), 0);
	assert_int_equal(noise_period_begin(n, 1, 0), 0);
	struct tpevent entry = { .kind = TPEVENT_IRQ_ENTRY, .time_ns = 1000, .cpu = 1 };
	entry.irq.irq = 26;
	snprintf(entry.irq.name, sizeof(entry.irq.name), "virtio0-req.1");
	struct tpevent exit_ = { .kind = TPEVENT_IRQ_EXIT, .time_ns = 1300, .cpu = 1 };
	exit_.irq.irq = 26;
	exit_.irq.ret = 2;	/* IRQ_WAKE_THREAD */
	struct tpevent evs[] = {
		entry, exit_,
		sw(1400, 700, 120, "latscope-osn", 119, 49, "irq/26-virtio0-"),
		sw(3400, 119, 49, "irq/26-virtio0-", 28, 98, "ktimers/1"),
		sw(3900, 28, 98, "ktimers/1", 700, 120, "latscope-osn"),
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct tpevent e = via_rt(&rt, evs[i]);
		assert_int_equal(noise_event(n, &e), 0);
	}
	assert_int_equal(noise_gap(n, 1, 900, 4000), 0);
	const struct noise_contrib *c;
	size_t k = noise_contribs(n, 1, &c);
	assert_int_equal(k, 3);
	int seen = 0;
	for (size_t i = 0; i < k; i++) {
		if (c[i].id == 26) {
			assert_int_equal(c[i].cls, NOISE_IRQ);
			assert_string_equal(c[i].name, "virtio0-req.1");
			assert_int_equal(c[i].total_ns, 300);
			seen |= 1;
		} else if (c[i].id == 119) {
			assert_int_equal(c[i].cls, NOISE_THREAD);
			assert_string_equal(c[i].name, "irq/26-virtio0-");
			assert_int_equal(c[i].total_ns, 2000);
			seen |= 2;
		} else {
			assert_int_equal(c[i].id, 28);
			assert_int_equal(c[i].cls, NOISE_THREAD);
			assert_string_equal(c[i].name, "ktimers/1");
			assert_int_equal(c[i].total_ns, 500);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	noise_free(n);
	rt_free(&rt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_le),
		cmocka_unit_test(test_switch_be),
		cmocka_unit_test(test_wake_le),
		cmocka_unit_test(test_wake_be),
		cmocka_unit_test(test_latency_rt),
		cmocka_unit_test(test_noise_rt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
