/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * bpfhist.bpf.c - the BPF programs of `latscope hist --backend bpf`: the
 * latency_hist histograms kept in the kernel, by the rules of the userspace
 * trackers (engine/latency.h says them; this file follows
 * lib/engine/latency.c function by function: wake_start, timer_wake,
 * on_waking, on_wakeup, on_switch, on_migrate, on_task_exit,
 * on_expire_entry).
 *
 * Built by the Makefile with clang -target bpf against a vmlinux.h made from
 * the running kernel's BTF (CO-RE relocations make it load on other
 * kernels), turned into a skeleton by bpftool; loaded by live/bpfhist.c.
 *
 * Maps (named bpfhist_*, like the programs, so that `bpftool prog|map list`
 * tells ours from others): per CPU (the CPU a sample completes on, as the perf path files it)
 * the buckets and the count/min/max/sum/worst case of each kind; shared
 * (a plain array indexed by CPU, written from other CPUs by wakeups and
 * migrations) the tracking state; per task and per hrtimer, LRU hashes.
 * The CPUs' programs run concurrently, so unlike the userspace engine,
 * which sees every event in one time order, two CPUs updating one CPU's
 * tracking state at the same instant can race: a sample lost or taken from
 * the other order (docs/hist.md, "Backends").
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "live/bpf/bpfhist_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the loader before the load (the skeleton's rodata). */
const volatile __s64 cfg_lo_ns = 0;
const volatile __u64 cfg_bucket_ns = 1000;
const volatile __u32 cfg_nr_buckets = 10240;
const volatile __u32 cfg_nr_cpus = 1;
const volatile __u32 cfg_all_tasks = 0;
const volatile __s32 cfg_pid = 0;
const volatile __u32 cfg_both_off = 0;	/* preemptirqsoff: irqs AND preemption off */
/* hrtimer_expire_entry's `now` comes by value (7.2: ktime_t), not by
 * address (6.1: ktime_t *): the loader asks the kernel's BTF */
const volatile __u32 cfg_now_by_value = 0;

/* per CPU: kind * cfg_nr_buckets + bucket -> count (resized by the loader) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} bpfhist_buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct bpfhist_kstat);
	__uint(max_entries, BPFHIST_NR_KINDS);
} bpfhist_kstats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, BPFHIST_NR_COUNTERS);
} bpfhist_ctrs SEC(".maps");

/* struct latency_cpu */
struct cpu_state {
	__u32 cur_known, trk, sharedprio;
	struct bpfhist_task cur, trk_task;
	__u64 trk_ns;
	__u32 in_expire, exp_valid, exp_woke, exp_cur_known;
	__s64 exp_offset_ns;
	__u64 exp_timer;		/* the timer whose expiry entry we saw */
	__u64 exp_wake_ns;		/* the wakeup it made (exp_woke): filed at its exit */
	struct bpfhist_task exp_task, exp_cur;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cpu_state);
	__uint(max_entries, 1);		/* cfg_nr_cpus, set by the loader */
} bpfhist_cpus SEC(".maps");

/* struct latency_pidv */
struct pid_state {
	__u64 waking_ns, nrt_wake_ns;
	__s64 timer_offset_ns;
	__u32 timer_valid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __s32);
	__type(value, struct pid_state);
	__uint(max_entries, 4096);	/* --table-size */
} bpfhist_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, __s64);
	__uint(max_entries, 4096);	/* --table-size */
} bpfhist_timers SEC(".maps");

/* per CPU: the irqs-off / preemption-off state (struct latency_cpu's
 * irqs_off, preempt_off, comb_off and their start times) */
struct poff_state {
	__u32 irqs_off, preempt_off, comb_off;
	__u32 preempt_seen;	/* a preempt_disable/enable seen on this CPU */
	__u64 irqs_ns, preempt_ns, comb_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct poff_state);
	__uint(max_entries, 1);
} bpfhist_poff SEC(".maps");

