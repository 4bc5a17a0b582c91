/* SPDX-License-Identifier: MIT */
/*
 * dtlsynth_int.h - the synthesizer's state, shared by dtlsynth.c (random
 * numbers, tracepoint payloads, set-up, the writers) and dtlsynth_model.c
 * (the per-vCPU model).  Not for other modules.
 */
#ifndef LATSCOPE_DTLSYNTH_INT_H
#define LATSCOPE_DTLSYNTH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>

#include "format/dtl.h"
#include "engine/dtlsynth.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"

#define TASKS_PER_CPU	3
#define FIFO_MAX	8
#define PROCS_PER_CPU	8	/* SMT8 physical threads per vCPU slot */
#define VPA_PMU_TYPE	14	/* a dynamic PMU type, as sysfs would give */

enum { EV_SWITCH, EV_WAKEUP, EV_DTL, EV_AUX, EV_LOST };

struct sev {
	uint64_t t;
	uint32_t cpu;
	uint8_t kind;
	uint8_t prev_state;
	int16_t prev, next;		/* task index, -1 = swapper */
	int16_t waker;			/* common_pid task of a wakeup, -1 = swapper */
	int16_t victim;			/* EV_DTL: the task running when the vCPU was taken */
	struct dtl_entry e;
	uint64_t aux_off, aux_size, aux_flags;	/* EV_AUX */
};

/* A run of AUX bytes copied by polls and not yet drained by perf record. */
struct seg {
	uint64_t aux_off;		/* position in the CPU's AUX stream */
	size_t start, len;		/* bytes in vcpu.pend */
};

struct vcpu {
	uint64_t t;
	uint64_t rng;			/* the vCPU's own random stream */
	int cur;			/* running task, -1 = idle */
	uint16_t proc, home;
	struct sev fifo[FIFO_MAX];
	int fhead, fn;
	/* the hypervisor's ring: entries logged since the last poll */
	uint8_t *ring;
	int16_t *ring_victim;
	unsigned ring_used, ring_cap;
	/* copied by polls, waiting for perf record's next drain */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	struct seg *segs;
	size_t nsegs, cap_segs;
	uint64_t aux_head;		/* AUX stream offset (the perf core's aux_head) */
	/* the driver's AUX buffer (cfg.aux_bytes): its bytes, the victim of
	 * each slot, its private head (entries) and committed bytes of the lap */
	uint8_t *auxbuf;
	int16_t *aux_victim;
	uint64_t drv_head, drv_head_size;
	bool header_done;
	uint64_t chunks;
	uint64_t next_poll;
	/* truth: the task on the CPU as the written sched_switches say */
	int run_task;			/* -2 = none yet */
	uint64_t run_since;
};

struct syn {
	struct dtlsynth_cfg c;
	struct dtlsynth_stats *st;
	uint64_t rng;
	struct pdwrite *w;
	bool swap;
	int ev_dtl, ev_sw, ev_wk;
	struct tpdecode *enc;		/* the sched formats (lib/format/tpencode.h) */
	uint64_t sw_id, wk_id;		/* their event ids */
	struct vcpu *v;
	struct sev *win;
	size_t nwin, capwin;
	uint64_t rng_layout;		/* rounds and poll phases */
	uint64_t poll_ns;		/* effective: at least 1 ms */
	uint64_t last_written_ns;
	struct dtlsynth_truth *truth;
	size_t cap_wake_hv;		/* truth->wake_hv's room */
	double mean_burst_ns, mean_idle_ns, pre_e2d_ns, cede_e2d_ns;
	double hv_hz;
	char *errm;
	size_t errl;
};

/* dtlsynth_model.c */
int dtlsynth_drain_aux(struct syn *s, uint32_t cpu);
int dtlsynth_poll_cpu(struct syn *s, uint32_t cpu, uint64_t t);
int dtlsynth_run_cpu(struct syn *s, uint32_t cpu, uint64_t r, uint64_t end);
int dtlsynth_write_ring_rec(struct syn *s, const struct sev *e);

/* dtlsynth.c */
uint64_t dtlsynth_ns_to_tb(const struct syn *s, uint64_t ns);
uint32_t dtlsynth_ns_to_ticks(const struct syn *s, uint64_t ns);
uint64_t dtlsynth_rexp(struct syn *s, double mean_ns);
double dtlsynth_rnd01(struct syn *s);
uint32_t dtlsynth_rndn(struct syn *s, uint32_t n);
int dtlsynth_write_sched(struct syn *s, const struct sev *e);
uint32_t dtlsynth_task_pid(int task);	/* a task's pid (-1: the swapper, 0) */

#endif
