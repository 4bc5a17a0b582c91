/* SPDX-License-Identifier: MIT */
/*
 * pdwrite.c - perf.data writer (file and pipe mode, either byte order).
 *
 * File mode layout:
 *	[file header, 104 bytes][ids of every evsel][attrs section][data ...]
 *	[feature table: {u64 offset, u64 size} per set bit][feature payloads]
 * The header is written with a zero data size by pdw_begin_data() and
 * rewritten in place by pdw_close().
 *
 * Pipe mode: {magic, 16}, then HEADER_ATTR records, HEADER_FEATURE records
 * and HEADER_TRACING_DATA (+ blob), then the data records.  Features or
 * evsels set after pdw_begin_data() are emitted as records at once.
 *
 * Behaviour beyond the header's one-liners:
 *  - attr.size is always written as the writer's attr_size (default VER7,
 *    VER8 when an evsel sets config3: perf before 6.3 rejects 136-byte attrs,
 *    and in pipe mode perf 6.1 expects exactly its own 128 bytes);
 *  - HOSTNAME defaults to uname()'s node name: a reader of a byte-swapped
 *    file checks that bit to tell how the feature bitmap was stored;
 *  - SAMPLE_TIME defaults to the first/last TIME of the samples written
 *    (file mode), EVENT_DESC is built from the evsels, the AUXTRACE index
 *    from the AUXTRACE records (file mode; pipe mode has no index);
 *  - pipe mode writes no HEADER_LAST_FEATURE end marker (a newer perf may
 *    give that number to a real feature) and no TRACING_DATA/AUXTRACE
 *    feature records (perf sends neither in a pipe);
 *  - HEADER_FEATURE records are padded to 8 bytes; HEADER_TRACING_DATA is
 *    {u32 size, u32 pad} (16 bytes) with size = blob length rounded up to 8.
 *
 * Every multi-byte field is stored through by_st*() with w->swap, so the
 * host order never leaks into the output.  Records are built in a scratch
 * buffer inside struct pdw (no per-record malloc) and go through a 64 KiB
 * output buffer; only the AUXTRACE index grows with the data (16 bytes per
 * AUXTRACE record, as perf's own index does).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "bytes.h"
#include "pdwrite.h"
#include "safeout.h"

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

/* ------------------------------------------------------------------ output */

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t r = write(fd, c, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int set_err(struct pdw *w, int err)
{
	if (err && !w->err)
		w->err = err;
	return w->err ? w->err : err;
}

static int flush(struct pdw *w)
{
	if (w->err)
		return w->err;
	if (!w->buf_len)
		return 0;
	int err = write_all(w->fd, w->buf, w->buf_len);
	w->buf_len = 0;
	return set_err(w, err);
}

static int out(struct pdw *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (w->zstage) {
		if (w->zlen + n > w->zcap) {
			size_t cap = w->zcap ? w->zcap : 65536;
			while (cap < w->zlen + n)
				cap *= 2;
			uint8_t *b = realloc(w->zbuf, cap);
			if (!b)
				return set_err(w, -ENOMEM);
			w->zbuf = b;
			w->zcap = cap;
		}
		memcpy(w->zbuf + w->zlen, p, n);
		w->zlen += n;
		return 0;
	}
	if (n > sizeof(w->buf) - w->buf_len) {
		int err = flush(w);
		if (err)
			return err;
		if (n >= sizeof(w->buf)) {
			err = write_all(w->fd, p, n);
			if (err)
				return set_err(w, err);
			w->pos += n;
			return 0;
		}
	}
	if (n) {
		memcpy(w->buf + w->buf_len, p, n);
		w->buf_len += n;
	}
	w->pos += n;
	return 0;
}

static int out_zeros(struct pdw *w, size_t n)
{
	static const uint8_t zeros[64];
	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
		int err = out(w, zeros, k);
		if (err)
			return err;
		n -= k;
	}
	return 0;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ----------------------------------------------------------- growable blob */

struct gbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void *gb_room(struct gbuf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (n > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = np;
		b->cap = cap;
	}
	void *at = b->p + b->len;
	b->len += n;
	return at;
}

static void gb_put(struct gbuf *b, const void *p, size_t n)
{
	void *at = gb_room(b, n);
	if (at && n)
		memcpy(at, p, n);
}

static void gb_zero(struct gbuf *b, size_t n)
{
	void *at = gb_room(b, n);
	if (at && n)
		memset(at, 0, n);
}

static void gb_u32(struct gbuf *b, uint32_t v, bool swap)
{
	void *at = gb_room(b, 4);
	if (at)
		by_st32(at, v, swap);
}

static void gb_u64(struct gbuf *b, uint64_t v, bool swap)
{
	void *at = gb_room(b, 8);
	if (at)
		by_st64(at, v, swap);
}

/* perf's header string: u32 len (strlen+1 rounded up to 64), NUL-padded bytes. */
static void gb_string(struct gbuf *b, const char *s, bool swap)
{
	size_t n = strlen(s) + 1;
	size_t len = (n + PDW_NAME_ALIGN - 1) / PDW_NAME_ALIGN * PDW_NAME_ALIGN;
	if (len > UINT32_MAX) {
		b->err = -E2BIG;
		return;
	}
	gb_u32(b, (uint32_t)len, swap);
	gb_put(b, s, n);
	gb_zero(b, len - n);
}

/* ---------------------------------------------------------------- encoding */

/* Encode attr (host order) into out[attr_size] in the target order. */
static void encode_attr(const struct pdw *w, const struct pdf_attr *a, uint8_t *o)
{
	bool s = w->swap;
	uint8_t full[PDF_ATTR_MAX];

	memset(full, 0, sizeof(full));
	by_st32(full + 0, a->type, s);
	by_st32(full + 4, w->attr_size, s);
	by_st64(full + 8, a->config, s);
	by_st64(full + 16, a->sample_period, s);
	by_st64(full + 24, a->sample_type, s);
	by_st64(full + 32, a->read_format, s);
	/* Flags bitfield: bit n in byte n/8, at bit n%8 (LE) or 7-n%8 (BE). */
	for (int n = 0; n < 64; n++) {
		if (!((a->flags >> n) & 1))
			continue;
		int bit = w->big_endian ? 7 - n % 8 : n % 8;
		full[40 + n / 8] |= (uint8_t)(1u << bit);
	}
	by_st32(full + 48, a->wakeup_events, s);
	by_st32(full + 52, a->bp_type, s);
	by_st64(full + 56, a->config1, s);
	by_st64(full + 64, a->config2, s);
	by_st64(full + 72, a->branch_sample_type, s);
	by_st64(full + 80, a->sample_regs_user, s);
	by_st32(full + 88, a->sample_stack_user, s);
	by_st32(full + 92, (uint32_t)a->clockid, s);
	by_st64(full + 96, a->sample_regs_intr, s);
	by_st32(full + 104, a->aux_watermark, s);
	by_st16(full + 108, a->sample_max_stack, s);
	by_st16(full + 110, a->reserved_2, s);
	by_st32(full + 112, a->aux_sample_size, s);
	by_st32(full + 116, a->aux_action, s);
	by_st64(full + 120, a->sig_data, s);
	by_st64(full + 128, a->config3, s);
	memcpy(o, full, w->attr_size);
}

static void put_hdr(const struct pdw *w, uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	by_st32(p, type, w->swap);
	by_st16(p + 4, misc, w->swap);
	by_st16(p + 6, size, w->swap);
}

/* Cursor into w->rec for building one record. */
struct rcur {
	uint8_t *p;
	size_t len;
	bool overflow;
};

static uint8_t *rc_room(struct rcur *c, size_t n)
{
	if (c->overflow || n > PDW_REC_MAX - c->len) {
		c->overflow = true;
		return NULL;
	}
	uint8_t *at = c->p + c->len;
	c->len += n;
	return at;
}

static void rc_u64(struct rcur *c, uint64_t v, bool swap)
{
	uint8_t *at = rc_room(c, 8);
	if (at)
		by_st64(at, v, swap);
}

static void rc_u32x2(struct rcur *c, uint32_t a, uint32_t b, bool swap)
{
	uint8_t *at = rc_room(c, 8);
	if (at) {
		by_st32(at, a, swap);
		by_st32(at + 4, b, swap);
	}
}

/* n bytes from src (zeros when src is NULL), then zero padding to pad_to. */
static void rc_bytes(struct rcur *c, const void *src, size_t n, size_t pad_to)
{
	uint8_t *at = rc_room(c, pad_to);
	if (!at)
		return;
	if (src && n)
		memcpy(at, src, n);
	else
		n = 0;
	memset(at + n, 0, pad_to - n);
}

static int put_sample_body(const struct pdw *w, const struct pdf_attr *a, const struct pdr_sample *s,
			   struct rcur *c)
{
	uint64_t t = a->sample_type;
	bool sw = w->swap;

	if (t & PDF_SAMPLE_IDENTIFIER)
		rc_u64(c, s->id, sw);
	if (t & PDF_SAMPLE_IP)
		rc_u64(c, s->ip, sw);
	if (t & PDF_SAMPLE_TID)
		rc_u32x2(c, s->pid, s->tid, sw);
	if (t & PDF_SAMPLE_TIME)
		rc_u64(c, s->time, sw);
	if (t & PDF_SAMPLE_ADDR)
		rc_u64(c, s->addr, sw);
	if (t & PDF_SAMPLE_ID)
		rc_u64(c, s->id, sw);
	if (t & PDF_SAMPLE_STREAM_ID)
		rc_u64(c, s->stream_id, sw);
	if (t & PDF_SAMPLE_CPU)
		rc_u32x2(c, s->cpu, 0, sw);
	if (t & PDF_SAMPLE_PERIOD)
		rc_u64(c, s->period, sw);
	if (t & PDF_SAMPLE_READ) {
		/* Already in target order; its size must match read_format. */
		size_t n = s->read_size;
		if (!s->read || n < 8)
			return -EINVAL;
		uint64_t nr = (a->read_format & PDF_FORMAT_GROUP) ? by_ld64(s->read, sw) : 0;
		if (nr > PDW_REC_MAX / 8 || pdr_read_size(a->read_format, nr) != n)
			return -EINVAL;
		rc_bytes(c, s->read, n, n);
	}
	if (t & PDF_SAMPLE_CALLCHAIN) {
		if (s->callchain_nr > PDW_REC_MAX / 8 || (s->callchain_nr && !s->callchain))
			return -EINVAL;
		rc_u64(c, s->callchain_nr, sw);
		rc_bytes(c, s->callchain, (size_t)s->callchain_nr * 8, (size_t)s->callchain_nr * 8);
	}
	if (t & PDF_SAMPLE_RAW) {
		/* u32 size + data padded so the pair ends on a u64 boundary;
		 * like the kernel, the stored size includes the padding. */
		size_t n = s->raw_size;
		if (n > PDW_REC_MAX || (n && !s->raw))
			return -EINVAL;
		size_t padded = pad8(4 + n) - 4;
		uint8_t *at = rc_room(c, 4);
		if (at)
			by_st32(at, (uint32_t)padded, sw);
		rc_bytes(c, s->raw, n, padded);
	}
	if (t & PDF_SAMPLE_BRANCH_STACK) {
		if (s->branch_nr > PDW_REC_MAX / 24 || (s->branch_nr && !s->branch))
			return -EINVAL;
		size_t n = (size_t)s->branch_nr;
		rc_u64(c, s->branch_nr, sw);
		if (a->branch_sample_type & PDF_BRANCH_HW_INDEX)
			rc_u64(c, s->branch_hw_idx, sw);
		rc_bytes(c, s->branch, n * 24, n * 24);
		/* struct pdr_sample carries no branch counters: written as 0. */
		if (a->branch_sample_type & PDF_BRANCH_COUNTERS)
			rc_bytes(c, NULL, 0, n * 8);
	}
	if (t & PDF_SAMPLE_REGS_USER) {
		rc_u64(c, s->user_regs_abi, sw);
		if (s->user_regs_abi) {
			size_t n = 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
			if (n && !s->user_regs)
				return -EINVAL;
			rc_bytes(c, s->user_regs, n, n);
		}
	}
	if (t & PDF_SAMPLE_STACK_USER) {
		if (s->user_stack_size > PDW_REC_MAX || (s->user_stack_size && !s->user_stack))
			return -EINVAL;
		size_t n = (size_t)s->user_stack_size;
		rc_u64(c, pad8(n), sw);
		if (n) {
			rc_bytes(c, s->user_stack, n, pad8(n));
			rc_u64(c, s->user_stack_dyn_size, sw);
		}
	}
	if (t & (PDF_SAMPLE_WEIGHT | PDF_SAMPLE_WEIGHT_STRUCT))
		rc_u64(c, s->weight, sw);
	if (t & PDF_SAMPLE_DATA_SRC)
		rc_u64(c, s->data_src, sw);
	if (t & PDF_SAMPLE_TRANSACTION)
		rc_u64(c, s->transaction, sw);
	if (t & PDF_SAMPLE_REGS_INTR) {
		rc_u64(c, s->intr_regs_abi, sw);
		if (s->intr_regs_abi) {
			size_t n = 8 * (size_t)__builtin_popcountll(a->sample_regs_intr);
			if (n && !s->intr_regs)
				return -EINVAL;
			rc_bytes(c, s->intr_regs, n, n);
		}
	}
	if (t & PDF_SAMPLE_PHYS_ADDR)
		rc_u64(c, s->phys_addr, sw);
	if (t & PDF_SAMPLE_CGROUP)
		rc_u64(c, s->cgroup, sw);
	if (t & PDF_SAMPLE_DATA_PAGE_SIZE)
		rc_u64(c, s->data_page_size, sw);
	if (t & PDF_SAMPLE_CODE_PAGE_SIZE)
		rc_u64(c, s->code_page_size, sw);
	if (t & PDF_SAMPLE_AUX) {
		if (s->aux_size > PDW_REC_MAX || (s->aux_size && !s->aux))
			return -EINVAL;
		size_t n = (size_t)s->aux_size;
		rc_u64(c, pad8(n), sw);
		rc_bytes(c, s->aux, n, pad8(n));
	}
	return c->overflow ? -E2BIG : 0;
}

/* The sample_id_all trailer, in the kernel's order. */
static void put_trailer(const struct pdw *w, const struct pdf_attr *a, const struct pdr_sample *s,
			struct rcur *c)
{
	uint64_t t = a->sample_type;
	bool sw = w->swap;

	if (!pdf_attr_flag(a, PDF_ATTR_FLAG_SAMPLE_ID_ALL))
		return;
	if (t & PDF_SAMPLE_TID)
		rc_u32x2(c, s->pid, s->tid, sw);
	if (t & PDF_SAMPLE_TIME)
		rc_u64(c, s->time, sw);
	if (t & PDF_SAMPLE_ID)
		rc_u64(c, s->id, sw);
	if (t & PDF_SAMPLE_STREAM_ID)
		rc_u64(c, s->stream_id, sw);
	if (t & PDF_SAMPLE_CPU)
		rc_u32x2(c, s->cpu, 0, sw);
	if (t & PDF_SAMPLE_IDENTIFIER)
		rc_u64(c, s->id, sw);
}

/* Emit w->rec[0..len) as one record (header filled in here). */
static int emit_rec(struct pdw *w, uint32_t type, uint16_t misc, size_t len)
{
	if (len > PDW_REC_MAX || (len & 7))
		return -E2BIG;
	put_hdr(w, w->rec, type, misc, (uint16_t)len);
	return out(w, w->rec, len);
}

/* ---------------------------------------------------------------- features */

static int feat_set(struct pdw *w, int feat, struct gbuf *b);

static void *memdup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

static void build_event_desc(const struct pdw *w, struct gbuf *b)
{
	gb_u32(b, (uint32_t)w->nr_evsels, w->swap);
	gb_u32(b, w->attr_size, w->swap);
	for (size_t i = 0; i < w->nr_evsels; i++) {
		const struct pdw_evsel *e = &w->evsels[i];
		uint8_t *at = gb_room(b, w->attr_size);
		if (at)
			encode_attr(w, &e->attr, at);
		gb_u32(b, (uint32_t)e->nr_ids, w->swap);
		gb_string(b, e->name ? e->name : "", w->swap);
		for (size_t j = 0; j < e->nr_ids; j++)
			gb_u64(b, e->ids[j], w->swap);
	}
}

/* Payload of feature `feat` as it is to be written now, in *b (malloc'd by
 * the gbuf; caller frees b->p).  Returns false when the feature is absent. */
static bool feat_payload(const struct pdw *w, int feat, struct gbuf *b)
{
	if (feat == PDF_FEAT_EVENT_DESC && !w->feat[feat].set) {
		build_event_desc(w, b);
		return true;
	}
	if (feat == PDF_FEAT_SAMPLE_TIME && !w->feat[feat].set && w->have_time) {
		gb_u64(b, w->first_ns, w->swap);
		gb_u64(b, w->last_ns, w->swap);
		return true;
	}
	if (feat == PDF_FEAT_AUXTRACE && !w->feat[feat].set && w->nr_aux && !w->pipe) {
		gb_u64(b, w->nr_aux, w->swap);
		for (size_t i = 0; i < 2 * w->nr_aux; i++)
			gb_u64(b, w->aux_index[i], w->swap);
		return true;
	}
	if (!w->feat[feat].set)
		return false;
	gb_put(b, w->feat[feat].data, w->feat[feat].len);
	return true;
}

/* Pipe mode: HEADER_FEATURE {u64 feat_id, payload}, padded to 8. */
static int emit_feature_record(struct pdw *w, int feat, const void *payload, size_t len)
{
	size_t size = pad8(16 + len);
	if (size > PDW_REC_MAX)
		return set_err(w, -E2BIG);
	uint8_t hdr[16];
	put_hdr(w, hdr, PDF_RECORD_HEADER_FEATURE, 0, (uint16_t)size);
	by_st64(hdr + 8, (uint64_t)feat, w->swap);
	int err = out(w, hdr, sizeof(hdr));
	if (!err)
		err = out(w, payload, len);
	if (!err)
		err = out_zeros(w, size - 16 - len);
	return err;
}

/* Pipe mode: HEADER_TRACING_DATA {u32 size, u32 pad} + blob padded to 8. */
static int emit_tracing_data_record(struct pdw *w, const void *blob, size_t len)
{
	size_t padded = pad8(len);
	if (padded > UINT32_MAX)
		return set_err(w, -E2BIG);
	uint8_t hdr[16];
	put_hdr(w, hdr, PDF_RECORD_HEADER_TRACING_DATA, 0, sizeof(hdr));
	by_st32(hdr + 8, (uint32_t)padded, w->swap);
	by_st32(hdr + 12, 0, w->swap);
	int err = out(w, hdr, sizeof(hdr));
	if (!err)
		err = out(w, blob, len);
	if (!err)
		err = out_zeros(w, padded - len);
	return err;
}

static int emit_attr_record(struct pdw *w, const struct pdw_evsel *e)
{
	size_t size = 8 + w->attr_size + 8 * e->nr_ids;
	if (size > PDW_REC_MAX)
		return -E2BIG;
	struct rcur c = { .p = w->rec, .len = 8 };
	uint8_t *at = rc_room(&c, w->attr_size);
	if (at)
		encode_attr(w, &e->attr, at);
	for (size_t i = 0; i < e->nr_ids; i++)
		rc_u64(&c, e->ids[i], w->swap);
	if (c.overflow)
		return -E2BIG;
	return emit_rec(w, PDF_RECORD_HEADER_ATTR, 0, c.len);
}

/* Store a feature payload (target order); in pipe mode after begin_data the
 * record goes out at once. */
static int feat_set(struct pdw *w, int feat, struct gbuf *b)
{
	if (b->err) {
		free(b->p);
		return b->err;
	}
	if (feat <= 0 || feat >= PDF_FEAT_BITS) {
		free(b->p);
		return -EINVAL;
	}
	struct pdw_blob *f = &w->feat[feat];
	free(f->data);
	f->data = b->p ? b->p : malloc(1);
	f->len = b->len;
	f->set = f->data != NULL;
	if (!f->set)
		return -ENOMEM;
	if (w->pipe && w->begun) {
		if (feat == PDF_FEAT_TRACING_DATA)
			return emit_tracing_data_record(w, f->data, f->len);
		return emit_feature_record(w, feat, f->data, f->len);
	}
	return 0;
}

/* ------------------------------------------------------------------- open */

static bool valid_attr_size(uint32_t s)
{
	switch (s) {
	case PDF_ATTR_VER0: case PDF_ATTR_VER1: case PDF_ATTR_VER2: case PDF_ATTR_VER3:
	case PDF_ATTR_VER4: case PDF_ATTR_VER5: case PDF_ATTR_VER6: case PDF_ATTR_VER7:
	case PDF_ATTR_VER8:
		return true;
	}
	return false;
}

int pdw_open_fd(struct pdw **wp, int fd, bool owns_fd, const struct pdw_opts *opts)
{
	static const struct pdw_opts defaults;
	if (!wp)
		return -EINVAL;
	*wp = NULL;
	if (!opts)
		opts = &defaults;
	/* Default VER7 (128): perf before 6.3 rejects a larger attr ("more
	 * recent and unsupported ABI"); VER8 only when an evsel needs config3. */
	uint32_t asz = opts->attr_size ? opts->attr_size : PDF_ATTR_VER7;
	if (fd < 0 || !valid_attr_size(asz))
		return -EINVAL;
	if (!opts->pipe) {
		off_t cur = lseek(fd, 0, SEEK_CUR);
		if (cur < 0)
			return -ESPIPE;
		if (cur != 0)
			return -EINVAL;	/* offsets in the file are absolute */
	}
	struct pdw *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->owns_fd = owns_fd;
	w->pipe = opts->pipe;
	w->big_endian = opts->big_endian;
	w->swap = opts->big_endian != (bool)BY_HOST_BIG_ENDIAN;
	w->attr_size = asz;
	w->attr_size_auto = !opts->attr_size;
	w->ckpt = opts->checkpoint && !opts->pipe;
	w->ckpt_every_ns = opts->checkpoint_ns ? opts->checkpoint_ns : PDW_CHECKPOINT_NS;
	*wp = w;
	return 0;
}

int pdw_open(struct pdw **wp, const char *path, const struct pdw_opts *opts)
{
	if (!wp || !path)
		return -EINVAL;
	*wp = NULL;
	if (!strcmp(path, "-"))
		return pdw_open_fd(wp, STDOUT_FILENO, false, opts);
	struct so_file *sf = NULL;
	int err = so_open(&sf, AT_FDCWD, path, 0600, opts && opts->force ? SO_FORCE : 0);
	if (err)
		return err;
	err = pdw_open_fd(wp, so_fd(sf), false, opts);
	if (err) {
		so_abort(sf);
		return err;
	}
	(*wp)->sf = sf;
	return 0;
}

bool pdw_needs_swap(const struct pdw *w)
{
	return w && w->swap;
}

/* ----------------------------------------------------------------- evsels */

int pdw_add_evsel(struct pdw *w, const struct pdf_attr *attr, const char *name,
		  const uint64_t *ids, size_t nr_ids)
{
	if (!w || !attr || (nr_ids && !ids))
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->begun && !w->pipe)
		return -EBUSY;		/* the attrs section is already written */
	if (attr->config3 && w->attr_size < PDF_ATTR_VER8) {
		if (!w->attr_size_auto || w->begun)
			return -EINVAL;	/* config3 would be lost */
		w->attr_size = PDF_ATTR_VER8;
		for (size_t i = 0; i < w->nr_evsels; i++)
			w->evsels[i].attr.size = w->attr_size;
	}
	if (w->nr_evsels >= INT32_MAX || nr_ids > (PDW_REC_MAX - 8 - PDF_ATTR_MAX) / 8)
		return -E2BIG;
	if (w->nr_evsels == w->cap_evsels) {
		size_t cap = w->cap_evsels ? 2 * w->cap_evsels : 8;
		struct pdw_evsel *n = realloc(w->evsels, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->evsels = n;
		w->cap_evsels = cap;
	}
	struct pdw_evsel *e = &w->evsels[w->nr_evsels];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = w->attr_size;
	e->name = name ? strdup(name) : NULL;
	e->ids = memdup(ids, nr_ids * sizeof(*ids));
	e->nr_ids = nr_ids;
	if ((name && !e->name) || !e->ids) {
		free(e->name);
		free(e->ids);
		return -ENOMEM;
	}
	int idx = (int)w->nr_evsels++;
	if (w->pipe && w->begun) {
		/* Late evsel in a stream: its HEADER_ATTR, then a fresh
		 * EVENT_DESC so readers learn its name. */
		int err = emit_attr_record(w, e);
		if (!err && !w->feat[PDF_FEAT_EVENT_DESC].set) {
			struct gbuf b = { 0 };
			build_event_desc(w, &b);
			err = b.err ? b.err : emit_feature_record(w, PDF_FEAT_EVENT_DESC, b.p, b.len);
			free(b.p);
		}
		if (err)
			return set_err(w, err);
	}
	return idx;
}

/* --------------------------------------------------------------- features */

int pdw_set_tracing_data(struct pdw *w, const void *blob, size_t len)
{
	if (!w || (len && !blob) || len > UINT32_MAX - 8)
		return -EINVAL;		/* the pipe record stores a u32 size */
	struct gbuf b = { 0 };
	gb_put(&b, blob, len);
	return feat_set(w, PDF_FEAT_TRACING_DATA, &b);
}

int pdw_set_string_feature(struct pdw *w, int feat, const char *s)
{
	if (!w || !s)
		return -EINVAL;
	switch (feat) {
	case PDF_FEAT_HOSTNAME: case PDF_FEAT_OSRELEASE: case PDF_FEAT_VERSION:
	case PDF_FEAT_ARCH: case PDF_FEAT_CPUDESC: case PDF_FEAT_CPUID:
		break;
	default:
		return -EINVAL;
	}
	struct gbuf b = { 0 };
	gb_string(&b, s, w->swap);
	return feat_set(w, feat, &b);
}

int pdw_set_nrcpus(struct pdw *w, uint32_t avail, uint32_t online)
{
	if (!w)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u32(&b, avail, w->swap);
	gb_u32(&b, online, w->swap);
	return feat_set(w, PDF_FEAT_NRCPUS, &b);
}

int pdw_set_cmdline(struct pdw *w, int argc, const char *const *argv)
{
	if (!w || argc < 0 || (argc && !argv))
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u32(&b, (uint32_t)argc, w->swap);
	for (int i = 0; i < argc; i++)
		gb_string(&b, argv[i] ? argv[i] : "", w->swap);
	return feat_set(w, PDF_FEAT_CMDLINE, &b);
}

int pdw_set_sample_time(struct pdw *w, uint64_t first_ns, uint64_t last_ns)
{
	if (!w)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u64(&b, first_ns, w->swap);
	gb_u64(&b, last_ns, w->swap);
	return feat_set(w, PDF_FEAT_SAMPLE_TIME, &b);
}

int pdw_set_raw_feature(struct pdw *w, int feat, const void *payload, size_t len)
{
	if (!w || (len && !payload) || feat <= 0 || feat >= PDF_FEAT_BITS)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_put(&b, payload, len);
	return feat_set(w, feat, &b);
}

/* HOSTNAME must be present: a reader of a byte-swapped file checks that bit
 * to guess how the feature bitmap was stored. */
static int default_hostname(struct pdw *w)
{
	if (w->feat[PDF_FEAT_HOSTNAME].set)
		return 0;
	struct utsname u;
	if (uname(&u) < 0)
		return pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "unknown");
	return pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, u.nodename);
}

