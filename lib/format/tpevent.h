/* SPDX-License-Identifier: MIT */
/*
 * tpevent.h - typed tracepoint events shared by the noise accounting, the
 * latency histograms and the DTL correlation.
 *
 * Prefix: tpevent_ (the struct) and tpdecode_ (the decoder, lib/format/tpevent/tpdecode.c).
 *
 * Both the live source (perf_event_open rings) and the perf.data reader turn
 * a tracepoint sample into a struct tpevent through the same decoder, so every
 * analysis runs unchanged live and offline.
 */
#ifndef LATSCOPE_TPEVENT_H
#define LATSCOPE_TPEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

enum tpevent_kind {
	TPEVENT_UNKNOWN = 0,
	TPEVENT_SCHED_SWITCH,		/* sched:sched_switch */
	TPEVENT_SCHED_WAKING,		/* sched:sched_waking */
	TPEVENT_SCHED_WAKEUP,		/* sched:sched_wakeup */
	TPEVENT_SCHED_WAKEUP_NEW,		/* sched:sched_wakeup_new */
	TPEVENT_SCHED_MIGRATE,		/* sched:sched_migrate_task */
	TPEVENT_SCHED_PROCESS_EXIT,		/* sched:sched_process_exit */
	TPEVENT_IRQ_ENTRY,			/* irq:irq_handler_entry */
	TPEVENT_IRQ_EXIT,			/* irq:irq_handler_exit */
	TPEVENT_SOFTIRQ_ENTRY,		/* irq:softirq_entry */
	TPEVENT_SOFTIRQ_EXIT,		/* irq:softirq_exit */
	TPEVENT_SOFTIRQ_RAISE,		/* irq:softirq_raise */
	TPEVENT_VECTOR_ENTRY,		/* irq_vectors:*_entry (x86) */
	TPEVENT_VECTOR_EXIT,		/* irq_vectors:*_exit */
	TPEVENT_NMI,			/* nmi:nmi_handler (one event at the end, with delta) */
	TPEVENT_HRTIMER_START,		/* timer:hrtimer_start */
	TPEVENT_HRTIMER_CANCEL,		/* timer:hrtimer_cancel */
	TPEVENT_HRTIMER_EXPIRE_ENTRY,	/* timer:hrtimer_expire_entry */
	TPEVENT_HRTIMER_EXPIRE_EXIT,	/* timer:hrtimer_expire_exit */
	TPEVENT_IRQ_DISABLE,		/* preemptirq:irq_disable */
	TPEVENT_IRQ_ENABLE,			/* preemptirq:irq_enable */
	TPEVENT_PREEMPT_DISABLE,		/* preemptirq:preempt_disable */
	TPEVENT_PREEMPT_ENABLE,		/* preemptirq:preempt_enable */
	TPEVENT_OSNOISE_SAMPLE_THRESHOLD,	/* osnoise:sample_threshold */
	TPEVENT_OSNOISE_NMI,		/* osnoise:nmi_noise */
	TPEVENT_OSNOISE_IRQ,		/* osnoise:irq_noise */
	TPEVENT_OSNOISE_SOFTIRQ,		/* osnoise:softirq_noise */
	TPEVENT_OSNOISE_THREAD,		/* osnoise:thread_noise */
	TPEVENT_CPU_IDLE,			/* power:cpu_idle */
	TPEVENT_NR_KINDS
};

#define TPEVENT_COMM_LEN 16
/* power:cpu_idle's state when the CPU leaves idle (the kernel's PWR_EVENT_EXIT) */
#define TPEVENT_CPU_IDLE_EXIT UINT32_MAX
#define TPEVENT_NAME_LEN 32

/*
 * One decoded tracepoint event.  time_ns is in the recording's clock
 * (CLOCK_MONOTONIC live, perf clock offline); pid/tid are the sample's task
 * (common_pid); all fields host order.
 */
