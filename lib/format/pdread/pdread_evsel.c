/* SPDX-License-Identifier: MIT */
/*
 * pdread_evsel.c - the perf.data reader's evsels: attrs, the id map, the evsel of a
 * record, tracepoint formats bound to evsels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "pdread_int.h"

/* ---------------------------------------------------------------- evsels */

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int idmap_put(struct pdread *r, uint64_t id, int evsel)
{
	if ((r->idmap_used + 1) * 2 > r->idmap_cap) {
		size_t ncap = r->idmap_cap ? r->idmap_cap * 2 : 64;
		struct idmap_slot *n = malloc(ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < ncap; i++)
			n[i].evsel = -1;
		for (size_t i = 0; i < r->idmap_cap; i++) {
			if (r->idmap[i].evsel < 0)
				continue;
			size_t h = hash64(r->idmap[i].id) & (ncap - 1);
			while (n[h].evsel >= 0)
				h = (h + 1) & (ncap - 1);
			n[h] = r->idmap[i];
		}
		free(r->idmap);
		r->idmap = n;
		r->idmap_cap = ncap;
	}
	for (size_t i = 0; i < PDREAD_IDCACHE; i++)
		r->idc[i].evsel = -1;
	size_t h = hash64(id) & (r->idmap_cap - 1);
	while (r->idmap[h].evsel >= 0) {
		if (r->idmap[h].id == id) {
			r->idmap[h].evsel = evsel;	/* last definition wins */
			return 0;
		}
		h = (h + 1) & (r->idmap_cap - 1);
	}
	r->idmap[h].id = id;
	r->idmap[h].evsel = evsel;
	r->idmap_used++;
	return 0;
}

int pdread_idmap_get(const struct pdread *r, uint64_t id)
{
	if (!r->idmap_cap)
		return -1;
	size_t h = hash64(id) & (r->idmap_cap - 1);
	while (r->idmap[h].evsel >= 0) {
		if (r->idmap[h].id == id)
			return r->idmap[h].evsel;
		h = (h + 1) & (r->idmap_cap - 1);
	}
	return -1;
}

const struct pdread_evsel *pdread_evsel_by_id(const struct pdread *r, uint64_t id)
{
	int i = pdread_idmap_get(r, id);
	return i >= 0 ? &r->evsels[i] : NULL;
}

static void evsel_layout(struct pdread_evsel *e)
{
	uint64_t t = e->attr.sample_type;
	if (t & PDFORMAT_SAMPLE_IDENTIFIER) {
		e->id_pos = 0;
	} else if (t & PDFORMAT_SAMPLE_ID) {
		int pos = 0;
		pos += !!(t & PDFORMAT_SAMPLE_IP);
		pos += !!(t & PDFORMAT_SAMPLE_TID);
		pos += !!(t & PDFORMAT_SAMPLE_TIME);
		pos += !!(t & PDFORMAT_SAMPLE_ADDR);
		e->id_pos = pos;
	} else {
		e->id_pos = -1;
	}
	if (t & PDFORMAT_SAMPLE_IDENTIFIER)
		e->is_pos = 1;
	else if (t & PDFORMAT_SAMPLE_ID)
		e->is_pos = 1 + !!(t & PDFORMAT_SAMPLE_CPU) + !!(t & PDFORMAT_SAMPLE_STREAM_ID);
	else
		e->is_pos = -1;
	size_t tr = 0;
	if (pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL)) {
		uint64_t m = PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_ID | PDFORMAT_SAMPLE_STREAM_ID |
			     PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_IDENTIFIER;
		tr = 8 * (size_t)__builtin_popcountll(t & m);
	}
	e->trailer_size = tr;
}

int pdread_add_evsel(struct pdread *r, const struct pdformat_attr *attr, const uint8_t *ids_file,
		   size_t nr_ids, uint64_t off)
{
	if (r->nr_evsels >= MAX_EVSELS)
		return pdread_fail(r, -E2BIG, off, "more than %d events", MAX_EVSELS);
	if (nr_ids > MAX_IDS)
		return pdread_fail(r, -E2BIG, off, "event with %zu ids", nr_ids);
	if (r->nr_evsels == r->cap_evsels) {
		size_t ncap = r->cap_evsels ? r->cap_evsels * 2 : 8;
		struct pdread_evsel *n = realloc(r->evsels, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->evsels = n;
		r->cap_evsels = ncap;
	}
	struct pdread_evsel *e = &r->evsels[r->nr_evsels];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->idx = (int)r->nr_evsels;
	if (nr_ids) {
		e->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!e->ids)
			return -ENOMEM;
		for (size_t i = 0; i < nr_ids; i++)
			e->ids[i] = bytes_ld64(ids_file + 8 * i, r->swap);
		e->nr_ids = nr_ids;
	}
	evsel_layout(e);
	r->nr_evsels++;
	for (size_t i = 0; i < nr_ids; i++) {
		int err = idmap_put(r, e->ids[i], e->idx);
		if (err)
			return err;
	}
	return 0;
}

/* Evsel of a record, perf's rules (evlist__event2evsel).  count: add an
 * unknown id to the stats (once per record: not when only peeking at the
 * time for the queue). */
struct pdread_evsel *pdread_record_evsel(struct pdread *r, uint32_t type, const uint8_t *rec, size_t size,
				    bool count)
{
	if (r->nr_evsels == 0)
		return NULL;
	if (r->nr_evsels == 1)
		return &r->evsels[0];
	struct pdread_evsel *first = &r->evsels[0];
	if (type != PDFORMAT_RECORD_SAMPLE && !pdformat_attr_flag(&first->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL))
		return first;
	uint64_t id;
	if (type == PDFORMAT_RECORD_SAMPLE) {
		if (first->id_pos < 0)
			return first;
		size_t at = 8 + 8 * (size_t)first->id_pos;
		if (at + 8 > size)
			return NULL;
		id = bytes_ld64(rec + at, r->swap);
	} else {
		if (first->is_pos < 0)
			return first;
		size_t back = 8 * (size_t)first->is_pos;
		if (back + 8 > size)
			return NULL;
		id = bytes_ld64(rec + size - back, r->swap);
	}
	if (id == 0)
		return first;
	struct idcache *c = &r->idc[id & (PDREAD_IDCACHE - 1)];
	if (c->id == id && c->evsel >= 0)
		return &r->evsels[c->evsel];
	int i = pdread_idmap_get(r, id);
	if (i >= 0) {
		c->id = id;
		c->evsel = i;
	}
	if (i < 0) {
		if (count)
			r->stats.unknown_id++;
		return NULL;
	}
	return &r->evsels[i];
}

/* Attach tracepoint formats and names to evsels (after tracing data). */
void pdread_bind_tracepoints(struct pdread *r)
{
	if (!r->tep)
		return;
	for (size_t i = 0; i < r->nr_evsels; i++) {
		struct pdread_evsel *e = &r->evsels[i];
		if (e->attr.type != PDFORMAT_TYPE_TRACEPOINT || e->tp)
			continue;
		e->tp = tep_find_event(r->tep, (int)e->attr.config);
		if (e->tp && !e->name) {
			size_t l = strlen(e->tp->system) + strlen(e->tp->name) + 2;
			char *nm = malloc(l);
			if (nm) {
				snprintf(nm, l, "%s:%s", e->tp->system, e->tp->name);
				e->name = nm;
			}
		}
	}
}
