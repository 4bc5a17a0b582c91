/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * osnbpf.bpf.c - the BPF programs of `latscope osnoise --backend bpf`: the
 * interference of every measured CPU counted in the kernel, the way the
 * kernel osnoise tracer keeps its per-CPU variables (and lib/engine/noise.c
 * its windows): per class (NMI > IRQ > softirq > thread) an open window with
 * a delta_start that every nested window's net time pushes forward, so every
 * duration is net.  Per CPU the entries, the net time of each class and a
 * change counter go into that CPU's slot of an mmapped array that the busy
 * loop reads at every gap (osnbpf_abi.h); per contributor (an IRQ, a vector,
 * a softirq, a task) the count, net total and maximum go into a hash read at
 * the end.  No event leaves the kernel.
 *
 * Programs (tp_btf, CO-RE; named osnbpf_*, like the maps, so that `bpftool
 * prog|map list` tells ours from others): irq_handler_entry/exit,
 * softirq_entry/exit (not on PREEMPT_RT, where softirqs are thread time),
 * nmi_handler, sched_switch, and the x86 vectors' NAME_entry/NAME_exit; the
 * loader leaves out those whose tracepoint this kernel lacks.
 *
 * Built by the Makefile like bpfhist.bpf.c (clang -target bpf against a
 * vmlinux.h of the build machine's BTF, bpftool gen skeleton); loaded by
 * live/osnbpf.c.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "live/bpf/osnbpf_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Windows arriving before this (CLOCK_MONOTONIC ns: the warm-up's end) are
 * not in the contributor table; set by the loader (the skeleton's bss). */
__u64 gate_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct osnbpf_slot);
	__uint(max_entries, 1);		/* the possible CPUs, set by the loader */
} osnbpf_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct osnbpf_key);
	__type(value, struct osnbpf_val);
	__uint(max_entries, 16384);	/* set by the loader */
} osnbpf_contribs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, OSNBPF_NR_COUNTERS);
} osnbpf_ctrs SEC(".maps");

/* A class's open window on a CPU. */
struct win {
	__u64 arrival_ns, delta_start_ns;
	__s32 id;
	__u32 open, src;
	char name[OSNBPF_NAME_LEN];
};

struct cpu_state {
	struct win w[OSNBPF_NR_CLASSES];
	__s32 cur_pid;			/* the task the last switch put on */
	__u32 cur_known;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cpu_state);
	__uint(max_entries, 1);
} osnbpf_state SEC(".maps");

static __always_inline void count(__u32 c)
{
	__u64 *v = bpf_map_lookup_elem(&osnbpf_ctrs, &c);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* A run: counted; this CPU's slot and state when the CPU is measured. */
static __always_inline struct osnbpf_slot *enter(struct cpu_state **st)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	struct osnbpf_slot *s;

	count(OSNBPF_C_RUNS);
	s = bpf_map_lookup_elem(&osnbpf_slots, &cpu);
	if (!s || !s->workload_tid)
		return 0;
	*st = bpf_map_lookup_elem(&osnbpf_state, &zero);
	return *st ? s : 0;
}

/* the window's net time into its contributor, while the loop measures
 * (unseen: an entry whose start no program saw, without time) */
static __always_inline void contrib(struct osnbpf_slot *s, const struct win *w, __u64 net, __u32 unseen)
{
	struct osnbpf_key k = {};
	struct osnbpf_val *v, nv = {};

	if (!s->active || w->arrival_ns < gate_ns)
		return;
	k.cpu = bpf_get_smp_processor_id();
	k.src = w->src;
	k.id = w->id;
	__builtin_memcpy(k.name, w->name, OSNBPF_NAME_LEN);
	v = bpf_map_lookup_elem(&osnbpf_contribs, &k);
	if (!v) {
		/* the CPU is in the key: no other CPU writes this entry */
		if (bpf_map_update_elem(&osnbpf_contribs, &k, &nv, BPF_NOEXIST) < 0) {
			count(OSNBPF_C_CONTRIB_FULL);
			return;
		}
		v = bpf_map_lookup_elem(&osnbpf_contribs, &k);
		if (!v)
			return;
	}
	v->count++;
	v->total_ns += net;
	v->unseen += unseen;
	if (net > v->max_ns)
		v->max_ns = net;
}

/* an entry of class cls: its window opens */
static __always_inline struct win *open_win(struct osnbpf_slot *s, struct cpu_state *st, __u32 cls,
					    __u32 src, __s32 id, __u64 now)
{
	struct win *w = &st->w[cls];

	if (w->open)
		count(OSNBPF_C_DROPPED);	/* its exit was lost */
	w->open = 1;
	w->arrival_ns = now;
	w->delta_start_ns = now;
	w->id = id;
	w->src = src;
	__builtin_memset(w->name, 0, OSNBPF_NAME_LEN);
	__sync_fetch_and_add(&s->count[cls], 1);
	__sync_fetch_and_add(&s->seq, 1);
	return w;
}

/* net ns of cls's nested window: the windows open below it start later */
static __always_inline void push_below(struct cpu_state *st, __u32 cls, __u64 net)
{
	for (__u32 c = cls + 1; c < OSNBPF_NR_CLASSES; c++)
		if (st->w[c].open)
			st->w[c].delta_start_ns += net;
}

