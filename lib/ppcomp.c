/* SPDX-License-Identifier: MIT */
/* ppcomp.c - tracepoint print formats compiled to small programs (see ppcomp.h). */
#include "ppcomp.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "bytes.h"

#define PPC_MAX_DEPTH	48	/* argument tree depth we follow */
#define PPC_MAX_WIDTH	4096	/* larger printf widths/precisions: libtraceevent */
#define PPC_MAX_ITEMS	(1u << 20)	/* steps, nodes, entries of one program */
#define PPC_MAX_OUT	(1u << 20)	/* longest text a program may print (+ strings) */

/* ------------------------------------------------------------ program */

enum { X_CONST, X_FIELD, X_CAST, X_BIN, X_COND };
enum {
	B_NOT, B_NE, B_INV, B_OR, B_LOR, B_AND, B_LAND, B_LT, B_SHL, B_LE, B_GT, B_SHR, B_GE, B_EQ,
	B_SUB, B_ADD, B_DIV, B_MOD, B_MUL,
};

/* A number: constant, field read, cast, operator, ?: */
struct pexpr {
	uint8_t kind;
	uint8_t op;		/* X_BIN: B_* */
	uint8_t size;		/* X_FIELD: bytes read (0: the field reads as 0) */
	uint32_t off;		/* X_FIELD: payload offset */
	uint32_t a, b, c;	/* operands (node indexes) */
	uint64_t k;		/* X_CONST: value; X_CAST: mask */
};

enum { S_NONE, S_LIT, S_ARRAY, S_DYN, S_FLAGS, S_SYMBOLIC, S_COND };

/* A string argument of %s. */
struct pstr {
	uint8_t kind;
	bool rel;		/* S_DYN: __rel_loc */
	bool has_delim;		/* S_FLAGS */
	uint32_t a, b, c;	/* S_COND: expr, then, else; S_FLAGS/S_SYMBOLIC: expr, first entry, count */
	uint32_t off, len;	/* S_LIT: pool text; S_ARRAY: field bytes; S_DYN: the loc word */
	uint32_t doff, dlen;	/* S_FLAGS: delimiter in the pool */
};

/* One { value, "name" } of __print_flags / __print_symbolic. */
struct pentry {
	int64_t val;
	uint32_t off, len;
};

enum { P_LIT, P_INT, P_STR, P_PTR, P_SYM };

/* One step of the output. */
struct pstep {
	uint8_t kind;
	uint8_t conv;		/* P_INT: d u x X o */
	uint8_t bits;		/* P_INT: 8 16 32 64 (the printf length) */
	bool left, zero, alt;	/* flags - 0 # */
	bool with_off;		/* P_SYM: %pS / %pF */
	int32_t width, prec;	/* prec < 0: none */
	uint32_t a;		/* P_INT/P_PTR/P_SYM: expr; P_STR: string arg; P_LIT: pool offset */
	uint32_t len;		/* P_LIT */
};

struct ppc_prog {
	struct pstep *st;
	struct pexpr *x;
	struct pstr *s;
	struct pentry *e;
	char *pool;
	size_t nst, nx, ns, ne, npool;
	size_t cst, cx, cs, ce, cpool;
	uint32_t min_size;	/* payload bytes every fixed read needs */
	uint32_t type_off, type_size;
	uint64_t id;
	size_t static_max;	/* output bound without dynamic strings */
	uint32_t ndyn;		/* + ndyn * raw_size */
	bool syms, swap;
	/* compile-time only */
	struct tep_event *ev;
	char *why;
	size_t why_len;
	int err;
};

static int decline(struct ppc_prog *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int decline(struct ppc_prog *pg, const char *fmt, ...)
{
	if (!pg->err) {
		pg->err = -ENOTSUP;
		if (pg->why && pg->why_len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(pg->why, pg->why_len, fmt, ap);
			va_end(ap);
		}
	}
	return -1;
}

static int oom(struct ppc_prog *pg)
{
	if (!pg->err)
		pg->err = -ENOMEM;
	return -1;
}

/* Room for one more item in a growable array; its index, or -1. */
static long grow(struct ppc_prog *pg, void **arr, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		if (*cap >= PPC_MAX_ITEMS)
			return decline(pg, "format too large");
		size_t nc = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, nc * sz);
		if (!p)
			return oom(pg);
		*arr = p;
		*cap = nc;
	}
	return (long)(*n)++;
}

