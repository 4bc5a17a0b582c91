/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dtltl.c - libFuzzer target for the DTL timeline (lib/engine/dtltl/dtltl.c): a whole
 * perf.data image (file or pipe layout) through the reader and the timeline,
 * so the HEADER_AUXTRACE index validation, the data-section pre-scan, the
 * on-demand source with its per-CPU lookahead, the coverage check of
 * unindexed buffers and the pipe reorder window all see hostile input.
 *
 * The last byte picks the options (ignore the index, no/short window, a tiny
 * budget); the rest is the file.  Invariants: the timeline ends cleanly or
 * with an error, never delivers more entries than the merge counted, and
 * with the default window a pipe image's entries come out in time order per
 * record unless they are counted late.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/dtltl.h"
#include "format/pdread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdread_opts po = { .max_queue_bytes = 8u << 20, .no_tracing_data = true };
	struct dtltl_opts to = { 0 };
	struct pdread *r = NULL;
	struct dtltl *t = NULL;
	struct dtltl_item it;
	uint64_t entries = 0, records = 0;
	int rc;

	if (size < 2)
		return 0;
	uint8_t k = data[size - 1];
	size--;
	to.ignore_index = k & 1;
	if (k & 2)
		to.no_window = true;
	else if (k & 4)
		to.window_ns = 1000 + (k >> 4) * 100000ULL;
	if (k & 8)
		to.budget_bytes = 4096 + (k >> 4) * 1024;
	if (pdread_open_mem(&r, data, size, &po) < 0) {
		pdread_close(r);
		return 0;
	}
	if (dtltl_new(&t, r, &to) == 0) {
		while ((rc = dtltl_next(t, &it)) > 0) {
			if (it.kind == DTLTL_ENTRY) {
				entries++;
				if (it.entry.raw[16] & 0x80)
					__builtin_trap();	/* a slot with timebase <= 0 delivered */
			} else {
				records++;
				if (!it.ev || !it.ev->data || it.ev->size < 8)
					__builtin_trap();
			}
		}
		const struct dtlmerge_stats *st = dtlmerge_stats(dtltl_merge(t));
		if (entries != st->entries || st->late > st->entries)
			__builtin_trap();
		if (records != dtltl_stats(t)->records)
			__builtin_trap();
	}
	dtltl_free(t);
	pdread_close(r);
	return 0;
}
