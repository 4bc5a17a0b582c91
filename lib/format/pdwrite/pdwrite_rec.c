/* SPDX-License-Identifier: MIT */
/*
 * pdwrite_rec.c - pdwrite's record side: encoding attrs, sample bodies and
 * trailers in the target byte order, and the record writers (samples, task
 * COMMs, AUXTRACE, compression staging, FINISHED_ROUND).  See pdwrite.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "base/bytes.h"
#include "format/ksym.h"
#include "pdwrite_int.h"

/* ---------------------------------------------------------------- encoding */

/* Encode attr (host order) into out[attr_size] in the target order. */
void pdwrite_encode_attr(const struct pdwrite *w, const struct pdformat_attr *a, uint8_t *o)
{
	bool s = w->swap;
	uint8_t full[PDFORMAT_ATTR_MAX];

	memset(full, 0, sizeof(full));
	bytes_st32(full + 0, a->type, s);
	bytes_st32(full + 4, w->attr_size, s);
	bytes_st64(full + 8, a->config, s);
	bytes_st64(full + 16, a->sample_period, s);
	bytes_st64(full + 24, a->sample_type, s);
	bytes_st64(full + 32, a->read_format, s);
	/* Flags bitfield: bit n in byte n/8, at bit n%8 (LE) or 7-n%8 (BE). */
	for (int n = 0; n < 64; n++) {
		if (!((a->flags >> n) & 1))
			continue;
		int bit = w->big_endian ? 7 - n % 8 : n % 8;
		full[40 + n / 8] |= (uint8_t)(1u << bit);
	}
	bytes_st32(full + 48, a->wakeup_events, s);
	bytes_st32(full + 52, a->bp_type, s);
	bytes_st64(full + 56, a->config1, s);
	bytes_st64(full + 64, a->config2, s);
	bytes_st64(full + 72, a->branch_sample_type, s);
	bytes_st64(full + 80, a->sample_regs_user, s);
	bytes_st32(full + 88, a->sample_stack_user, s);
	bytes_st32(full + 92, (uint32_t)a->clockid, s);
	bytes_st64(full + 96, a->sample_regs_intr, s);
	bytes_st32(full + 104, a->aux_watermark, s);
	bytes_st16(full + 108, a->sample_max_stack, s);
	bytes_st16(full + 110, a->reserved_2, s);
	bytes_st32(full + 112, a->aux_sample_size, s);
	bytes_st32(full + 116, a->aux_action, s);
	bytes_st64(full + 120, a->sig_data, s);
	bytes_st64(full + 128, a->config3, s);
	memcpy(o, full, w->attr_size);
}

void pdwrite_put_hdr(const struct pdwrite *w, uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	bytes_st32(p, type, w->swap);
	bytes_st16(p + 4, misc, w->swap);
	bytes_st16(p + 6, size, w->swap);
}

/* Cursor into w->rec for building one record. */
struct rcur {
	uint8_t *p;
	size_t len;
	bool overflow;
};

