/* SPDX-License-Identifier: MIT */
/*
 * fuzz_osnoise.c - libFuzzer target for the osnoise side: the kernel tracer
 * text parser (lib/live/osnkernel.c) and the noise accounting (lib/engine/noise.c).
 *
 * The input is split at a 0xff byte: the part before it is parsed as osnoise
 * trace text, line by line; the rest is a stream of 12-byte operations
 * driving the accounting (events of every kind, gaps, periods, remainders)
 * for 4 CPUs, with times that may go backwards, exits without entries and
 * unbounded nesting.  Invariants checked: no crash, the remainder only grows,
 * a period's noise never exceeds the sum of the gaps fed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/noise.h"
#include "engine/osneng.h"
#include "live/osnkernel.h"

static void parse_text(const uint8_t *d, size_t n)
{
	char *buf = malloc(n + 1);
	if (!buf)
		return;
	memcpy(buf, d, n);
	buf[n] = 0;
	/* the engine's path over the same text, in two chunks (a line cut) */
	struct osneng_opts o = { .threshold_us = 1, .period_us = 1000000, .runtime_us = 1000000,
				 .hist = true, .bucket_us = 1, .entries = 64 };
	for (unsigned c = 0; c < 4; c++)
		parse_cpuset_add(&o.cpus, c);
	struct osneng *e = NULL;
	static struct osneng_kbuf kb;
	kb.len = kb.bad = 0;
	if (osneng_new(&e, &o, NULL) == 0) {
		osneng_kernel_text(e, &kb, buf, n / 2);
		osneng_kernel_text(e, &kb, buf + n / 2, n - n / 2);
		osneng_kernel_text(e, &kb, "\n", 1);
	}
	uint64_t lost_lines = 0;
	for (char *line = buf, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		struct osnkernel_rec r;
		int err = osnkernel_parse_line(line, &r);
		if (!err && r.kind == OSNKERNEL_PERIOD && r.avail_e5 > 10000000)
			abort();
		if (!err && r.kind == OSNKERNEL_LOST)
			lost_lines++;
	}
	/* every [LOST] line counts one event at least (NUL bytes cut lines
	 * for the line loop, not for the engine, which reads n bytes: so only
	 * when the text has none) */
	if (e && !memchr(d, 0, n) && osneng_counts(e)->lost < lost_lines)
		abort();
	osneng_free(e);
	free(buf);
}

static void drive(const uint8_t *d, size_t n)
{
	struct noise *ns;
	struct noise_opts o = { .threshold_ns = 1000, .stop_single_ns = 50000, .stop_total_ns = 90000,
				.no_workload = n && (d[0] & 1) };
	if (noise_new(&ns, 4, &o, NULL))
		return;
	noise_set_workload(ns, 0, 100);
	noise_set_workload(ns, 1, 101);
	uint64_t t = 1000000, fed[4] = { 0 }, sub_before = 0;
	for (size_t i = 1; i + 12 <= n; i += 12) {
		const uint8_t *p = d + i;
		unsigned op = p[0] % 12, cpu = p[1] % 5;	/* cpu 4 is out of range */
		int32_t v = (int32_t)((uint32_t)p[2] | (uint32_t)p[3] << 8);
		uint32_t dt = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16;
		t = (p[7] & 0x80) ? t - (t > dt / 16 ? dt / 16 : 0) : t + dt;
		struct tpevent e;
		memset(&e, 0, sizeof(e));
		e.cpu = cpu;
		e.time_ns = t;
		switch (op) {
		case 0: e.kind = TPEVENT_IRQ_ENTRY; e.irq.irq = v; memcpy(e.irq.name, p + 8, 4); break;
		case 1: e.kind = TPEVENT_IRQ_EXIT; e.irq.irq = v; break;
		case 2: e.kind = TPEVENT_VECTOR_ENTRY; e.vector.vector = v; break;
		case 3: e.kind = TPEVENT_VECTOR_EXIT; e.vector.vector = v; break;
		case 4: e.kind = TPEVENT_SOFTIRQ_ENTRY; e.softirq.vec = (uint32_t)v; break;
		case 5: e.kind = TPEVENT_SOFTIRQ_EXIT; e.softirq.vec = (uint32_t)v; break;
		case 6: e.kind = TPEVENT_NMI; e.nmi.delta_ns = (int64_t)(int32_t)(dt << 8); break;
		case 7:
			e.kind = TPEVENT_SCHED_SWITCH;
			e.sw.prev_pid = v & 0x7f;
			e.sw.next_pid = (v >> 7) & 0x7f;
			if (p[8] & 1)
				e.sw.next_pid = 100;
			memcpy(e.sw.next_comm, p + 8, 4);
			break;
		case 8: {
			uint64_t len = (uint64_t)p[8] << 8 | p[9];
			if (noise_gap(ns, cpu, t > len ? t - len : 0, t) >= 0 && cpu < 4 &&
			    len >= o.threshold_ns)
				fed[cpu] += len;
			continue;
		}
		case 9:
			noise_period_begin(ns, cpu, t);
			if (cpu < 4)
				fed[cpu] = 0;
			continue;
		case 10: {
			noise_period_end(ns, cpu, t, dt);
			const struct noise_stats *p2 = noise_cpu_period(ns, cpu);
			if (p2 && !o.no_workload && p2->noise_ns > fed[cpu])
				abort();
			continue;
		}
		default:
			noise_sub(ns, cpu, p[8], dt);
			continue;
		}
		noise_event(ns, &e);
	}
	for (unsigned c = 0; c < 4; c++) {
		const struct noise_stats *s = noise_cpu_stats(ns, c);
		if (s->sub_count < sub_before)
			abort();
		const struct noise_contrib *k;
		size_t nk = noise_contribs(ns, c, &k);
		for (size_t j = 0; j < nk; j++)
			if (k[j].max_ns > k[j].total_ns)
				abort();
	}
	noise_free(ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0xff, size);
	size_t tl = sep ? (size_t)(sep - data) : size;
	parse_text(data, tl);
	if (sep)
		drive(sep + 1, size - tl - 1);
	return 0;
}
