/* SPDX-License-Identifier: MIT */
/*
 * pdread_input.c - the perf.data reader's input: the sequential window over a file,
 * pipe or memory, zstd decompression, raw records and AUXTRACE payloads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#include "base/bytes.h"
#include "pdread_int.h"

/* ---------------------------------------------------------------- input */

/*
 * Put the unread bytes of the window at the start of a block no queued
 * record points into: this one when none does, else a fresh one (the old
 * block is freed for reuse when its last record has been delivered).
 * cap: the least capacity the block must have.
 */
static int in_rebase(struct pdread *r, size_t cap)
{
	size_t keep = in_avail(r);
	struct arena_block *b = r->in_blk;
	r->buf_off += r->buf_pos;
	if (b->live || b->cap < cap) {
		struct arena_block *nb = pdread_block_get(r, cap > IN_BUF_SIZE ? cap : IN_BUF_SIZE);
		if (!nb)
			return -ENOMEM;
		memcpy(nb->data, r->buf + r->buf_pos, keep);
		pdread_block_retire(r, b);
		r->in_blk = nb;
		r->buf = nb->data;
		r->buf_cap = nb->cap;
	} else if (r->buf_pos) {
		memmove(r->buf, r->buf + r->buf_pos, keep);
	}
	r->buf_pos = 0;
	r->buf_len = keep;
	return 0;
}

/* Bytes available in the window from the current position. */
/*
 * Make at least n bytes available at the current position (fewer at EOF).
 * Returns the number available (>= n on success), or a negative errno.
 */
ssize_t pdread_in_need(struct pdread *r, size_t n)
{
	if (in_avail(r) >= n || r->mem)
		return (ssize_t)in_avail(r);
	if (r->buf_pos + n > r->buf_cap) {
		/* move the unread tail to the front of a block with room */
		size_t cap = r->buf_cap;
		while (cap < n)
			cap *= 2;
		int err = in_rebase(r, cap);
		if (err)
			return err;
	}
	while (in_avail(r) < n && !r->in_eof) {
		size_t want = r->buf_cap - r->buf_len;
		uint64_t left = r->end - (r->buf_off + r->buf_len);
		if (want > left)
			want = (size_t)left;
		if (want == 0) {
			r->in_eof = true;
			break;
		}
		ssize_t got = read(r->fd, r->buf + r->buf_len, want);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0) {
			r->in_eof = true;
			break;
		}
		r->buf_len += (size_t)got;
	}
	return (ssize_t)in_avail(r);
}

/* Skip n bytes of input (payloads we do not keep). */
int pdread_in_skip(struct pdread *r, uint64_t n)
{
	while (n) {
		if (in_avail(r) == 0) {
			if (!r->mem && !r->info.pipe) {
				/* seekable: jump */
				uint64_t to = in_offset(r) + n;
				if (to > r->end)
					return -ENODATA;
				if (lseek(r->fd, (off_t)to, SEEK_SET) < 0)
					return -errno;
				int err = in_rebase(r, 0);	/* empty window, nothing referenced */
				if (err)
					return err;
				r->buf_off = to;
				return 0;
			}
			ssize_t a = pdread_in_need(r, 1);
			if (a < 0)
				return (int)a;
			if (a == 0)
				return -ENODATA;
		}
		size_t step = in_avail(r) < n ? in_avail(r) : (size_t)n;
		r->buf_pos += step;
		n -= step;
	}
	return 0;
}