/* per CPU: the local timer interrupts (bpfhist_local_timer) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} bpfhist_ltimer SEC(".maps");

static __always_inline void count(__u32 c)
{
	__u64 *v = bpf_map_lookup_elem(&bpfhist_ctrs, &c);
	if (v)
		(*v)++;
}

/*
 * Our programs running on this CPU: a run that begins while another is
 * running was interrupted into (a hard interrupt in a program that runs
 * with interrupts on, e.g. hrtimer_expire_entry of a softirq hrtimer):
 * counted as nested, since it reads and writes the CPU's tracking state
 * between two steps of the other (docs/hist.md, "Backends").  Tracepoints
 * run their probes with preemption off, so only interrupts nest.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} bpfhist_depth SEC(".maps");

static __always_inline __u64 *depth_enter(void)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(&bpfhist_depth, &zero);

	if (d) {
		if (*d)
			count(BPFHIST_C_NESTED);
		(*d)++;
	}
	return d;
}

static __always_inline void depth_exit(__u64 *d)
{
	if (d && *d)
		(*d)--;
}

/* The program NAME on tp_btf/TP: NAME_run(CALL) between depth_enter() and
 * depth_exit(). */
#define TRACKED(tp, name, call, ...)		\
	SEC("tp_btf/" tp)			\
	int BPF_PROG(name, __VA_ARGS__)		\
	{					\
		__u64 *d = depth_enter();	\
		int rc = name##_run call;	\
						\
		depth_exit(d);			\
		return rc;			\
	}

static __always_inline int is_rt(__s32 prio)
{
	return prio >= 0 && prio < BPFHIST_RT_PRIO;
}

static __always_inline void task_of(struct bpfhist_task *t, struct task_struct *p)
{
	t->pid = p->pid;
	t->prio = p->prio;
	__builtin_memcpy(t->comm, p->comm, BPFHIST_COMM_LEN);
	t->comm[BPFHIST_COMM_LEN - 1] = '\0';
}

static __always_inline struct cpu_state *cpu_at(__u32 cpu)
{
	return bpf_map_lookup_elem(&bpfhist_cpus, &cpu);
}

static __always_inline struct cpu_state *cpu_or_here(__s32 cpu)
{
	if (cpu < 0 || (__u32)cpu >= cfg_nr_cpus)
		cpu = (__s32)bpf_get_smp_processor_id();
	return cpu_at((__u32)cpu);
}

/* latency_record(): into the histogram and worst case of this CPU */
static __always_inline void file(__u32 kind, __s64 lat_ns, __s64 toff_ns,
				 const struct bpfhist_task *victim, const struct bpfhist_task *culprit,
				 __u64 now)
{
	struct bpfhist_kstat *k = bpf_map_lookup_elem(&bpfhist_kstats, &kind);
	__u32 idx = 0;

	if (!k)
		return;
	if (k->total == 0 || lat_ns < k->min_ns)
		k->min_ns = lat_ns;
	if (k->total == 0 || lat_ns > k->max_ns)
		k->max_ns = lat_ns;
	k->total++;
	/* lat_ns >= 0 here: every filed value is */
	k->sum_ns = k->sum_ns > 0x7fffffffffffffffLL - lat_ns ? 0x7fffffffffffffffLL : k->sum_ns + lat_ns;
	switch (bpfhist_bucket(lat_ns, cfg_lo_ns, cfg_bucket_ns, cfg_nr_buckets, &idx)) {
	case BPFHIST_BELOW:
		k->below++;
		break;
	case BPFHIST_ABOVE:
		k->above++;
		break;
	default: {
		__u32 key = kind * cfg_nr_buckets + idx;
		__u64 *c = bpf_map_lookup_elem(&bpfhist_buckets, &key);
		if (c)
			(*c)++;
	}
	}
	if (k->max.valid && lat_ns <= k->max.latency_ns)
		return;
	k->max.valid = 1;
	k->max.latency_ns = lat_ns;
	k->max.timer_offset_ns = toff_ns;
	k->max.time_ns = now;
	k->max.victim = *victim;
	k->max.has_culprit = culprit != 0;
	if (culprit)
		k->max.culprit = *culprit;
}

static __always_inline void pid_gc(__s32 pid, struct pid_state *s)
{
	if (!s->waking_ns && !s->nrt_wake_ns && !s->timer_valid)
		bpf_map_delete_elem(&bpfhist_pids, &pid);
}

