/* SPDX-License-Identifier: MIT */
/* dtlmerge.c - per-CPU DTL queues merged by time (see dtlmerge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dtlmerge.h"
#include "format/pdformat.h"

/* A queued buffer.  Nodes are recycled through a free list, and in pipe mode
 * a node keeps its data allocation, so steady state allocates nothing. */
struct qbuf {
	struct qbuf *next;
	uint64_t file_off;		/* file mode: payload offset */
	uint64_t size;
	uint64_t aux_offset;
	uint8_t *data;			/* pipe mode copy */
	size_t cap;
	/* a gap found when the buffer was queued, reported with the time of
	 * its first entry (so the same in every mode and reading order) */
	bool gaps_pending, gap_offset;
	uint64_t expect;
};

struct queue {
	uint32_t cpu;
	struct qbuf *head, *tail;	/* head = buffer being consumed */
	/* the loaded part of the head buffer, walked by the slicer */
	const uint8_t *cur;
	uint64_t cur_len;		/* bytes loaded */
	uint64_t chunk_base;		/* offset of the loaded part within the buffer */
	bool loaded;
	struct dtl_slicer sl;		/* the CPU's AUX stream (lap ends, cut slots) */
	const uint8_t *run;		/* slots of the slicer's current run */
	size_t run_n;
	uint64_t run_pos;		/* stream offset of run */
	uint64_t seen_wraps, seen_cut, seen_gap_bytes;	/* sl.st already in stats and gaps */
	uint64_t seen_holes, seen_hole_bytes;
	bool wrap_pending;		/* a lap end to report with the next entry's time */
	uint64_t wrap_at;
	uint64_t last_ns;		/* time of the queue's last entry */
	uint8_t *fbuf;			/* file mode chunk buffer */
	size_t fcap;
	/* the pre-decoded next entry */
	bool have_next;
	struct dtlmerge_item next;
	uint8_t next_raw[DTL_ENTRY_SIZE];
	struct dtl_tbinfo tbi;
	bool have_last;
	uint64_t last_tb;
	bool have_expect;
	uint64_t expect_offset;
	int heap_pos;			/* -1 when not in the heap */
	/* source mode: buffers queued (at most DTLMERGE_SOURCE_LOOKAHEAD); a
	 * detached queue missed buffers before the shared cursor and finds
	 * them itself from resume */
	unsigned nbufs;
	bool detached;
	uint64_t resume;
};

struct dtlmerge {
	struct dtlmerge_opts o;
	struct queue *q[DTLMERGE_MAX_CPUS];
	struct queue **heap;
	size_t nr_heap;
	struct qbuf *free;
	struct dtl_tbinfo global_tbi;	/* the first header seen on any CPU */
	uint64_t copied_bytes;
	uint64_t last_time_ns;
	int err;			/* sticky pread/alloc error */
	dtlmerge_source_fn src;		/* file mode with a source, else NULL */
	void *src_ctx;
	uint64_t src_pos;		/* the shared cursor */
	bool src_end;
	uint8_t out_raw[DTL_ENTRY_SIZE];
	uint8_t aux_seen[DTLMERGE_MAX_CPUS];	/* a PERF_RECORD_AUX came (the first has the header) */
	struct dtlmerge_stats st;
	struct dtlmerge_gap gaps[DTLMERGE_MAX_GAPS];
	size_t nr_gaps;
};

static const char *const gap_names[DTLMERGE_GAP_NR_KINDS] = {
	[DTLMERGE_GAP_AUX_TRUNCATED] = "aux_truncated",
	[DTLMERGE_GAP_AUX_PARTIAL] = "aux_partial",
	[DTLMERGE_GAP_AUX_COLLISION] = "aux_collision",
	[DTLMERGE_GAP_LOST] = "lost",
	[DTLMERGE_GAP_TB_BACKWARDS] = "timebase_backwards",
	[DTLMERGE_GAP_OFFSET] = "buffer_discontinuity",
	[DTLMERGE_GAP_ODD_SIZE] = "odd_payload_size",
	[DTLMERGE_GAP_FORCED] = "forced_flush",
	[DTLMERGE_GAP_RING_FULL] = "ring_full",
	[DTLMERGE_GAP_AUX_WRAP] = "aux_wrap",
	[DTLMERGE_GAP_AUX_ERROR] = "aux_error",
};

