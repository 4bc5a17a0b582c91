/* SPDX-License-Identifier: MIT */
/*
 * noiseauto.h - the automatic analysis of one OS-noise gap (osnoise -a): what
 * made up the gap, by source (each IRQ, softirq vector, thread, NMI) and
 * class, net of nesting, and the remainder no event explains (hardware, in a
 * VM the hypervisor).  Pure: no I/O, no clock.
 *
 * Prefix: noiseauto_.
 *
 * Feed every closed interference window (struct noise_win, the noise
 * accounting's sink) with noiseauto_win(); each CPU keeps its last
 * NOISEAUTO_RING windows.  noiseauto_gap() then takes the windows that
 * arrived inside [start_ns, end_ns] (the rule lib/engine/noise.c uses to
 * attribute a gap) and sums their net time per source, largest first.  The
 * parts always add up:
 *
 *   sum(parts[].net_ns) + other_ns + hw_ns - excess_ns == duration_ns
 *
 * (excess_ns: the windows' net time above the gap's, from the difference of
 * the tracepoints' clock and the workload's; hw_ns is 0 then).
 */
#ifndef LATSCOPE_NOISEAUTO_H
#define LATSCOPE_NOISEAUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/noise.h"

#define NOISEAUTO_RING		256	/* windows kept per CPU */
#define NOISEAUTO_MAX_PARTS	16	/* sources listed; the rest in other_ns */

/* One source of interference inside the gap. */
struct noiseauto_part {
	enum noise_class cls;
	int32_t id;			/* irq, vector, softirq vec, pid */
	char name[TPEVENT_NAME_LEN];
	uint64_t count;			/* its windows inside the gap */
	uint64_t net_ns;		/* their net time */
};

struct noiseauto_result {
	unsigned cpu;
	uint64_t start_ns, duration_ns;
	struct noiseauto_part parts[NOISEAUTO_MAX_PARTS];	/* largest net_ns first */
	size_t nr_parts;
	uint64_t other_ns, other_count;	/* sources past NOISEAUTO_MAX_PARTS */
	uint64_t class_ns[NOISE_NR_CLASSES];	/* net time per class */
	uint64_t hw_ns;			/* duration not explained by any window */
	uint64_t excess_ns;		/* windows' time beyond the duration */
	bool ring_short;		/* windows of the gap may have left the ring (more than
					 * NOISEAUTO_RING since): parts may be missing */
};

struct noiseauto;

/* noiseauto_new - an analyser for CPUs [0, nr_cpus) (1..4096).  0, -EINVAL,
 * -ENOMEM; the caller frees *out with noiseauto_free(). */
int noiseauto_new(struct noiseauto **out, unsigned nr_cpus);
void noiseauto_free(struct noiseauto *a);

/* noiseauto_win - one closed window (copied).  0, or -EINVAL for a CPU out of
 * range (not kept). */
int noiseauto_win(struct noiseauto *a, const struct noise_win *w);

/*
 * noiseauto_gap - the analysis of cpu's gap [start_ns, end_ns] into *r from
 * the windows kept.  0, or -EINVAL (CPU out of range, end before start).
 */
int noiseauto_gap(const struct noiseauto *a, unsigned cpu, uint64_t start_ns, uint64_t end_ns,
		  struct noiseauto_result *r);

/* noiseauto_share_e2 - part_ns as a percentage of total_ns times 100
 * (1234 = 12.34 %), rounded down; 0 when total_ns is 0. */
uint64_t noiseauto_share_e2(uint64_t part_ns, uint64_t total_ns);

#endif
