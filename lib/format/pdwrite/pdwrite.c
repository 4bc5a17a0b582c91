/* SPDX-License-Identifier: MIT */
/*
 * pdwrite.c - perf.data writer (file and pipe mode, either byte order).
 *
 * File mode layout:
 *	[file header, 104 bytes][ids of every evsel][attrs section][data ...]
 *	[feature table: {u64 offset, u64 size} per set bit][feature payloads]
 * The header is written with a zero data size by pdwrite_begin_data() and
 * rewritten in place by pdwrite_close().
 *
 * With checkpoints (opts.checkpoint, pdwrite_checkpoint):
 *	[header][ids][attrs][feature payloads known at pdwrite_begin_data()]
 *	[data ...][table record 1][data ...][table record 2][data ...]
 * Each checkpoint appends a table record (lib/format/pdformat.h,
 * PDFORMAT_CKPT_MAGIC: a HEADER_EVENT_TYPE record, perf skips it, whose
 * bytes are the feature table of a header with bit 0 set; slots point at
 * the payloads before the data, or inside the record) and then rewrites
 * the header: data size = up to that record.  The header is only ever
 * rewritten after the bytes it points at are on disk, and no byte is
 * written twice, so a kill at any moment leaves the last checkpoint's
 * recording whole.  pdwrite_close() writes the usual feature section after
 * the data (the table records stay in it, as records readers skip).
 *
 * Pipe mode: {magic, 16}, then HEADER_ATTR records, HEADER_FEATURE records
 * and HEADER_TRACING_DATA (+ blob), then the data records.  Features or
 * evsels set after pdwrite_begin_data() are emitted as records at once.
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
 *    feature records (perf sends neither in a pipe), and no record of a
 *    feature perf does not know (latscope's own, PDFORMAT_FEAT_LATSCOPE_*: perf
 *    6.1 stops at one);
 *  - HEADER_FEATURE records are padded to 8 bytes; HEADER_TRACING_DATA is
 *    {u32 size, u32 pad} (16 bytes) with size = blob length rounded up to 8.
 *
 * Every multi-byte field is stored through bytes_st*() with w->swap, so the
 * host order never leaks into the output.  Records are built in a scratch
 * buffer inside struct pdwrite (no per-record malloc) and go through a 64 KiB
 * output buffer; only the AUXTRACE index grows with the data (16 bytes per
 * AUXTRACE record, as perf's own index does).
 *
 * Files: pdwrite.c (output, open, evsels, header, close), pdwrite_rec.c
 * (encoding, the record writers), pdwrite_feat.c (features, the tracing
 * data blob), pdwrite_int.h (the state they share).
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

#include "base/bytes.h"
#include "pdwrite_int.h"
#include "base/safeout.h"

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

int pdwrite_set_err(struct pdwrite *w, int err)
{
	if (err && !w->err)
		w->err = err;
	return w->err ? w->err : err;
}

static int flush(struct pdwrite *w)
{
	if (w->err)
		return w->err;
	if (!w->buf_len)
		return 0;
	int err = write_all(w->fd, w->buf, w->buf_len);
	w->buf_len = 0;
	return pdwrite_set_err(w, err);
}

int pdwrite_out(struct pdwrite *w, const void *p, size_t n)
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
				return pdwrite_set_err(w, -ENOMEM);
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
				return pdwrite_set_err(w, err);
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

int pdwrite_out_zeros(struct pdwrite *w, size_t n)
{
	static const uint8_t zeros[64];
	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
		int err = pdwrite_out(w, zeros, k);
		if (err)
			return err;
		n -= k;
	}
	return 0;
}

size_t pdwrite_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ------------------------------------------------------------------- open */

static bool valid_attr_size(uint32_t s)
{
	switch (s) {
	case PDFORMAT_ATTR_VER0: case PDFORMAT_ATTR_VER1: case PDFORMAT_ATTR_VER2: case PDFORMAT_ATTR_VER3:
	case PDFORMAT_ATTR_VER4: case PDFORMAT_ATTR_VER5: case PDFORMAT_ATTR_VER6: case PDFORMAT_ATTR_VER7:
	case PDFORMAT_ATTR_VER8:
		return true;
	}
	return false;
}

