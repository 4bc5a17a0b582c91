/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/format/tpevent/tpencode.c: every event of tests/data/formats that the
 * decoder knows, in both byte orders, is encoded from a struct tpevent and
 * decoded back (lib/format/tpevent/tpdecode.c) to the same struct tpevent; a buffer too small is
 * refused; the field-by-field writer used by histfix.
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
#include "format/tracedata.h"
#include "format/tpencode.h"
#include "format/tpevent.h"

#ifndef TPENCODE_TEST_DATA
#define TPENCODE_TEST_DATA "tests/data/formats"
#endif

static struct tep_handle *load(bool big)
{
	static const char *const specs[] = { "sched", "irq", "irq_vectors", "nmi", "timer",
					     "preemptirq", "osnoise", "power" };
	struct tracedata_formats *f = NULL;
	struct tep_handle *tep = tep_alloc();

	assert_non_null(tep);
	assert_int_equal(tracedata_collect(TPENCODE_TEST_DATA, specs, sizeof(specs) / sizeof(specs[0]), &f), 0);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < f->nr_events; i++)
		assert_int_equal(tep_parse_event(tep, f->events[i].format, strlen(f->events[i].format),
						 f->events[i].system), 0);
	tracedata_free(f);
	return tep;
}

/* An event of kind k with a distinct value in every field the kind has. */
static void fill(struct tpevent *e, enum tpevent_kind k, const char *ev_name, uint32_t seed)
{
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->pid = 4000 + (int32_t)seed;
	e->common_flags = 0x81;
	e->common_preempt_count = 0x02;
	switch (k) {
	case TPEVENT_SCHED_SWITCH:
		snprintf(e->sw.prev_comm, sizeof(e->sw.prev_comm), "prev-%u", seed % 1000);
		e->sw.prev_pid = 11;
		e->sw.prev_prio = -2;
		e->sw.prev_state = 0x402;
		snprintf(e->sw.next_comm, sizeof(e->sw.next_comm), "next");
		e->sw.next_pid = 12;
		e->sw.next_prio = 99;
		break;
	case TPEVENT_SCHED_WAKING:
	case TPEVENT_SCHED_WAKEUP:
	case TPEVENT_SCHED_WAKEUP_NEW:
		snprintf(e->wake.comm, sizeof(e->wake.comm), "waker");
		e->wake.pid = 21;
		e->wake.prio = 120;
		e->wake.target_cpu = 3;
		break;
	case TPEVENT_SCHED_MIGRATE:
		snprintf(e->migrate.comm, sizeof(e->migrate.comm), "mover");
		e->migrate.pid = 31;
		e->migrate.prio = 139;
		e->migrate.orig_cpu = 1;
		e->migrate.dest_cpu = 2;
		break;
	case TPEVENT_SCHED_PROCESS_EXIT:
		snprintf(e->exit.comm, sizeof(e->exit.comm), "gone");
		e->exit.pid = 41;
		e->exit.prio = 120;
		break;
	case TPEVENT_IRQ_ENTRY:
		e->irq.irq = 24;
		snprintf(e->irq.name, sizeof(e->irq.name), "eth0-rx-%u", seed);
		break;
	case TPEVENT_IRQ_EXIT:
		e->irq.irq = 24;
		e->irq.ret = 1;
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
	case TPEVENT_SOFTIRQ_EXIT:
	case TPEVENT_SOFTIRQ_RAISE:
		e->softirq.vec = 9;
		break;
	case TPEVENT_VECTOR_ENTRY:
	case TPEVENT_VECTOR_EXIT: {
		size_t stem = strlen(ev_name) - (k == TPEVENT_VECTOR_ENTRY ? 6 : 5);
		e->vector.vector = 236;
		snprintf(e->vector.name, sizeof(e->vector.name), "%.*s", (int)stem, ev_name);
		break;
	}
	case TPEVENT_NMI:
		e->nmi.handler = 0xffffffff81001234ull;
		e->nmi.delta_ns = 5000;
		e->nmi.handled = 1;
		break;
	case TPEVENT_HRTIMER_START:
		e->hrtimer_start.hrtimer = 0xffff888001000000ull;
		e->hrtimer_start.function = 0xffffffff81100000ull;
		e->hrtimer_start.expires_ns = 5000000000ll;
		e->hrtimer_start.softexpires_ns = 4999990000ll;
		e->hrtimer_start.mode = 1;
		break;
	case TPEVENT_HRTIMER_CANCEL:
	case TPEVENT_HRTIMER_EXPIRE_EXIT:
		e->hrtimer.hrtimer = 0xffff888001000040ull;
		break;
	case TPEVENT_HRTIMER_EXPIRE_ENTRY:
		e->hrtimer.hrtimer = 0xffff888001000080ull;
		e->hrtimer.now_ns = 5000000100ll;
		e->hrtimer.function = 0xffffffff81100040ull;
		break;
	case TPEVENT_IRQ_DISABLE:
	case TPEVENT_IRQ_ENABLE:
	case TPEVENT_PREEMPT_DISABLE:
	case TPEVENT_PREEMPT_ENABLE:
		e->preemptirq.caller_offs = 0x1234;
		e->preemptirq.parent_offs = 0x5678;
		break;
	case TPEVENT_OSNOISE_SAMPLE_THRESHOLD:
		e->osnoise.start_ns = 123456789;
		e->osnoise.duration_ns = 4200;
		e->osnoise.interference = 3;
		break;
	case TPEVENT_OSNOISE_NMI:
		e->osnoise.start_ns = 1;
		e->osnoise.duration_ns = 2;
		break;
	case TPEVENT_OSNOISE_IRQ:
		e->osnoise.start_ns = 10;
		e->osnoise.duration_ns = 20;
		e->osnoise.vector_or_pid = 236;
		snprintf(e->osnoise.desc, sizeof(e->osnoise.desc), "local_timer");
		break;
	case TPEVENT_OSNOISE_SOFTIRQ:
		e->osnoise.start_ns = 30;
		e->osnoise.duration_ns = 40;
		e->osnoise.vector_or_pid = 7;
		break;
	case TPEVENT_OSNOISE_THREAD:
		e->osnoise.start_ns = 50;
		e->osnoise.duration_ns = 60;
		e->osnoise.vector_or_pid = 77;
		snprintf(e->osnoise.desc, sizeof(e->osnoise.desc), "kworker/0:1");
		break;
	case TPEVENT_CPU_IDLE:
		e->cpu_idle.state = TPEVENT_CPU_IDLE_EXIT;
		e->cpu_idle.cpu_id = 1;
		break;
	default:
		fail_msg("kind %d", k);
	}
}

