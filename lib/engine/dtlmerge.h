/* SPDX-License-Identifier: MIT */
/*
 * dtlmerge.h - merge DTL entries from per-CPU AUX buffers into the time
 * order of the other perf records, and detect gaps.
 *
 * Prefix: dtlmerge_.
 *
 * One queue per CPU, each a list of AUX buffers (PERF_RECORD_AUXTRACE
 * payloads).  In file mode a buffer is kept as (file offset, size) and read
 * back in bounded chunks through the caller's pread callback; in pipe mode
 * (no pread callback) the payload is copied, and the total copied is bounded
 * (dtlmerge_over_budget() tells the caller to drain).  All queues sit in a
 * min-heap keyed by the time of their next entry.
 *
 * Driving it (the caller reads records in time order, e.g. with pdread_next):
 *	for each AUXTRACE record:    dtlmerge_add_buffer()
 *	for each AUX / LOST record:  dtlmerge_note_aux() / dtlmerge_note_lost()
 *	for each timed record at t:  while (dtlmerge_next_before(m, t, &it) > 0) emit(it);
 *	                             dtlmerge_note_time(m, t); deliver the record
 *	at the end:                  while (dtlmerge_next(m, &it) > 0) emit(it);
 * Entries strictly older than a record come before it; on a tie the record
 * goes first (perf's rule).  A partly consumed buffer keeps its position.
 *
 * The library never prints; gaps are counted and the first DTLMERGE_MAX_GAPS are
 * kept with their CPU and time for the caller to report.
 */
#ifndef LATSCOPE_DTLMERGE_H
#define LATSCOPE_DTLMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/dtl.h"

#define DTLMERGE_MAX_CPUS		4096
#define DTLMERGE_MAX_GAPS		256
#define DTLMERGE_DEFAULT_COPY_BYTES	(64ULL << 20)
#define DTLMERGE_CHUNK_BYTES	(DTL_ENTRY_SIZE * 1365)	/* 64 KiB, whole slots, per CPU */

/* Read len bytes at absolute offset off; 0 or a negative errno. */
typedef int (*dtlmerge_pread_fn)(void *ctx, uint64_t off, void *buf, size_t len);

struct dtlmerge_opts {
	bool swap;			/* the file's byte order differs from the host's */
	bool exact_time;		/* 128-bit integer conversion instead of perf's double */
	dtlmerge_pread_fn pread;		/* file mode; NULL = pipe mode (payloads copied) */
	void *pread_ctx;
	uint64_t max_copy_bytes;	/* pipe mode budget; 0 = DTLMERGE_DEFAULT_COPY_BYTES */
	struct dtl_tbinfo fallback;	/* for CPUs without a header record; tb_freq 0 = none */
	bool override_boot_tb;		/* fallback.boot_tb wins over header records too */
	bool override_tb_freq;		/* fallback.tb_freq wins over header records too */
};

/* tb_freq of a header outside this range is implausible (warned, still used) */
#define DTLMERGE_TB_FREQ_MIN	1000000ULL
#define DTLMERGE_TB_FREQ_MAX	10000000000ULL

/* One AUX buffer as announced by PERF_RECORD_AUXTRACE (host order). */
struct dtlmerge_buf_info {
	uint64_t size;			/* payload bytes */
	uint64_t offset;		/* position in the CPU's AUX stream */
	uint32_t idx;
	uint32_t cpu;
	uint64_t payload_file_offset;	/* file mode: where the payload starts */
};

/*
 * A source of AUX buffers in file order (file mode: the HEADER_AUXTRACE
 * index, or a scan of the data section).  Positions are the source's own
 * (an index number, a file offset); they only grow.  Given pos, find the
 * first buffer at a position >= pos: fill *bi, *at (its position) and *next
 * (the position after it) and return 1; 0 when there is none; -errno.
 */
