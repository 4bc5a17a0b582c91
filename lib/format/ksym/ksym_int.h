/* SPDX-License-Identifier: MIT */
/*
 * ksym_int.h - ksym's kallsyms line parser and helpers, shared by ksym.c
 * (the loaded table) and ksym_resolve.c (one pass for a set of addresses).
 * Not for other modules.
 */
#ifndef LATSCOPE_KSYM_INT_H
#define LATSCOPE_KSYM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/ksym.h"

#define KSYM_PAGE	4096u
#define KSYM_HUGE	(2u << 20)

/* Result of one line: symbol stored, or which counter to bump. */
enum ksym_line { KL_SYM, KL_BAD, KL_OTHER, KL_BADADDR };

/* One parsed line: the name and module point into the text. */
struct ksym_line_sym {
	uint64_t start;
	char *name;
	char *mod;		/* NULL: the kernel image */
	char type;
};

/* ksym.c */
bool ksym_count_line(struct ksym_stats *st, enum ksym_line kl, bool nz, size_t *nonzero);
uint64_t ksym_end(uint64_t start, const uint64_t *next, bool next_same_dso);
enum ksym_line ksym_parse_line(char *p, char *eol, struct ksym_line_sym *out, bool *nonzero);

#endif
