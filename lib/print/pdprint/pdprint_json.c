/* SPDX-License-Identifier: MIT */
/*
 * pdprint_json.c - a sample as a JSON object, its tracepoint fields typed.
 */
#include <string.h>

#include <json-c/json.h>
#include <traceevent/event-parse.h>

#include "base/jsonnum.h"
#include "pdprint_int.h"

static struct json_object *field_json(struct tep_format_field *fl, const struct pdread_sample *s,
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
			json_object_array_add(a, jsonnum_u64(tep_read_number(tep, data + off + i, (int)esz)));
		return a;
	}
	if (len == 0 || len > 8)
		return NULL;
	unsigned long long v = tep_read_number(tep, data + off, (int)len);
	if (fl->flags & TEP_FIELD_IS_POINTER)
		return jsonnum_addr(v);
	if (fl->flags & TEP_FIELD_IS_SIGNED) {
		int64_t sv;
		switch (len) {
		case 1: sv = (int8_t)v; break;
		case 2: sv = (int16_t)v; break;
		case 4: sv = (int32_t)v; break;
		default: sv = (int64_t)v; break;
		}
		return jsonnum_i64(sv);
	}
	return jsonnum_u64(v);
}

struct json_object *pdprint_json(struct pdprint *p, const struct pdread_event *ev, const char *schema)
{
	const struct pdread_sample *s = &ev->sample;
	const struct pdread_evsel *e = ev->evsel;
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	if (schema)
		json_object_object_add(o, "schema", json_object_new_string(schema));
	json_object_object_add(o, "comm", json_object_new_string(thread_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid)));
	json_object_object_add(o, "pid", json_object_new_int((int32_t)s->pid));
	json_object_object_add(o, "tid", json_object_new_int((int32_t)s->tid));
	json_object_object_add(o, "cpu", json_object_new_int((int32_t)s->cpu));
	json_object_object_add(o, "time_ns", jsonnum_u64(s->time));
	json_object_object_add(o, "event", e && e->name ? json_object_new_string(e->name) : NULL);
	if (s->type & PDFORMAT_SAMPLE_PERIOD)
		json_object_object_add(o, "period", jsonnum_u64(s->period));
	if (s->type & PDFORMAT_SAMPLE_IP)
		json_object_object_add(o, "ip", jsonnum_addr(s->ip));
	if (e && e->tp && s->raw) {
		struct json_object *fo = json_object_new_object();
		struct tep_format_field *fl;
		for (fl = e->tp->format.fields; fl; fl = fl->next)
			json_object_object_add(fo, fl->name, field_json(fl, s, pdread_tep(p->r)));
		json_object_object_add(o, "fields", fo);
	}
	return o;
}