/* ---------------------------------------------------------------- header */

static void encode_file_header(const struct pdw *w, uint8_t *h, uint64_t attrs_off, uint64_t data_off,
			       uint64_t data_size, const uint64_t feat_bits[PDF_FEAT_BITS / 64])
{
	bool s = w->swap;
	memset(h, 0, PDF_FILE_HEADER_SIZE);
	by_st64(h + 0, PDF_MAGIC2, s);
	by_st64(h + 8, PDF_FILE_HEADER_SIZE, s);
	by_st64(h + 16, (uint64_t)w->attr_size + 16, s);
	by_st64(h + 24, attrs_off, s);
	by_st64(h + 32, (uint64_t)w->nr_evsels * (w->attr_size + 16), s);
	by_st64(h + 40, data_off, s);
	by_st64(h + 48, data_size, s);
	/* event_types {0, 0} at 56 */
	for (int i = 0; i < PDF_FEAT_BITS / 64; i++)
		by_st64(h + 72 + 8 * i, feat_bits[i], s);
}

/* The features set so far as HEADER_FEATURE records, then the tracing data
 * as a HEADER_TRACING_DATA record: a pipe's header, and the prefix of a
 * checkpointed file's data. */
static int emit_header_records(struct pdw *w)
{
	int err = 0;
	for (int f = 1; !err && f < PDF_FEAT_BITS; f++) {
		if (f == PDF_FEAT_TRACING_DATA || f == PDF_FEAT_AUXTRACE)
			continue;	/* no pipe-mode feature record in perf */
		struct gbuf b = { 0 };
		if (feat_payload(w, f, &b))
			err = b.err ? b.err : emit_feature_record(w, f, b.p ? b.p : (void *)"", b.len);
		free(b.p);
	}
	if (!err && w->feat[PDF_FEAT_TRACING_DATA].set)
		err = emit_tracing_data_record(w, w->feat[PDF_FEAT_TRACING_DATA].data,
					       w->feat[PDF_FEAT_TRACING_DATA].len);
	return err;
}

