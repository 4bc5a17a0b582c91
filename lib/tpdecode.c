/* SPDX-License-Identifier: MIT */
/*
 * tpdecode.c - turn raw tracepoint data into struct tpe.
 *
 * Prefix: tpd_ / tpe_.
 *
 * tpd_new() looks up every event the toolkit knows in the tep handle,
 * resolves the offset, size and kind of each field once, and keeps one small
 * descriptor per event in an array sorted by event id.  tpd_decode() then
 * reads the fields straight from the raw bytes with the file's byte order;
 * every read is checked against raw_size.  Fields that some kernels lack
 * (e.g. hrtimer_start.mode, sched_switch.prev_state) are optional: they
 * decode as 0 / "" when absent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "bytes.h"
#include "pdread.h"
#include "tpdecode_int.h"
#include "tpevent.h"

/* How a field is read. */
enum tpd_ftype {
	TPD_F_NUM,		/* integer of 1, 2, 4 or 8 bytes */
	TPD_F_STR,		/* fixed char array or __data_loc/__rel_loc string */
};

struct tpd_fspec {
	const char *name;
	enum tpd_ftype type;
	bool optional;
};

/* Field lists per kind: slot i of an event descriptor is spec field i. */
struct tpd_kspec {
	enum tpe_kind kind;
	const char *system;
	const char *event;		/* NULL: matched by suffix (irq_vectors) */
	struct tpd_fspec f[TPD_MAX_FIELDS];
};

#define N(n) { n, TPD_F_NUM, false }
#define NO(n) { n, TPD_F_NUM, true }
#define S(n) { n, TPD_F_STR, false }
#define SO(n) { n, TPD_F_STR, true }

static const struct tpd_kspec tpd_specs[] = {
	{ TPE_SCHED_SWITCH, "sched", "sched_switch",
	  { SO("prev_comm"), N("prev_pid"), N("prev_prio"), NO("prev_state"),
	    SO("next_comm"), N("next_pid"), N("next_prio") } },
	{ TPE_SCHED_WAKING, "sched", "sched_waking",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPE_SCHED_WAKEUP, "sched", "sched_wakeup",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPE_SCHED_WAKEUP_NEW, "sched", "sched_wakeup_new",
	  { SO("comm"), N("pid"), N("prio"), NO("target_cpu") } },
	{ TPE_SCHED_MIGRATE, "sched", "sched_migrate_task",
	  { SO("comm"), N("pid"), NO("prio"), NO("orig_cpu"), N("dest_cpu") } },
	{ TPE_SCHED_PROCESS_EXIT, "sched", "sched_process_exit",
	  { SO("comm"), N("pid"), NO("prio") } },
	{ TPE_IRQ_ENTRY, "irq", "irq_handler_entry", { N("irq"), SO("name") } },
	{ TPE_IRQ_EXIT, "irq", "irq_handler_exit", { N("irq"), NO("ret") } },
	{ TPE_SOFTIRQ_ENTRY, "irq", "softirq_entry", { N("vec") } },
	{ TPE_SOFTIRQ_EXIT, "irq", "softirq_exit", { N("vec") } },
	{ TPE_SOFTIRQ_RAISE, "irq", "softirq_raise", { N("vec") } },
	{ TPE_NMI, "nmi", "nmi_handler", { NO("handler"), N("delta_ns"), NO("handled") } },
	{ TPE_HRTIMER_START, "timer", "hrtimer_start",
	  { N("hrtimer"), NO("function"), N("expires"), NO("softexpires"), NO("mode") } },
	{ TPE_HRTIMER_CANCEL, "timer", "hrtimer_cancel", { N("hrtimer") } },
	{ TPE_HRTIMER_EXPIRE_ENTRY, "timer", "hrtimer_expire_entry",
	  { N("hrtimer"), N("now"), NO("function") } },
	{ TPE_HRTIMER_EXPIRE_EXIT, "timer", "hrtimer_expire_exit", { N("hrtimer") } },
	{ TPE_IRQ_DISABLE, "preemptirq", "irq_disable", { NO("caller_offs"), NO("parent_offs") } },
	{ TPE_IRQ_ENABLE, "preemptirq", "irq_enable", { NO("caller_offs"), NO("parent_offs") } },
	{ TPE_PREEMPT_DISABLE, "preemptirq", "preempt_disable",
	  { NO("caller_offs"), NO("parent_offs") } },
	{ TPE_PREEMPT_ENABLE, "preemptirq", "preempt_enable",
	  { NO("caller_offs"), NO("parent_offs") } },
	{ TPE_OSNOISE_SAMPLE_THRESHOLD, "osnoise", "sample_threshold",
	  { N("start"), N("duration"), NO("interference") } },
	{ TPE_OSNOISE_NMI, "osnoise", "nmi_noise", { N("start"), N("duration") } },
	{ TPE_OSNOISE_IRQ, "osnoise", "irq_noise",
	  { N("start"), N("duration"), NO("vector"), SO("desc") } },
	{ TPE_OSNOISE_SOFTIRQ, "osnoise", "softirq_noise",
	  { N("start"), N("duration"), NO("vector") } },
	{ TPE_OSNOISE_THREAD, "osnoise", "thread_noise",
	  { N("start"), N("duration"), NO("pid"), SO("comm") } },
};

