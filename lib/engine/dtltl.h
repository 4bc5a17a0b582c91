/* SPDX-License-Identifier: MIT */
/*
 * dtltl.h - the DTL timeline: every record of a perf.data file and every DTL
 * entry of its AUX data, merged into one time order.
 *
 * Prefix: dtltl_.
 *
 * Why this is not just "queue each AUXTRACE record as it is read": the
 * vpa_dtl driver copies DTL entries into the AUX area only at each poll (the
 * event's sample_period, up to a second), and perf record writes an AUXTRACE
 * record only when it next drains that CPU's AUX area.  So an AUXTRACE record
 * arrives tens to hundreds of rounds after sched samples that are newer than
 * its oldest entries.
 *
 *  - File mode: before the first record is delivered, every AUX buffer is
 *    known.  The HEADER_AUXTRACE index is validated entry by entry (each must
 *    point at an AUXTRACE record of header size 48 whose payload lies in the
 *    data section, in increasing order); if it is missing or damaged, one
 *    scan of the data section's record headers finds the buffers instead
 *    (dtltl_stats()->why_scan says why).  The merge then reads the buffers on
 *    demand from that source (dtlmerge_set_source), so memory does not grow with
 *    the file.  perf queues from the index too but gives up without one.
 *  - Pipe mode (no index, no seeking): the other records are held back in a
 *    reorder window so that entries of buffers that arrive late still come
 *    out in time order.  The window starts at twice the vpa_dtl poll period
 *    (sample_period, or 1e9/sample_freq; at least 1 ms, as the driver clamps
 *    it) and grows to 1.5 times the largest delay seen between a buffer's
 *    oldest entry and the stream time at which the buffer arrived.  A fixed
 *    window can be given instead.  Held records and queued AUX data together
 *    stay within a byte budget; beyond it the oldest are released early
 *    (counted).  perf prints no DTL at all in pipe mode.
 *
 * Entries strictly older than a record come before it; on a tie the record
 * comes first (perf's rule).  Entries older than a record already delivered
 * are "late" (counted in dtlmerge_stats()->late).  Entries after the last record
 * come at the end.  Never prints.
 */
#ifndef LATSCOPE_DTLTL_H
#define LATSCOPE_DTLTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/dtlmerge.h"
#include "format/pdread.h"

#define DTLTL_DEFAULT_BUDGET	(64ULL << 20)

struct dtltl_opts {
	bool exact_time;		/* 128-bit integer timebase conversion */
	struct dtl_tbinfo fallback;	/* CPUs without a header record; tb_freq 0 = none */
	uint64_t budget_bytes;		/* pipe mode: held records + AUX copies (0 = default) */
	uint64_t window_ns;		/* pipe mode reorder window; 0 = automatic */
	bool no_window;			/* pipe mode: no reorder window at all */
	bool ignore_index;		/* file mode: scan even when the index is good (tests) */
	bool override_boot_tb;		/* fallback.boot_tb wins over the header records */
	bool override_tb_freq;		/* fallback.tb_freq wins over the header records */
};

enum dtltl_source {
	DTLTL_SRC_NONE,			/* no DTL in the file */
	DTLTL_SRC_INDEX,			/* file mode, HEADER_AUXTRACE index */
	DTLTL_SRC_SCAN,			/* file mode, scan of the data section */
	DTLTL_SRC_STREAM,		/* pipe mode: buffers as they arrive */
};

struct dtltl_stats {
	enum dtltl_source source;
	char why_scan[192];		/* SCAN: what was wrong with the index ("" = none) */
	uint64_t index_entries;		/* INDEX: entries validated */
	uint64_t scanned_records;	/* SCAN: record headers walked in the pre-pass */
	uint64_t scan_stopped_at;	/* SCAN: offset of a bad header that ended the walk (0 = none) */
	uint64_t dtl_buffers;		/* AUX buffers with DTL data found */
	uint64_t bad_cpu_buffers;	/* AUXTRACE records with a CPU >= DTLMERGE_MAX_CPUS (dropped) */
	uint64_t unindexed_buffers;	/* file mode: AUXTRACE records the source did not list */
	uint64_t window_ns;		/* pipe mode: the window at the end */
	uint64_t window_max_need_ns;	/* pipe mode: largest arrival delay seen */
	uint64_t poll_ns;		/* vpa_dtl poll period (0 = unknown) */
	uint64_t held_peak_bytes;	/* pipe mode */
	uint64_t held_peak_records;
	uint64_t forced_records;	/* released early to stay within the budget */
	uint64_t records;		/* records delivered */
	/* implausible DTL times: entries more than a day before the first or
	 * after the last timed record (a wrong boot_tb or tb_freq) */
	uint64_t far_entries;
	uint32_t far_cpu;		/* the first such entry's CPU and time */
	uint64_t far_time_ns;
	uint64_t first_record_ns, last_record_ns;	/* timed records, 0 = none */
};

#define DTLTL_FAR_NS (86400ULL * 1000000000ULL)

enum dtltl_kind { DTLTL_ENTRY = 1, DTLTL_RECORD };

struct dtltl_item {
	enum dtltl_kind kind;
	struct dtlmerge_item entry;		/* DTLTL_ENTRY */
	const struct pdread_event *ev;	/* DTLTL_RECORD: valid until the next dtltl_next() */
};

struct dtltl;

/*
 * dtltl_new - a timeline over r, which must be opened ordered (not
 * pdread_opts.unordered) and nothing read from it yet.  r stays owned by the
 * caller and must outlive the timeline.  In file mode this runs the pre-pass
 * (index validation or scan).  The caller frees with dtltl_free().  Returns 0
 * or a negative errno (pdread_strerror(r) may say more when it is the reader's).
 */
int dtltl_new(struct dtltl **tp, struct pdread *r, const struct dtltl_opts *o);
void dtltl_free(struct dtltl *t);

/*
 * dtltl_next - the next item in time order: 1 with *it, 0 at the end, or a
 * negative errno (a reader error: pdread_strerror(); or a failed pread of AUX
 * data).  AUXTRACE records are consumed, not delivered; every other record
 * is.  AUX, LOST and LOST_SAMPLES records are also noted in the merge's gap
 * list (dtltl_merge()).
 */
int dtltl_next(struct dtltl *t, struct dtltl_item *it);

const struct dtltl_stats *dtltl_stats(const struct dtltl *t);
/* The merge (entries, late, gaps); owned by t. */
const struct dtlmerge *dtltl_merge(const struct dtltl *t);

/* dtltl_is_dtl_evsel with the answer kept per evsel (cheap per sample). */
bool dtltl_evsel_is_dtl(struct dtltl *t, const struct pdread_evsel *e);

/* True when evsel is the vpa_dtl event (name "vpa_dtl..." or its PMU type). */
bool dtltl_is_dtl_evsel(const struct pdread *r, const struct pdread_evsel *e);

/* True when the file's AUX data may be DTL: AUXTRACE_INFO type 7, or no
 * AUXTRACE_INFO (yet) and no evidence of another AUX PMU. */
bool dtltl_file_has_dtl(const struct pdread *r);

/* The vpa_dtl poll period of the file's DTL event in ns (sample_period, or
 * 1e9/sample_freq, at least 1 ms as the driver clamps it); 0 when unknown. */
uint64_t dtltl_poll_ns(const struct pdread *r);

#endif