int pdw_begin_data(struct pdw *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->begun)
		return 0;
	int err = default_hostname(w);
	if (err)
		return set_err(w, err);
	w->begun = true;

	if (w->pipe) {
		uint8_t h[PDF_PIPE_HEADER_SIZE];
		by_st64(h, PDF_MAGIC2, w->swap);
		by_st64(h + 8, PDF_PIPE_HEADER_SIZE, w->swap);
		err = out(w, h, sizeof(h));
		for (size_t i = 0; !err && i < w->nr_evsels; i++)
			err = emit_attr_record(w, &w->evsels[i]);
		if (!err)
			err = emit_header_records(w);
		w->data_offset = w->pos;
		return set_err(w, err);
	}

	/* File mode: header placeholder, ids, attrs. */
	size_t nr_ids = 0;
	for (size_t i = 0; i < w->nr_evsels; i++)
		nr_ids += w->evsels[i].nr_ids;
	uint64_t ids_off = PDF_FILE_HEADER_SIZE;
	uint64_t attrs_off = ids_off + 8 * (uint64_t)nr_ids;
	w->data_offset = attrs_off + (uint64_t)w->nr_evsels * (w->attr_size + 16);

	uint64_t nofeat[PDF_FEAT_BITS / 64] = { 0 };
	uint8_t h[PDF_FILE_HEADER_SIZE];
	encode_file_header(w, h, attrs_off, w->data_offset, 0, nofeat);
	err = out(w, h, sizeof(h));
	for (size_t i = 0; !err && i < w->nr_evsels; i++) {
		const struct pdw_evsel *e = &w->evsels[i];
		for (size_t j = 0; !err && j < e->nr_ids; j++) {
			uint8_t v[8];
			by_st64(v, e->ids[j], w->swap);
			err = out(w, v, 8);
		}
	}
	uint64_t off = ids_off;
	for (size_t i = 0; !err && i < w->nr_evsels; i++) {
		const struct pdw_evsel *e = &w->evsels[i];
		encode_attr(w, &e->attr, w->rec);
		by_st64(w->rec + w->attr_size, off, w->swap);
		by_st64(w->rec + w->attr_size + 8, 8 * (uint64_t)e->nr_ids, w->swap);
		off += 8 * (uint64_t)e->nr_ids;
		err = out(w, w->rec, w->attr_size + 16);
	}
	w->header_area_done = true;
	if (!err && w->ckpt) {
		/* the features and formats must survive a kill (no feature
		 * section then): the stream's header records open the data */
		err = emit_header_records(w);
		w->td_in_data = true;
		w->td_end = w->pos;
	}
	return set_err(w, err);
}

