/* SPDX-License-Identifier: MIT */
/*
 * dtltask.h - who the hypervisor hurt: DTL interruptions charged to the task
 * that was running on the vCPU when the hypervisor took it away.
 *
 * Prefix: dtltask_.
 *
 * Model.  Fed with the merged timeline (sched_switch samples and DTL entries
 * in one time order, e.g. from dtltl), it keeps the task on each CPU as the
 * sched_switch samples say.  A DTL entry is logged at the dispatch that ended
 * an undispatched stretch; between the preemption and the dispatch the vCPU
 * ran nothing, so no sched_switch happens on that CPU in between and the task
 * current at the entry is the one that was taken away.  Only involuntary
 * interruptions are harm: every preempt reason except H_CEDE, H_CONFER and
 * H_CONFER_ADJUNCT, which are the partition's own choice (it gave the
 * processor away).  Each charges the task with enqueue_to_dispatch +
 * ready_to_enqueue (the time the vCPU was ready but not running, as the
 * kernel's stolen-time accounting counts it); waiting_to_ready is the
 * partition waiting for its own event, not the hypervisor's doing.
 *
 * Rows: one per pid (the last comm seen), one for idle (pid 0 on any CPU,
 * the swapper) and one "unknown" for entries on a CPU before its first
 * sched_switch.  Run time is from each switch in to the next switch out, the
 * last one closed at dtltask_end(); so share = hypervisor time / run time.
 * Tick sums are kept per row and converted once (one timebase frequency per
 * partition).  Never prints; memory grows with the number of distinct pids.
 */
#ifndef LATSCOPE_DTLTASK_H
#define LATSCOPE_DTLTASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/dtl.h"

#define DTLTASK_PID_IDLE	0
#define DTLTASK_PID_UNKNOWN	(-1)

struct dtltask_row {
	int32_t pid;			/* DTLTASK_PID_IDLE / _UNKNOWN for those rows */
	char comm[16];
	uint64_t interruptions;		/* involuntary ones */
	uint64_t hv_ticks;		/* their enqueue_to_dispatch + ready_to_enqueue */
	uint64_t worst_ticks;		/* the largest single one */
	uint64_t worst_time_ns;		/* when (the entry's time) */
	uint32_t worst_cpu;
	uint64_t run_ns;		/* on-CPU time as the sched_switch samples say */
	uint64_t switches_in;
};

struct dtltask;

/* dtltask_new - caller frees with dtltask_free().  0 or -ENOMEM. */
int dtltask_new(struct dtltask **tp);
void dtltask_free(struct dtltask *t);

/* A sched_switch on cpu at t_ns.  0, -ERANGE (cpu >= 4096, ignored) or -ENOMEM. */
int dtltask_switch(struct dtltask *t, uint32_t cpu, uint64_t t_ns, int32_t prev_pid,
		   const char *prev_comm, int32_t next_pid, const char *next_comm);

/* A DTL entry of cpu at t_ns.  0, -ERANGE or -ENOMEM. */
int dtltask_entry(struct dtltask *t, uint32_t cpu, uint64_t t_ns, const struct dtl_entry *e,
		  uint64_t tb_freq);

/* True for the preempt reasons that count as harm (see above). */
bool dtltask_involuntary(uint8_t preempt_reason);

/* Close the running intervals at end_ns (the recording's last timestamp). */
void dtltask_end(struct dtltask *t, uint64_t end_ns);

/*
 * dtltask_rows - the rows with any interruption or run time, sorted by
 * hypervisor time (then interruptions, then pid); the array is owned by t and
 * valid until the next call into t.  *tb_freq gets the timebase frequency of
 * the entries (0 when none came).
 */
size_t dtltask_rows(struct dtltask *t, const struct dtltask_row **rows, uint64_t *tb_freq);

#endif
