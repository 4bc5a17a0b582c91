/* SPDX-License-Identifier: MIT */
/*
 * osnbpf.h - the bpf backend of `latscope osnoise`: BPF programs on the
 * interrupt, softirq, NMI and sched_switch tracepoints
 * (live/bpf/osnbpf.bpf.c, libbpf CO-RE, a skeleton built from the tree) count
 * each measured CPU's interference in the kernel, net of nesting, into one
 * slot per CPU that latscope maps (live/bpf/osnbpf_abi.h): the busy loop
 * (live/oswork.h, oswork_opts.slots) reads its slot with plain loads around
 * each gap, and the difference is the gap's attribution.  Per contributor
 * (an IRQ, a vector, a softirq, a task) the programs keep count, net total
 * and maximum in a hash that osnbpf_read() hands over at the end.  No event
 * leaves the kernel.
 *
 * Prefix: osnbpf_.
 *
 * Built only where the Makefile found libbpf, clang, bpftool and the
 * kernel's BTF (as bpfhist); otherwise osnbpf_none.c stands in and
 * osnbpf_built() says why.  Never prints.
 */
#ifndef LATSCOPE_OSNBPF_H
#define LATSCOPE_OSNBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/bpf/osnbpf_abi.h"
#include "live/bpfload.h"

struct osnbpf_cfg {
	bool softirq_in_threads;	/* PREEMPT_RT: no softirq programs (their time is the
					 * running thread's, as the kernel tracer counts it) */
	uint32_t contrib_entries;	/* contributor table, 0 = 16384 entries */
	bool run_stats;			/* the kernel counts each program's runs
					 * (bpf_enable_stats: two clock reads a run,
					 * inside the gaps the loop measures) */
};

#define OSNBPF_MAX_PROGS 32

struct osnbpf_stats {
	uint64_t runs;			/* program runs, counted by the programs */
	uint64_t contrib_full;		/* windows the contributor table had no room for (in
					 * the totals, not in the table) */
	uint64_t unmatched;		/* exits with no window open (osnbpf_abi.h) */
	uint64_t dropped;		/* windows dropped: a lost exit */
	uint64_t switch_mismatch;	/* switches whose prev the last switch did not put on */
	/* the kernel's counts of each loaded program (bpfload_misses_text names
	 * those that missed runs) */
	uint32_t nr_progs;
	struct bpfload_prog progs[OSNBPF_MAX_PROGS];
	bool run_cnt_known;		/* the kernel counted runs over the whole window */
	uint64_t run_cnt;		/* sum of progs[].run_cnt */
	uint64_t recursion_misses;	/* sum of progs[].recursion_misses: events lost */
};

/* One contributor, summed over the run on one CPU. */
struct osnbpf_contrib {
	uint32_t cpu;
	unsigned cls;			/* OSNBPF_NMI... (= enum noise_class) */
	int32_t id;			/* IRQ, vector, softirq vector, pid */
	char name[32];			/* the IRQ's action, the vector ("local_timer"), the
					 * comm, "nmi"; "" for a softirq (its vector names it) */
	uint64_t count, total_ns, max_ns;
	uint64_t unseen;		/* entries whose switch-in no program saw (in count,
					 * not in total_ns) */
};

/* Called by osnbpf_read() for each contributor; k is valid during the call. */
typedef void (*osnbpf_contrib_fn)(void *arg, const struct osnbpf_contrib *k);

struct osnbpf;

/* NULL when the backend is built in, else why it was compiled out (a static
 * string). */
const char *osnbpf_built(void);

/* The name of vector idx of OSNBPF_VECTORS ("local_timer"), NULL past the
 * last.  Pure. */
const char *osnbpf_vector_name(uint32_t idx);

/*
 * osnbpf_open - load the programs and attach them, and map the slots.  The
 * programs do nothing on a CPU until its loop writes its thread id into its
 * slot.  Returns 0 and *out (released by osnbpf_close()), or a negative
 * errno with the reason in why (at most why_len bytes): -EOPNOTSUPP compiled
 * out, -ENOENT no BTF or a tracepoint the backend needs, -EPERM/-EACCES
 * refused, or what libbpf returned.
 */
int osnbpf_open(struct osnbpf **out, const struct osnbpf_cfg *cfg, char *why, size_t why_len);

/* The slots of every possible CPU, indexed by CPU, in *nr: mapped memory,
 * borrowed, valid until osnbpf_close(). */
struct osnbpf_slot *osnbpf_slots(struct osnbpf *o, size_t *nr);

/* The contributor table counts windows arriving from from_ns on
 * (CLOCK_MONOTONIC; the warm-up's end). */
void osnbpf_set_gate(struct osnbpf *o, uint64_t from_ns);

/* The tracepoints this kernel lacks, whose programs were left out
 * ("threshold_apic, deferred_error_apic"); "" when none.  Borrowed. */
const char *osnbpf_absent(const struct osnbpf *o);

/* Detach the programs (the end of the window); the maps stay for
 * osnbpf_read(). */
void osnbpf_stop(struct osnbpf *o);

/*
 * osnbpf_read - every contributor to fn (may be NULL), the counters into st
 * (may be NULL).  Returns 0 or a map read's negative errno.
 */
int osnbpf_read(struct osnbpf *o, osnbpf_contrib_fn fn, void *arg, struct osnbpf_stats *st);

/* Unmap, detach, free everything: nothing of ours stays in the kernel (no
 * pin).  NULL is a no-op. */
void osnbpf_close(struct osnbpf *o);

#endif