#undef N
#undef NO
#undef S
#undef SO

/* A vector entry/exit spec (matched by suffix in system irq_vectors). */
static const struct tpd_kspec tpd_vec_entry = {
	TPE_VECTOR_ENTRY, "irq_vectors", NULL, { { "vector", TPD_F_NUM, false } }
};
static const struct tpd_kspec tpd_vec_exit = {
	TPE_VECTOR_EXIT, "irq_vectors", NULL, { { "vector", TPD_F_NUM, false } }
};

static const char *const tpe_names[TPE_NR_KINDS] = {
	[TPE_UNKNOWN] = "unknown",
	[TPE_SCHED_SWITCH] = "sched:sched_switch",
	[TPE_SCHED_WAKING] = "sched:sched_waking",
	[TPE_SCHED_WAKEUP] = "sched:sched_wakeup",
	[TPE_SCHED_WAKEUP_NEW] = "sched:sched_wakeup_new",
	[TPE_SCHED_MIGRATE] = "sched:sched_migrate_task",
	[TPE_SCHED_PROCESS_EXIT] = "sched:sched_process_exit",
	[TPE_IRQ_ENTRY] = "irq:irq_handler_entry",
	[TPE_IRQ_EXIT] = "irq:irq_handler_exit",
	[TPE_SOFTIRQ_ENTRY] = "irq:softirq_entry",
	[TPE_SOFTIRQ_EXIT] = "irq:softirq_exit",
	[TPE_SOFTIRQ_RAISE] = "irq:softirq_raise",
	[TPE_VECTOR_ENTRY] = "irq_vectors:*_entry",
	[TPE_VECTOR_EXIT] = "irq_vectors:*_exit",
	[TPE_NMI] = "nmi:nmi_handler",
	[TPE_HRTIMER_START] = "timer:hrtimer_start",
	[TPE_HRTIMER_CANCEL] = "timer:hrtimer_cancel",
	[TPE_HRTIMER_EXPIRE_ENTRY] = "timer:hrtimer_expire_entry",
	[TPE_HRTIMER_EXPIRE_EXIT] = "timer:hrtimer_expire_exit",
	[TPE_IRQ_DISABLE] = "preemptirq:irq_disable",
	[TPE_IRQ_ENABLE] = "preemptirq:irq_enable",
	[TPE_PREEMPT_DISABLE] = "preemptirq:preempt_disable",
	[TPE_PREEMPT_ENABLE] = "preemptirq:preempt_enable",
	[TPE_OSNOISE_SAMPLE_THRESHOLD] = "osnoise:sample_threshold",
	[TPE_OSNOISE_NMI] = "osnoise:nmi_noise",
	[TPE_OSNOISE_IRQ] = "osnoise:irq_noise",
	[TPE_OSNOISE_SOFTIRQ] = "osnoise:softirq_noise",
	[TPE_OSNOISE_THREAD] = "osnoise:thread_noise",
};

const char *tpe_kind_name(enum tpe_kind k)
{
	if ((unsigned int)k >= TPE_NR_KINDS || !tpe_names[k])
		return "unknown";
	return tpe_names[k];
}

