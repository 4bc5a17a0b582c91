/* SPDX-License-Identifier: MIT */
/*
 * latauto.h - the automatic analysis of one latency sample (hist -a): who had
 * the CPU during a time window (from a task's wakeup to its switch-in, or
 * while a timer was late): each task's time on it, each IRQ's and softirq's,
 * from the recent events of that CPU.  Pure: no I/O, no clock.
 *
 * Prefix: latauto_.
 *
 * Feed every event in time order (latauto_event; kinds other than
 * sched_switch, irq, softirq and irq_vectors entry/exit are ignored); each
 * CPU keeps its last LATAUTO_RING of them.  Where the hypervisor's spans are
 * known (a DTL entry's, lib/engine/cause.h), feed them too (latauto_hv).
 * latauto_window() replays the events into spans (each task from its
 * switch-in to its switch-out, each IRQ, softirq and vector from its entry
 * to its exit) and has lib/engine/cause sweep them over [from_ns, to_ns]:
 * every nanosecond goes to what was on the CPU then (the hypervisor while it
 * held the vCPU, else the innermost IRQ or softirq, else the running task,
 * else "unknown" before the oldest event kept), so the parts add up exactly:
 *
 *   sum(parts[].ns) + other_ns == to_ns - from_ns
 */
#ifndef LATSCOPE_LATAUTO_H
#define LATSCOPE_LATAUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/cause.h"
#include "format/tpevent.h"

#define LATAUTO_RING		1024	/* events kept per CPU */
#define LATAUTO_MAX_PARTS	12	/* parts listed; the rest in other_ns */
#define LATAUTO_MAX_NEST	8	/* IRQ/softirq nesting followed */

enum latauto_cls { LATAUTO_TASK, LATAUTO_IRQ, LATAUTO_SOFTIRQ, LATAUTO_VECTOR, LATAUTO_UNKNOWN, LATAUTO_HV };

struct latauto_part {
	enum latauto_cls cls;
	int32_t id;			/* pid, irq, softirq vec, vector; the hypervisor's:
					 * the preempt reason */
	char name[TPEVENT_NAME_LEN];	/* comm (a task's newest), handler, softirq name,
					 * the preempt reason's name */
	uint64_t ns;			/* its time inside the window */
	uint64_t count;			/* times it got the CPU inside the window (a task's
					 * return from an IRQ over it is not one) */
};

struct latauto_result {
	uint32_t cpu;
	uint64_t from_ns, to_ns;
	struct latauto_part parts[LATAUTO_MAX_PARTS];	/* largest ns first */
	size_t nr_parts;
	uint64_t other_ns;		/* parts past LATAUTO_MAX_PARTS */
	bool ring_short;		/* the events kept start after from_ns (an unknown part) */
	uint64_t hv_ns;			/* the hypervisor's time in the window (its parts' sum) */
	struct cause_hv_span hv[CAUSE_MAX_HV];	/* its spans, oldest first (DTL reasons, srr0) */
	size_t nr_hv, hv_more;
	enum cause_hv_source hv_source;	/* CAUSE_HV_NONE: nothing fed the hypervisor's spans */
	bool hv_short;			/* the hypervisor's spans kept start after from_ns: some of
					 * its time in the window may be gone (hv_ns is a floor) */
};

struct latauto;

/* latauto_new - for CPUs [0, nr_cpus) (1..4096).  0, -EINVAL, -ENOMEM; the
 * caller frees *out with latauto_free(). */
int latauto_new(struct latauto **out, uint32_t nr_cpus);
void latauto_free(struct latauto *a);

/* latauto_event - one event (copied when of a kind kept).  0 (an event of
 * a CPU out of range is skipped), or -ENOMEM: the CPU's ring, made at its
 * first event (memory for the CPUs that have events), could not be. */
int latauto_event(struct latauto *a, const struct tpevent *ev);

/* latauto_hv - one hypervisor span (CAUSE_HV, e.g. cause_span_from_dtl),
 * copied.  0, or -EINVAL (not the hypervisor's, a CPU out of range). */
int latauto_hv(struct latauto *a, const struct cause_span *s);

/* latauto_window - who had cpu during [from_ns, to_ns] into *r (a's
 * scratch used: one call at a time).  0, or -EINVAL (CPU out of range, to
 * before from). */
int latauto_window(struct latauto *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns,
		   struct latauto_result *r);

/* "task", "irq", "softirq", "vector", "unknown", "hypervisor". */
const char *latauto_cls_name(enum latauto_cls c);

#endif