typedef int (*dtlmerge_source_fn)(void *ctx, uint64_t pos, struct dtlmerge_buf_info *bi,
			      uint64_t *at, uint64_t *next);

/* One emitted entry; raw points at 48 bytes valid until the next call. */
struct dtlmerge_item {
	uint32_t cpu;
	uint64_t time_ns;		/* perf time (double formula unless exact_time) */
	struct dtl_entry e;
	const uint8_t *raw;
	uint64_t buf_offset;		/* AUXTRACE.offset of its buffer */
	uint64_t slot_off;		/* offset of the slot in that buffer */
	struct dtl_tbinfo tbi;		/* the timebase parameters used */
	bool late;			/* older than a record already delivered */
};

enum dtlmerge_gap_kind {
	DTLMERGE_GAP_AUX_TRUNCATED,		/* PERF_RECORD_AUX flag TRUNCATED */
	DTLMERGE_GAP_AUX_PARTIAL,		/* flag PARTIAL */
	DTLMERGE_GAP_AUX_COLLISION,		/* flag COLLISION */
	DTLMERGE_GAP_LOST,			/* PERF_RECORD_LOST / LOST_SAMPLES (a = count) */
	DTLMERGE_GAP_TB_BACKWARDS,		/* a CPU's timebase went backwards (a = prev tb, b = tb) */
	DTLMERGE_GAP_OFFSET,		/* buffer does not continue the previous (a = expected, b = got) */
	DTLMERGE_GAP_ODD_SIZE,		/* a payload ends inside an entry (a = size, b = its bytes) */
	DTLMERGE_GAP_FORCED,		/* pipe budget exceeded: entries emitted early (a = bytes) */
	DTLMERGE_GAP_RING_FULL,		/* a poll copied 84 entries, all the 85-entry hypervisor
					 * ring lets through: older ones were probably lost
					 * before it (a = entries copied) */
	DTLMERGE_GAP_AUX_WRAP,		/* the driver's AUX buffer wrapped (a = the stream
					 * offset of the lap's end): it dropped the rest of
					 * the poll that filled it and overwrote the next
					 * poll's entries (docs/dtl.md) */
	DTLMERGE_GAP_AUX_ERROR,		/* a PERF_RECORD_AUXTRACE_ERROR: the recorder says
					 * what it lost (a = code, b = type; DTL_AUXERR_*) */
	DTLMERGE_GAP_NR_KINDS
};

struct dtlmerge_gap {
	enum dtlmerge_gap_kind kind;
	uint32_t cpu;			/* UINT32_MAX when unknown */
	uint64_t time_ns;		/* 0 when unknown */
	uint64_t a, b;
};

struct dtlmerge_stats {
	uint64_t buffers;		/* AUXTRACE buffers queued */
	uint64_t buffer_bytes;
	uint64_t dropped_buffers;	/* CPU out of range, or allocation failure */
	uint64_t entries;		/* entries emitted */
	uint64_t headers;
	uint64_t skipped;		/* zero / negative timebase slots */
	uint64_t odd_buffers;		/* payloads that end inside an entry */
	uint64_t tail_bytes;		/* the bytes of those cut entries */
	uint64_t wrap_gaps;		/* AUX laps' end zero runs skipped (AUX wraps) */
	uint64_t wrap_gap_bytes;
	uint64_t holes;			/* buffers that start past the CPU's stream so far */
	uint64_t hole_bytes;		/* the stream bytes they skip (never in the file) */
	uint64_t late;			/* entries emitted after a newer record */
	uint64_t no_tbinfo;		/* entries converted without any boot_tb/tb_freq */
	uint64_t gaps[DTLMERGE_GAP_NR_KINDS];
	uint64_t lost_events;		/* sum of LOST counts */
	uint64_t copied_peak_bytes;	/* pipe mode */
	uint64_t bad_tb_freq;		/* header records with an implausible tb_freq */
	uint32_t bad_tb_freq_cpu;	/* the first one's CPU and value */
	uint64_t bad_tb_freq_value;
	size_t nr_queues;
};

