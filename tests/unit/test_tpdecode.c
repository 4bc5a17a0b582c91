/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/format/tpevent/tpdecode.c: real format texts of a 6.18 kernel
 * (tests/data/formats), raw records built by hand in both byte orders.
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
#include "format/tpevent.h"

#ifndef TPDECODE_TEST_DATA
#define TPDECODE_TEST_DATA "tests/data/formats"
#endif

static const char *const formats[] = {
	"sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
	"sched/sched_wakeup_new", "sched/sched_migrate_task", "sched/sched_process_exit",
	"irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry",
	"irq/softirq_exit", "irq/softirq_raise", "nmi/nmi_handler",
	"timer/hrtimer_start", "timer/hrtimer_cancel", "timer/hrtimer_expire_entry",
	"timer/hrtimer_expire_exit", "irq_vectors/local_timer_entry",
	"irq_vectors/local_timer_exit", "irq_vectors/reschedule_entry",
	"irq_vectors/reschedule_exit", "irq_vectors/call_function_single_entry",
	"irq_vectors/vector_alloc", "osnoise/sample_threshold", "osnoise/nmi_noise",
	"osnoise/irq_noise", "osnoise/softirq_noise", "osnoise/thread_noise",
	"preemptirq/irq_disable", "preemptirq/irq_enable", "preemptirq/preempt_disable",
	"preemptirq/preempt_enable", "power/cpu_idle",
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int parse_text(struct tep_handle *tep, const char *text, const char *sys)
{
	return tep_parse_event(tep, text, strlen(text), sys) == 0 ? 0 : -1;
}

static struct tep_handle *load_tep(bool big)
{
	struct tep_handle *tep = tep_alloc();
	char path[512];

	assert_non_null(tep);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		size_t len = 0;
		char sys[64];
		const char *slash = strchr(formats[i], '/');
		snprintf(path, sizeof(path), "%s/%s/format", TPDECODE_TEST_DATA, formats[i]);
		char *text = slurp(path, &len);
		if (!text)
			fail_msg("cannot read %s (run from the source tree)", path);
		snprintf(sys, sizeof(sys), "%.*s", (int)(slash - formats[i]), formats[i]);
		assert_int_equal(tep_parse_event(tep, text, len, sys), 0);
		free(text);
	}
	return tep;
}

static int event_id(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, name);
	assert_non_null(e);
	return e->id;
}

/* Record builder in the tep's byte order. */
struct rb {
	uint8_t b[256];
	bool swap;
};

static void rb_init(struct rb *r, bool big, uint16_t id, int32_t pid)
{
	memset(r, 0, sizeof(*r));
	r->swap = big != (bool)BYTES_HOST_BIG_ENDIAN;
	bytes_st16(r->b, id, r->swap);
	r->b[2] = 0x81;	/* common_flags */
	r->b[3] = 0x02;	/* common_preempt_count */
	bytes_st32(r->b + 4, (uint32_t)pid, r->swap);
}

static void rb32(struct rb *r, size_t off, uint32_t v) { bytes_st32(r->b + off, v, r->swap); }
static void rb64(struct rb *r, size_t off, uint64_t v) { bytes_st64(r->b + off, v, r->swap); }
static void rbstr(struct rb *r, size_t off, const char *s) { memcpy(r->b + off, s, strlen(s)); }