static __always_inline struct pid_state *pid_get(__s32 pid)
{
	struct pid_state *s = bpf_map_lookup_elem(&bpfhist_pids, &pid);
	struct pid_state zero = {};

	if (s)
		return s;
	bpf_map_update_elem(&bpfhist_pids, &pid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&bpfhist_pids, &pid);
}

/* a wakeup of t onto target at stamp */
static __always_inline void wake_start(struct bpfhist_task *t, __s32 target, __u64 stamp)
{
	int pidf = cfg_pid > 0;
	struct cpu_state *c;

	if (t->pid <= 0 || (pidf && t->pid != cfg_pid))
		return;
	c = cpu_or_here(target);
	if (!c)
		return;
	if (!pidf && !is_rt(t->prio)) {
		if (!cfg_all_tasks)
			return;
		if (c->cur_known && c->cur.pid == t->pid) {
			count(BPFHIST_C_WAKE_IGNORED);
			return;
		}
		struct pid_state *s = pid_get(t->pid);
		if (s && !s->nrt_wake_ns)
			s->nrt_wake_ns = stamp ? stamp : 1;
		return;
	}
	if (c->cur_known && c->cur.pid == t->pid) {
		count(BPFHIST_C_WAKE_IGNORED);
		return;
	}
	if (c->trk && c->trk_task.pid == t->pid)
		return;
	if (!pidf && ((c->trk && t->prio > c->trk_task.prio) ||
		      (c->cur_known && t->prio > c->cur.prio))) {
		count(BPFHIST_C_WAKE_IGNORED);
		return;
	}
	__u32 shared = (c->trk && c->trk_task.prio == t->prio) ||
		       (c->cur_known && c->cur.prio == t->prio);
	if (c->trk)
		count(BPFHIST_C_REPLACED);
	/* a task tracked on another CPU (missed migration) moves here */
	for (__u32 i = 0; i < BPFHIST_MAX_CPUS && !pidf; i++) {
		if (i >= cfg_nr_cpus)
			break;
		struct cpu_state *o = cpu_at(i);
		if (o && o != c && o->trk && o->trk_task.pid == t->pid) {
			o->trk = 0;
			o->sharedprio = 0;
			break;
		}
	}
	c->trk = 1;
	c->trk_task = *t;
	c->trk_ns = stamp;
	c->sharedprio = shared;
}

/* a wakeup seen on this CPU: does it come from a running hrtimer callback? */
static __always_inline void timer_wake(struct bpfhist_task *t, __s32 target, __u64 now)
{
	__u32 here = bpf_get_smp_processor_id();
	struct cpu_state *c = cpu_at(here);
	int pidf = cfg_pid > 0;

	if (!c || !c->in_expire || !c->exp_valid || c->exp_woke || t->pid <= 0)
		return;
	if (pidf && t->pid != cfg_pid)
		return;
	if (!pidf && !is_rt(t->prio) && !cfg_all_tasks)
		return;
	int other_cpu = target >= 0 && (__u32)target != here;
	if (is_rt(t->prio) && c->cur_known && !other_cpu && t->prio >= c->cur.prio)
		return;
	c->exp_woke = 1;
	if (c->exp_offset_ns < 0) {
		count(BPFHIST_C_TIMER_EARLY);
		return;
	}
	/* filed at the expiry's exit, once it is known to be this timer's */
	c->exp_task = *t;
	c->exp_cur_known = c->cur_known;
	if (c->cur_known)
		c->exp_cur = c->cur;
	c->exp_wake_ns = now;
	struct pid_state *s = pid_get(t->pid);
	if (s) {
		s->timer_offset_ns = c->exp_offset_ns;
		s->timer_valid = 1;
	}
}

static __always_inline int bpfhist_waking_run(struct task_struct *p)
{
	struct bpfhist_task t;
	__u64 now = bpf_ktime_get_ns();

	count(BPFHIST_C_EVENTS);
	task_of(&t, p);
	timer_wake(&t, (__s32)p->thread_info.cpu, now);
	if (t.pid <= 0)
		return 0;
	if (cfg_pid > 0 ? t.pid != cfg_pid : (!is_rt(t.prio) && !cfg_all_tasks))
		return 0;
	struct pid_state *s = pid_get(t.pid);
	if (s && !s->waking_ns)
		s->waking_ns = now ? now : 1;
	return 0;
}