static int ensure_begun(struct pdw *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	return w->begun ? 0 : pdw_begin_data(w);
}

/* --------------------------------------------------------------- records */

int pdw_write_record(struct pdw *w, uint32_t type, uint16_t misc, const void *body, size_t len)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if ((len && !body) || len > PDW_REC_MAX - 8)
		return -EINVAL;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_bytes(&c, body, len, pad8(len));
	if (c.overflow)
		return -E2BIG;
	return set_err(w, emit_rec(w, type, misc, c.len));
}

static void track_time(struct pdw *w, uint64_t t)
{
	if (!w->have_time) {
		w->first_ns = w->last_ns = t;
		w->have_time = true;
		return;
	}
	if (t < w->first_ns)
		w->first_ns = t;
	if (t > w->last_ns)
		w->last_ns = t;
}

int pdw_write_sample(struct pdw *w, int evsel, uint16_t misc, const struct pdr_sample *s)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if (!s || evsel < 0 || (size_t)evsel >= w->nr_evsels)
		return -EINVAL;
	const struct pdf_attr *a = &w->evsels[evsel].attr;
	struct rcur c = { .p = w->rec, .len = 8 };
	err = put_sample_body(w, a, s, &c);
	if (err)
		return err;
	if (a->sample_type & PDF_SAMPLE_TIME)
		track_time(w, s->time);
	return set_err(w, emit_rec(w, PDF_RECORD_SAMPLE, misc, c.len));
}

