/* SPDX-License-Identifier: MIT */
/*
 * noisemon.h - OS-noise counters kept all the time, at a duty cycle: the
 * osnoise measurement (engine/osneng.h: a busy loop per CPU, every gap above
 * the threshold is noise, attributed to NMI, IRQ, softirq, thread or HW) run
 * RUNTIME out of every PERIOD, with the attribution counted in the kernel by
 * BPF programs (live/osnbpf.h: no event is copied), summed per CPU over the
 * finished periods for the monitor (src/hist/monitor.c).
 *
 * Prefix: noisemon_.
 *
 * Cost: the busy loop takes runtime/period of each measured CPU (1% at
 * 10ms/1s), at SCHED_OTHER nice 0 unless told: it yields to every other
 * task, whose time it then counts as thread noise.  The BPF programs run on
 * every interrupt, softirq and switch of the measured CPUs, as
 * `osnoise --backend bpf`'s do.
 *
 * A run: noisemon_start (programs loaded, threads started), then
 * noisemon_advance(until) from the caller's loop (the threads' records into
 * the engine), noisemon_cpus to read the sums, noisemon_reset on SIGHUP,
 * noisemon_free at the end (threads stopped, programs detached).  Nothing
 * prints or exits.
 */
#ifndef LATSCOPE_NOISEMON_H
#define LATSCOPE_NOISEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"
#include "engine/noise.h"

struct noisemon_cfg {
	struct parse_cpuset cpus;	/* measured CPUs (at least one) */
	uint64_t period_us, runtime_us;	/* runtime <= period */
	uint64_t threshold_us;		/* gaps >= this are noise; 0 = 5 */
	int policy, prio;		/* the busy loop's: SCHED_OTHER and nice, or SCHED_FIFO/RR
					 * and its priority */
	bool softirq_in_threads;	/* PREEMPT_RT: softirqs are thread time */
};

/* One CPU's sums over its finished periods since the start or the last reset. */
struct noisemon_cpu {
	unsigned cpu;
	uint64_t periods;
	uint64_t runtime_ns;		/* time the busy loop measured */
	uint64_t noise_ns;		/* its gaps above the threshold */
	uint64_t gaps;
	uint64_t max_single_ns;		/* the largest gap */
	uint64_t hw_count, hw_ns;	/* gaps with no interference: the hardware, or the
					 * hypervisor in a VM */
	uint64_t count[NOISE_NR_CLASSES];	/* interference entries (nmi, irq, softirq,
						 * thread) */
	uint64_t net_ns[NOISE_NR_CLASSES];	/* their net time inside the gaps */
};

struct noisemon;

/*
 * noisemon_start - load the BPF programs and start the busy loop on every CPU
 * of cfg.  Returns 0 and *out (freed by noisemon_free()), or a negative
 * errno with why[len] saying what failed (no BPF backend built or allowed,
 * a CPU offline, the threads).
 */
int noisemon_start(struct noisemon **out, const struct noisemon_cfg *cfg, char *why, size_t len);

/* noisemon_advance - the busy loop's records up to until_ns (CLOCK_MONOTONIC)
 * into the sums. */
void noisemon_advance(struct noisemon *m, uint64_t until_ns);

/* noisemon_cpus - the measured CPUs' sums, in CPU order, in *out (owned by m,
 * valid until the next call on m); returns their number. */
size_t noisemon_cpus(const struct noisemon *m, const struct noisemon_cpu **out);

/* noisemon_reset - every sum from zero (the periods that end from now on). */
void noisemon_reset(struct noisemon *m);

/* noisemon_free - stop the threads, detach the programs, free m.  NULL is fine. */
void noisemon_free(struct noisemon *m);

#endif
