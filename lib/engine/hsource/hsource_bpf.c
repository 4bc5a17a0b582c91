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

#include <json-c/json.h>

#include "base/jsonnum.h"
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
			has[TPEVENT_PREEMPT_ENABLE] = has[TPEVENT_CPU_IDLE] = true;
}

static void bpf_stats(void *state, struct hsource_stats *st)
{
	struct bpf_src *p = state;
	st->seen = p->bs.events;
	st->lost = p->bs.recursion_misses;
	st->track = &p->track;
	st->any_cpu = true;
	st->max_cpu = hset_nr_cpus(p->set) - 1;
	st->kernel_time_known = p->bs.run_cnt_known;
	st->kernel_time_ns = 0;
	for (uint32_t i = 0; i < p->bs.nr_progs && i < BPFHIST_MAX_PROGS; i++)
		st->kernel_time_ns += p->bs.progs[i].run_time_ns;
	st->dropped = p->bs.recursion_misses;
}

/* the local timer interrupts of a traced CPU that LOC counted and the
 * counter program did not see: 0 within one (an interrupt in flight at an
 * end of the window; docs/hist.md, "The kernel's unseen interrupts") */
static uint64_t ltimer_not_seen(const struct hsource_ltimer *t)
{
	return t->loc_delta > t->entries + 1 ? t->loc_delta - t->entries : 0;
}

/* each loaded program's runs and the runs the kernel skipped (JSON
 * input.bpf_programs) */
static struct json_object *progs_json(const struct bpfhist_stats *bs)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; a && i < bs->nr_progs && i < BPFHIST_MAX_PROGS; i++) {
		const struct bpfload_prog *pr = &bs->progs[i];
		struct json_object *e = json_object_new_object();
		if (!e)
			break;
		json_object_object_add(e, "name", json_object_new_string(pr->name));
		if (bs->run_cnt_known)
			json_object_object_add(e, "run_cnt", jsonnum_u64(pr->run_cnt));
		json_object_object_add(e, "recursion_misses", jsonnum_u64(pr->recursion_misses));
		json_object_array_add(a, e);
	}
	return a;
}

/* the local timer interrupts each traced CPU took, counted by a BPF program
 * and by /proc/interrupts (LOC) around it (JSON input.local_timer) */
static struct json_object *ltimer_json(const struct bpf_src *p)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "tracepoint", json_object_new_string("irq_vectors:local_timer_entry"));
	for (size_t i = 0; i < p->nltimer; i++) {
		struct json_object *e = json_object_new_object();
		if (!e)
			break;
		json_object_object_add(e, "cpu", json_object_new_int((int)p->ltimer[i].cpu));
		json_object_object_add(e, "entries", jsonnum_u64(p->ltimer[i].entries));
		json_object_object_add(e, "loc_delta", jsonnum_u64(p->ltimer[i].loc_delta));
		json_object_object_add(e, "not_seen", jsonnum_u64(ltimer_not_seen(&p->ltimer[i])));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "cpus", a);
	return o;
}

static void bpf_input_json(void *state, struct json_object *in)
{
	struct bpf_src *p = state;

	json_object_object_add(in, "bpf_program_runs", jsonnum_u64(p->bs.events));
	json_object_object_add(in, "bpf_recursion_misses", jsonnum_u64(p->bs.recursion_misses));
	json_object_object_add(in, "bpf_nested_runs", jsonnum_u64(p->bs.nested));
	json_object_object_add(in, "bpf_programs", progs_json(&p->bs));
	if (p->nltimer)
		json_object_object_add(in, "local_timer", ltimer_json(p));
}

static void bpf_text(void *state, hsource_line_fn line, void *arg)
{
	struct bpf_src *p = state;
	char b[256];

	snprintf(b, sizeof(b), "events: counted in the kernel by the bpf backend (%" PRIu64 " program runs, %"
		 PRIu64 " skipped by the kernel's recursion guard, %" PRIu64 " nested in another)",
		 p->bs.events, p->bs.recursion_misses, p->bs.nested);
	line(arg, b);
	for (size_t i = 0; i < p->nltimer; i++) {
		const struct hsource_ltimer *t = &p->ltimer[i];
		int n = snprintf(b, sizeof(b), "local timer interrupts: CPU%" PRIu32 " %" PRIu64 " (bpf, "
				 "irq_vectors:local_timer_entry), /proc/interrupts LOC +%" PRIu64, t->cpu,
				 t->entries, t->loc_delta);
		if (ltimer_not_seen(t) && n > 0 && (size_t)n < sizeof(b))
			snprintf(b + n, sizeof(b) - (size_t)n, ": %" PRIu64 " not seen by the programs",
				 ltimer_not_seen(t));
		line(arg, b);
	}
}

static void bpf_loss_text(void *state, char *buf, size_t len)
{
	struct bpf_src *p = state;
	char names[256];

	if (!p->bs.recursion_misses)
		return;
	bpfhist_misses_text(&p->bs, names, sizeof(names));
	snprintf(buf, len, "%" PRIu64 " bpf program runs skipped by the kernel's recursion guard (%s)",
		 p->bs.recursion_misses, names);
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
	.title = "bpf backend",
	.auto_name = "bpf",
	.auto_note = "the histograms are kept in the kernel by BPF programs; kernel hist triggers and "
		     "perf not needed",
	.disable_env = "LATSCOPE_NO_BPF",
	.tracking = HSOURCE_TRACK_NO_TABLES,
	.open = bpf_open,
	.sync = bpf_sync,
	.reset = bpf_reset,
	.finish = bpf_finish,
	.set = bpf_set,
	.kinds = bpf_kinds,
	.stats = bpf_stats,
	.describe = bpf_describe,
	.input_json = bpf_input_json,
	.text = bpf_text,
	.loss_text = bpf_loss_text,
	.close = bpf_close,
};
