/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - the reading thread formats everything it can (prefix, and the
 * tracepoint text when the memo has it); the formatting thread only asks
 * libtraceevent for the payloads the memo has not seen, writes the lines in
 * order, and hands the new texts back so the reading thread can remember them.
 */
#include "print/pipeline.h"
#include "base/workthread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "engine/thread.h"

#define NBATCH		4
#define BATCH_ITEMS	2048
#define BATCH_RAW	(2u << 20)
/* Texts the formatter made recently, by miss number: a payload repeated
 * while its first text is still in flight copies it from here.  Must cover
 * every miss in flight (NBATCH * BATCH_ITEMS). */
#define RING		16384
#define RING_SLOT	384	/* bytes of text kept inline per ring entry */

enum { IT_TEXT, IT_MISS, IT_REF };

struct ring_ent {
	uint32_t seq;
	bool valid;
	char *buf;		/* its slab slot, or a heap copy for a long text */
	size_t len, cap;
	bool heap;
};

struct item {
	uint32_t text_off, text_len;	/* line (or its prefix, for a miss/ref) */
	uint8_t kind;			/* IT_* */
	bool miss;			/* kind != IT_TEXT: the formatter adds the text */
	uint32_t seq;			/* IT_MISS: its miss number; IT_REF: the one it repeats */
	uint32_t raw_off, raw_size;
	const struct pdread_evsel *evsel;
	uint64_t time;
	uint32_t cpu;
	uint32_t learned_off, learned_len;	/* miss: its text, set by the formatter */
};

struct batch {
	struct item *items;
	size_t n;
	uint8_t *raw;
	size_t raw_used;
	char *text;
	size_t text_used, text_cap;
	char *learned;
	size_t learned_used, learned_cap;
	bool full;
};

struct pipeline {
	struct pdprint *p;
	FILE *out;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	unsigned fill, next;
	bool done;
	int err;
	int werr;			/* first write error (atomic: read by pipeline_failed()) */
	struct trace_seq *seq;	/* the formatter's */
	char *obuf;
	size_t ocap;
	uint32_t miss_seq;	/* reading thread: next miss number */
	struct tep_handle *tep2;	/* reading thread's own handle, or NULL */
	struct trace_seq *seq2;
	int nfull;		/* batches waiting for the formatter (atomic) */
	struct ring_ent *ring;	/* formatter's */
	char *slab;		/* RING * RING_SLOT bytes backing the ring */
};

static int grow(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 256;
	while (ncap < need)
		ncap *= 2;
	char *n = realloc(*buf, ncap);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	return 0;
}

/* Write obuf[0..pos); the first failure's errno is kept (pipeline_failed()). */
static void write_out(struct pipeline *pl, size_t pos)
{
	if (__atomic_load_n(&pl->werr, __ATOMIC_RELAXED))
		return;		/* the output is gone: do not try again */
	errno = 0;
	if (fwrite(pl->obuf, 1, pos, pl->out) != pos || fflush(pl->out) != 0)
		__atomic_store_n(&pl->werr, errno ? -errno : -EIO, __ATOMIC_RELAXED);
}

static void format_batch(struct pipeline *pl, struct batch *b)
{
	size_t pos = 0;
	struct pdread_sample s;
	memset(&s, 0, sizeof(s));
	b->learned_used = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct item *it = &b->items[i];
		const char *tt = NULL;
		size_t tl = 0;
		struct ring_ent *re = it->miss ? &pl->ring[it->seq % RING] : NULL;
		if (it->kind == IT_REF && re->valid && re->seq == it->seq) {
			tt = re->buf;
			tl = re->len;
		} else if (it->miss) {
			s.raw = b->raw + it->raw_off;
			s.raw_size = it->raw_size;
			s.time = it->time;
			s.cpu = it->cpu;
			tt = pdprint_trace_text_uncached(pl->p, it->evsel, &s, pl->seq, &tl);
			if (it->kind == IT_MISS) {
				if (tl > re->cap) {
					char *nb = re->heap ? realloc(re->buf, tl) : malloc(tl);
					if (!nb) {
						pl->err = -ENOMEM;
						return;
					}
					re->buf = nb;
					re->cap = tl;
					re->heap = true;
				}
				memcpy(re->buf, tt, tl);
				re->len = tl;
				re->seq = it->seq;
				re->valid = true;
				tt = re->buf;
			}
		}
		if (it->kind == IT_MISS) {
			if (grow(&b->learned, &b->learned_cap, b->learned_used + tl + 1)) {
				pl->err = -ENOMEM;
				return;
			}
			memcpy(b->learned + b->learned_used, tt, tl);
			it->learned_off = (uint32_t)b->learned_used;
			it->learned_len = (uint32_t)tl;
			b->learned_used += tl;
		}
		if (grow(&pl->obuf, &pl->ocap, pos + it->text_len + tl + 1)) {
			pl->err = -ENOMEM;
			return;
		}
		memcpy(pl->obuf + pos, b->text + it->text_off, it->text_len);
		pos += it->text_len;
		if (it->miss) {
			memcpy(pl->obuf + pos, tt, tl);
			pos += tl;
			pl->obuf[pos++] = '\n';
		}
		if (pos > (1u << 20)) {
			write_out(pl, pos);
			pos = 0;
		}
	}
	if (pos)
		write_out(pl, pos);
}

