/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dtl.c - libFuzzer target for the DTL decoder (lib/format/dtl.c).
 *
 * The first byte picks the file byte order and the decode mode; the rest is
 * an AUX payload of any length and alignment.  Every decoded entry has its
 * reasons named and its time converted both ways, so an out-of-bounds table
 * read or a bad conversion shows up under ASan/UBSan.  The same bytes then go
 * through the report statistics and, split into buffers of two CPUs, through
 * the pipe-mode merge (with a small budget), which must emit every entry the
 * scan counted, in order per CPU unless the timebase went backwards.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/dtl.h"
#include "engine/dtlmerge.h"
#include "engine/dtlstat.h"

struct fz {
	struct dtl_tbinfo tbi;
	uint64_t sink;
};

static int fz_entry(void *ctx, const struct dtl_entry *e, uint64_t off)
{
	struct fz *f = ctx;
	char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ];
	const char *d = dtl_dispatch_reason_str(e->dispatch_reason, b1);
	const char *p = dtl_preempt_reason_str(e->preempt_reason, b2);

	f->sink += strlen(d) + strlen(p) + off;
	f->sink += dtl_tb_to_ns(e->timebase, &f->tbi);
	f->sink += dtl_tb_to_ns_exact(e->timebase, &f->tbi);
	f->sink += dtl_ticks_to_ns(e->enqueue_to_dispatch_tb, f->tbi.tb_freq);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { { 0, 0 }, 0 };
	struct dtl_scan_stats st = { 0 };
	bool swap;

	if (size < 1)
		return 0;
	swap = data[0] & 1;
	if (data[0] & 2) {		/* a preset timebase instead of a header */
		f.tbi.boot_tb = data[0];
		f.tbi.tb_freq = DTL_DEFAULT_TB_FREQ;
	}
	/* the payload's stream offset: near a lap's end (4096) where the zero
	 * run of an AUX wrap may sit, by the top bits of data[0] */
	uint64_t pos = 4096 - 16 * (uint64_t)(data[0] >> 2);
	/* data + 1 is deliberately misaligned */
	dtl_scan_payload(pos, data + 1, size - 1, swap, &f.tbi, &st, fz_entry, &f);
	if (st.entries + st.headers + st.skipped != st.slots)
		__builtin_trap();
	if (st.slots * DTL_ENTRY_SIZE + st.wrap_gap_bytes + st.tail_bytes != size - 1)
		__builtin_trap();

	struct dtlstat *ds;
	if (!dtlstat_new(&ds)) {
		dtlstat_add_payload(ds, data[0] & 3, pos, data + 1, size - 1, true, swap);
		struct dtlstat_cpu tot;
		dtlstat_total(ds, &tot);
		if (tot.entries != st.entries)
			__builtin_trap();
		for (int i = 0; i < DTLSTAT_NTIMES; i++)
			f.sink += dtlstat_hist_percentile(&tot.h[i], 99.9);
		dtlstat_free(ds);
	}

	struct dtlmerge *m;
	struct dtlmerge_opts o = { .swap = swap, .max_copy_bytes = 512 };
	if (dtlmerge_new(&m, &o))
		return 0;
	size_t len = size - 1, cut = len ? (data[0] * 97u) % (len + 1) : 0;
	const uint8_t *p = data + 1;
	struct dtlmerge_buf_info b1 = { .size = cut, .offset = 0, .cpu = 0 };
	struct dtlmerge_buf_info b2 = { .size = len - cut, .offset = cut, .cpu = data[0] & 4 ? 1 : 0 };
	struct dtlmerge_item it;
	uint64_t n = 0;
	dtlmerge_add_buffer(m, &b1, p);
	while (dtlmerge_over_budget(m) && dtlmerge_next(m, &it) > 0)
		n++;
	dtlmerge_add_buffer(m, &b2, p + cut);
	while (dtlmerge_next_before(m, (uint64_t)data[0] << 20, &it) > 0)
		n++;
	while (dtlmerge_next(m, &it) > 0)
		n++;
	/* a split realigns the slots of the second buffer: bound by whole slots */
	if (n > cut / DTL_ENTRY_SIZE + (len - cut) / DTL_ENTRY_SIZE)
		__builtin_trap();
	/* split on a slot boundary, the merge sees exactly the scan's entries */
	if (cut % DTL_ENTRY_SIZE == 0 && n != st.entries)
		__builtin_trap();
	dtlmerge_free(m);
	return (int)(f.sink & 0);
}