int pdwrite_open_fd(struct pdwrite **wp, int fd, bool owns_fd, const struct pdwrite_opts *opts)
{
	static const struct pdwrite_opts defaults;
	if (!wp)
		return -EINVAL;
	*wp = NULL;
	if (!opts)
		opts = &defaults;
	/* Default VER7 (128): perf before 6.3 rejects a larger attr ("more
	 * recent and unsupported ABI"); VER8 only when an evsel needs config3. */
	uint32_t asz = opts->attr_size ? opts->attr_size : PDFORMAT_ATTR_VER7;
	if (fd < 0 || !valid_attr_size(asz))
		return -EINVAL;
	if (!opts->pipe) {
		off_t cur = lseek(fd, 0, SEEK_CUR);
		if (cur < 0)
			return -ESPIPE;
		if (cur != 0)
			return -EINVAL;	/* offsets in the file are absolute */
	}
	struct pdwrite *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->owns_fd = owns_fd;
	w->pipe = opts->pipe;
	w->big_endian = opts->big_endian;
	w->swap = opts->big_endian != (bool)BYTES_HOST_BIG_ENDIAN;
	w->attr_size = asz;
	w->attr_size_auto = !opts->attr_size;
	w->ckpt = opts->checkpoint && !opts->pipe;
	w->ckpt_every_ns = opts->checkpoint_ns ? opts->checkpoint_ns : PDWRITE_CHECKPOINT_NS;
	*wp = w;
	return 0;
}

int pdwrite_open(struct pdwrite **wp, const char *path, const struct pdwrite_opts *opts)
{
	if (!wp || !path)
		return -EINVAL;
	*wp = NULL;
	if (!strcmp(path, "-")) {
		/* standard output: a pipe (dtl record -o - | dtl report -i -)
		 * cannot seek back to the header, so it gets pipe mode, as
		 * perf record -o - writes it */
		struct pdwrite_opts po = opts ? *opts : (struct pdwrite_opts){ 0 };
		if (!po.pipe && lseek(STDOUT_FILENO, 0, SEEK_CUR) < 0 && errno == ESPIPE)
			po.pipe = true;
		return pdwrite_open_fd(wp, STDOUT_FILENO, false, &po);
	}
	struct safeout_file *sf = NULL;
	int err = safeout_open(&sf, AT_FDCWD, path, opts && opts->force ? SAFEOUT_FORCE : 0,
			       opts ? opts->refusal : NULL);
	if (err)
		return err;
	err = pdwrite_open_fd(wp, safeout_fd(sf), false, opts);
	if (err) {
		safeout_abort(sf);
		return err;
	}
	(*wp)->sf = sf;
	return 0;
}

bool pdwrite_needs_swap(const struct pdwrite *w)
{
	return w && w->swap;
}

/* ----------------------------------------------------------------- evsels */

int pdwrite_add_evsel(struct pdwrite *w, const struct pdformat_attr *attr, const char *name,
		  const uint64_t *ids, size_t nr_ids)
{
	if (!w || !attr || (nr_ids && !ids))
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->begun && !w->pipe)
		return -EBUSY;		/* the attrs section is already written */
	if (attr->config3 && w->attr_size < PDFORMAT_ATTR_VER8) {
		if (!w->attr_size_auto || w->begun)
			return -EINVAL;	/* config3 would be lost */
		w->attr_size = PDFORMAT_ATTR_VER8;
		for (size_t i = 0; i < w->nr_evsels; i++)
			w->evsels[i].attr.size = w->attr_size;
	}
	if (w->nr_evsels >= INT32_MAX || nr_ids > (PDWRITE_REC_MAX - 8 - PDFORMAT_ATTR_MAX) / 8)
		return -E2BIG;
	if (w->nr_evsels == w->cap_evsels) {
		size_t cap = w->cap_evsels ? 2 * w->cap_evsels : 8;
		struct pdwrite_evsel *n = realloc(w->evsels, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->evsels = n;
		w->cap_evsels = cap;
	}
	struct pdwrite_evsel *e = &w->evsels[w->nr_evsels];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = w->attr_size;
	e->name = name ? strdup(name) : NULL;
	e->ids = pdwrite_memdup(ids, nr_ids * sizeof(*ids));
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
		int err = pdwrite_emit_attr_record(w, e);
		if (!err && !w->feat[PDFORMAT_FEAT_EVENT_DESC].set) {
			struct gbuf b = { 0 };
			pdwrite_build_event_desc(w, &b);
			err = b.err ? b.err : pdwrite_emit_feature_record(w, PDFORMAT_FEAT_EVENT_DESC, b.p, b.len);
			free(b.p);
		}
		if (err)
			return pdwrite_set_err(w, err);
	}
	return idx;
}

