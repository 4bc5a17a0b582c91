/* SPDX-License-Identifier: MIT */
/*
 * perfring.h - walk the data area of a perf mmap ring: the one reader of
 * perf_event_mmap_page rings (evsrc, dtlrec, idlecheck use it).
 *
 * Prefix: perfring_.
 *
 *	struct perfring r;
 *	perfring_init(&r, base, page, data_len, NULL);	// base = the mmap of the fd
 *	...
 *	int rc = perfring_walk(&r, on_record, arg);	// PERFRING_STOPPED: on_record said stop
 *	... r.st.lost, r.st.corrupt_bytes ...
 *	perfring_fini(&r);
 *
 * The walk reads data_head with acquire order, hands every record between
 * data_tail and data_head to the callback (header and body contiguous: a
 * record that wraps the end of the data area is copied into the bounce
 * buffer first; nothing is allocated per record), and stores the new
 * data_tail with release order, so the kernel may reuse what was read.
 *
 * One corruption policy: a header whose size is below 8 bytes or above what
 * is left before data_head, or a head/tail pair more than the data area
 * apart (or backwards), is counted (st.corrupt, st.corrupt_bytes) and the
 * walk skips to data_head.  It never stops for good and never reads outside
 * the data area.  PERF_RECORD_LOST is counted here (st.lost, st.lost_records),
 * and so are PERF_RECORD_THROTTLE/UNTHROTTLE (st.throttles, st.unthrottles:
 * samples the kernel did not take while an event was throttled have no
 * record of their own); all are still handed to the callback.
 *
 * Never prints, never exits; not thread-safe (one walker per ring).
 */
#ifndef LATSCOPE_PERFRING_H
#define LATSCOPE_PERFRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* The largest record (perf_event_header.size is 16 bits): the size of a
 * bounce buffer. */
#define PERFRING_MAX_RECORD 65536u

/* perfring_walk's return when the callback asked to stop. */
#define PERFRING_STOPPED 1

struct perfring_stats {
	uint64_t records;		/* records the callback consumed */
	uint64_t lost;			/* events the kernel dropped (sum of PERF_RECORD_LOST) */
	uint64_t lost_records;		/* PERF_RECORD_LOST records */
	uint64_t corrupt;		/* bad headers / head-tail pairs: each a skip to head */
	uint64_t corrupt_bytes;		/* bytes those skips jumped over */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE: the kernel stopped sampling an
					 * event for the rest of a tick (perf_event_max_sample_rate) */
	uint64_t unthrottles;		/* PERF_RECORD_UNTHROTTLE: it sampled again */
};

struct perfring {
	struct perf_event_mmap_page *pg;	/* control page (the caller's mapping) */
	const uint8_t *data;		/* data area */
	uint64_t size;			/* bytes in the data area */
	uint8_t *bounce;		/* PERFRING_MAX_RECORD bytes for wrapped records */
	bool own_bounce;		/* allocated by perfring_init, freed by perfring_fini */
	struct perfring_stats st;
};

/*
 * perfring_cb - one record: h its header (host order), rec the whole record
 * (h->size bytes, header included), valid only during the call.  Return 0
 * to consume it and go on; PERFRING_STOPPED (or any positive value) to stop
 * before it (it stays in the ring: the next walk starts with it); a
 * negative errno to stop before it and make perfring_walk return that error.
 */
typedef int (*perfring_cb)(void *arg, const struct perf_event_header *h, const uint8_t *rec);

/*
 * perfring_init - set r up over a mapped ring: base is the control page,
 * data_offset/data_size place the data area (data_size > 0).  bounce is a
 * PERFRING_MAX_RECORD-byte buffer the caller keeps (and frees after
 * perfring_fini), or NULL: perfring_init allocates one, perfring_fini frees it.  The
 * mapping stays the caller's.  Returns 0, -EINVAL or -ENOMEM (r is then
 * safe to pass to perfring_fini).
 */
int perfring_init(struct perfring *r, void *base, size_t data_offset, size_t data_size, uint8_t *bounce);

/* perfring_fini - free what perfring_init allocated (not the mapping, not a
 * caller's bounce buffer); r may be zeroed or never initialised by a
 * failed perfring_init.  The counters stay readable. */
void perfring_fini(struct perfring *r);

/*
 * perfring_walk - hand the records between data_tail and data_head to cb, in
 * ring order, and advance data_tail past the consumed ones.  Returns 0 when
 * the ring was read up to the head it saw, PERFRING_STOPPED when cb stopped
 * (call again later to resume with the same record), or cb's negative errno.
 * cb may be NULL: every record is consumed (and counted).
 */
int perfring_walk(struct perfring *r, perfring_cb cb, void *arg);

/* perfring_stats_add - add src's counters into *dst (totals over rings). */
void perfring_stats_add(struct perfring_stats *dst, const struct perfring_stats *src);

#endif
