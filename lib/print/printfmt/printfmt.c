/* SPDX-License-Identifier: MIT */
/* printfmt.c - tracepoint print formats compiled to small programs (see printfmt.h). */
/* The format string: printfmt_fmt.c; running a program: printfmt_run.c; shared types: printfmt_int.h. */
#include "printfmt_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"

int printfmt_decline(struct printfmt_prog *pg, const char *fmt, ...)
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

static int oom(struct printfmt_prog *pg)
{
	if (!pg->err)
		pg->err = -ENOMEM;
	return -1;
}

/* Room for one more item in a growable array; its index, or -1. */
long printfmt_grow(struct printfmt_prog *pg, void **arr, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		if (*cap >= PRINTFMT_MAX_ITEMS)
			return printfmt_decline(pg, "format too large");
		size_t nc = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, nc * sz);
		if (!p)
			return oom(pg);
		*arr = p;
		*cap = nc;
	}
	return (long)(*n)++;
}

/* Copy text into the pool; its offset, or -1. */
long printfmt_pool_add(struct printfmt_prog *pg, const char *t, size_t len)
{
	if (len > PRINTFMT_MAX_ITEMS || pg->npool + len > PRINTFMT_MAX_ITEMS)
		return printfmt_decline(pg, "format too large");
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

static void need_bytes(struct printfmt_prog *pg, uint64_t end)
{
	if (end > pg->min_size)
		pg->min_size = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
}

/* ------------------------------------------------------------ numbers */

static long x_new(struct printfmt_prog *pg, uint8_t kind)
{
	long i = NEW(pg, x, nx, cx);
	if (i >= 0) {
		memset(&pg->x[i], 0, sizeof(pg->x[i]));
		pg->x[i].kind = kind;
	}
	return i;
}

static long x_const(struct printfmt_prog *pg, uint64_t v)
{
	long i = x_new(pg, X_CONST);
	if (i >= 0)
		pg->x[i].k = v;
	return i;
}

uint64_t printfmt_x_binop(uint8_t op, uint64_t l, uint64_t r)
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

static struct tep_format_field *field_of(struct printfmt_prog *pg, struct tep_format_field *f, const char *name)
{
	if (f)
		return f;
	if (!name)
		return NULL;
	return tep_find_any_field(pg->ev, name);
}

static bool is_const(const struct printfmt_prog *pg, long i)
{
	return i >= 0 && pg->x[i].kind == X_CONST;
}

static long c_cond(struct printfmt_prog *pg, struct tep_print_arg *a, int depth, bool str);

/* Compile a numeric argument (libtraceevent's eval_num_arg); node or -1. */
long printfmt_c_num(struct printfmt_prog *pg, struct tep_print_arg *a, int depth)
{
	if (!a)
		return printfmt_decline(pg, "missing operand");
	if (depth > PRINTFMT_MAX_DEPTH)
		return printfmt_decline(pg, "expression too deep");
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
			return printfmt_decline(pg, "unknown field %s", a->field.name ? a->field.name : "?");
		if (f->offset < 0 || f->size < 0 || f->offset > 0xffff || f->size > 0xffff)
			return printfmt_decline(pg, "field %s out of range", f->name);
		long i = x_new(pg, X_FIELD);
		if (i < 0)
			return -1;
		pg->x[i].off = (uint32_t)f->offset;
		pg->x[i].size = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ? (uint8_t)f->size : 0;
		need_bytes(pg, (uint64_t)f->offset + (uint64_t)f->size);
		return i;
	}
	case TEP_PRINT_TYPE: {
		long it = printfmt_c_num(pg, a->typecast.item, depth + 1);
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
			return printfmt_decline(pg, "operator '%s'", op);
		long l = printfmt_c_num(pg, a->op.left, depth + 1);
		long r = l < 0 ? -1 : printfmt_c_num(pg, a->op.right, depth + 1);
		if (r < 0)
			return -1;
		if (is_const(pg, l) && is_const(pg, r))
			return x_const(pg, printfmt_x_binop((uint8_t)code, pg->x[l].k, pg->x[r].k));
		long i = x_new(pg, X_BIN);
		if (i >= 0) {
			pg->x[i].op = (uint8_t)code;
			pg->x[i].a = (uint32_t)l;
			pg->x[i].b = (uint32_t)r;
		}
		return i;
	}
	default:
		return printfmt_decline(pg, "numeric argument of type %d", (int)a->type);
	}
}

static long s_new(struct printfmt_prog *pg, uint8_t kind);

/* cond ? a : b (the parser makes it "?" with a ":" on its right), as a
 * number or as a string argument; a constant condition picks its branch. */
