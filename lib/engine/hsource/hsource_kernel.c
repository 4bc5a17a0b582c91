/* SPDX-License-Identifier: MIT */
/*
 * hsource_kernel.c - the kernel backend (hsource.h): the kernel's hist
 * triggers keep the wakeup histogram (live/histtrig.h); their text is parsed
 * into a set of the source's own when asked (sync) and once at the end.
 * Every change to the kernel is undone by finish or close, and by
 * histtrig_emergency_restore() on an abort.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "hsource_int.h"

struct kernel_src {
	struct histtrig *h;		/* NULL once finished */
	struct hset *set;
	struct histtrig_stats st;	/* the last read */
	struct histtrig_window win;
	struct latency_stats track;	/* none kept: all zero */
	bool on[HSET_MAX_CPUS];
};

/* Every change undone and h freed; an undo that did not take into why->note. */
static int kernel_undo(struct kernel_src *p, struct hsource_why *why)
{
	int err = histtrig_stop(p->h);
	if (err < 0)
		hsource_note(why, "kernel backend: %s", histtrig_strerror(p->h));
	histtrig_free(p->h);
	p->h = NULL;
	return err;
}

static int kernel_open(void **state, const struct hsource_cfg *cfg, struct hsource_why *why)
{
	struct kernel_src *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	uint32_t nr_cpus = hsource_clamp_cpus(cfg->nr_cpus);
	hsource_cpu_on(cfg, nr_cpus, p->on);
	int err = hset_new(&p->set, nr_cpus, &cfg->lcfg.hist);
	if (err < 0) {
		hsource_reason(why, "cannot set up the histograms: %s", strerror(-err));
		free(p);
		return err;
	}
	struct histtrig_cfg kc = {
		.nr_cpus = nr_cpus, .hist = cfg->lcfg.hist, .all_tasks = cfg->lcfg.all_tasks,
		.pid = cfg->lcfg.pid, .cpu_on = p->on,
	};
	err = histtrig_start(&p->h, &kc);
	if (err < 0) {
		hsource_reason(why, "%s", histtrig_strerror(p->h));
		kernel_undo(p, why);
		hset_free(p->set);
		free(p);
		return err;
	}
	*state = p;
	return 0;
}



/* The kernel's hist text into the set, its counts and the window. */
static int kernel_sync(void *state, struct hsource_why *why)
{
	struct kernel_src *p = state;
	int err = histtrig_read(p->h, p->set, &p->st);

	if (err < 0)
		hsource_reason(why, "%s", histtrig_strerror(p->h));
	histtrig_window(p->h, &p->win);
	return err < 0 ? err : 0;
}

static int kernel_reset(void *state, struct hsource_why *why)
{
	struct kernel_src *p = state;
	int err = histtrig_clear(p->h);

	if (err < 0) {
		hsource_reason(why, "%s", histtrig_strerror(p->h));
		return err;
	}
	return kernel_sync(p, why);
}

/* Pause, the last read, every trigger and the synthetic event removed. */
static int kernel_finish(void *state, struct hsource_why *why)
{
	struct kernel_src *p = state;
	int err = histtrig_pause(p->h);

	if (err < 0)
		hsource_reason(why, "%s", histtrig_strerror(p->h));
	else
		err = kernel_sync(p, why);
	int e = kernel_undo(p, why);
	return err < 0 ? err : e < 0 ? e : 0;
}

static const struct hset *kernel_set(void *state)
{
	return ((struct kernel_src *)state)->set;
}

static void kernel_kinds(void *state, bool has[TPEVENT_NR_KINDS])
{
	(void)state;
	hsource_kernel_kinds(has, false);
}

static void kernel_stats(void *state, struct hsource_stats *st)
{
	struct kernel_src *p = state;
	st->seen = p->st.hits;
	st->lost = p->st.dropped;
	st->track = &p->track;
	st->any_cpu = true;
	st->max_cpu = hset_nr_cpus(p->set) - 1;
	st->dropped = p->st.dropped + p->st.bad_lines;
}

/* the hist triggers' counts and window (JSON input.hist_triggers) */
static void kernel_input_json(void *state, struct json_object *in)
{
	struct kernel_src *p = state;
	struct json_object *o = json_object_new_object();

	if (o) {
		json_object_object_add(o, "hits", jsonnum_u64(p->st.hits));
		json_object_object_add(o, "entries", jsonnum_u64(p->st.entries));
		json_object_object_add(o, "dropped", jsonnum_u64(p->st.dropped));
		json_object_object_add(o, "outside_cpus", jsonnum_u64(p->st.outside_cpus));
		json_object_object_add(o, "bad_lines", jsonnum_u64(p->st.bad_lines));
		json_object_object_add(o, "on_lo_ns", jsonnum_u64(p->win.on_lo_ns));
		json_object_object_add(o, "on_hi_ns", jsonnum_u64(p->win.on_hi_ns));
		json_object_object_add(o, "off_lo_ns", jsonnum_u64(p->win.off_lo_ns));
		json_object_object_add(o, "off_hi_ns", jsonnum_u64(p->win.off_hi_ns));
	}
	json_object_object_add(in, "hist_triggers", o);
}

static void kernel_text(void *state, hsource_line_fn line, void *arg)
{
	struct kernel_src *p = state;
	char b[256];

	snprintf(b, sizeof(b), "events: counted in the kernel by hist triggers (%" PRIu64 " samples filed, %"
		 PRIu64 " dropped by a full map, %" PRIu64 " on CPUs not asked, %" PRIu64
		 " unreadable lines)", p->st.hits, p->st.dropped, p->st.outside_cpus, p->st.bad_lines);
	line(arg, b);
}

static void kernel_describe(void *state, char *buf, size_t len)
{
	snprintf(buf, len, "kernel backend (hist triggers), %" PRIu64 " samples filed",
		 ((struct kernel_src *)state)->st.hits);
}

/* A run that failed or was interrupted before finish: nothing to read. */
static void kernel_close(void *state, struct hsource_why *why)
{
	struct kernel_src *p = state;
	if (p->h)
		kernel_undo(p, why);
	hset_free(p->set);
	free(p);
}

const struct hsource_ops hsource_kernel = {
	.name = "kernel",
	.title = "kernel backend (hist triggers)",
	.auto_name = "kernel hist triggers",
	.auto_note = "the kernel's hist triggers keep the wakeup histogram",
	.tracking = HSOURCE_TRACK_NONE,
	.no_irqsoff = "has no irqsoff/preemptoff histograms (--irqsoff)",
	.kind_refusal = histtrig_kind_refusal,
	.emergency_restore = histtrig_emergency_restore,
	.open = kernel_open,
	.sync = kernel_sync,
	.reset = kernel_reset,
	.finish = kernel_finish,
	.set = kernel_set,
	.kinds = kernel_kinds,
	.stats = kernel_stats,
	.describe = kernel_describe,
	.input_json = kernel_input_json,
	.text = kernel_text,
	.close = kernel_close,
};
