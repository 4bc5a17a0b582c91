/* SPDX-License-Identifier: MIT */
/*
 * fuzz_timerlat.c - libFuzzer target for the timerlat path: the kernel
 * tracers' text parser (lib/live/osnkernel.h) on timerlat traces, its
 * records fed to the timerlat engine (lib/engine/tlat.c) for 4 CPUs with
 * thresholds.  Invariants checked: no crash; every record the engine took
 * is in one histogram (the per-CPU totals add up to its samples, a record
 * of a CPU or context out of range is counted apart); the stop is the first
 * sample at or above its threshold and its latency is at most the maximum
 * of its series; -a's analysis of every thread sample adds up to its
 * latency (engine/tlatauto.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/osneng.h"
#include "engine/tlat.h"
#include "engine/tlatauto.h"
#include "live/osnkernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char *buf = malloc(n + 1);
	if (!buf)
		return 0;
	memcpy(buf, d, n);
	buf[n] = 0;
	struct tlat t;
	struct tlat_cfg cfg = { .hist = { .lo_ns = 0, .bucket_ns = 1000, .nr_buckets = 64 },
				.stop_ns = { 50000, 100000, 100000 } };
	if (tlat_init(&t, 4, &cfg)) {
		tlat_fini(&t);
		free(buf);
		return 0;
	}
	struct tlatauto *aa = NULL;
	if (tlatauto_new(&aa, 4)) {
		tlat_fini(&t);
		free(buf);
		return 0;
	}
	uint64_t fed = 0;
	for (char *line = buf, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		struct osnkernel_rec r;
		if (osnkernel_parse_line(line, &r))
			continue;
		struct noise_win w;
		if (osneng_kernel_win(&r, &w))
			tlatauto_win(aa, &w);
		if (r.kind != OSNKERNEL_TIMERLAT)
			continue;
		if (r.context == OSNKERNEL_TLAT_IRQ)
			tlatauto_irq_sample(aa, r.cpu, r.seq, r.latency_ns, r.ts_ns, r.pid, r.comm);
		struct tlatauto_result ar;
		if (!tlatauto_explain(aa, r.cpu, (int)r.context, r.seq, r.latency_ns, &ar)) {
			uint64_t sum = ar.handler_delay_ns + ar.irq_ns;
			if (ar.ctx) {
				sum += ar.timer_irq_rest_ns + ar.after.other_ns + ar.after.hw_ns - ar.after.excess_ns;
				for (size_t i = 0; i < ar.after.nr_parts; i++)
					sum += ar.after.parts[i].net_ns;
			}
			if (sum != (ar.ctx && ar.latency_ns < ar.irq_latency_ns ? ar.irq_latency_ns : ar.latency_ns))
				abort();	/* the parts do not add up */
		}
		if ((int)r.context < 0 || (int)r.context > 2)
			abort();	/* the parser only makes the three contexts */
		tlat_add(&t, r.cpu, (int)r.context, r.seq, r.latency_ns, r.ts_ns);
		fed++;
	}
	uint64_t total = 0;
	for (uint32_t c = 0; c < t.nr_cpus; c++)
		for (int x = 0; x < TLAT_NR_CTX; x++)
			total += t.cpus[c].s[x].h.total;
	if (total != t.samples || t.samples + t.bad_cpu != fed)
		abort();
	if (t.stop.hit) {
		const struct tlat_series *s = &t.cpus[t.stop.cpu].s[t.stop.ctx];
		if (t.stop.sample.lat_ns < cfg.stop_ns[t.stop.ctx] || (int64_t)t.stop.sample.lat_ns > s->h.max_ns ||
		    !t.hits)
			abort();
	}
	tlatauto_free(aa);
	tlat_fini(&t);
	free(buf);
	return 0;
}