static long c_cond(struct printfmt_prog *pg, struct tep_print_arg *a, int depth, bool str)
{
	struct tep_print_arg *r = a->op.right;
	if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
		return printfmt_decline(pg, "malformed ?:");
	long c = printfmt_c_num(pg, a->op.left, depth + 1);
	long t = c < 0 ? -1 : str ? printfmt_c_str(pg, r->op.left, depth + 1) : printfmt_c_num(pg, r->op.left, depth + 1);
	long f = t < 0 ? -1 : str ? printfmt_c_str(pg, r->op.right, depth + 1) : printfmt_c_num(pg, r->op.right, depth + 1);
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

static long s_new(struct printfmt_prog *pg, uint8_t kind)
{
	long i = NEW(pg, s, ns, cs);
	if (i >= 0) {
		memset(&pg->s[i], 0, sizeof(pg->s[i]));
		pg->s[i].kind = kind;
	}
	return i;
}

static long s_lit(struct printfmt_prog *pg, const char *t)
{
	size_t len = t ? strlen(t) : 0;
	long off = printfmt_pool_add(pg, t ? t : "", len);
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

static long c_entries(struct printfmt_prog *pg, struct tep_print_flag_sym *fs, uint32_t *count)
{
	long first = (long)pg->ne;
	*count = 0;
	for (; fs; fs = fs->next) {
		long e = NEW(pg, e, ne, ce);
		if (e < 0)
			return -1;
		const char *str = fs->str ? fs->str : "";
		long off = printfmt_pool_add(pg, str, strlen(str));
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
long printfmt_c_str(struct printfmt_prog *pg, struct tep_print_arg *a, int depth)
{
	if (!a)
		return printfmt_decline(pg, "missing string argument");
	if (depth > PRINTFMT_MAX_DEPTH)
		return printfmt_decline(pg, "expression too deep");
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
			return printfmt_decline(pg, "unknown field %s", a->field.name ? a->field.name : "?");
		if (f->size <= 0 || f->offset < 0 || f->offset > 0xffff || f->size > 0xffff)
			return printfmt_decline(pg, "string field %s of size %d", f->name, f->size);
		if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == tep_get_long_size(pg->ev->tep))
			return printfmt_decline(pg, "%%s of the long field %s (printk string lookup)", f->name);
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
			return printfmt_decline(pg, "__get_str(%s) with a %d-byte location", f->name, f->size);
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
		long x = printfmt_c_num(pg, fl ? a->flags.field : a->symbol.field, depth + 1);
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
			doff = printfmt_pool_add(pg, a->flags.delim, dlen);
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
		return printfmt_decline(pg, "string argument of type %d", (int)a->type);
	}
}

int printfmt_compile(struct tep_event *ev, struct printfmt_prog **out, char *why, size_t why_len)
{
	*out = NULL;
	if (why && why_len)
		why[0] = '\0';
	struct printfmt_prog *pg = calloc(1, sizeof(*pg));
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
		printfmt_decline(pg, "no print format");
	else if (ev->flags & bad)
		printfmt_decline(pg, "event flags %#x", (unsigned)(ev->flags & bad));
	else if (ev->handler)
		printfmt_decline(pg, "a plugin handler prints it");
	else if (!ct || !ct0 || ct->offset != ct0->offset || ct->size != ct0->size || ct->offset < 0 ||
		 (ct->size != 1 && ct->size != 2 && ct->size != 4 && ct->size != 8) || ct->offset > 0xffff)
		printfmt_decline(pg, "common_type field");
	else if (sizeof(void *) != 8)
		printfmt_decline(pg, "32-bit host");
	else
		printfmt_c_format(pg, ev->print_fmt.format);
	if (!pg->err) {
		pg->type_off = (uint32_t)ct->offset;
		pg->type_size = (uint32_t)ct->size;
		pg->id = (uint64_t)(int64_t)ev->id;
		need_bytes(pg, (uint64_t)pg->type_off + pg->type_size);
		pg->swap = (tep_is_file_bigendian(ev->tep) != 0) != (bool)BYTES_HOST_BIG_ENDIAN;
		size_t m = 0;
		for (size_t i = 0; i < pg->nst; i++) {
			const struct pstep *s = &pg->st[i];
			size_t w = s->width > 0 ? (size_t)s->width : 0;
			switch (s->kind) {
			case P_LIT: m += s->len; break;
			case P_INT: m += w > 24 ? w : 24; break;
			case P_PTR: m += 18; break;
			case P_SYM: m += PRINTFMT_SYM_MAX; break;
			case P_STR: m += printfmt_str_bound(pg, s->a, s, &pg->ndyn, 0); break;
			}
		}
		pg->static_max = m;
		if (m > PRINTFMT_MAX_OUT)
			printfmt_decline(pg, "a line of up to %zu bytes", m);
	}
	int err = pg->err;
	pg->ev = NULL;
	pg->why = NULL;
	if (err) {
		printfmt_free(pg);
		return err;
	}
	*out = pg;
	return 0;
}

void printfmt_free(struct printfmt_prog *pg)
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

size_t printfmt_max_len(const struct printfmt_prog *pg, uint32_t raw_size)
{
	return pg->static_max + (size_t)pg->ndyn * ((size_t)raw_size + 1) + 1;
}

bool printfmt_prints_symbols(const struct printfmt_prog *pg)
{
	return pg->syms;
}