/* Resolve one field; false when it is absent or has a layout we cannot read. */
static bool tpd_resolve(struct tep_format_field *tf, enum tpd_ftype type, struct tpd_field *out)
{
	memset(out, 0, sizeof(*out));
	if (!tf || tf->offset < 0 || tf->size <= 0)
		return false;
	out->offset = (uint32_t)tf->offset;
	out->size = (uint32_t)tf->size;
	out->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	if (type == TPD_F_NUM) {
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
static bool tpd_build(struct tep_event *e, const struct tpd_kspec *ks, struct tpd_ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->id = e->id;
	ev->kind = ks->kind;
	tpd_resolve(tep_find_common_field(e, "common_flags"), TPD_F_NUM, &ev->common_flags);
	tpd_resolve(tep_find_common_field(e, "common_preempt_count"), TPD_F_NUM, &ev->common_pc);
	if (ev->common_flags.present && ev->common_flags.size != 1)
		ev->common_flags.present = false;
	if (ev->common_pc.present && ev->common_pc.size != 1)
		ev->common_pc.present = false;
	tpd_resolve(tep_find_common_field(e, "common_type"), TPD_F_NUM, &ev->common_type);
	tpd_resolve(tep_find_common_field(e, "common_pid"), TPD_F_NUM, &ev->common_pid);
	for (int pass = 0; pass < 2; pass++) {
		struct tep_format_field *tf = pass ? e->format.fields : e->format.common_fields;
		for (; tf; tf = tf->next) {
			uint64_t end = (uint64_t)(int64_t)tf->offset + (uint64_t)(int64_t)tf->size;
			if (tf->offset >= 0 && tf->size > 0 && end <= UINT32_MAX && end > ev->rec_size)
				ev->rec_size = (uint32_t)end;
		}
	}

	for (size_t i = 0; i < TPD_MAX_FIELDS && ks->f[i].name; i++) {
		const struct tpd_fspec *fs = &ks->f[i];
		if (!tpd_resolve(tep_find_field(e, fs->name), fs->type, &ev->f[i]) && !fs->optional)
			return false;
	}
	struct tpd_field *all[TPD_MAX_FIELDS + 2];
	size_t n = 0;
	all[n++] = &ev->common_flags;
	all[n++] = &ev->common_pc;
	for (size_t i = 0; i < TPD_MAX_FIELDS; i++)
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

static int tpd_cmp(const void *a, const void *b)
{
	const struct tpd_ev *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int tpd_add(struct tpd *d, const struct tpd_ev *ev)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->ev[i].id == ev->id)
			return 0;	/* same id twice: keep the first */
	if (d->nr == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 32;
		struct tpd_ev *n = realloc(d->ev, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->ev = n;
		d->cap = ncap;
	}
	d->ev[d->nr++] = *ev;
	return 0;
}

static bool tpd_suffix(const char *s, const char *suf, size_t *stem)
{
	size_t ls = strlen(s), lf = strlen(suf);
	if (ls <= lf || strcmp(s + ls - lf, suf) != 0)
		return false;
	*stem = ls - lf;
	return true;
}

struct tpd *tpd_new(struct tep_handle *tep)
{
	struct tpd *d = calloc(1, sizeof(*d));
	struct tpd_ev ev;

	if (!d)
		return NULL;
	if (!tep)
		return d;	/* decodes nothing */
	d->swap = tep_is_file_bigendian(tep) != (bool)BY_HOST_BIG_ENDIAN;

	for (size_t i = 0; i < sizeof(tpd_specs) / sizeof(tpd_specs[0]); i++) {
		const struct tpd_kspec *ks = &tpd_specs[i];
		struct tep_event *e = tep_find_event_by_name(tep, ks->system, ks->event);
		if (e && tpd_build(e, ks, &ev) && tpd_add(d, &ev) < 0)
			goto fail;
	}

	int nr = tep_get_events_count(tep);
	for (int i = 0; i < nr; i++) {
		struct tep_event *e = tep_get_event(tep, i);
		const struct tpd_kspec *ks;
		size_t stem;

		if (!e || !e->system || !e->name || strcmp(e->system, "irq_vectors") != 0)
			continue;
		if (tpd_suffix(e->name, "_entry", &stem))
			ks = &tpd_vec_entry;
		else if (tpd_suffix(e->name, "_exit", &stem))
			ks = &tpd_vec_exit;
		else
			continue;
		if (!tpd_build(e, ks, &ev))
			continue;
		if (stem >= sizeof(ev.vec_name))
			stem = sizeof(ev.vec_name) - 1;
		memcpy(ev.vec_name, e->name, stem);
		ev.vec_name[stem] = '\0';
		if (tpd_add(d, &ev) < 0)
			goto fail;
	}
	if (d->nr)
		qsort(d->ev, d->nr, sizeof(*d->ev), tpd_cmp);
	return d;
fail:
	tpd_free(d);
	return NULL;
}

void tpd_free(struct tpd *d)
{
	if (!d)
		return;
	free(d->ev);
	free(d);
}

const struct tpd_ev *tpd_find_ev(const struct tpd *d, int id)
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

enum tpe_kind tpd_kind(const struct tpd *d, int event_id)
{
	const struct tpd_ev *e = tpd_find_ev(d, event_id);
	return e ? e->kind : TPE_UNKNOWN;
}

/* Integer field (bounds already checked through min_size); 0 when absent. */
static uint64_t tpd_num(const struct tpd *d, const struct tpd_field *f, const uint8_t *raw)
{
	const uint8_t *p = raw + f->offset;
	if (!f->present)
		return 0;
	switch (f->size) {
	case 1:
		return f->is_signed ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2: {
		uint16_t v = by_ld16(p, d->swap);
		return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v = by_ld32(p, d->swap);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default:
		return by_ld64(p, d->swap);
	}
}

/* String field into dst[cap]; -EINVAL when a __data_loc points outside raw. */
static int tpd_str(const struct tpd *d, const struct tpd_field *f, const uint8_t *raw,
		   size_t raw_size, char *dst, size_t cap)
{
	const uint8_t *src;
	size_t len;

	dst[0] = '\0';
	if (!f->present)
		return 0;
	if (f->dynamic) {
		uint32_t loc = by_ld32(raw + f->offset, d->swap);
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

#define TPD_NUM(i) tpd_num(d, &e->f[i], r)
#define TPD_STR(i, dst) \
	do { \
		int e_ = tpd_str(d, &e->f[i], r, raw_size, dst, sizeof(dst)); \
		if (e_ < 0) \
			return e_; \
	} while (0)

int tpd_decode(const struct tpd *d, int event_id, const void *raw, size_t raw_size,
	       struct tpe *out)
{
	const struct tpd_ev *e = tpd_find_ev(d, event_id);
	const uint8_t *r = raw;

	if (!e)
		return -ENOENT;
	if (!raw || raw_size < e->min_size)
		return -EINVAL;

	/* keep the sample fields the caller may have filled already */
	uint64_t time_ns = out->time_ns;
	uint32_t cpu = out->cpu;
	int32_t pid = out->pid, tid = out->tid;
	memset(out, 0, sizeof(*out));
	out->time_ns = time_ns;
	out->cpu = cpu;
	out->pid = pid;
	out->tid = tid;
	out->kind = e->kind;
	out->common_flags = (uint8_t)tpd_num(d, &e->common_flags, r);
	out->common_preempt_count = (uint8_t)tpd_num(d, &e->common_pc, r);

	switch (e->kind) {
	case TPE_SCHED_SWITCH:
		TPD_STR(0, out->sw.prev_comm);
		out->sw.prev_pid = (int32_t)TPD_NUM(1);
		out->sw.prev_prio = (int32_t)TPD_NUM(2);
		out->sw.prev_state = (int64_t)TPD_NUM(3);
		TPD_STR(4, out->sw.next_comm);
		out->sw.next_pid = (int32_t)TPD_NUM(5);
		out->sw.next_prio = (int32_t)TPD_NUM(6);
		break;
	case TPE_SCHED_WAKING:
	case TPE_SCHED_WAKEUP:
	case TPE_SCHED_WAKEUP_NEW:
		TPD_STR(0, out->wake.comm);
		out->wake.pid = (int32_t)TPD_NUM(1);
		out->wake.prio = (int32_t)TPD_NUM(2);
		out->wake.target_cpu = e->f[3].present ? (int32_t)TPD_NUM(3) : -1;
		break;
	case TPE_SCHED_MIGRATE:
		TPD_STR(0, out->migrate.comm);
		out->migrate.pid = (int32_t)TPD_NUM(1);
		out->migrate.prio = (int32_t)TPD_NUM(2);
		out->migrate.orig_cpu = e->f[3].present ? (int32_t)TPD_NUM(3) : -1;
		out->migrate.dest_cpu = (int32_t)TPD_NUM(4);
		break;
	case TPE_SCHED_PROCESS_EXIT:
		TPD_STR(0, out->exit.comm);
		out->exit.pid = (int32_t)TPD_NUM(1);
		out->exit.prio = (int32_t)TPD_NUM(2);
		break;
	case TPE_IRQ_ENTRY:
		out->irq.irq = (int32_t)TPD_NUM(0);
		TPD_STR(1, out->irq.name);
		break;
	case TPE_IRQ_EXIT:
		out->irq.irq = (int32_t)TPD_NUM(0);
		out->irq.ret = (int32_t)TPD_NUM(1);
		break;
	case TPE_SOFTIRQ_ENTRY:
	case TPE_SOFTIRQ_EXIT:
	case TPE_SOFTIRQ_RAISE:
		out->softirq.vec = (uint32_t)TPD_NUM(0);
		break;
	case TPE_VECTOR_ENTRY:
	case TPE_VECTOR_EXIT:
		out->vector.vector = (int32_t)TPD_NUM(0);
		memcpy(out->vector.name, e->vec_name, sizeof(out->vector.name));
		break;
	case TPE_NMI:
		out->nmi.handler = TPD_NUM(0);
		out->nmi.delta_ns = (int64_t)TPD_NUM(1);
		out->nmi.handled = (int32_t)TPD_NUM(2);
		break;
	case TPE_HRTIMER_START:
		out->hrtimer_start.hrtimer = TPD_NUM(0);
		out->hrtimer_start.function = TPD_NUM(1);
		out->hrtimer_start.expires_ns = (int64_t)TPD_NUM(2);
		out->hrtimer_start.softexpires_ns =
			e->f[3].present ? (int64_t)TPD_NUM(3) : out->hrtimer_start.expires_ns;
		out->hrtimer_start.mode = (uint32_t)TPD_NUM(4);
		break;
	case TPE_HRTIMER_CANCEL:
	case TPE_HRTIMER_EXPIRE_EXIT:
		out->hrtimer.hrtimer = TPD_NUM(0);
		break;
	case TPE_HRTIMER_EXPIRE_ENTRY:
		out->hrtimer.hrtimer = TPD_NUM(0);
		out->hrtimer.now_ns = (int64_t)TPD_NUM(1);
		out->hrtimer.function = TPD_NUM(2);
		break;
	case TPE_IRQ_DISABLE:
	case TPE_IRQ_ENABLE:
	case TPE_PREEMPT_DISABLE:
	case TPE_PREEMPT_ENABLE:
		out->preemptirq.caller_offs = TPD_NUM(0);
		out->preemptirq.parent_offs = TPD_NUM(1);
		break;
	case TPE_OSNOISE_SAMPLE_THRESHOLD:
	case TPE_OSNOISE_NMI:
	case TPE_OSNOISE_IRQ:
	case TPE_OSNOISE_SOFTIRQ:
	case TPE_OSNOISE_THREAD:
		out->osnoise.start_ns = TPD_NUM(0);
		out->osnoise.duration_ns = TPD_NUM(1);
		if (e->kind == TPE_OSNOISE_SAMPLE_THRESHOLD)
			out->osnoise.interference = TPD_NUM(2);
		else
			out->osnoise.vector_or_pid = (int32_t)TPD_NUM(2);
		TPD_STR(3, out->osnoise.desc);
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

int tpd_decode_sample(const struct tpd *d, const struct pdr_event *ev, struct tpe *out,
		      struct tpd_losses *losses)
{
	memset(out, 0, sizeof(*out));
	if (ev->type != PDF_RECORD_SAMPLE || !ev->has_sample)
		return -EINVAL;
	if (!ev->evsel) {
		losses->unknown_evsel++;
		return -ENOENT;
	}
	if (ev->evsel->attr.type != PDF_TYPE_TRACEPOINT) {
		losses->not_tracepoint++;
		return -ENOENT;
	}
	const struct pdr_sample *s = &ev->sample;
	if (!s->raw) {
		losses->no_raw++;
		return -ENODATA;
	}
	out->time_ns = s->time;
	out->cpu = s->cpu;
	out->pid = (int32_t)s->pid;
	out->tid = (int32_t)s->tid;
	int err = tpd_decode(d, (int)ev->evsel->attr.config, s->raw, s->raw_size, out);
	if (err == -ENOENT)
		losses->unknown++;
	else if (err)
		losses->bad_raw++;
	return err;
}
