/* SPDX-License-Identifier: MIT */
/*
 * tpdecode.c - turn raw tracepoint data into struct tpevent.
 *
 * Prefix: tpdecode_ / tpevent_.
 *
 * tpdecode_new() looks up every event the toolkit knows in the tep handle,
 * resolves the offset, size and kind of each field once, and keeps one small
 * descriptor per event in an array sorted by event id.  tpdecode_decode() then
 * reads the fields straight from the raw bytes with the file's byte order;
 * every read is checked against raw_size.  Fields that some kernels lack
 * (e.g. hrtimer_start.mode, sched_switch.prev_state) are optional: they
 * decode as 0 / "" when absent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "format/pdread.h"
#include "tpdecode_int.h"
#include "format/tpevent.h"

/* How a field is read. */
enum tpdecode_ftype {
	TPDECODE_F_NUM,		/* integer of 1, 2, 4 or 8 bytes */
	TPDECODE_F_STR,		/* fixed char array or __data_loc/__rel_loc string */
};

struct tpdecode_fspec {
	const char *name;
	enum tpdecode_ftype type;
	bool optional;
};

/* Field lists per kind: slot i of an event descriptor is spec field i. */
struct tpdecode_kspec {
	enum tpevent_kind kind;
	const char *system;
	const char *event;		/* NULL: matched by suffix (irq_vectors) */
	struct tpdecode_fspec f[TPDECODE_MAX_FIELDS];
};

#define N(n) { n, TPDECODE_F_NUM, false }
#define NO(n) { n, TPDECODE_F_NUM, true }
#define S(n) { n, TPDECODE_F_STR, false }
#define SO(n) { n, TPDECODE_F_STR, true }

static const struct tpdecode_kspec tpdecode_specs[] = {
	{ TPEVENT_SCHED_SWITCH, "sched", "sched_switch",
	  { SO("prev_comm"), N("prev_pid"), N("prev_prio"), NO("prev_state"),
	    SO("next_comm"), N("next_pid"), N("next_prio") } },
	{ TPEVENT_SCHED_WAKING, "sched", "sched_waking",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPEVENT_SCHED_WAKEUP, "sched", "sched_wakeup",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPEVENT_SCHED_WAKEUP_NEW, "sched", "sched_wakeup_new",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPEVENT_SCHED_MIGRATE, "sched", "sched_migrate_task",
	  { SO("comm"), N("pid"), NO("prio"), NO("orig_cpu"), N("dest_cpu") } },
	{ TPEVENT_SCHED_PROCESS_EXIT, "sched", "sched_process_exit",
	  { SO("comm"), N("pid"), NO("prio") } },
	{ TPEVENT_IRQ_ENTRY, "irq", "irq_handler_entry", { N("irq"), SO("name") } },
	{ TPEVENT_IRQ_EXIT, "irq", "irq_handler_exit", { N("irq"), NO("ret") } },
	{ TPEVENT_SOFTIRQ_ENTRY, "irq", "softirq_entry", { N("vec") } },
	{ TPEVENT_SOFTIRQ_EXIT, "irq", "softirq_exit", { N("vec") } },
	{ TPEVENT_SOFTIRQ_RAISE, "irq", "softirq_raise", { N("vec") } },
	{ TPEVENT_NMI, "nmi", "nmi_handler", { NO("handler"), N("delta_ns"), NO("handled") } },
	{ TPEVENT_HRTIMER_START, "timer", "hrtimer_start",
	  { N("hrtimer"), NO("function"), N("expires"), NO("softexpires"), NO("mode") } },
	{ TPEVENT_HRTIMER_CANCEL, "timer", "hrtimer_cancel", { N("hrtimer") } },
	{ TPEVENT_HRTIMER_EXPIRE_ENTRY, "timer", "hrtimer_expire_entry",
	  { N("hrtimer"), N("now"), NO("function") } },
	{ TPEVENT_HRTIMER_EXPIRE_EXIT, "timer", "hrtimer_expire_exit", { N("hrtimer") } },
	{ TPEVENT_IRQ_DISABLE, "preemptirq", "irq_disable", { NO("caller_offs"), NO("parent_offs") } },
	{ TPEVENT_IRQ_ENABLE, "preemptirq", "irq_enable", { NO("caller_offs"), NO("parent_offs") } },
	{ TPEVENT_PREEMPT_DISABLE, "preemptirq", "preempt_disable",
	  { NO("caller_offs"), NO("parent_offs") } },
	{ TPEVENT_PREEMPT_ENABLE, "preemptirq", "preempt_enable",
	  { NO("caller_offs"), NO("parent_offs") } },
	{ TPEVENT_OSNOISE_SAMPLE_THRESHOLD, "osnoise", "sample_threshold",
	  { N("start"), N("duration"), NO("interference") } },
	{ TPEVENT_OSNOISE_NMI, "osnoise", "nmi_noise", { N("start"), N("duration") } },
	{ TPEVENT_OSNOISE_IRQ, "osnoise", "irq_noise",
	  { N("start"), N("duration"), NO("vector"), SO("desc") } },
	{ TPEVENT_OSNOISE_SOFTIRQ, "osnoise", "softirq_noise",
	  { N("start"), N("duration"), NO("vector") } },
	{ TPEVENT_OSNOISE_THREAD, "osnoise", "thread_noise",
	  { N("start"), N("duration"), NO("pid"), SO("comm") } },
	{ TPEVENT_CPU_IDLE, "power", "cpu_idle", { N("state"), NO("cpu_id") } },
};