/* the exit of class cls (id: its IRQ, vector or softirq) */
static __always_inline void close_win(struct osnbpf_slot *s, struct cpu_state *st, __u32 cls, __s32 id,
				      __u64 now)
{
	struct win *w = &st->w[cls];
	__u64 net;

	if (!w->open || w->id != id) {
		count(OSNBPF_C_UNMATCHED);
		return;
	}
	w->open = 0;
	net = now > w->delta_start_ns ? now - w->delta_start_ns : 0;
	push_below(st, cls, net);
	__sync_fetch_and_add(&s->net_ns[cls], net);
	__sync_fetch_and_add(&s->seq, 1);
	contrib(s, w, net, 0);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(osnbpf_irq_entry, int irq, struct irqaction *action)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);
	struct win *w;

	if (!s)
		return 0;
	w = open_win(s, st, OSNBPF_IRQ, OSNBPF_SRC_IRQ, irq, bpf_ktime_get_ns());
	bpf_probe_read_kernel_str(w->name, OSNBPF_NAME_LEN, BPF_CORE_READ(action, name));
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(osnbpf_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);

	if (s)
		close_win(s, st, OSNBPF_IRQ, irq, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(osnbpf_sirq_entry, unsigned int vec)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);

	if (s)
		open_win(s, st, OSNBPF_SOFTIRQ, OSNBPF_SRC_SOFTIRQ, (__s32)vec, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(osnbpf_sirq_exit, unsigned int vec)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);

	if (s)
		close_win(s, st, OSNBPF_SOFTIRQ, (__s32)vec, bpf_ktime_get_ns());
	return 0;
}

/* One event at the end of each NMI handler, with its duration. */
SEC("tp_btf/nmi_handler")
int BPF_PROG(osnbpf_nmi, void *handler, s64 delta_ns, int handled)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);
	__u64 now = bpf_ktime_get_ns(), d = delta_ns > 0 ? (__u64)delta_ns : 0;
	struct win w = { .src = OSNBPF_SRC_NMI };

	if (!s)
		return 0;
	w.arrival_ns = now > d ? now - d : 0;
	w.name[0] = 'n';
	w.name[1] = 'm';
	w.name[2] = 'i';
	push_below(st, OSNBPF_NMI, d);
	__sync_fetch_and_add(&s->count[OSNBPF_NMI], 1);
	__sync_fetch_and_add(&s->net_ns[OSNBPF_NMI], d);
	__sync_fetch_and_add(&s->seq, 1);
	contrib(s, &w, d, 0);
	return 0;
}

/*
 * Thread windows: every task switched in that is not this CPU's loop, until
 * the next switch.  Nothing nested is open across a switch (an IRQ or
 * softirq window still open lost its exit).  The kernel runs no program
 * (nor perf's handler) for the tracepoints of some tasks (here the VM
 * agent's threads: docs/osnoise.md): a switch whose prev is not the task the
 * last one put on says so.  Then, as lib/engine/noise.c does, the window
 * open (that task's) has no known end and is dropped, and prev's entry is
 * counted with no time, as unseen.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(osnbpf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct cpu_state *st;
	struct osnbpf_slot *s = enter(&st);
	__u64 now = bpf_ktime_get_ns();
	__s32 pid;

	if (!s)
		return 0;
	for (__u32 c = OSNBPF_IRQ; c < OSNBPF_THREAD; c++)
		if (st->w[c].open) {
			st->w[c].open = 0;
			count(OSNBPF_C_DROPPED);
		}
	pid = prev->pid;
	if (st->cur_known && pid != st->cur_pid) {
		count(OSNBPF_C_SWITCH_MISMATCH);
		st->w[OSNBPF_THREAD].open = 0;
		if (pid != s->workload_tid) {
			struct win *w = open_win(s, st, OSNBPF_THREAD, OSNBPF_SRC_THREAD, pid, now);
			__builtin_memcpy(w->name, prev->comm, OSNBPF_NAME_LEN);
			w->name[OSNBPF_NAME_LEN - 1] = '\0';
			w->open = 0;
			contrib(s, w, 0, 1);
		}
	} else if (st->w[OSNBPF_THREAD].open) {
		close_win(s, st, OSNBPF_THREAD, st->w[OSNBPF_THREAD].id, now);
	}
	pid = next->pid;
	st->cur_pid = pid;
	st->cur_known = 1;
	if (pid != s->workload_tid) {
		struct win *w = open_win(s, st, OSNBPF_THREAD, OSNBPF_SRC_THREAD, pid, now);
		__builtin_memcpy(w->name, next->comm, OSNBPF_NAME_LEN);
		w->name[OSNBPF_NAME_LEN - 1] = '\0';
	}
	return 0;
}

/* The vectors: osnbpf_v_NAME_in/_out on irq_vectors:NAME_entry/_exit. */
#define VECTOR(nm, idx)								\
	SEC("tp_btf/" #nm "_entry")						\
	int BPF_PROG(osnbpf_v_##nm##_in, int vector)				\
	{									\
		struct cpu_state *st;						\
		struct osnbpf_slot *s = enter(&st);				\
										\
		if (s)								\
			open_win(s, st, OSNBPF_IRQ, OSNBPF_SRC_VECTOR + (idx), vector, \
				 bpf_ktime_get_ns());				\
		return 0;							\
	}									\
	SEC("tp_btf/" #nm "_exit")						\
	int BPF_PROG(osnbpf_v_##nm##_out, int vector)				\
	{									\
		struct cpu_state *st;						\
		struct osnbpf_slot *s = enter(&st);				\
										\
		if (s)								\
			close_win(s, st, OSNBPF_IRQ, vector, bpf_ktime_get_ns());	\
		return 0;							\
	}

OSNBPF_VECTORS(VECTOR)
