/* SPDX-License-Identifier: MIT */
/*
 * bpf.c - `latscope timerlat --backend bpf|auto`: the choice of the backend,
 * and the bpf run's part (lib/live/tlatbpf.h): the program attached when
 * the window opens, its maps read into the engine (lib/engine/tlat.h) for
 * each refresh and at the end, its stop, its misses.  The tracer itself
 * runs as on the trace path, with its ring off (run.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "live/tlatbpf.h"
#include "timerlat.h"

const char *timerlat_bpf_conflict(const struct tl *c)
{
	if (c->mode == TL_TRACE)
		return "keeps no records to print (trace)";
	if (c->opt.trace)
		return "keeps no trace (-t)";
	if (c->opt.auto_us)
		return "sees no osnoise events to analyse with (-a)";
	if (c->opt.stack_us)
		return "cannot show the kernel's stack (-s: it is printed into the ring)";
	if (c->opt.on_thr.cont)
		return "stops counting at the first hit (--on-threshold continue)";
	if (c->out.entries > TLATBPF_MAX_ENTRIES)
		return "keeps at most 1000000 buckets (-E)";
	return NULL;
}

/* --backend auto: bpf where the kernel and the options allow it, else the
 * trace path; one line on stderr says which and why. */
void timerlat_pick_backend(struct tl *c)
{
	char why[512];
	if (c->opt.backend != TL_AUTO)
		return;
	const char *no = timerlat_bpf_conflict(c);
	if (no) {
		snprintf(why, sizeof(why), "not usable: it %s", no);
	} else if (!tlatbpf_usable(why, sizeof(why))) {
		c->opt.backend = TL_BPF;
		fprintf(stderr, "%s: backend bpf (a BPF program on osnoise:timerlat_sample keeps the "
				"histograms in the kernel)\n", c->prog);
		return;
	}
	c->opt.backend = TL_TRACE_BACKEND;
	fprintf(stderr, "%s: backend trace (bpf %s)\n", c->prog, why);
}

int timerlat_bpf_start(struct tl *c)
{
	char why[512];
	struct tlatbpf_cfg cfg = {
		.bucket_ns = c->out.bucket_us * 1000, .entries = (uint32_t)c->out.entries,
		.stop_irq_ns = c->opt.irq_us * 1000, .stop_thread_ns = c->opt.thread_us * 1000,
	};
	c->run.bpf_counts = calloc(c->out.entries, sizeof(*c->run.bpf_counts));
	if (!c->run.bpf_counts) {
		fprintf(stderr, "%s: --backend bpf: out of memory\n", c->prog);
		return -1;
	}
	int err = tlatbpf_open(&c->run.bpf, &cfg, why, sizeof(why));
	if (err < 0) {
		free(c->run.bpf_counts);
		c->run.bpf_counts = NULL;
		fprintf(stderr, "%s: --backend bpf: %s\n", c->prog, why);
		return -1;
	}
	return 0;
}

/* The maps read into the engine: every measured CPU's contexts. */
void timerlat_bpf_sync(struct tl *c)
{
	struct tlatbpf *b = c->run.bpf;
	if (!b)
		return;
	uint64_t *counts = c->run.bpf_counts;
	c->run.t.samples = 0;
	c->run.in.records = 0;
	for (uint32_t cpu = 0; cpu < c->run.t.nr_cpus; cpu++) {
		if (!parse_cpuset_has(&c->run.cpus, cpu))
			continue;
		for (int x = 0; x < TLAT_NR_CTX; x++) {
			struct tlatbpf_sum s;
			if (tlatbpf_read(b, cpu, x, &s, counts) < 0)
				continue;
			struct tlat_totals tot = {
				.counts = counts, .count = s.count, .sum_ns = s.sum_ns, .min_ns = s.min_ns,
				.max_ns = s.max_ns, .over = s.over, .missed = s.missed, .restarts = s.restarts,
				.worst = { .lat_ns = s.worst_ns, .ts_ns = s.worst_ts_ns, .seq = s.worst_seq },
				.last = { .lat_ns = s.cur_ns, .seq = s.last_seq }, .first_seq = s.first_seq,
			};
			tlat_load(&c->run.t, cpu, x, &tot);
			c->run.in.records += s.count;
		}
	}
	struct tlatbpf_stop st;
	tlatbpf_stop(b, &st);
	if (st.hit && !c->run.t.stop.hit) {
		c->run.t.stop = (struct tlat_stop){
			.hit = true, .cpu = st.cpu, .ctx = st.ctx,
			.sample = { .lat_ns = st.lat_ns, .ts_ns = st.ts_ns, .seq = st.seq },
		};
		c->run.t.hits = 1;
	}
}

bool timerlat_bpf_stopped(const struct tl *c)
{
	struct tlatbpf_stop st;
	if (!c->run.bpf)
		return false;
	tlatbpf_stop(c->run.bpf, &st);
	return st.hit != 0;
}

void timerlat_bpf_end(struct tl *c)
{
	if (!c->run.bpf)
		return;
	tlatbpf_detach(c->run.bpf);
	timerlat_bpf_sync(c);
	struct bpfload_prog p;
	if (!tlatbpf_prog(c->run.bpf, &p))
		c->run.bpf_misses = p.recursion_misses;
	tlatbpf_close(c->run.bpf);
	c->run.bpf = NULL;
	free(c->run.bpf_counts);
	c->run.bpf_counts = NULL;
}
