/* SPDX-License-Identifier: MIT */
/*
 * cause.h - who had the CPU during one sample, the hypervisor included: any
 * sample kind (an osnoise gap, a timerlat IRQ or thread latency, a wakeup
 * latency) is a time range [from_ns, to_ns] of one CPU, and every nanosecond
 * of it goes to exactly one cause.  Pure: no I/O, no clock.
 *
 * Prefix: cause_.
 *
 * Feed the spans that occupied each CPU, as they close (cause_span): the
 * guest's own (an NMI, an IRQ, a softirq, a thread: the noise accounting's
 * windows, cause_span_from_noise) and the hypervisor's (the vCPU ready but
 * not running: a DTL entry's enqueue_to_dispatch + ready_to_enqueue before
 * its dispatch, cause_span_from_dtl; or a steal-clock step).  Each CPU keeps
 * its newest spans in a ring.  cause_explain() sweeps [from_ns, to_ns]: at
 * each instant the owner is
 *   - the hypervisor, when one of its spans covers it: while the vCPU was
 *     away nothing of the guest ran, whatever the guest's clock says (an
 *     IRQ the hypervisor interrupted looks longer by that much);
 *   - else the guest span covering it that began last (the innermost: an
 *     NMI inside an IRQ, a softirq run inside an x86 vector's entry and
 *     exit, each owns its own time, and each is counted net of what
 *     nested in it); of two that began together, the one of the higher
 *     class (NMI > IRQ > softirq > thread);
 *   - else the remainder: no span says who (hardware or an unseen
 *     hypervisor where no hypervisor source is fed; the guest's own,
 *     unexplained, where one is).
 * So the parts add up exactly:
 *
 *   sum(parts[].ns) + other_ns + remainder_ns == to_ns - from_ns
 *
 * and class_ns[CAUSE_HV] is the measure of the union of the hypervisor
 * spans inside the range.  Memory: a scratch sized at cause_new(), and each
 * CPU's ring at its first span; no other allocation.
 */
#ifndef LATSCOPE_CAUSE_H
#define LATSCOPE_CAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/noise.h"
#include "format/dtl.h"
#include "format/tpevent.h"

#define CAUSE_MAX_PARTS		16	/* parts listed; the rest in other_ns */
#define CAUSE_MAX_HV		8	/* hypervisor spans listed one by one */

enum cause_class {
	CAUSE_HV = 0,		/* the hypervisor held the vCPU */
	CAUSE_NMI,
	CAUSE_IRQ,
	CAUSE_SOFTIRQ,
	CAUSE_THREAD,
	CAUSE_NR_CLASSES
};

/* Where the hypervisor's spans come from, for the remainder's name. */
enum cause_hv_source {
	CAUSE_HV_NONE = 0,	/* none fed: the remainder may be the hypervisor's */
	CAUSE_HV_DTL,		/* the dispatch trace log (POWER) */
	CAUSE_HV_STEAL,		/* the steal clock (KVM and others) */
};

/* The hypervisor's side of a span (CAUSE_HV): the DTL entry, when known. */
struct cause_hv {
	bool dtl;			/* from a DTL entry (else the steal clock) */
	uint8_t dispatch_reason, preempt_reason;
	uint64_t srr0;			/* where the vCPU was taken */
};

/* A stretch of time that one cause held a CPU. */
struct cause_span {
	enum cause_class cls;
	uint32_t cpu;
	uint64_t start_ns, end_ns;	/* end_ns >= start_ns */
	int32_t id;			/* irq, vector, softirq vec, pid; HV: the preempt reason */
	char name[TPEVENT_NAME_LEN];	/* handler, softirq, comm; HV: the preempt reason's name */
	uint8_t tag;			/* the caller's own sub-kind (an x86 vector among the
					 * IRQs): part of the source, carried to its part */
	struct cause_hv hv;		/* CAUSE_HV only */
};

/* One cause inside the range: a source (class, tag, id and, but for a
 * thread, which is its pid whatever its name, the name), its time. */