#define NEW(pg, arr, n, cap) grow(pg, (void **)&(pg)->arr, &(pg)->n, &(pg)->cap, sizeof(*(pg)->arr))

/* Copy text into the pool; its offset, or -1. */
static long pool_add(struct ppc_prog *pg, const char *t, size_t len)
{
	if (len > PPC_MAX_ITEMS || pg->npool + len > PPC_MAX_ITEMS)
		return decline(pg, "format too large");
	if (pg->npool + len > pg->cpool) {
		size_t nc = pg->cpool ? pg->cpool : 256;
		while (nc < pg->npool + len)
			nc *= 2;
		char *p = realloc(pg->pool, nc);
		if (!p)
			return oom(pg);
		pg->pool = p;
		pg->cpool = nc;
	}
	memcpy(pg->pool + pg->npool, t, len);
	pg->npool += len;
	return (long)(pg->npool - len);
}

static void need_bytes(struct ppc_prog *pg, uint64_t end)
{
	if (end > pg->min_size)
		pg->min_size = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
}

/* ------------------------------------------------------------ numbers */

static long x_new(struct ppc_prog *pg, uint8_t kind)
{
	long i = NEW(pg, x, nx, cx);
	if (i >= 0) {
		memset(&pg->x[i], 0, sizeof(pg->x[i]));
		pg->x[i].kind = kind;
	}
	return i;
}

static long x_const(struct ppc_prog *pg, uint64_t v)
{
	long i = x_new(pg, X_CONST);
	if (i >= 0)
		pg->x[i].k = v;
	return i;
}

static uint64_t x_binop(uint8_t op, uint64_t l, uint64_t r)
{
	switch (op) {
	case B_NOT: return !r;
	case B_NE: return l != r;
	case B_INV: return ~r;
	case B_OR: return l | r;
	case B_LOR: return l || r;
	case B_AND: return l & r;
	case B_LAND: return l && r;
	case B_LT: return l < r;
	case B_SHL: return l << (r & 63);
	case B_LE: return l <= r;
	case B_GT: return l > r;
	case B_SHR: return l >> (r & 63);
	case B_GE: return l >= r;
	case B_EQ: return l == r;
	case B_SUB: return l - r;
	case B_ADD: return l + r;
	case B_DIV: return r ? l / r : 0;
	case B_MOD: return r ? l % r : 0;
	case B_MUL: return l * r;
	default: return 0;
	}
}

/* libtraceevent's operators, by their token. */
static int binop_code(const char *op)
{
	static const char *const names[] = {
		[B_NOT] = "!", [B_NE] = "!=", [B_INV] = "~", [B_OR] = "|", [B_LOR] = "||",
		[B_AND] = "&", [B_LAND] = "&&", [B_LT] = "<", [B_SHL] = "<<", [B_LE] = "<=",
		[B_GT] = ">", [B_SHR] = ">>", [B_GE] = ">=", [B_EQ] = "==", [B_SUB] = "-",
		[B_ADD] = "+", [B_DIV] = "/", [B_MOD] = "%", [B_MUL] = "*",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(op, names[i]))
			return (int)i;
	return -1;
}

/* The mask a cast to `type` applies (libtraceevent's eval_type_str with
 * pointer = 0): 8/16/32 bits for the names it knows, else none. */
