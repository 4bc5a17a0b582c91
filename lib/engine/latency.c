/* SPDX-License-Identifier: MIT */
/* latency.c - latency_hist-style trackers (see latency.h for the rules). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latency.h"

#define LATENCY_RT_PRIO 100		/* kernel prio < 100: RT task */
#define LATENCY_WINDOW 8		/* probe window of the tables */

/* Per-pid state. */
struct latency_pidv {
	uint64_t waking_ns;		/* pending sched_waking stamp, 0 = none */
	uint64_t nrt_wake_ns;		/* all_tasks: pending non-RT wakeup, 0 = none */
	int64_t timer_offset_ns;
	bool timer_valid;		/* woken by a late timer, offset pending */
};

struct latency_slot {
	bool used;
	uint64_t key;
	uint64_t last_ns;		/* last use, for eviction */
	union {
		struct latency_pidv p;
		int64_t expires_ns;
	};
};

struct latency_tab {
	struct latency_slot *s;
	uint32_t mask;
	int bits;
	uint64_t *evictions;
};

struct latency_task {
	int32_t pid, prio;
	char comm[TPEVENT_COMM_LEN];
};

struct latency_cpu {
	bool cur_known;
	struct latency_task cur;
	uint64_t sw_ns;			/* time of the last sched_switch fed */
	/* wakeup tracking */
	bool trk;
	struct latency_task trk_task;
	uint64_t trk_ns;
	bool sharedprio;
	/* timer expire window */
	bool in_expire;
	bool exp_valid;			/* offset of the running timer known */
	bool exp_woke;			/* its wakeup already matched */
	int64_t exp_offset_ns;
	/* preemptirq */
	bool irqs_off, preempt_off, comb_off;
	bool preempt_seen;		/* a preempt_disable/enable fed for this CPU */
	uint64_t irqs_ns, preempt_ns, comb_ns;
};

struct latency {
	struct latency_cfg cfg;
	struct latency_cpu *cpu;
	struct hset *set;		/* the histograms and worst cases filed */
	struct latency_tab pids, timers;
	struct latency_stats st;
	latency_sample_fn obs;
	void *obs_arg;
};

bool latency_type_supported(enum hset_kind t, const bool has[TPEVENT_NR_KINDS])
{
	bool wake = has[TPEVENT_SCHED_WAKEUP] || has[TPEVENT_SCHED_WAKING] || has[TPEVENT_SCHED_WAKEUP_NEW];
	bool wk = wake && has[TPEVENT_SCHED_SWITCH];
	bool tm = wake && has[TPEVENT_HRTIMER_START] && has[TPEVENT_HRTIMER_EXPIRE_ENTRY] &&
		  has[TPEVENT_HRTIMER_EXPIRE_EXIT];
	bool irq = has[TPEVENT_IRQ_DISABLE] && has[TPEVENT_IRQ_ENABLE];
	bool pre = has[TPEVENT_PREEMPT_DISABLE] && has[TPEVENT_PREEMPT_ENABLE];

	switch (t) {
	case HSET_WAKEUP:
	case HSET_WAKEUP_SHAREDPRIO:
		return wk;
	case HSET_MISSED_TIMER:
		return tm;
	case HSET_TIMERANDWAKEUP:
		return tm && wk;
	case HSET_IRQSOFF:
		return irq;
	case HSET_PREEMPTOFF:
		return pre;
	case HSET_PREEMPTIRQSOFF:
		return irq || pre;
	default:
		return false;
	}
}

void latency_cfg_default(struct latency_cfg *cfg, uint32_t nr_cpus)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_cpus = nr_cpus;
	lhist_cfg_default(&cfg->hist);
	cfg->pid_table = LATENCY_DEFAULT_TABLE;
	cfg->timer_table = LATENCY_DEFAULT_TABLE;
}

/* ---- bounded open-addressing table ---- */