#undef N
#undef NO
#undef S
#undef SO

/* A vector entry/exit spec (matched by suffix in system irq_vectors). */
static const struct tpdecode_kspec tpdecode_vec_entry = {
	TPEVENT_VECTOR_ENTRY, "irq_vectors", NULL, { { "vector", TPDECODE_F_NUM, false } }
};
static const struct tpdecode_kspec tpdecode_vec_exit = {
	TPEVENT_VECTOR_EXIT, "irq_vectors", NULL, { { "vector", TPDECODE_F_NUM, false } }
};

static const char *const tpevent_names[TPEVENT_NR_KINDS] = {
	[TPEVENT_UNKNOWN] = "unknown",
	[TPEVENT_SCHED_SWITCH] = "sched:sched_switch",
	[TPEVENT_SCHED_WAKING] = "sched:sched_waking",
	[TPEVENT_SCHED_WAKEUP] = "sched:sched_wakeup",
	[TPEVENT_SCHED_WAKEUP_NEW] = "sched:sched_wakeup_new",
	[TPEVENT_SCHED_MIGRATE] = "sched:sched_migrate_task",
	[TPEVENT_SCHED_PROCESS_EXIT] = "sched:sched_process_exit",
	[TPEVENT_IRQ_ENTRY] = "irq:irq_handler_entry",
	[TPEVENT_IRQ_EXIT] = "irq:irq_handler_exit",
	[TPEVENT_SOFTIRQ_ENTRY] = "irq:softirq_entry",
	[TPEVENT_SOFTIRQ_EXIT] = "irq:softirq_exit",
	[TPEVENT_SOFTIRQ_RAISE] = "irq:softirq_raise",
	[TPEVENT_VECTOR_ENTRY] = "irq_vectors:*_entry",
	[TPEVENT_VECTOR_EXIT] = "irq_vectors:*_exit",
	[TPEVENT_NMI] = "nmi:nmi_handler",
	[TPEVENT_HRTIMER_START] = "timer:hrtimer_start",
	[TPEVENT_HRTIMER_CANCEL] = "timer:hrtimer_cancel",
	[TPEVENT_HRTIMER_EXPIRE_ENTRY] = "timer:hrtimer_expire_entry",
	[TPEVENT_HRTIMER_EXPIRE_EXIT] = "timer:hrtimer_expire_exit",
	[TPEVENT_IRQ_DISABLE] = "preemptirq:irq_disable",
	[TPEVENT_IRQ_ENABLE] = "preemptirq:irq_enable",
	[TPEVENT_PREEMPT_DISABLE] = "preemptirq:preempt_disable",
	[TPEVENT_PREEMPT_ENABLE] = "preemptirq:preempt_enable",
	[TPEVENT_OSNOISE_SAMPLE_THRESHOLD] = "osnoise:sample_threshold",
	[TPEVENT_OSNOISE_NMI] = "osnoise:nmi_noise",
	[TPEVENT_OSNOISE_IRQ] = "osnoise:irq_noise",
	[TPEVENT_OSNOISE_SOFTIRQ] = "osnoise:softirq_noise",
	[TPEVENT_OSNOISE_THREAD] = "osnoise:thread_noise",
	[TPEVENT_CPU_IDLE] = "power:cpu_idle",
};