TRACKED("sched_waking", bpfhist_waking, (p), struct task_struct *p)

static __always_inline int on_wakeup(struct task_struct *p)
{
	struct bpfhist_task t;
	__u64 now = bpf_ktime_get_ns(), stamp = now;
	__s32 target = (__s32)p->thread_info.cpu;

	count(BPFHIST_C_EVENTS);
	task_of(&t, p);
	timer_wake(&t, target, now);
	struct pid_state *s = bpf_map_lookup_elem(&bpfhist_pids, &t.pid);
	if (s && s->waking_ns) {
		if (s->waking_ns <= stamp)
			stamp = s->waking_ns;
		s->waking_ns = 0;
		pid_gc(t.pid, s);
	}
	wake_start(&t, target, stamp);
	return 0;
}

static __always_inline int bpfhist_wakeup_run(struct task_struct *p)
{
	return on_wakeup(p);
}

TRACKED("sched_wakeup", bpfhist_wakeup, (p), struct task_struct *p)

static __always_inline int bpfhist_wakeup_new_run(struct task_struct *p)
{
	return on_wakeup(p);
}

TRACKED("sched_wakeup_new", bpfhist_wakeup_new, (p), struct task_struct *p)

static __always_inline int bpfhist_switch_run(struct task_struct *prevp, struct task_struct *nextp)
{
	struct bpfhist_task prev, next;
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *c = cpu_at(bpf_get_smp_processor_id());
	__s64 toff = 0;
	__u32 tvalid = 0;

	count(BPFHIST_C_EVENTS);
	if (!c)
		return 0;
	task_of(&prev, prevp);
	task_of(&next, nextp);
	/* prev was running: whatever wakeup it had pending is stale */
	if (prev.pid > 0 && prev.pid != next.pid) {
		struct pid_state *ps = bpf_map_lookup_elem(&bpfhist_pids, &prev.pid);
		if (ps) {
			ps->nrt_wake_ns = 0;
			ps->waking_ns = 0;
			ps->timer_valid = 0;
			pid_gc(prev.pid, ps);
		}
	}
	struct pid_state *s = next.pid > 0 ? bpf_map_lookup_elem(&bpfhist_pids, &next.pid) : 0;
	if (s) {
		if (s->nrt_wake_ns && now >= s->nrt_wake_ns) {
			__s64 lat_ns = (__s64)(now - s->nrt_wake_ns);
			file(BPFHIST_WAKEUP, lat_ns, 0, &next, &prev, now);
			if (s->timer_valid)
				file(BPFHIST_TIMERANDWAKEUP, lat_ns + s->timer_offset_ns,
				     s->timer_offset_ns, &next, &prev, now);
		}
		toff = s->timer_offset_ns;
		tvalid = s->timer_valid;
		bpf_map_delete_elem(&bpfhist_pids, &next.pid);
	}
	if (c->trk) {
		if (prev.pid == c->trk_task.pid) {
			count(BPFHIST_C_DROPPED_RUNNING);
			c->trk = 0;
		} else if (next.pid != c->trk_task.pid) {
			if (next.prio < c->trk_task.prio) {
				count(BPFHIST_C_DROPPED_PRIO);
				c->trk = 0;
			} else if (next.prio == c->trk_task.prio) {
				c->sharedprio = 1;
			}
		} else {
			if (prev.prio == c->trk_task.prio)
				c->sharedprio = 1;
			__s64 lat_ns = now >= c->trk_ns ? (__s64)(now - c->trk_ns) : 0;
			if (c->sharedprio) {
				file(BPFHIST_WAKEUP_SHAREDPRIO, lat_ns, 0, &next, &prev, now);
			} else {
				file(BPFHIST_WAKEUP, lat_ns, 0, &next, &prev, now);
				if (tvalid)
					file(BPFHIST_TIMERANDWAKEUP, lat_ns + toff, toff, &next, &prev,
					     now);
			}
			c->trk = 0;
		}
		if (!c->trk)
			c->sharedprio = 0;
	}
	c->cur_known = 1;
	c->cur = next;
	return 0;
}

