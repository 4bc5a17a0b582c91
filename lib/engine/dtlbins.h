/* SPDX-License-Identifier: MIT */
/*
 * dtlbins.h - the DTL timeline at a fixed resolution: per vCPU, DTLBINS_N
 * bins of equal width over the recording, each with the time the vCPU was
 * preempted, ceded and waiting for its dispatch, the worst dispatch delay
 * dispatched in it and the task that ran the longest in it.  The pictures
 * (`--html`) and the dtl-report JSON's `vcpu_timeline` are drawn from it.
 *
 * Prefix: dtlbins_.
 *
 * Streaming with bounded memory: DTLBINS_N bins per vCPU seen (allocated the
 * first time a CPU is seen), nothing per entry.  The grid is one for all
 * vCPUs: it starts at the first time fed, 1024 ns a bin, and whenever a time
 * falls outside it the width doubles (the bins merge in pairs, growing to
 * the right or the left), so the input may come in any order (the merged
 * timeline, or each CPU's AUX payloads in file order).  A time that would
 * need bins wider than DTLBINS_MAX_BIN_NS (a corrupt timestamp) is not
 * placed, only counted (dtlbins_outside).
 *
 * Per DTL entry logged at the dispatch time t_ns (times converted with the
 * entry's tb_freq), the undispatched stretch before t_ns is split, so the
 * three times of a bin never overlap:
 *   preempted: involuntary preemptions (dtltask_involuntary): the whole
 *              waiting_to_ready + ready_to_enqueue + enqueue_to_dispatch;
 *   ceded:     H_CEDE/H_CONFER/H_CONFER_ADJUNCT: waiting_to_ready (the
 *              partition gave the processor away and waited for its event);
 *   delay:     the same entries' ready_to_enqueue + enqueue_to_dispatch (the
 *              vCPU was ready again, the hypervisor had not dispatched it).
 * The bin's worst dispatch delay is the largest ready_to_enqueue +
 * enqueue_to_dispatch of an entry dispatched in it (any reason: as
 * dtlstat's worst delays), with its time.  The dominant task is the one
 * with the most run time in the bin (from dtlbins_switch); when bins merge,
 * the longer of the two halves' dominant tasks (the same task: summed).
 * Never prints.
 */
#ifndef LATSCOPE_DTLBINS_H
#define LATSCOPE_DTLBINS_H

#include <stdint.h>

#include "format/dtl.h"

#define DTLBINS_N		512
#define DTLBINS_START_BIN_NS	1024ULL
#define DTLBINS_MAX_BIN_NS	(1ULL << 50)	/* 13 days a bin */
#define DTLBINS_NO_TASK		(-2)		/* pid of a bin with no task seen */

struct dtlbins_bin {
	uint64_t preempted_ns, ceded_ns, delay_ns;
	uint64_t worst_delay_ns, worst_time_ns;	/* 0, 0 when no entry */
	uint64_t entries;			/* DTL entries dispatched in the bin */
	uint64_t task_ns;			/* the dominant task's run time in the bin */
	int32_t task_pid;			/* DTLBINS_NO_TASK, 0 = idle, -1 = unknown */
	char task_comm[16];
};

struct dtlbins;

/* dtlbins_new - caller frees with dtlbins_free().  0 or -ENOMEM. */
int dtlbins_new(struct dtlbins **bp);
void dtlbins_free(struct dtlbins *b);

/* A DTL entry of cpu dispatched at t_ns.  0, -ERANGE (cpu >= 4096 or the
 * time outside any grid: not placed) or -ENOMEM. */
int dtlbins_entry(struct dtlbins *b, uint32_t cpu, uint64_t t_ns, const struct dtl_entry *e,
		  uint64_t tb_freq);

/* A sched_switch on cpu at t_ns to next_pid (comm copied).  0, -ERANGE, -ENOMEM. */
int dtlbins_switch(struct dtlbins *b, uint32_t cpu, uint64_t t_ns, int32_t next_pid,
		   const char *next_comm);

/* Close every CPU's running task at end_ns (the recording's end). */
void dtlbins_end(struct dtlbins *b, uint64_t end_ns);

/*
 * dtlbins_range - the bins that hold anything: [*first, *first + *n) of the
 * grid, bin i starting at *start_ns + (i - *first) * *bin_ns.  0 when
 * nothing was fed (*n = 0).
 */
int dtlbins_range(const struct dtlbins *b, uint32_t *first, uint32_t *n, uint64_t *start_ns,
		  uint64_t *bin_ns);

/* Highest CPU number seen + 1, and a CPU's DTLBINS_N bins (NULL: never seen).
 * Owned by b, valid until the next feeding call. */
uint32_t dtlbins_nr_cpus(const struct dtlbins *b);
const struct dtlbins_bin *dtlbins_cpu(const struct dtlbins *b, uint32_t cpu);

/* Times not placed (outside any grid). */
uint64_t dtlbins_outside(const struct dtlbins *b);

#endif