static uint64_t cast_mask(const char *type)
{
	size_t len = strlen(type);
	if (len < 2 || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return UINT64_MAX;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return UINT64_MAX;
}

static struct tep_format_field *field_of(struct ppc_prog *pg, struct tep_format_field *f, const char *name)
{
	if (f)
		return f;
	if (!name)
		return NULL;
	return tep_find_any_field(pg->ev, name);
}

static bool is_const(const struct ppc_prog *pg, long i)
{
	return i >= 0 && pg->x[i].kind == X_CONST;
}

static long c_cond(struct ppc_prog *pg, struct tep_print_arg *a, int depth, bool str);

/* Compile a numeric argument (libtraceevent's eval_num_arg); node or -1. */
static long c_num(struct ppc_prog *pg, struct tep_print_arg *a, int depth)
{
	if (!a)
		return decline(pg, "missing operand");
	if (depth > PPC_MAX_DEPTH)
		return decline(pg, "expression too deep");
	switch (a->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
	case TEP_PRINT_INT_ARRAY:
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
	case TEP_PRINT_STRING:
	case TEP_PRINT_BSTRING:
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		return x_const(pg, 0);
	case TEP_PRINT_ATOM:
		/* strtoull; a name that is no number is looked up in the
		 * library's function list, which is empty with a resolver */
		return x_const(pg, a->atom.atom ? strtoull(a->atom.atom, NULL, 0) : 0);
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = field_of(pg, a->field.field, a->field.name);
		if (!f)
			return decline(pg, "unknown field %s", a->field.name ? a->field.name : "?");
		if (f->offset < 0 || f->size < 0 || f->offset > 0xffff || f->size > 0xffff)
			return decline(pg, "field %s out of range", f->name);
		long i = x_new(pg, X_FIELD);
		if (i < 0)
			return -1;
		pg->x[i].off = (uint32_t)f->offset;
		pg->x[i].size = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ? (uint8_t)f->size : 0;
		need_bytes(pg, (uint64_t)f->offset + (uint64_t)f->size);
		return i;
	}
	case TEP_PRINT_TYPE: {
		long it = c_num(pg, a->typecast.item, depth + 1);
		if (it < 0)
			return -1;
		uint64_t m = a->typecast.type ? cast_mask(a->typecast.type) : UINT64_MAX;
		if (m == UINT64_MAX)
			return it;
		if (is_const(pg, it)) {
			pg->x[it].k &= m;
			return it;
		}
		long i = x_new(pg, X_CAST);
		if (i >= 0) {
			pg->x[i].a = (uint32_t)it;
			pg->x[i].k = m;
		}
		return i;
	}
	case TEP_PRINT_OP: {
		const char *op = a->op.op ? a->op.op : "";
		if (!strcmp(op, "?"))
			return c_cond(pg, a, depth, false);
		int code = binop_code(op);
		if (code < 0)
			return decline(pg, "operator '%s'", op);
		long l = c_num(pg, a->op.left, depth + 1);
		long r = l < 0 ? -1 : c_num(pg, a->op.right, depth + 1);
		if (r < 0)
			return -1;
		if (is_const(pg, l) && is_const(pg, r))
			return x_const(pg, x_binop((uint8_t)code, pg->x[l].k, pg->x[r].k));
		long i = x_new(pg, X_BIN);
		if (i >= 0) {
			pg->x[i].op = (uint8_t)code;
			pg->x[i].a = (uint32_t)l;
			pg->x[i].b = (uint32_t)r;
		}
		return i;
	}
	default:
		return decline(pg, "numeric argument of type %d", (int)a->type);
	}
}

static long c_str(struct ppc_prog *pg, struct tep_print_arg *a, int depth);
static long s_new(struct ppc_prog *pg, uint8_t kind);

/* cond ? a : b (the parser makes it "?" with a ":" on its right), as a
 * number or as a string argument; a constant condition picks its branch. */
static long c_cond(struct ppc_prog *pg, struct tep_print_arg *a, int depth, bool str)
{
	struct tep_print_arg *r = a->op.right;
	if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
		return decline(pg, "malformed ?:");
	long c = c_num(pg, a->op.left, depth + 1);
	long t = c < 0 ? -1 : str ? c_str(pg, r->op.left, depth + 1) : c_num(pg, r->op.left, depth + 1);
	long f = t < 0 ? -1 : str ? c_str(pg, r->op.right, depth + 1) : c_num(pg, r->op.right, depth + 1);
	if (f < 0)
		return -1;
	if (is_const(pg, c))
		return pg->x[c].k ? t : f;
	long i = str ? s_new(pg, S_COND) : x_new(pg, X_COND);
	if (i >= 0 && str) {
		pg->s[i].a = (uint32_t)c;
		pg->s[i].b = (uint32_t)t;
		pg->s[i].c = (uint32_t)f;
	} else if (i >= 0) {
		pg->x[i].a = (uint32_t)c;
		pg->x[i].b = (uint32_t)t;
		pg->x[i].c = (uint32_t)f;
	}
	return i;
}