TRACKED("sched_switch", bpfhist_switch, (prevp, nextp), bool preempt, struct task_struct *prevp,
	struct task_struct *nextp)

static __always_inline int bpfhist_migrate_run(struct task_struct *p, int dest_cpu)
{
	__s32 oc = (__s32)p->thread_info.cpu, pid = p->pid;

	count(BPFHIST_C_EVENTS);
	if (dest_cpu < 0 || (__u32)dest_cpu >= cfg_nr_cpus || oc == dest_cpu || oc < 0 ||
	    (__u32)oc >= cfg_nr_cpus)
		return 0;
	struct cpu_state *o = cpu_at((__u32)oc), *d = cpu_at((__u32)dest_cpu);
	if (!o || !d || !(o->trk && o->trk_task.pid == pid))
		return 0;
	if (d->trk)
		count(BPFHIST_C_REPLACED);
	d->trk = 1;
	d->trk_task = o->trk_task;
	d->trk_ns = o->trk_ns;
	d->sharedprio = o->sharedprio;
	o->trk = 0;
	o->sharedprio = 0;
	count(BPFHIST_C_MIGRATED);
	return 0;
}

TRACKED("sched_migrate_task", bpfhist_migrate, (p, dest_cpu), struct task_struct *p, int dest_cpu)

static __always_inline int bpfhist_exit_run(struct task_struct *p)
{
	__s32 pid = p->pid;

	count(BPFHIST_C_EVENTS);
	bpf_map_delete_elem(&bpfhist_pids, &pid);
	for (__u32 i = 0; i < BPFHIST_MAX_CPUS; i++) {
		if (i >= cfg_nr_cpus)
			break;
		struct cpu_state *c = cpu_at(i);
		if (c && c->trk && c->trk_task.pid == pid) {
			c->trk = 0;
			c->sharedprio = 0;
		}
	}
	return 0;
}

TRACKED("sched_process_exit", bpfhist_exit, (p), struct task_struct *p)

static __always_inline int bpfhist_hrtimer_start_run(struct hrtimer *timer)
{
	__u64 key = (__u64)timer;
	__s64 expires = timer->node.expires;

	count(BPFHIST_C_EVENTS);
	bpf_map_update_elem(&bpfhist_timers, &key, &expires, BPF_ANY);
	return 0;
}

TRACKED("hrtimer_start", bpfhist_hrtimer_start, (timer), struct hrtimer *timer)

static __always_inline int bpfhist_hrtimer_cancel_run(struct hrtimer *timer)
{
	__u64 key = (__u64)timer;

	count(BPFHIST_C_EVENTS);
	bpf_map_delete_elem(&bpfhist_timers, &key);
	return 0;
}

TRACKED("hrtimer_cancel", bpfhist_hrtimer_cancel, (timer), struct hrtimer *timer)

static __always_inline int bpfhist_expire_entry_run(struct hrtimer *timer, __u64 now_arg)
{
	__u64 key = (__u64)timer;
	struct cpu_state *c = cpu_at(bpf_get_smp_processor_id());
	__s64 *exp = bpf_map_lookup_elem(&bpfhist_timers, &key);
	__s64 now = 0;

	count(BPFHIST_C_EVENTS);
	if (!c)
		return 0;
	c->in_expire = 1;
	c->exp_woke = 0;
	c->exp_timer = key;
	c->exp_valid = exp != 0;
	if (!exp) {
		count(BPFHIST_C_TIMER_UNKNOWN);
		return 0;
	}
	/* the tracepoint's `now`: the clock base's time the expiry ran at */
	if (cfg_now_by_value)
		now = (__s64)now_arg;
	else
		bpf_probe_read_kernel(&now, sizeof(now), (const void *)now_arg);
	c->exp_offset_ns = now - *exp;
	bpf_map_delete_elem(&bpfhist_timers, &key);
	return 0;
}