/* ---------------------------------------------------------------- header */

static void encode_file_header(const struct pdwrite *w, uint8_t *h, uint64_t attrs_off, uint64_t data_off,
			       uint64_t data_size, const uint64_t feat_bits[PDFORMAT_FEAT_BITS / 64])
{
	bool s = w->swap;
	memset(h, 0, PDFORMAT_FILE_HEADER_SIZE);
	bytes_st64(h + 0, PDFORMAT_MAGIC2, s);
	bytes_st64(h + 8, PDFORMAT_FILE_HEADER_SIZE, s);
	bytes_st64(h + 16, (uint64_t)w->attr_size + 16, s);
	bytes_st64(h + 24, attrs_off, s);
	bytes_st64(h + 32, (uint64_t)w->nr_evsels * (w->attr_size + 16), s);
	bytes_st64(h + 40, data_off, s);
	bytes_st64(h + 48, data_size, s);
	/* event_types {0, 0} at 56 */
	for (int i = 0; i < PDFORMAT_FEAT_BITS / 64; i++)
		bytes_st64(h + 72 + 8 * i, feat_bits[i], s);
}

/* The features set so far as HEADER_FEATURE records, then the tracing data
 * as a HEADER_TRACING_DATA record: a pipe's header. */
static int emit_header_records(struct pdwrite *w)
{
	int err = 0;
	for (int f = 1; !err && f < PDFORMAT_FEAT_BITS; f++) {
		if (f == PDFORMAT_FEAT_TRACING_DATA || f == PDFORMAT_FEAT_AUXTRACE || !pdwrite_feat_in_stream(w, f))
			continue;	/* no pipe-mode feature record in perf */
		struct gbuf b = { 0 };
		if (pdwrite_feat_payload(w, f, &b))
			err = b.err ? b.err : pdwrite_emit_feature_record(w, f, b.p ? b.p : (void *)"", b.len);
		free(b.p);
	}
	if (!err && w->feat[PDFORMAT_FEAT_TRACING_DATA].set)
		err = pdwrite_emit_tracing_data_record(w, w->feat[PDFORMAT_FEAT_TRACING_DATA].data,
						   w->feat[PDFORMAT_FEAT_TRACING_DATA].len);
	return err;
}

