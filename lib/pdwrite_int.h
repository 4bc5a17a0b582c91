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

#include "pdwrite.h"

#define PDW_BUF_SIZE	(64 * 1024)
#define PDW_REC_MAX	65528		/* largest 8-aligned record size in a u16 */
#define PDW_NAME_ALIGN	64		/* perf's string padding */

struct pdw_evsel {
	struct pdf_attr attr;		/* host order, attr.size = writer's attr_size */
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pdw_blob {
	uint8_t *data;			/* target order payload, malloc'd */
	size_t len;
	bool set;
};

struct pdw {
	int fd;
	bool owns_fd;
	struct so_file *sf;		/* pdw_open() of a path: temp file renamed at close */
	bool pipe;
	bool big_endian;
	bool swap;
	uint32_t attr_size;		/* perf_event_attr bytes written */
	bool attr_size_auto;		/* opts.attr_size == 0: VER7, VER8 if config3 used */
	int err;			/* first error met (sticky) */
	bool begun;
	bool header_area_done;
	bool discard;			/* pdw_discard(): remove the file at close */
	bool ckpt;			/* opts.checkpoint (file mode) */
	bool td_in_data;		/* checkpoint: header records written at data start */
	uint64_t ckpt_next_ns;		/* CLOCK_MONOTONIC of the next checkpoint due */
	uint64_t ckpt_every_ns;

	struct pdw_evsel *evsels;
	size_t nr_evsels, cap_evsels;

	struct pdw_blob feat[PDF_FEAT_BITS];

	bool have_time;
	uint64_t first_ns, last_ns;	/* tracked from written samples */

	uint64_t *aux_index;		/* pairs {offset, size} */
	size_t nr_aux, cap_aux;

	/* compression staging (pdw_compress_begin/end) */
	bool zstage;
	int zlevel;
	uint8_t *zbuf;
	size_t zlen, zcap;
	ZSTD_CCtx *cctx;
	uint64_t z_in, z_out;

	uint64_t pos;			/* logical output offset (incl. buffered bytes) */
	uint64_t data_offset;
	uint64_t td_end;		/* td_in_data: end of those records, where the
					 * finished file's data section starts */
	size_t buf_len;
	uint8_t buf[PDW_BUF_SIZE];
	uint8_t rec[PDW_REC_MAX + 8];	/* record scratch */
};

/* A growable byte blob (feature payloads); err is sticky. */
struct gbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* pdwrite.c */
int pdw_set_err(struct pdw *w, int err);
int pdw_out(struct pdw *w, const void *p, size_t n);
int pdw_out_zeros(struct pdw *w, size_t n);
size_t pdw_pad8(size_t n);
int pdw_ensure_begun(struct pdw *w);

/* pdwrite_rec.c */
void pdw_encode_attr(const struct pdw *w, const struct pdf_attr *a, uint8_t *o);
void pdw_put_hdr(const struct pdw *w, uint8_t *p, uint32_t type, uint16_t misc, uint16_t size);
int pdw_emit_attr_record(struct pdw *w, const struct pdw_evsel *e);

/* pdwrite_feat.c */
void *pdw_memdup(const void *p, size_t n);
void pdw_build_event_desc(const struct pdw *w, struct gbuf *b);
bool pdw_feat_payload(const struct pdw *w, int feat, struct gbuf *b);
int pdw_emit_feature_record(struct pdw *w, int feat, const void *payload, size_t len);
int pdw_emit_tracing_data_record(struct pdw *w, const void *blob, size_t len);
int pdw_default_hostname(struct pdw *w);
bool pdw_feat_in_stream(const struct pdw *w, int feat);

#endif
