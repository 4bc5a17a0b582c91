/* SPDX-License-Identifier: MIT */
/* ksym.c - kernel symbol table from kallsyms text (see ksym.h). */
/* ksym_resolve() is in ksym_resolve.c; the line parser both use is declared in ksym_int.h. */
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

#include "ksym_int.h"

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

/*
 * Parse [p, eol) (eol points at '\n' or at buf[len], both writable).  On
 * KL_SYM the name (and module) are NUL-terminated in place.  *nonzero tells
 * whether the line (any type) had a non-zero address.  A NUL byte can only
 * hide in the name or module (elsewhere it fails the hex/separator checks;
 * as the type letter it is simply not a kept type).
 */
enum ksym_line ksym_parse_line(char *p, char *eol, struct ksym_line_sym *out, bool *nonzero)
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
bool ksym_count_line(struct ksym_stats *st, enum ksym_line kl, bool nz, size_t *nonzero)
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
uint64_t ksym_end(uint64_t start, const uint64_t *next, bool next_same_dso)
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