const char *dtlmerge_gap_name(enum dtlmerge_gap_kind k)
{
	return (unsigned)k < DTLMERGE_GAP_NR_KINDS ? gap_names[k] : "unknown";
}

static void add_gap(struct dtlmerge *m, enum dtlmerge_gap_kind k, uint32_t cpu, uint64_t t,
		    uint64_t a, uint64_t b)
{
	m->st.gaps[k]++;
	if (m->nr_gaps < DTLMERGE_MAX_GAPS)
		m->gaps[m->nr_gaps++] = (struct dtlmerge_gap){ k, cpu, t, a, b };
}

int dtlmerge_new(struct dtlmerge **mp, const struct dtlmerge_opts *opts)
{
	struct dtlmerge *m = calloc(1, sizeof(*m));

	*mp = NULL;
	if (!m)
		return -ENOMEM;
	if (opts)
		m->o = *opts;
	if (!m->o.max_copy_bytes)
		m->o.max_copy_bytes = DTLMERGE_DEFAULT_COPY_BYTES;
	m->heap = calloc(DTLMERGE_MAX_CPUS, sizeof(*m->heap));
	if (!m->heap) {
		free(m);
		return -ENOMEM;
	}
	*mp = m;
	return 0;
}

static void free_list(struct qbuf *b)
{
	while (b) {
		struct qbuf *n = b->next;
		free(b->data);
		free(b);
		b = n;
	}
}

void dtlmerge_free(struct dtlmerge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < DTLMERGE_MAX_CPUS; i++) {
		struct queue *q = m->q[i];
		if (!q)
			continue;
		free_list(q->head);
		free(q->fbuf);
		free(q);
	}
	free_list(m->free);
	free(m->heap);
	free(m);
}

/* ---- heap ordered by (next time, cpu) ---- */

static bool q_less(const struct queue *a, const struct queue *b)
{
	if (a->next.time_ns != b->next.time_ns)
		return a->next.time_ns < b->next.time_ns;
	return a->cpu < b->cpu;
}

static void heap_set(struct dtlmerge *m, size_t i, struct queue *q)
{
	m->heap[i] = q;
	q->heap_pos = (int)i;
}

static void heap_up(struct dtlmerge *m, size_t i)
{
	struct queue *q = m->heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!q_less(q, m->heap[p]))
			break;
		heap_set(m, i, m->heap[p]);
		i = p;
	}
	heap_set(m, i, q);
}

static void heap_down(struct dtlmerge *m, size_t i)
{
	struct queue *q = m->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = l;
		if (l >= m->nr_heap)
			break;
		if (r < m->nr_heap && q_less(m->heap[r], m->heap[l]))
			s = r;
		if (!q_less(m->heap[s], q))
			break;
		heap_set(m, i, m->heap[s]);
		i = s;
	}
	heap_set(m, i, q);
}

static void heap_push(struct dtlmerge *m, struct queue *q)
{
	m->heap[m->nr_heap] = q;
	q->heap_pos = (int)m->nr_heap;
	m->nr_heap++;
	heap_up(m, m->nr_heap - 1);
}

static void heap_remove_top(struct dtlmerge *m)
{
	m->heap[0]->heap_pos = -1;
	m->nr_heap--;
	if (m->nr_heap) {
		heap_set(m, 0, m->heap[m->nr_heap]);
		heap_down(m, 0);
	}
}

/* ---- buffers ---- */

