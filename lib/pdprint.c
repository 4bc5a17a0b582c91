/* SPDX-License-Identifier: MIT */
#include "pdprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "bytes.h"
#include "thread.h"

struct pp {
	struct pdr *r;
	struct pp_opts o;
	struct thr_table *thr;
	struct trace_seq seq;
	int name_width;		/* computed lazily: pipe mode adds evsels late */
	size_t name_width_evsels;
};

struct pp *pp_new(struct pdr *r, const struct pp_opts *opts)
{
	struct pp *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	if (opts)
		p->o = *opts;
	if (!p->o.fields)
		p->o.fields = PP_F_DEFAULT;
	p->thr = thr_new();
	if (!p->thr) {
		free(p);
		return NULL;
	}
	trace_seq_init(&p->seq);
	return p;
}

void pp_free(struct pp *p)
{
	if (!p)
		return;
	thr_free(p->thr);
	trace_seq_destroy(&p->seq);
	free(p);
}

static const struct {
	const char *name;
	uint32_t bit;
} field_names[] = {
	{ "comm", PP_F_COMM }, { "tid", PP_F_TID }, { "pid", PP_F_PID }, { "cpu", PP_F_CPU },
	{ "time", PP_F_TIME }, { "event", PP_F_EVNAME }, { "trace", PP_F_TRACE }, { "ip", PP_F_IP },
	{ "period", PP_F_PERIOD }, { "addr", PP_F_ADDR },
};

int pp_parse_fields(const char *list, uint32_t *fields)
{
	uint32_t f = 0;
	const char *s = list;
	bool add = false;
	if (*s == '+') {	/* "+field" adds to the default set */
		add = true;
		f = PP_F_DEFAULT;
		s++;
	}
	while (*s) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		bool found = false;
		for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
			if (strlen(field_names[i].name) == l && !strncmp(s, field_names[i].name, l)) {
				f |= field_names[i].bit;
				found = true;
			}
		}
		if (!found)
			return -EINVAL;
		if (!e)
			break;
		s = e + 1;
	}
	(void)add;
	if (!f)
		return -EINVAL;
	*fields = f;
	return 0;
}

void pp_track(struct pp *p, const struct pdr_event *ev)
{
	bool swap = pdr_needs_swap(p->r);
	if (ev->type == PDF_RECORD_COMM && ev->size >= 16) {
		int32_t pid = (int32_t)by_ld32(ev->data + 8, swap);
		int32_t tid = (int32_t)by_ld32(ev->data + 12, swap);
		char comm[THR_COMM_LEN];
		size_t maxl = ev->size - 16u;
		size_t l = strnlen((const char *)ev->data + 16, maxl < sizeof(comm) - 1 ? maxl : sizeof(comm) - 1);
		memcpy(comm, ev->data + 16, l);
		comm[l] = '\0';
		thr_set_comm(p->thr, pid, tid, comm);
	} else if (ev->type == PDF_RECORD_FORK && ev->size >= 24) {
		int32_t pid = (int32_t)by_ld32(ev->data + 8, swap);
		int32_t ppid = (int32_t)by_ld32(ev->data + 12, swap);
		int32_t tid = (int32_t)by_ld32(ev->data + 16, swap);
		int32_t ptid = (int32_t)by_ld32(ev->data + 20, swap);
		thr_fork(p->thr, ppid, ptid, pid, tid);
	}
}

const char *pp_comm(struct pp *p, int32_t pid, int32_t tid)
{
	return thr_comm(p->thr, pid, tid);
}

int pp_name_width(struct pp *p)
{
	size_t n = pdr_nr_evsels(p->r);
	if (n != p->name_width_evsels) {
		int w = 0;
		for (size_t i = 0; i < n; i++) {
			const struct pdr_evsel *e = pdr_evsel(p->r, i);
			int l = e->name ? (int)strlen(e->name) : 9;
			if (l > w)
				w = l;
		}
		p->name_width = w;
		p->name_width_evsels = n;
	}
	return p->name_width;
}

/* Bounded appender: keeps counting past the end so callers learn the size. */
struct out {
	char *buf;
	size_t len, pos;
};