static int tab_init(struct latency_tab *t, uint32_t want, uint64_t *evictions)
{
	uint32_t n = LATENCY_WINDOW;
	int bits = 3;
	while (n < want && n < (1u << 24)) {
		n <<= 1;
		bits++;
	}
	t->s = calloc(n, sizeof(*t->s));
	if (!t->s)
		return -ENOMEM;
	t->mask = n - 1;
	t->bits = bits;
	t->evictions = evictions;
	return 0;
}

static uint32_t tab_home(const struct latency_tab *t, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - t->bits)) & t->mask;
}

static struct latency_slot *tab_find(struct latency_tab *t, uint64_t key)
{
	uint32_t h = tab_home(t, key);
	for (uint32_t i = 0; i < LATENCY_WINDOW; i++) {
		struct latency_slot *s = &t->s[(h + i) & t->mask];
		if (s->used && s->key == key)
			return s;
	}
	return NULL;
}

/* Find or insert key; a new slot is zeroed.  Never fails: evicts the least
 * recently used entry of the window when it is full. */
static struct latency_slot *tab_get(struct latency_tab *t, uint64_t key, uint64_t now_ns)
{
	uint32_t h = tab_home(t, key);
	struct latency_slot *free_s = NULL, *old = NULL;
	for (uint32_t i = 0; i < LATENCY_WINDOW; i++) {
		struct latency_slot *s = &t->s[(h + i) & t->mask];
		if (s->used && s->key == key) {
			s->last_ns = now_ns;
			return s;
		}
		if (!s->used && !free_s)
			free_s = s;
		if (s->used && (!old || s->last_ns < old->last_ns))
			old = s;
	}
	if (!free_s) {
		free_s = old;
		(*t->evictions)++;
	}
	memset(free_s, 0, sizeof(*free_s));
	free_s->used = true;
	free_s->key = key;
	free_s->last_ns = now_ns;
	return free_s;
}

static void tab_del(struct latency_slot *s)
{
	if (s)
		s->used = false;
}

static uint64_t pid_key(int32_t pid)
{
	return (uint64_t)(uint32_t)pid;
}

/* Drop a pid slot that holds nothing pending. */
static void pid_gc(struct latency_slot *s)
{
	if (s && !s->p.waking_ns && !s->p.nrt_wake_ns && !s->p.timer_valid)
		tab_del(s);
}

/* ---- lifecycle ---- */

int latency_new(struct latency **out, const struct latency_cfg *cfg)
{
	struct latency *l;
	struct hset *set;
	int err;

	*out = NULL;
	if (!cfg)
		return -EINVAL;
	err = hset_new(&set, cfg->nr_cpus, &cfg->hist);	/* checks the CPUs and the geometry */
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l) {
		hset_free(set);
		return -ENOMEM;
	}
	l->set = set;
	l->cfg = *cfg;
	l->cpu = calloc(cfg->nr_cpus, sizeof(*l->cpu));
	if (!l->cpu ||
	    tab_init(&l->pids, cfg->pid_table ? cfg->pid_table : LATENCY_DEFAULT_TABLE,
		     &l->st.pid_evictions) < 0 ||
	    tab_init(&l->timers, cfg->timer_table ? cfg->timer_table : LATENCY_DEFAULT_TABLE,
		     &l->st.timer_evictions) < 0) {
		latency_free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

void latency_free(struct latency *l)
{
	if (!l)
		return;
	hset_free(l->set);
	free(l->cpu);
	free(l->pids.s);
	free(l->timers.s);
	free(l);
}

void latency_set_observer(struct latency *l, latency_sample_fn fn, void *arg)
{
	l->obs = fn;
	l->obs_arg = arg;
}

void latency_reset(struct latency *l)
{
	hset_reset(l->set);
}

uint32_t latency_nr_cpus(const struct latency *l)
{
	return l->cfg.nr_cpus;
}

const struct latency_cfg *latency_config(const struct latency *l)
{
	return &l->cfg;
}

const struct hset *latency_set(const struct latency *l)
{
	return l->set;
}

const struct latency_stats *latency_stats(const struct latency *l)
{
	return &l->st;
}

/* ---- recording ---- */

static void copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, TPEVENT_COMM_LEN);
	dst[TPEVENT_COMM_LEN - 1] = '\0';
}

