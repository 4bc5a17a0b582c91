/* SPDX-License-Identifier: MIT */
/*
 * pdread_queue.c - the perf.data reader's ordering queue: records copied into a
 * recycled block arena, sorted and released at FINISHED_ROUND boundaries
 * with perf's two-round lag.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "pdread_int.h"

/* ------------------------------------------------------------------ queue */

/*
 * Blocks: cur_blk is being filled; full blocks whose records are still
 * queued sit on no list (they are found through their records); a block
 * whose live count drops to 0 goes to the free list.
 */
/* A block with at least cap bytes: a free one, or a new one. */
struct arena_block *pdread_block_get(struct pdread *r, size_t cap)
{
	struct arena_block **pp = &r->free_blks, *b;
	while ((b = *pp) && b->cap < cap)
		pp = &b->next;
	if (b) {
		*pp = b->next;
	} else {
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->all_next = r->all_blks;
		r->all_blks = b;
		r->queue_bytes += cap;
		if (r->queue_bytes > r->stats.queue_peak_bytes)
			r->stats.queue_peak_bytes = r->queue_bytes;
	}
	b->used = 0;
	b->live = 0;
	b->next = NULL;
	return b;
}

/* A block stops being current: free now if no record points into it, else
 * when the last one is delivered (arena_release). */
void pdread_block_retire(struct pdread *r, struct arena_block *b)
{
	if (b && b->live == 0) {
		b->next = r->free_blks;
		r->free_blks = b;
	}
}

static uint8_t *arena_alloc(struct pdread *r, size_t size, struct arena_block **blk)
{
	size = (size + 7) & ~(size_t)7;
	struct arena_block *b = r->cur_blk;
	if (!b || b->used + size > b->cap) {
		if (b && b->live == 0) {
			b->used = 0;	/* reuse in place */
		} else {
			b = pdread_block_get(r, ARENA_BLOCK);
			if (!b)
				return NULL;
			r->cur_blk = b;
		}
	}
	uint8_t *p = b->data + b->used;
	b->used += size;
	b->live++;
	*blk = b;
	return p;
}

void pdread_arena_release(struct pdread *r, struct arena_block *b)
{
	if (--b->live == 0 && b != r->cur_blk && b != r->in_blk) {
		b->next = r->free_blks;
		r->free_blks = b;
	}
}

static inline bool qent_le(const struct qent *x, const struct qent *y)
{
	return x->time <= y->time;
}

/*
 * Natural merge sort: a round is a few runs already in time order (one per
 * CPU ring), so merging runs pairwise is linear for the usual case.  Stable,
 * which keeps records of equal time in file order: the queue always holds
 * the sorted rest of the previous rounds followed by the new records in
 * file order.
 */
static void queue_sort(struct pdread *r)
{
	size_t n = r->q_len;
	struct qent *a = r->q, *b = r->qtmp;
	for (;;) {
		size_t runs = 0, i = 0, o = 0;
		while (i < n) {
			size_t m = i + 1;
			while (m < n && qent_le(&a[m - 1], &a[m]))
				m++;
			size_t e = m;
			if (m < n) {
				e = m + 1;
				while (e < n && qent_le(&a[e - 1], &a[e]))
					e++;
			}
			/* merge a[i..m) and a[m..e) into b[o..) */
			size_t x = i, y = m;
			while (x < m && y < e)
				b[o++] = qent_le(&a[x], &a[y]) ? a[x++] : a[y++];
			while (x < m)
				b[o++] = a[x++];
			while (y < e)
				b[o++] = a[y++];
			runs++;
			i = e;
		}
		struct qent *t = a;
		a = b;
		b = t;
		if (runs <= 1)
			break;
	}
	if (a != r->q)
		memcpy(r->q, a, n * sizeof(*a));
}

/* Sort the queue and mark every record with time <= limit deliverable. */
void pdread_queue_flush(struct pdread *r, uint64_t limit)
{
	/* compact delivered entries away */
	if (r->ready_pos) {
		memmove(r->q, r->q + r->ready_pos, (r->q_len - r->ready_pos) * sizeof(*r->q));
		r->q_len -= r->ready_pos;
		r->ready_pos = 0;
	}
	if (r->q_len > 1)
		queue_sort(r);
	size_t n = 0;
	while (n < r->q_len && r->q[n].time <= limit)
		n++;
	r->ready_len = n;
	if (n && r->q[n - 1].time > r->last_flush)
		r->last_flush = r->q[n - 1].time;
}

int pdread_queue_push(struct pdread *r, uint64_t time, const uint8_t *rec, uint16_t size,
		    uint64_t off, bool compressed)
{
	if (r->q_len == r->q_cap) {
		size_t ncap = r->q_cap ? r->q_cap * 2 : 4096;
		struct qent *n = realloc(r->q, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->q = n;
		free(r->qtmp);
		r->qtmp = malloc(ncap * sizeof(*n));	/* merge scratch */
		if (!r->qtmp)
			return -ENOMEM;
		/* the index counts against the memory cap too */
		r->queue_bytes += 2 * (ncap - r->q_cap) * sizeof(*n);
		if (r->queue_bytes > r->stats.queue_peak_bytes)
			r->stats.queue_peak_bytes = r->queue_bytes;
		r->q_cap = ncap;
	}
	struct arena_block *blk = NULL;
	uint8_t *p;
	if (r->mem && !compressed) {
		/* in memory or mapped: the record stays where it is (pages released
		 * behind the cursor fault back in from the page cache if needed) */
		p = (uint8_t *)rec;
	} else if (!compressed && r->in_blk && rec >= r->buf && rec + size <= r->buf + r->buf_len) {
		/* in the input window: keep it there (the window moves to
		 * another block rather than overwrite it) */
		p = (uint8_t *)rec;
		blk = r->in_blk;
		blk->live++;
	} else {
		p = arena_alloc(r, size, &blk);
		if (!p)
			return -ENOMEM;
		memcpy(p, rec, size);
	}
	if (time < r->last_flush)
		r->stats.out_of_order++;
	r->live_bytes += size + 2 * sizeof(struct qent);
	struct qent *e = &r->q[r->q_len++];
	e->time = time;
	e->rec = p;
	e->blk = blk;
	e->off = off | (compressed ? QENT_COMPRESSED : 0);
	if (time > r->max_time)
		r->max_time = time;
	return 0;
}
