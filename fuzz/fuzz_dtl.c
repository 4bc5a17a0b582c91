/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dtl.c - libFuzzer target for the DTL decoder (lib/dtl.c).
 *
 * The first byte picks the file byte order and the decode mode; the rest is
 * an AUX payload of any length and alignment.  Every decoded entry has its
 * reasons named and its time converted both ways, so an out-of-bounds table
 * read or a bad conversion shows up under ASan/UBSan.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtl.h"

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
	/* data + 1 is deliberately misaligned */
	dtl_scan_payload(data + 1, size - 1, swap, &f.tbi, &st, fz_entry, &f);
	if (st.entries + st.headers + st.skipped != st.slots)
		__builtin_trap();
	if (st.slots * DTL_ENTRY_SIZE + (size - 1) % DTL_ENTRY_SIZE != size - 1)
		__builtin_trap();
	return (int)(f.sink & 0);
}