/* ------------------------------------------------------------ strings */

static long s_new(struct ppc_prog *pg, uint8_t kind)
{
	long i = NEW(pg, s, ns, cs);
	if (i >= 0) {
		memset(&pg->s[i], 0, sizeof(pg->s[i]));
		pg->s[i].kind = kind;
	}
	return i;
}

static long s_lit(struct ppc_prog *pg, const char *t)
{
	size_t len = t ? strlen(t) : 0;
	long off = pool_add(pg, t ? t : "", len);
	long i = off < 0 ? -1 : s_new(pg, S_LIT);
	if (i >= 0) {
		pg->s[i].off = (uint32_t)off;
		pg->s[i].len = (uint32_t)len;
	}
	return i;
}

/* libtraceevent's eval_flag: a number, one of a few names, else -1. */
static int64_t flag_value(const char *v)
{
	static const struct {
		const char *name;
		int64_t val;
	} known[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	if (!v)
		return -1;
	if (isdigit((unsigned char)v[0]))
		return (int64_t)strtoull(v, NULL, 0);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, v))
			return known[i].val;
	return -1;
}

static long c_entries(struct ppc_prog *pg, struct tep_print_flag_sym *fs, uint32_t *count)
{
	long first = (long)pg->ne;
	*count = 0;
	for (; fs; fs = fs->next) {
		long e = NEW(pg, e, ne, ce);
		if (e < 0)
			return -1;
		const char *str = fs->str ? fs->str : "";
		long off = pool_add(pg, str, strlen(str));
		if (off < 0)
			return -1;
		pg->e[e].val = flag_value(fs->value);
		pg->e[e].off = (uint32_t)off;
		pg->e[e].len = (uint32_t)strlen(str);
		(*count)++;
	}
	return first;
}

/* Compile a %s argument (libtraceevent's print_str_arg); node or -1. */
static long c_str(struct ppc_prog *pg, struct tep_print_arg *a, int depth)
{
	if (!a)
		return decline(pg, "missing string argument");
	if (depth > PPC_MAX_DEPTH)
		return decline(pg, "expression too deep");
	switch (a->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_TYPE:
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return s_new(pg, S_NONE);
	case TEP_PRINT_ATOM:
		return s_lit(pg, a->atom.atom);
	case TEP_PRINT_BSTRING:
		return s_lit(pg, a->string.string);
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = field_of(pg, a->field.field, a->field.name);
		if (!f)
			return decline(pg, "unknown field %s", a->field.name ? a->field.name : "?");
		if (f->size <= 0 || f->offset < 0 || f->offset > 0xffff || f->size > 0xffff)
			return decline(pg, "string field %s of size %d", f->name, f->size);
		if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == tep_get_long_size(pg->ev->tep))
			return decline(pg, "%%s of the long field %s (printk string lookup)", f->name);
		long i = s_new(pg, S_ARRAY);
		if (i >= 0) {
			pg->s[i].off = (uint32_t)f->offset;
			pg->s[i].len = (uint32_t)f->size;
			need_bytes(pg, (uint64_t)f->offset + (uint64_t)f->size);
		}
		return i;
	}
	case TEP_PRINT_STRING: {
		struct tep_format_field *f = field_of(pg, a->string.field, a->string.string);
		if (!f)
			return s_new(pg, S_NONE);
		if (f->size != 4 || f->offset < 0 || f->offset > 0xffff)
			return decline(pg, "__get_str(%s) with a %d-byte location", f->name, f->size);
		long i = s_new(pg, S_DYN);
		if (i >= 0) {
			pg->s[i].off = (uint32_t)f->offset;
			pg->s[i].rel = (f->flags & TEP_FIELD_IS_RELATIVE) != 0;
			need_bytes(pg, (uint64_t)f->offset + 4);
		}
		return i;
	}
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL: {
		bool fl = a->type == TEP_PRINT_FLAGS;
		long x = c_num(pg, fl ? a->flags.field : a->symbol.field, depth + 1);
		if (x < 0)
			return -1;
		uint32_t count;
		long first = c_entries(pg, fl ? a->flags.flags : a->symbol.symbols, &count);
		if (first < 0)
			return -1;
		long doff = 0;
		size_t dlen = 0;
		if (fl && a->flags.delim) {
			dlen = strlen(a->flags.delim);
			doff = pool_add(pg, a->flags.delim, dlen);
			if (doff < 0)
				return -1;
		}
		long i = s_new(pg, fl ? S_FLAGS : S_SYMBOLIC);
		if (i >= 0) {
			pg->s[i].a = (uint32_t)x;
			pg->s[i].b = (uint32_t)first;
			pg->s[i].c = count;
			pg->s[i].has_delim = fl && a->flags.delim;
			pg->s[i].doff = (uint32_t)doff;
			pg->s[i].dlen = (uint32_t)dlen;
		}
		return i;
	}
	case TEP_PRINT_OP: {
		if (!a->op.op || a->op.op[0] != '?')
			return s_new(pg, S_NONE);	/* the library prints nothing */
		return c_cond(pg, a, depth, true);
	}
	default:
		return decline(pg, "string argument of type %d", (int)a->type);
	}
}