int pdwrite_begin_data(struct pdwrite *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->begun)
		return 0;
	int err = pdwrite_default_hostname(w);
	if (err)
		return pdwrite_set_err(w, err);
	w->begun = true;

	if (w->pipe) {
		uint8_t h[PDFORMAT_PIPE_HEADER_SIZE];
		bytes_st64(h, PDFORMAT_MAGIC2, w->swap);
		bytes_st64(h + 8, PDFORMAT_PIPE_HEADER_SIZE, w->swap);
		err = pdwrite_out(w, h, sizeof(h));
		for (size_t i = 0; !err && i < w->nr_evsels; i++)
			err = pdwrite_emit_attr_record(w, &w->evsels[i]);
		if (!err)
			err = emit_header_records(w);
		w->data_offset = w->pos;
		return pdwrite_set_err(w, err);
	}

	/* File mode: header placeholder, ids, attrs (then, for checkpoints,
	 * the feature payloads known now). */
	size_t nr_ids = 0;
	for (size_t i = 0; i < w->nr_evsels; i++)
		nr_ids += w->evsels[i].nr_ids;
	uint64_t ids_off = PDFORMAT_FILE_HEADER_SIZE;
	uint64_t attrs_off = ids_off + 8 * (uint64_t)nr_ids;
	struct gbuf pay[PDFORMAT_FEAT_BITS];
	bool have[PDFORMAT_FEAT_BITS] = { false };
	uint64_t pre_len = 0;
	memset(pay, 0, sizeof(pay));
	for (int f = 1; w->ckpt && f < PDFORMAT_FEAT_BITS; f++) {
		have[f] = pdwrite_feat_payload(w, f, &pay[f]);
		if (have[f] && pay[f].err && !err)
			err = pay[f].err;
		if (have[f])
			pre_len += pdwrite_pad8(pay[f].len);
	}
	w->data_offset = attrs_off + (uint64_t)w->nr_evsels * (w->attr_size + 16) + pre_len;

	uint64_t nofeat[PDFORMAT_FEAT_BITS / 64] = { 0 };
	uint8_t h[PDFORMAT_FILE_HEADER_SIZE];
	encode_file_header(w, h, attrs_off, w->data_offset, 0, nofeat);
	if (!err)
		err = pdwrite_out(w, h, sizeof(h));
	for (size_t i = 0; !err && i < w->nr_evsels; i++) {
		const struct pdwrite_evsel *e = &w->evsels[i];
		for (size_t j = 0; !err && j < e->nr_ids; j++) {
			uint8_t v[8];
			bytes_st64(v, e->ids[j], w->swap);
			err = pdwrite_out(w, v, 8);
		}
	}
	uint64_t off = ids_off;
	for (size_t i = 0; !err && i < w->nr_evsels; i++) {
		const struct pdwrite_evsel *e = &w->evsels[i];
		pdwrite_encode_attr(w, &e->attr, w->rec);
		bytes_st64(w->rec + w->attr_size, off, w->swap);
		bytes_st64(w->rec + w->attr_size + 8, 8 * (uint64_t)e->nr_ids, w->swap);
		off += 8 * (uint64_t)e->nr_ids;
		err = pdwrite_out(w, w->rec, w->attr_size + 16);
	}
	/* checkpoints: the payloads go between the attrs and the data (perf
	 * reads a feature anywhere its table slot points), written once; each
	 * checkpoint's table points at them */
	for (int f = 1; f < PDFORMAT_FEAT_BITS; f++) {
		if (!err && have[f]) {
			w->pre[f] = (struct pdwrite_fsec){ .off = w->pos, .len = pay[f].len, .valid = true };
			err = pdwrite_out(w, pay[f].p, pay[f].len);
			if (!err)
				err = pdwrite_out_zeros(w, pdwrite_pad8(pay[f].len) - pay[f].len);
		}
		free(pay[f].p);
	}
	w->header_area_done = true;
	return pdwrite_set_err(w, err);
}

int pdwrite_ensure_begun(struct pdwrite *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	return w->begun ? 0 : pdwrite_begin_data(w);
}

/* ------------------------------------------------------------------ close */

