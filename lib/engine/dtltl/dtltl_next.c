/* SPDX-License-Identifier: MIT */
/* dtltl_next.c - the DTL timeline: records, holding, and dtltl_next() (see dtltl.c, dtltl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "dtltl_int.h"
#include "format/pdformat.h"

/* ---------------------------------------------------------------- records */

static bool timed(const struct pdread_event *ev)
{
	return ev->type < PDFORMAT_RECORD_USER_START && ev->has_sample && ev->sample.time &&
	       (ev->sample.type & PDFORMAT_SAMPLE_TIME);
}

bool dtltl_evsel_is_dtl(struct dtltl *t, const struct pdread_evsel *e)
{
	if (!e)
		return false;
	size_t i = (size_t)e->idx;
	if (i >= t->nr_is_dtl) {
		size_t n = i + 16;
		int8_t *v = realloc(t->is_dtl, n);
		if (!v)
			return dtltl_is_dtl_evsel(t->r, e);
		memset(v + t->nr_is_dtl, -1, n - t->nr_is_dtl);
		t->is_dtl = v;
		t->nr_is_dtl = n;
	}
	if (t->is_dtl[i] < 0)
		t->is_dtl[i] = dtltl_is_dtl_evsel(t->r, e);
	return t->is_dtl[i];
}

/* Facts about lost DTL data, noted when a record is read. */
static void note_record(struct dtltl *t, const struct pdread_event *ev)
{
	uint32_t cpu = ev->has_sample ? ev->sample.cpu : UINT32_MAX;
	uint64_t tm = ev->has_sample ? ev->sample.time : 0;

	switch (ev->type) {
	case PDFORMAT_RECORD_AUX:
		if (dtltl_evsel_is_dtl(t, ev->evsel) && ev->size >= 32)
			dtlmerge_note_aux(t->m, cpu, tm, pdread_u64(t->r, ev->data + 8),
				      pdread_u64(t->r, ev->data + 16), pdread_u64(t->r, ev->data + 24));
		break;
	case PDFORMAT_RECORD_LOST:
		if (ev->size >= 24)
			dtlmerge_note_lost(t->m, cpu, tm, pdread_u64(t->r, ev->data + 16));
		break;
	case PDFORMAT_RECORD_AUXTRACE_ERROR: {
		struct pdread_auxerr e;
		if (pdread_auxerr(t->r, ev, &e))
			dtlmerge_note_auxerr(t->m, e.cpu, e.time_ns, e.type, e.code);
		break;
	}
	case PDFORMAT_RECORD_LOST_SAMPLES:
		if (ev->size >= 16)
			dtlmerge_note_lost(t->m, cpu, tm, pdread_u64(t->r, ev->data + 8));
		break;
	default:
		break;
	}
}

/* File mode: is the AUXTRACE payload at off one the source listed? */
static int covered(struct dtltl *t, uint64_t payload_off, bool *yes)
{
	uint64_t at;

	*yes = false;
	if (t->st.source == DTLTL_SRC_INDEX) {
		/* the index lists record offsets in file order: no need to
		 * read the records again */
		while (t->cov_pos < t->st.index_entries) {
			uint64_t off;
			int err = dtltl_idx_get(t, t->iw_cov, t->cov_pos, &off, NULL);
			if (err)
				return err;
			if (off + PDFORMAT_AUXTRACE_RECORD_SIZE > payload_off)
				return 0;
			t->cov_pos++;
			if (off + PDFORMAT_AUXTRACE_RECORD_SIZE == payload_off) {
				*yes = true;
				return 0;
			}
		}
		return 0;
	}
	if (t->st.source != DTLTL_SRC_SCAN)
		return 0;
	for (;;) {
		if (!t->cov_have) {
			int rc = dtltl_scan_next(t, t->sb_cov, t->cov_pos, &t->cov_bi, &at, &t->cov_next);
			if (rc < 0)
				return rc;
			if (rc == 0)
				return 0;
			t->cov_have = true;
		}
		if (t->cov_bi.payload_file_offset > payload_off)
			return 0;
		t->cov_have = false;
		t->cov_pos = t->cov_next;
		if (t->cov_bi.payload_file_offset == payload_off) {
			*yes = true;
			return 0;
		}
	}
}