static void flush_buf_gaps(struct dtlmerge *m, struct queue *q, struct qbuf *b, uint64_t t)
{
	if (!b->gaps_pending)
		return;
	b->gaps_pending = false;
	if (b->gap_offset)
		add_gap(m, DTLMERGE_GAP_OFFSET, q->cpu, t, b->expect, b->aux_offset);
}

/* What the slicer found since the last look: lap ends (reported with the
 * next entry's time) and slots cut at a payload's end (with the last). */
static void note_slicer(struct dtlmerge *m, struct queue *q)
{
	const struct dtl_slice_stats *st = &q->sl.st;

	if (st->wrap_gaps != q->seen_wraps) {
		m->st.wrap_gaps += st->wrap_gaps - q->seen_wraps;
		q->seen_wraps = st->wrap_gaps;
		q->wrap_pending = true;
		q->wrap_at = q->sl.gap_end;
	}
	if (st->cut_bytes != q->seen_cut) {
		m->st.odd_buffers++;
		m->st.tail_bytes += st->cut_bytes - q->seen_cut;
		add_gap(m, DTLMERGE_GAP_ODD_SIZE, q->cpu, q->last_ns, q->head ? q->head->size : 0,
			st->cut_bytes - q->seen_cut);
		q->seen_cut = st->cut_bytes;
	}
	m->st.wrap_gap_bytes += st->gap_bytes - q->seen_gap_bytes;
	q->seen_gap_bytes = st->gap_bytes;
	m->st.holes += st->holes - q->seen_holes;
	q->seen_holes = st->holes;
	m->st.hole_bytes += st->hole_bytes - q->seen_hole_bytes;
	q->seen_hole_bytes = st->hole_bytes;
}

static void flush_wrap(struct dtlmerge *m, struct queue *q, uint64_t t)
{
	if (q->wrap_pending) {
		q->wrap_pending = false;
		add_gap(m, DTLMERGE_GAP_AUX_WRAP, q->cpu, t, q->wrap_at, 0);
	}
}

static void release_head(struct dtlmerge *m, struct queue *q)
{
	struct qbuf *b = q->head;

	flush_buf_gaps(m, q, b, 0);

	q->head = b->next;
	if (!q->head)
		q->tail = NULL;
	q->nbufs--;
	if (b->data)
		m->copied_bytes -= b->size;
	b->next = m->free;
	m->free = b;
	q->loaded = false;
	q->cur = NULL;
	q->cur_len = q->chunk_base = 0;
	q->run_n = 0;
}

/* Load the next chunk of the head buffer: 1 loaded, 0 buffer done, -errno. */
static int load_chunk(struct dtlmerge *m, struct queue *q)
{
	struct qbuf *b = q->head;
	uint64_t start = q->loaded ? q->chunk_base + q->cur_len : 0;
	uint64_t whole = b->size;
	uint64_t n;

	if (start >= whole)
		return 0;
	if (b->data) {
		q->cur = b->data;
		q->cur_len = whole;
		q->chunk_base = 0;
	} else {
		int rc;

		n = whole - start;
		if (n > DTLMERGE_CHUNK_BYTES)
			n = DTLMERGE_CHUNK_BYTES;
		if (q->fcap < n) {
			uint8_t *nb = realloc(q->fbuf, (size_t)n);
			if (!nb)
				return -ENOMEM;
			q->fbuf = nb;
			q->fcap = (size_t)n;
		}
		if (!m->o.pread)
			return -EINVAL;
		rc = m->o.pread(m->o.pread_ctx, b->file_off + start, q->fbuf, (size_t)n);
		if (rc < 0)
			return rc;
		q->cur = q->fbuf;
		q->cur_len = n;
		q->chunk_base = start;
	}
	dtl_slicer_feed(&q->sl, b->aux_offset + q->chunk_base, q->cur, q->cur_len,
			q->chunk_base + q->cur_len == whole);
	q->run_n = 0;
	q->loaded = true;
	return 1;
}

