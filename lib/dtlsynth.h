/* SPDX-License-Identifier: MIT */
/*
 * dtlsynth.h - write a realistic synthetic perf.data of a shared-processor
 * LPAR: a vpa_dtl AUXTRACE stream per CPU plus sched_switch/sched_wakeup
 * samples that agree with it.
 *
 * Prefix: dtlsyn_.
 *
 * Model (per vCPU, all times perf-clock ns, timebase = boot_tb + ns * tb_freq):
 *  - a vCPU runs tasks in bursts; at the end of a burst it switches to another
 *    task or goes idle (sched_switch to swapper), then cedes (H_CEDE).  The
 *    DTL entry of the cede is logged at the next dispatch: waiting_to_ready =
 *    the idle time, then ready_to_enqueue and enqueue_to_dispatch; after the
 *    dispatch a task is woken and switched in.  Idle vCPUs have no sched events.
 *  - while running, the hypervisor may preempt the vCPU (time_slice), a
 *    virtual-memory page fault may stop it, or it may confer (H_CONFER);
 *    until the dispatch no sched event happens on that CPU.
 *  - dispatch delays grow as load / entitlement grows; a dispatch lands on
 *    another physical processor with probability move_permille.
 *  - every poll_ns the driver's timer copies at most ring entries (the
 *    hypervisor ring holds 85: older ones are lost silently, as on Power)
 *    into the AUX buffer: PERF_RECORD_AUX + PERF_RECORD_AUXTRACE; the first
 *    chunk of each CPU starts with the boot_tb/tb_freq header record.
 * The same seed gives the same sched samples with or without DTL data and in
 * either byte order.  Never prints.
 */
#ifndef LATSCOPE_DTLSYNTH_H
#define LATSCOPE_DTLSYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dtlsyn_cfg {
	unsigned cpus;			/* vCPUs (default 4) */
	uint64_t duration_ns;		/* default 1 s */
	uint64_t seed;
	bool big_endian, pipe;
	bool no_dtl;			/* sched samples only (perf 6.1 readable) */
	bool no_sched;			/* DTL only (benchmarks) */
	double entitlement;		/* entitled physical CPUs / vCPUs, 0.05..1 (default 0.5) */
	double load;			/* busy fraction of a vCPU, 0..1 (default 0.6) */
	double preempt_hz;		/* hypervisor time-slice preempts per running second (default auto) */
	double fault_hz;		/* page-fault preempts per running second (default 2) */
	double confer_hz;		/* H_CONFER per running second (default 5) */
	unsigned move_permille;		/* dispatch on another processor (default 100) */
	uint64_t poll_ns;		/* vpa_dtl sample_period (default 1 ms) */
	unsigned ring;			/* entries per poll before loss (0 = default 85) */
	bool ring_unlimited;		/* no ring loss at all (benchmarks) */
	unsigned gaps;			/* inject a lost chunk every N chunks on CPU 0 (0 = none) */
	uint64_t boot_tb, tb_freq;	/* default 21349649546353231, 512000000 */
	uint64_t start_ns;		/* perf time of the first event (default 100 s) */
	const char *formats_dir;	/* tracefs-like events dir; NULL = live tracefs */
};

struct dtlsyn_stats {
	uint64_t dtl_entries;		/* written */
	uint64_t ring_lost;		/* dropped by the modelled 85-entry ring */
	uint64_t gap_lost;		/* dropped by injected gaps */
	uint64_t samples;
	uint64_t aux_chunks;
	uint64_t cedes, preempts, faults, confers;
};

/* Fill defaults for every zero field. */
void dtlsyn_defaults(struct dtlsyn_cfg *c);

/*
 * dtlsyn_write - generate and write path ("-" = stdout).  Returns 0 or a
 * negative errno (-ENOENT: sched formats not found; see formats_dir).
 * err_msg (may be NULL) receives a short description on failure.
 */
int dtlsyn_write(const struct dtlsyn_cfg *c, const char *path, struct dtlsyn_stats *st,
		 char *err_msg, size_t err_len);

#endif
