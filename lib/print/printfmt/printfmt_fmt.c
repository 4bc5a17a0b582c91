/* SPDX-License-Identifier: MIT */
/* printfmt_fmt.c - printfmt: compiling the print format string into output steps (see printfmt.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "printfmt_int.h"

/* ------------------------------------------------------------ the format */

static long step_new(struct printfmt_prog *pg, uint8_t kind)
{
	long i = NEW(pg, st, nst, cst);
	if (i >= 0) {
		memset(&pg->st[i], 0, sizeof(pg->st[i]));
		pg->st[i].kind = kind;
		pg->st[i].prec = -1;
	}
	return i;
}

static int lit_step(struct printfmt_prog *pg, const char *t, size_t len)
{
	if (!len)
		return 0;
	/* extend the previous literal when it ends the pool */
	if (pg->nst && pg->st[pg->nst - 1].kind == P_LIT &&
	    pg->st[pg->nst - 1].a + pg->st[pg->nst - 1].len == pg->npool) {
		if (printfmt_pool_add(pg, t, len) < 0)
			return -1;
		pg->st[pg->nst - 1].len += (uint32_t)len;
		return 0;
	}
	long off = printfmt_pool_add(pg, t, len);
	long i = off < 0 ? -1 : step_new(pg, P_LIT);
	if (i < 0)
		return -1;
	pg->st[i].a = (uint32_t)off;
	pg->st[i].len = (uint32_t)len;
	return 0;
}

/* Width digits at *p (advanced); -1 when too large. */
static int32_t digits(const char **p)
{
	int64_t v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > PRINTFMT_MAX_WIDTH)
			return -1;
		(*p)++;
	}
	return (int32_t)v;
}

/*
 * A conversion's text from '%' to its letter, as the library hands it to
 * printf: accept the forms whose printf output we reproduce.
 */
static int spec_int(struct printfmt_prog *pg, struct pstep *s, const char *spec, size_t len)
{
	const char *p = spec + 1, *end = spec + len - 1;
	for (; p < end && strchr("-0#", *p); p++) {
		if (*p == '-')
			s->left = true;
		else if (*p == '0')
			s->zero = true;
		else
			s->alt = true;
	}
	if ((s->width = digits(&p)) < 0)
		return printfmt_decline(pg, "width in %.*s", (int)len, spec);
	int ls = 0;
	if (p < end && *p == 'h') {
		ls = (p + 1 < end && p[1] == 'h') ? -2 : -1;
		p += -ls;
	} else if (p < end && *p == 'l') {
		ls = (p + 1 < end && p[1] == 'l') ? 2 : 1;
		p += ls;
	} else if (p < end && (*p == 'z' || *p == 'L')) {
		ls = *p == 'L' ? 2 : 1;	/* glibc: %Ld is %lld */
		p++;
	}
	if (p != end)
		return printfmt_decline(pg, "conversion %.*s", (int)len, spec);
	if (ls == 1 && sizeof(long) != 8)
		return printfmt_decline(pg, "%%l on a host whose long is not 64-bit");
	s->bits = ls == -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
	s->conv = (uint8_t)(*end == 'i' ? 'd' : *end);
	if (s->left)
		s->zero = false;
	return 0;
}

static int spec_str(struct printfmt_prog *pg, struct pstep *s, const char *spec, size_t len)
{
	const char *p = spec + 1, *end = spec + len - 1;
	for (; p < end && *p == '-'; p++)
		s->left = true;
	if ((s->width = digits(&p)) < 0)
		return printfmt_decline(pg, "width in %.*s", (int)len, spec);
	if (p < end && *p == '.') {
		p++;
		if ((s->prec = digits(&p)) < 0)
			return printfmt_decline(pg, "precision in %.*s", (int)len, spec);
	}
	if (p != end)
		return printfmt_decline(pg, "conversion %.*s", (int)len, spec);
	return 0;
}

/* Worst-case bytes of a string argument printed with step s's width:
 * the static part, and how many dynamic strings (each up to the payload). */
size_t printfmt_str_bound(const struct printfmt_prog *pg, uint32_t i, const struct pstep *s, uint32_t *dyn, int depth)
{
	const struct pstr *a = &pg->s[i];
	size_t w = s->width > 0 ? (size_t)s->width : 0, b = 0;
	switch (a->kind) {
	case S_NONE:
		return 0;
	case S_LIT:
	case S_ARRAY:
		b = a->len;
		break;
	case S_DYN:
		(*dyn)++;
		break;
	case S_FLAGS:
		for (uint32_t k = 0; k < a->c; k++)
			b += (pg->e[a->b + k].len > w ? pg->e[a->b + k].len : w) + a->dlen;
		return b + a->dlen + 18;
	case S_SYMBOLIC:
		for (uint32_t k = 0; k < a->c; k++)
			if (pg->e[a->b + k].len > b)
				b = pg->e[a->b + k].len;
		b = b > w ? b : w;
		return b > 18 ? b : 18;
	case S_COND: {
		if (depth > PRINTFMT_MAX_DEPTH + 2)
			return 0;
		uint32_t d1 = 0, d2 = 0;
		size_t x = printfmt_str_bound(pg, a->b, s, &d1, depth + 1), y = printfmt_str_bound(pg, a->c, s, &d2, depth + 1);
		*dyn += d1 > d2 ? d1 : d2;
		return x > y ? x : y;
	}
	}
	return b + w;
}