static uint8_t *rc_room(struct rcur *c, size_t n)
{
	if (c->overflow || n > PDWRITE_REC_MAX - c->len) {
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
		bytes_st64(at, v, swap);
}

static void rc_u32x2(struct rcur *c, uint32_t a, uint32_t b, bool swap)
{
	uint8_t *at = rc_room(c, 8);
	if (at) {
		bytes_st32(at, a, swap);
		bytes_st32(at + 4, b, swap);
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

/*
 * The variable-size parts of a sample body, each written at c in the target
 * order (sw: swap).  Each returns -EINVAL when the sample cannot be written
 * as asked (a count too large, its data missing), else 0; a record grown
 * past PDWRITE_REC_MAX is left in c->overflow for put_sample_body.
 */

/* READ: already in target order; its size must match read_format. */
static int put_read(const struct pdformat_attr *a, const struct pdread_sample *s, struct rcur *c, bool sw)
{
	size_t n = s->read_size;
	if (!s->read || n < 8)
		return -EINVAL;
	uint64_t nr = (a->read_format & PDFORMAT_FORMAT_GROUP) ? bytes_ld64(s->read, sw) : 0;
	if (nr > PDWRITE_REC_MAX / 8 || pdread_read_size(a->read_format, nr) != n)
		return -EINVAL;
	rc_bytes(c, s->read, n, n);
	return 0;
}

/* CALLCHAIN: a u64 count, then as many u64 addresses. */
static int put_callchain(const struct pdread_sample *s, struct rcur *c, bool sw)
{
	if (s->callchain_nr > PDWRITE_REC_MAX / 8 || (s->callchain_nr && !s->callchain))
		return -EINVAL;
	rc_u64(c, s->callchain_nr, sw);
	rc_bytes(c, s->callchain, (size_t)s->callchain_nr * 8, (size_t)s->callchain_nr * 8);
	return 0;
}

/* RAW: u32 size + data padded so the pair ends on a u64 boundary; like the
 * kernel, the stored size includes the padding. */
static int put_raw(const struct pdread_sample *s, struct rcur *c, bool sw)
{
	size_t n = s->raw_size;
	if (n > PDWRITE_REC_MAX || (n && !s->raw))
		return -EINVAL;
	size_t padded = pdwrite_pad8(4 + n) - 4;
	uint8_t *at = rc_room(c, 4);
	if (at)
		bytes_st32(at, (uint32_t)padded, sw);
	rc_bytes(c, s->raw, n, padded);
	return 0;
}

/* BRANCH_STACK: a u64 count, the hardware index if asked for, 24-byte
 * entries, then the branch counters if asked for. */
static int put_branch_stack(const struct pdformat_attr *a, const struct pdread_sample *s, struct rcur *c, bool sw)
{
	if (s->branch_nr > PDWRITE_REC_MAX / 24 || (s->branch_nr && !s->branch))
		return -EINVAL;
	size_t n = (size_t)s->branch_nr;
	rc_u64(c, s->branch_nr, sw);
	if (a->branch_sample_type & PDFORMAT_BRANCH_HW_INDEX)
		rc_u64(c, s->branch_hw_idx, sw);
	rc_bytes(c, s->branch, n * 24, n * 24);
	/* struct pdread_sample carries no branch counters: written as 0. */
	if (a->branch_sample_type & PDFORMAT_BRANCH_COUNTERS)
		rc_bytes(c, NULL, 0, n * 8);
	return 0;
}

/* REGS_USER or REGS_INTR: the ABI word, then (ABI not 0) a u64 per bit of
 * mask, from regs. */
static int put_regs(struct rcur *c, uint64_t abi, uint64_t mask, const uint8_t *regs, bool sw)
{
	rc_u64(c, abi, sw);
	if (abi) {
		size_t n = 8 * (size_t)__builtin_popcountll(mask);
		if (n && !regs)
			return -EINVAL;
		rc_bytes(c, regs, n, n);
	}
	return 0;
}

static int put_sample_body(const struct pdwrite *w, const struct pdformat_attr *a, const struct pdread_sample *s,
			   struct rcur *c)
{
	uint64_t t = a->sample_type;
	bool sw = w->swap;

	if (t & PDFORMAT_SAMPLE_IDENTIFIER)
		rc_u64(c, s->id, sw);
	if (t & PDFORMAT_SAMPLE_IP)
		rc_u64(c, s->ip, sw);
	if (t & PDFORMAT_SAMPLE_TID)
		rc_u32x2(c, s->pid, s->tid, sw);
	if (t & PDFORMAT_SAMPLE_TIME)
		rc_u64(c, s->time, sw);
	if (t & PDFORMAT_SAMPLE_ADDR)
		rc_u64(c, s->addr, sw);
	if (t & PDFORMAT_SAMPLE_ID)
		rc_u64(c, s->id, sw);
	if (t & PDFORMAT_SAMPLE_STREAM_ID)
		rc_u64(c, s->stream_id, sw);
	if (t & PDFORMAT_SAMPLE_CPU)
		rc_u32x2(c, s->cpu, 0, sw);
	if (t & PDFORMAT_SAMPLE_PERIOD)
		rc_u64(c, s->period, sw);
	if ((t & PDFORMAT_SAMPLE_READ) && put_read(a, s, c, sw))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_CALLCHAIN) && put_callchain(s, c, sw))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_RAW) && put_raw(s, c, sw))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_BRANCH_STACK) && put_branch_stack(a, s, c, sw))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_REGS_USER) &&
	    put_regs(c, s->user_regs_abi, a->sample_regs_user, s->user_regs, sw))
		return -EINVAL;
	if (t & PDFORMAT_SAMPLE_STACK_USER) {
		if (s->user_stack_size > PDWRITE_REC_MAX || (s->user_stack_size && !s->user_stack))
			return -EINVAL;
		size_t n = (size_t)s->user_stack_size;
		rc_u64(c, pdwrite_pad8(n), sw);
		if (n) {
			rc_bytes(c, s->user_stack, n, pdwrite_pad8(n));
			rc_u64(c, s->user_stack_dyn_size, sw);
		}
	}
	if (t & (PDFORMAT_SAMPLE_WEIGHT | PDFORMAT_SAMPLE_WEIGHT_STRUCT))
		rc_u64(c, s->weight, sw);
	if (t & PDFORMAT_SAMPLE_DATA_SRC)
		rc_u64(c, s->data_src, sw);
	if (t & PDFORMAT_SAMPLE_TRANSACTION)
		rc_u64(c, s->transaction, sw);
	if ((t & PDFORMAT_SAMPLE_REGS_INTR) &&
	    put_regs(c, s->intr_regs_abi, a->sample_regs_intr, s->intr_regs, sw))
		return -EINVAL;
	if (t & PDFORMAT_SAMPLE_PHYS_ADDR)
		rc_u64(c, s->phys_addr, sw);
	if (t & PDFORMAT_SAMPLE_CGROUP)
		rc_u64(c, s->cgroup, sw);
	if (t & PDFORMAT_SAMPLE_DATA_PAGE_SIZE)
		rc_u64(c, s->data_page_size, sw);
	if (t & PDFORMAT_SAMPLE_CODE_PAGE_SIZE)
		rc_u64(c, s->code_page_size, sw);
	if (t & PDFORMAT_SAMPLE_AUX) {
		if (s->aux_size > PDWRITE_REC_MAX || (s->aux_size && !s->aux))
			return -EINVAL;
		size_t n = (size_t)s->aux_size;
		rc_u64(c, pdwrite_pad8(n), sw);
		rc_bytes(c, s->aux, n, pdwrite_pad8(n));
	}
	return c->overflow ? -E2BIG : 0;
}