static void *worker(void *arg)
{
	struct pipeline *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		while (!pl->b[pl->next].full && !pl->done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (!pl->b[pl->next].full) {
			pthread_mutex_unlock(&pl->mu);
			return NULL;
		}
		struct batch *b = &pl->b[pl->next];
		pthread_mutex_unlock(&pl->mu);
		format_batch(pl, b);
		pthread_mutex_lock(&pl->mu);
		b->full = false;
		__atomic_sub_fetch(&pl->nfull, 1, __ATOMIC_RELAXED);
		pl->next = (pl->next + 1) % NBATCH;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
	}
}

struct pipeline *pipeline_new(struct pdprint *p, FILE *out)
{
	if (!pdprint_pipeline_fields(p))
		return NULL;
	struct pipeline *pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->p = p;
	pl->out = out;
	pl->seq = pdprint_seq_new();
	pl->ring = calloc(RING, sizeof(*pl->ring));
	pl->slab = malloc((size_t)RING * RING_SLOT);
	bool ok = pl->seq != NULL && pl->ring != NULL && pl->slab != NULL;
	for (size_t i = 0; ok && i < RING; i++) {
		pl->ring[i].buf = pl->slab + i * RING_SLOT;
		pl->ring[i].cap = RING_SLOT;
	}
	for (int i = 0; i < NBATCH && ok; i++) {
		pl->b[i].items = malloc(BATCH_ITEMS * sizeof(struct item));
		pl->b[i].raw = malloc(BATCH_RAW);
		ok = pl->b[i].items && pl->b[i].raw;
	}
	pdprint_prepare(p);	/* lazily computed state must not race */
	/* The reading thread takes new payloads itself while the formatter is
	 * behind, with a libtraceevent handle of its own (not with symbol
	 * formats: kallsyms would have to be loaded twice). */
	if (ok && !pdprint_prints_symbols(p)) {
		pl->tep2 = pdread_tep_new(pdprint_reader(p));
		pl->seq2 = pl->tep2 ? pdprint_seq_new() : NULL;
		if (pl->tep2 && !pl->seq2) {
			tep_free(pl->tep2);
			pl->tep2 = NULL;
		}
	}
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	if (!ok || workthread_create(&pl->th, NULL, worker, pl)) {
		for (int i = 0; i < NBATCH; i++) {
			free(pl->b[i].items);
			free(pl->b[i].raw);
		}
		pdprint_seq_free(pl->seq);
		free(pl->ring);
		free(pl->slab);
		free(pl);
		return NULL;
	}
	return pl;
}

/* Take back an empty batch: remember what the formatter learned, reset. */
static void reclaim(struct pipeline *pl, struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct item *it = &b->items[i];
		if (it->kind == IT_MISS && b->learned)
			pdprint_memo_put(pl->p, it->evsel, b->raw + it->raw_off, it->raw_size,
				    b->learned + it->learned_off, it->learned_len);
	}
	b->n = 0;
	b->raw_used = 0;
	b->text_used = 0;
	b->learned_used = 0;
}