static const struct dtl_tbinfo default_tbi = { 0, DTL_DEFAULT_TB_FREQ };

static int q_append(struct dtlmerge *m, struct queue *q, const struct dtlmerge_buf_info *bi,
		    const void *data);

/*
 * Source mode: give q at least one buffer if it has any left.  One shared
 * cursor walks the source and hands each buffer to its CPU's queue; a queue
 * that is full when its buffer passes is detached and later walks the source
 * itself from where it missed one, up to the shared cursor.  Files whose CPUs
 * are interleaved (every real recording) are read once; memory stays at most
 * DTLMERGE_SOURCE_LOOKAHEAD buffers per CPU whatever the layout.
 */
static int src_fill(struct dtlmerge *m, struct queue *q)
{
	struct dtlmerge_buf_info bi;
	uint64_t at, next;
	int rc;

	while (q->detached) {
		rc = m->src(m->src_ctx, q->resume, &bi, &at, &next);
		if (rc < 0)
			return rc;
		if (rc == 0 || at >= m->src_pos) {
			q->detached = false;	/* caught up with the shared cursor */
			break;
		}
		if (bi.cpu == q->cpu) {
			if (q->nbufs >= DTLMERGE_SOURCE_LOOKAHEAD) {
				q->resume = at;
				return 0;
			}
			rc = q_append(m, q, &bi, NULL);
			if (rc < 0)
				return rc;
		}
		q->resume = next;
	}
	while (!q->nbufs && !m->src_end) {
		rc = m->src(m->src_ctx, m->src_pos, &bi, &at, &next);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			m->src_end = true;
			break;
		}
		m->src_pos = next;
		struct queue *d = bi.cpu < DTLMERGE_MAX_CPUS ? m->q[bi.cpu] : NULL;
		if (!d) {
			m->st.dropped_buffers++;	/* not announced by the pre-pass */
			continue;
		}
		if (d->detached)
			continue;
		if (d->nbufs >= DTLMERGE_SOURCE_LOOKAHEAD) {
			d->detached = true;
			d->resume = at;
			continue;
		}
		rc = q_append(m, d, &bi, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Decode the queue's next real entry into q->next: 1, 0 (queue empty), -errno. */
static int q_advance(struct dtlmerge *m, struct queue *q)
{
	q->have_next = false;
	for (;;) {
		if (!q->head) {
			if (!m->src)
				break;
			int rc = src_fill(m, q);
			if (rc < 0)
				return rc;
			if (!q->head)
				break;
		}
		if (!q->run_n) {
			q->run_n = q->loaded ? dtl_slicer_next(&q->sl, &q->run, &q->run_pos) : 0;
			note_slicer(m, q);
		}
		if (!q->run_n) {
			int rc = load_chunk(m, q);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				release_head(m, q);
				continue;
			}
		}
		while (q->run_n) {
			const uint8_t *p = q->run;
			uint64_t slot_off = q->run_pos - q->head->aux_offset;
			const struct dtl_tbinfo *tbi;
			struct dtlmerge_item *it = &q->next;

			q->run += DTL_ENTRY_SIZE;
			q->run_pos += DTL_ENTRY_SIZE;
			q->run_n--;
			struct dtl_tbinfo h;
			enum dtl_slot_kind k = dtl_slot_kind(p, m->o.swap, &h);

			if (k != DTL_SLOT_ENTRY) {
				if (k == DTL_SLOT_HEADER) {
					m->st.headers++;
					if ((h.tb_freq < DTLMERGE_TB_FREQ_MIN || h.tb_freq > DTLMERGE_TB_FREQ_MAX) &&
					    !m->st.bad_tb_freq++) {
						m->st.bad_tb_freq_cpu = q->cpu;
						m->st.bad_tb_freq_value = h.tb_freq;
					}
					if (!dtl_tbinfo_valid(&q->tbi))
						q->tbi = h;
					if (!dtl_tbinfo_valid(&m->global_tbi))
						m->global_tbi = h;
				} else {
					m->st.skipped++;
				}
				continue;
			}
			memcpy(q->next_raw, p, DTL_ENTRY_SIZE);
			dtl_decode(p, &it->e);
			if (dtl_tbinfo_valid(&q->tbi))
				tbi = &q->tbi;
			else if (dtl_tbinfo_valid(&m->o.fallback))
				tbi = &m->o.fallback;
			else if (dtl_tbinfo_valid(&m->global_tbi))
				tbi = &m->global_tbi;
			else {
				tbi = &default_tbi;
				m->st.no_tbinfo++;
			}
			it->tbi = *tbi;
			if (m->o.override_boot_tb)
				it->tbi.boot_tb = m->o.fallback.boot_tb;
			if (m->o.override_tb_freq && m->o.fallback.tb_freq)
				it->tbi.tb_freq = m->o.fallback.tb_freq;
			it->time_ns = m->o.exact_time ? dtl_tb_to_ns_exact(it->e.timebase, &it->tbi)
						      : dtl_tb_to_ns(it->e.timebase, &it->tbi);
			it->cpu = q->cpu;
			it->raw = q->next_raw;
			it->buf_offset = q->head->aux_offset;
			it->slot_off = slot_off;
			it->late = false;
			flush_buf_gaps(m, q, q->head, it->time_ns);
			flush_wrap(m, q, it->time_ns);
			q->last_ns = it->time_ns;
			if (q->have_last && it->e.timebase < q->last_tb)
				add_gap(m, DTLMERGE_GAP_TB_BACKWARDS, q->cpu, it->time_ns,
					q->last_tb, it->e.timebase);
			q->have_last = true;
			q->last_tb = it->e.timebase;
			q->have_next = true;
			return 1;
		}
	}
	return 0;
}

static struct qbuf *get_node(struct dtlmerge *m)
{
	struct qbuf *b = m->free;

	if (b) {
		m->free = b->next;
		b->next = NULL;
		return b;
	}
	return calloc(1, sizeof(*b));
}

static struct queue *get_queue(struct dtlmerge *m, uint32_t cpu)
{
	struct queue *q = m->q[cpu];

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return NULL;
		q->cpu = cpu;
		q->heap_pos = -1;
		dtl_slicer_init_stream(&q->sl);
		m->q[cpu] = q;
		m->st.nr_queues++;
	}
	return q;
}

