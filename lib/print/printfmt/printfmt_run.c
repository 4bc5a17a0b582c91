/* SPDX-License-Identifier: MIT */
/* printfmt_run.c - printfmt: running a compiled program over one raw payload (see printfmt.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "printfmt_int.h"

/* ------------------------------------------------------------ running */

struct run {
	const struct printfmt_prog *pg;
	const uint8_t *raw;
	uint32_t size;
	bool fallback;
};

static uint64_t ld(const uint8_t *p, unsigned size, bool swap)
{
	switch (size) {
	case 1: return p[0];
	case 2: return bytes_ld16(p, swap);
	case 4: return bytes_ld32(p, swap);
	case 8: return bytes_ld64(p, swap);
	default: return 0;
	}
}

static uint64_t eval(const struct run *r, uint32_t i)
{
	const struct pexpr *x = &r->pg->x[i];
	for (;;) {
		switch (x->kind) {
		case X_CONST:
			return x->k;
		case X_FIELD:
			return ld(r->raw + x->off, x->size, r->pg->swap);
		case X_CAST:
			return eval(r, x->a) & x->k;
		case X_BIN:
			return printfmt_x_binop(x->op, eval(r, x->a), eval(r, x->b));
		case X_COND:
			x = &r->pg->x[eval(r, x->a) ? x->b : x->c];
			continue;
		default:
			return 0;
		}
	}
}

static inline char *put(char *o, const char *s, size_t n)
{
	bytes_copy(o, s, n);
	return o + n;
}

/* A string piece as printf("%-W.Ps") prints it. */
static char *put_str(char *o, const char *s, size_t n, const struct pstep *st)
{
	if (st->prec >= 0 && n > (size_t)st->prec)
		n = (size_t)st->prec;
	size_t pad = st->width > 0 && (size_t)st->width > n ? (size_t)st->width - n : 0;
	if (!st->left && pad) {
		memset(o, ' ', pad);
		o += pad;
	}
	o = put(o, s, n);
	if (st->left && pad) {
		memset(o, ' ', pad);
		o += pad;
	}
	return o;
}

static char *put_hex(char *o, uint64_t v, bool upper)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *d = upper ? up : lo;
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = d[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*o++ = tmp[--n];
	return o;
}

static char *put_0x(char *o, uint64_t v)
{
	o[0] = '0';
	o[1] = 'x';
	return put_hex(o + 2, v, false);
}