/* The file header, in place at offset 0 (file mode, data already flushed). */
static int rewrite_header(struct pdwrite *w, uint64_t data_off, uint64_t data_size,
			  const uint64_t bits[PDFORMAT_FEAT_BITS / 64])
{
	uint8_t h[PDFORMAT_FILE_HEADER_SIZE];
	size_t nr_ids = 0;
	for (size_t i = 0; i < w->nr_evsels; i++)
		nr_ids += w->evsels[i].nr_ids;
	encode_file_header(w, h, PDFORMAT_FILE_HEADER_SIZE + 8 * (uint64_t)nr_ids, data_off, data_size, bits);
	ssize_t r;
	do
		r = pwrite(w->fd, h, sizeof(h), 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == (ssize_t)sizeof(h) ? 0 : -EIO;
}

/* The feature section after the data, then the final header.  A payload a
 * checkpointed writer put before the data is not written again: its slot
 * points there. */
static int write_features(struct pdwrite *w)
{
	uint64_t data_size = w->pos - w->data_offset;
	uint64_t bits[PDFORMAT_FEAT_BITS / 64] = { 0 };
	struct gbuf pay[PDFORMAT_FEAT_BITS];
	size_t nr = 0;
	int err = 0;

	memset(pay, 0, sizeof(pay));
	for (int f = 1; f < PDFORMAT_FEAT_BITS; f++) {
		if (w->pre[f].valid || pdwrite_feat_payload(w, f, &pay[f])) {
			if (pay[f].err && !err)
				err = pay[f].err;
			bits[f / 64] |= 1ULL << (f % 64);
			nr++;
		}
	}
	/* Table at data end, payloads after it, each 8-aligned. */
	uint64_t table_off = w->pos;
	uint64_t off = table_off + 16 * (uint64_t)nr;
	for (int f = 1; !err && f < PDFORMAT_FEAT_BITS; f++) {
		if (!((bits[f / 64] >> (f % 64)) & 1))
			continue;
		uint8_t e[16];
		bool pre = w->pre[f].valid;
		bytes_st64(e, pre ? w->pre[f].off : off, w->swap);
		bytes_st64(e + 8, pre ? w->pre[f].len : pay[f].len, w->swap);
		err = pdwrite_out(w, e, sizeof(e));
		if (!pre)
			off += pdwrite_pad8(pay[f].len);
	}
	for (int f = 1; !err && f < PDFORMAT_FEAT_BITS; f++) {
		if (!((bits[f / 64] >> (f % 64)) & 1) || w->pre[f].valid)
			continue;
		err = pdwrite_out(w, pay[f].p, pay[f].len);
		if (!err)
			err = pdwrite_out_zeros(w, pdwrite_pad8(pay[f].len) - pay[f].len);
	}
	for (int f = 0; f < PDFORMAT_FEAT_BITS; f++)
		free(pay[f].p);
	if (!err)
		err = flush(w);
	if (err)
		return pdwrite_set_err(w, err);

	return pdwrite_set_err(w, rewrite_header(w, w->data_offset, data_size, bits));
}

/*
 * A checkpoint's feature table as a record perf skips (pdformat.h,
 * PDFORMAT_CKPT_MAGIC), at w->pos: a slot for each payload written before
 * the data, the payloads that changed since or came later (SAMPLE_TIME)
 * inside the record while they fit in it (a u16 size), the others left out
 * of this checkpoint.  Never the AUXTRACE index: it would cover the AUX
 * records up to the checkpoint only, and latscope reads on past it (perf
 * needs no index).  *bits gets the features listed, bit 0 included; the
 * record ends with them (the header it goes with can be rebuilt from it).
 */
static int emit_checkpoint_table(struct pdwrite *w, uint64_t bits[PDFORMAT_FEAT_BITS / 64])
{
	struct gbuf pay[PDFORMAT_FEAT_BITS];
	bool inrec[PDFORMAT_FEAT_BITS] = { false };
	size_t nslot = 1, inl = 0;
	int err = 0;

	memset(pay, 0, sizeof(pay));
	memset(bits, 0, PDFORMAT_FEAT_BITS / 8);
	bits[0] = 1ULL << PDFORMAT_FEAT_RESERVED;
	for (int f = 1; f < PDFORMAT_FEAT_BITS; f++) {
		if (!w->pre[f].valid && f != PDFORMAT_FEAT_AUXTRACE)
			inrec[f] = pdwrite_feat_payload(w, f, &pay[f]);
		if (inrec[f] && pay[f].err && !err)
			err = pay[f].err;
		nslot += w->pre[f].valid || inrec[f];
	}
	/* every slot fits (256 x 16 bytes, and the bitmap); the payloads
	 * while they do */
	for (int f = 1; f < PDFORMAT_FEAT_BITS; f++) {
		if (inrec[f] && 16 * nslot + inl + pdwrite_pad8(pay[f].len) + PDFORMAT_FEAT_BITS / 8 > PDWRITE_REC_MAX) {
			inrec[f] = false;
			nslot--;
		} else if (inrec[f]) {
			inl += pdwrite_pad8(pay[f].len);
		}
	}
	size_t size = 16 * nslot + inl + PDFORMAT_FEAT_BITS / 8;
	if (size < PDFORMAT_CKPT_MIN_SIZE)
		size = PDFORMAT_CKPT_MIN_SIZE;
	uint8_t *p = w->rec;
	memset(p, 0, size);
	pdwrite_put_hdr(w, p, PDFORMAT_RECORD_HEADER_EVENT_TYPE, 0, (uint16_t)size);
	bytes_st64(p + 8, PDFORMAT_CKPT_MAGIC, w->swap);
	size_t slot = 1, at = 16 * nslot;
	for (int f = 1; f < PDFORMAT_FEAT_BITS; f++) {
		uint8_t *e = p + 16 * slot;
		if (w->pre[f].valid) {
			bytes_st64(e, w->pre[f].off, w->swap);
			bytes_st64(e + 8, w->pre[f].len, w->swap);
		} else if (inrec[f]) {
			bytes_st64(e, w->pos + at, w->swap);
			bytes_st64(e + 8, pay[f].len, w->swap);
			if (pay[f].len)
				memcpy(p + at, pay[f].p, pay[f].len);
			at += pdwrite_pad8(pay[f].len);
		} else {
			continue;
		}
		bits[f / 64] |= 1ULL << (f % 64);
		slot++;
	}
	for (int i = 0; i < PDFORMAT_FEAT_BITS / 64; i++)
		bytes_st64(p + size - PDFORMAT_FEAT_BITS / 8 + 8 * i, bits[i], w->swap);
	for (int f = 0; f < PDFORMAT_FEAT_BITS; f++)
		free(pay[f].p);
	return err ? err : pdwrite_out(w, p, size);
}

int pdwrite_checkpoint(struct pdwrite *w, bool force)
{
	int err = pdwrite_ensure_begun(w);
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
	if (w->ckpt_end && w->pos == w->ckpt_end)
		return 0;	/* nothing new: the last checkpoint says it all */
	/* the data and the table after it first, then the header that covers
	 * them: a kill between the two leaves the previous checkpoint's
	 * header, still true (its table is still there: nothing is ever
	 * written over it) */
	uint64_t table = w->pos;
	uint64_t bits[PDFORMAT_FEAT_BITS / 64];
	err = pdwrite_set_err(w, emit_checkpoint_table(w, bits));
	if (!err)
		err = flush(w);
	if (!err)
		err = pdwrite_set_err(w, rewrite_header(w, w->data_offset, table - w->data_offset, bits));
	if (!err)
		w->ckpt_end = w->pos;
	if (!err && w->sf)
		err = pdwrite_set_err(w, safeout_publish(w->sf));
	return err;
}

void pdwrite_discard(struct pdwrite *w)
{
	if (!w)
		return;
	w->discard = true;
	if (!w->err)
		w->err = -ECANCELED;
	pdwrite_close(w);
}

int pdwrite_close(struct pdwrite *w)
{
	if (!w)
		return 0;
	int err = w->err;
	if (!err && !w->begun)
		err = pdwrite_begin_data(w);
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
			safeout_abort(w->sf);
		} else {
			int e = safeout_commit(w->sf);
			if (e)
				err = e;
		}
	}
	for (size_t i = 0; i < w->nr_evsels; i++) {
		free(w->evsels[i].name);
		free(w->evsels[i].ids);
	}
	free(w->evsels);
	for (int f = 0; f < PDFORMAT_FEAT_BITS; f++)
		free(w->feat[f].data);
	free(w->aux_index);
	free(w->zbuf);
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	free(w);
	return err;
}

