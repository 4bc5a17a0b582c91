/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the perf.data reader and the script printer on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pdprint.h"
#include "pdread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdr *r;
	struct pdr_opts o = { .max_queue_bytes = 16u << 20 };
	struct pp_opts po = { .kallsyms = "" };
	if (pdr_open_mem(&r, data, size, &o) == 0) {
		struct pp *p = pp_new(r, &po);
		struct pdr_event ev;
		char line[4096];
		int n = 0;
		while (pdr_next(r, &ev) > 0 && n++ < 100000) {
			if (ev.type == PDF_RECORD_SAMPLE && ev.has_sample && p)
				pp_format(p, &ev, line, sizeof(line));
			else if (p)
				pp_track(p, &ev);
		}
		pp_free(p);
	}
	pdr_close(r);
	return 0;
}
