/* SPDX-License-Identifier: MIT */
/* ksym.c - kernel symbol table from kallsyms text (see ksym.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ksym.h"

#define KSYM_PAGE	4096u
#define KSYM_HUGE	(2u << 20)

/* 24 bytes: names are offsets into the text buffer; the type letter sits two
 * bytes before the name ("ADDR T NAME").  mod 0 = the kernel image. */
struct ksym_sym {
	uint64_t start;
	uint64_t end;		/* exclusive */
	uint32_t name;
	uint32_t mod;
};

struct ksym {
	char *buf;		/* the text, separators replaced by NULs */
	size_t len;
	struct ksym_sym *syms;	/* [0, n) in lookup; [n, n + aliases) hidden */
	size_t n;
	size_t total;		/* n + aliases */
	struct ksym_stats st;
};

/*
 * The text and the symbol array are filled once, front to back, and are
 * ~10 MB for a real kallsyms: as 4 KiB pages that is ~2000 page faults,
 * which dominated the load time in a VM (about 12 us each).  Large buffers
 * are therefore 2 MiB-aligned and marked MADV_HUGEPAGE (a hint; it may be
 * ignored).  Every buffer is released with free().
 */
static void *ksym_alloc(size_t bytes)
{
	void *p;

	if (bytes < KSYM_HUGE)
		return malloc(bytes);
	bytes = (bytes + KSYM_HUGE - 1) & ~(size_t)(KSYM_HUGE - 1);
	if (posix_memalign(&p, KSYM_HUGE, bytes))
		return NULL;
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/* Grow *p from old to new bytes (new > old), keeping the contents. */
static int ksym_grow(void **p, size_t old, size_t new)
{
	void *np = ksym_alloc(new);

	if (!np)
		return -ENOMEM;
	memcpy(np, *p, old);
	free(*p);
	*p = np;
	return 0;
}

/* Types perf's symbol_type__filter keeps (either case for T W D B). */
static bool ksym_type_kept(char t)
{
	switch (t) {
	case 'T': case 't': case 'W': case 'w':
	case 'D': case 'd': case 'B': case 'b':
	case 'u': case 'l': case 'N': case '1':
		return true;
	default:
		return false;
	}
}

static int ksym_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Result of one line: symbol stored, or which counter to bump. */
enum ksym_line { KL_SYM, KL_BAD, KL_OTHER, KL_BADADDR };

/* One parsed line: the name and module point into the text. */
struct ksym_line_sym {
	uint64_t start;
	char *name;
	char *mod;		/* NULL: the kernel image */
	char type;
};

/*
 * Parse [p, eol) (eol points at '\n' or at buf[len], both writable).  On
 * KL_SYM the name (and module) are NUL-terminated in place.  *nonzero tells
 * whether the line (any type) had a non-zero address.  A NUL byte can only
 * hide in the name or module (elsewhere it fails the hex/separator checks;
 * as the type letter it is simply not a kept type).
 */
static enum ksym_line ksym_parse_line(char *p, char *eol, struct ksym_line_sym *out, bool *nonzero)
{
	char *q = p, *name, *nend, *mod = NULL, *mend = NULL;
	uint64_t v = 0;
	unsigned digits = 0;
	char type;
	int h;

	*nonzero = false;
	if (eol > p && eol[-1] == '\r')
		eol--;
	while (q < eol && (h = ksym_hexval((unsigned char)*q)) >= 0) {
		if (digits == 16)
			return KL_BAD;
		v = v << 4 | (unsigned)h;
		digits++;
		q++;
	}
	if (!digits || q >= eol || (*q != ' ' && *q != '\t'))
		return KL_BAD;
	q++;
	if (q >= eol)
		return KL_BAD;
	type = *q++;
	if (q >= eol || (*q != ' ' && *q != '\t'))
		return KL_BAD;
	name = ++q;
	while (q < eol && *q != '\t' && *q != '\0')
		q++;
	nend = q;
	if (nend == name || nend - name >= KSYM_NAME_MAX || (q < eol && *q == '\0'))
		return KL_BAD;
	if (q < eol) {
		/* "\t[module]"; anything else after the tab is ignored */
		char *r = ++q;

		while (q < eol && *q != '\0')
			q++;
		if (q < eol)
			return KL_BAD;
		if (eol - r >= 3 && r[0] == '[' && eol[-1] == ']') {
			mod = r + 1;
			mend = eol - 1;
		}
	}
	*nonzero = v != 0;
	if (!ksym_type_kept(type) || name[0] == '$')
		return KL_OTHER;
	if (v == 0 || v == UINT64_MAX)
		return KL_BADADDR;
	*nend = '\0';
	if (mod)
		*mend = '\0';
	out->start = v;
	out->name = name;
	out->mod = mod;
	out->type = type;
	return KL_SYM;
}

/* Count one line's outcome; true when it gave a symbol. */
static bool ksym_count_line(struct ksym_stats *st, enum ksym_line kl, bool nz, size_t *nonzero)
{
	st->lines++;
	*nonzero += nz;
	switch (kl) {
	case KL_SYM:
		st->parsed++;
		return true;
	case KL_OTHER:
		st->parsed++;
		st->other_types++;
		break;
	case KL_BADADDR:
		st->parsed++;
		st->bad_addr++;
		break;
	case KL_BAD:
		st->malformed++;
		break;
	}
	return false;
}

/* Address order; ties in input order (name offsets grow down the text). */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* perf's end for a symbol with nothing after it in its DSO:
 * roundup(start + 4096, 4096), saturated. */
static uint64_t ksym_page_end(uint64_t start)
{
	uint64_t base = start & ~(uint64_t)(KSYM_PAGE - 1), e;

	if (__builtin_add_overflow(base, (uint64_t)KSYM_PAGE, &e))
		return UINT64_MAX;
	if ((start & (KSYM_PAGE - 1)) && __builtin_add_overflow(e, (uint64_t)KSYM_PAGE, &e))
		return UINT64_MAX;
	return e;
}

/* Where a symbol ends (perf's symbols__fixup_end): at the next symbol in
 * its DSO, else at the page after its start, clamped to the next symbol. */
static uint64_t ksym_end(uint64_t start, const uint64_t *next, bool next_same_dso)
{
	uint64_t e;

	if (next && next_same_dso)
		return *next;
	e = ksym_page_end(start);
	return next && e > *next ? *next : e;
}

static bool ksym_same_dso(const struct ksym *k, const struct ksym_sym *a,
			  const struct ksym_sym *b)
{
	if (!a->mod || !b->mod)
		return !a->mod && !b->mod;
	return !strcmp(k->buf + a->mod, k->buf + b->mod);
}

/* Parse k->buf[0, len) (k->buf[len] writable) into k->syms. */
static int ksym_index(struct ksym *k)
{
	char *p = k->buf, *end = k->buf + k->len;
	/* real lines average ~45 bytes: one doubling at most for real files */
	size_t cap = k->len / 32 + 16, n = 0, nonzero = 0, w;

	k->syms = ksym_alloc(cap * sizeof(*k->syms));
	if (!k->syms)
		return -ENOMEM;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		bool nz;

		if (n == cap) {
			if (ksym_grow((void **)&k->syms, cap * sizeof(*k->syms),
				      2 * cap * sizeof(*k->syms)))
				return -ENOMEM;
			cap *= 2;
		}

		struct ksym_line_sym ls;
		enum ksym_line kl = ksym_parse_line(p, eol, &ls, &nz);

		if (ksym_count_line(&k->st, kl, nz, &nonzero)) {
			k->syms[n].start = ls.start;
			k->syms[n].end = 0;
			k->syms[n].name = (uint32_t)(ls.name - k->buf);
			k->syms[n].mod = ls.mod ? (uint32_t)(ls.mod - k->buf) : 0;
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	if (k->st.parsed && !nonzero)
		return -EPERM;
	if (!n)
		return -ENODATA;

	k->st.sorted = true;
	for (size_t i = 1; i < n; i++) {
		if (k->syms[i].start < k->syms[i - 1].start) {
			k->st.sorted = false;
			break;
		}
	}
	if (!k->st.sorted)
		qsort(k->syms, n, sizeof(*k->syms), ksym_cmp);

	/* Aliases: the last of each equal-start run stays; the others are
	 * swapped to the tail for ksym_find. */
	w = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && k->syms[i + 1].start == k->syms[i].start)
			continue;
		if (w != i) {
			struct ksym_sym t = k->syms[w];

			k->syms[w] = k->syms[i];
			k->syms[i] = t;
		}
		w++;
	}
	k->total = n;
	k->n = w;
	k->st.aliases = n - w;
	k->st.symbols = w;

	for (size_t i = 0; i < w; i++) {
		struct ksym_sym *s = &k->syms[i];

		if (s->mod)
			k->st.modules++;
		s->end = ksym_end(s->start, i + 1 < w ? &s[1].start : NULL,
				  i + 1 < w && ksym_same_dso(k, s, s + 1));
	}
	return 0;
}