TRACKED("hrtimer_expire_entry", bpfhist_expire_entry, (timer, now_arg), struct hrtimer *timer,
	__u64 now_arg)

/*
 * The expiry's exit: the wakeup its callback made is filed now.  An exit of
 * another timer than the entry we saw is an expiry nested in ours whose
 * entry program the kernel skipped (its recursion guard: a hard interrupt
 * while our entry program ran, e.g. a softirq hrtimer's on PREEMPT_RT): the
 * wakeup seen meanwhile was that timer's, not ours, so it is not filed
 * (counted as a timer not known) and ours goes on.
 */
static __always_inline int bpfhist_expire_exit_run(struct hrtimer *timer)
{
	struct cpu_state *c = cpu_at(bpf_get_smp_processor_id());

	count(BPFHIST_C_EVENTS);
	if (!c)
		return 0;
	if (c->in_expire && c->exp_timer != (__u64)timer) {
		count(BPFHIST_C_TIMER_UNKNOWN);
		if (c->exp_woke && c->exp_offset_ns >= 0) {
			struct pid_state *s = bpf_map_lookup_elem(&bpfhist_pids, &c->exp_task.pid);
			if (s)
				s->timer_valid = 0;
			c->exp_woke = 0;
		}
		return 0;
	}
	if (c->in_expire && c->exp_woke && c->exp_valid && c->exp_offset_ns >= 0)
		file(BPFHIST_MISSED_TIMER, c->exp_offset_ns, c->exp_offset_ns, &c->exp_task,
		     c->exp_cur_known ? &c->exp_cur : 0, c->exp_wake_ns);
	c->in_expire = 0;
	return 0;
}

TRACKED("hrtimer_expire_exit", bpfhist_expire_exit, (timer), struct hrtimer *timer)

/*
 * irq_vectors:local_timer_entry (x86): one count per local APIC timer
 * interrupt of this CPU, whatever the CPU's state (idle included), for the
 * comparison with /proc/interrupts' LOC column (docs/hist.md, "Backends").
 * A raw tracepoint: it loads on any kernel (no BTF type needed), and the
 * loader attaches it where the tracepoint exists.
 */
SEC("raw_tp/local_timer_entry")
int bpfhist_ltimer_entry(void *ctx)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&bpfhist_ltimer, &zero);

	if (v)
		(*v)++;
	return 0;
}

/*
 * preemptirq:irq_disable/irq_enable/preempt_disable/preempt_enable (kernels
 * with CONFIG_PREEMPTIRQ_TRACEPOINTS): on_preemptirq() and comb_update() of
 * lib/engine/latency.c.  Raw tracepoints: they load on any kernel; the
 * loader attaches them only with --irqsoff and where the tracepoints exist.
 * The victim of a sample is the task running when the section ends (the
 * engine's c->cur: here the current task itself).
 */
static __always_inline void current_task(struct bpfhist_task *t)
{
	struct task_struct *p = (struct task_struct *)bpf_get_current_task();

	t->pid = (__s32)bpf_get_current_pid_tgid();
	t->prio = BPF_CORE_READ(p, prio);
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	t->comm[BPFHIST_COMM_LEN - 1] = '\0';
}

/*
 * The combined section after a change of c's irqs_off/preempt_off at now
 * (comb_update): its length when it ended there, else -1.
 *
 * The programs of these events update the CPU's state first and file what
 * ended afterwards (poff_file): the preempt and cpu_idle programs run with
 * interrupts on, and an interrupt's irq_disable/irq_enable programs nested in
 * one must find the state of after its event (which came first).  Filed in
 * between, a slow filing (100 us under TCG) left the state half changed for
 * the nested programs: the irq_enable of an interrupt taken inside the filing
 * of a preempt_enable closed the combined section at its own time, not at
 * the preempt_enable's (preemptirqsoff 111 us longer than the preemptoff
 * section it contained, on the pirq kernel).
 */
static __always_inline __s64 poff_comb(struct poff_state *c, __u64 now)
{
	__u32 off_now;

	if (c->comb_off && now < c->comb_ns)
		c->comb_ns = now;
	off_now = cfg_both_off ? (c->irqs_off && c->preempt_off) : (c->irqs_off || c->preempt_off);
	if (off_now && !c->comb_off) {
		c->comb_off = 1;
		c->comb_ns = now;
	} else if (!off_now && c->comb_off) {
		c->comb_off = 0;
		return (__s64)(now - c->comb_ns);
	}
	return -1;
}