/*
 * One conversion at f ('%' and not "%%"): flags, width, length, letter,
 * compiled into a step of the argument *argp (then advanced to the next);
 * an unknown letter is printed as the library does, ">c<".  Returns the
 * bytes of f the library counts for it, 0 when the end cuts it (nothing
 * printed, the format ends there), or negative (declined, out of memory).
 */
static long c_conversion(struct printfmt_prog *pg, const char *f, struct tep_print_arg **argp)
{
	struct tep_print_arg *arg = *argp;
	const char *start = f++;
	long ret = 1;
	for (; *f; f++, ret++) {
		if (strchr("#hlLzZ.0123456789-", *f))
			continue;
		if (*f == '*')
			return printfmt_decline(pg, "'*' width");
		break;
	}
	if (!*f)
		return 0;
	char c = *f;
	size_t slen = (size_t)(f - start) + 1;
	long i;
	if (c == 'p' || c == 'd' || c == 'u' || c == 'i' || c == 'x' || c == 'X' || c == 'o' || c == 's') {
		if (!arg)
			return printfmt_decline(pg, "more conversions than arguments");
	}
	switch (c) {
	case 'p': {
		char ext = f[1];
		if (ext && strchr("MmIiUh", ext))
			return printfmt_decline(pg, "%%p%c", ext);
		if (arg->type == TEP_PRINT_BSTRING)
			return printfmt_decline(pg, "%%p of a string");
		bool fn = ext && strchr("FfSs", ext);
		i = step_new(pg, fn ? P_SYM : P_PTR);
		long x = i < 0 ? -1 : printfmt_c_num(pg, arg, 0);
		if (x < 0)
			return -1;
		pg->st[i].a = (uint32_t)x;
		pg->st[i].with_off = ext == 'F' || ext == 'S';
		if (fn) {
			pg->syms = true;
			ret++;
		}
		*argp = arg->next;
		break;
	}
	case 'd': case 'u': case 'i': case 'x': case 'X': case 'o': {
		i = step_new(pg, P_INT);
		if (i < 0 || spec_int(pg, &pg->st[i], start, slen) < 0)
			return -1;
		long x = printfmt_c_num(pg, arg, 0);
		if (x < 0)
			return -1;
		pg->st[i].a = (uint32_t)x;
		*argp = arg->next;
		break;
	}
	case 's': {
		i = step_new(pg, P_STR);
		if (i < 0 || spec_str(pg, &pg->st[i], start, slen) < 0)
			return -1;
		long x = printfmt_c_str(pg, arg, 0);
		if (x < 0)
			return -1;
		pg->st[i].a = (uint32_t)x;
		*argp = arg->next;
		break;
	}
	default: {
		/* the library prints an unknown conversion as ">c<" */
		char lit[3] = { '>', c, '<' };
		if (lit_step(pg, lit, 3) < 0)
			return -1;
		break;
	}
	}
	return ret + 1;
}

/* The text at f up to the next conversion, with \n \t \r \\ and %%, into
 * literal steps.  Returns the bytes of f it spans, or negative (declined,
 * out of memory). */
static long c_text(struct printfmt_prog *pg, const char *f)
{
	char lit[64];
	size_t n = 0;
	long ret = 0;
	for (; *f; f++, ret++) {
		char ch = *f;
		if (ch == '\\') {
			if (!f[1])
				return printfmt_decline(pg, "format ends in a backslash");
			f++;
			ret++;
			ch = *f == 'n' ? '\n' : *f == 't' ? '\t' : *f == 'r' ? '\r' : *f;
		} else if (ch == '%') {
			if (f[1] != '%')
				break;
			f++;
			ret++;
		}
		if (n == sizeof(lit)) {
			if (lit_step(pg, lit, n) < 0)
				return -1;
			n = 0;
		}
		lit[n++] = ch;
	}
	if (lit_step(pg, lit, n) < 0)
		return -1;
	return ret;
}

/* Segment the format as libtraceevent's parse_args does, compiling each
 * part: a conversion or a run of text. */
int printfmt_c_format(struct printfmt_prog *pg, const char *f)
{
	struct tep_print_arg *arg = pg->ev->print_fmt.args;
	long remaining = (long)strlen(f);
	while (*f) {
		long ret;
		if (f[0] == '%' && f[1] != '%') {
			ret = c_conversion(pg, f, &arg);
			if (!ret)
				break;	/* a conversion cut by the end: nothing printed */
		} else {
			ret = c_text(pg, f);
		}
		if (ret < 0)
			return (int)ret;
		remaining -= ret;
		if (remaining <= 0)
			break;
		f += ret;
	}
	return 0;
}