int pdw_write_with_trailer(struct pdw *w, int evsel, uint32_t type, uint16_t misc,
			   const void *body, size_t len, const struct pdr_sample *s)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if (!s || evsel < 0 || (size_t)evsel >= w->nr_evsels || (len && !body) ||
	    len > PDW_REC_MAX)
		return -EINVAL;
	const struct pdf_attr *a = &w->evsels[evsel].attr;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_bytes(&c, body, len, pad8(len));
	put_trailer(w, a, s, &c);
	if (c.overflow)
		return -E2BIG;
	return set_err(w, emit_rec(w, type, misc, c.len));
}

/* A task's name from path into comm (15 characters at most, as the kernel's). */
static bool read_comm(int dirfd, const char *path, char comm[16])
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, comm, 15);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return true;
}

int pdw_write_task_comms(struct pdw *w, int evsel, const char *procfs)
{
	if (!w || evsel < 0 || (size_t)evsel >= w->nr_evsels)
		return -EINVAL;
	DIR *d = opendir(procfs ? procfs : "/proc");
	if (!d)
		return -errno;
	const struct pdw_evsel *e = &w->evsels[evsel];
	int err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		char *end, path[64];
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid || pid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%lu/task", pid);
		int tfd = openat(dirfd(d), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *td = tfd >= 0 ? fdopendir(tfd) : NULL;
		if (!td) {
			if (tfd >= 0)
				close(tfd);
			continue;	/* gone */
		}
		struct dirent *te;
		while (!err && (te = readdir(td))) {
			unsigned long tid = strtoul(te->d_name, &end, 10);
			char comm[16], cpath[48];
			if (*end || !tid || tid > INT32_MAX)
				continue;
			snprintf(cpath, sizeof(cpath), "%lu/comm", tid);
			if (!read_comm(dirfd(td), cpath, comm))
				continue;
			uint8_t body[8 + 16];
			size_t len = 8 + strlen(comm) + 1;
			by_st32(body, (uint32_t)pid, w->swap);
			by_st32(body + 4, (uint32_t)tid, w->swap);
			memcpy(body + 8, comm, strlen(comm) + 1);
			struct pdr_sample s = { .pid = (uint32_t)pid, .tid = (uint32_t)tid,
						.id = e->nr_ids ? e->ids[0] : 0 };
			err = pdw_write_with_trailer(w, evsel, PDF_RECORD_COMM, 0, body, len, &s);
		}
		closedir(td);
	}
	closedir(d);
	return err;
}

