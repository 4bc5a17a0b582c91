/* SPDX-License-Identifier: MIT */
/*
 * hset.h - a histogram set: the latency_hist histograms of one run, per
 * kind (wakeup, sharedprio, missed timer offsets, timer+wakeup,
 * irqsoff/preemptoff/preemptirqsoff) and CPU, each with its worst case's
 * victim/culprit record.
 *
 * Prefix: hset_.
 *
 * This is the seam between the histogram backends and the outputs: the
 * userspace engine (engine/latency.h, fed from perf rings or a perf.data
 * file) files samples into a set, a BPF map reader or a hist-trigger reader
 * fills the same set from the kernel's counts, and every output (text,
 * JSON, the latency_hist tree, metrics) reads a set, never an engine.
 *
 * A histogram is an lhist (base/lhist.h) of the set's geometry, allocated on
 * its CPU's first sample of the kind: hset_hist() is NULL before.  Never
 * prints; allocates only there.
 */
#ifndef LATSCOPE_HSET_H
#define LATSCOPE_HSET_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lhist.h"

enum hset_kind {
	HSET_WAKEUP,
	HSET_WAKEUP_SHAREDPRIO,
	HSET_MISSED_TIMER,
	HSET_TIMERANDWAKEUP,
	HSET_IRQSOFF,
	HSET_PREEMPTOFF,
	HSET_PREEMPTIRQSOFF,
	HSET_NR_KINDS
};

#define HSET_MAX_CPUS 4096
#define HSET_COMM_LEN 16		/* TASK_COMM_LEN, as tracepoints carry it */

/* The worst case of a histogram (latency_hist's max_latency-CPUn). */
struct hset_max {
	bool valid;
	int32_t pid, prio;		/* victim; prio in kernel numbering; pid -1: none */
	char comm[HSET_COMM_LEN];
	int64_t latency_ns, timer_offset_ns;
	bool has_culprit;
	int32_t culprit_pid, culprit_prio;
	char culprit_comm[HSET_COMM_LEN];
	uint64_t time_ns;		/* when the sample completed */
};

/* hset_user_prio - a kernel prio (hset_max's prio and culprit_prio) as every
 * output shows it, latency_hist's MAX_RT_PRIO-1 - prio: 95 for SCHED_FIFO
 * 95, -21 for a nice 0 task.  The one rule of the text, the JSON, the HTML
 * page and the /metrics labels. */
static inline int hset_user_prio(int32_t kprio)
{
	return 99 - kprio;
}

struct hset;

/*
 * hset_new - an empty set for CPUs 0..nr_cpus-1 (1..HSET_MAX_CPUS) whose
 * histograms have geometry cfg (NULL = lhist's default).  Returns 0 and
 * *out (the caller frees it with hset_free()), -EINVAL for a bad geometry
 * or CPU count, -ENOMEM.
 */
int hset_new(struct hset **out, uint32_t nr_cpus, const struct lhist_cfg *cfg);
void hset_free(struct hset *s);

uint32_t hset_nr_cpus(const struct hset *s);
const struct lhist_cfg *hset_geometry(const struct hset *s);

/* The histogram of kind k on cpu, NULL when it has had no sample (or out of
 * range).  Owned by s. */
const struct lhist *hset_hist(const struct hset *s, enum hset_kind k, uint32_t cpu);

/*
 * hset_hist_mut - the histogram of kind k on cpu for a backend that fills its
 * counts itself (a BPF map, a hist trigger), allocated when missing.  NULL
 * when out of range or out of memory.  Owned by s.
 */
struct lhist *hset_hist_mut(struct hset *s, enum hset_kind k, uint32_t cpu);

/* Record one value.  0, -ERANGE (kind or CPU out of range), -ENOMEM. */
int hset_record(struct hset *s, enum hset_kind k, uint32_t cpu, int64_t v_ns);

/* The worst-case record of kind k on cpu (valid = false when none; a static
 * empty record when out of range).  Owned by s. */
const struct hset_max *hset_max(const struct hset *s, enum hset_kind k, uint32_t cpu);

/* hset_offer_max - keep m as the worst case of kind k on cpu when it is
 * larger than the one kept (or none is).  Returns true when kept. */
bool hset_offer_max(struct hset *s, enum hset_kind k, uint32_t cpu, const struct hset_max *m);

/* Clear every histogram and worst case (latency_hist's `reset`); the
 * geometry stays. */
void hset_reset(struct hset *s);

/* Directory name of a kind ("wakeup/sharedprio"); NULL when out of range. */
const char *hset_kind_name(enum hset_kind k);

/* Whether latency_hist writes max_latency-CPUn files for the kind. */
bool hset_kind_has_maxfile(enum hset_kind k);

#endif