const char *tpevent_kind_name(enum tpevent_kind k)
{
	if ((unsigned int)k >= TPEVENT_NR_KINDS || !tpevent_names[k])
		return "unknown";
	return tpevent_names[k];
}

/* Resolve one field; false when it is absent or has a layout we cannot read. */
static bool tpdecode_resolve(struct tep_format_field *tf, enum tpdecode_ftype type, struct tpdecode_field *out)
{
	memset(out, 0, sizeof(*out));
	if (!tf || tf->offset < 0 || tf->size <= 0)
		return false;
	out->offset = (uint32_t)tf->offset;
	out->size = (uint32_t)tf->size;
	out->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	if (type == TPDECODE_F_NUM) {
		if (tf->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
			return false;
		if (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8)
			return false;
	} else {
		if (tf->flags & TEP_FIELD_IS_DYNAMIC) {
			if (tf->size != 4)
				return false;
			out->dynamic = true;
			out->relative = tf->flags & TEP_FIELD_IS_RELATIVE;
		} else if (!(tf->flags & TEP_FIELD_IS_ARRAY)) {
			return false;
		}
	}
	out->present = true;
	return true;
}

/* Fill ev from spec; false when a required field is missing. */
static bool tpdecode_build(struct tep_event *e, const struct tpdecode_kspec *ks, struct tpdecode_ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->id = e->id;
	ev->kind = ks->kind;
	tpdecode_resolve(tep_find_common_field(e, "common_flags"), TPDECODE_F_NUM, &ev->common_flags);
	tpdecode_resolve(tep_find_common_field(e, "common_preempt_count"), TPDECODE_F_NUM, &ev->common_pc);
	if (ev->common_flags.present && ev->common_flags.size != 1)
		ev->common_flags.present = false;
	if (ev->common_pc.present && ev->common_pc.size != 1)
		ev->common_pc.present = false;
	tpdecode_resolve(tep_find_common_field(e, "common_type"), TPDECODE_F_NUM, &ev->common_type);
	tpdecode_resolve(tep_find_common_field(e, "common_pid"), TPDECODE_F_NUM, &ev->common_pid);
	for (int pass = 0; pass < 2; pass++) {
		struct tep_format_field *tf = pass ? e->format.fields : e->format.common_fields;
		for (; tf; tf = tf->next) {
			uint64_t end = (uint64_t)(int64_t)tf->offset + (uint64_t)(int64_t)tf->size;
			if (tf->offset >= 0 && tf->size > 0 && end <= UINT32_MAX && end > ev->rec_size)
				ev->rec_size = (uint32_t)end;
		}
	}

	for (size_t i = 0; i < TPDECODE_MAX_FIELDS && ks->f[i].name; i++) {
		const struct tpdecode_fspec *fs = &ks->f[i];
		if (!tpdecode_resolve(tep_find_field(e, fs->name), fs->type, &ev->f[i]) && !fs->optional)
			return false;
	}
	struct tpdecode_field *all[TPDECODE_MAX_FIELDS + 2];
	size_t n = 0;
	all[n++] = &ev->common_flags;
	all[n++] = &ev->common_pc;
	for (size_t i = 0; i < TPDECODE_MAX_FIELDS; i++)
		all[n++] = &ev->f[i];
	for (size_t i = 0; i < n; i++) {
		if (!all[i]->present)
			continue;
		uint64_t end = (uint64_t)all[i]->offset + all[i]->size;
		if (end > UINT32_MAX)
			return false;
		if (end > ev->min_size)
			ev->min_size = (uint32_t)end;
	}
	return true;
}

static int tpdecode_cmp(const void *a, const void *b)
{
	const struct tpdecode_ev *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int tpdecode_add(struct tpdecode *d, const struct tpdecode_ev *ev)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->ev[i].id == ev->id)
			return 0;	/* same id twice: keep the first */
	if (d->nr == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 32;
		struct tpdecode_ev *n = realloc(d->ev, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->ev = n;
		d->cap = ncap;
	}
	d->ev[d->nr++] = *ev;
	return 0;
}

static bool tpdecode_suffix(const char *s, const char *suf, size_t *stem)
{
	size_t ls = strlen(s), lf = strlen(suf);
	if (ls <= lf || strcmp(s + ls - lf, suf) != 0)
		return false;
	*stem = ls - lf;
	return true;
}

struct tpdecode *tpdecode_new(struct tep_handle *tep)
{
	struct tpdecode *d = calloc(1, sizeof(*d));
	struct tpdecode_ev ev;

	if (!d)
		return NULL;
	if (!tep)
		return d;	/* decodes nothing */
	d->swap = tep_is_file_bigendian(tep) != (bool)BYTES_HOST_BIG_ENDIAN;

	for (size_t i = 0; i < sizeof(tpdecode_specs) / sizeof(tpdecode_specs[0]); i++) {
		const struct tpdecode_kspec *ks = &tpdecode_specs[i];
		struct tep_event *e = tep_find_event_by_name(tep, ks->system, ks->event);
		if (e && tpdecode_build(e, ks, &ev) && tpdecode_add(d, &ev) < 0)
			goto fail;
	}

	int nr = tep_get_events_count(tep);
	for (int i = 0; i < nr; i++) {
		struct tep_event *e = tep_get_event(tep, i);
		const struct tpdecode_kspec *ks;
		size_t stem;

		if (!e || !e->system || !e->name || strcmp(e->system, "irq_vectors") != 0)
			continue;
		if (tpdecode_suffix(e->name, "_entry", &stem))
			ks = &tpdecode_vec_entry;
		else if (tpdecode_suffix(e->name, "_exit", &stem))
			ks = &tpdecode_vec_exit;
		else
			continue;
		if (!tpdecode_build(e, ks, &ev))
			continue;
		if (stem >= sizeof(ev.vec_name))
			stem = sizeof(ev.vec_name) - 1;
		memcpy(ev.vec_name, e->name, stem);
		ev.vec_name[stem] = '\0';
		if (tpdecode_add(d, &ev) < 0)
			goto fail;
	}
	if (d->nr)
		qsort(d->ev, d->nr, sizeof(*d->ev), tpdecode_cmp);
	return d;
fail:
	tpdecode_free(d);
	return NULL;
}

void tpdecode_free(struct tpdecode *d)
{
	if (!d)
		return;
	free(d->ev);
	free(d);
}

const struct tpdecode_ev *tpdecode_find_ev(const struct tpdecode *d, int id)
{
	size_t lo = 0, hi = d ? d->nr : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->ev[mid].id == id)
			return &d->ev[mid];
		if (d->ev[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum tpevent_kind tpdecode_kind(const struct tpdecode *d, int event_id)
{
	const struct tpdecode_ev *e = tpdecode_find_ev(d, event_id);
	return e ? e->kind : TPEVENT_UNKNOWN;
}

/* Integer field (bounds already checked through min_size); 0 when absent. */
static uint64_t tpdecode_num(const struct tpdecode *d, const struct tpdecode_field *f, const uint8_t *raw)
{
	const uint8_t *p = raw + f->offset;
	if (!f->present)
		return 0;
	switch (f->size) {
	case 1:
		return f->is_signed ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2: {
		uint16_t v = bytes_ld16(p, d->swap);
		return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v = bytes_ld32(p, d->swap);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default:
		return bytes_ld64(p, d->swap);
	}
}

/* String field into dst[cap]; -EINVAL when a __data_loc points outside raw. */
static int tpdecode_str(const struct tpdecode *d, const struct tpdecode_field *f, const uint8_t *raw,
		   size_t raw_size, char *dst, size_t cap)
{
	const uint8_t *src;
	size_t len;

	dst[0] = '\0';
	if (!f->present)
		return 0;
	if (f->dynamic) {
		uint32_t loc = bytes_ld32(raw + f->offset, d->swap);
		uint64_t off = loc & 0xffff;
		len = loc >> 16;
		if (f->relative)
			off += (uint64_t)f->offset + f->size;
		if (off > raw_size || len > raw_size - off)
			return -EINVAL;
		src = raw + off;
	} else {
		src = raw + f->offset;
		len = f->size;
	}
	size_t n = 0;
	while (n < len && n + 1 < cap && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

#define TPDECODE_NUM(i) tpdecode_num(d, &e->f[i], r)
#define TPDECODE_STR(i, dst) \
	do { \
		int e_ = tpdecode_str(d, &e->f[i], r, raw_size, dst, sizeof(dst)); \
		if (e_ < 0) \
			return e_; \
	} while (0)

/*
 * Clear out for event e, keeping the sample fields the caller may have
 * filled already (time, CPU, PID, TID), and set its kind and the common
 * fields read from r.
 */
static void start_event(const struct tpdecode *d, const struct tpdecode_ev *e, const uint8_t *r,
			struct tpevent *out)
{
	uint64_t time_ns = out->time_ns;
	uint32_t cpu = out->cpu;
	int32_t pid = out->pid, tid = out->tid;
	memset(out, 0, sizeof(*out));
	out->time_ns = time_ns;
	out->cpu = cpu;
	out->pid = pid;
	out->tid = tid;
	out->kind = e->kind;
	out->common_flags = (uint8_t)tpdecode_num(d, &e->common_flags, r);
	out->common_preempt_count = (uint8_t)tpdecode_num(d, &e->common_pc, r);
}

/* The fields of the sched events; -ENOENT for a kind that is not one, or
 * -EINVAL when a comm's __data_loc points outside r[raw_size]. */
static int decode_sched(const struct tpdecode *d, const struct tpdecode_ev *e, const uint8_t *r,
			size_t raw_size, struct tpevent *out)
{
	switch (e->kind) {
	case TPEVENT_SCHED_SWITCH:
		TPDECODE_STR(0, out->sw.prev_comm);
		out->sw.prev_pid = (int32_t)TPDECODE_NUM(1);
		out->sw.prev_prio = (int32_t)TPDECODE_NUM(2);
		out->sw.prev_state = (int64_t)TPDECODE_NUM(3);
		TPDECODE_STR(4, out->sw.next_comm);
		out->sw.next_pid = (int32_t)TPDECODE_NUM(5);
		out->sw.next_prio = (int32_t)TPDECODE_NUM(6);
		break;
	case TPEVENT_SCHED_WAKING:
	case TPEVENT_SCHED_WAKEUP:
	case TPEVENT_SCHED_WAKEUP_NEW:
		TPDECODE_STR(0, out->wake.comm);
		out->wake.pid = (int32_t)TPDECODE_NUM(1);
		out->wake.prio = (int32_t)TPDECODE_NUM(2);
		out->wake.target_cpu = e->f[3].present ? (int32_t)TPDECODE_NUM(3) : -1;
		break;
	case TPEVENT_SCHED_MIGRATE:
		TPDECODE_STR(0, out->migrate.comm);
		out->migrate.pid = (int32_t)TPDECODE_NUM(1);
		out->migrate.prio = (int32_t)TPDECODE_NUM(2);
		out->migrate.orig_cpu = e->f[3].present ? (int32_t)TPDECODE_NUM(3) : -1;
		out->migrate.dest_cpu = (int32_t)TPDECODE_NUM(4);
		break;
	case TPEVENT_SCHED_PROCESS_EXIT:
		TPDECODE_STR(0, out->exit.comm);
		out->exit.pid = (int32_t)TPDECODE_NUM(1);
		out->exit.prio = (int32_t)TPDECODE_NUM(2);
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

int tpdecode_decode(const struct tpdecode *d, int event_id, const void *raw, size_t raw_size,
	       struct tpevent *out)
{
	const struct tpdecode_ev *e = tpdecode_find_ev(d, event_id);
	const uint8_t *r = raw;

	if (!e)
		return -ENOENT;
	if (!raw || raw_size < e->min_size)
		return -EINVAL;

	start_event(d, e, r, out);
	switch (e->kind) {
	case TPEVENT_IRQ_ENTRY:
		out->irq.irq = (int32_t)TPDECODE_NUM(0);
		TPDECODE_STR(1, out->irq.name);
		break;
	case TPEVENT_IRQ_EXIT:
		out->irq.irq = (int32_t)TPDECODE_NUM(0);
		out->irq.ret = (int32_t)TPDECODE_NUM(1);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
	case TPEVENT_SOFTIRQ_EXIT:
	case TPEVENT_SOFTIRQ_RAISE:
		out->softirq.vec = (uint32_t)TPDECODE_NUM(0);
		break;
	case TPEVENT_VECTOR_ENTRY:
	case TPEVENT_VECTOR_EXIT:
		out->vector.vector = (int32_t)TPDECODE_NUM(0);
		memcpy(out->vector.name, e->vec_name, sizeof(out->vector.name));
		break;
	case TPEVENT_NMI:
		out->nmi.handler = TPDECODE_NUM(0);
		out->nmi.delta_ns = (int64_t)TPDECODE_NUM(1);
		out->nmi.handled = (int32_t)TPDECODE_NUM(2);
		break;
	case TPEVENT_HRTIMER_START:
		out->hrtimer_start.hrtimer = TPDECODE_NUM(0);
		out->hrtimer_start.function = TPDECODE_NUM(1);
		out->hrtimer_start.expires_ns = (int64_t)TPDECODE_NUM(2);
		out->hrtimer_start.softexpires_ns =
			e->f[3].present ? (int64_t)TPDECODE_NUM(3) : out->hrtimer_start.expires_ns;
		out->hrtimer_start.mode = (uint32_t)TPDECODE_NUM(4);
		break;
	case TPEVENT_HRTIMER_CANCEL:
	case TPEVENT_HRTIMER_EXPIRE_EXIT:
		out->hrtimer.hrtimer = TPDECODE_NUM(0);
		break;
	case TPEVENT_HRTIMER_EXPIRE_ENTRY:
		out->hrtimer.hrtimer = TPDECODE_NUM(0);
		out->hrtimer.now_ns = (int64_t)TPDECODE_NUM(1);
		out->hrtimer.function = TPDECODE_NUM(2);
		break;
	case TPEVENT_IRQ_DISABLE:
	case TPEVENT_IRQ_ENABLE:
	case TPEVENT_PREEMPT_DISABLE:
	case TPEVENT_PREEMPT_ENABLE:
		out->preemptirq.caller_offs = TPDECODE_NUM(0);
		out->preemptirq.parent_offs = TPDECODE_NUM(1);
		break;
	case TPEVENT_OSNOISE_SAMPLE_THRESHOLD:
	case TPEVENT_OSNOISE_NMI:
	case TPEVENT_OSNOISE_IRQ:
	case TPEVENT_OSNOISE_SOFTIRQ:
	case TPEVENT_OSNOISE_THREAD:
		out->osnoise.start_ns = TPDECODE_NUM(0);
		out->osnoise.duration_ns = TPDECODE_NUM(1);
		if (e->kind == TPEVENT_OSNOISE_SAMPLE_THRESHOLD)
			out->osnoise.interference = TPDECODE_NUM(2);
		else
			out->osnoise.vector_or_pid = (int32_t)TPDECODE_NUM(2);
		TPDECODE_STR(3, out->osnoise.desc);
		break;
	case TPEVENT_CPU_IDLE:
		out->cpu_idle.state = (uint32_t)TPDECODE_NUM(0);
		out->cpu_idle.cpu_id = (uint32_t)TPDECODE_NUM(1);
		break;
	default:	/* the sched events, or a kind not decoded (-ENOENT) */
		return decode_sched(d, e, r, raw_size, out);
	}
	return 0;
}

int tpdecode_decode_sample(const struct tpdecode *d, const struct pdread_event *ev, struct tpevent *out,
		      struct tpdecode_losses *losses)
{
	memset(out, 0, sizeof(*out));
	if (ev->type != PDFORMAT_RECORD_SAMPLE || !ev->has_sample)
		return -EINVAL;
	if (!ev->evsel) {
		losses->unknown_evsel++;
		return -ENOENT;
	}
	if (ev->evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT) {
		losses->not_tracepoint++;
		return -ENOENT;
	}
	const struct pdread_sample *s = &ev->sample;
	if (!s->raw) {
		losses->no_raw++;
		return -ENODATA;
	}
	out->time_ns = s->time;
	out->cpu = s->cpu;
	out->pid = (int32_t)s->pid;
	out->tid = (int32_t)s->tid;
	int err = tpdecode_decode(d, (int)ev->evsel->attr.config, s->raw, s->raw_size, out);
	if (err == -ENOENT)
		losses->unknown++;
	else if (err)
		losses->bad_raw++;
	return err;
}