int pdw_write_auxtrace(struct pdw *w, const struct pdr_auxtrace *a, const void *payload, size_t len)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if (w->zstage)
		return -EINVAL;	/* AUX data is never compressed */
	if (!a || (len && !payload) || len > ((size_t)1 << 48))
		return -EINVAL;
	if (!w->pipe && w->nr_aux == w->cap_aux) {
		size_t cap = w->cap_aux ? 2 * w->cap_aux : 64;
		uint64_t *n = realloc(w->aux_index, cap * 2 * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->aux_index = n;
		w->cap_aux = cap;
	}
	uint64_t rec_off = w->pos;
	uint8_t *p = w->rec;
	put_hdr(w, p, PDF_RECORD_AUXTRACE, 0, PDF_AUXTRACE_RECORD_SIZE);
	by_st64(p + 8, pad8(len), w->swap);
	by_st64(p + 16, a->offset, w->swap);
	by_st64(p + 24, a->reference, w->swap);
	by_st32(p + 32, a->idx, w->swap);
	by_st32(p + 36, a->tid, w->swap);
	by_st32(p + 40, a->cpu, w->swap);
	by_st32(p + 44, 0, w->swap);
	err = out(w, p, PDF_AUXTRACE_RECORD_SIZE);
	if (!err)
		err = out(w, payload, len);
	if (!err)
		err = out_zeros(w, pad8(len) - len);
	if (err)
		return set_err(w, err);
	if (!w->pipe) {
		w->aux_index[2 * w->nr_aux] = rec_off;
		w->aux_index[2 * w->nr_aux + 1] = PDF_AUXTRACE_RECORD_SIZE;
		w->nr_aux++;
	}
	return 0;
}