static void roundtrip(bool big)
{
	struct tep_handle *tep = load(big);
	struct tpdecode *d = tpdecode_new(tep);
	bool seen[TPEVENT_NR_KINDS] = { false };
	uint8_t buf[512];
	int nr = tep_get_events_count(tep);

	assert_non_null(d);
	for (int i = 0; i < nr; i++) {
		struct tep_event *te = tep_get_event(tep, i);
		enum tpevent_kind k = tpdecode_kind(d, te->id);
		if (k == TPEVENT_UNKNOWN)
			continue;
		struct tpevent in, out;
		fill(&in, k, te->name, (uint32_t)i);
		in.time_ns = 1000 + (uint64_t)i;	/* the sample's: kept by tpdecode_decode */
		in.cpu = 1;
		in.tid = in.pid;
		assert_int_equal(tpencode_id(d, &in), te->id);

		ssize_t n = tpencode(d, &in, buf, sizeof(buf));
		assert_true(n > 0);
		assert_true(n >= tpencode_size(d, te->id));
		assert_int_equal(bytes_ld16(buf, big != (bool)BYTES_HOST_BIG_ENDIAN), te->id);

		memset(&out, 0, sizeof(out));
		out.time_ns = in.time_ns;
		out.cpu = in.cpu;
		out.pid = in.pid;
		out.tid = in.tid;
		assert_int_equal(tpdecode_decode(d, te->id, buf, (size_t)n, &out), 0);
		if (memcmp(&in, &out, sizeof(in)) != 0)
			fail_msg("%s:%s does not round-trip (%s endian)", te->system, te->name,
				 big ? "big" : "little");
		/* the decoder reads common_pid nowhere: check the bytes */
		struct tep_format_field *pf = tep_find_common_field(te, "common_pid");
		assert_non_null(pf);
		assert_int_equal((int32_t)bytes_ld32(buf + pf->offset, big != (bool)BYTES_HOST_BIG_ENDIAN),
				 in.pid);

		/* one byte short of the payload: refused, nothing read past cap */
		assert_int_equal(tpencode(d, &in, buf, (size_t)n - 1), -ENOSPC);
		assert_int_equal(tpencode(d, &in, NULL, 0), -ENOSPC);
		seen[k] = true;
	}
	for (int k = 1; k < TPEVENT_NR_KINDS; k++)
		if (!seen[k])
			fail_msg("kind %s not in the formats", tpevent_kind_name((enum tpevent_kind)k));

	/* nothing to encode to */
	struct tpevent none = { .kind = TPEVENT_VECTOR_ENTRY, .vector.name = "no_such_vector" };
	assert_int_equal(tpencode_id(d, &none), -ENOENT);
	assert_int_equal(tpencode(d, &none, buf, sizeof(buf)), -ENOENT);
	none.kind = TPEVENT_UNKNOWN;
	assert_int_equal(tpencode(d, &none, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(tpencode_size(d, 999999), -ENOENT);
	tpdecode_free(d);
	tep_free(tep);
}

static void test_roundtrip_le(void **st)
{
	(void)st;
	roundtrip(false);
}

static void test_roundtrip_be(void **st)
{
	(void)st;
	roundtrip(true);
}

/* A long string into a fixed array: truncated to size - 1 and decoded so. */
static void test_truncated_comm(void **st)
{
	(void)st;
	struct tep_handle *tep = load(false);
	struct tpdecode *d = tpdecode_new(tep);
	struct tpevent in = { .kind = TPEVENT_SCHED_SWITCH }, out = { 0 };
	uint8_t buf[256];

	memcpy(in.sw.prev_comm, "0123456789abcdef", sizeof(in.sw.prev_comm));	/* no NUL */
	ssize_t n = tpencode(d, &in, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(tpdecode_decode(d, tpencode_id(d, &in), buf, (size_t)n, &out), 0);
	assert_string_equal(out.sw.prev_comm, "0123456789abcde");
	tpdecode_free(d);
	tep_free(tep);
}

/* The text field writer: numbers, arrays, __data_loc strings, no room. */
static void test_enc_field(void **st)
{
	(void)st;
	struct tep_handle *tep = load(true);
	struct tpdecode *d = tpdecode_new(tep);
	struct tep_event *te = tep_find_event_by_name(tep, "irq", "irq_handler_entry");
	uint8_t buf[64];
	size_t size;
	struct tpevent out = { 0 };

	assert_non_null(te);
	size = (size_t)tpencode_size(d, te->id);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(tpencode_field(buf, sizeof(buf), &size,
				       tep_find_common_field(te, "common_type"), "225", !BYTES_HOST_BIG_ENDIAN), 0);
	assert_int_equal(tpencode_field(buf, sizeof(buf), &size, tep_find_field(te, "irq"), "0x18",
				       !BYTES_HOST_BIG_ENDIAN), 0);
	assert_int_equal(tpencode_field(buf, sizeof(buf), &size, tep_find_field(te, "name"), "timer",
				       !BYTES_HOST_BIG_ENDIAN), 0);
	assert_int_equal(size, (size_t)tpencode_size(d, te->id) + 6);
	assert_int_equal(tpdecode_decode(d, te->id, buf, size, &out), 0);
	assert_int_equal(out.irq.irq, 24);
	assert_string_equal(out.irq.name, "timer");
	/* no room for the string */
	assert_int_equal(tpencode_field(buf, size + 3, &size, tep_find_field(te, "name"), "timer",
				       !BYTES_HOST_BIG_ENDIAN), -ENOSPC);
	assert_int_equal(tpencode_field(buf, sizeof(buf), &size, NULL, "1", false), -EINVAL);
	tpdecode_free(d);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_le),
		cmocka_unit_test(test_roundtrip_be),
		cmocka_unit_test(test_truncated_comm),
		cmocka_unit_test(test_enc_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