int dtlmerge_add_buffer(struct dtlmerge *m, const struct dtlmerge_buf_info *bi, const void *data)
{
	struct queue *q;
	bool pipe = !m->o.pread;
	int rc;

	if (bi->cpu >= DTLMERGE_MAX_CPUS || (pipe && !data && bi->size)) {
		m->st.dropped_buffers++;
		return -ERANGE;
	}
	q = get_queue(m, bi->cpu);
	if (!q) {
		m->st.dropped_buffers++;
		return -ENOMEM;
	}
	rc = q_append(m, q, bi, data);
	if (rc < 0)
		return rc;
	if (!q->have_next) {
		rc = q_advance(m, q);
		if (rc < 0)
			return rc;
		if (rc > 0 && q->heap_pos < 0)
			heap_push(m, q);
	}
	return 0;
}

int dtlmerge_set_source(struct dtlmerge *m, dtlmerge_source_fn src, void *ctx, uint64_t start,
		    const uint32_t *cpus, size_t nr_cpus)
{
	if (!m->o.pread || !src)
		return -EINVAL;
	m->src = src;
	m->src_ctx = ctx;
	m->src_pos = start;
	for (size_t i = 0; i < nr_cpus; i++) {
		if (cpus[i] >= DTLMERGE_MAX_CPUS)
			continue;
		if (!get_queue(m, cpus[i]))
			return -ENOMEM;
	}
	for (size_t i = 0; i < DTLMERGE_MAX_CPUS; i++) {
		struct queue *q = m->q[i];
		if (!q || q->have_next)
			continue;
		int rc = q_advance(m, q);
		if (rc < 0)
			return rc;
		if (rc > 0 && q->heap_pos < 0)
			heap_push(m, q);
	}
	return 0;
}

