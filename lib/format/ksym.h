/* SPDX-License-Identifier: MIT */
/*
 * ksym.h - kernel symbol table from a kallsyms text (/proc/kallsyms or a
 * copy), for resolving kernel addresses the way perf does.
 *
 * Prefix: ksym_.
 *
 * One line is "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]", ADDR in hex.
 * The rules follow perf's kallsyms loader (tools/perf/util/symbol.c:
 * symbol_type__filter, map__process_kallsym_symbol, symbols__fixup_end,
 * symbols__fixup_duplicate; tools/lib/symbol/kallsyms.c: kallsyms__parse):
 *
 *  - kept types: T W D B in either case, and u l N 1 exactly (perf added
 *    these four in 2025, 'N' and '1' for Rust symbols); everything else
 *    (r R a A ...) is dropped, as are names starting with '$' (ARM mapping
 *    symbols).  hit->type tells text (t T w W) from data.
 *  - a symbol ends where the next kept symbol (by address) starts, except
 *    across a kernel/module or module/other-module boundary and after the
 *    last symbol, where perf ends it at the page after its start:
 *    roundup(start + 4096, 4096).  Unlike perf we clamp that end to the next
 *    symbol's start, so ranges never overlap; addresses in the gap resolve
 *    to nothing.
 *  - aliases (several kept symbols at one address): perf gives the size to
 *    the one listed last and then prefers the symbol with a non-zero size,
 *    so the LAST listed alias wins.  Same here; the others are counted in
 *    stats->aliases and not looked up.  Checked with perf 6.1's `perf
 *    kallsyms` on x86-64 6.18: of srso_alias_untrain_ret, _stext, _text,
 *    __pi__text (all at _text's address, in that order) only __pi__text is
 *    found; start and end of 24 random symbols and of _etext (ended by the
 *    D symbol __start_rodata) were equal to ours.
 *  - module symbols are kept whatever the module: perf drops those whose
 *    module is not in /proc/modules ("[__builtin__ftrace]", "[bpf]": it
 *    says "/proc/{kallsyms,modules} inconsistency"), so for those a caller
 *    matching perf prints [unknown].
 *  - a kept symbol at address 0 is dropped (perf would let it cover every
 *    address below the next symbol), and so is one at UINT64_MAX (no room
 *    for an exclusive end).
 *
 * Hostile input never crashes: a line is skipped (stats->malformed) when its
 * address is not 1-16 hex digits, the separators are missing, the name is
 * empty or 512 bytes or longer (perf's KSYM_NAME_LEN), or it holds a NUL
 * byte.  A trailing '\r' (CRLF) is ignored; the last line needs no newline.
 *
 * Memory: one buffer holding the text (names point into it) and one array of
 * 24-byte symbols.  Lookups are O(log n), allocation-free and read-only, so
 * one table may be shared by threads.
 */
#ifndef LATSCOPE_KSYM_H
#define LATSCOPE_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf's name for the kernel image's DSO; a module's is "[name]". */
#define KSYM_KERNEL_DSO		"[kernel.kallsyms]"
/* Names this long or longer make a line malformed (perf: KSYM_NAME_LEN). */
#define KSYM_NAME_MAX		512
/* Inputs larger than this are refused with -EFBIG (real ones are ~10 MiB). */
#define KSYM_MAX_TEXT		(1u << 30)

struct ksym;

/* What a load saw; all counts are lines of the text. */
struct ksym_stats {
	size_t lines;		/* lines (the last one may lack '\n') */
	size_t parsed;		/* well-formed lines, any type */
	size_t malformed;	/* skipped: bad address, separator, name */
	size_t other_types;	/* well-formed but a type perf drops */
	size_t bad_addr;	/* kept types at address 0 or ~0 (dropped) */
	size_t aliases;		/* hidden from lookups: a later-listed symbol
				 * has the same address */
	size_t symbols;		/* in the table (= ksym_count) */
	size_t modules;		/* of those, in a [module] */
	bool sorted;		/* the input was already in address order */
};

/* The symbol covering an address.  Strings are owned by the table. */
struct ksym_hit {
	const char *name;
	const char *module;	/* "ext4" for [ext4]; NULL in the kernel image */
	uint64_t start;
	uint64_t size;		/* > 0; end = start + size (exclusive) */
	uint64_t offset;	/* addr - start, < size */
	size_t index;		/* 0 .. ksym_count()-1, in address order */
	char type;		/* the kallsyms type letter */
};

/*
 * ksym_load - read and index a kallsyms file.  On success *kp is a table the
 * caller frees with ksym_free().  On failure *kp is NULL and the result is
 * -errno from open/read, -ENOMEM, -EFBIG (> KSYM_MAX_TEXT), -EPERM when every
 * address in the file is 0 (kptr_restrict hides them: read it as root or set
 * kernel.kptr_restrict=0), or -ENODATA when no line gives a usable symbol.
 */
