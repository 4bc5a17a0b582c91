/* SPDX-License-Identifier: MIT */
/* ksym_resolve.c - ksym_resolve(): kallsyms symbols for a known set of addresses (see ksym.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym_int.h"
#include "base/workthread.h"

/* ------------------------------------------------------------ ksym_resolve */

/*
 * One pass over the text for a known set of addresses, with memory for the
 * set only.  For the sorted, unique addresses A[0..n): every kept symbol S
 * is a candidate "best" (start <= A) for the addresses from lb(S.start) on
 * and a candidate "next" (start > A) for those before it, so it is noted
 * once at cand[lb] and ncand[lb - 1]; a prefix maximum and a suffix minimum
 * afterwards give each address the symbol ksym_load() would give it, and
 * the symbol after that one.  Ties (aliases) go to the line listed last.
 */
struct ksym_slot {
	bool set;
	bool dirty;		/* ref_* point into the read buffer */
	uint64_t start;
	char type;
	const char *ref_name, *ref_mod;
	char *name, *mod;	/* owned copies; mod NULL or "" = kernel image */
	size_t name_cap, mod_cap;
};

struct ksym_set {
	size_t n;
	/* early end (the live kernel's text only): the kept symbols so far
	 * come in address order and none is a module's */
	bool live, in_order;
	uint64_t top;		/* highest kept start so far */
	struct ksym_slot **dirty;	/* slots to copy before the buffer moves */
	size_t ndirty;
	uint64_t *addr;		/* sorted, unique */
	struct ksym_slot *cand, *ncand;
	size_t *best;		/* per address: slot in cand, or SIZE_MAX */
	size_t *next;		/* per address: slot in ncand, or SIZE_MAX */
	bool failed;		/* the text gives no table (as ksym_load fails) */
};

static int ksym_copy(char **dst, size_t *cap, const char *src)
{
	size_t len = strlen(src) + 1;

	if (len > *cap) {
		char *n = realloc(*dst, len < 32 ? 32 : len);

		if (!n)
			return -ENOMEM;
		*dst = n;
		*cap = len < 32 ? 32 : len;
	}
	memcpy(*dst, src, len);
	return 0;
}

/* A slot takes a symbol; its strings are copied when the buffer moves. */
static void ksym_slot_take(struct ksym_set *s, struct ksym_slot *sl, const struct ksym_line_sym *ls)
{
	sl->set = true;
	sl->start = ls->start;
	sl->type = ls->type;
	sl->ref_name = ls->name;
	sl->ref_mod = ls->mod;
	if (!sl->dirty) {
		sl->dirty = true;
		s->dirty[s->ndirty++] = sl;
	}
}

/* Copy the strings of the slots that point into the buffer. */
static int ksym_set_settle(struct ksym_set *s)
{
	for (size_t i = 0; i < s->ndirty; i++) {
		struct ksym_slot *sl = s->dirty[i];

		sl->dirty = false;
		if (ksym_copy(&sl->name, &sl->name_cap, sl->ref_name))
			return -ENOMEM;
		if (!sl->ref_mod) {
			if (sl->mod)
				sl->mod[0] = '\0';
		} else if (ksym_copy(&sl->mod, &sl->mod_cap, sl->ref_mod)) {
			return -ENOMEM;
		}
	}
	s->ndirty = 0;
	return 0;
}

static bool ksym_slot_mod(const struct ksym_slot *sl)
{
	return sl->mod && sl->mod[0];
}

/* Index of the first of the sorted a[0..n) that is >= x (n if none). */
static size_t ksym_lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Note one kept symbol. */
static void ksym_set_note(struct ksym_set *s, const struct ksym_line_sym *ls)
{
	size_t lo = ksym_lower_bound(s->addr, s->n, ls->start);

	if (lo < s->n && (!s->cand[lo].set || ls->start >= s->cand[lo].start))
		ksym_slot_take(s, &s->cand[lo], ls);
	if (lo > 0 && (!s->ncand[lo - 1].set || ls->start <= s->ncand[lo - 1].start))
		ksym_slot_take(s, &s->ncand[lo - 1], ls);
}

/*
 * A pass over a kallsyms text: each kept symbol goes to sym() while its
 * strings point into the read buffer; chunk() runs after each chunk's
 * complete lines, before the buffer moves, and returns negative errno, 1 to
 * end the pass early, or 0.
 */
struct ksym_scan_ops {
	void (*sym)(void *arg, const struct ksym_line_sym *ls);
	int (*chunk)(void *arg);
};

/* Parse the complete lines of [p, end) (end writable); returns where the
 * unfinished last line starts (end when final). */