int pdw_write_auxtrace_info(struct pdw *w, uint32_t type, const uint64_t *priv, size_t nr_priv)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if ((nr_priv && !priv) || nr_priv > (PDW_REC_MAX - 16) / 8)
		return -EINVAL;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_u32x2(&c, type, 0, w->swap);
	for (size_t i = 0; i < nr_priv; i++)
		rc_u64(&c, priv[i], w->swap);
	return set_err(w, emit_rec(w, PDF_RECORD_AUXTRACE_INFO, 0, c.len));
}

int pdw_compress_begin(struct pdw *w, int level)
{
	int err = ensure_begun(w);

	if (err)
		return err;
	if (w->zstage)
		return -EINVAL;
	if (!w->cctx && !(w->cctx = ZSTD_createCCtx()))
		return set_err(w, -ENOMEM);
	w->zlevel = level;
	w->zstage = true;
	w->zlen = 0;
	return 0;
}

/* Group staged records into pieces that compress under 64 KiB, whole records each. */
int pdw_compress_end(struct pdw *w)
{
	const size_t piece_max = 32768;	/* ZSTD_compressBound(32 KiB) + 8 < 65536 */
	uint8_t cbuf[8 + 40000];
	size_t off = 0;
	int err = 0;

	if (!w->zstage)
		return -EINVAL;
	w->zstage = false;
	while (!err && off < w->zlen) {
		size_t end = off;
		while (end < w->zlen) {
			uint16_t rs = by_ld16(w->zbuf + end + 6, w->swap);
			if (rs < 8 || end + rs > w->zlen)
				return set_err(w, -EINVAL);	/* a staged record is broken */
			if (end > off && end + rs - off > piece_max)
				break;
			end += rs;
		}
		size_t c = ZSTD_compressCCtx(w->cctx, cbuf + 8, sizeof(cbuf) - 8, w->zbuf + off, end - off,
					     w->zlevel);
		if (ZSTD_isError(c) || c + 8 > 65535)
			return set_err(w, -EOVERFLOW);
		put_hdr(w, cbuf, PDF_RECORD_COMPRESSED, 0, (uint16_t)(c + 8));
		err = out(w, cbuf, c + 8);
		w->z_in += end - off;
		w->z_out += c + 8;
		off = end;
	}
	w->zlen = 0;
	if (!err && !w->pipe) {
		uint8_t f[20];
		by_st32(f, 1, w->swap);			/* version */
		by_st32(f + 4, 1, w->swap);		/* PERF_COMP_ZSTD */
		by_st32(f + 8, (uint32_t)w->zlevel, w->swap);
		by_st32(f + 12, w->z_out ? (uint32_t)(w->z_in / w->z_out) : 1, w->swap);
		by_st32(f + 16, 528384, w->swap);	/* perf's default mmap_len */
		err = pdw_set_raw_feature(w, PDF_FEAT_COMPRESSED, f, sizeof(f));
	}
	return err;
}

int pdw_finished_round(struct pdw *w)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	return set_err(w, emit_rec(w, PDF_RECORD_FINISHED_ROUND, 0, 8));
}

/* ------------------------------------------------------------------ close */