/* An integer as printf prints it with this step's conversion. */
static char *put_int(char *o, uint64_t v, const struct pstep *st)
{
	char tmp[32];
	char *e = tmp + sizeof(tmp), *b = e;
	const char *pre = "";
	bool neg = false;
	if (st->bits < 64)
		v &= (1ull << st->bits) - 1;
	switch (st->conv) {
	case 'd':
		if (st->bits < 64 && (v >> (st->bits - 1)) & 1)
			v |= ~0ull << st->bits;	/* sign-extend */
		if ((int64_t)v < 0) {
			neg = true;
			v = -v;
		}
		/* fall through */
	case 'u': {
		/* two digits per division */
		const char *d2 = printfmt_digits2;
		while (v >= 100) {
			unsigned k = (unsigned)(v % 100) * 2;
			v /= 100;
			*--b = d2[k + 1];
			*--b = d2[k];
		}
		if (v >= 10) {
			*--b = d2[v * 2 + 1];
			*--b = d2[v * 2];
		} else {
			*--b = (char)('0' + v);
		}
		if (!st->width && !neg) {
			size_t nd = (size_t)(e - b);
			bytes_copy(o, b, nd);
			return o + nd;
		}
		break;
	}
	case 'o':
		do {
			*--b = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		if (st->alt && *b != '0')
			*--b = '0';
		break;
	default: {	/* x X */
		static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
		const char *d = st->conv == 'X' ? up : lo;
		if (st->alt && v)
			pre = st->conv == 'X' ? "0X" : "0x";
		do {
			*--b = d[v & 15];
			v >>= 4;
		} while (v);
		break;
	}
	}
	size_t nd = (size_t)(e - b), np = neg ? 1 : strlen(pre);
	size_t pad = st->width > 0 && (size_t)st->width > nd + np ? (size_t)st->width - nd - np : 0;
	if (pad && !st->left && !st->zero) {
		memset(o, ' ', pad);
		o += pad;
	}
	if (neg)
		*o++ = '-';
	else
		o = put(o, pre, np);
	if (pad && st->zero) {
		memset(o, '0', pad);
		o += pad;
	}
	o = put(o, b, nd);
	if (pad && st->left) {
		memset(o, ' ', pad);
		o += pad;
	}
	return o;
}

/* The __get_str text: where it is and how long, or false (fallback). */
static bool dyn_str(struct run *r, const struct pstr *a, const char **s, size_t *n)
{
	uint32_t v = bytes_ld32(r->raw + a->off, r->pg->swap);
	uint32_t o = v & 0xffff, l = v >> 16;
	uint32_t off = o > r->size ? 0 : o;
	uint32_t len = o + l > r->size ? 0 : l;
	if (a->rel)
		off += a->off + 4;
	*n = 0;
	if (!len)
		return true;	/* the library prints nothing */
	if (off >= r->size)
		return false;
	const char *p = (const char *)r->raw + off;
	const char *z = memchr(p, '\0', r->size - off);
	if (!z)
		return false;	/* the library would read past the payload */
	*s = p;
	*n = (size_t)(z - p);
	return true;
}

static char *run_str(struct run *r, char *o, uint32_t i, const struct pstep *st)
{
	const struct printfmt_prog *pg = r->pg;
	const struct pstr *a = &pg->s[i];
	for (;;) {
		switch (a->kind) {
		case S_NONE:
			return o;
		case S_LIT:
			return put_str(o, pg->pool + a->off, a->len, st);
		case S_ARRAY: {
			const char *p = (const char *)r->raw + a->off;
			return put_str(o, p, strnlen(p, a->len), st);
		}
		case S_DYN: {
			const char *s = NULL;
			size_t n;
			if (!dyn_str(r, a, &s, &n)) {
				r->fallback = true;
				return o;
			}
			return s ? put_str(o, s, n, st) : o;
		}
		case S_FLAGS: {
			int64_t val = (int64_t)eval(r, a->a);
			bool printed = false;
			for (uint32_t k = 0; k < a->c; k++) {
				const struct pentry *e = &pg->e[a->b + k];
				if (!val && e->val < 0) {
					o = put_str(o, pg->pool + e->off, e->len, st);
					break;
				}
				if (e->val > 0 && (val & e->val) == e->val) {
					if (printed && a->has_delim)
						o = put(o, pg->pool + a->doff, a->dlen);
					o = put_str(o, pg->pool + e->off, e->len, st);
					printed = true;
					val &= ~e->val;
				}
			}
			if (val) {
				if (printed && a->has_delim)
					o = put(o, pg->pool + a->doff, a->dlen);
				o = put_0x(o, (uint64_t)val);
			}
			return o;
		}
		case S_SYMBOLIC: {
			int64_t val = (int64_t)eval(r, a->a);
			for (uint32_t k = 0; k < a->c; k++) {
				const struct pentry *e = &pg->e[a->b + k];
				if (val == e->val)
					return put_str(o, pg->pool + e->off, e->len, st);
			}
			return put_0x(o, (uint64_t)val);
		}
		case S_COND:
			a = &pg->s[eval(r, a->a) ? a->b : a->c];
			continue;
		default:
			return o;
		}
	}
}

int printfmt_run(const struct printfmt_prog *pg, const uint8_t *raw, uint32_t raw_size, char *out,
	    const struct printfmt_symcb *syms)
{
	struct run r = { pg, raw, raw_size, false };
	if (raw_size < pg->min_size || ld(raw + pg->type_off, pg->type_size, pg->swap) != pg->id)
		return PRINTFMT_FALLBACK;
	char *o = out;
	for (size_t i = 0; i < pg->nst; i++) {
		const struct pstep *st = &pg->st[i];
		switch (st->kind) {
		case P_LIT:
			o = put(o, pg->pool + st->a, st->len);
			break;
		case P_INT: {
			const struct pexpr *x = &pg->x[st->a];
			uint64_t v = x->kind == X_FIELD ? ld(raw + x->off, x->size, pg->swap) : eval(&r, st->a);
			o = put_int(o, v, st);
			break;
		}
		case P_STR:
			o = run_str(&r, o, st->a, st);
			if (r.fallback)
				return PRINTFMT_FALLBACK;
			break;
		case P_PTR: {
			uint64_t v = eval(&r, st->a);
			if (!v) {
				memcpy(o, "(nil)", 5);
				o += 5;
			} else {
				o = put_0x(o, v);
			}
			break;
		}
		case P_SYM: {
			uint64_t v = eval(&r, st->a);
			if (syms && syms->fn)
				o += syms->fn(syms->ctx, v, st->with_off, o);
			else
				o = put_0x(o, v);
			break;
		}
		}
	}
	return (int)(o - out);
}