static void task_set(struct latency_task *t, int32_t pid, int32_t prio, const char *comm)
{
	t->pid = pid;
	t->prio = prio;
	copy_comm(t->comm, comm);
}

static void latency_record(struct latency *l, uint32_t cpu, enum hset_kind t, int64_t lat_ns,
		       int64_t timer_offset_ns, const struct latency_task *victim,
		       const struct latency_task *culprit, uint64_t now_ns)
{
	if (l->obs) {
		struct latency_sample s = {
			.type = t, .cpu = cpu, .latency_ns = lat_ns, .time_ns = now_ns,
			.timer_offset_ns = timer_offset_ns,
			.pid = victim ? victim->pid : -1, .prio = victim ? victim->prio : -1,
			.comm = victim ? victim->comm : NULL,
			.culprit_pid = culprit ? culprit->pid : -1,
			.culprit_prio = culprit ? culprit->prio : -1,
		};
		l->obs(l->obs_arg, &s);
	}
	if (hset_record(l->set, t, cpu, lat_ns) < 0) {
		l->st.alloc_failures++;
		return;
	}
	const struct hset_max *cur = hset_max(l->set, t, cpu);
	if (cur->valid && lat_ns <= cur->latency_ns)
		return;
	struct hset_max m = {
		.valid = true, .latency_ns = lat_ns, .timer_offset_ns = timer_offset_ns,
		.time_ns = now_ns, .pid = -1,
	};
	if (victim) {
		m.pid = victim->pid;
		m.prio = victim->prio;
		copy_comm(m.comm, victim->comm);
	}
	if (culprit) {
		m.has_culprit = true;
		m.culprit_pid = culprit->pid;
		m.culprit_prio = culprit->prio;
		copy_comm(m.culprit_comm, culprit->comm);
	}
	hset_offer_max(l->set, t, cpu, &m);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static bool is_rt(int32_t prio)
{
	return prio >= 0 && prio < LATENCY_RT_PRIO;
}

static struct latency_cpu *cpu_of(struct latency *l, int32_t cpu, uint32_t fallback)
{
	if (cpu < 0 || (uint32_t)cpu >= l->cfg.nr_cpus)
		cpu = (int32_t)fallback;
	return &l->cpu[cpu];
}

/* A wakeup at ev's time onto c that comes after c's later switches: the
 * source wrote it late (a live ring's writer stalled past the reader's
 * slack, evsrc.h out_of_order; a recording of such a run).  The switch-in
 * that ended it may already be behind, so it starts no measurement (which
 * would file the next wake's switch-in against this stamp): counted. */
static bool wake_late(struct latency *l, const struct tpevent *ev, const struct latency_cpu *c)
{
	if (c->sw_ns <= ev->time_ns)
		return false;
	l->st.late_wakeups++;
	return true;
}

/* A wakeup of task (pid, prio, comm) onto target at stamp_ns. */
static void wake_start(struct latency *l, const struct tpevent *ev, int32_t pid, int32_t prio,
		       const char *comm, int32_t target, uint64_t stamp_ns)
{
	bool pidf = l->cfg.pid > 0;
	struct latency_cpu *c;

	if (pid <= 0 || (pidf && pid != l->cfg.pid))
		return;
	if (!pidf && !is_rt(prio)) {
		if (!l->cfg.all_tasks) {
			l->st.wake_not_rt++;	/* latency_hist's rule: RT tasks only */
			return;
		}
		c = cpu_of(l, target, ev->cpu);
		if (wake_late(l, ev, c))
			return;
		if (c->cur_known && c->cur.pid == pid) {
			l->st.wake_ignored++;	/* already running */
			return;
		}
		/* non-RT, all_tasks: independent per-pid measurement */
		struct latency_slot *s = tab_get(&l->pids, pid_key(pid), ev->time_ns);
		if (!s->p.nrt_wake_ns)
			s->p.nrt_wake_ns = stamp_ns ? stamp_ns : 1;
		return;
	}
	c = cpu_of(l, target, ev->cpu);
	if (wake_late(l, ev, c))
		return;
	if (c->cur_known && c->cur.pid == pid) {
		l->st.wake_ignored++;	/* already running */
		return;
	}
	if (c->trk && c->trk_task.pid == pid)
		return;			/* already tracked: keep the first stamp */
	if (!pidf) {
		if ((c->trk && prio > c->trk_task.prio) || (c->cur_known && prio > c->cur.prio)) {
			l->st.wake_ignored++;
			return;
		}
	}
	bool shared = (c->trk && c->trk_task.prio == prio) || (c->cur_known && c->cur.prio == prio);
	if (c->trk)
		l->st.replaced++;
	/* a task tracked on another CPU (missed migration) moves here */
	for (uint32_t i = 0; i < l->cfg.nr_cpus && !pidf; i++) {
		struct latency_cpu *o = &l->cpu[i];
		if (o != c && o->trk && o->trk_task.pid == pid) {
			o->trk = false;
			o->sharedprio = false;
			break;
		}
	}
	c->trk = true;
	task_set(&c->trk_task, pid, prio, comm);
	c->trk_ns = stamp_ns;
	c->sharedprio = shared;
}

/* A wakeup seen on ev->cpu: does it come from a running hrtimer callback? */
static void timer_wake(struct latency *l, const struct tpevent *ev, int32_t pid, int32_t prio,
		       const char *comm, int32_t target)
{
	struct latency_cpu *c = &l->cpu[ev->cpu];
	bool pidf = l->cfg.pid > 0;

	if (!c->in_expire || !c->exp_valid || c->exp_woke || pid <= 0)
		return;
	if (pidf && pid != l->cfg.pid)
		return;
	if (!pidf && !is_rt(prio) && !l->cfg.all_tasks)
		return;
	/* would it preempt the interrupted task? */
	bool other_cpu = target >= 0 && (uint32_t)target != ev->cpu;
	if (is_rt(prio) && c->cur_known && !other_cpu && prio >= c->cur.prio)
		return;
	c->exp_woke = true;
	if (c->exp_offset_ns < 0) {
		l->st.timer_early++;
		return;
	}
	struct latency_task victim;
	task_set(&victim, pid, prio, comm);
	latency_record(l, ev->cpu, HSET_MISSED_TIMER, c->exp_offset_ns, c->exp_offset_ns, &victim,
		   c->cur_known ? &c->cur : NULL, ev->time_ns);
	struct latency_slot *s = tab_get(&l->pids, pid_key(pid), ev->time_ns);
	s->p.timer_offset_ns = c->exp_offset_ns;
	s->p.timer_valid = true;
}

static void on_waking(struct latency *l, const struct tpevent *ev)
{
	timer_wake(l, ev, ev->wake.pid, ev->wake.prio, ev->wake.comm, ev->wake.target_cpu);
	if (l->cfg.start_on_waking) {
		wake_start(l, ev, ev->wake.pid, ev->wake.prio, ev->wake.comm, ev->wake.target_cpu,
			   ev->time_ns);
		return;
	}
	int32_t pid = ev->wake.pid;
	if (pid <= 0)
		return;
	if (l->cfg.pid > 0 ? pid != l->cfg.pid : (!is_rt(ev->wake.prio) && !l->cfg.all_tasks))
		return;
	struct latency_slot *s = tab_get(&l->pids, pid_key(pid), ev->time_ns);
	if (!s->p.waking_ns)
		s->p.waking_ns = ev->time_ns ? ev->time_ns : 1;
}

static void on_wakeup(struct latency *l, const struct tpevent *ev)
{
	uint64_t stamp = ev->time_ns;
	struct latency_slot *s;

	timer_wake(l, ev, ev->wake.pid, ev->wake.prio, ev->wake.comm, ev->wake.target_cpu);
	s = tab_find(&l->pids, pid_key(ev->wake.pid));
	if (s && s->p.waking_ns) {
		if (s->p.waking_ns <= stamp)
			stamp = s->p.waking_ns;
		s->p.waking_ns = 0;
		pid_gc(s);
	}
	wake_start(l, ev, ev->wake.pid, ev->wake.prio, ev->wake.comm, ev->wake.target_cpu, stamp);
}

static void on_switch(struct latency *l, const struct tpevent *ev)
{
	struct latency_cpu *c = &l->cpu[ev->cpu];
	struct latency_task prev, next;
	uint64_t now = ev->time_ns;

	task_set(&prev, ev->sw.prev_pid, ev->sw.prev_prio, ev->sw.prev_comm);
	task_set(&next, ev->sw.next_pid, ev->sw.next_prio, ev->sw.next_comm);

	/* prev was running: whatever wakeup it had pending is stale */
	struct latency_slot *ps = prev.pid > 0 && prev.pid != next.pid ?
				      tab_find(&l->pids, pid_key(prev.pid)) : NULL;
	if (ps) {
		ps->p.nrt_wake_ns = 0;
		ps->p.waking_ns = 0;
		ps->p.timer_valid = false;
		pid_gc(ps);
	}

	struct latency_slot *s = next.pid > 0 ? tab_find(&l->pids, pid_key(next.pid)) : NULL;
	int64_t toff = 0;
	bool tvalid = false;
	if (s) {
		/* the task runs: its pending stamps are consumed */
		if (s->p.nrt_wake_ns && now >= s->p.nrt_wake_ns) {
			int64_t lat_ns = (int64_t)(now - s->p.nrt_wake_ns);
			latency_record(l, ev->cpu, HSET_WAKEUP, lat_ns, 0, &next, &prev, now);
			if (s->p.timer_valid)
				latency_record(l, ev->cpu, HSET_TIMERANDWAKEUP,
					   sat_add(lat_ns, s->p.timer_offset_ns),
					   s->p.timer_offset_ns,
					   &next, &prev, now);
		}
		toff = s->p.timer_offset_ns;
		tvalid = s->p.timer_valid;
		s->p.nrt_wake_ns = 0;
		s->p.waking_ns = 0;
		s->p.timer_valid = false;
		s->p.timer_offset_ns = 0;
		pid_gc(s);
	}

	if (c->trk) {
		if (prev.pid == c->trk_task.pid) {
			l->st.dropped_running++;
			c->trk = false;
		} else if (next.pid != c->trk_task.pid) {
			if (next.prio < c->trk_task.prio) {
				l->st.dropped_prio++;
				c->trk = false;
			} else if (next.prio == c->trk_task.prio) {
				c->sharedprio = true;
			}
		} else {
			if (prev.prio == c->trk_task.prio)
				c->sharedprio = true;
			int64_t lat_ns = now >= c->trk_ns ? (int64_t)(now - c->trk_ns) : 0;
			if (c->sharedprio) {
				latency_record(l, ev->cpu, HSET_WAKEUP_SHAREDPRIO, lat_ns, 0, &next,
					   &prev, now);
			} else {
				latency_record(l, ev->cpu, HSET_WAKEUP, lat_ns, 0, &next, &prev, now);
				if (tvalid)
					latency_record(l, ev->cpu, HSET_TIMERANDWAKEUP, sat_add(lat_ns, toff),
						   toff, &next, &prev, now);
			}
			c->trk = false;
		}
		if (!c->trk)
			c->sharedprio = false;
	}
	c->cur_known = true;
	c->cur = next;
	if (now > c->sw_ns)
		c->sw_ns = now;
}

static void on_migrate(struct latency *l, const struct tpevent *ev)
{
	int32_t oc = ev->migrate.orig_cpu, dc = ev->migrate.dest_cpu;
	if (dc < 0 || (uint32_t)dc >= l->cfg.nr_cpus || oc == dc)
		return;
	struct latency_cpu *o = NULL;
	if (oc >= 0 && (uint32_t)oc < l->cfg.nr_cpus) {
		o = &l->cpu[oc];
		if (!(o->trk && o->trk_task.pid == ev->migrate.pid))
			o = NULL;
	} else {
		for (uint32_t i = 0; i < l->cfg.nr_cpus; i++)
			if (l->cpu[i].trk && l->cpu[i].trk_task.pid == ev->migrate.pid) {
				o = &l->cpu[i];
				break;
			}
	}
	if (!o)
		return;
	struct latency_cpu *d = &l->cpu[dc];
	if (d->trk)
		l->st.replaced++;
	d->trk = true;
	d->trk_task = o->trk_task;
	d->trk_ns = o->trk_ns;
	d->sharedprio = o->sharedprio;
	o->trk = false;
	o->sharedprio = false;
	l->st.migrated++;
}

static void on_task_exit(struct latency *l, const struct tpevent *ev)
{
	tab_del(tab_find(&l->pids, pid_key(ev->exit.pid)));
	for (uint32_t i = 0; i < l->cfg.nr_cpus; i++)
		if (l->cpu[i].trk && l->cpu[i].trk_task.pid == ev->exit.pid) {
			l->cpu[i].trk = false;
			l->cpu[i].sharedprio = false;
		}
}

static void on_expire_entry(struct latency *l, const struct tpevent *ev)
{
	struct latency_cpu *c = &l->cpu[ev->cpu];
	struct latency_slot *s = tab_find(&l->timers, ev->hrtimer.hrtimer);
	c->in_expire = true;
	c->exp_woke = false;
	c->exp_valid = s != NULL;
	if (s) {
		c->exp_offset_ns = sat_sub(ev->hrtimer.now_ns, s->expires_ns);
		tab_del(s);
	} else {
		l->st.timer_unknown++;
	}
}

static void comb_update(struct latency *l, struct latency_cpu *c, const struct tpevent *ev)
{
	bool off = l->cfg.both_off ? (c->irqs_off && c->preempt_off)
				   : (c->irqs_off || c->preempt_off);
	if (off && !c->comb_off) {
		c->comb_off = true;
		c->comb_ns = ev->time_ns;
	} else if (!off && c->comb_off) {
		c->comb_off = false;
		latency_record(l, ev->cpu, HSET_PREEMPTIRQSOFF, (int64_t)(ev->time_ns - c->comb_ns), 0,
			   c->cur_known ? &c->cur : NULL, NULL, ev->time_ns);
	}
}

static void on_preemptirq(struct latency *l, const struct tpevent *ev)
{
	struct latency_cpu *c = &l->cpu[ev->cpu];
	bool disable = ev->kind == TPEVENT_IRQ_DISABLE || ev->kind == TPEVENT_PREEMPT_DISABLE;
	bool irq = ev->kind == TPEVENT_IRQ_DISABLE || ev->kind == TPEVENT_IRQ_ENABLE;
	bool *off = irq ? &c->irqs_off : &c->preempt_off;
	uint64_t *since = irq ? &c->irqs_ns : &c->preempt_ns;

	if (disable) {
		if (!*off) {
			*off = true;
			*since = ev->time_ns;
		}
	} else if (*off) {
		*off = false;
		int64_t d = ev->time_ns >= *since ? (int64_t)(ev->time_ns - *since) : 0;
		latency_record(l, ev->cpu, irq ? HSET_IRQSOFF : HSET_PREEMPTOFF, d, 0,
			   c->cur_known ? &c->cur : NULL, NULL, ev->time_ns);
	} else {
		l->st.unmatched_enable++;
	}
	if (!irq)
		c->preempt_seen = true;
	if (c->comb_off && ev->time_ns < c->comb_ns)
		c->comb_ns = ev->time_ns;
	comb_update(l, c, ev);
}

/*
 * power:cpu_idle, emitted next to the kernel's stop_critical_timings() and
 * start_critical_timings() around the idle loop's wait (latency_hist's
 * TRACE_STOP and TRACE_START; what the irqsoff/preemptoff tracers do there).
 * The idle task runs with preemption off throughout, so without them every
 * idle period would be one preemption-off section, from the schedule() that
 * went idle to the preempt_enable of the task switched in after it.
 * Entering idle ends the preemption-off section there (filed); leaving it
 * begins one (the idle task still has preemption off), which ends at the
 * next preempt_enable (the task switched in) or idle entry.  Interrupts need
 * nothing: the idle code reports irqs on (preemptirq:irq_enable) before it
 * waits, and the wake-up interrupt's exit reports it again.  Only on CPUs
 * whose preempt_disable/enable events the stream carries.
 */
static void on_cpu_idle(struct latency *l, const struct tpevent *ev)
{
	struct latency_cpu *c = &l->cpu[ev->cpu];

	if (!c->preempt_seen)
		return;
	if (ev->cpu_idle.state != TPEVENT_CPU_IDLE_EXIT) {
		if (c->preempt_off) {
			c->preempt_off = false;
			int64_t d = ev->time_ns >= c->preempt_ns ? (int64_t)(ev->time_ns - c->preempt_ns) : 0;
			latency_record(l, ev->cpu, HSET_PREEMPTOFF, d, 0, c->cur_known ? &c->cur : NULL, NULL,
				       ev->time_ns);
		}
	} else if (!c->preempt_off) {
		c->preempt_off = true;
		c->preempt_ns = ev->time_ns;
	}
	comb_update(l, c, ev);
}

int latency_feed(struct latency *l, const struct tpevent *ev)
{
	l->st.events++;
	if (ev->cpu >= l->cfg.nr_cpus) {
		l->st.bad_cpu++;
		return -ERANGE;
	}
	if ((unsigned)ev->kind < TPEVENT_NR_KINDS)
		l->st.kinds[ev->kind]++;

	switch (ev->kind) {
	case TPEVENT_SCHED_WAKING:
		on_waking(l, ev);
		break;
	case TPEVENT_SCHED_WAKEUP:
	case TPEVENT_SCHED_WAKEUP_NEW:
		on_wakeup(l, ev);
		break;
	case TPEVENT_SCHED_SWITCH:
		on_switch(l, ev);
		break;
	case TPEVENT_SCHED_MIGRATE:
		on_migrate(l, ev);
		break;
	case TPEVENT_SCHED_PROCESS_EXIT:
		on_task_exit(l, ev);
		break;
	case TPEVENT_HRTIMER_START: {
		struct latency_slot *s = tab_get(&l->timers, ev->hrtimer_start.hrtimer, ev->time_ns);
		s->expires_ns = ev->hrtimer_start.expires_ns;
		break;
	}
	case TPEVENT_HRTIMER_CANCEL:
		tab_del(tab_find(&l->timers, ev->hrtimer.hrtimer));
		break;
	case TPEVENT_HRTIMER_EXPIRE_ENTRY:
		on_expire_entry(l, ev);
		break;
	case TPEVENT_HRTIMER_EXPIRE_EXIT:
		l->cpu[ev->cpu].in_expire = false;
		break;
	case TPEVENT_IRQ_DISABLE:
	case TPEVENT_IRQ_ENABLE:
	case TPEVENT_PREEMPT_DISABLE:
	case TPEVENT_PREEMPT_ENABLE:
		on_preemptirq(l, ev);
		break;
	case TPEVENT_CPU_IDLE:
		on_cpu_idle(l, ev);
		break;
	default:
		break;
	}
	return 0;
}
