/* SPDX-License-Identifier: MIT */
/*
 * tpencode.c - struct tpevent -> raw tracepoint payload over the decoder's
 * resolved formats (lib/format/tpevent/tpdecode_int.h).
 *
 * Prefix: tpencode_.
 *
 * tpencode() mirrors the switch of tpdecode_decode(): field slot i of a kind is
 * written from the same struct tpevent member the decoder reads it into, so a
 * payload encoded here decodes back to the same event (values that fit the
 * format's fields, strings shorter than their arrays).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "tpdecode_int.h"
#include "format/tpencode.h"

static int enc_num(uint8_t *raw, uint32_t off, uint32_t size, uint64_t v, bool swap)
{
	switch (size) {
	case 1: raw[off] = (uint8_t)v; return 0;
	case 2: bytes_st16(raw + off, (uint16_t)v, swap); return 0;
	case 4: bytes_st32(raw + off, (uint32_t)v, swap); return 0;
	case 8: bytes_st64(raw + off, v, swap); return 0;
	default: return -EINVAL;
	}
}

/* A fixed char array: s (at most max bytes) truncated to size - 1, NUL padded. */
static void enc_array(uint8_t *raw, uint32_t off, uint32_t size, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	memset(raw + off, 0, size);
	memcpy(raw + off, s, n < size ? n : size - 1);
}

/* A __data_loc/__rel_loc string: s (at most max bytes) and a NUL at *end, which grows. */
static int enc_dyn(uint8_t *raw, size_t cap, size_t *end, uint32_t off, uint32_t size,
		   bool relative, const char *s, size_t max, bool swap)
{
	size_t n = strnlen(s, max) + 1, at = *end;
	if (at > cap || n > cap - at)
		return -ENOSPC;
	if (relative && at < (size_t)off + size)
		return -EINVAL;
	size_t rel = relative ? at - ((size_t)off + size) : at;
	if (rel > 0xffff || n > 0xffff)
		return -ENOSPC;
	memcpy(raw + at, s, n - 1);
	raw[at + n - 1] = 0;
	bytes_st32(raw + off, (uint32_t)rel | (uint32_t)n << 16, swap);
	*end = at + n;
	return 0;
}

static void put_num(const struct tpdecode *d, const struct tpdecode_field *f, uint8_t *raw, uint64_t v)
{
	if (f->present)
		enc_num(raw, f->offset, f->size, v, d->swap);	/* sizes checked by tpdecode_new */
}

static int put_str(const struct tpdecode *d, const struct tpdecode_field *f, uint8_t *raw, size_t cap,
		   size_t *end, const char *s, size_t max)
{
	if (!f->present)
		return 0;
	if (f->dynamic)
		return enc_dyn(raw, cap, end, f->offset, f->size, f->relative, s, max, d->swap);
	enc_array(raw, f->offset, f->size, s, max);
	return 0;
}

int tpencode_id(const struct tpdecode *d, const struct tpevent *e)
{
	bool vec = e->kind == TPEVENT_VECTOR_ENTRY || e->kind == TPEVENT_VECTOR_EXIT;
	for (size_t i = 0; d && i < d->nr; i++) {
		const struct tpdecode_ev *ev = &d->ev[i];
		if (ev->kind != e->kind)
			continue;
		if (vec && strncmp(ev->vec_name, e->vector.name, sizeof(ev->vec_name)) != 0)
			continue;
		return ev->id;
	}
	return -ENOENT;
}

ssize_t tpencode_size(const struct tpdecode *d, int event_id)
{
	const struct tpdecode_ev *ev = tpdecode_find_ev(d, event_id);
	return ev ? (ssize_t)ev->rec_size : -ENOENT;
}

/* The payload being written: raw[cap] over the resolved fields of ev, and
 * end, where the next __data_loc string goes (the payload's size so far). */
struct tpenc {
	const struct tpdecode *d;
	const struct tpdecode_ev *ev;
	uint8_t *raw;
	size_t cap;
	size_t end;
};

#define NUM(i, v) put_num(x->d, &x->ev->f[i], x->raw, (uint64_t)(v))
#define STR(i, s) \
	do { \
		int e_ = put_str(x->d, &x->ev->f[i], x->raw, x->cap, &x->end, s, sizeof(s)); \
		if (e_ < 0) \
			return e_; \
	} while (0)

/* The fields of the sched events into x: the payload's size, or -ENOENT
 * for a kind that is not one, or put_str's failure on a comm. */
static ssize_t encode_sched(struct tpenc *x, const struct tpevent *e)
{
	switch (e->kind) {
	case TPEVENT_SCHED_SWITCH:
		STR(0, e->sw.prev_comm);
		NUM(1, e->sw.prev_pid);
		NUM(2, e->sw.prev_prio);
		NUM(3, e->sw.prev_state);
		STR(4, e->sw.next_comm);
		NUM(5, e->sw.next_pid);
		NUM(6, e->sw.next_prio);
		break;
	case TPEVENT_SCHED_WAKING:
	case TPEVENT_SCHED_WAKEUP:
	case TPEVENT_SCHED_WAKEUP_NEW:
		STR(0, e->wake.comm);
		NUM(1, e->wake.pid);
		NUM(2, e->wake.prio);
		NUM(3, e->wake.target_cpu);
		break;
	case TPEVENT_SCHED_MIGRATE:
		STR(0, e->migrate.comm);
		NUM(1, e->migrate.pid);
		NUM(2, e->migrate.prio);
		NUM(3, e->migrate.orig_cpu);
		NUM(4, e->migrate.dest_cpu);
		break;
	case TPEVENT_SCHED_PROCESS_EXIT:
		STR(0, e->exit.comm);
		NUM(1, e->exit.pid);
		NUM(2, e->exit.prio);
		break;
	default:
		return -ENOENT;
	}
	return (ssize_t)x->end;
}

