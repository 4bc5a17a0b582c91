/* SPDX-License-Identifier: MIT */
/*
 * pdread_int.h - private to the perf.data reader (lib/pdread*.c): the
 * reader's state and the functions its files share (prefix pdread_).
 * The API is pdread.h.
 */
#ifndef LATSCOPE_PDREAD_INT_H
#define LATSCOPE_PDREAD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <zstd.h>

#include "format/pdread.h"

/* The input window and the ordered queue's storage are 1 MiB blocks: small
 * enough that the few in use stay in cache, and fresh memory is expensive
 * on VMs (a first touch of a page costs ~20 us on the development guest). */
#define IN_BUF_SIZE	(1u << 20)	/* sequential input window */
#define ARENA_BLOCK	(1u << 20)	/* ordered-queue storage block */
#define MAX_AUX_INLINE	(64ull << 20)	/* file mode: larger AUX payloads via pdread_pread */
#define MAX_AUX_PIPE	(1ull << 30)	/* pipe mode: refuse larger payloads */
#define MAX_DECOMP	(256u << 20)	/* one COMPRESSED record's output */
#define MAX_FEATURE	(512u << 20)	/* one feature section */
#define MAX_EVSELS	65536
#define MAX_IDS		(1u << 24)
#define DEFAULT_QUEUE_MAX (256ull << 20)

struct arena_block {
	struct arena_block *next;	/* free list */
	struct arena_block *all_next;	/* every block, for pdread_close */
	size_t used;
	size_t live;			/* records not yet delivered */
	size_t cap;			/* bytes of data */
	uint8_t data[];
};

/* A queued record: 32 bytes (the index of two rounds is in the MBs and
 * fresh memory is expensive).  Its size is read back from its header; ties
 * in time keep file order because the merge sort is stable. */
struct qent {
	uint64_t time;
	uint8_t *rec;
	struct arena_block *blk;
	uint64_t off;		/* file offset | QENT_COMPRESSED */
};
#define QENT_COMPRESSED (1ULL << 63)

struct idmap_slot {
	uint64_t id;
	int32_t evsel;		/* -1 = empty */
};

/* The last evsel found for ids of each residue: most records need no
 * hash lookup (perf numbers ids consecutively). */
#define PDREAD_IDCACHE 16
struct idcache {
	uint64_t id;
	int32_t evsel;		/* -1 = nothing cached */
};

struct pdread {
	/* input */
	int fd;
	bool owns_fd;
	bool mapped;		/* mem is an mmap of the whole file */
	uint64_t dropped;	/* pages below this offset were released */
	uint64_t populated;	/* pages below this offset were mapped in ahead */
	bool no_populate;	/* the kernel has no MADV_POPULATE_READ */
	bool drop_record;	/* the record just read was cut by a killed writer */
	const uint8_t *mem;
	size_t mem_len;
	char *name;
	uint8_t *buf;		/* window; mem mode: points into mem, else in_blk's data */
	size_t buf_cap, buf_len, buf_pos;
	/* read mode: the block holding the window.  Queued records point into
	 * it (no copy); while any does (live > 0) the window moves to another
	 * block instead of sliding over them. */
	struct arena_block *in_blk;
	uint64_t buf_off;	/* stream offset of buf[0] */
	uint64_t end;		/* end of the data section (UINT64_MAX in pipe mode) */
	bool in_eof;
	bool swap;
	struct pdread_opts opts;
	struct pdread_info info;
	struct pdread_stats stats;
	char err[420];

	/* evsels and ids */
	struct pdread_evsel *evsels;
	size_t nr_evsels, cap_evsels;
	struct idmap_slot *idmap;
	size_t idmap_cap, idmap_used;
	struct idcache idc[PDREAD_IDCACHE];

	struct tep_handle *tep;