/* ------------------------------------------------------------ the format */

static long step_new(struct ppc_prog *pg, uint8_t kind)
{
	long i = NEW(pg, st, nst, cst);
	if (i >= 0) {
		memset(&pg->st[i], 0, sizeof(pg->st[i]));
		pg->st[i].kind = kind;
		pg->st[i].prec = -1;
	}
	return i;
}

static int lit_step(struct ppc_prog *pg, const char *t, size_t len)
{
	if (!len)
		return 0;
	/* extend the previous literal when it ends the pool */
	if (pg->nst && pg->st[pg->nst - 1].kind == P_LIT &&
	    pg->st[pg->nst - 1].a + pg->st[pg->nst - 1].len == pg->npool) {
		if (pool_add(pg, t, len) < 0)
			return -1;
		pg->st[pg->nst - 1].len += (uint32_t)len;
		return 0;
	}
	long off = pool_add(pg, t, len);
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
		if (v > PPC_MAX_WIDTH)
			return -1;
		(*p)++;
	}
	return (int32_t)v;
}

/*
 * A conversion's text from '%' to its letter, as the library hands it to
 * printf: accept the forms whose printf output we reproduce.
 */
static int spec_int(struct ppc_prog *pg, struct pstep *s, const char *spec, size_t len)
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
		return decline(pg, "width in %.*s", (int)len, spec);
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
		return decline(pg, "conversion %.*s", (int)len, spec);
	if (ls == 1 && sizeof(long) != 8)
		return decline(pg, "%%l on a host whose long is not 64-bit");
	s->bits = ls == -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
	s->conv = (uint8_t)(*end == 'i' ? 'd' : *end);
	if (s->left)
		s->zero = false;
	return 0;
}

static int spec_str(struct ppc_prog *pg, struct pstep *s, const char *spec, size_t len)
{
	const char *p = spec + 1, *end = spec + len - 1;
	for (; p < end && *p == '-'; p++)
		s->left = true;
	if ((s->width = digits(&p)) < 0)
		return decline(pg, "width in %.*s", (int)len, spec);
	if (p < end && *p == '.') {
		p++;
		if ((s->prec = digits(&p)) < 0)
			return decline(pg, "precision in %.*s", (int)len, spec);
	}
	if (p != end)
		return decline(pg, "conversion %.*s", (int)len, spec);
	return 0;
}

/* Worst-case bytes of a string argument printed with step s's width:
 * the static part, and how many dynamic strings (each up to the payload). */
static size_t str_bound(const struct ppc_prog *pg, uint32_t i, const struct pstep *s, uint32_t *dyn, int depth)
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
		if (depth > PPC_MAX_DEPTH + 2)
			return 0;
		uint32_t d1 = 0, d2 = 0;
		size_t x = str_bound(pg, a->b, s, &d1, depth + 1), y = str_bound(pg, a->c, s, &d2, depth + 1);
		*dyn += d1 > d2 ? d1 : d2;
		return x > y ? x : y;
	}
	}
	return b + w;
}

