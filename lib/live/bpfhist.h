/* SPDX-License-Identifier: MIT */
/*
 * bpfhist.h - the BPF histogram backend: the latency_hist histograms kept
 * in the kernel by BPF programs on the sched and hrtimer tracepoints
 * (live/bpf/bpfhist.bpf.c, libbpf CO-RE, a skeleton built from the tree),
 * read into a histogram set (base/hset.h) that the usual outputs print.
 *
 * Prefix: bpfhist_.
 *
 * Kinds: wakeup and wakeup/sharedprio; missed_timer_offsets and
 * timerandwakeup when the timer programs load (bpfhist_has_timers()).  The
 * rules, the task filter (RT tasks unless all_tasks, or one pid), the
 * buckets and the worst case's victim/culprit are those of the userspace
 * trackers (engine/latency.h).  Only the histograms, the worst cases and a
 * few counters cross to userspace; no event does.
 *
 * Built only where the Makefile found libbpf, clang, bpftool and the
 * kernel's BTF; otherwise bpfhist_none.c stands in and bpfhist_built() says
 * why.  Never prints: libbpf's own messages are kept for the reasons.
 */
#ifndef LATSCOPE_BPFHIST_H
#define LATSCOPE_BPFHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hset.h"
#include "base/lhist.h"
#include "live/bpfload.h"

struct bpfhist_cfg {
	uint32_t nr_cpus;		/* CPUs 0..nr_cpus-1, as the set has them (1..256) */
	struct lhist_cfg hist;		/* bucket geometry, <= 65536 buckets */
	bool all_tasks;			/* non-RT tasks too, each on its own */
	int32_t pid;			/* > 0: only this task */
	uint32_t table_size;		/* per-task and per-hrtimer LRU entries, 0 = 4096 */
	bool timers;			/* also missed_timer_offsets and timerandwakeup */
	bool irqsoff;			/* also irqsoff, preemptoff and preemptirqsoff, where
					 * the kernel has the preemptirq tracepoints
					 * (bpfhist_irqsoff_attached()) */
	bool both_off;			/* preemptirqsoff: irqs AND preemption off */
	bool run_stats;			/* the kernel counts every program run (run_cnt):
					 * two clock reads a run, about a quarter of the
					 * programs' cost (docs/hist.md); recursion misses
					 * are counted either way */
	const bool *cpu_on;		/* nr_cpus flags (copied): the CPUs whose samples
					 * enter the set (the others count as outside_cpus);
					 * NULL = all */
};

/* The kernel's counts of each loaded program (struct bpf_prog_info,
 * BPF_OBJ_GET_INFO_BY_FD: live/bpfload.h). */
#define BPFHIST_MAX_PROGS 16	/* >= the object's programs (15) */

/* The counters of struct latency_stats the programs keep, summed over CPUs. */
struct bpfhist_stats {
	uint64_t events;		/* program runs */
	uint64_t wake_ignored, dropped_prio, dropped_running, replaced, migrated;
	uint64_t timer_unknown, timer_early;
	uint64_t outside_cpus;		/* samples filed on CPUs off cpu_on or >= nr_cpus: not in
					 * the set */
	uint64_t nested;		/* program runs that began while another of ours was
					 * running on the same CPU (interrupted): the per-CPU
					 * tracking state may have been torn (docs/hist.md) */
	uint64_t unmatched_enable;	/* irq/preempt enables with no disable seen (the
					 * section began before the attach) */
	/* the kernel's counts of each loaded program (bpfload_prog) */
	uint32_t nr_progs;
	struct bpfload_prog progs[BPFHIST_MAX_PROGS];
	bool run_cnt_known;		/* the kernel counted runs over the whole window */
	uint64_t run_cnt;		/* sum of progs[].run_cnt */
	uint64_t recursion_misses;	/* sum of progs[].recursion_misses: events lost */
};