/* Takes ownership of buf (len bytes of text, one more writable byte). */
static int ksym_new(struct ksym **kp, char *buf, size_t len)
{
	struct ksym *k = calloc(1, sizeof(*k));
	int rc;

	if (!k) {
		free(buf);
		return -ENOMEM;
	}
	k->buf = buf;
	k->len = len;
	k->buf[len] = '\0';
	rc = ksym_index(k);
	if (rc) {
		ksym_free(k);
		return rc;
	}
	*kp = k;
	return 0;
}

int ksym_load_mem(struct ksym **kp, const char *text, size_t len)
{
	char *buf;

	*kp = NULL;
	if (len > KSYM_MAX_TEXT)
		return -EFBIG;
	if (!text && len)
		return -EINVAL;
	buf = ksym_alloc(len + 1);
	if (!buf)
		return -ENOMEM;
	if (len)
		memcpy(buf, text, len);
	return ksym_new(kp, buf, len);
}

int ksym_load(struct ksym **kp, const char *path)
{
	size_t cap, len = 0;
	struct stat sb;
	char *buf;
	int fd, rc;

	*kp = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* /proc/kallsyms reports size 0: start big enough for most kernels */
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		if ((uint64_t)sb.st_size > KSYM_MAX_TEXT) {
			close(fd);
			return -EFBIG;
		}
		cap = (size_t)sb.st_size + 2;
	} else {
		cap = 16u << 20;
	}
	buf = ksym_alloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (cap - len < 2) {
			if (ksym_grow((void **)&buf, len, cap * 2)) {
				rc = -ENOMEM;
				goto fail;
			}
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > KSYM_MAX_TEXT) {
			rc = -EFBIG;
			goto fail;
		}
	}
	close(fd);
	return ksym_new(kp, buf, len);
