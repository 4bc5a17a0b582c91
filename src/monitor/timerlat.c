/* SPDX-License-Identifier: MIT */
/*
 * timerlat.c - `latscope monitor --timerlat PERIOD`: the kernel's timerlat
 * tracer kept running at PERIOD on the measured CPUs, its ring off, and a
 * BPF program on osnoise:timerlat_sample (lib/live/tlatbpf.h) keeping each
 * CPU's IRQ and thread latency in the kernel; rendered at each publish as
 * latscope_timerlat_* (lib/print/promexp.h).  SIGHUP starts the histograms
 * again (the program reloaded); the end stops the tracer and restores its
 * settings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdio.h"
#include "live/osnkernel.h"
#include "live/tlatbpf.h"
#include "monitor.h"
#include "print/promexp.h"

/* The exposition's last bound in us: the program's bucket count (1 us
 * each; what is past it is counted apart). */
static uint32_t tl_entries(const struct monctx *m)
{
	uint64_t last = m->mo.nr_bounds ? m->mo.bounds_ns[m->mo.nr_bounds - 1]
					: promexp_default_bounds_ns[promexp_default_nr_bounds - 1];
	uint64_t e = last / 1000;
	return e < 1 ? 1 : e > TLATBPF_MAX_ENTRIES ? TLATBPF_MAX_ENTRIES : (uint32_t)e;
}

static int tl_attach(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	char why[512];
	struct tlatbpf_cfg cfg = { .bucket_ns = 1000, .entries = tl_entries(m) };
	if (tlatbpf_open(&m->mon.tlb, &cfg, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: --timerlat: %s\n", c->prog, why);
		return -1;
	}
	return 0;
}

int monitor_timerlat_start(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	char why[512], cl[1024];
	if (!osnkernel_has_tracer("timerlat")) {
		fprintf(stderr, "%s: --timerlat: this kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER)\n",
			c->prog);
		return -1;
	}
	if (tlatbpf_usable(why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: --timerlat: %s\n", c->prog, why);
		return -1;
	}
	parse_cpulist_format(&c->lo.cpus, cl, sizeof(cl));
	struct osnkernel_config kc = {
		.tracer = OSNKERNEL_TRACER_TIMERLAT, .cpus = cl, .timerlat_period_us = m->mo.timerlat_period_us,
		.ring_off = true,
	};
	cmdio_on_abort_call(osnkernel_emergency_restore);
	if (osnkernel_start(&m->mon.tlk, &kc) < 0) {
		fprintf(stderr, "%s: --timerlat: %s\n", c->prog, osnkernel_strerror(m->mon.tlk));
		osnkernel_free(m->mon.tlk);
		m->mon.tlk = NULL;
		return -1;
	}
	if (tl_attach(c) < 0)
		return -1;
	fprintf(stderr, "%s: timerlat: the kernel's timer every %" PRIu64 " us on CPUs %s, a SCHED_FIFO 95 "
			"thread woken each time; its latencies kept by a BPF program (no sample copied)\n",
		c->prog, m->mo.timerlat_period_us, cl);
	return 0;
}

int monitor_timerlat_render(struct hctx *c, FILE *f)
{
	struct monctx *m = monctx_of(c);
	static const char *const ctxs[] = { "irq", "thread" };
	uint32_t entries = tl_entries(m);
	size_t ncpu = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		ncpu += parse_cpuset_has(&c->lo.cpus, cpu);
	struct promexp_tlat *s = calloc(ncpu * 2 + 1, sizeof(*s));
	uint64_t *counts = calloc((ncpu * 2 + 1) * (size_t)entries, sizeof(*counts));
	int err = s && counts ? 0 : -ENOMEM;
	size_t n = 0;
	for (unsigned cpu = 0; !err && cpu < PARSE_MAX_CPUS; cpu++) {
		if (!parse_cpuset_has(&c->lo.cpus, cpu))
			continue;
		for (int x = 0; x < 2; x++) {
			struct tlatbpf_sum sum;
			uint64_t *b = counts + n * entries;
			if (tlatbpf_read(m->mon.tlb, cpu, x, &sum, b) < 0)
				continue;
			s[n++] = (struct promexp_tlat){
				.cpu = cpu, .context = ctxs[x], .counts = b, .nr_buckets = entries, .over = sum.over,
				.count = sum.count, .sum_ns = sum.sum_ns, .max_ns = sum.max_ns, .missed = sum.missed,
			};
		}
	}
	if (!err)
		err = promexp_timerlat(f, s, n, m->mo.nr_bounds ? m->mo.bounds_ns : NULL, m->mo.nr_bounds);
	free(counts);
	free(s);
	return err;
}

int monitor_timerlat_reset(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	tlatbpf_close(m->mon.tlb);	/* a new program: its maps from zero */
	m->mon.tlb = NULL;
	return tl_attach(c);
}

void monitor_timerlat_end(struct hctx *c)
{
	struct monctx *m = monctx_of(c);
	tlatbpf_close(m->mon.tlb);
	m->mon.tlb = NULL;
	if (m->mon.tlk && osnkernel_stop(m->mon.tlk) < 0)
		fprintf(stderr, "%s: --timerlat: cannot restore the tracer's settings: %s\n", c->prog,
			osnkernel_strerror(m->mon.tlk));
	osnkernel_free(m->mon.tlk);
	m->mon.tlk = NULL;
}