int ksym_load(struct ksym **kp, const char *path);

/* ksym_load_mem - the same from len bytes of text (any bytes; not NUL-
 * terminated; copied, so text may be freed afterwards). */
int ksym_load_mem(struct ksym **kp, const char *text, size_t len);

/* ksym_free - free a table (NULL is fine); names from it become invalid. */
void ksym_free(struct ksym *k);

/*
 * ksym_lookup - fill *hit with the symbol covering addr and return true;
 * false (hit untouched) when addr is below the first symbol, past the end of
 * the last, or in a gap after a module's last symbol.  k NULL gives false.
 */
bool ksym_lookup(const struct ksym *k, uint64_t addr, struct ksym_hit *hit);

/* ksym_get - the i-th symbol in address order (offset 0); false when i is
 * out of range.  For iterating or naming a counted hit->index. */
bool ksym_get(const struct ksym *k, size_t i, struct ksym_hit *hit);

/* ksym_find - address of a symbol called name (in the kernel image when
 * module is NULL, else in that module), aliases hidden from lookups
 * included; false when absent.  A linear scan, for one-off needs such as
 * "_text" (the KASLR offset against a recording's kernel map). */
bool ksym_find(const struct ksym *k, const char *name, const char *module, uint64_t *addr);

/*
 * ksym_resolve - the symbols of a few known addresses from one pass over a
 * kallsyms file, with memory for those addresses only (no table: a few
 * hundred addresses cost a few KB where ksym_load() costs ~10 MB).  Each
 * of addrs[0..n) resolves exactly as ksym_lookup() on ksym_load(path)
 * would resolve it, including when that load would fail with -EPERM or
 * -ENODATA (then nothing resolves).  For "/proc/kallsyms" (the running
 * kernel) the pass ends once every address lies below a kernel-image
 * symbol already read, the lines so far being the image's, in address
 * order: modules and the like are listed after the image and lie outside
 * it, so they cannot change those answers (see ksym.c).  On success *sp is
 * a set the caller frees with ksym_set_free(); else *sp is NULL and the
 * result is -errno from open/read, -ENOMEM or -EFBIG.
 */
struct ksym_set;
int ksym_resolve(struct ksym_set **sp, const char *path, const uint64_t *addrs, size_t n);

/* ksym_set_lookup - as ksym_lookup() for an address given to ksym_resolve()
 * (false for any other); hit->index is the address's rank in the set.
 * Strings are owned by the set. */
bool ksym_set_lookup(const struct ksym_set *s, uint64_t addr, struct ksym_hit *hit);

/*
 * ksym_image - where the kernel image lies, from one streaming pass over a
 * kallsyms file (a second one only when a module's line comes before the
 * image's last symbol, which the live kernel never lists so): *text is the
 * address of _text, else of _stext (the lowest, should there be several);
 * *end is where the image's highest kept symbol ends as ksym_load() ends it
 * (at the next kept symbol above it, or at the page after it).  A module's
 * symbol listed later at that same address hides the image's from
 * ksym_load()'s table, not from this pass.  Memory: a 256 KiB read buffer, not the table.
 * 0; -ENOENT when the text has no _text/_stext or no symbol of the image;
 * else as ksym_load() fails (-errno of open/read, -ENOMEM, -EFBIG, -EPERM,
 * -ENODATA).  *text and *end are set only on success.
 */
int ksym_image(const char *path, uint64_t *text, uint64_t *end);

/* ksym_set_free - NULL is fine. */
void ksym_set_free(struct ksym_set *s);

/* Number of symbols in the table (0 for NULL). */
size_t ksym_count(const struct ksym *k);

/* The load's counters (k must not be NULL); owned by k. */
const struct ksym_stats *ksym_stats(const struct ksym *k);

/*
 * ksym_format - write "name+0xOFF ([kernel.kallsyms])" or "name+0xOFF
 * ([module])", as perf script prints sym+symoff and dso, into buf (always
 * NUL-terminated when len > 0).  Returns the length the full text needs, as
 * snprintf does.
 */
int ksym_format(char *buf, size_t len, const struct ksym_hit *hit);

/*
 * ksym_matches_running - true when osrelease and arch (from a recording's
 * header) equal the running machine's uname -r and uname -m, i.e. the
 * caller may resolve that recording with /proc/kallsyms.  NULL gives false.
 * (Same kernel build is assumed; KASLR still differs across boots.)
 */
bool ksym_matches_running(const char *osrelease, const char *arch);

#endif
