/* SPDX-License-Identifier: MIT */
/*
 * hsource_bpf.c - the bpf backend (hsource.h): BPF programs keep the
 * histograms in the kernel (live/bpfhist.h); the maps are read into a set
 * of the source's own when asked (sync) and once at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsource_int.h"

struct bpf_src {
	struct bpfhist *b;		/* NULL once finished */
	struct hset *set;
	struct bpfhist_stats bs;	/* the last read */
	struct latency_stats track;	/* bs's counters as the engine names them */
	struct hsource_ltimer ltimer[HSOURCE_MAX_LTIMERS];
	size_t nltimer;
	struct parse_cpuset cpus;	/* the traced CPUs */
	bool timers;			/* the timer kinds are measured */
	bool poff;			/* the preemptirq programs are attached */
	bool on[HSET_MAX_CPUS];
};

static void bpf_free(struct bpf_src *p)
{
	bpfhist_close(p->b);
	hset_free(p->set);
	free(p);
}

static int bpf_open(void **state, const struct hsource_cfg *cfg, struct hsource_why *why)
{
	struct bpf_src *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	uint32_t nr_cpus = hsource_clamp_cpus(cfg->nr_cpus);
	p->cpus = *cfg->cpus;
	hsource_cpu_on(cfg, nr_cpus, p->on);
	int err = hset_new(&p->set, nr_cpus, &cfg->lcfg.hist);
	if (err < 0) {
		hsource_reason(why, "cannot set up the histograms: %s", strerror(-err));
		bpf_free(p);
		return err;
	}
	struct bpfhist_cfg bc = {
		.nr_cpus = nr_cpus, .hist = cfg->lcfg.hist, .all_tasks = cfg->lcfg.all_tasks,
		.pid = cfg->lcfg.pid, .table_size = cfg->lcfg.pid_table, .timers = true, .cpu_on = p->on,
		.irqsoff = cfg->irqsoff, .both_off = cfg->lcfg.both_off, .run_stats = cfg->run_stats,
	};
	char msg[400];
	err = bpfhist_open(&p->b, &bc, msg, sizeof(msg));
	if (err < 0) {
		hsource_reason(why, "%s", msg);
		p->b = NULL;
		bpf_free(p);
		return err;
	}
	if (msg[0])	/* runs, without the timer kinds */
		hsource_note(why, "bpf backend: %s", msg);
	p->timers = bpfhist_has_timers(p->b);
	p->poff = bpfhist_irqsoff_attached(p->b);
	*state = p;
	return 0;
}



/* The programs' histograms and counters, and the traced CPUs' local timer
 * interrupts. */
static int bpf_sync(void *state, struct hsource_why *why)
{
	struct bpf_src *p = state;
	int err = bpfhist_read(p->b, p->set, &p->bs);

	if (err < 0) {
		hsource_reason(why, "reading the bpf maps: %s", strerror(-err));
		return err;
	}
	p->nltimer = 0;
	for (uint32_t cpu = 0; cpu < hset_nr_cpus(p->set) && p->nltimer < HSOURCE_MAX_LTIMERS; cpu++) {
		struct bpfhist_ltimer lt;
		if (!parse_cpuset_has(&p->cpus, cpu) || bpfhist_local_timer(p->b, cpu, &lt) < 0)
			continue;
		p->ltimer[p->nltimer].cpu = cpu;
		p->ltimer[p->nltimer].entries = lt.entries;
		p->ltimer[p->nltimer++].loc_delta = lt.loc_delta;
	}
	p->track.wake_ignored = p->bs.wake_ignored;
	p->track.dropped_prio = p->bs.dropped_prio;
	p->track.dropped_running = p->bs.dropped_running;
	p->track.replaced = p->bs.replaced;
	p->track.migrated = p->bs.migrated;
	p->track.timer_unknown = p->bs.timer_unknown;
	p->track.timer_early = p->bs.timer_early;
	return 0;
}

static int bpf_reset(void *state, struct hsource_why *why)
{
	struct bpf_src *p = state;
	int err = bpfhist_reset(p->b);

	if (err < 0) {
		hsource_reason(why, "clearing the bpf maps: %s", strerror(-err));
		return err;
	}
	return bpf_sync(p, why);
}

/* The window ends; the last counts, then nothing of ours stays in the kernel. */
static int bpf_finish(void *state, struct hsource_why *why)
{
	struct bpf_src *p = state;

	bpfhist_stop(p->b);
	int err = bpf_sync(p, why);
	bpfhist_close(p->b);
	p->b = NULL;
	return err;
}

static const struct hset *bpf_set(void *state)
{
	return ((struct bpf_src *)state)->set;
}

static void bpf_kinds(void *state, bool has[TPEVENT_NR_KINDS])
{
	struct bpf_src *p = state;

	hsource_kernel_kinds(has, p->timers);
	if (p->poff)
		has[TPEVENT_IRQ_DISABLE] = has[TPEVENT_IRQ_ENABLE] = has[TPEVENT_PREEMPT_DISABLE] =
			has[TPEVENT_PREEMPT_ENABLE] = true;
}

static void bpf_stats(void *state, struct hsource_stats *st)
{
	struct bpf_src *p = state;
	st->seen = p->bs.events;
	st->lost = p->bs.recursion_misses;
	st->track = &p->track;
	st->any_cpu = true;
	st->max_cpu = hset_nr_cpus(p->set) - 1;
	st->bpf = &p->bs;
	st->ltimer = p->ltimer;
	st->nltimer = p->nltimer;
}

static void bpf_describe(void *state, char *buf, size_t len)
{
	snprintf(buf, len, "bpf backend, %" PRIu64 " program runs", ((struct bpf_src *)state)->bs.events);
}

static void bpf_close(void *state, struct hsource_why *why)
{
	(void)why;
	bpf_free(state);
}

const struct hsource_ops hsource_bpf = {
	.name = "bpf",
	.open = bpf_open,
	.sync = bpf_sync,
	.reset = bpf_reset,
	.finish = bpf_finish,
	.set = bpf_set,
	.kinds = bpf_kinds,
	.stats = bpf_stats,
	.describe = bpf_describe,
	.close = bpf_close,
};
