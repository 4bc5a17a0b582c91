/* SPDX-License-Identifier: MIT */
/*
 * printfmt_int.h - printfmt's program representation, shared by printfmt.c (the
 * program and its arguments), printfmt_fmt.c (the format string) and
 * printfmt_run.c (running a program).  Not for other modules.
 */
#ifndef LATSCOPE_PRINTFMT_INT_H
#define LATSCOPE_PRINTFMT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "print/printfmt.h"

struct tep_print_arg;

#define PRINTFMT_MAX_DEPTH	48	/* argument tree depth we follow */
#define PRINTFMT_MAX_WIDTH	4096	/* larger printf widths/precisions: libtraceevent */
#define PRINTFMT_MAX_ITEMS	(1u << 20)	/* steps, nodes, entries of one program */
#define PRINTFMT_MAX_OUT	(1u << 20)	/* longest text a program may print (+ strings) */

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

struct printfmt_prog {
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

/* printfmt_fmt.c */
int printfmt_c_format(struct printfmt_prog *pg, const char *f);
size_t printfmt_str_bound(const struct printfmt_prog *pg, uint32_t i, const struct pstep *s, uint32_t *dyn, int depth);

/* printfmt.c */
long printfmt_c_num(struct printfmt_prog *pg, struct tep_print_arg *a, int depth);
long printfmt_c_str(struct printfmt_prog *pg, struct tep_print_arg *a, int depth);
int printfmt_decline(struct printfmt_prog *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
long printfmt_grow(struct printfmt_prog *pg, void **arr, size_t *n, size_t *cap, size_t sz);
#define NEW(pg, arr, n, cap) printfmt_grow(pg, (void **)&(pg)->arr, &(pg)->n, &(pg)->cap, sizeof(*(pg)->arr))
long printfmt_pool_add(struct printfmt_prog *pg, const char *t, size_t len);
uint64_t printfmt_x_binop(uint8_t op, uint64_t l, uint64_t r);

#endif