static int take_auxtrace(struct dtltl *t, const struct pdread_event *ev)
{
	struct dtlmerge_buf_info bi = {
		.size = ev->auxtrace.size, .offset = ev->auxtrace.offset,
		.idx = ev->auxtrace.idx, .cpu = ev->auxtrace.cpu,
		.payload_file_offset = ev->aux_file_offset,
	};
	int err;

	if (!t->pipe) {
		bool yes;
		if (!t->has_dtl)
			return 0;
		err = covered(t, ev->aux_file_offset, &yes);
		if (err || yes)
			return err;
		if (bi.cpu >= DTLMERGE_MAX_CPUS)
			return 0;	/* counted by the pre-pass */
		t->st.unindexed_buffers++;
		err = dtlmerge_add_buffer(t->m, &bi, NULL);
		return err == -ERANGE ? 0 : err;
	}
	if (!dtltl_file_has_dtl(t->r))
		return 0;
	if (bi.cpu >= DTLMERGE_MAX_CPUS) {
		t->st.bad_cpu_buffers++;
		(void)dtlmerge_add_buffer(t->m, &bi, ev->aux_data);	/* counts the drop */
		return 0;
	}
	t->st.dtl_buffers++;
	err = dtlmerge_add_buffer(t->m, &bi, ev->aux_data);
	if (err == -ERANGE)
		return 0;
	if (err)
		return err;
	/* how late did this buffer come?  The window follows. */
	uint64_t first;
	if (dtlmerge_first_time(t->m, bi.cpu, bi.offset, ev->aux_data, bi.size, &first) && t->max_time > first) {
		uint64_t need = t->max_time - first;
		if (need > t->st.window_max_need_ns)
			t->st.window_max_need_ns = need;
		if (t->auto_window && need + need / 2 > t->window_ns) {
			t->window_ns = need + need / 2;
			t->st.window_ns = t->window_ns;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- holding */

static int hold(struct dtltl *t, const struct pdread_event *ev)
{
	size_t need = (sizeof(struct held) + ev->size + 7) & ~(size_t)7;
	struct block *b = t->btail;

	if (need > HOLD_BLOCK)
		return -E2BIG;
	if (!b || HOLD_BLOCK - b->used < need) {
		b = t->bfree;
		if (b)
			t->bfree = b->next;
		else if (!(b = malloc(sizeof(*b))))
			return -ENOMEM;
		b->next = NULL;
		b->used = b->head = 0;
		if (t->btail)
			t->btail->next = b;
		else
			t->bhead = b;
		t->btail = b;
	}
	struct held *h = (struct held *)(b->mem + b->used);
	b->used += need;
	h->ev = *ev;
	h->evsel_idx = ev->evsel ? ev->evsel->idx : -1;
	h->len = ev->size;
	memcpy(h->data, ev->data, ev->size);
	h->timed = timed(ev);
	h->time_ns = h->timed ? ev->sample.time : t->max_time;
	t->held_n++;
	t->held_bytes += need;
	if (t->held_bytes > t->st.held_peak_bytes)
		t->st.held_peak_bytes = t->held_bytes;
	if (t->held_n > t->st.held_peak_records)
		t->st.held_peak_records = t->held_n;
	return 0;
}

static struct held *held_head(struct dtltl *t)
{
	struct block *b = t->bhead;

	if (!t->held_n)
		return NULL;
	while (b->head >= b->used) {
		/* this block is done: recycle it */
		t->bhead = b->next;
		if (t->btail == b)
			t->btail = NULL;
		b->next = t->bfree;
		t->bfree = b;
		b = t->bhead;
	}
	return (struct held *)(b->mem + b->head);
}

static void rebase(const uint8_t *old, size_t len, const uint8_t *copy, const uint8_t **p)
{
	if (*p && *p >= old && *p < old + len)
		*p = copy + (*p - old);
}

/* Pop the head into t->out_ev (valid until the next dtltl_next()). */
static const struct pdread_event *release_head(struct dtltl *t)
{
	struct held *h = held_head(t);
	size_t need = (sizeof(struct held) + h->len + 7) & ~(size_t)7;
	const uint8_t *old = h->ev.data;
	struct pdread_sample *s = &t->out_ev.sample;

	t->out_ev = h->ev;
	t->out_ev.data = h->data;
	t->out_ev.evsel = h->evsel_idx >= 0 ? pdread_evsel(t->r, (size_t)h->evsel_idx) : NULL;
	rebase(old, h->len, h->data, &s->read);
	rebase(old, h->len, h->data, &s->callchain);
	rebase(old, h->len, h->data, &s->raw);
	rebase(old, h->len, h->data, &s->branch);
	rebase(old, h->len, h->data, &s->user_regs);
	rebase(old, h->len, h->data, &s->user_stack);
	rebase(old, h->len, h->data, &s->intr_regs);
	rebase(old, h->len, h->data, &s->aux);
	/* the bytes stay valid: the block is only recycled when the next
	 * head is looked for, after this event has been used */
	t->bhead->head += need;
	t->held_n--;
	t->held_bytes -= need;
	t->out = h;
	return &t->out_ev;
}

static bool over_budget(const struct dtltl *t)
{
	return t->held_bytes + dtlmerge_copied_bytes(t->m) > t->o.budget_bytes;
}

/* ---------------------------------------------------------------- next */

/* The next record other than AUXTRACE (those are queued) into t->ev: 1, or
 * 0 at the end (t->eof set), or a negative errno. */
static int read_record(struct dtltl *t)
{
	for (;;) {
		int rc = pdread_next(t->r, &t->ev);
		if (rc <= 0) {
			t->eof = rc == 0;
			return rc;
		}
		if (t->ev.type != PDFORMAT_RECORD_AUXTRACE)
			return 1;
		rc = take_auxtrace(t, &t->ev);
		if (rc < 0)
			return rc;
	}
}

/* After the last record: the entries still queued, oldest first. */
static int end_entry(struct dtltl *t, struct dtltl_item *it)
{
	t->next_rec_ns = 0;
	int rc = dtlmerge_next(t->m, &it->entry);
	if (rc > 0)
		it->kind = DTLTL_ENTRY;
	return rc;
}

/* Nothing due: at the end, the queued entries (end_entry(): 1, or 0 when
 * none is left); else the next record is read: 2 when one was, 3 when the
 * input has just ended (what is held goes first), or a negative errno. */
static int end_or_read(struct dtltl *t, struct dtltl_item *it)
{
	if (t->eof)
		return end_entry(t, it);
	int rc = read_record(t);
	return rc < 0 ? rc : rc ? 2 : 3;
}

/* Before a record at time_ns: the entry due first (1), or none (0, the time
 * noted), or a negative errno. */
static int entry_before(struct dtltl *t, uint64_t time_ns, struct dtltl_item *it)
{
	t->next_rec_ns = time_ns;
	int rc = dtlmerge_next_before(t->m, time_ns, &it->entry);
	if (rc > 0) {
		it->kind = DTLTL_ENTRY;
		return 1;
	}
	if (rc == 0)
		dtlmerge_note_time(t->m, time_ns);
	return rc;
}

static int next_file(struct dtltl *t, struct dtltl_item *it)
{
	int rc;

	for (;;) {
		if (t->pending) {
			if (timed(&t->ev)) {
				rc = entry_before(t, t->ev.sample.time, it);
				if (rc)
					return rc;
			}
			t->pending = false;
			t->st.records++;
			it->kind = DTLTL_RECORD;
			it->ev = &t->ev;
			return 1;
		}
		rc = end_or_read(t, it);
		if (rc < 2)
			return rc;
		if (rc == 3)
			continue;	/* the end: what is held, then the queued entries */
		if (t->ev.type == PDFORMAT_RECORD_AUX || t->ev.type == PDFORMAT_RECORD_LOST ||
		    t->ev.type == PDFORMAT_RECORD_LOST_SAMPLES)
			note_record(t, &t->ev);
		t->pending = true;
	}
}

static int next_pipe(struct dtltl *t, struct dtltl_item *it)
{
	int rc;

	for (;;) {
		struct held *h = held_head(t);

		if (h && (t->eof || over_budget(t) || h->time_ns + t->window_ns <= t->max_time)) {
			if (h->timed) {
				rc = entry_before(t, h->time_ns, it);
				if (rc)
					return rc;
			}
			if (!t->eof && over_budget(t) && h->time_ns + t->window_ns > t->max_time)
				t->st.forced_records++;
			it->kind = DTLTL_RECORD;
			it->ev = release_head(t);
			t->st.records++;
			return 1;
		}
		if (!h && !t->eof && dtlmerge_over_budget(t->m)) {
			/* AUX copies alone exceed the budget: their oldest go early */
			dtlmerge_note_forced(t->m);
			rc = end_entry(t, it);
			if (rc)
				return rc;
		}
		rc = end_or_read(t, it);
		if (rc < 2)
			return rc;
		if (rc == 3)
			continue;	/* the end: what is held, then the queued entries */
		note_record(t, &t->ev);
		if (!t->st.poll_ns && t->ev.type >= PDFORMAT_RECORD_USER_START) {
			/* the attrs arrive as records: the poll is known once the
			 * vpa_dtl one has come */
			t->st.poll_ns = dtltl_poll_ns(t->r);
			if (t->auto_window && 2 * t->st.poll_ns > t->window_ns)
				t->st.window_ns = t->window_ns = 2 * t->st.poll_ns;
		}
		if (timed(&t->ev) && t->ev.sample.time > t->max_time)
			t->max_time = t->ev.sample.time;
		/* with no window the record is released at once (entries first) */
		rc = hold(t, &t->ev);
		if (rc < 0)
			return rc;
	}
}

/* Entries more than a day from the records around them (a wrong boot_tb or
 * tb_freq): judged against the record they are delivered before (known in
 * both modes) and the last record before them. */
static void judge(struct dtltl *t, const struct dtltl_item *it)
{
	struct dtltl_stats *st = &t->st;

	if (it->kind == DTLTL_RECORD) {
		if (!timed(it->ev))
			return;
		uint64_t tm = it->ev->sample.time;
		if (!st->first_record_ns)
			st->first_record_ns = tm;
		if (tm > st->last_record_ns)
			st->last_record_ns = tm;
		return;
	}
	uint64_t e = it->entry.time_ns;
	bool far = (t->next_rec_ns && e + DTLTL_FAR_NS < t->next_rec_ns) ||
		   (st->last_record_ns && e > st->last_record_ns + DTLTL_FAR_NS);
	if (far && !st->far_entries++) {
		st->far_cpu = it->entry.cpu;
		st->far_time_ns = e;
	}
}

int dtltl_next(struct dtltl *t, struct dtltl_item *it)
{
	int rc = t->pipe ? next_pipe(t, it) : next_file(t, it);

	if (rc > 0)
		judge(t, it);
	return rc;
}