/* what ended at now, once the state is updated: the kind's section
 * (sec_ns >= 0) and the combined one (comb_ns >= 0), the current task the
 * victim of both */
static __always_inline void poff_file(__u32 kind, __s64 sec_ns, __s64 comb_ns, __u64 now)
{
	struct bpfhist_task cur;

	if (sec_ns < 0 && comb_ns < 0)
		return;
	current_task(&cur);
	if (sec_ns >= 0)
		file(kind, sec_ns, 0, &cur, 0, now);
	if (comb_ns >= 0)
		file(BPFHIST_PREEMPTIRQSOFF, comb_ns, 0, &cur, 0, now);
}

static __always_inline int on_preemptirq(int disable, int irq)
{
	__u32 zero = 0;
	struct poff_state *c = bpf_map_lookup_elem(&bpfhist_poff, &zero);
	__u64 now = bpf_ktime_get_ns();
	__s64 sec_ns = -1, comb_ns;
	__u32 *off, unmatched = 0;
	__u64 *since;

	if (!c)
		return 0;
	off = irq ? &c->irqs_off : &c->preempt_off;
	since = irq ? &c->irqs_ns : &c->preempt_ns;
	if (disable) {
		if (!*off) {
			*off = 1;
			*since = now;
		}
	} else if (*off) {
		*off = 0;
		sec_ns = now >= *since ? (__s64)(now - *since) : 0;
	} else {
		unmatched = 1;
	}
	if (!irq)
		c->preempt_seen = 1;
	comb_ns = poff_comb(c, now);
	count(BPFHIST_C_EVENTS);
	if (unmatched)
		count(BPFHIST_C_UNMATCHED_ENABLE);
	poff_file(irq ? BPFHIST_IRQSOFF : BPFHIST_PREEMPTOFF, sec_ns, comb_ns, now);
	return 0;
}

SEC("raw_tp/irq_disable")
int bpfhist_irq_disable(void *ctx)
{
	return on_preemptirq(1, 1);
}

SEC("raw_tp/irq_enable")
int bpfhist_irq_enable(void *ctx)
{
	return on_preemptirq(0, 1);
}

SEC("raw_tp/preempt_disable")
int bpfhist_preempt_disable(void *ctx)
{
	return on_preemptirq(1, 0);
}

SEC("raw_tp/preempt_enable")
int bpfhist_preempt_enable(void *ctx)
{
	return on_preemptirq(0, 0);
}

/*
 * power:cpu_idle (state, cpu_id): on_cpu_idle() of lib/engine/latency.c.
 * Entering idle ends the preemption-off section there (the kernel's
 * stop_critical_timings() beside it), leaving it (state PWR_EVENT_EXIT,
 * (u32)-1) begins one: the idle task runs with preemption off, and its wait
 * for an interrupt is no preemption-off section (latency_hist's TRACE_STOP,
 * TRACE_START).  Attached with the four above.
 */
SEC("raw_tp/cpu_idle")
int bpfhist_cpu_idle(__u64 *ctx)
{
	__u32 zero = 0, state = (__u32)ctx[0];
	struct poff_state *c = bpf_map_lookup_elem(&bpfhist_poff, &zero);
	__u64 now = bpf_ktime_get_ns();
	__s64 sec_ns = -1, comb_ns;

	if (!c || !c->preempt_seen)
		return 0;
	if (state != (__u32)-1) {
		if (c->preempt_off) {
			c->preempt_off = 0;
			sec_ns = now >= c->preempt_ns ? (__s64)(now - c->preempt_ns) : 0;
		}
	} else if (!c->preempt_off) {
		c->preempt_off = 1;
		c->preempt_ns = now;
	}
	comb_ns = poff_comb(c, now);
	count(BPFHIST_C_EVENTS);
	poff_file(BPFHIST_PREEMPTOFF, sec_ns, comb_ns, now);
	return 0;
}
