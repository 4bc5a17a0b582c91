/* SPDX-License-Identifier: MIT */
/*
 * dtlsynth.h - write a realistic synthetic perf.data of a shared-processor
 * LPAR: a vpa_dtl AUXTRACE stream per CPU plus sched_switch/sched_wakeup
 * samples that agree with it.
 *
 * Prefix: dtlsynth_.
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
 *    chunk of each CPU starts with the boot_tb/tb_freq header record.  The
 *    copy wraps in an AUX buffer of aux_bytes as the driver's does: the
 *    poll that fills it loses its rest, the next commit is the unwritten
 *    end of the buffer (zeros) and the entries of that poll are overwritten.
 * Layout (as perf record writes it): each vCPU's driver timer polls every
 * poll_ns with its own phase and emits PERF_RECORD_AUX (time = the poll)
 * into that CPU's data ring; perf record wakes up every few milliseconds
 * (round_ns, jittered) and, CPU by CPU, writes that CPU's ring records then
 * one PERF_RECORD_AUXTRACE with everything the polls copied since its last
 * drain, then FINISHED_ROUND.  So with a 1 s poll the AUXTRACE of a second
 * of entries arrives hundreds of rounds after the sched samples of that
 * second, as in a real recording.  At the end every CPU is polled once more
 * (the driver's stop) and drained.
 *
 * Each vCPU has its own random stream, so the same seed gives the same
 * events with or without DTL data, in either byte order, in file or pipe
 * mode and whatever the round length (the poll period only changes which
 * entries the 85-entry ring loses).  Never prints.
 */
#ifndef LATSCOPE_DTLSYNTH_H
#define LATSCOPE_DTLSYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct safeout_refusal;

struct dtlsynth_cfg {
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
	unsigned wake_preempt_permille;	/* of the wakeups that preempt the running task, how
					 * many per 1000 the hypervisor interrupts between the
					 * wakeup and the switch (a time-slice preempt of the
					 * waker's vCPU): the woken task's latency then holds
					 * the hypervisor's time (default 0: none, and the
					 * random stream as without the option) */
	uint64_t poll_ns;		/* vpa_dtl sample_period (default 1 ms; the
					 * driver polls at least every 1 ms) */
	uint64_t round_ns;		/* perf record drains every ~round_ns (default
					 * 4 ms, +-25 % jitter), independent of the poll */
	int compress;			/* zstd level for the ring records (perf record -z); 0 = none */
	bool poll_layout;		/* old friendly layout: one round per poll, every
					 * CPU polled at the round's end */
	unsigned ring;			/* the hypervisor ring (0 = default 85): a poll copies
					 * at most ring - 1, as the driver does */
	bool ring_unlimited;		/* no ring loss at all (benchmarks) */
	unsigned gaps;			/* inject a lost chunk every N chunks on CPU 0 (0 = none) */
	uint64_t aux_bytes;		/* the AUX buffer per CPU (default 128 KiB, perf's
					 * and dtl record's); the driver's copy wraps in it
					 * as the vpa_dtl source does (docs/dtl.md "The AUX
					 * buffer wrap"); aux_unlimited: no buffer, no wrap */
	bool aux_unlimited;
	uint64_t boot_tb, tb_freq;	/* default 21349649546353231, 512000000 */
	uint64_t start_ns;		/* perf time of the first event (default 100 s) */
	const char *formats_dir;	/* tracefs-like events dir; NULL = live tracefs */
	const char *osrelease, *arch;	/* header strings; NULL = "6.18.0-synth", ppc64(le) */
	uint64_t cede_srr0;		/* srr0 of cedes (default c0000000000f8094, the
					 * hcall of the idle loop) */
	bool force;			/* pdwrite_opts.force (safeout.h) */
	struct safeout_refusal *refusal;	/* pdwrite_opts.refusal (the caller's) */
};

struct dtlsynth_stats {
	uint64_t dtl_entries;		/* written */
	uint64_t ring_lost;		/* dropped by the modelled 85-entry ring */
	uint64_t aux_wraps;		/* laps of the AUX buffers */
	uint64_t wrap_lost;		/* entries the driver dropped or overwrote there */
	uint64_t gap_lost;		/* dropped by injected gaps */
	uint64_t samples;
	uint64_t aux_chunks;
	uint64_t cedes, preempts, faults, confers;
	uint64_t wake_preempts;		/* wake_preempt_permille's preempts (in preempts too) */
	uint64_t wake_preempts_untold;	/* not in the truth (no memory) */
};

/*
 * What the model knows about who the hypervisor hurt: per task (and idle),
 * the involuntary interruptions (every preempt reason but H_CEDE, H_CONFER
 * and H_CONFER_ADJUNCT) among the entries written to the file, their
 * hypervisor time (enqueue_to_dispatch + ready_to_enqueue, in ticks as
 * written), the worst single one, and the time the task ran: from each
 * sched_switch in to the next out, the last one closed at end_ns, the
 * largest timestamp written (records and entries).
 */
struct dtlsynth_task {
	char comm[16];
	uint32_t pid;			/* 0 = idle (swapper) */
	uint64_t interruptions;
	uint64_t hv_ticks, worst_ticks;
	uint64_t run_ns;
};

/* A wakeup whose latency the hypervisor interrupted (wake_preempt_permille):
 * the sample [wake_ns, switch_ns] of pid on cpu holds the preemption whose
 * DTL entry has this timebase, hv_ns = its enqueue_to_dispatch +
 * ready_to_enqueue as written (ticks to ns, exact); written: the entry
 * reached the file (the 85-entry ring and the AUX wrap lose some, as on
 * Power). */
struct dtlsynth_wake_hv {
	uint32_t cpu, pid;
	uint64_t wake_ns, switch_ns;
	uint64_t timebase, hv_ns;
	bool written;
};

struct dtlsynth_truth {
	uint64_t tb_freq;
	uint64_t end_ns;
	size_t nr_tasks;
	struct dtlsynth_task *tasks;	/* [0] = idle; owned, dtlsynth_truth_free() */
	size_t nr_wake_hv;
	struct dtlsynth_wake_hv *wake_hv;	/* owned, dtlsynth_truth_free() */
};

void dtlsynth_truth_free(struct dtlsynth_truth *t);

/* Fill defaults for every zero field. */
void dtlsynth_defaults(struct dtlsynth_cfg *c);

/*
 * dtlsynth_write - generate and write path ("-" = stdout).  Returns 0 or a
 * negative errno (-ENOENT: sched formats not found; see formats_dir).
 * err_msg (may be NULL) receives a short description on failure.
 */
int dtlsynth_write(const struct dtlsynth_cfg *c, const char *path, struct dtlsynth_stats *st,
		 char *err_msg, size_t err_len);

/* dtlsynth_write_truth - the same, and fill *truth (may be NULL; the caller
 * frees it with dtlsynth_truth_free() whatever the result). */
int dtlsynth_write_truth(const struct dtlsynth_cfg *c, const char *path, struct dtlsynth_stats *st,
		       struct dtlsynth_truth *truth, char *err_msg, size_t err_len);

#endif