/*
 * bpfhist_misses_text - the programs of st that missed runs, as
 * "bpfhist_switch 3, bpfhist_waking 1" (programs in st's order) into buf (at
 * most len bytes, NUL-terminated; "" when none).  Returns the total of
 * progs[].recursion_misses.  Pure.
 */
uint64_t bpfhist_misses_text(const struct bpfhist_stats *st, char *buf, size_t len);

struct bpfhist;

/* NULL when the backend is built in, else why it was compiled out (a static
 * string, e.g. "bpftool not found when latscope was built"). */
const char *bpfhist_built(void);

/*
 * bpfhist_open - load the programs with cfg and attach them: from here the
 * kernel fills the histograms.  Returns 0 and *out (the caller releases it
 * with bpfhist_close()), or a negative errno with the reason in why (at most
 * why_len bytes, NUL-terminated): -EOPNOTSUPP compiled out, -ENOENT no BTF,
 * -E2BIG too many CPUs or buckets, -EPERM/-EACCES refused (privileges,
 * lockdown), or what libbpf returned.  When the timer programs cannot load
 * but the others can, it succeeds without them and why says so (why[0] is
 * '\0' otherwise).
 */
int bpfhist_open(struct bpfhist **out, const struct bpfhist_cfg *cfg, char *why, size_t why_len);

/* Whether missed_timer_offsets and timerandwakeup are measured. */
bool bpfhist_has_timers(const struct bpfhist *b);

/*
 * bpfhist_read - the histograms so far into set (reset first; its geometry
 * must be cfg.hist, its CPUs at least cfg.nr_cpus) and the counters into st
 * (may be NULL).  While the programs run (before bpfhist_stop()), the kinds
 * are read one after the other and may differ by the samples filed
 * meanwhile.  Returns 0, -EINVAL for a set
 * of another geometry, -ENOMEM, or a map read's errno.
 */
int bpfhist_read(struct bpfhist *b, struct hset *set, struct bpfhist_stats *st);

/*
 * bpfhist_reset - clear every histogram and worst case in the kernel
 * (latency_hist's `reset`; the monitor's SIGHUP) while the programs run;
 * the counters (bpfhist_stats) keep counting.  A sample filed while the
 * maps are cleared may be left in a bucket but not in its total.  0 or a
 * map update's -errno.
 */
int bpfhist_reset(struct bpfhist *b);

/* The local timer interrupts of one CPU over the counter's window: from
 * just after its attach in bpfhist_open() to just before its detach in
 * bpfhist_stop() (before it: to now). */
struct bpfhist_ltimer {
	uint64_t entries;		/* irq_vectors:local_timer_entry hits counted by the
					 * program (idle or not: no sample is delivered) */
	uint64_t loc_delta;		/* the CPU's LOC column of /proc/interrupts over
					 * the same window, each end read with the
					 * program's count held still around it: equal to
					 * entries within one (an interrupt in flight at
					 * either end; docs/hist.md) */
};

/*
 * bpfhist_local_timer - cpu's local timer interrupts into *out (the
 * caller's).  One per-CPU counter program; the backend runs without it
 * where the kernel has no local_timer_entry tracepoint or /proc/interrupts
 * no LOC line (not x86): then -ENOENT.  -ERANGE for a CPU >= cfg.nr_cpus, or
 * a map read's (or /proc/interrupts') errno.
 */
int bpfhist_local_timer(struct bpfhist *b, uint32_t cpu, struct bpfhist_ltimer *out);

/* Whether the irqsoff programs run: cfg.irqsoff was asked and the kernel
 * has the four preemptirq tracepoints (false: none of them is attached). */
bool bpfhist_irqsoff_attached(const struct bpfhist *b);

/* Detach the programs (the end of the measured window): the maps stay for a
 * last bpfhist_read() that sees one consistent set of counts. */
void bpfhist_stop(struct bpfhist *b);

/* Detach every program, free the maps and b: nothing of ours stays in the
 * kernel (no pin).  NULL is a no-op. */
void bpfhist_close(struct bpfhist *b);

#endif
