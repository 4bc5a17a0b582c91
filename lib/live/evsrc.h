/* SPDX-License-Identifier: MIT */
/*
 * evsrc.h - live tracepoint source: perf_event_open on tracepoints, one ring
 * per CPU, samples decoded into struct tpevent and delivered in time order
 * across CPUs.
 *
 * Prefix: evsrc_.
 *
 *	const char *ev[] = { "sched:sched_switch", "irq_vectors:*_entry", "?nmi:nmi_handler" };
 *	struct evsrc *s;
 *	if (evsrc_open(&s, ev, 3, &cpus, NULL) < 0) { puts(evsrc_strerror(s)); evsrc_close(s); }
 *	evsrc_enable(s);
 *	while (running) {
 *		evsrc_poll(s, 100);
 *		evsrc_read(s, now_ns - 2000000, on_event, arg);	// older than 2 ms
 *	}
 *	evsrc_read(s, UINT64_MAX, on_event, arg);			// the rest
 *	evsrc_close(s);
 *
 * Event names are "system:event"; the event part may be a glob ("*_entry").
 * A leading '?' marks an optional event (ignored when the kernel lacks it).
 * Formats and ids come from tracefs through libtracefs (only the systems
 * named are parsed).  Timestamps are CLOCK_MONOTONIC (use_clockid).
 * The rings are read by perfring (perfring.h): every PERF_RECORD_LOST is counted,
 * and corrupt ring data is counted and skipped (evsrc_stats).  Each event
 * has a counting twin (firecount.h) in its CPU's group: evsrc_count() compares
 * what fired with what the rings delivered, and names the samples a kernel
 * dropped without a LOST record.  Memory is bounded: the
 * rings (ring_bytes per CPU) and a fixed per-CPU reorder queue; nothing is
 * allocated per sample.
 */
#ifndef LATSCOPE_EVSRC_H
#define LATSCOPE_EVSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"
#include "format/pdformat.h"
#include "format/tpevent.h"

#define EVSRC_DEFAULT_RING_BYTES (8u << 20)

struct evsrc_opts {
	size_t ring_bytes;		/* data area per CPU, rounded up to 2^n pages;
					 * 0 = EVSRC_DEFAULT_RING_BYTES */
	size_t queue_events;		/* reorder queue per CPU; 0 = 32768 */
	bool track_tasks;		/* for recordings: the first event of each CPU
					 * also reports task names and lives (COMM, FORK,
					 * EXIT records, given to the raw callback only) */
};

struct evsrc_stats {
	uint64_t samples;		/* samples read from the rings */
	uint64_t delivered;		/* events passed to the callback */
	uint64_t lost;			/* events the kernel dropped (PERF_RECORD_LOST) */
	uint64_t lost_records;
	uint64_t corrupt;		/* corrupt ring headers, each a skip to the head */
	uint64_t corrupt_bytes;		/* ring bytes those skips left unread */
	uint64_t undecoded;		/* samples the decoder does not know or could not parse */
	uint64_t forced;		/* events delivered early because a queue was full */
	uint64_t out_of_order;		/* events older than one already delivered (each
					 * delivered with tpevent.late set) */
	uint64_t max_late_ns;		/* the most one of them was older by */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE records (perfring.h) */
	uint64_t unthrottles;		/* PERF_RECORD_UNTHROTTLE records */
	/* The counting twins (firecount.h), as of the last evsrc_count(): */
	bool counting;			/* every event has its twin (else evsrc_count_note) */
	uint64_t fired;			/* times the events fired on the traced CPUs */
	uint64_t undelivered;		/* of those, neither read as a sample nor counted in a
					 * PERF_RECORD_LOST: dropped by the kernel without a
					 * record (per CPU: fired - samples - lost) */
};

struct evsrc;
struct tep_handle;

/*
 * Called for each event in time order.  Return 0 to go on, non-zero to stop
 * evsrc_read() (which then returns that value).
 */
typedef int (*evsrc_cb)(void *arg, const struct tpevent *ev);

/*
 * Called for every record read from a ring, before decoding and in ring
 * order (for recording): event_idx is the sample's event (-1 for a COMM,
 * FORK or EXIT record of opts.track_tasks, 0 for LOST), rec the whole
 * record, host order.
 */
typedef void (*evsrc_raw_cb)(void *arg, int cpu, int event_idx, const uint8_t *rec, size_t size);

/*
 * evsrc_open - open events on every CPU of cpus.  On success *sp is a source
 * with the events disabled; the caller frees it with evsrc_close().  On failure
 * returns a negative errno (-ENOENT unknown event, -EACCES/-EPERM no
 * permission, -EMFILE...) and, when *sp is not NULL, evsrc_strerror(*sp) says
 * what failed; free it with evsrc_close() as well.
 */