struct cause_part {
	enum cause_class cls;
	uint8_t tag;
	int32_t id;
	char name[TPEVENT_NAME_LEN];	/* a thread's: its newest */
	uint64_t ns;			/* the time it owned */
	uint64_t count;			/* its spans that owned some of it */
};

/* One hypervisor span inside the range, as the DTL logged it. */
struct cause_hv_span {
	uint64_t start_ns, end_ns;	/* the span (not clipped) */
	uint64_t ns;			/* the time of it inside the range */
	struct cause_hv hv;
};

struct cause_result {
	uint32_t cpu;
	uint64_t from_ns, to_ns;
	struct cause_part parts[CAUSE_MAX_PARTS];	/* largest ns first */
	size_t nr_parts;
	uint64_t other_ns, other_count;	/* sources past CAUSE_MAX_PARTS */
	uint64_t class_ns[CAUSE_NR_CLASSES];
	uint64_t remainder_ns;		/* no span covered it */
	struct cause_hv_span hv[CAUSE_MAX_HV];	/* the hypervisor spans, oldest first */
	size_t nr_hv, hv_more;		/* listed; and past CAUSE_MAX_HV */
	enum cause_hv_source hv_source;	/* what fed this CPU's hypervisor spans */
	bool ring_short;		/* spans of the range may have left the ring */
};

struct cause;

/* cause_new - for CPUs [0, nr_cpus) (1..4096), ring_len spans kept per CPU
 * (16..8192).  0, -EINVAL, -ENOMEM; the caller frees *out with
 * cause_free(). */
int cause_new(struct cause **out, uint32_t nr_cpus, uint32_t ring_len);
void cause_free(struct cause *a);

/* cause_span - one closed span (copied; a span of another class in the
 * ring with the same CPU may overlap it: the sweep decides).  0, -EINVAL
 * (CPU out of range, end before start, class out of range), or -ENOMEM
 * (the CPU's ring, made at its first span). */
int cause_span(struct cause *a, const struct cause_span *s);

/* cause_explain - cpu's range [from_ns, to_ns] into *r (a's scratch is
 * used: one call at a time).  0, or -EINVAL (CPU out of range, to before
 * from). */
int cause_explain(struct cause *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns, struct cause_result *r);

#define CAUSE_MAX_EXTRA	4096	/* spans a caller may add to one range */
/* cause_explain_with - the same with n_extra more spans of cpu that are not
 * in the ring (a caller that replays its own events into spans for each
 * range: lib/engine/latauto), borrowed for the call.  -E2BIG past
 * CAUSE_MAX_EXTRA. */
int cause_explain_with(struct cause *a, uint32_t cpu, uint64_t from_ns, uint64_t to_ns,
		       const struct cause_span *extra, size_t n_extra, struct cause_result *r);

/* cause_span_from_noise - the span of a closed interference window (its
 * arrival to its exit).  0, or -EINVAL for a window whose start no event
 * reported (it has no extent). */
int cause_span_from_noise(const struct noise_win *w, struct cause_span *s);

/* cause_span_from_dtl - the hypervisor's span of a DTL entry of cpu
 * dispatched at dispatch_ns (the entry's time base in the caller's clock):
 * [dispatch_ns - (enqueue_to_dispatch + ready_to_enqueue), dispatch_ns], the
 * time the vCPU was ready and not running, as the kernel's stolen time
 * counts it (waiting_to_ready is the partition's own wait: a cede).
 * tb_freq in Hz.  0, or -EINVAL (no tb_freq). */
int cause_span_from_dtl(uint32_t cpu, uint64_t dispatch_ns, const struct dtl_entry *e, uint64_t tb_freq,
			struct cause_span *s);

/* "hypervisor", "nmi", "irq", "softirq", "thread". */
const char *cause_class_name(enum cause_class c);

/* What the remainder is, for people: "hardware or hypervisor (no hypervisor
 * source)", "the guest, unexplained" ... */
const char *cause_remainder_name(enum cause_hv_source src);

#endif