int pdread_pread(struct pdread *r, uint64_t off, void *buf, size_t len)
{
	/* A mapped file is read with pread(2), not through the mapping: reads
	 * far from the sequential position (AUX payloads and index entries
	 * read on demand) would otherwise stay resident in the mapping and
	 * RSS would grow with the file.  The page cache serves both. */
	if (r->mem && !(r->mapped && r->fd >= 0)) {
		if (off > r->mem_len || len > r->mem_len - off)
			return -ENODATA;
		memcpy(buf, r->mem + off, len);
		return 0;
	}
	if (r->info.pipe)
		return -ESPIPE;
	size_t done = 0;
	while (done < len) {
		ssize_t got = pread(r->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			return -ENODATA;
		done += (size_t)got;
	}
	return 0;
}

/* Read exactly len bytes at an absolute offset (header/feature parsing). */
int pdread_read_at(struct pdread *r, uint64_t off, void *buf, size_t len)
{
	if (!r->info.pipe && r->info.file_size && (off > r->info.file_size || len > r->info.file_size - off))
		return -ENODATA;
	return pdread_pread(r, off, buf, len);
}

int pdread_auxtrace_index(struct pdread *r, size_t i, uint64_t *record_offset, uint64_t *record_size)
{
	if (i >= r->info.nr_auxtrace_index)
		return -ERANGE;
	uint8_t b[16];
	int err = pdread_pread(r, r->aux_index_off + 16 * (uint64_t)i, b, 16);
	if (err)
		return err;
	*record_offset = bytes_ld64(b, r->swap);
	if (record_size)
		*record_size = bytes_ld64(b + 8, r->swap);
	return 0;
}

int pdread_auxtrace_index_read(struct pdread *r, size_t first, size_t n, uint64_t *pairs)
{
	if (first > r->info.nr_auxtrace_index || n > r->info.nr_auxtrace_index - first)
		return -ERANGE;
	int err = pdread_pread(r, r->aux_index_off + 16 * (uint64_t)first, pairs, 16 * n);
	if (err)
		return err;
	if (r->swap)
		for (size_t i = 0; i < 2 * n; i++)
			pairs[i] = __builtin_bswap64(pairs[i]);
	return 0;
}

static int decompress(struct pdread *r, const uint8_t *src, size_t len, uint64_t off)
{
	if (!r->zstd) {
		r->zstd = ZSTD_createDStream();
		if (!r->zstd)
			return -ENOMEM;
		ZSTD_initDStream(r->zstd);
	}
	/* keep an incomplete record left from the previous frame */
	if (r->dbuf_pos) {
		memmove(r->dbuf, r->dbuf + r->dbuf_pos, r->dbuf_len - r->dbuf_pos);
		r->dbuf_len -= r->dbuf_pos;
		r->dbuf_pos = 0;
	}
	ZSTD_inBuffer in = { src, len, 0 };
	while (in.pos < in.size) {
		if (r->dbuf_cap - r->dbuf_len < (1u << 16)) {
			size_t ncap = r->dbuf_cap ? r->dbuf_cap * 2 : (1u << 20);
			if (ncap > MAX_DECOMP)
				return pdread_fail(r, -E2BIG, off, "compressed record expands beyond %u MiB", MAX_DECOMP >> 20);
			uint8_t *n = realloc(r->dbuf, ncap);
			if (!n)
				return -ENOMEM;
			r->dbuf = n;
			r->dbuf_cap = ncap;
		}
		ZSTD_outBuffer out = { r->dbuf + r->dbuf_len, r->dbuf_cap - r->dbuf_len, 0 };
		size_t ret = ZSTD_decompressStream(r->zstd, &out, &in);
		if (ZSTD_isError(ret))
			return pdread_fail(r, -EINVAL, off, "zstd: %s", ZSTD_getErrorName(ret));
		r->dbuf_len += out.pos;
		r->stats.decompressed_bytes += out.pos;
		if (out.pos == 0 && ret != 0 && in.pos == in.size)
			break;
	}
	r->dbuf_file_offset = off;
	return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif

/* Map the next pages in ahead of the read position with one call: faulting
 * them in one by one costs far more, on VMs several times more. */
static void populate_ahead(struct pdread *r, uint64_t off)
{
	const uint64_t window = 16u << 20;
	long pg = sysconf(_SC_PAGESIZE);

	if (r->no_populate || off + (4u << 20) < r->populated || r->populated >= r->mem_len)
		return;
	uint64_t from = (off > r->populated ? off : r->populated) & ~(uint64_t)(pg - 1);
	uint64_t to = from + window < r->mem_len ? from + window : r->mem_len;
	if (madvise((void *)(r->mem + from), (size_t)(to - from), MADV_POPULATE_READ))
		r->no_populate = true;
	r->populated = to;
}

/* Drop the mapping's pages well behind the read position (RSS stays flat). */
static void release_behind(struct pdread *r, uint64_t off)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t upto = (off - (4u << 20)) & ~(uint64_t)(pg - 1);
	if (upto <= r->dropped)
		return;
	madvise((void *)(r->mem + r->dropped), (size_t)(upto - r->dropped), MADV_DONTNEED);
	r->dropped = upto;
}

/*
 * The next whole record of the decompressed buffer into *ev (its data stays
 * in r->dbuf until the next decompress).  1 when there was one, 0 when the
 * buffer holds no whole record, or the failure (reported at the compressed
 * record's offset).
 */
static int next_decompressed(struct pdread *r, struct pdread_event *ev)
{
	if (r->dbuf_len - r->dbuf_pos < 8)
		return 0;
	const uint8_t *p = r->dbuf + r->dbuf_pos;
	uint16_t size = bytes_ld16(p + 6, r->swap);
	if (size < 8)
		return pdread_fail(r, -EINVAL, r->dbuf_file_offset,
				 "record of size %u inside a compressed record", size);
	if (r->dbuf_len - r->dbuf_pos < size)
		return 0;
	ev->type = bytes_ld32(p, r->swap);
	ev->misc = bytes_ld16(p + 4, r->swap);
	ev->size = size;
	ev->data = p;
	ev->file_offset = r->dbuf_file_offset;
	ev->compressed = true;
	r->dbuf_pos += size;
	if (ev->type == PDFORMAT_RECORD_AUXTRACE)
		return pdread_fail(r, -EINVAL, r->dbuf_file_offset,
				 "AUXTRACE record inside a compressed record");
	return 1;
}

/* A mapped file: drop the pages well behind off and map in those ahead. */
static void keep_mapping_near(struct pdread *r, uint64_t off)
{
	if (off > r->dropped + (24u << 20))
		release_behind(r, off);
	if (off + (4u << 20) >= r->populated)
		populate_ahead(r, off);
}

/*
 * A COMPRESSED or COMPRESSED2 record (p[size], at file offset off, already
 * in the window) expanded into r->dbuf, which the next calls read from.
 * 0 or the failure; a COMPRESSED2 data size that does not fit the record
 * is reported at off.
 */
static int unpack_compressed(struct pdread *r, const uint8_t *p, uint32_t type, uint16_t size, uint64_t off)
{
	r->stats.compressed_records++;
	const uint8_t *src = p + 8;
	size_t len = size - 8u;
	if (type == PDFORMAT_RECORD_COMPRESSED2) {
		if (size < 16)
			return pdread_fail(r, -EINVAL, off, "COMPRESSED2 record too short");
		uint64_t dsz = bytes_ld64(p + 8, r->swap);
		if (dsz > size - 16u)
			return pdread_fail(r, -EINVAL, off, "COMPRESSED2 data size %llu exceeds the record",
					 (unsigned long long)dsz);
		src = p + 16;
		len = (size_t)dsz;
	}
	r->stats.by_type[type]++;
	return decompress(r, src, len, off);
}

/*
 * Next raw record, from the decompressed buffer first, then the input.
 * On success *ev has type/misc/size/data/file_offset/compressed.  Returns 1,
 * 0 at the end, or a negative errno.
 */
int pdread_read_raw(struct pdread *r, struct pdread_event *ev)
{
	for (;;) {
		int got = next_decompressed(r, ev);
		if (got)
			return got;
		uint64_t off = in_offset(r);
		if (r->mapped)
			keep_mapping_near(r, off);
		if (off >= r->end)
			goto eof;
		ssize_t a = pdread_in_need(r, 8);
		if (a < 0)
			return pdread_fail(r, (int)a, off, "read error: %s", strerror((int)-a));
		if (a == 0)
			goto eof;
		if (a < 8) {
			if (r->info.unterminated) {	/* the writer died here */
				r->info.unterminated_tail = (uint64_t)a;
				goto eof;
			}
			return pdread_fail(r, -EINVAL, off, "truncated record header (%zd of 8 bytes)", a);
		}
		const uint8_t *p = r->buf + r->buf_pos;
		uint32_t type = bytes_ld32(p, r->swap);
		uint16_t size = bytes_ld16(p + 6, r->swap);
		if (size < 8) {
			if (r->info.checkpoint_table && off >= r->info.data_offset + r->info.checkpoint_size) {
				/* past the last checkpoint, the writer died before
				 * this: no record (the feature table it was writing) */
				r->info.unterminated_tail = r->end - off;
				goto eof;
			}
			return pdread_fail(r, -EINVAL, off, "record of type %u has size %u (< 8)", type, size);
		}
		if (off + size > r->end) {
			if (r->info.unterminated) {	/* the writer died in this record */
				r->info.unterminated_tail = r->end - off;
				goto eof;
			}
			return pdread_fail(r, -EINVAL, off, "record of type %u and size %u runs past the end of the data section", type, size);
		}
		a = pdread_in_need(r, size);
		if (a < 0)
			return pdread_fail(r, (int)a, off, "read error: %s", strerror((int)-a));
		if (a < size)
			return pdread_fail(r, -EINVAL, off, "truncated record of type %u (%zd of %u bytes)", type, a, size);
		p = r->buf + r->buf_pos;
		r->buf_pos += size;
		r->stats.records++;
		if (type == PDFORMAT_RECORD_COMPRESSED || type == PDFORMAT_RECORD_COMPRESSED2) {
			int err = unpack_compressed(r, p, type, size, off);
			if (err)
				return err;
			continue;
		}
		ev->type = type;
		ev->misc = bytes_ld16(p + 4, r->swap);
		ev->size = size;
		ev->data = p;
		ev->file_offset = off;
		ev->compressed = false;
		return 1;
	}
eof:
	if (r->dbuf_len - r->dbuf_pos)
		return pdread_fail(r, -EINVAL, r->dbuf_file_offset, "%zu bytes of an incomplete record at the end of the compressed data",
				 r->dbuf_len - r->dbuf_pos);
	return 0;
}

/* The AUXTRACE payload that follows its record. */
int pdread_read_aux_payload(struct pdread *r, struct pdread_event *ev)
{
	if (ev->size < PDFORMAT_AUXTRACE_RECORD_SIZE)
		return pdread_fail(r, -EINVAL, ev->file_offset, "AUXTRACE record of size %u is too short", ev->size);
	memcpy(r->recbuf, ev->data, PDFORMAT_AUXTRACE_RECORD_SIZE);
	ev->data = r->recbuf;
	ev->size = PDFORMAT_AUXTRACE_RECORD_SIZE;
	const uint8_t *p = ev->data;
	struct pdread_auxtrace *a = &ev->auxtrace;
	a->size = bytes_ld64(p + 8, r->swap);
	a->offset = bytes_ld64(p + 16, r->swap);
	a->reference = bytes_ld64(p + 24, r->swap);
	a->idx = bytes_ld32(p + 32, r->swap);
	a->tid = bytes_ld32(p + 36, r->swap);
	a->cpu = bytes_ld32(p + 40, r->swap);
	uint64_t pay_off = in_offset(r);
	if (a->size > r->end - pay_off) {
		if (r->info.unterminated) {	/* cut in its payload: drop it, stop here */
			r->info.unterminated_tail = r->end - ev->file_offset;
			r->buf_pos = r->buf_len;
			r->in_eof = true;
			r->drop_record = true;	/* not delivered; the end comes next */
			return 0;
		}
		return pdread_fail(r, -EINVAL, ev->file_offset, "AUXTRACE payload of %llu bytes runs past the end of the data",
				 (unsigned long long)a->size);
	}
	ev->aux_size = a->size;
	ev->aux_file_offset = r->info.pipe ? 0 : pay_off;
	ev->aux_data = NULL;
	if (r->mem) {
		/* in memory (or mapped): point at the payload, no copy */
		if (in_avail(r) < a->size)
			return pdread_fail(r, -EINVAL, pay_off, "AUXTRACE payload is truncated (%zu of %llu bytes)",
					 in_avail(r), (unsigned long long)a->size);
		ev->aux_data = r->buf + r->buf_pos;
		r->buf_pos += (size_t)a->size;
		return 0;
	}
	if (!r->info.pipe && a->size > MAX_AUX_INLINE)
		return pdread_in_skip(r, a->size) ? pdread_fail(r, -EINVAL, pay_off, "AUXTRACE payload is truncated") : 0;
	if (a->size <= IN_BUF_SIZE / 2) {
		/* in the window: point at it (valid until the next read) */
		ssize_t av = pdread_in_need(r, (size_t)a->size);
		if (av < 0)
			return pdread_fail(r, (int)av, pay_off, "read error");
		if ((uint64_t)av < a->size)
			return pdread_fail(r, -EINVAL, pay_off, "AUXTRACE payload is truncated (%zd of %llu bytes)",
					 av, (unsigned long long)a->size);
		ev->aux_data = r->buf + r->buf_pos;
		r->buf_pos += (size_t)a->size;
		return 0;
	}
	if (a->size > MAX_AUX_PIPE)
		return pdread_fail(r, -E2BIG, ev->file_offset, "AUXTRACE payload of %llu bytes is too large for a pipe",
				 (unsigned long long)a->size);
	if (r->auxbuf_cap < a->size) {
		size_t ncap = (size_t)a->size;
		uint8_t *n = realloc(r->auxbuf, ncap);
		if (!n)
			return -ENOMEM;
		r->auxbuf = n;
		r->auxbuf_cap = ncap;
	}
	uint8_t *dst = r->auxbuf;
	uint64_t left = a->size;
	while (left) {
		ssize_t av = pdread_in_need(r, 1);
		if (av < 0)
			return pdread_fail(r, (int)av, in_offset(r), "read error");
		if (av == 0)
			return pdread_fail(r, -EINVAL, pay_off, "AUXTRACE payload is truncated (%llu of %llu bytes)",
					 (unsigned long long)(a->size - left), (unsigned long long)a->size);
		size_t step = (size_t)av < left ? (size_t)av : (size_t)left;
		memcpy(dst, r->buf + r->buf_pos, step);
		r->buf_pos += step;
		dst += step;
		left -= step;
	}
	ev->aux_data = r->auxbuf;
	return 0;
}