static void hand_over(struct pipeline *pl)
{
	pthread_mutex_lock(&pl->mu);
	pl->b[pl->fill].full = true;
	__atomic_add_fetch(&pl->nfull, 1, __ATOMIC_RELAXED);
	pl->fill = (pl->fill + 1) % NBATCH;
	pthread_cond_broadcast(&pl->cv);
	while (pl->b[pl->fill].full)
		pthread_cond_wait(&pl->cv, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	reclaim(pl, &pl->b[pl->fill]);
}

int pipeline_push(struct pipeline *pl, const struct pdread_event *ev, const char *comm)
{
	struct batch *b = &pl->b[pl->fill];
	const struct pdread_sample *s = &ev->sample;
	const struct pdread_evsel *e = ev->evsel;
	bool tp = e && e->tp && s->raw;
	uint32_t rs = tp ? s->raw_size : 0;
	if (rs > BATCH_RAW)
		return -E2BIG;
	if (b->n == BATCH_ITEMS || b->raw_used + rs > BATCH_RAW) {
		hand_over(pl);
		b = &pl->b[pl->fill];
	}
	struct item *it = &b->items[b->n];
	it->miss = false;
	it->kind = IT_TEXT;
	it->text_off = (uint32_t)b->text_used;
	const char *t = NULL;
	size_t tl = 0;
	uint32_t ref = 0;
	int look = tp ? pdprint_memo_lookup(pl->p, e, s->raw, s->raw_size, &t, &tl, &ref) : PDPRINT_MEMO_NONE;
	if (look == PDPRINT_MEMO_MISS && pl->tep2 && __atomic_load_n(&pl->nfull, __ATOMIC_RELAXED) >= 2) {
		/* the formatter is behind: make this text here */
		t = pdprint_trace_text_tep(pl->tep2, s, pl->seq2, &tl);
		pdprint_memo_put(pl->p, e, s->raw, s->raw_size, t, tl);
	} else if (look == PDPRINT_MEMO_MISS || look == PDPRINT_MEMO_NONE) {
		if (tp) {
			it->kind = IT_MISS;
			it->seq = pl->miss_seq++;
			if (look == PDPRINT_MEMO_MISS)
				pdprint_memo_pending(pl->p, e, s->raw, s->raw_size, it->seq);
		}
	} else if (look == PDPRINT_MEMO_PENDING) {
		it->kind = IT_REF;
		it->seq = ref;
	}
	it->miss = it->kind != IT_TEXT;
	for (;;) {
		size_t room = b->text_cap - b->text_used, n;
		char *at = b->text + b->text_used;
		if (tp) {
			n = pdprint_format_prefix(pl->p, comm, (int32_t)s->pid, (int32_t)s->tid, (int32_t)s->cpu,
					     s->time, e->name, at, room);
			if (it->kind == IT_TEXT) {
				if (n + tl + 1 < room) {
					memcpy(at + n, t, tl);
					at[n + tl] = '\n';
					n += tl + 1;
				} else {
					n = room;	/* grow and retry */
				}
			}
		} else {
			n = pdprint_format_with_comm(pl->p, ev, comm, at, room);
		}
		if (n < room) {
			b->text_used += n;
			it->text_len = (uint32_t)n;
			break;
		}
		if (grow(&b->text, &b->text_cap, b->text_cap * 2 + n + 256))
			return -ENOMEM;
	}
	if (it->miss) {
		it->raw_off = (uint32_t)b->raw_used;
		it->raw_size = rs;
		it->evsel = e;
		it->time = s->time;
		it->cpu = s->cpu;
		memcpy(b->raw + b->raw_used, s->raw, rs);
		b->raw_used += (rs + 7) & ~7u;
	}
	b->n++;
	return 0;
}

int pipeline_push_text(struct pipeline *pl, const char *text, size_t len)
{
	struct batch *b = &pl->b[pl->fill];
	if (b->n == BATCH_ITEMS) {
		hand_over(pl);
		b = &pl->b[pl->fill];
	}
	if (grow(&b->text, &b->text_cap, b->text_used + len + 1))
		return -ENOMEM;
	struct item *it = &b->items[b->n++];
	it->kind = IT_TEXT;
	it->miss = false;
	it->text_off = (uint32_t)b->text_used;
	it->text_len = (uint32_t)len;
	memcpy(b->text + b->text_used, text, len);
	b->text_used += len;
	return 0;
}

int pipeline_failed(const struct pipeline *pl)
{
	return pl ? __atomic_load_n(&pl->werr, __ATOMIC_RELAXED) : 0;
}

int pipeline_finish(struct pipeline *pl)
{
	if (pl->b[pl->fill].n)
		hand_over(pl);
	pthread_mutex_lock(&pl->mu);
	pl->done = true;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->th, NULL);
	int err = pl->werr ? pl->werr : pl->err;
	for (int i = 0; i < NBATCH; i++) {
		free(pl->b[i].items);
		free(pl->b[i].raw);
		free(pl->b[i].text);
		free(pl->b[i].learned);
	}
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cv);
	pdprint_seq_free(pl->seq);
	pdprint_seq_free(pl->seq2);
	if (pl->tep2)
		tep_free(pl->tep2);
	for (size_t i = 0; i < RING; i++)
		if (pl->ring[i].heap)
			free(pl->ring[i].buf);
	free(pl->ring);
	free(pl->slab);
	free(pl->obuf);
	free(pl);
	return err;
}