static char *ksym_scan_lines(const struct ksym_scan_ops *ops, void *arg, struct ksym_stats *st,
			     size_t *nonzero, char *p, char *end, bool final)
{
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct ksym_line_sym ls;
		bool nz;

		enum ksym_line kl;

		if (!nl && !final)
			return p;
		kl = ksym_parse_line(p, nl ? nl : end, &ls, &nz);
		if (ksym_count_line(st, kl, nz, nonzero)) {
			st->symbols++;
			ops->sym(arg, &ls);
		}
		p = nl ? nl + 1 : end;
	}
	return end;
}

/* ksym_set's sym(): note the symbol, follow the live kernel's order. */
static void ksym_set_sym(void *arg, const struct ksym_line_sym *ls)
{
	struct ksym_set *s = arg;

	ksym_set_note(s, ls);
	if (ls->start < s->top || ls->mod)
		s->in_order = false;
	s->top = ls->start;
}

static int ksym_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Reading the live kernel's /proc/kallsyms may stop early.  The kernel
 * lists its own symbols first, in address order (its lookup tables are
 * sorted), then modules, BPF programs and trampolines, which all live
 * outside the kernel image; the image is one range.  So while every kept
 * line so far is in order and none is a module's, an address below the
 * highest start seen has its symbol and the one after it among the lines
 * read already: nothing later can fall between two symbols of the image.
 * When that holds for every address of the set, the pass ends.  (A
 * kallsyms file given by name is always read to its end.)
 */
static bool ksym_set_decided(const struct ksym_set *s)
{
	return s->live && s->in_order && s->n && s->addr[s->n - 1] < s->top;
}

/* ksym_set's chunk(): copy the strings noted, then end once decided. */
static int ksym_set_chunk(void *arg)
{
	struct ksym_set *s = arg;
	int err = ksym_set_settle(s);

	return err ? err : ksym_set_decided(s);
}

/*
 * The text is read by a second thread into a ring of chunks while this one
 * parses: /proc/kallsyms costs the kernel ~25 ms to generate on the
 * development VM, about as much again as parsing it, so the two overlap.
 */
#define KSYM_RING	4
#define KSYM_CHUNK	(64u << 10)

struct ksym_reader {
	int fd;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *chunk[KSYM_RING];
	size_t len[KSYM_RING];	/* bytes in a filled chunk */
	int err[KSYM_RING];	/* -errno from read, with the chunk it ends */
	bool eof[KSYM_RING];
	unsigned head, tail;	/* filled: [tail, head) */
	bool quit;
};

static void *ksym_reader_main(void *arg)
{
	struct ksym_reader *rd = arg;

	for (;;) {
		pthread_mutex_lock(&rd->mu);
		while (rd->head - rd->tail == KSYM_RING && !rd->quit)
			pthread_cond_wait(&rd->cv, &rd->mu);
		bool quit = rd->quit;
		unsigned i = rd->head % KSYM_RING;
		pthread_mutex_unlock(&rd->mu);
		if (quit)
			return NULL;
		size_t n = 0;
		int err = 0;
		bool eof = false;
		while (n < KSYM_CHUNK) {
			ssize_t r = read(rd->fd, rd->chunk[i] + n, KSYM_CHUNK - n);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				err = r < 0 ? -errno : 0;
				eof = true;
				break;
			}
			n += (size_t)r;
		}
		pthread_mutex_lock(&rd->mu);
		rd->len[i] = n;
		rd->err[i] = err;
		rd->eof[i] = eof;
		rd->head++;
		pthread_cond_broadcast(&rd->cv);
		pthread_mutex_unlock(&rd->mu);
		if (eof)
			return NULL;
	}
}

/* The next chunk of text into dst (room for KSYM_CHUNK bytes): its length,
 * 0 at the end, or -errno. */
static ssize_t ksym_reader_take(struct ksym_reader *rd, char *dst)
{
	pthread_mutex_lock(&rd->mu);
	while (rd->head == rd->tail)
		pthread_cond_wait(&rd->cv, &rd->mu);
	unsigned i = rd->tail % KSYM_RING;
	pthread_mutex_unlock(&rd->mu);
	size_t n = rd->len[i];
	int err = rd->err[i];
	bool eof = rd->eof[i];
	memcpy(dst, rd->chunk[i], n);
	pthread_mutex_lock(&rd->mu);
	if (!n && eof)
		rd->len[i] = 0;		/* stays: every later take sees the end */
	else
		rd->tail++;
	if (n && eof) {			/* the end comes as its own chunk next */
		rd->tail--;
		rd->len[i] = 0;
	}
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	if (n)
		return (ssize_t)n;
	return err;
}