/* The file header, in place at offset 0 (file mode, data already flushed). */
static int rewrite_header(struct pdw *w, uint64_t data_off, uint64_t data_size,
			  const uint64_t bits[PDF_FEAT_BITS / 64])
{
	uint8_t h[PDF_FILE_HEADER_SIZE];
	size_t nr_ids = 0;
	for (size_t i = 0; i < w->nr_evsels; i++)
		nr_ids += w->evsels[i].nr_ids;
	encode_file_header(w, h, PDF_FILE_HEADER_SIZE + 8 * (uint64_t)nr_ids, data_off, data_size, bits);
	ssize_t r;
	do
		r = pwrite(w->fd, h, sizeof(h), 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == (ssize_t)sizeof(h) ? 0 : -EIO;
}

/* The feature section after the data, then the final header.  The data
 * section starts after the header records written for checkpoints: perf
 * reads the formats from the feature and fails on a second copy. */
static int write_features(struct pdw *w)
{
	uint64_t data_off = w->td_in_data ? w->td_end : w->data_offset;
	uint64_t data_size = w->pos - data_off;
	uint64_t bits[PDF_FEAT_BITS / 64] = { 0 };
	struct gbuf pay[PDF_FEAT_BITS];
	size_t nr = 0;
	int err = 0;

	memset(pay, 0, sizeof(pay));
	for (int f = 1; f < PDF_FEAT_BITS; f++) {
		if (feat_payload(w, f, &pay[f])) {
			if (pay[f].err && !err)
				err = pay[f].err;
			bits[f / 64] |= 1ULL << (f % 64);
			nr++;
		}
	}
	/* Table at data end, payloads after it, each 8-aligned. */
	uint64_t table_off = w->pos;
	uint64_t off = table_off + 16 * (uint64_t)nr;
	for (int f = 1; !err && f < PDF_FEAT_BITS; f++) {
		if (!((bits[f / 64] >> (f % 64)) & 1))
			continue;
		uint8_t e[16];
		by_st64(e, off, w->swap);
		by_st64(e + 8, pay[f].len, w->swap);
		err = out(w, e, sizeof(e));
		off += pad8(pay[f].len);
	}
	for (int f = 1; !err && f < PDF_FEAT_BITS; f++) {
		if (!((bits[f / 64] >> (f % 64)) & 1))
			continue;
		err = out(w, pay[f].p, pay[f].len);
		if (!err)
			err = out_zeros(w, pad8(pay[f].len) - pay[f].len);
	}
	for (int f = 0; f < PDF_FEAT_BITS; f++)
		free(pay[f].p);
	if (!err)
		err = flush(w);
	if (err)
		return set_err(w, err);

	return set_err(w, rewrite_header(w, data_off, data_size, bits));
}

int pdw_checkpoint(struct pdw *w, bool force)
{
	int err = ensure_begun(w);
	if (err)
		return err;
	if (!w->ckpt)
		return 0;
	if (w->zstage)
		return -EBUSY;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (!force && now < w->ckpt_next_ns)
		return 0;
	w->ckpt_next_ns = now + w->ckpt_every_ns;
	/* data first, then the header that covers it: a kill between the two
	 * leaves the previous checkpoint's header, still true */
	uint64_t nofeat[PDF_FEAT_BITS / 64] = { 0 };
	err = flush(w);
	if (!err)
		err = set_err(w, rewrite_header(w, w->data_offset, w->pos - w->data_offset, nofeat));
	if (!err && w->sf)
		err = set_err(w, so_publish(w->sf));
	return err;
}

void pdw_discard(struct pdw *w)
{
	if (!w)
		return;
	w->discard = true;
	if (!w->err)
		w->err = -ECANCELED;
	pdw_close(w);
}

int pdw_close(struct pdw *w)
{
	if (!w)
		return 0;
	int err = w->err;
	if (!err && !w->begun)
		err = pdw_begin_data(w);
	if (!err && !w->pipe)
		err = write_features(w);
	if (!err)
		err = flush(w);
	if (!err)
		err = w->err;
	if (w->owns_fd && close(w->fd) < 0 && !err)
		err = -errno;
	if (w->sf) {
		if (err || w->discard) {
			so_abort(w->sf);
		} else {
			int e = so_commit(w->sf);
			if (e)
				err = e;
		}
	}
	for (size_t i = 0; i < w->nr_evsels; i++) {
		free(w->evsels[i].name);
		free(w->evsels[i].ids);
	}
	free(w->evsels);
	for (int f = 0; f < PDF_FEAT_BITS; f++)
		free(w->feat[f].data);
	free(w->aux_index);
	free(w->zbuf);
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	free(w);
	return err;
}

/* ------------------------------------------------------- tracing data blob */

/* The kernel's events/header_event text (ring-buffer ABI, never parsed by
 * readers; written for fidelity with tracefs). */
static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static void td_text8(struct gbuf *b, const char *s, bool swap)
{
	size_t n = s ? strlen(s) : 0;
	gb_u64(b, n, swap);
	gb_put(b, s, n);
}

int pdw_tracing_data_build(bool big_endian, uint32_t page_size, const char *header_page,
			   const struct pdw_tp_format *fmts, size_t nr, const char *printk_formats,
			   const char *saved_cmdlines, void **blob, size_t *len)
{
	static const uint8_t magic[3] = { 0x17, 0x08, 0x44 };
	bool sw = big_endian != (bool)BY_HOST_BIG_ENDIAN;
	struct gbuf b = { 0 };

	if (!blob || !len || (nr && !fmts))
		return -EINVAL;
	*blob = NULL;
	*len = 0;
	for (size_t i = 0; i < nr; i++)
		if (!fmts[i].system || !fmts[i].format)
			return -EINVAL;

	gb_put(&b, magic, sizeof(magic));
	gb_put(&b, "tracing", 7);
	gb_put(&b, "0.6", 4);
	uint8_t flags[2] = { big_endian ? 1 : 0, 8 };
	gb_put(&b, flags, 2);
	gb_u32(&b, page_size, sw);

	gb_put(&b, "header_page", 12);
	td_text8(&b, header_page, sw);
	gb_put(&b, "header_event", 13);
	td_text8(&b, header_event_text, sw);

	/* ftrace formats */
	uint32_t nftrace = 0;
	for (size_t i = 0; i < nr; i++)
		nftrace += !strcmp(fmts[i].system, "ftrace");
	gb_u32(&b, nftrace, sw);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(fmts[i].system, "ftrace"))
			td_text8(&b, fmts[i].format, sw);

	/* Event systems in order of first appearance. */
	uint32_t nsys = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(fmts[i].system, "ftrace"))
			continue;
		size_t j;
		for (j = 0; j < i; j++)
			if (!strcmp(fmts[j].system, fmts[i].system))
				break;
		nsys += j == i;
	}
	gb_u32(&b, nsys, sw);
	for (size_t i = 0; i < nr; i++) {
		const char *sys = fmts[i].system;
		if (!strcmp(sys, "ftrace"))
			continue;
		size_t j;
		for (j = 0; j < i; j++)
			if (!strcmp(fmts[j].system, sys))
				break;
		if (j < i)
			continue;
		gb_put(&b, sys, strlen(sys) + 1);
		uint32_t nev = 0;
		for (j = i; j < nr; j++)
			nev += !strcmp(fmts[j].system, sys);
		gb_u32(&b, nev, sw);
		for (j = i; j < nr; j++)
			if (!strcmp(fmts[j].system, sys))
				td_text8(&b, fmts[j].format, sw);
	}

	gb_u32(&b, 0, sw);		/* kallsyms: none */
	size_t np = printk_formats ? strlen(printk_formats) : 0;
	if (np > UINT32_MAX)
		b.err = -E2BIG;
	gb_u32(&b, (uint32_t)np, sw);
	gb_put(&b, printk_formats, np);
	td_text8(&b, saved_cmdlines, sw);

	if (b.err) {
		free(b.p);
		return b.err;
	}
	*blob = b.p;
	*len = b.len;
	return 0;
}