/* The sample_id_all trailer, in the kernel's order. */
static void put_trailer(const struct pdwrite *w, const struct pdformat_attr *a, const struct pdread_sample *s,
			struct rcur *c)
{
	uint64_t t = a->sample_type;
	bool sw = w->swap;

	if (!pdformat_attr_flag(a, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL))
		return;
	if (t & PDFORMAT_SAMPLE_TID)
		rc_u32x2(c, s->pid, s->tid, sw);
	if (t & PDFORMAT_SAMPLE_TIME)
		rc_u64(c, s->time, sw);
	if (t & PDFORMAT_SAMPLE_ID)
		rc_u64(c, s->id, sw);
	if (t & PDFORMAT_SAMPLE_STREAM_ID)
		rc_u64(c, s->stream_id, sw);
	if (t & PDFORMAT_SAMPLE_CPU)
		rc_u32x2(c, s->cpu, 0, sw);
	if (t & PDFORMAT_SAMPLE_IDENTIFIER)
		rc_u64(c, s->id, sw);
}

/* Emit w->rec[0..len) as one record (header filled in here). */
static int emit_rec(struct pdwrite *w, uint32_t type, uint16_t misc, size_t len)
{
	if (len > PDWRITE_REC_MAX || (len & 7))
		return -E2BIG;
	pdwrite_put_hdr(w, w->rec, type, misc, (uint16_t)len);
	return pdwrite_out(w, w->rec, len);
}


int pdwrite_emit_attr_record(struct pdwrite *w, const struct pdwrite_evsel *e)
{
	size_t size = 8 + w->attr_size + 8 * e->nr_ids;
	if (size > PDWRITE_REC_MAX)
		return -E2BIG;
	struct rcur c = { .p = w->rec, .len = 8 };
	uint8_t *at = rc_room(&c, w->attr_size);
	if (at)
		pdwrite_encode_attr(w, &e->attr, at);
	for (size_t i = 0; i < e->nr_ids; i++)
		rc_u64(&c, e->ids[i], w->swap);
	if (c.overflow)
		return -E2BIG;
	return emit_rec(w, PDFORMAT_RECORD_HEADER_ATTR, 0, c.len);
}

/* Store a feature payload (target order); in pipe mode after begin_data the
 * record goes out at once. */

/* --------------------------------------------------------------- records */

int pdwrite_write_record(struct pdwrite *w, uint32_t type, uint16_t misc, const void *body, size_t len)
{
	int err = pdwrite_ensure_begun(w);
	if (err)
		return err;
	if ((len && !body) || len > PDWRITE_REC_MAX - 8)
		return -EINVAL;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_bytes(&c, body, len, pdwrite_pad8(len));
	if (c.overflow)
		return -E2BIG;
	return pdwrite_set_err(w, emit_rec(w, type, misc, c.len));
}

static void track_time(struct pdwrite *w, uint64_t t)
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

