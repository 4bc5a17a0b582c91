/* SPDX-License-Identifier: MIT */
/*
 * fuzz_printfmt.c - libFuzzer target for the print-format compiler
 * (lib/print/printfmt/printfmt.c), differential against libtraceevent.
 *
 * The input drives a generator of event format texts: fields of every size,
 * char arrays and __data_loc strings, and a print format made of literal
 * text (some taken raw from the input, '%' included), integer conversions
 * with random flags/widths/lengths, %s, %p and its symbol forms, odd
 * conversion texts, and arguments built from field reads, numbers, casts,
 * the operators, ?:, !, ~, __print_flags, __print_symbolic, __get_str and
 * string atoms.  libtraceevent parses the text (the generator keeps to what
 * it parses without crashing: no division by a value that can be 0); the
 * compiler must then either refuse the event or print every payload (the
 * rest of the input, in both byte orders) exactly as libtraceevent does, or
 * decline it, and never write past printfmt_max_len() (tests/ppcoracle.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "../tests/ppcoracle.h"

#define FZ_CHECK(c)	do { if (!(c)) { fprintf(stderr, "fuzz_printfmt: %s:%d: %s\n", \
				 __FILE__, __LINE__, #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct gen {
	const uint8_t *p;
	size_t n;
	char *t;		/* the format text being built */
	size_t len, cap;
	int nint, narr, ndyn;	/* fields of each kind */
	bool ok;
};

static unsigned g8(struct gen *g)
{
	if (!g->n)
		return 0;
	g->n--;
	return *g->p++;
}

static void put(struct gen *g, const char *s)
{
	size_t l = strlen(s);
	if (g->len + l + 1 > g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 1024;
		while (nc < g->len + l + 1)
			nc *= 2;
		char *n = realloc(g->t, nc);
		if (!n) {
			g->ok = false;
			return;
		}
		g->t = n;
		g->cap = nc;
	}
	memcpy(g->t + g->len, s, l + 1);
	g->len += l;
}