struct dtlmerge;

/* dtlmerge_new - caller frees with dtlmerge_free().  0 or -ENOMEM. */
int dtlmerge_new(struct dtlmerge **mp, const struct dtlmerge_opts *opts);
void dtlmerge_free(struct dtlmerge *m);

/*
 * dtlmerge_set_source - file mode: every buffer comes from src, which the merge
 * reads on demand (queues hold at most DTLMERGE_SOURCE_LOOKAHEAD buffers each, so
 * memory does not grow with the file).  cpus lists every CPU that has
 * buffers (a caller's pre-pass over the source finds them); their queues are
 * created and primed, so a CPU whose first buffer comes late in the file
 * still takes part from the first record on.  start is the first position.
 * Call before anything else; returns 0 or a negative errno.
 */
#define DTLMERGE_SOURCE_LOOKAHEAD 64
int dtlmerge_set_source(struct dtlmerge *m, dtlmerge_source_fn src, void *ctx, uint64_t start,
		    const uint32_t *cpus, size_t nr_cpus);

/*
 * dtlmerge_add_buffer - queue a buffer.  data is the payload (required in pipe
 * mode, copied; ignored in file mode, where it is read back later).
 * Returns 0, -ENOMEM, -ERANGE (CPU out of range: dropped and counted), or an
 * error from the pread callback.
 */
int dtlmerge_add_buffer(struct dtlmerge *m, const struct dtlmerge_buf_info *bi, const void *data);

/* Record facts that mean lost DTL data (counted and kept as gaps). */
void dtlmerge_note_aux(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint64_t aux_offset,
		   uint64_t aux_size, uint64_t flags);
void dtlmerge_note_lost(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint64_t lost);
/* a PERF_RECORD_AUXTRACE_ERROR of cpu (DTLMERGE_GAP_AUX_ERROR) */
void dtlmerge_note_auxerr(struct dtlmerge *m, uint32_t cpu, uint64_t time_ns, uint32_t type, uint32_t code);

/* The time of the last record delivered (entries older than it are "late"). */
void dtlmerge_note_time(struct dtlmerge *m, uint64_t time_ns);

/* dtlmerge_next_before - the oldest entry with time < time_ns into *it: 1, or 0
 * when none is older, or a negative errno (pread failure). */
int dtlmerge_next_before(struct dtlmerge *m, uint64_t time_ns, struct dtlmerge_item *it);

/* dtlmerge_next - the oldest remaining entry (flush at the end): 1, 0 or -errno. */
int dtlmerge_next(struct dtlmerge *m, struct dtlmerge_item *it);

/*
 * dtlmerge_first_time - the time of the first real entry of an AUX payload of
 * cpu at stream offset pos (with the timebase parameters that CPU's entries would get; a header
 * slot in the payload counts).  True when there is one.
 */
bool dtlmerge_first_time(const struct dtlmerge *m, uint32_t cpu, uint64_t pos, const void *data, uint64_t size,
		     uint64_t *time_ns);

/* Bytes of AUX payload copied and queued (pipe mode). */
uint64_t dtlmerge_copied_bytes(const struct dtlmerge *m);

/* True when pipe-mode copies exceed the budget: drain with dtlmerge_next(). */
bool dtlmerge_over_budget(const struct dtlmerge *m);

/* Note that entries are being emitted early to stay in budget. */
void dtlmerge_note_forced(struct dtlmerge *m);

const struct dtlmerge_stats *dtlmerge_stats(const struct dtlmerge *m);
/* The first gaps (at most DTLMERGE_MAX_GAPS); the array is owned by m. */
size_t dtlmerge_gaps(const struct dtlmerge *m, const struct dtlmerge_gap **gaps);
const char *dtlmerge_gap_name(enum dtlmerge_gap_kind k);

#endif
