/* SPDX-License-Identifier: MIT */
/*
 * elfsym.h - function symbols of one user-space ELF file (a DSO named by a
 * MMAP/MMAP2 record), looked up by file offset the way perf script resolves
 * a map-relative address.
 * Prefix: elfsym_.
 * Source of the symbols, as perf picks it: with the build-id the recording
 * gives the file (else the file's own), the first of CACHE/.build-id/xx/rest/elf
 * (perf's build-id cache: the copy perf record kept), CACHE/.build-id/xx/rest/debug,
 * DEBUG_ROOT/.build-id/xx/rest.debug that has a .symtab; else the file itself
 * (only when its build-id is the recorded one), its .symtab or its .dynsym.
 * Kept: STT_FUNC and STT_GNU_IFUNC
 * with a name and a section.  Symbols at one address: one is kept (a sized
 * one, a non-weak one, a global one, fewer leading '_', the longer name).  A
 * symbol of size 0 ends where the next one starts.  ET_EXEC symbols are moved
 * to file offsets by their section (sh_addr - sh_offset); ET_DYN values are
 * taken as file offsets (as perf does).  C++ names are demangled as perf
 * prints them (no parameters, through libstdc++'s __cxa_demangle); names
 * left mangled (Rust, forms perf prints otherwise, names the demangler
 * refuses) keep their _Z/_R prefix, and the table says it has some
 * (elfsym_mangled()).
 * Hostile files never crash: libelf validates the headers, every index is
 * checked.  Memory: one array of symbols and one copy of the names.
 */
#ifndef LATSCOPE_ELFSYM_H
#define LATSCOPE_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

struct elfsym_hit {
	const char *name;	/* owned by the table */
	uint64_t start;		/* file offset of the symbol */
	uint64_t offset;	/* looked-up offset - start */
};

/*
 * elfsym_load - the symbols of the ELF file at path.  bid: the build-id the
 * recording gives it (lowercase hex), NULL = none; cache_dir: perf's build-id
 * cache ("$HOME/.debug"), NULL = none; debug_root: where detached debug files
 * live ("/usr/lib/debug"), NULL = none.  0 and *tp a table the caller frees
 * with elfsym_free(), or a negative errno (*tp NULL): -ENOENT no usable file,
 * -ENOEXEC not an ELF file, -ENOMEM.
 */
int elfsym_load(struct elfsym **tp, const char *path, const char *bid, const char *cache_dir, const char *debug_root);

/* elfsym_load_mem - the same from an image of len bytes in memory (copied
 * first; e.g. the vdso), no debug file. */
int elfsym_load_mem(struct elfsym **tp, const void *image, size_t len);

void elfsym_free(struct elfsym *t);

/* elfsym_lookup - the symbol covering file offset off; false when none. */
bool elfsym_lookup(const struct elfsym *t, uint64_t off, struct elfsym_hit *hit);

/* Number of symbols kept; whether any name looks mangled (_Z..., _R...). */
size_t elfsym_count(const struct elfsym *t);
bool elfsym_mangled(const struct elfsym *t);

#endif
