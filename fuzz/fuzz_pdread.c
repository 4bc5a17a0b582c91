/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the perf.data reader and the script printer on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "print/pdprint.h"
#include "format/pdread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdread *r;
	struct pdread_opts o = { .max_queue_bytes = 16u << 20 };
	struct pdprint_opts po = { .kallsyms = "" };
	if (pdread_open_mem(&r, data, size, &o) == 0) {
		struct pdprint *p = pdprint_new(r, &po);
		struct pdread_event ev;
		char line[4096];
		int n = 0;
		while (pdread_next(r, &ev) > 0 && n++ < 100000) {
			if (ev.type == PDFORMAT_RECORD_SAMPLE && ev.has_sample && p)
				pdprint_format(p, &ev, line, sizeof(line));
			else if (p)
				pdprint_track(p, &ev);
		}
		pdprint_free(p);
	}
	pdread_close(r);
	return 0;
}
