/* SPDX-License-Identifier: MIT */
/*
 * dtltl_int.h - the DTL timeline's state, shared by dtltl.c (sources, set-up)
 * and dtltl_next.c (records, holding, dtltl_next()).  Not for other modules.
 */
#ifndef LATSCOPE_DTLTL_INT_H
#define LATSCOPE_DTLTL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/dtl.h"
#include "engine/dtltl.h"

#define HOLD_BLOCK	(1u << 20)	/* held records live in blocks of this size */
#define MIN_POLL_NS	1000000ULL	/* the driver's clamp */

/* A held record: the event (pointers rebased at release) and its bytes. */
struct held {
	struct pdread_event ev;
	int evsel_idx;			/* -1: none (pointers into r->evsels may move) */
	uint64_t time_ns;		/* its time, or the stream time when it had none */
	bool timed;
	uint32_t len;			/* bytes of the record copy after this struct */
	uint8_t data[];
};

struct block {
	struct block *next;
	size_t used, head;		/* bytes filled; bytes already released */
	uint8_t mem[HOLD_BLOCK];
};

/* A window of the index, read 4096 entries at a time. */
#define IDX_BLOCK 4096
struct idxwin {
	uint64_t base;
	size_t n;
	uint64_t pairs[2 * IDX_BLOCK];
};

/* A block of the data section for the scans (record headers are read
 * sequentially: one read per block instead of one per record). */
#define SCAN_BLOCK (128u << 10)
struct scanblk {
	uint64_t off;
	size_t len;
	uint8_t buf[SCAN_BLOCK];
};

struct dtltl {
	struct pdread *r;
	struct dtltl_opts o;
	struct dtlmerge *m;
	struct dtltl_stats st;
	struct idxwin *iw_src, *iw_cov;	/* the source walker's and the coverage check's */
	struct scanblk *sb_src, *sb_cov;	/* the same for scans (sb_src: also the index's headers) */
	struct scanblk *sb_aux;		/* small AUX payload reads of the merge (pread_cb) */
	bool pipe, has_dtl, eof;
	bool swap;
	uint64_t data_begin, data_end;
	/* file mode: the source, and a cursor that checks each AUXTRACE record
	 * met in the stream against it */
	uint64_t cov_pos;
	bool cov_have;
	struct dtlmerge_buf_info cov_bi;
	uint64_t cov_next;
	/* file mode: a record waiting for the entries before it */
	bool pending;
	struct pdread_event ev;
	/* pipe mode: held records, FIFO over a chain of blocks */
	struct block *bhead, *btail, *bfree;
	size_t held_n;
	uint64_t held_bytes;
	uint64_t max_time;		/* newest record time read */
	uint64_t window_ns;
	bool auto_window;
	struct held *out;		/* the record last delivered from the hold */
	uint64_t next_rec_ns;		/* the record the next entries precede, 0 = none */
	int8_t *is_dtl;			/* per evsel index: -1 unknown, 0/1 (evsels only grow) */
	size_t nr_is_dtl;
	struct pdread_event out_ev;
};

/* dtltl.c */
int dtltl_idx_get(struct dtltl *t, struct idxwin *w, uint64_t i, uint64_t *off, uint64_t *sz);
int dtltl_scan_next(struct dtltl *t, struct scanblk *b, uint64_t pos, struct dtlmerge_buf_info *bi,
		   uint64_t *at, uint64_t *next);

#endif