int pdwrite_write_sample(struct pdwrite *w, int evsel, uint16_t misc, const struct pdread_sample *s)
{
	int err = pdwrite_ensure_begun(w);
	if (err)
		return err;
	if (!s || evsel < 0 || (size_t)evsel >= w->nr_evsels)
		return -EINVAL;
	const struct pdformat_attr *a = &w->evsels[evsel].attr;
	struct rcur c = { .p = w->rec, .len = 8 };
	err = put_sample_body(w, a, s, &c);
	if (err)
		return err;
	if (a->sample_type & PDFORMAT_SAMPLE_TIME)
		track_time(w, s->time);
	return pdwrite_set_err(w, emit_rec(w, PDFORMAT_RECORD_SAMPLE, misc, c.len));
}

int pdwrite_write_with_trailer(struct pdwrite *w, int evsel, uint32_t type, uint16_t misc,
			   const void *body, size_t len, const struct pdread_sample *s)
{
	int err = pdwrite_ensure_begun(w);
	if (err)
		return err;
	if (!s || evsel < 0 || (size_t)evsel >= w->nr_evsels || (len && !body) ||
	    len > PDWRITE_REC_MAX)
		return -EINVAL;
	const struct pdformat_attr *a = &w->evsels[evsel].attr;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_bytes(&c, body, len, pdwrite_pad8(len));
	put_trailer(w, a, s, &c);
	if (c.overflow)
		return -E2BIG;
	return pdwrite_set_err(w, emit_rec(w, type, misc, c.len));
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

int pdwrite_write_comm(struct pdwrite *w, int evsel, uint32_t pid, uint32_t tid, const char *comm,
		       uint64_t time_ns)
{
	if (!w || evsel < 0 || (size_t)evsel >= w->nr_evsels || !comm)
		return -EINVAL;
	const struct pdwrite_evsel *e = &w->evsels[evsel];
	uint8_t body[8 + 16];
	size_t n = strnlen(comm, 15);
	bytes_st32(body, pid, w->swap);
	bytes_st32(body + 4, tid, w->swap);
	memcpy(body + 8, comm, n);
	body[8 + n] = '\0';
	struct pdread_sample s = { .pid = pid, .tid = tid, .time = time_ns,
				   .id = e->nr_ids ? e->ids[0] : 0 };
	return pdwrite_write_with_trailer(w, evsel, PDFORMAT_RECORD_COMM, 0, body, 8 + n + 1, &s);
}

int pdwrite_write_task_comms(struct pdwrite *w, int evsel, const char *procfs)
{
	if (!w || evsel < 0 || (size_t)evsel >= w->nr_evsels)
		return -EINVAL;
	DIR *d = opendir(procfs ? procfs : "/proc");
	if (!d)
		return -errno;
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
			err = pdwrite_write_comm(w, evsel, (uint32_t)pid, (uint32_t)tid, comm, 0);
		}
		closedir(td);
	}
	closedir(d);
	return err;
}

int pdwrite_write_kernel_map(struct pdwrite *w, int evsel, uint64_t start, uint64_t len, uint64_t pgoff,
			     const struct pdread_sample *s)
{
	static const char kname[] = "[kernel.kallsyms]_text";
	uint8_t body[32 + sizeof(kname)];

	memset(body, 0, sizeof(body));
	bytes_st32(body, UINT32_MAX, w->swap);	/* pid -1: the kernel */
	bytes_st64(body + 8, start, w->swap);
	bytes_st64(body + 16, len, w->swap);
	bytes_st64(body + 24, pgoff, w->swap);
	memcpy(body + 32, kname, sizeof(kname));
	return pdwrite_write_with_trailer(w, evsel, PDFORMAT_RECORD_MMAP, PDFORMAT_MISC_KERNEL, body, sizeof(body), s);
}

int pdwrite_write_kernel_mmap(struct pdwrite *w, int evsel, const char *kallsyms, bool *written)
{
	uint64_t text, end;
	bool none;

	if (!written)
		written = &none;
	*written = false;
	if (!w || evsel < 0 || (size_t)evsel >= w->nr_evsels)
		return -EINVAL;
	if (ksym_image(kallsyms ? kallsyms : "/proc/kallsyms", &text, &end) || end <= text)
		return 0;
	const struct pdwrite_evsel *e = &w->evsels[evsel];
	struct pdread_sample s = { .pid = UINT32_MAX, .tid = 0, .id = e->nr_ids ? e->ids[0] : 0 };
	int err = pdwrite_write_kernel_map(w, evsel, text, end - text, text, &s);
	*written = !err;
	return err;
}

