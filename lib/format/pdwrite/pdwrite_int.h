/* SPDX-License-Identifier: MIT */
/*
 * pdwrite_int.h - pdwrite's private state, shared by pdwrite.c (output, open,
 * header, close), pdwrite_rec.c (record encoding and the record writers) and
 * pdwrite_feat.c (features and the tracing data blob).  Not for other modules.
 */
#ifndef LATSCOPE_PDWRITE_INT_H
#define LATSCOPE_PDWRITE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "format/pdwrite.h"

#define PDWRITE_BUF_SIZE	(64 * 1024)
#define PDWRITE_REC_MAX	65528		/* largest 8-aligned record size in a u16 */
#define PDWRITE_NAME_ALIGN	64		/* perf's string padding */

struct pdwrite_evsel {
	struct pdformat_attr attr;		/* host order, attr.size = writer's attr_size */
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pdwrite_blob {
	uint8_t *data;			/* target order payload, malloc'd */
	size_t len;
	bool set;
};

/* A feature payload already in the file (checkpoint mode: written before
 * the data section by pdwrite_begin_data(); valid until the feature is set
 * again). */
struct pdwrite_fsec {
	uint64_t off, len;
	bool valid;
};

struct pdwrite {
	int fd;
	bool owns_fd;
	struct safeout_file *sf;		/* pdwrite_open() of a path: temp file renamed at close */
	bool pipe;
	bool big_endian;
	bool swap;
	uint32_t attr_size;		/* perf_event_attr bytes written */
	bool attr_size_auto;		/* opts.attr_size == 0: VER7, VER8 if config3 used */
	int err;			/* first error met (sticky) */
	bool begun;
	bool header_area_done;
	bool discard;			/* pdwrite_discard(): remove the file at close */
	bool ckpt;			/* opts.checkpoint (file mode) */
	uint64_t ckpt_next_ns;		/* CLOCK_MONOTONIC of the next checkpoint due */
	uint64_t ckpt_every_ns;
	uint64_t ckpt_end;		/* end of the last checkpoint's table record (0 = none) */

	struct pdwrite_evsel *evsels;
	size_t nr_evsels, cap_evsels;

	struct pdwrite_blob feat[PDFORMAT_FEAT_BITS];
	struct pdwrite_fsec pre[PDFORMAT_FEAT_BITS];	/* checkpoint mode: payloads before the data */

	bool have_time;
	uint64_t first_ns, last_ns;	/* tracked from written samples */

	uint64_t *aux_index;		/* pairs {offset, size} */
	size_t nr_aux, cap_aux;

	/* compression staging (pdwrite_compress_begin/end) */
	bool zstage;
	int zlevel;
	uint8_t *zbuf;
	size_t zlen, zcap;
	ZSTD_CCtx *cctx;
	uint64_t z_in, z_out;

	uint64_t pos;			/* logical output offset (incl. buffered bytes) */
	uint64_t data_offset;
	size_t buf_len;
	uint8_t buf[PDWRITE_BUF_SIZE];
	uint8_t rec[PDWRITE_REC_MAX + 8];	/* record scratch */
};

/* A growable byte blob (feature payloads); err is sticky. */
struct gbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* pdwrite.c */
int pdwrite_set_err(struct pdwrite *w, int err);
int pdwrite_out(struct pdwrite *w, const void *p, size_t n);
int pdwrite_out_zeros(struct pdwrite *w, size_t n);
size_t pdwrite_pad8(size_t n);
int pdwrite_ensure_begun(struct pdwrite *w);

/* pdwrite_rec.c */
void pdwrite_encode_attr(const struct pdwrite *w, const struct pdformat_attr *a, uint8_t *o);
void pdwrite_put_hdr(const struct pdwrite *w, uint8_t *p, uint32_t type, uint16_t misc, uint16_t size);
int pdwrite_emit_attr_record(struct pdwrite *w, const struct pdwrite_evsel *e);

/* pdwrite_feat.c */
void *pdwrite_memdup(const void *p, size_t n);
void pdwrite_build_event_desc(const struct pdwrite *w, struct gbuf *b);
bool pdwrite_feat_payload(const struct pdwrite *w, int feat, struct gbuf *b);
int pdwrite_emit_feature_record(struct pdwrite *w, int feat, const void *payload, size_t len);
int pdwrite_emit_tracing_data_record(struct pdwrite *w, const void *blob, size_t len);
int pdwrite_default_hostname(struct pdwrite *w);
bool pdwrite_feat_in_stream(const struct pdwrite *w, int feat);

#endif
