/* SPDX-License-Identifier: MIT */
/*
 * osnbpf_abi.h - what the BPF programs of `latscope osnoise --backend bpf`
 * (live/bpf/osnbpf.bpf.c) share with their loader (live/osnbpf.c) and with
 * the busy loop that reads their counters (live/oswork.c): the per-CPU slot
 * of counters, the contributor table's key and value, the interrupt vectors.
 *
 * Prefix: osnbpf_ (OSNBPF_ for constants).
 *
 * Included by the BPF object (clang -target bpf, with vmlinux.h) and by
 * userspace C (linux/types.h); only fixed-width types.
 */
#ifndef LATSCOPE_OSNBPF_ABI_H
#define LATSCOPE_OSNBPF_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* The classes, numbered as enum noise_class (engine/noise.h; the loader
 * checks it): the order is the nesting priority, NMI over everything. */
#define OSNBPF_NMI 0
#define OSNBPF_IRQ 1
#define OSNBPF_SOFTIRQ 2
#define OSNBPF_THREAD 3
#define OSNBPF_NR_CLASSES 4

/*
 * One CPU's counters: an element of the BPF_F_MMAPABLE array osnbpf_slots,
 * indexed by CPU, mapped into latscope (one slot per CPU, 128 bytes: two
 * cache lines, so neighbours never share one).  The programs on that CPU
 * write count, net_ns and seq; the busy loop of that CPU writes
 * workload_tid and active and reads the rest with plain loads.  The
 * programs run on the loop's CPU, in the interrupts and context switches
 * that stop it, so the loop never sees one half-way: seq tells it whether
 * anything happened between two of its reads.
 */
struct osnbpf_slot {
	__u64 seq;				/* +1 at each entry and each exit */
	__u64 count[OSNBPF_NR_CLASSES];		/* entries (at the entry; NMI: at its end) */
	__u64 net_ns[OSNBPF_NR_CLASSES];	/* net time of the closed windows (nested
						 * time not counted: docs/osnoise.md) */
	__s32 workload_tid;			/* the loop's thread, written by it: the CPU is
						 * measured (0: not; the programs do nothing) */
	__u32 active;				/* 1 while the loop measures: the contributor
						 * table counts windows then only */
	__u64 pad[6];
};

#define OSNBPF_SLOT_BYTES 128
#define OSNBPF_NAME_LEN 16			/* a task's comm, an IRQ action's name (cut) */

/* Where a window came from (the contributor table's key.src). */
#define OSNBPF_SRC_NMI 0
#define OSNBPF_SRC_IRQ 1			/* irq:irq_handler_entry, name = the action */
#define OSNBPF_SRC_SOFTIRQ 2			/* id = the vector (TIMER, NET_RX...) */
#define OSNBPF_SRC_THREAD 3			/* id = pid, name = comm */
#define OSNBPF_SRC_VECTOR 16			/* + the index of OSNBPF_VECTORS: id = vector */

/* A contributor: on one CPU, a source, an id and a name. */
struct osnbpf_key {
	__u32 cpu;
	__u32 src;
	__s32 id;
	__u32 pad;
	char name[OSNBPF_NAME_LEN];		/* IRQ action, comm; "" for the others */
};

struct osnbpf_val {
	__u64 count, total_ns, max_ns;		/* windows, their net time, the largest */
	__u64 unseen;				/* entries whose switch-in the programs did not
						 * see (in count, with no time) */
};

/* The programs' own counters (a per-CPU array indexed by these). */
enum osnbpf_counter {
	OSNBPF_C_RUNS,			/* program runs */
	OSNBPF_C_CONTRIB_FULL,		/* windows the contributor table had no room for */
	OSNBPF_C_UNMATCHED,		/* exits with no window open (the first ones after the
					 * start), or another id's */
	OSNBPF_C_DROPPED,		/* windows dropped: an entry over an open one of its
					 * class (a lost exit), open across a context switch */
	OSNBPF_C_SWITCH_MISMATCH,	/* a switch whose prev is not the task the last one
					 * put on: the kernel ran no program for the switches
					 * between (docs/osnoise.md, "Backends") */
	OSNBPF_NR_COUNTERS
};

/*
 * The x86 interrupt vectors with entry/exit tracepoints (irq_vectors:
 * NAME_entry/NAME_exit), the list the kernel osnoise tracer hooks; X(name,
 * index).  A vector whose tracepoint this kernel lacks is left out (named).
 */
#define OSNBPF_VECTORS(X) \
	X(local_timer, 0) \
	X(reschedule, 1) \
	X(call_function, 2) \
	X(call_function_single, 3) \
	X(irq_work, 4) \
	X(x86_platform_ipi, 5) \
	X(error_apic, 6) \
	X(spurious_apic, 7) \
	X(thermal_apic, 8) \
	X(threshold_apic, 9) \
	X(deferred_error_apic, 10)
#define OSNBPF_NR_VECTORS 11

#endif