static void ksym_reader_stop(struct ksym_reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	rd->quit = true;
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	pthread_join(rd->th, NULL);
	pthread_mutex_destroy(&rd->mu);
	pthread_cond_destroy(&rd->cv);
	free(rd->chunk[0]);
}

static int ksym_reader_start(struct ksym_reader *rd, int fd)
{
	memset(rd, 0, sizeof(*rd));
	rd->fd = fd;
	rd->chunk[0] = malloc((size_t)KSYM_RING * KSYM_CHUNK);
	if (!rd->chunk[0])
		return -ENOMEM;
	for (unsigned i = 1; i < KSYM_RING; i++)
		rd->chunk[i] = rd->chunk[0] + (size_t)i * KSYM_CHUNK;
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	if (workthread_create(&rd->th, NULL, ksym_reader_main, rd)) {
		pthread_mutex_destroy(&rd->mu);
		pthread_cond_destroy(&rd->cv);
		free(rd->chunk[0]);
		return -EAGAIN;
	}
	return 0;
}

/* Read path through in chunks, giving kept symbols to ops; 0 or -errno,
 * -EPERM and -ENODATA as ksym_load() would fail on the text. */
static int ksym_scan(const char *path, const struct ksym_scan_ops *ops, void *arg)
{
	struct ksym_stats st;
	size_t cap = 256u << 10, len = 0, total = 0, nonzero = 0;
	char *buf = malloc(cap + 1);
	struct ksym_reader rd;
	bool threaded;
	int fd, err = 0;

	memset(&st, 0, sizeof(st));
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	threaded = ksym_reader_start(&rd, fd) == 0;
	for (;;) {
		ssize_t r;
		char *rest;

		if (cap - len < KSYM_CHUNK) {	/* a line longer than the buffer */
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = threaded ? ksym_reader_take(&rd, buf + len) : read(fd, buf + len, cap - len);
		if (r < 0 && !threaded && errno == EINTR)
			continue;
		if (r < 0) {
			err = threaded ? (int)r : -errno;	/* the reader returns -errno */
			break;
		}
		total += (size_t)r;
		if (total > KSYM_MAX_TEXT) {
			err = -EFBIG;
			break;
		}
		len += (size_t)r;
		buf[len] = '\0';
		rest = ksym_scan_lines(ops, arg, &st, &nonzero, buf, buf + len, r == 0);
		err = ops->chunk(arg);
		if (err || r == 0)
			break;	/* > 0: the rest of the text cannot change an answer */
		len -= (size_t)(rest - buf);
		memmove(buf, rest, len);
	}
	if (threaded)
		ksym_reader_stop(&rd);
	close(fd);
	free(buf);
	if (err > 0)
		err = 0;
	if (!err && st.parsed && !nonzero)
		err = -EPERM;
	if (!err && !st.symbols)
		err = -ENODATA;
	return err;
}

int ksym_resolve(struct ksym_set **sp, const char *path, const uint64_t *addrs, size_t n)
{
	struct ksym_set *s;
	int err;

	*sp = NULL;
	if (n > (SIZE_MAX / 4) / sizeof(struct ksym_slot))
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->addr = malloc((n ? n : 1) * sizeof(*s->addr));
	s->cand = calloc(n ? n : 1, sizeof(*s->cand));
	s->ncand = calloc(n ? n : 1, sizeof(*s->ncand));
	s->best = malloc((n ? n : 1) * sizeof(*s->best));
	s->next = malloc((n ? n : 1) * sizeof(*s->next));
	s->dirty = malloc(2 * (n ? n : 1) * sizeof(*s->dirty));
	if (!s->addr || !s->cand || !s->ncand || !s->best || !s->next || !s->dirty) {
		ksym_set_free(s);
		return -ENOMEM;
	}
	if (n)
		memcpy(s->addr, addrs, n * sizeof(*addrs));
	qsort(s->addr, n, sizeof(*s->addr), ksym_u64_cmp);
	for (size_t i = 0; i < n; i++)
		if (!s->n || s->addr[s->n - 1] != s->addr[i])
			s->addr[s->n++] = s->addr[i];
	s->live = !strcmp(path, "/proc/kallsyms");
	s->in_order = true;
	static const struct ksym_scan_ops ops = { ksym_set_sym, ksym_set_chunk };

	err = ksym_scan(path, &ops, s);
	if (err == -EPERM || err == -ENODATA) {
		s->failed = true;	/* no table: every lookup misses */
		err = 0;
	}
	if (err) {
		ksym_set_free(s);
		return err;
	}
	/* prefix maximum of the best candidates (later slots win ties: their
	 * symbols were noted for a larger lower bound, hence a larger start
	 * or the same start listed later) */
	size_t b = SIZE_MAX;
	for (size_t i = 0; i < s->n; i++) {
		if (s->cand[i].set && (b == SIZE_MAX || s->cand[i].start >= s->cand[b].start))
			b = i;
		s->best[i] = b;
	}
	size_t nx = SIZE_MAX;
	for (size_t i = s->n; i-- > 0;) {
		if (s->ncand[i].set && (nx == SIZE_MAX || s->ncand[i].start < s->ncand[nx].start))
			nx = i;
		s->next[i] = nx;
	}
	*sp = s;
	return 0;
}

bool ksym_set_lookup(const struct ksym_set *s, uint64_t addr, struct ksym_hit *hit)
{
	size_t lo;

	if (!s || s->failed)
		return false;
	lo = ksym_lower_bound(s->addr, s->n, addr);
	if (lo == s->n || s->addr[lo] != addr || s->best[lo] == SIZE_MAX)
		return false;
	const struct ksym_slot *b = &s->cand[s->best[lo]];
	const struct ksym_slot *x = s->next[lo] == SIZE_MAX ? NULL : &s->ncand[s->next[lo]];
	bool same = x && ksym_slot_mod(b) == ksym_slot_mod(x) &&
		    (!ksym_slot_mod(b) || !strcmp(b->mod, x->mod));
	uint64_t end = ksym_end(b->start, x ? &x->start : NULL, same);

	if (addr >= end)
		return false;
	hit->name = b->name;
	hit->module = ksym_slot_mod(b) ? b->mod : NULL;
	hit->start = b->start;
	hit->size = end - b->start;
	hit->offset = addr - b->start;
	hit->index = lo;
	hit->type = b->type;
	return true;
}

void ksym_set_free(struct ksym_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->cand && i < s->n; i++) {
		free(s->cand[i].name);
		free(s->cand[i].mod);
	}
	for (size_t i = 0; s->ncand && i < s->n; i++) {
		free(s->ncand[i].name);
		free(s->ncand[i].mod);
	}
	free(s->addr);
	free(s->cand);
	free(s->ncand);
	free(s->best);
	free(s->next);
	free(s->dirty);
	free(s);
}