	/* ordered queue */
	struct qent *q, *qtmp;		/* qtmp: merge scratch, same capacity */
	size_t q_len, q_cap;
	size_t ready_pos, ready_len;	/* q[ready_pos..ready_len) are sorted and deliverable */
	uint64_t max_time;		/* highest time queued */
	uint64_t next_flush;		/* limit of the next round flush */
	uint64_t last_flush;		/* highest time released */
	uint64_t queue_bytes;		/* allocated: arena blocks and the index */
	uint64_t live_bytes;		/* queued and not yet delivered */
	struct arena_block *cur_blk, *free_blks, *all_blks;
	struct qent last_delivered;
	bool have_last;
	bool at_end;			/* input exhausted; draining */

	/* A record read while draining a flush that must follow it. */
	bool pending;
	struct pdread_event pending_ev;

	/* decompression */
	ZSTD_DStream *zstd;
	uint8_t *dbuf;
	size_t dbuf_cap, dbuf_len, dbuf_pos;
	uint64_t dbuf_file_offset;

	/* the tracing data and the library's verdicts, for pdread_tep_new() */
	uint8_t *td_blob;
	size_t td_len;
	uint8_t *td_v;
	size_t td_nv;

	/* copies of records whose bytes in the window get overwritten */
	uint8_t recbuf[64];

	/* AUXTRACE payloads */
	uint8_t *auxbuf;
	size_t auxbuf_cap;

	/* strings and arrays kept for pdread_info */
	char *strs[16];
	size_t nr_strs;
	uint32_t *core_id, *socket_id;
	uint8_t *build_ids;		/* the BUILD_ID feature section, file order */
	size_t build_ids_len;
	uint32_t *pmu_type;
	char **pmu_name;
	uint64_t aux_index_off;		/* file offset of the AUXTRACE index entries */
};

static inline size_t in_avail(const struct pdread *r)
{
	return r->buf_len - r->buf_pos;
}

static inline uint64_t in_offset(const struct pdread *r)
{
	return r->buf_off + r->buf_pos;
}

/* pdread_osnp.c: the LATSCOPE_OSNOISE section at off, len bytes at p. */
int pdread_parse_osnp(struct pdread *r, const uint8_t *p, uint64_t len, uint64_t off);

/* pdread.c */
int pdread_fail(struct pdread *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* pdread_input.c */
ssize_t pdread_in_need(struct pdread *r, size_t n);
int pdread_in_skip(struct pdread *r, uint64_t n);
int pdread_read_at(struct pdread *r, uint64_t off, void *buf, size_t len);
int pdread_read_raw(struct pdread *r, struct pdread_event *ev);
int pdread_read_aux_payload(struct pdread *r, struct pdread_event *ev);

/* pdread_evsel.c */
int pdread_add_evsel(struct pdread *r, const struct pdformat_attr *attr, const uint8_t *ids_file,
		   size_t nr_ids, uint64_t off);
struct pdread_evsel *pdread_record_evsel(struct pdread *r, uint32_t type, const uint8_t *rec, size_t size,
				    bool count);
void pdread_bind_tracepoints(struct pdread *r);
int pdread_idmap_get(const struct pdread *r, uint64_t id);

/* pdread_tdata.c */
int pdread_parse_tracing_data(struct pdread *r, const uint8_t *data, uint64_t len, uint64_t off);

/* pdread_header.c */
int pdread_parse_feature(struct pdread *r, int feat, const uint8_t *p, uint64_t len, uint64_t off);
int pdread_open_common(struct pdread *r);

/* pdread_queue.c */
struct arena_block *pdread_block_get(struct pdread *r, size_t cap);
void pdread_block_retire(struct pdread *r, struct arena_block *b);
void pdread_arena_release(struct pdread *r, struct arena_block *b);
void pdread_queue_flush(struct pdread *r, uint64_t limit);
int pdread_queue_push(struct pdread *r, uint64_t time, const uint8_t *rec, uint16_t size,
		    uint64_t off, bool compressed);

#endif