/* Segment the format as libtraceevent's parse_args does, compiling each part. */
static int c_format(struct ppc_prog *pg, const char *f)
{
	struct tep_print_arg *arg = pg->ev->print_fmt.args;
	char lit[64];
	long remaining = (long)strlen(f);
	while (*f) {
		const char *part = f;
		long ret = 0;
		if (f[0] == '%' && f[1] != '%') {
			/* one conversion: flags, width, length, letter */
			const char *start = f++;
			ret = 1;
			for (; *f; f++, ret++) {
				if (strchr("#hlLzZ.0123456789-", *f))
					continue;
				if (*f == '*')
					return decline(pg, "'*' width");
				break;
			}
			if (!*f)
				break;	/* a conversion cut by the end: nothing printed */
			char c = *f;
			size_t slen = (size_t)(f - start) + 1;
			long i;
			if (c == 'p' || c == 'd' || c == 'u' || c == 'i' || c == 'x' || c == 'X' || c == 'o' || c == 's') {
				if (!arg)
					return decline(pg, "more conversions than arguments");
			}
			switch (c) {
			case 'p': {
				char ext = f[1];
				if (ext && strchr("MmIiUh", ext))
					return decline(pg, "%%p%c", ext);
				if (arg->type == TEP_PRINT_BSTRING)
					return decline(pg, "%%p of a string");
				bool fn = ext && strchr("FfSs", ext);
				i = step_new(pg, fn ? P_SYM : P_PTR);
				long x = i < 0 ? -1 : c_num(pg, arg, 0);
				if (x < 0)
					return -1;
				pg->st[i].a = (uint32_t)x;
				pg->st[i].with_off = ext == 'F' || ext == 'S';
				if (fn) {
					pg->syms = true;
					ret++;
				}
				arg = arg->next;
				break;
			}
			case 'd': case 'u': case 'i': case 'x': case 'X': case 'o': {
				i = step_new(pg, P_INT);
				if (i < 0 || spec_int(pg, &pg->st[i], start, slen) < 0)
					return -1;
				long x = c_num(pg, arg, 0);
				if (x < 0)
					return -1;
				pg->st[i].a = (uint32_t)x;
				arg = arg->next;
				break;
			}
			case 's': {
				i = step_new(pg, P_STR);
				if (i < 0 || spec_str(pg, &pg->st[i], start, slen) < 0)
					return -1;
				long x = c_str(pg, arg, 0);
				if (x < 0)
					return -1;
				pg->st[i].a = (uint32_t)x;
				arg = arg->next;
				break;
			}
			default:
				/* the library prints an unknown conversion as ">c<" */
				lit[0] = '>';
				lit[1] = c;
				lit[2] = '<';
				if (lit_step(pg, lit, 3) < 0)
					return -1;
				break;
			}
			ret++;
		} else {
			/* text up to the next conversion, with \n \t \r \\ and %% */
			size_t n = 0;
			for (; *f; f++, ret++) {
				char ch = *f;
				if (ch == '\\') {
					if (!f[1])
						return decline(pg, "format ends in a backslash");
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
		}
		remaining -= ret;
		if (remaining <= 0)
			break;
		f = part + ret;
	}
	return 0;
}

int ppc_compile(struct tep_event *ev, struct ppc_prog **out, char *why, size_t why_len)
{
	*out = NULL;
	if (why && why_len)
		why[0] = '\0';
	struct ppc_prog *pg = calloc(1, sizeof(*pg));
	if (!pg)
		return -ENOMEM;
	pg->ev = ev;
	pg->why = why;
	pg->why_len = why_len;
	const int bad = TEP_EVENT_FL_ISFTRACE | TEP_EVENT_FL_ISPRINT | TEP_EVENT_FL_ISBPRINT |
			TEP_EVENT_FL_ISFUNCENT | TEP_EVENT_FL_ISFUNCRET | TEP_EVENT_FL_PRINTRAW |
			TEP_EVENT_FL_FAILED;
	struct tep_event *first = ev && ev->tep ? tep_get_event(ev->tep, 0) : NULL;
	struct tep_format_field *ct = ev ? tep_find_common_field(ev, "common_type") : NULL;
	struct tep_format_field *ct0 = first ? tep_find_common_field(first, "common_type") : NULL;
	if (!ev || !ev->tep || !ev->print_fmt.format)
		decline(pg, "no print format");
	else if (ev->flags & bad)
		decline(pg, "event flags %#x", (unsigned)(ev->flags & bad));
	else if (ev->handler)
		decline(pg, "a plugin handler prints it");
	else if (!ct || !ct0 || ct->offset != ct0->offset || ct->size != ct0->size || ct->offset < 0 ||
		 (ct->size != 1 && ct->size != 2 && ct->size != 4 && ct->size != 8) || ct->offset > 0xffff)
		decline(pg, "common_type field");
	else if (sizeof(void *) != 8)
		decline(pg, "32-bit host");
	else
		c_format(pg, ev->print_fmt.format);
	if (!pg->err) {
		pg->type_off = (uint32_t)ct->offset;
		pg->type_size = (uint32_t)ct->size;
		pg->id = (uint64_t)(int64_t)ev->id;
		need_bytes(pg, (uint64_t)pg->type_off + pg->type_size);
		pg->swap = (tep_is_file_bigendian(ev->tep) != 0) != (bool)BY_HOST_BIG_ENDIAN;
		size_t m = 0;
		for (size_t i = 0; i < pg->nst; i++) {
			const struct pstep *s = &pg->st[i];
			size_t w = s->width > 0 ? (size_t)s->width : 0;
			switch (s->kind) {
			case P_LIT: m += s->len; break;
			case P_INT: m += w > 24 ? w : 24; break;
			case P_PTR: m += 18; break;
			case P_SYM: m += PPC_SYM_MAX; break;
			case P_STR: m += str_bound(pg, s->a, s, &pg->ndyn, 0); break;
			}
		}
		pg->static_max = m;
		if (m > PPC_MAX_OUT)
			decline(pg, "a line of up to %zu bytes", m);
	}
	int err = pg->err;
	pg->ev = NULL;
	pg->why = NULL;
	if (err) {
		ppc_free(pg);
		return err;
	}
	*out = pg;
	return 0;
}

void ppc_free(struct ppc_prog *pg)
{
	if (!pg)
		return;
	free(pg->st);
	free(pg->x);
	free(pg->s);
	free(pg->e);
	free(pg->pool);
	free(pg);
}

size_t ppc_max_len(const struct ppc_prog *pg, uint32_t raw_size)
{
	return pg->static_max + (size_t)pg->ndyn * ((size_t)raw_size + 1) + 1;
}

bool ppc_prints_symbols(const struct ppc_prog *pg)
{
	return pg->syms;
}

/* ------------------------------------------------------------ running */

struct run {
	const struct ppc_prog *pg;
	const uint8_t *raw;
	uint32_t size;
	bool fallback;
};

static uint64_t ld(const uint8_t *p, unsigned size, bool swap)
{
	switch (size) {
	case 1: return p[0];
	case 2: return by_ld16(p, swap);
	case 4: return by_ld32(p, swap);
	case 8: return by_ld64(p, swap);
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
			return x_binop(x->op, eval(r, x->a), eval(r, x->b));
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
	by_copy(o, s, n);
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
		const char *d2 = ppc_digits2;
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
			by_copy(o, b, nd);
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
	uint32_t v = by_ld32(r->raw + a->off, r->pg->swap);
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
	const struct ppc_prog *pg = r->pg;
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

int ppc_run(const struct ppc_prog *pg, const uint8_t *raw, uint32_t raw_size, char *out,
	    const struct ppc_symcb *syms)
{
	struct run r = { pg, raw, raw_size, false };
	if (raw_size < pg->min_size || ld(raw + pg->type_off, pg->type_size, pg->swap) != pg->id)
		return PPC_FALLBACK;
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
				return PPC_FALLBACK;
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