static void out_write(struct out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;
		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		out_write(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_write(o, big, (size_t)n);
	free(big);
}

static size_t out_done(struct out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
	return o->pos;
}

static void prefix(struct pp *p, struct out *o, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
		   uint64_t t, const char *evname)
{
	uint32_t f = p->o.fields;
	if (f & PP_F_COMM)
		out_printf(o, "%16s ", comm);
	if ((f & PP_F_PID) && (f & PP_F_TID))
		out_printf(o, "%5d/%-5d ", pid, tid);
	else if (f & PP_F_PID)
		out_printf(o, "%5d ", pid);
	else if (f & PP_F_TID)
		out_printf(o, "%5d ", tid);
	if (f & PP_F_CPU)
		out_printf(o, "[%03d] ", cpu);
	if (f & PP_F_TIME) {
		unsigned long long sec = t / 1000000000ULL, nsec = t % 1000000000ULL;
		if (p->o.ns)
			out_printf(o, "%5llu.%09llu: ", sec, nsec);
		else {
			char ts[48];
			snprintf(ts, sizeof(ts), "%llu.%06llu", sec, nsec / 1000ULL);
			out_printf(o, "%12s: ", ts);
		}
	}
	if (f & PP_F_EVNAME)
		out_printf(o, "%*s: ", pp_name_width(p), evname ? evname : "[unknown]");
}

size_t pp_format_prefix(struct pp *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	prefix(p, &o, comm, pid, tid, cpu, time_ns, evname);
	return out_done(&o);
}

size_t pp_format(struct pp *p, const struct pdr_event *ev, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	const struct pdr_sample *s = &ev->sample;
	const struct pdr_evsel *e = ev->evsel;
	const char *comm = thr_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid);
	prefix(p, &o, comm, (int32_t)s->pid, (int32_t)s->tid, (int32_t)s->cpu, s->time, e ? e->name : NULL);
	uint32_t f = p->o.fields;
	if (f & PP_F_PERIOD)
		out_printf(&o, "%10llu ", (unsigned long long)s->period);
	if (f & PP_F_ADDR)
		out_printf(&o, "%16llx ", (unsigned long long)s->addr);
	if ((f & PP_F_TRACE) && e && e->tp && s->raw) {
		struct tep_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.ts = s->time;
		rec.cpu = (int)s->cpu;
		rec.size = (int)s->raw_size;
		rec.data = (void *)s->raw;
		trace_seq_reset(&p->seq);
		tep_print_event(pdr_tep(p->r), &p->seq, &rec, "%s", TEP_PRINT_INFO);
		out_write(&o, p->seq.buffer, p->seq.len);
	}
	if (f & PP_F_IP)
		out_printf(&o, "%s%16llx", (f & PP_F_TRACE) ? " " : "", (unsigned long long)s->ip);
	out_write(&o, "\n", 1);
	return out_done(&o);
}

static struct json_object *field_json(struct tep_format_field *fl, const struct pdr_sample *s,
				      struct tep_handle *tep)
{
	const uint8_t *data = s->raw;
	uint32_t size = s->raw_size;
	unsigned off = (unsigned)fl->offset, len = (unsigned)fl->size;
	if (fl->flags & TEP_FIELD_IS_DYNAMIC) {
		if (off + (unsigned)fl->size > size || fl->size < 4)
			return NULL;
		unsigned long long v = tep_read_number(tep, data + off, 4);
		if (fl->flags & TEP_FIELD_IS_RELATIVE)
			off = off + 4 + (unsigned)(v & 0xffff);
		else
			off = (unsigned)(v & 0xffff);
		len = (unsigned)(v >> 16);
	}
	if ((uint64_t)off + len > size)
		return NULL;
	if (fl->flags & TEP_FIELD_IS_STRING) {
		size_t l = strnlen((const char *)data + off, len);
		return json_object_new_string_len((const char *)data + off, (int)l);
	}
	if (fl->flags & TEP_FIELD_IS_ARRAY) {
		struct json_object *a = json_object_new_array();
		unsigned esz = fl->elementsize ? (unsigned)fl->elementsize : 1;
		if (esz > 8)
			esz = 1;
		for (unsigned i = 0; i + esz <= len; i += esz)
			json_object_array_add(a, json_object_new_int64((int64_t)tep_read_number(tep, data + off + i, (int)esz)));
		return a;
	}
	if (len == 0 || len > 8)
		return NULL;
	unsigned long long v = tep_read_number(tep, data + off, (int)len);
	if (fl->flags & TEP_FIELD_IS_SIGNED) {
		int64_t sv;
		switch (len) {
		case 1: sv = (int8_t)v; break;
		case 2: sv = (int16_t)v; break;
		case 4: sv = (int32_t)v; break;
		default: sv = (int64_t)v; break;
		}
		return json_object_new_int64(sv);
	}
	if (v > INT64_MAX)
		return json_object_new_uint64(v);
	return json_object_new_int64((int64_t)v);
}

struct json_object *pp_json(struct pp *p, const struct pdr_event *ev)
{
	const struct pdr_sample *s = &ev->sample;
	const struct pdr_evsel *e = ev->evsel;
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "comm", json_object_new_string(thr_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid)));
	json_object_object_add(o, "pid", json_object_new_int((int32_t)s->pid));
	json_object_object_add(o, "tid", json_object_new_int((int32_t)s->tid));
	json_object_object_add(o, "cpu", json_object_new_int((int32_t)s->cpu));
	json_object_object_add(o, "time_ns", json_object_new_uint64(s->time));
	json_object_object_add(o, "event", e && e->name ? json_object_new_string(e->name) : NULL);
	if (s->type & PDF_SAMPLE_PERIOD)
		json_object_object_add(o, "period", json_object_new_uint64(s->period));
	if (s->type & PDF_SAMPLE_IP)
		json_object_object_add(o, "ip", json_object_new_uint64(s->ip));
	if (e && e->tp && s->raw) {
		struct json_object *fo = json_object_new_object();
		struct tep_format_field *fl;
		for (fl = e->tp->format.fields; fl; fl = fl->next)
			json_object_object_add(fo, fl->name, field_json(fl, s, pdr_tep(p->r)));
		json_object_object_add(o, "fields", fo);
	}
	return o;
}