int evsrc_open(struct evsrc **sp, const char *const *events, size_t nr, const struct parse_cpuset *cpus,
	     const struct evsrc_opts *opts);
void evsrc_close(struct evsrc *s);
const char *evsrc_strerror(const struct evsrc *s);

int evsrc_enable(struct evsrc *s);
int evsrc_disable(struct evsrc *s);

/* Wait up to timeout_ms for a ring to pass its wake-up mark.  Returns the
 * number of ready rings, 0 on timeout, or a negative errno (-EINTR). */
int evsrc_poll(struct evsrc *s, int timeout_ms);

/*
 * evsrc_read - drain every ring, then deliver, in time order, the queued
 * events with time_ns <= until_ns (UINT64_MAX: all).  Returns 0, the
 * callback's non-zero value, or a negative errno.
 */
int evsrc_read(struct evsrc *s, uint64_t until_ns, evsrc_cb cb, void *arg);

/* Install a raw-record callback (NULL to remove). */
void evsrc_set_raw_cb(struct evsrc *s, evsrc_raw_cb cb, void *arg);

struct pdwrite;
/*
 * evsrc_describe - declare the opened events in the recording pw (before
 * pdwrite_begin_data): each as an evsel with its sample ids, and their
 * formats from tracefs as the tracing data in byte order big_endian (the
 * records are copied as they come: the host's).  0 or a negative errno.
 */
int evsrc_describe(struct evsrc *s, struct pdwrite *pw, bool big_endian);
/*
 * evsrc_record_into - from now on every record read from the rings is also
 * written to pw as it came (the raw callback: it replaces one installed
 * before; pw NULL removes it); a failed write sets *write_err (write_err may
 * be NULL: pdwrite's errors stick and pdwrite_close() returns them).  pw
 * stays the caller's and must outlive the reads.
 */
void evsrc_record_into(struct evsrc *s, struct pdwrite *pw, bool *write_err);

struct pollfd;
/* evsrc_pollfds - the rings' descriptors, one per CPU, for the caller's own
 * poll() (what evsrc_poll() waits on); *fds is owned by s.  Returns their
 * number. */
size_t evsrc_pollfds(struct evsrc *s, struct pollfd **fds);

const struct evsrc_stats *evsrc_stats(const struct evsrc *s);
/* Events of a glob or optional spec that the kernel refused and that were
 * left out ("irq_vectors:irq_work_entry (Operation not permitted), ..."),
 * "" if none.  Owned by the source. */
const char *evsrc_note(const struct evsrc *s);
/* Events lost on one CPU. */
uint64_t evsrc_lost_cpu(const struct evsrc *s, unsigned cpu);

/*
 * evsrc_count - read every event's counting twin, then drain the rings (the
 * records stay queued for evsrc_read), and update st.fired and
 * st.undelivered.  Exact once the events are disabled and the rings read
 * to the end (evsrc_disable, evsrc_read(UINT64_MAX), evsrc_count); while
 * they run, a lower bound.  Returns 0, -EOPNOTSUPP when the twins could not
 * be opened (evsrc_count_note says why), or a negative errno from reading
 * one (counting then stops, evsrc_strerror says why).
 */
int evsrc_count(struct evsrc *s);
/* Why the events are not counted ("" when they are); owned by s. */
const char *evsrc_count_note(const struct evsrc *s);
struct firedtab;
/* evsrc_fired_table - the counts of the last evsrc_count() into t (every
 * traced CPU, every event on each; t's arrays are the caller's to free with
 * firedtab_free).  Not counting: t->counted false, t->note why.  0 or
 * -ENOMEM. */
int evsrc_fired_table(const struct evsrc *s, struct firedtab *t);

/* The opened events (after glob expansion): count, name "sys:event", tep id,
 * perf attr (host order), and the sample ids of each (one per CPU). */
size_t evsrc_nr_events(const struct evsrc *s);
const char *evsrc_event_name(const struct evsrc *s, size_t idx);
int evsrc_event_id(const struct evsrc *s, size_t idx);
const struct pdformat_attr *evsrc_event_attr(const struct evsrc *s, size_t idx);
size_t evsrc_event_ids(const struct evsrc *s, size_t idx, const uint64_t **ids);
/* The perf attr (host order) of tracepoint id as the source opens it and a
 * recording declares it: fills *p. */
void evsrc_tp_attr(int id, struct pdformat_attr *p);
/* The tracepoint formats (owned by the source). */
struct tep_handle *evsrc_tep(const struct evsrc *s);

#endif