struct tpevent {
	enum tpevent_kind kind;
	uint64_t time_ns;
	uint32_t cpu;
	int32_t pid, tid;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	bool late;		/* a live source delivered it after a later event
				 * (evsrc.h out_of_order); decoders leave it false */
	union {
		struct {
			char prev_comm[TPEVENT_COMM_LEN];
			int32_t prev_pid, prev_prio;
			int64_t prev_state;
			char next_comm[TPEVENT_COMM_LEN];
			int32_t next_pid, next_prio;
		} sw;
		struct {	/* waking, wakeup, wakeup_new */
			char comm[TPEVENT_COMM_LEN];
			int32_t pid, prio, target_cpu;
		} wake;
		struct {
			char comm[TPEVENT_COMM_LEN];
			int32_t pid, prio, orig_cpu, dest_cpu;
		} migrate;
		struct {
			char comm[TPEVENT_COMM_LEN];
			int32_t pid, prio;
		} exit;
		struct {
			int32_t irq;
			int32_t ret;		/* exit only */
			char name[TPEVENT_NAME_LEN];	/* entry only */
		} irq;
		struct {
			uint32_t vec;
		} softirq;
		struct {
			int32_t vector;
			char name[TPEVENT_NAME_LEN];	/* "local_timer", from the event name */
		} vector;
		struct {
			uint64_t handler;
			int64_t delta_ns;
			int32_t handled;
		} nmi;
		struct {
			uint64_t hrtimer, function;
			int64_t expires_ns, softexpires_ns;
			uint32_t mode;
		} hrtimer_start;
		struct {
			uint64_t hrtimer;
			int64_t now_ns;		/* expire_entry only */
			uint64_t function;	/* expire_entry only */
		} hrtimer;
		struct {
			uint64_t caller_offs, parent_offs;
		} preemptirq;
		struct {	/* power:cpu_idle: the idle state entered, or
				 * TPEVENT_CPU_IDLE_EXIT */
			uint32_t state, cpu_id;
		} cpu_idle;
		struct {	/* osnoise:* events of the kernel tracer */
			uint64_t start_ns, duration_ns, interference;
			int32_t vector_or_pid;
			char desc[TPEVENT_NAME_LEN];
		} osnoise;
	};
};

struct tpdecode;

/*
 * tpdecode_new - resolve the events and fields of tep once.  Returns NULL on
 * allocation failure.  The caller frees with tpdecode_free(); tep stays owned by
 * the caller and must outlive the decoder.
 */
struct tpdecode *tpdecode_new(struct tep_handle *tep);
void tpdecode_free(struct tpdecode *d);

/* The kind of tracepoint id (attr.config / common_type), TPEVENT_UNKNOWN if none. */
enum tpevent_kind tpdecode_kind(const struct tpdecode *d, int event_id);

/*
 * tpdecode_decode - decode raw tracepoint data of event_id into *out (kind and
 * payload; the caller fills time_ns, cpu, pid, tid from the sample).
 * Returns 0, -ENOENT for an event the decoder does not know, or -EINVAL when
 * raw is too short for the format.
 */
int tpdecode_decode(const struct tpdecode *d, int event_id, const void *raw, size_t raw_size,
	       struct tpevent *out);

/*
 * Why samples did not become events: what tpdecode_decode_sample() counts.  The
 * caller owns the struct, zeroes it once, and reports the counters it cares
 * about (a command that reads only some events may not call `unknown` a loss).
 */
struct tpdecode_losses {
	uint64_t unknown_evsel;		/* sample id names no event of the file */
	uint64_t not_tracepoint;	/* sample of a non-tracepoint event */
	uint64_t no_raw;		/* tracepoint sample without a RAW payload */
	uint64_t unknown;		/* tracepoint the decoder does not know */
	uint64_t bad_raw;		/* payload too short for its format */
};

struct pdread_event;

/*
 * tpdecode_decode_sample - the one perf.data sample -> struct tpevent adapter: ev is a
 * PERF_RECORD_SAMPLE from pdread_next() (has_sample set).  Fills *out (time_ns,
 * cpu, pid, tid from the sample, the rest from the payload) and returns 0;
 * otherwise counts the reason in *losses and returns -ENOENT (unknown evsel,
 * not a tracepoint, or an event the decoder does not know), -ENODATA (no
 * payload) or -EINVAL (bad payload).  A record that is not a parsed sample
 * returns -EINVAL and counts nothing.  Nothing is allocated.
 */
int tpdecode_decode_sample(const struct tpdecode *d, const struct pdread_event *ev, struct tpevent *out,
		      struct tpdecode_losses *losses);

/* Name of a kind ("sched:sched_switch"). */
const char *tpevent_kind_name(enum tpevent_kind k);

#endif