fail:
	close(fd);
	free(buf);
	return rc;
}

void ksym_free(struct ksym *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->buf);
	free(k);
}

static void ksym_fill(const struct ksym *k, size_t i, uint64_t addr, struct ksym_hit *hit)
{
	const struct ksym_sym *s = &k->syms[i];

	hit->name = k->buf + s->name;
	hit->module = s->mod ? k->buf + s->mod : NULL;
	hit->start = s->start;
	hit->size = s->end - s->start;
	hit->offset = addr - s->start;
	hit->index = i;
	hit->type = k->buf[s->name - 2];
}

bool ksym_lookup(const struct ksym *k, uint64_t addr, struct ksym_hit *hit)
{
	size_t lo = 0, hi;

	if (!k)
		return false;
	hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= k->syms[lo - 1].end)
		return false;
	ksym_fill(k, lo - 1, addr, hit);
	return true;
}

bool ksym_get(const struct ksym *k, size_t i, struct ksym_hit *hit)
{
	if (!k || i >= k->n)
		return false;
	ksym_fill(k, i, k->syms[i].start, hit);
	return true;
}

bool ksym_find(const struct ksym *k, const char *name, const char *module, uint64_t *addr)
{
	if (!k || !name)
		return false;
	for (size_t i = 0; i < k->total; i++) {
		const struct ksym_sym *s = &k->syms[i];

		if (strcmp(k->buf + s->name, name))
			continue;
		if (module ? !s->mod || strcmp(k->buf + s->mod, module) : s->mod != 0)
			continue;
		*addr = s->start;
		return true;
	}
	return false;
}

size_t ksym_count(const struct ksym *k)
{
	return k ? k->n : 0;
}

const struct ksym_stats *ksym_stats(const struct ksym *k)
{
	return &k->st;
}

int ksym_format(char *buf, size_t len, const struct ksym_hit *hit)
{
	if (hit->module)
		return snprintf(buf, len, "%s+0x%" PRIx64 " ([%s])", hit->name, hit->offset,
				hit->module);
	return snprintf(buf, len, "%s+0x%" PRIx64 " (" KSYM_KERNEL_DSO ")", hit->name,
			hit->offset);
}

bool ksym_matches_running(const char *osrelease, const char *arch)
{
	struct utsname u;

	if (!osrelease || !arch || uname(&u))
		return false;
	return !strcmp(osrelease, u.release) && !strcmp(arch, u.machine);
}

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

/* Parse the complete lines of [p, end) (end writable); returns where the
 * unfinished last line starts (end when final). */
static char *ksym_set_lines(struct ksym_set *s, struct ksym_stats *st, size_t *nonzero,
			    char *p, char *end, bool final)
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
			ksym_set_note(s, &ls);
			if (ls.start < s->top || ls.mod)
				s->in_order = false;
			s->top = ls.start;
		}
		p = nl ? nl + 1 : end;
	}
	return end;
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
	if (pthread_create(&rd->th, NULL, ksym_reader_main, rd)) {
		pthread_mutex_destroy(&rd->mu);
		pthread_cond_destroy(&rd->cv);
		free(rd->chunk[0]);
		return -EAGAIN;
	}
	return 0;
}

/* Read path through in chunks, noting symbols; 0 or -errno. */
static int ksym_set_read(struct ksym_set *s, const char *path)
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
		if (r < 0 && errno == EINTR && !threaded)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		total += (size_t)r;
		if (total > KSYM_MAX_TEXT) {
			err = -EFBIG;
			break;
		}
		len += (size_t)r;
		buf[len] = '\0';
		rest = ksym_set_lines(s, &st, &nonzero, buf, buf + len, r == 0);
		err = ksym_set_settle(s);
		if (err || r == 0)
			break;
		if (ksym_set_decided(s))
			break;	/* the rest of the text cannot change an answer */
		len -= (size_t)(rest - buf);
		memmove(buf, rest, len);
	}
	if (threaded)
		ksym_reader_stop(&rd);
	close(fd);
	free(buf);
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
	err = ksym_set_read(s, path);
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
