/* SPDX-License-Identifier: MIT */
/* firedout.c - fired against delivered, shown (see firedout.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonnum.h"
#include "firedout.h"
#include "format/pdread.h"

void firedout_names(struct firedtab *t, const struct pdread *r)
{
	for (size_t i = 0; i < t->nr_ev; i++) {
		if (t->ev[i].name[0])
			continue;
		for (size_t k = 0; k < pdread_nr_evsels(r); k++) {
			const struct pdread_evsel *e = pdread_evsel(r, k);
			if (e->attr.type == PDFORMAT_TYPE_TRACEPOINT && e->attr.config == t->ev[i].config &&
			    e->name) {
				snprintf(t->ev[i].name, sizeof(t->ev[i].name), "%s", e->name);
				break;
			}
		}
		if (!t->ev[i].name[0])
			snprintf(t->ev[i].name, sizeof(t->ev[i].name), "tracepoint %" PRIu64, t->ev[i].config);
	}
}

int firedout_copy(struct firedtab *dst, const struct firedtab *src)
{
	int err = firedtab_alloc(dst, src->nr_cpu, src->nr_ev);
	if (err)
		return err;
	if (src->nr_cpu)
		memcpy(dst->cpu, src->cpu, src->nr_cpu * sizeof(*src->cpu));
	if (src->nr_ev)
		memcpy(dst->ev, src->ev, src->nr_ev * sizeof(*src->ev));
	dst->counted = src->counted;
	memcpy(dst->note, src->note, sizeof(dst->note));
	dst->throttles = src->throttles;
	dst->unthrottles = src->unthrottles;
	return 0;
}

#define ADD(...) do { if (u < len) u += (size_t)snprintf(buf + u, len - u, __VA_ARGS__); } while (0)

bool firedout_warning(const struct firedtab *t, char *buf, size_t len)
{
	size_t u = 0;
	uint64_t und = firedtab_undelivered(t);

	buf[0] = 0;
	if (und) {
		ADD("the kernel fired %" PRIu64 " samples it never delivered, with no LOST record:", und);
		bool first = true;
		for (size_t c = 0; c < t->nr_cpu; c++) {
			const struct firedtab_cpu *fc = &t->cpu[c];
			if (!fc->undelivered)
				continue;
			ADD("%s CPU%" PRIu32 " %" PRIu64 " of %" PRIu64, first ? "" : ",", fc->cpu,
			    fc->undelivered, fc->fired);
			first = false;
			bool open = false;
			for (size_t i = 0; i < t->nr_ev; i++) {
				const struct firedtab_event *e = &t->ev[i];
				if (e->cpu != fc->cpu || e->fired <= e->delivered)
					continue;
				ADD("%s%s %" PRIu64 " of %" PRIu64, open ? ", " : " (", e->name,
				    e->fired - e->delivered, e->fired);
				open = true;
			}
			if (open)
				ADD(")");
		}
	}
	if (t->throttles)
		ADD("%sthe kernel throttled sampling %" PRIu64 " times (perf_event_max_sample_rate): "
		    "the samples it did not take have no record", u ? "; " : "", t->throttles);
	if (u >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return u > 0;
}

void firedout_text(const struct firedtab *t, FILE *f)
{
	if (!t->counted) {
		fprintf(f, "fired: not counted (%s)\n", t->note[0] ? t->note : "no counting events");
		return;
	}
	uint64_t samples = 0, lost = 0;
	for (size_t c = 0; c < t->nr_cpu; c++) {
		samples += t->cpu[c].samples;
		lost += t->cpu[c].lost;
	}
	fprintf(f, "fired: %" PRIu64 " events on the traced CPUs, %" PRIu64 " delivered as samples, %" PRIu64
		   " lost in the rings, %" PRIu64 " never delivered; %" PRIu64 " throttles\n",
		firedtab_fired(t), samples, lost, firedtab_undelivered(t), t->throttles);
}

struct json_object *firedout_json(const struct firedtab *t)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "counted", json_object_new_boolean(t->counted));
	if (!t->counted) {
		json_object_object_add(o, "why", json_object_new_string(t->note[0] ? t->note : "no counting events"));
		return o;
	}
	json_object_object_add(o, "fired", jsonnum_u64(firedtab_fired(t)));
	json_object_object_add(o, "undelivered", jsonnum_u64(firedtab_undelivered(t)));
	json_object_object_add(o, "throttles", jsonnum_u64(t->throttles));
	json_object_object_add(o, "unthrottles", jsonnum_u64(t->unthrottles));
	struct json_object *a = json_object_new_array();
	for (size_t c = 0; a && c < t->nr_cpu; c++) {
		const struct firedtab_cpu *fc = &t->cpu[c];
		struct json_object *e = json_object_new_object();
		if (!e)
			break;
		json_object_object_add(e, "cpu", json_object_new_int((int)fc->cpu));
		json_object_object_add(e, "fired", jsonnum_u64(fc->fired));
		json_object_object_add(e, "samples", jsonnum_u64(fc->samples));
		json_object_object_add(e, "lost", jsonnum_u64(fc->lost));
		json_object_object_add(e, "undelivered", jsonnum_u64(fc->undelivered));
		struct json_object *ev = json_object_new_array();
		for (size_t i = 0; ev && i < t->nr_ev; i++) {
			const struct firedtab_event *x = &t->ev[i];
			if (x->cpu != fc->cpu || !x->fired)
				continue;
			struct json_object *y = json_object_new_object();
			if (!y)
				break;
			json_object_object_add(y, "event", json_object_new_string(x->name));
			json_object_object_add(y, "fired", jsonnum_u64(x->fired));
			json_object_object_add(y, "delivered", jsonnum_u64(x->delivered));
			json_object_array_add(ev, y);
		}
		json_object_object_add(e, "events", ev);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "cpus", a);
	return o;
}