/* ------------------------------------------------------------ ksym_image */

struct ksym_img {
	uint64_t text;
	int text_rank;		/* 2: _text, 1: _stext, 0: none yet */
	bool have_top, have_next;
	uint64_t top;		/* highest kept start in the image */
	uint64_t next;		/* lowest kept start above top, any DSO */
	bool lost;		/* a rise of top dropped the next candidates */
	bool second;		/* the second pass: top is known */
};

static void ksym_img_sym(void *arg, const struct ksym_line_sym *ls)
{
	struct ksym_img *m = arg;

	if (m->second) {
		if (ls->start > m->top && (!m->have_next || ls->start < m->next)) {
			m->next = ls->start;
			m->have_next = true;
		}
		return;
	}
	if (ls->mod) {
		if ((!m->have_top || ls->start > m->top) && (!m->have_next || ls->start < m->next)) {
			m->next = ls->start;
			m->have_next = true;
		}
		return;
	}
	/* the lowest _text, else the lowest _stext (one of each, really) */
	int rank = !strcmp(ls->name, "_text") ? 2 : !strcmp(ls->name, "_stext") ? 1 : 0;

	if (rank > m->text_rank || (rank && rank == m->text_rank && ls->start < m->text)) {
		m->text = ls->start;
		m->text_rank = rank;
	}
	if (m->have_top && ls->start <= m->top)
		return;
	m->top = ls->start;
	m->have_top = true;
	/* the lowest start above the old top still is the lowest above the
	 * new one when it lies above the new one; else the others are gone */
	if (m->have_next && m->next <= ls->start) {
		m->have_next = false;
		m->lost = true;
	}
}

static int ksym_img_chunk(void *arg)
{
	(void)arg;
	return 0;
}

int ksym_image(const char *path, uint64_t *text, uint64_t *end)
{
	static const struct ksym_scan_ops ops = { ksym_img_sym, ksym_img_chunk };
	struct ksym_img m;
	int err;

	memset(&m, 0, sizeof(m));
	err = ksym_scan(path, &ops, &m);
	if (!err && m.lost) {
		/* a module's symbol came before the image's last: read again
		 * with the top known (the live kernel lists its image first) */
		m.second = true;
		m.have_next = false;
		err = ksym_scan(path, &ops, &m);
	}
	if (err)
		return err;
	if (!m.text_rank || !m.have_top)
		return -ENOENT;
	*text = m.text;
	*end = ksym_end(m.top, m.have_next ? &m.next : NULL, false);
	return 0;
}