static void check_sched(bool big)
{
	struct tep_handle *tep = load_tep(big);
	struct tpdecode *d = tpdecode_new(tep);
	struct tpevent ev;
	struct rb r;
	assert_non_null(d);

	/* sched_switch: 6.18 layout, prev_state is a long (8 bytes) */
	int id = event_id(tep, "sched", "sched_switch");
	assert_int_equal(tpdecode_kind(d, id), TPEVENT_SCHED_SWITCH);
	rb_init(&r, big, (uint16_t)id, 100);
	rbstr(&r, 8, "cyclictest");
	rb32(&r, 24, 100);
	rb32(&r, 28, 120);
	rb64(&r, 32, 0x1);
	rbstr(&r, 40, "ksoftirqd/1");
	rb32(&r, 56, 17);
	rb32(&r, 60, (uint32_t)-1);
	memset(&ev, 0, sizeof(ev));
	ev.time_ns = 42;
	ev.cpu = 1;
	assert_int_equal(tpdecode_decode(d, id, r.b, 64, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_SCHED_SWITCH);
	assert_int_equal(ev.time_ns, 42);	/* caller's sample fields kept */
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.common_flags, 0x81);
	assert_int_equal(ev.common_preempt_count, 2);
	assert_string_equal(ev.sw.prev_comm, "cyclictest");
	assert_int_equal(ev.sw.prev_pid, 100);
	assert_int_equal(ev.sw.prev_prio, 120);
	assert_int_equal(ev.sw.prev_state, 1);
	assert_string_equal(ev.sw.next_comm, "ksoftirqd/1");
	assert_int_equal(ev.sw.next_pid, 17);
	assert_int_equal(ev.sw.next_prio, -1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 63, &ev), -EINVAL);
	assert_int_equal(tpdecode_decode(d, id, NULL, 0, &ev), -EINVAL);

	/* a full 16-byte comm without a NUL is cut, not overrun */
	rbstr(&r, 8, "abcdefghijklmnop");
	assert_int_equal(tpdecode_decode(d, id, r.b, 64, &ev), 0);
	assert_string_equal(ev.sw.prev_comm, "abcdefghijklmno");

	/* wakeups share one layout */
	static const char *const wk[] = { "sched_waking", "sched_wakeup", "sched_wakeup_new" };
	static const enum tpevent_kind wkk[] = { TPEVENT_SCHED_WAKING, TPEVENT_SCHED_WAKEUP,
					     TPEVENT_SCHED_WAKEUP_NEW };
	for (int i = 0; i < 3; i++) {
		id = event_id(tep, "sched", wk[i]);
		rb_init(&r, big, (uint16_t)id, 5);
		rbstr(&r, 8, "rt-task");
		rb32(&r, 24, 4242);
		rb32(&r, 28, 9);
		rb32(&r, 32, 1);
		assert_int_equal(tpdecode_decode(d, id, r.b, 36, &ev), 0);
		assert_int_equal(ev.kind, wkk[i]);
		assert_string_equal(ev.wake.comm, "rt-task");
		assert_int_equal(ev.wake.pid, 4242);
		assert_int_equal(ev.wake.prio, 9);
		assert_int_equal(ev.wake.target_cpu, 1);
		assert_int_equal(tpdecode_decode(d, id, r.b, 35, &ev), -EINVAL);
	}

	/* migrate_task: comm is a __data_loc string on 6.18 */
	id = event_id(tep, "sched", "sched_migrate_task");
	rb_init(&r, big, (uint16_t)id, 0);
	rb32(&r, 8, 28u | (6u << 16));
	rb32(&r, 12, 777);
	rb32(&r, 16, 98);
	rb32(&r, 20, 0);
	rb32(&r, 24, 1);
	rbstr(&r, 28, "mover");
	assert_int_equal(tpdecode_decode(d, id, r.b, 34, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_SCHED_MIGRATE);
	assert_string_equal(ev.migrate.comm, "mover");
	assert_int_equal(ev.migrate.pid, 777);
	assert_int_equal(ev.migrate.prio, 98);
	assert_int_equal(ev.migrate.orig_cpu, 0);
	assert_int_equal(ev.migrate.dest_cpu, 1);
	/* the string points past the end of raw */
	assert_int_equal(tpdecode_decode(d, id, r.b, 33, &ev), -EINVAL);
	rb32(&r, 8, 0xffffu | (6u << 16));
	assert_int_equal(tpdecode_decode(d, id, r.b, 34, &ev), -EINVAL);

	id = event_id(tep, "sched", "sched_process_exit");
	rb_init(&r, big, (uint16_t)id, 9);
	rbstr(&r, 8, "bye");
	rb32(&r, 24, 9);
	rb32(&r, 28, 120);
	assert_int_equal(tpdecode_decode(d, id, r.b, 33, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_SCHED_PROCESS_EXIT);
	assert_string_equal(ev.exit.comm, "bye");
	assert_int_equal(ev.exit.pid, 9);
	assert_int_equal(ev.exit.prio, 120);

	/* unknown ids */
	assert_int_equal(tpdecode_decode(d, 99999, r.b, sizeof(r.b), &ev), -ENOENT);
	assert_int_equal(tpdecode_kind(d, 99999), TPEVENT_UNKNOWN);
	assert_int_equal(tpdecode_kind(d, event_id(tep, "irq_vectors", "vector_alloc")), TPEVENT_UNKNOWN);

	tpdecode_free(d);
	tep_free(tep);
}

static void test_sched_le(void **state) { (void)state; check_sched(false); }
static void test_sched_be(void **state) { (void)state; check_sched(true); }

static void check_irq_timer(bool big)
{
	struct tep_handle *tep = load_tep(big);
	struct tpdecode *d = tpdecode_new(tep);
	struct tpevent ev;
	struct rb r;
	int id;
	assert_non_null(d);

	id = event_id(tep, "irq", "irq_handler_entry");
	rb_init(&r, big, (uint16_t)id, 0);
	rb32(&r, 8, 24);
	rb32(&r, 12, 16u | (9u << 16));
	rbstr(&r, 16, "virtio0");
	assert_int_equal(tpdecode_decode(d, id, r.b, 25, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_IRQ_ENTRY);
	assert_int_equal(ev.irq.irq, 24);
	assert_string_equal(ev.irq.name, "virtio0");
	assert_int_equal(tpdecode_decode(d, id, r.b, 24, &ev), -EINVAL);
	assert_int_equal(tpdecode_decode(d, id, r.b, 15, &ev), -EINVAL);

	id = event_id(tep, "irq", "irq_handler_exit");
	rb_init(&r, big, (uint16_t)id, 0);
	rb32(&r, 8, 24);
	rb32(&r, 12, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 16, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_IRQ_EXIT);
	assert_int_equal(ev.irq.ret, 1);

	static const char *const sn[] = { "softirq_entry", "softirq_exit", "softirq_raise" };
	static const enum tpevent_kind sk[] = { TPEVENT_SOFTIRQ_ENTRY, TPEVENT_SOFTIRQ_EXIT, TPEVENT_SOFTIRQ_RAISE };
	for (int i = 0; i < 3; i++) {
		id = event_id(tep, "irq", sn[i]);
		rb_init(&r, big, (uint16_t)id, 0);
		rb32(&r, 8, 7);
		assert_int_equal(tpdecode_decode(d, id, r.b, 12, &ev), 0);
		assert_int_equal(ev.kind, sk[i]);
		assert_int_equal(ev.softirq.vec, 7);
		assert_int_equal(tpdecode_decode(d, id, r.b, 11, &ev), -EINVAL);
	}

	/* every irq_vectors *_entry/_exit: name from the event name */
	struct { const char *ev, *name; enum tpevent_kind k; } vv[] = {
		{ "local_timer_entry", "local_timer", TPEVENT_VECTOR_ENTRY },
		{ "local_timer_exit", "local_timer", TPEVENT_VECTOR_EXIT },
		{ "reschedule_entry", "reschedule", TPEVENT_VECTOR_ENTRY },
		{ "reschedule_exit", "reschedule", TPEVENT_VECTOR_EXIT },
		{ "call_function_single_entry", "call_function_single", TPEVENT_VECTOR_ENTRY },
	};
	for (size_t i = 0; i < sizeof(vv) / sizeof(vv[0]); i++) {
		id = event_id(tep, "irq_vectors", vv[i].ev);
		rb_init(&r, big, (uint16_t)id, 0);
		rb32(&r, 8, 236);
		assert_int_equal(tpdecode_decode(d, id, r.b, 12, &ev), 0);
		assert_int_equal(ev.kind, vv[i].k);
		assert_int_equal(ev.vector.vector, 236);
		assert_string_equal(ev.vector.name, vv[i].name);
	}

	id = event_id(tep, "nmi", "nmi_handler");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 0xffffffff81001234ull);
	rb64(&r, 16, 12345);
	rb32(&r, 24, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 28, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_NMI);
	assert_true(ev.nmi.handler == 0xffffffff81001234ull);
	assert_int_equal(ev.nmi.delta_ns, 12345);
	assert_int_equal(ev.nmi.handled, 1);

	id = event_id(tep, "timer", "hrtimer_start");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 0xffff888001000000ull);
	rb64(&r, 16, 0xffffffff81100000ull);
	rb64(&r, 24, 5000000000ull);
	rb64(&r, 32, 4999990000ull);
	rb32(&r, 40, 1);
	r.b[44] = 1;
	assert_int_equal(tpdecode_decode(d, id, r.b, 45, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_HRTIMER_START);
	assert_true(ev.hrtimer_start.hrtimer == 0xffff888001000000ull);
	assert_true(ev.hrtimer_start.function == 0xffffffff81100000ull);
	assert_int_equal(ev.hrtimer_start.expires_ns, 5000000000ll);
	assert_int_equal(ev.hrtimer_start.softexpires_ns, 4999990000ll);
	assert_int_equal(ev.hrtimer_start.mode, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 43, &ev), -EINVAL);

	id = event_id(tep, "timer", "hrtimer_expire_entry");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 0xffff888001000000ull);
	rb64(&r, 16, 5000012000ull);
	rb64(&r, 24, 0xffffffff81100000ull);
	assert_int_equal(tpdecode_decode(d, id, r.b, 32, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_HRTIMER_EXPIRE_ENTRY);
	assert_true(ev.hrtimer.hrtimer == 0xffff888001000000ull);
	assert_int_equal(ev.hrtimer.now_ns, 5000012000ll);
	assert_true(ev.hrtimer.function == 0xffffffff81100000ull);

	static const char *const tn[] = { "hrtimer_cancel", "hrtimer_expire_exit" };
	static const enum tpevent_kind tk[] = { TPEVENT_HRTIMER_CANCEL, TPEVENT_HRTIMER_EXPIRE_EXIT };
	for (int i = 0; i < 2; i++) {
		id = event_id(tep, "timer", tn[i]);
		rb_init(&r, big, (uint16_t)id, 0);
		rb64(&r, 8, 0xabcdef);
		assert_int_equal(tpdecode_decode(d, id, r.b, 16, &ev), 0);
		assert_int_equal(ev.kind, tk[i]);
		assert_true(ev.hrtimer.hrtimer == 0xabcdef);
		assert_int_equal(tpdecode_decode(d, id, r.b, 15, &ev), -EINVAL);
	}
	tpdecode_free(d);
	tep_free(tep);
}