/* Put a buffer at the tail of q (pipe mode: copy the payload). */
static int q_append(struct dtlmerge *m, struct queue *q, const struct dtlmerge_buf_info *bi,
		    const void *data)
{
	bool pipe = !m->o.pread;
	struct qbuf *b = get_node(m);

	if (!b) {
		m->st.dropped_buffers++;
		return -ENOMEM;
	}
	if (pipe) {
		if (b->cap < bi->size) {
			uint8_t *nd = realloc(b->data, (size_t)bi->size);
			if (!nd) {
				b->next = m->free;
				m->free = b;
				m->st.dropped_buffers++;
				return -ENOMEM;
			}
			b->data = nd;
			b->cap = (size_t)bi->size;
		}
		if (bi->size)
			memcpy(b->data, data, (size_t)bi->size);
		else if (!b->data) {
			/* an empty payload still needs a non-NULL marker for pipe mode */
			b->data = malloc(1);
			b->cap = b->data ? 1 : 0;
		}
		m->copied_bytes += bi->size;
		if (m->copied_bytes > m->st.copied_peak_bytes)
			m->st.copied_peak_bytes = m->copied_bytes;
	} else {
		free(b->data);
		b->data = NULL;
		b->cap = 0;
	}
	b->file_off = bi->payload_file_offset;
	b->size = bi->size;
	b->aux_offset = bi->offset;
	b->next = NULL;
	m->st.buffers++;
	m->st.buffer_bytes += bi->size;
	b->gap_offset = q->have_expect && bi->offset != q->expect_offset;
	b->expect = q->expect_offset;
	q->have_expect = true;
	q->expect_offset = bi->offset + bi->size;
	b->gaps_pending = b->gap_offset;
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	q->nbufs++;
	return 0;
}

void dtlmerge_note_aux(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint64_t aux_offset,
		   uint64_t aux_size, uint64_t flags)
{
	/* the driver copies at most 84 entries per poll (85-entry ring, the
	 * oldest dropped on overflow); 85 slots = the header and 84 */
	if (dtl_poll_filled_ring(aux_size, cpu < DTLMERGE_MAX_CPUS && !m->aux_seen[cpu]))
		add_gap(m, DTLMERGE_GAP_RING_FULL, cpu, time_ns, DTL_RING_ENTRIES - 1, 0);
	if (cpu < DTLMERGE_MAX_CPUS)
		m->aux_seen[cpu] = 1;
	if (flags & PDFORMAT_AUX_FLAG_TRUNCATED)
		add_gap(m, DTLMERGE_GAP_AUX_TRUNCATED, cpu, time_ns, aux_offset, flags);
	if (flags & PDFORMAT_AUX_FLAG_PARTIAL)
		add_gap(m, DTLMERGE_GAP_AUX_PARTIAL, cpu, time_ns, aux_offset, flags);
	if (flags & PDFORMAT_AUX_FLAG_COLLISION)
		add_gap(m, DTLMERGE_GAP_AUX_COLLISION, cpu, time_ns, aux_offset, flags);
}

void dtlmerge_note_lost(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint64_t lost)
{
	m->st.lost_events += lost;
	add_gap(m, DTLMERGE_GAP_LOST, cpu, time_ns, lost, 0);
}

void dtlmerge_note_auxerr(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint32_t type, uint32_t code)
{
	add_gap(m, DTLMERGE_GAP_AUX_ERROR, cpu, time_ns, code, type);
}