ssize_t tpencode(const struct tpdecode *d, const struct tpevent *e, void *buf, size_t cap)
{
	int id = tpencode_id(d, e);
	if (id < 0)
		return id;
	const struct tpdecode_ev *ev = tpdecode_find_ev(d, id);
	struct tpenc enc = { .d = d, .ev = ev, .raw = buf, .cap = cap, .end = ev->rec_size };
	struct tpenc *x = &enc;

	if (!buf || cap < x->end)
		return -ENOSPC;
	memset(x->raw, 0, x->end);
	put_num(d, &ev->common_type, x->raw, (uint64_t)id);
	put_num(d, &ev->common_flags, x->raw, e->common_flags);
	put_num(d, &ev->common_pc, x->raw, e->common_preempt_count);
	put_num(d, &ev->common_pid, x->raw, (uint64_t)(int64_t)e->pid);

	switch (e->kind) {
	case TPEVENT_IRQ_ENTRY:
		NUM(0, e->irq.irq);
		STR(1, e->irq.name);
		break;
	case TPEVENT_IRQ_EXIT:
		NUM(0, e->irq.irq);
		NUM(1, e->irq.ret);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
	case TPEVENT_SOFTIRQ_EXIT:
	case TPEVENT_SOFTIRQ_RAISE:
		NUM(0, e->softirq.vec);
		break;
	case TPEVENT_VECTOR_ENTRY:
	case TPEVENT_VECTOR_EXIT:
		NUM(0, e->vector.vector);	/* the name is the event's */
		break;
	case TPEVENT_NMI:
		NUM(0, e->nmi.handler);
		NUM(1, e->nmi.delta_ns);
		NUM(2, e->nmi.handled);
		break;
	case TPEVENT_HRTIMER_START:
		NUM(0, e->hrtimer_start.hrtimer);
		NUM(1, e->hrtimer_start.function);
		NUM(2, e->hrtimer_start.expires_ns);
		NUM(3, e->hrtimer_start.softexpires_ns);
		NUM(4, e->hrtimer_start.mode);
		break;
	case TPEVENT_HRTIMER_CANCEL:
	case TPEVENT_HRTIMER_EXPIRE_EXIT:
		NUM(0, e->hrtimer.hrtimer);
		break;
	case TPEVENT_HRTIMER_EXPIRE_ENTRY:
		NUM(0, e->hrtimer.hrtimer);
		NUM(1, e->hrtimer.now_ns);
		NUM(2, e->hrtimer.function);
		break;
	case TPEVENT_IRQ_DISABLE:
	case TPEVENT_IRQ_ENABLE:
	case TPEVENT_PREEMPT_DISABLE:
	case TPEVENT_PREEMPT_ENABLE:
		NUM(0, e->preemptirq.caller_offs);
		NUM(1, e->preemptirq.parent_offs);
		break;
	case TPEVENT_OSNOISE_SAMPLE_THRESHOLD:
	case TPEVENT_OSNOISE_NMI:
	case TPEVENT_OSNOISE_IRQ:
	case TPEVENT_OSNOISE_SOFTIRQ:
	case TPEVENT_OSNOISE_THREAD:
		NUM(0, e->osnoise.start_ns);
		NUM(1, e->osnoise.duration_ns);
		if (e->kind == TPEVENT_OSNOISE_SAMPLE_THRESHOLD)
			NUM(2, e->osnoise.interference);
		else
			NUM(2, e->osnoise.vector_or_pid);
		STR(3, e->osnoise.desc);
		break;
	case TPEVENT_CPU_IDLE:
		NUM(0, e->cpu_idle.state);
		NUM(1, e->cpu_idle.cpu_id);
		break;
	default:	/* the sched events, or a kind not encoded (-ENOENT) */
		return encode_sched(x, e);
	}
	return (ssize_t)x->end;
}

#undef NUM
#undef STR

int tpencode_field(void *buf, size_t cap, size_t *size, const struct tep_format_field *f,
		  const char *value, bool swap)
{
	uint8_t *raw = buf;
	if (!f || f->offset < 0 || f->size <= 0)
		return -EINVAL;
	uint32_t off = (uint32_t)f->offset, sz = (uint32_t)f->size;
	if ((size_t)off + sz > cap)
		return -ENOSPC;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (sz != 4)
			return -EINVAL;
		return enc_dyn(raw, cap, size, off, sz, f->flags & TEP_FIELD_IS_RELATIVE, value,
			       SIZE_MAX, swap);
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		size_t n = strlen(value);
		memcpy(raw + off, value, n < sz ? n : sz - 1);
		return 0;
	}
	return enc_num(raw, off, sz, strtoull(value, NULL, 0), swap);
}