static void putf(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct gen *g, const char *fmt, ...)
{
	char b[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	put(g, b);
}

static void expr(struct gen *g, int depth);

static void number(struct gen *g)
{
	static const char *const nums[] = { "0", "1", "2", "3", "7", "8", "16", "31", "63", "64", "255",
					    "0x3f", "0x100", "0xffffffff", "0x8000000000000000", "010",
					    "HI_SOFTIRQ", "NOT_A_NUMBER", "1UL" };
	put(g, nums[g8(g) % (sizeof(nums) / sizeof(nums[0]))]);
}

static void expr(struct gen *g, int depth)
{
	static const char *const ops[] = { "+", "-", "*", "<<", ">>", "&", "|", "&&", "||", "==", "!=", "<",
					   "<=", ">", ">=" };
	static const char *const casts[] = { "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "int",
					     "unsigned int", "char", "short", "unsigned char", "long",
					     "unsigned long", "pid_t", "bool", "void *" };
	unsigned k = depth > 3 ? g8(g) % 2 : g8(g) % 9;
	switch (k) {
	case 0:
		if (g->nint)
			putf(g, "REC->i%u", g8(g) % (unsigned)g->nint);
		else
			number(g);
		break;
	case 1:
		number(g);
		break;
	case 2:
		put(g, "(");
		expr(g, depth + 1);
		putf(g, " %s ", ops[g8(g) % (sizeof(ops) / sizeof(ops[0]))]);
		expr(g, depth + 1);
		put(g, ")");
		break;
	case 3:
		putf(g, "(%s)", casts[g8(g) % (sizeof(casts) / sizeof(casts[0]))]);
		expr(g, depth + 1);
		break;
	case 4:
		put(g, "(");
		expr(g, depth + 1);
		put(g, " ? ");
		expr(g, depth + 1);
		put(g, " : ");
		expr(g, depth + 1);
		put(g, ")");
		break;
	case 5:
		put(g, g8(g) & 1 ? "!" : "~");
		expr(g, depth + 1);
		break;
	case 6:	/* division by a constant that is not 0 */
		put(g, "(");
		expr(g, depth + 1);
		putf(g, " %s %u)", g8(g) & 1 ? "/" : "%", 1 + g8(g) % 9);
		break;
	case 7:
		if (g->narr)
			putf(g, "REC->a%u", g8(g) % (unsigned)g->narr);
		else
			number(g);
		break;
	default:
		put(g, "(");
		expr(g, depth + 1);
		put(g, ")");
		break;
	}
}

static void table(struct gen *g, bool flags)
{
	unsigned n = 1 + g8(g) % 6;
	for (unsigned i = 0; i < n; i++) {
		unsigned v = g8(g);
		if (v % 7 == 0)
			putf(g, ", { %s, \"N%u\" }", v & 8 ? "TIMER_SOFTIRQ" : "UNKNOWN_NAME", i);
		else
			putf(g, ", { %s%u, \"N%u\" }", flags ? "0x" : "", flags ? 1u << (v % 12) : v % 12, i);
	}
}

static void sexpr(struct gen *g, int depth)
{
	unsigned k = depth > 2 ? g8(g) % 3 : g8(g) % 6;
	switch (k) {
	case 0:
		if (g->narr)
			putf(g, "REC->a%u", g8(g) % (unsigned)g->narr);
		else
			put(g, "\"noarr\"");
		break;
	case 1:
		if (g->ndyn)
			putf(g, "__get_str(d%u)", g8(g) % (unsigned)g->ndyn);
		else
			put(g, "\"nodyn\"");
		break;
	case 2:
		putf(g, "\"atom%u\"", g8(g) % 4);
		break;
	case 3:
		put(g, "__print_flags(");
		expr(g, depth + 1);
		put(g, g8(g) & 1 ? ", \"|\"" : ", \"\"");
		table(g, true);
		put(g, ")");
		break;
	case 4:
		put(g, "__print_symbolic(");
		expr(g, depth + 1);
		table(g, false);
		put(g, ")");
		break;
	default:
		expr(g, depth + 1);
		put(g, " ? ");
		sexpr(g, depth + 1);
		put(g, " : ");
		sexpr(g, depth + 1);
		break;
	}
}

/* The event format text; false when the input is used up too early. */
static bool make_format(struct gen *g)
{
	put(g, "name: fz\nID: 700\nformat:\n"
	       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	unsigned nf = 1 + g8(g) % 6, off = 8;
	for (unsigned i = 0; i < nf; i++) {
		unsigned k = g8(g) % 6, sz;
		bool sg = g8(g) & 1;
		switch (k) {
		case 4:
			sz = 1 + g8(g) % 24;
			putf(g, "\tfield:char a%d[%u];\toffset:%u;\tsize:%u;\tsigned:0;\n", g->narr++, sz, off, sz);
			break;
		case 5:
			sz = 4;
			off = (off + 3) & ~3u;
			putf(g, "\tfield:__data_loc char[] d%d;\toffset:%u;\tsize:4;\tsigned:0;\n", g->ndyn++, off);
			break;
		default: {
			static const char *const ty[2][4] = { { "u8", "u16", "unsigned int", "unsigned long" },
							      { "s8", "s16", "int", "long" } };
			sz = 1u << k;
			off = (off + sz - 1) & ~(sz - 1);
			putf(g, "\tfield:%s i%d;\toffset:%u;\tsize:%u;\tsigned:%d;\n", ty[sg][k], g->nint++, off, sz,
			     sg);
			break;
		}
		}
		off += sz;
	}
	put(g, "\nprint fmt: \"");
	/* the format string; its arguments are generated afterwards */
	char args[64];
	unsigned nargs = 0, ni = g8(g) % 10;
	for (unsigned i = 0; i < ni && g->n; i++) {
		static const char *const lits[] = { "x=", " ", "%%", "\\t", "\\n", "[", "]", "a|b", "\\\\", ":%c",
						    "%5.2f", "%", "==>", "%+d" };
		static const char *const lens[] = { "", "h", "hh", "l", "ll", "z", "L" };
		unsigned k = g8(g) % 7;
		switch (k) {
		case 0:
			put(g, lits[g8(g) % (sizeof(lits) / sizeof(lits[0]))]);
			break;
		case 1: {
			unsigned fl = g8(g);
			put(g, "%");
			if (fl & 1) put(g, "-");
			if (fl & 2) put(g, "0");
			if (fl & 4) put(g, "#");
			if (fl & 8)
				putf(g, "%u", 1 + g8(g) % 24);
			put(g, lens[g8(g) % 7]);
			putf(g, "%c", "diuxXo"[g8(g) % 6]);
			args[nargs++] = 'n';
			break;
		}
		case 2: {
			unsigned fl = g8(g);
			put(g, "%");
			if (fl & 1) put(g, "-");
			if (fl & 2)
				putf(g, "%u", g8(g) % 20);
			if (fl & 4)
				putf(g, ".%u", g8(g) % 8);
			put(g, "s");
			args[nargs++] = 's';
			break;
		}
		case 3: {
			static const char *const ps[] = { "%p", "%ps", "%pS", "%pf", "%pF", "%pK", "%px" };
			put(g, ps[g8(g) % 7]);
			args[nargs++] = 'n';
			break;
		}
		case 4: {	/* raw bytes of the input, '%' included */
			char raw[24];
			unsigned n = g8(g) % 16, j = 0;
			for (unsigned m = 0; m < n; m++) {
				unsigned c = g8(g);
				if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
					raw[j++] = (char)c;
			}
			raw[j] = '\0';
			put(g, raw);
			break;
		}
		case 5: {	/* odd conversion text */
			put(g, "%");
			unsigned n = g8(g) % 4;
			for (unsigned m = 0; m < n; m++)
				putf(g, "%c", "#hlLzZ.0123456789-"[g8(g) % 18]);
			char c = "diuxXospc"[g8(g) % 9];
			putf(g, "%c", c);
			args[nargs++] = c == 's' ? 's' : 'n';
			break;
		}
		default:
			put(g, " v=%d");
			args[nargs++] = 'n';
			break;
		}
		if (nargs == sizeof(args))
			break;
	}
	put(g, "\"");
	for (unsigned i = 0; i < nargs; i++) {
		put(g, ", ");
		if (args[i] == 's')
			sexpr(g, 0);
		else
			expr(g, 0);
	}
	put(g, "\n");
	return g->ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	bool big = data[0] & 1;
	struct gen g = { .p = data + 1, .n = size - 1, .ok = true };
	/* the generator reads from the front; payloads are the last bytes */
	size_t half = (size - 1) / 2;
	g.n = half;
	if (!make_format(&g)) {
		free(g.t);
		return 0;
	}
	const uint8_t *pay = data + 1 + half;
	size_t plen = size - 1 - half;

	struct tep_handle *tep = tep_alloc();
	if (!tep) {
		free(g.t);
		return 0;
	}
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, BYTES_HOST_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, g.t, g.len, "fz") == 0) {
		struct tep_event *ev = tep_find_event(tep, 700);
		struct printfmt_prog *pg = NULL;
		char why[128];
		if (ev && printfmt_compile(ev, &pg, why, sizeof(why)) == 0) {
			struct ppco o;
			ppco_init(&o, tep);
			uint8_t raw[512];
			/* the payload from the input, common_type set; a second
			 * try with every __data_loc made valid */
			for (int pass = 0; pass < 2; pass++) {
				size_t n = plen < sizeof(raw) - 64 ? plen : sizeof(raw) - 64;
				memset(raw, 0, sizeof(raw));
				memcpy(raw, pay, n);
				for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
					if (f->offset >= 0 && f->size >= 0 && f->offset + f->size <= 256 &&
					    (size_t)(f->offset + f->size) > n && (pass || (pay[0] & 2)))
						n = (size_t)(f->offset + f->size);
				if (n < 2)
					n = 2;
				bytes_st16(raw, 700, big != (bool)BYTES_HOST_BIG_ENDIAN);
				if (pass) {
					for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
						if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + 4 > (int)sizeof(raw))
							continue;
						uint32_t at = (uint32_t)n, len = 1 + (f->offset % 5);
						memset(raw + at, 'q', len - 1);
						raw[at + len - 1] = 0;
						bytes_st32(raw + f->offset, len << 16 | at, big != (bool)BYTES_HOST_BIG_ENDIAN);
						n += len;
					}
				}
				FZ_CHECK(ppco_check(&o, tep, pg, raw, (uint32_t)n, stderr, 1) == 0);
			}
			ppco_done(&o, tep);
		}
		printfmt_free(pg);
	}
	tep_free(tep);
	free(g.t);
	return 0;
}