int pdwrite_write_auxtrace(struct pdwrite *w, const struct pdread_auxtrace *a, const void *payload, size_t len)
{
	int err = pdwrite_ensure_begun(w);
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
	pdwrite_put_hdr(w, p, PDFORMAT_RECORD_AUXTRACE, 0, PDFORMAT_AUXTRACE_RECORD_SIZE);
	bytes_st64(p + 8, pdwrite_pad8(len), w->swap);
	bytes_st64(p + 16, a->offset, w->swap);
	bytes_st64(p + 24, a->reference, w->swap);
	bytes_st32(p + 32, a->idx, w->swap);
	bytes_st32(p + 36, a->tid, w->swap);
	bytes_st32(p + 40, a->cpu, w->swap);
	bytes_st32(p + 44, 0, w->swap);
	err = pdwrite_out(w, p, PDFORMAT_AUXTRACE_RECORD_SIZE);
	if (!err)
		err = pdwrite_out(w, payload, len);
	if (!err)
		err = pdwrite_out_zeros(w, pdwrite_pad8(len) - len);
	if (err)
		return pdwrite_set_err(w, err);
	if (!w->pipe) {
		w->aux_index[2 * w->nr_aux] = rec_off;
		w->aux_index[2 * w->nr_aux + 1] = PDFORMAT_AUXTRACE_RECORD_SIZE;
		w->nr_aux++;
	}
	return 0;
}

int pdwrite_write_auxtrace_info(struct pdwrite *w, uint32_t type, const uint64_t *priv, size_t nr_priv)
{
	int err = pdwrite_ensure_begun(w);
	if (err)
		return err;
	if ((nr_priv && !priv) || nr_priv > (PDWRITE_REC_MAX - 16) / 8)
		return -EINVAL;
	struct rcur c = { .p = w->rec, .len = 8 };
	rc_u32x2(&c, type, 0, w->swap);
	for (size_t i = 0; i < nr_priv; i++)
		rc_u64(&c, priv[i], w->swap);
	return pdwrite_set_err(w, emit_rec(w, PDFORMAT_RECORD_AUXTRACE_INFO, 0, c.len));
}

int pdwrite_compress_begin(struct pdwrite *w, int level)
{
	int err = pdwrite_ensure_begun(w);

	if (err)
		return err;
	if (w->zstage)
		return -EINVAL;
	if (!w->cctx && !(w->cctx = ZSTD_createCCtx()))
		return pdwrite_set_err(w, -ENOMEM);
	w->zlevel = level;
	w->zstage = true;
	w->zlen = 0;
	return 0;
}

/* Group staged records into pieces that compress under 64 KiB, whole records each. */
int pdwrite_compress_end(struct pdwrite *w)
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
			uint16_t rs = bytes_ld16(w->zbuf + end + 6, w->swap);
			if (rs < 8 || end + rs > w->zlen)
				return pdwrite_set_err(w, -EINVAL);	/* a staged record is broken */
			if (end > off && end + rs - off > piece_max)
				break;
			end += rs;
		}
		size_t c = ZSTD_compressCCtx(w->cctx, cbuf + 8, sizeof(cbuf) - 8, w->zbuf + off, end - off,
					     w->zlevel);
		if (ZSTD_isError(c) || c + 8 > 65535)
			return pdwrite_set_err(w, -EOVERFLOW);
		pdwrite_put_hdr(w, cbuf, PDFORMAT_RECORD_COMPRESSED, 0, (uint16_t)(c + 8));
		err = pdwrite_out(w, cbuf, c + 8);
		w->z_in += end - off;
		w->z_out += c + 8;
		off = end;
	}
	w->zlen = 0;
	if (!err && !w->pipe) {
		uint8_t f[20];
		bytes_st32(f, 1, w->swap);			/* version */
		bytes_st32(f + 4, 1, w->swap);		/* PERF_COMP_ZSTD */
		bytes_st32(f + 8, (uint32_t)w->zlevel, w->swap);
		bytes_st32(f + 12, w->z_out ? (uint32_t)(w->z_in / w->z_out) : 1, w->swap);
		bytes_st32(f + 16, 528384, w->swap);	/* perf's default mmap_len */
		err = pdwrite_set_raw_feature(w, PDFORMAT_FEAT_COMPRESSED, f, sizeof(f));
	}
	return err;
}

int pdwrite_finished_round(struct pdwrite *w)
{
	int err = pdwrite_ensure_begun(w);
	if (err)
		return err;
	return pdwrite_set_err(w, emit_rec(w, PDFORMAT_RECORD_FINISHED_ROUND, 0, 8));
}