static void test_irq_timer_le(void **state) { (void)state; check_irq_timer(false); }
static void test_irq_timer_be(void **state) { (void)state; check_irq_timer(true); }

static void check_osnoise_preemptirq(bool big)
{
	struct tep_handle *tep = load_tep(big);
	struct tpdecode *d = tpdecode_new(tep);
	struct tpevent ev;
	struct rb r;
	int id;
	assert_non_null(d);

	id = event_id(tep, "osnoise", "sample_threshold");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 1000);
	rb64(&r, 16, 2500);
	rb64(&r, 24, 3);
	assert_int_equal(tpdecode_decode(d, id, r.b, 32, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_OSNOISE_SAMPLE_THRESHOLD);
	assert_int_equal(ev.osnoise.start_ns, 1000);
	assert_int_equal(ev.osnoise.duration_ns, 2500);
	assert_int_equal(ev.osnoise.interference, 3);

	id = event_id(tep, "osnoise", "nmi_noise");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 77);
	rb64(&r, 16, 88);
	assert_int_equal(tpdecode_decode(d, id, r.b, 24, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_OSNOISE_NMI);
	assert_int_equal(ev.osnoise.start_ns, 77);
	assert_int_equal(ev.osnoise.duration_ns, 88);

	id = event_id(tep, "osnoise", "irq_noise");
	rb_init(&r, big, (uint16_t)id, 0);
	rb32(&r, 8, 36u | (12u << 16));
	rb64(&r, 16, 5);
	rb64(&r, 24, 6);
	rb32(&r, 32, 236);
	rbstr(&r, 36, "local_timer");
	assert_int_equal(tpdecode_decode(d, id, r.b, 48, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_OSNOISE_IRQ);
	assert_string_equal(ev.osnoise.desc, "local_timer");
	assert_int_equal(ev.osnoise.vector_or_pid, 236);
	assert_int_equal(ev.osnoise.start_ns, 5);
	assert_int_equal(ev.osnoise.duration_ns, 6);
	assert_int_equal(tpdecode_decode(d, id, r.b, 47, &ev), -EINVAL);

	id = event_id(tep, "osnoise", "softirq_noise");
	rb_init(&r, big, (uint16_t)id, 0);
	rb64(&r, 8, 10);
	rb64(&r, 16, 20);
	rb32(&r, 24, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 28, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_OSNOISE_SOFTIRQ);
	assert_int_equal(ev.osnoise.vector_or_pid, 1);

	id = event_id(tep, "osnoise", "thread_noise");
	rb_init(&r, big, (uint16_t)id, 0);
	rbstr(&r, 8, "kworker/1:1");
	rb64(&r, 24, 11);
	rb64(&r, 32, 22);
	rb32(&r, 40, 333);
	assert_int_equal(tpdecode_decode(d, id, r.b, 44, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_OSNOISE_THREAD);
	assert_string_equal(ev.osnoise.desc, "kworker/1:1");
	assert_int_equal(ev.osnoise.vector_or_pid, 333);
	assert_int_equal(ev.osnoise.duration_ns, 22);
	assert_int_equal(tpdecode_decode(d, id, r.b, 43, &ev), -EINVAL);

	static const char *const pn[] = { "irq_disable", "irq_enable", "preempt_disable",
					  "preempt_enable" };
	static const enum tpevent_kind pk[] = { TPEVENT_IRQ_DISABLE, TPEVENT_IRQ_ENABLE,
					    TPEVENT_PREEMPT_DISABLE, TPEVENT_PREEMPT_ENABLE };
	for (int i = 0; i < 4; i++) {
		id = event_id(tep, "preemptirq", pn[i]);
		rb_init(&r, big, (uint16_t)id, 0);
		rb32(&r, 8, 0x1234);
		rb32(&r, 12, (uint32_t)-16);
		assert_int_equal(tpdecode_decode(d, id, r.b, 16, &ev), 0);
		assert_int_equal(ev.kind, pk[i]);
		assert_true(ev.preemptirq.caller_offs == 0x1234);
		assert_true((int64_t)ev.preemptirq.parent_offs == -16);
		assert_int_equal(tpdecode_decode(d, id, r.b, 15, &ev), -EINVAL);
	}

	/* power:cpu_idle (6.18's format): u32 state, u32 cpu_id; leaving idle
	 * is state (u32)-1 */
	id = event_id(tep, "power", "cpu_idle");
	rb_init(&r, big, (uint16_t)id, 0);
	rb32(&r, 8, UINT32_MAX);
	rb32(&r, 12, 3);
	assert_int_equal(tpdecode_decode(d, id, r.b, 16, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_CPU_IDLE);
	assert_true(ev.cpu_idle.state == TPEVENT_CPU_IDLE_EXIT);
	assert_int_equal(ev.cpu_idle.cpu_id, 3);
	rb32(&r, 8, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 16, &ev), 0);
	assert_int_equal(ev.cpu_idle.state, 1);
	assert_int_equal(tpdecode_decode(d, id, r.b, 15, &ev), -EINVAL);
	tpdecode_free(d);
	tep_free(tep);
}

static void test_osnoise_le(void **state) { (void)state; check_osnoise_preemptirq(false); }
static void test_osnoise_be(void **state) { (void)state; check_osnoise_preemptirq(true); }

/* Older layouts: prev_state as a 4-byte long (32-bit kernel), hrtimer_start
 * without mode/was_armed/softexpires, migrate_task with a fixed comm. */
static const char old_switch[] =
	"name: sched_switch\nID: 300\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->next_comm, REC->next_pid\n";
static const char old_hrstart[] =
	"name: hrtimer_start\nID: 301\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 expires;\toffset:24;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"hrtimer=%p function=%ps expires=%llu\", REC->hrtimer, REC->function, "
	"(unsigned long long) REC->expires\n";
static const char old_migrate[] =
	"name: sched_migrate_task\nID: 302\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:36;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
/* a broken format: the required next_pid is missing */
static const char bad_wakeup[] =
	"name: sched_wakeup\nID: 303\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n\n"
	"print fmt: \"comm=%s\", REC->comm\n";

static void check_old(bool big)
{
	struct tep_handle *tep = tep_alloc();
	struct rb r;
	struct tpevent ev;
	assert_non_null(tep);
	tep_set_long_size(tep, 4);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	assert_int_equal(parse_text(tep, old_switch, "sched"), 0);
	assert_int_equal(parse_text(tep, old_hrstart, "timer"), 0);
	assert_int_equal(parse_text(tep, old_migrate, "sched"), 0);
	assert_int_equal(parse_text(tep, bad_wakeup, "sched"), 0);
	struct tpdecode *d = tpdecode_new(tep);
	assert_non_null(d);

	rb_init(&r, big, 300, 1);
	rbstr(&r, 8, "a");
	rb32(&r, 24, 1);
	rb32(&r, 28, 120);
	rb32(&r, 32, (uint32_t)-1);
	rbstr(&r, 36, "b");
	rb32(&r, 52, 2);
	rb32(&r, 56, 49);
	assert_int_equal(tpdecode_decode(d, 300, r.b, 60, &ev), 0);
	assert_string_equal(ev.sw.prev_comm, "a");
	assert_int_equal(ev.sw.prev_state, -1);
	assert_string_equal(ev.sw.next_comm, "b");
	assert_int_equal(ev.sw.next_pid, 2);
	assert_int_equal(ev.sw.next_prio, 49);
	assert_int_equal(tpdecode_decode(d, 300, r.b, 59, &ev), -EINVAL);

	rb_init(&r, big, 301, 1);
	rb64(&r, 8, 0x10);
	rb64(&r, 16, 0x20);
	rb64(&r, 24, 123456789);
	assert_int_equal(tpdecode_decode(d, 301, r.b, 32, &ev), 0);
	assert_int_equal(ev.kind, TPEVENT_HRTIMER_START);
	assert_int_equal(ev.hrtimer_start.expires_ns, 123456789);
	assert_int_equal(ev.hrtimer_start.softexpires_ns, 123456789);
	assert_int_equal(ev.hrtimer_start.mode, 0);

	rb_init(&r, big, 302, 1);
	rbstr(&r, 8, "old");
	rb32(&r, 24, 5);
	rb32(&r, 28, 3);
	rb32(&r, 32, 1);
	rb32(&r, 36, 0);
	assert_int_equal(tpdecode_decode(d, 302, r.b, 40, &ev), 0);
	assert_string_equal(ev.migrate.comm, "old");
	assert_int_equal(ev.migrate.orig_cpu, 1);
	assert_int_equal(ev.migrate.dest_cpu, 0);

	assert_int_equal(tpdecode_kind(d, 303), TPEVENT_UNKNOWN);
	assert_int_equal(tpdecode_decode(d, 303, r.b, sizeof(r.b), &ev), -ENOENT);
	tpdecode_free(d);
	tep_free(tep);
}

static void test_old_le(void **state) { (void)state; check_old(false); }
static void test_old_be(void **state) { (void)state; check_old(true); }

static void test_names_empty(void **state)
{
	(void)state;
	struct tpevent ev;
	assert_string_equal(tpevent_kind_name(TPEVENT_SCHED_SWITCH), "sched:sched_switch");
	assert_string_equal(tpevent_kind_name(TPEVENT_OSNOISE_THREAD), "osnoise:thread_noise");
	assert_string_equal(tpevent_kind_name(TPEVENT_CPU_IDLE), "power:cpu_idle");
	assert_string_equal(tpevent_kind_name((enum tpevent_kind)999), "unknown");
	for (int k = 0; k < TPEVENT_NR_KINDS; k++)
		assert_non_null(tpevent_kind_name((enum tpevent_kind)k));
	struct tpdecode *d = tpdecode_new(NULL);
	assert_non_null(d);
	assert_int_equal(tpdecode_decode(d, 1, "", 0, &ev), -ENOENT);
	tpdecode_free(d);
	tpdecode_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_le),
		cmocka_unit_test(test_sched_be),
		cmocka_unit_test(test_irq_timer_le),
		cmocka_unit_test(test_irq_timer_be),
		cmocka_unit_test(test_osnoise_le),
		cmocka_unit_test(test_osnoise_be),
		cmocka_unit_test(test_old_le),
		cmocka_unit_test(test_old_be),
		cmocka_unit_test(test_names_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
