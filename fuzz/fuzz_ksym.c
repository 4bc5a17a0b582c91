/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ksym.c - libFuzzer target for the kallsyms symbol table (lib/format/ksym/ksym.c).
 *
 * The whole input is kallsyms text.  A load must end in 0 or one of the
 * documented errors; a table must add up (every line counted once) and hold
 * non-empty, non-overlapping symbols in strictly increasing order, each
 * resolving to itself at its first and last byte, with the byte before it
 * resolving to the previous symbol or to nothing.  Addresses taken from the
 * input's bytes are looked up too: a hit must cover the address.  The one-
 * pass resolver (ksym_resolve) must give the table's answers for all of
 * them (tests/ksymoracle.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/ksym.h"
#include "../tests/ksymoracle.h"

#define FZ_CHECK(c)	do { if (!(c)) { fprintf(stderr, "fuzz_ksym: %s:%d: %s\n", \
				 __FILE__, __LINE__, #c); abort(); } } while (0)

static void fz_sym(const struct ksym *k, size_t i, const struct ksym_hit *prev)
{
	struct ksym_hit h, l;
	char line[64];

	FZ_CHECK(ksym_get(k, i, &h));
	FZ_CHECK(h.index == i && h.offset == 0 && h.size > 0);
	FZ_CHECK(h.start + h.size > h.start);	/* ends saturate, never wrap */
	FZ_CHECK(h.start != 0);
	FZ_CHECK(h.name[0] && strlen(h.name) < KSYM_NAME_MAX && !strchr(h.name, '\t'));
	FZ_CHECK(!h.module || h.module[0]);
	if (prev) {
		FZ_CHECK(h.start > prev->start);
		FZ_CHECK(prev->start + prev->size <= h.start);
	}
	FZ_CHECK(ksym_lookup(k, h.start, &l) && l.index == i && l.offset == 0);
	FZ_CHECK(ksym_lookup(k, h.start + h.size - 1, &l) && l.index == i &&
		 l.offset == h.size - 1);
	if (ksym_lookup(k, h.start - 1, &l))
		FZ_CHECK(i > 0 && l.index == i - 1 && l.offset == l.size - 1);
	else
		FZ_CHECK(i == 0 || prev->start + prev->size < h.start);
	ksym_format(line, sizeof(line), &h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym *k = (struct ksym *)&k;
	int rc = ksym_load_mem(&k, (const char *)data, size);
	uint64_t extra[512];
	size_t nextra = 0;

	for (size_t off = 0; off + 8 <= size && nextra < 512; off += 8)
		memcpy(&extra[nextra++], data + off, 8);
	FZ_CHECK(ksymo_check((const char *)data, size, extra, nextra) >= 0);
	if (rc) {
		FZ_CHECK(!k);
		FZ_CHECK(rc == -ENODATA || rc == -EPERM || rc == -ENOMEM || rc == -EFBIG);
		return 0;
	}
	const struct ksym_stats *st = ksym_stats(k);
	size_t n = ksym_count(k);
	struct ksym_hit h, prev;

	FZ_CHECK(n > 0 && n == st->symbols && st->modules <= n);
	FZ_CHECK(st->parsed + st->malformed == st->lines);
	FZ_CHECK(st->symbols + st->aliases + st->other_types + st->bad_addr == st->parsed);
	FZ_CHECK(!ksym_get(k, n, &h));

	/* every symbol when few, else the first and last 64 */
	for (size_t i = 0; i < n; i++) {
		if (n > 256 && i == 64)
			i = n - 64;
		fz_sym(k, i, i ? &prev : NULL);
		FZ_CHECK(ksym_get(k, i, &prev));
	}
	FZ_CHECK(ksym_get(k, 0, &h));
	uint64_t a;
	FZ_CHECK(ksym_find(k, h.name, h.module, &a) && a == h.start);

	/* addresses from the input's bytes, at every 8th offset */
	for (size_t off = 0; off + 8 <= size && off < 4096; off += 8) {
		uint64_t addr;

		memcpy(&addr, data + off, 8);
		if (ksym_lookup(k, addr, &h)) {
			FZ_CHECK(h.offset < h.size && h.start + h.offset == addr);
			FZ_CHECK(h.index < n);
		}
	}
	FZ_CHECK(!ksym_lookup(k, 0, &h));
	FZ_CHECK(!ksym_lookup(k, UINT64_MAX, &h));
	ksym_free(k);
	return 0;
}