void dtlmerge_note_time(struct dtlmerge *m, uint64_t time_ns)
{
	if (time_ns > m->last_time_ns)
		m->last_time_ns = time_ns;
}

void dtlmerge_note_forced(struct dtlmerge *m)
{
	add_gap(m, DTLMERGE_GAP_FORCED, UINT32_MAX, m->last_time_ns, m->copied_bytes, 0);
}

static int pop_top(struct dtlmerge *m, struct dtlmerge_item *it)
{
	struct queue *q = m->heap[0];
	int rc;

	*it = q->next;
	memcpy(m->out_raw, q->next_raw, DTL_ENTRY_SIZE);
	it->raw = m->out_raw;
	it->late = it->time_ns < m->last_time_ns;
	if (it->late)
		m->st.late++;
	m->st.entries++;
	rc = q_advance(m, q);
	if (rc > 0)
		heap_down(m, 0);
	else
		heap_remove_top(m);
	if (rc < 0)
		m->err = rc;	/* this item is good; report the error on the next call */
	return 1;
}

int dtlmerge_next_before(struct dtlmerge *m, uint64_t time_ns, struct dtlmerge_item *it)
{
	if (m->err)
		return m->err;
	if (!m->nr_heap || m->heap[0]->next.time_ns >= time_ns)
		return 0;
	return pop_top(m, it);
}

int dtlmerge_next(struct dtlmerge *m, struct dtlmerge_item *it)
{
	if (m->err)
		return m->err;
	if (!m->nr_heap)
		return 0;
	return pop_top(m, it);
}

bool dtlmerge_first_time(const struct dtlmerge *m, uint32_t cpu, uint64_t pos, const void *data,
			 uint64_t size, uint64_t *time_ns)
{
	const struct queue *q = cpu < DTLMERGE_MAX_CPUS ? m->q[cpu] : NULL;
	struct dtl_tbinfo tbi = { 0, 0 };
	struct dtl_slicer sl;
	const uint8_t *p;
	uint64_t at;
	size_t n;

	if (q && dtl_tbinfo_valid(&q->tbi))
		tbi = q->tbi;
	if (!data)
		return false;
	dtl_slicer_init(&sl);
	dtl_slicer_feed(&sl, pos, data, size, true);
	while ((n = dtl_slicer_next(&sl, &p, &at)) > 0) {
		for (size_t i = 0; i < n; i++, p += DTL_ENTRY_SIZE) {
			struct dtl_tbinfo h;
			enum dtl_slot_kind k = dtl_slot_kind(p, m->o.swap, &h);

			if (k == DTL_SLOT_HEADER && !dtl_tbinfo_valid(&tbi))
				tbi = h;
			if (k != DTL_SLOT_ENTRY)
				continue;
			struct dtl_entry e;
			dtl_decode(p, &e);
			if (!dtl_tbinfo_valid(&tbi))
				tbi = dtl_tbinfo_valid(&m->o.fallback) ? m->o.fallback
				      : dtl_tbinfo_valid(&m->global_tbi) ? m->global_tbi : default_tbi;
			*time_ns = m->o.exact_time ? dtl_tb_to_ns_exact(e.timebase, &tbi)
						   : dtl_tb_to_ns(e.timebase, &tbi);
			return true;
		}
	}
	return false;
}

uint64_t dtlmerge_copied_bytes(const struct dtlmerge *m)
{
	return m->copied_bytes;
}

bool dtlmerge_over_budget(const struct dtlmerge *m)
{
	return !m->o.pread && m->copied_bytes > m->o.max_copy_bytes;
}

const struct dtlmerge_stats *dtlmerge_stats(const struct dtlmerge *m)
{
	return &m->st;
}

size_t dtlmerge_gaps(const struct dtlmerge *m, const struct dtlmerge_gap **gaps)
{
	*gaps = m->gaps;
	return m->nr_gaps;
}
