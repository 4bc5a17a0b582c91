/* SPDX-License-Identifier: MIT */
/* dtltl.c - the DTL timeline: records and DTL entries in one order (see dtltl.h). */
/* Records, holding and dtltl_next(): dtltl_next.c; the shared state: dtltl_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "format/dtl.h"
#include "dtltl_int.h"
#include "format/pdformat.h"

/* ---------------------------------------------------------------- helpers */

static uint32_t pmu_type_of(const struct pdread *r, const char *name)
{
	const struct pdread_info *in = pdread_info(r);

	for (size_t i = 0; i < in->nr_pmus; i++)
		if (in->pmu_name[i] && !strcmp(in->pmu_name[i], name))
			return in->pmu_type[i];
	return UINT32_MAX;
}

bool dtltl_is_dtl_evsel(const struct pdread *r, const struct pdread_evsel *e)
{
	if (!e)
		return false;
	if (e->name && !strncmp(e->name, "vpa_dtl", 7))
		return true;
	return e->attr.type >= 6 && e->attr.type == pmu_type_of(r, "vpa_dtl");
}

bool dtltl_file_has_dtl(const struct pdread *r)
{
	const struct pdread_info *in = pdread_info(r);

	if (in->has_auxtrace_info)
		return in->auxtrace_info_type == PDFORMAT_AUXTRACE_VPA_DTL;
	for (size_t i = 0; i < pdread_nr_evsels(r); i++)
		if (dtltl_is_dtl_evsel(r, pdread_evsel(r, i)))
			return true;
	/* no AUXTRACE_INFO and no named event: assume DTL (the only AUX we read) */
	return true;
}

/* Can any event of the file write AUX data?  Hardware, software,
 * tracepoint, cache and breakpoint events cannot; a PMU of its own (type 6
 * and up: vpa_dtl) or a raw event (latscope's debugfs recordings) can, and
 * so can a file that declares no event. */
static bool may_have_aux(const struct pdread *r)
{
	size_t n = pdread_nr_evsels(r);

	for (size_t i = 0; i < n; i++) {
		uint32_t type = pdread_evsel(r, i)->attr.type;
		if (type == PDFORMAT_TYPE_RAW || type >= 6)
			return true;
	}
	return n == 0;
}

uint64_t dtltl_poll_ns(const struct pdread *r)
{
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		uint64_t p;

		if (!dtltl_is_dtl_evsel(r, e))
			continue;
		if (pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_FREQ))
			p = e->attr.sample_period ? 1000000000ULL / e->attr.sample_period : 0;
		else
			p = e->attr.sample_period;
		if (!p)
			return 0;
		return p < MIN_POLL_NS ? MIN_POLL_NS : p;
	}
	return 0;
}


/* len bytes at off through the block b (refilled when they are not in it). */
static int blk_read(struct dtltl *t, struct scanblk *b, uint64_t off, void *dst, size_t len)
{
	if (off < b->off || off + len > b->off + b->len) {
		uint64_t n = t->data_end > off ? t->data_end - off : 0;
		if (n > SCAN_BLOCK)
			n = SCAN_BLOCK;
		if (n < len)
			return -ENODATA;
		int err = pdread_pread(t->r, off, b->buf, (size_t)n);
		if (err) {
			b->len = 0;
			return err;
		}
		b->off = off;
		b->len = (size_t)n;
	}
	memcpy(dst, b->buf + (off - b->off), len);
	return 0;
}

/* The merge's reads of AUX payloads.  A recording with a short poll has
 * many buffers of a few entries each, and the queues' heads lie close
 * together in the file: small reads go through one block (one read(2) for
 * many buffers instead of one each); larger ones straight to the file. */
#define AUX_SMALL_READ 4096
static int pread_cb(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct dtltl *t = ctx;

	if (len <= AUX_SMALL_READ && blk_read(t, t->sb_aux, off, buf, len) == 0)
		return 0;
	return pdread_pread(t->r, off, buf, len);
}

/* Read the AUXTRACE record at off (through b when given): 0 with *bi, or
 * -EINVAL if it is not one whose payload lies inside the data section. */
static int read_auxtrace(struct dtltl *t, struct scanblk *b, uint64_t off, struct dtlmerge_buf_info *bi,
			 uint64_t *end)
{
	uint8_t h[PDFORMAT_AUXTRACE_RECORD_SIZE];

	if (off < t->data_begin || off > t->data_end || t->data_end - off < sizeof(h))
		return -EINVAL;
	int err = b ? blk_read(t, b, off, h, sizeof(h)) : pdread_pread(t->r, off, h, sizeof(h));
	if (err)
		return err == -ENODATA ? -EINVAL : err;
	if (bytes_ld32(h, t->swap) != PDFORMAT_RECORD_AUXTRACE ||
	    bytes_ld16(h + 6, t->swap) != PDFORMAT_AUXTRACE_RECORD_SIZE)
		return -EINVAL;
	bi->size = bytes_ld64(h + 8, t->swap);
	bi->offset = bytes_ld64(h + 16, t->swap);
	bi->idx = bytes_ld32(h + 32, t->swap);
	bi->cpu = bytes_ld32(h + 40, t->swap);
	bi->payload_file_offset = off + sizeof(h);
	if (bi->size > t->data_end - bi->payload_file_offset)
		return -EINVAL;
	*end = bi->payload_file_offset + bi->size;
	return 0;
}

/* ---------------------------------------------------------------- sources */

int dtltl_idx_get(struct dtltl *t, struct idxwin *w, uint64_t i, uint64_t *off, uint64_t *sz)
{
	if (i < w->base || i >= w->base + w->n) {
		size_t total = pdread_info(t->r)->nr_auxtrace_index;
		if (i >= total)
			return -ERANGE;
		size_t n = total - i < IDX_BLOCK ? total - (size_t)i : IDX_BLOCK;
		int err = pdread_auxtrace_index_read(t->r, (size_t)i, n, w->pairs);
		if (err) {
			w->n = 0;
			return err;
		}
		w->base = i;
		w->n = n;
	}
	*off = w->pairs[2 * (i - w->base)];
	if (sz)
		*sz = w->pairs[2 * (i - w->base) + 1];
	return 0;
}

/* The index: positions are entry numbers (validated by the pre-pass). */
static int index_src(void *ctx, uint64_t pos, struct dtlmerge_buf_info *bi, uint64_t *at,
		     uint64_t *next)
{
	struct dtltl *t = ctx;
	uint64_t off, end;

	for (; pos < t->st.index_entries; pos++) {
		int err = dtltl_idx_get(t, t->iw_src, pos, &off, NULL);
		if (err)
			return err;
		err = read_auxtrace(t, t->sb_src, off, bi, &end);
		if (err)
			return err;
		if (bi->cpu >= DTLMERGE_MAX_CPUS)
			continue;	/* counted by the pre-pass */
		*at = pos;
		*next = pos + 1;
		return 1;
	}
	return 0;
}

/* Where the record at pos ends: its size, and for HEADER_TRACING_DATA the
 * blob after it (a pipe copied to a file, or a checkpointed recording of an
 * older latscope, opens its data with one). */
static int rec_end(struct dtltl *t, struct scanblk *b, uint64_t pos, uint32_t type, uint16_t size,
		   uint64_t *end)
{
	uint8_t sz[4];

	*end = pos + size;
	if (type != PDFORMAT_RECORD_HEADER_TRACING_DATA)
		return 0;
	if (size < 12 || blk_read(t, b, pos + 8, sz, sizeof(sz)))
		return -EINVAL;
	*end += bytes_ld32(sz, t->swap);
	return 0;
}

/* A scan: positions are file offsets of records in the data section.  A
 * header that cannot be a record ends the walk (the reader reports it). */
int dtltl_scan_next(struct dtltl *t, struct scanblk *b, uint64_t pos, struct dtlmerge_buf_info *bi,
		   uint64_t *at, uint64_t *next)
{
	while (pos < t->data_end && t->data_end - pos >= 8) {
		uint8_t h[8];
		int err = blk_read(t, b, pos, h, sizeof(h));
		if (err)
			return err == -ENODATA ? 0 : err;
		uint32_t type = bytes_ld32(h, t->swap);
		uint16_t size = bytes_ld16(h + 6, t->swap);
		uint64_t end;

		if (size < 8)
			return 0;
		if (type == PDFORMAT_RECORD_AUXTRACE) {
			if (read_auxtrace(t, b, pos, bi, &end))
				return 0;
			if (bi->cpu < DTLMERGE_MAX_CPUS) {
				*at = pos;
				*next = end;
				return 1;
			}
			pos = end;
			continue;
		}
		if (rec_end(t, b, pos, type, size, &pos))
			return 0;
	}
	return 0;
}

static int scan_src(void *ctx, uint64_t pos, struct dtlmerge_buf_info *bi, uint64_t *at, uint64_t *next)
{
	struct dtltl *t = ctx;

	return dtltl_scan_next(t, t->sb_src, pos, bi, at, next);
}

#define CPU_WORDS (DTLMERGE_MAX_CPUS / 64)

static void cpu_mark(uint64_t *set, uint32_t cpu)
{
	set[cpu / 64] |= 1ULL << (cpu % 64);
}

/* Validate the index; 0 when it is usable, else why_scan says why. */
static int validate_index(struct dtltl *t, uint64_t *cpus)
{
	const struct pdread_info *in = pdread_info(t->r);
	uint64_t prev_end = t->data_begin;
	size_t n = in->nr_auxtrace_index;

	if (in->auxtrace_index_damaged[0]) {
		snprintf(t->st.why_scan, sizeof(t->st.why_scan), "%s", in->auxtrace_index_damaged);
		return -EINVAL;
	}
	if (!n) {
		snprintf(t->st.why_scan, sizeof(t->st.why_scan), "the file has no AUXTRACE index");
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t off, sz, end;
		struct dtlmerge_buf_info bi;
		int err = dtltl_idx_get(t, t->iw_src, i, &off, &sz);

		if (err) {
			snprintf(t->st.why_scan, sizeof(t->st.why_scan),
				 "AUXTRACE index entry %zu cannot be read (%s)", i, strerror(-err));
			return -EINVAL;
		}
		if (sz != PDFORMAT_AUXTRACE_RECORD_SIZE || read_auxtrace(t, t->sb_src, off, &bi, &end)) {
			snprintf(t->st.why_scan, sizeof(t->st.why_scan),
				 "AUXTRACE index entry %zu (offset %#llx, size %llu) does not point at "
				 "an AUXTRACE record with its payload in the data section",
				 i, (unsigned long long)off, (unsigned long long)sz);
			return -EINVAL;
		}
		if (off < prev_end) {
			snprintf(t->st.why_scan, sizeof(t->st.why_scan),
				 "AUXTRACE index entry %zu (offset %#llx) overlaps or precedes the one before",
				 i, (unsigned long long)off);
			return -EINVAL;
		}
		prev_end = end;
		if (bi.cpu >= DTLMERGE_MAX_CPUS) {
			t->st.bad_cpu_buffers++;
			continue;
		}
		cpu_mark(cpus, bi.cpu);
		t->st.dtl_buffers++;
	}
	t->st.index_entries = n;
	return 0;
}

/* The pre-pass scan: count the buffers and find the CPUs. */
static void prescan(struct dtltl *t, uint64_t *cpus)
{
	uint64_t pos = t->data_begin;

	while (pos < t->data_end && t->data_end - pos >= 8) {
		uint8_t h[8];
		if (blk_read(t, t->sb_src, pos, h, sizeof(h)))
			break;
		uint32_t type = bytes_ld32(h, t->swap);
		uint16_t size = bytes_ld16(h + 6, t->swap);
		struct dtlmerge_buf_info bi;
		uint64_t end;

		if (size < 8) {
			t->st.scan_stopped_at = pos;
			break;
		}
		t->st.scanned_records++;
		if (type == PDFORMAT_RECORD_AUXTRACE) {
			if (read_auxtrace(t, t->sb_src, pos, &bi, &end)) {
				t->st.scan_stopped_at = pos;
				break;
			}
			if (bi.cpu >= DTLMERGE_MAX_CPUS) {
				t->st.bad_cpu_buffers++;
			} else {
				cpu_mark(cpus, bi.cpu);
				t->st.dtl_buffers++;
			}
			pos = end;
			continue;
		}
		if (rec_end(t, t->sb_src, pos, type, size, &pos)) {
			t->st.scan_stopped_at = pos;
			break;
		}
	}
}

static int setup_file(struct dtltl *t)
{
	uint64_t *cpus = calloc(CPU_WORDS, sizeof(uint64_t));
	uint32_t *list = NULL;
	size_t n = 0;
	dtlmerge_source_fn fn = index_src;
	uint64_t start = 0;
	int err;

	if (!cpus)
		return -ENOMEM;
	if (t->o.ignore_index) {
		snprintf(t->st.why_scan, sizeof(t->st.why_scan), "the index was ignored on request");
		err = -ENOENT;
	} else {
		err = validate_index(t, cpus);
	}
	if (err) {
		/* a partly validated index may have marked CPUs and counted */
		memset(cpus, 0, CPU_WORDS * sizeof(uint64_t));
		t->st.dtl_buffers = t->st.bad_cpu_buffers = 0;
		t->st.index_entries = 0;
		prescan(t, cpus);
		fn = scan_src;
		start = t->data_begin;
		t->st.source = DTLTL_SRC_SCAN;
	} else {
		t->st.source = DTLTL_SRC_INDEX;
	}
	list = malloc(DTLMERGE_MAX_CPUS * sizeof(*list));
	if (!list) {
		free(cpus);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < DTLMERGE_MAX_CPUS; c++)
		if (cpus[c / 64] & (1ULL << (c % 64)))
			list[n++] = c;
	free(cpus);
	t->cov_pos = start;
	err = dtlmerge_set_source(t->m, fn, t, start, list, n);
	free(list);
	if (!t->st.dtl_buffers && t->st.source == DTLTL_SRC_SCAN)
		t->st.why_scan[0] = '\0';	/* no AUX data at all: nothing to explain */
	return err;
}

int dtltl_new(struct dtltl **tp, struct pdread *r, const struct dtltl_opts *o)
{
	struct dtltl *t = calloc(1, sizeof(*t));
	const struct pdread_info *in = pdread_info(r);
	struct dtlmerge_opts mo = { 0 };
	int err;

	*tp = NULL;
	if (!t)
		return -ENOMEM;
	t->r = r;
	t->iw_src = calloc(1, sizeof(*t->iw_src));
	t->iw_cov = calloc(1, sizeof(*t->iw_cov));
	t->sb_src = malloc(sizeof(*t->sb_src));
	t->sb_cov = malloc(sizeof(*t->sb_cov));
	t->sb_aux = malloc(sizeof(*t->sb_aux));
	if (!t->iw_src || !t->iw_cov || !t->sb_src || !t->sb_cov || !t->sb_aux) {
		free(t->iw_src);
		free(t->iw_cov);
		free(t->sb_src);
		free(t->sb_cov);
		free(t->sb_aux);
		free(t);
		return -ENOMEM;
	}
	t->sb_src->len = t->sb_cov->len = t->sb_aux->len = 0;
	if (o)
		t->o = *o;
	if (!t->o.budget_bytes)
		t->o.budget_bytes = DTLTL_DEFAULT_BUDGET;
	t->pipe = in->pipe;
	t->swap = pdread_needs_swap(r);
	t->data_begin = in->data_offset;
	t->data_end = in->data_offset + in->data_size;
	if (in->file_size && t->data_end > in->file_size)
		t->data_end = in->file_size;	/* data size 0 or too large: the reader warns */
	if (!t->pipe && in->data_size == 0 && in->file_size > t->data_begin)
		t->data_end = in->file_size;
	mo.swap = t->swap;
	mo.exact_time = t->o.exact_time;
	mo.fallback = t->o.fallback;
	mo.override_boot_tb = t->o.override_boot_tb;
	mo.override_tb_freq = t->o.override_tb_freq;
	mo.max_copy_bytes = t->o.budget_bytes;
	if (!t->pipe) {
		mo.pread = pread_cb;
		mo.pread_ctx = t;
	}
	err = dtlmerge_new(&t->m, &mo);
	if (err) {
		free(t->iw_src);
		free(t->iw_cov);
		free(t->sb_src);
		free(t->sb_cov);
		free(t->sb_aux);
		free(t);
		return err;
	}
	t->st.poll_ns = dtltl_poll_ns(r);
	if (t->pipe) {
		t->st.source = DTLTL_SRC_STREAM;
		t->auto_window = !t->o.window_ns && !t->o.no_window;
		if (t->o.no_window)
			t->window_ns = 0;
		else if (t->o.window_ns)
			t->window_ns = t->o.window_ns;
		else
			t->window_ns = 2 * (t->st.poll_ns ? t->st.poll_ns : MIN_POLL_NS);
		t->st.window_ns = t->window_ns;
	} else {
		/* no pre-pass over a file none of whose events can write AUX
		 * data (a tracepoint recording): it would read the data
		 * section a second time for nothing */
		t->has_dtl = dtltl_file_has_dtl(r) && may_have_aux(r);
		if (t->has_dtl) {
			err = setup_file(t);
			if (err) {
				dtltl_free(t);
				return err;
			}
		}
		if (!t->st.dtl_buffers)
			t->st.source = DTLTL_SRC_NONE;
	}
	*tp = t;
	return 0;
}

void dtltl_free(struct dtltl *t)
{
	if (!t)
		return;
	for (struct block *b = t->bhead, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	for (struct block *b = t->bfree, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	dtlmerge_free(t->m);
	free(t->iw_src);
	free(t->iw_cov);
	free(t->sb_src);
	free(t->sb_cov);
	free(t->sb_aux);
	free(t->is_dtl);
	free(t);
}

const struct dtltl_stats *dtltl_stats(const struct dtltl *t)
{
	return &t->st;
}

const struct dtlmerge *dtltl_merge(const struct dtltl *t)
{
	return t->m;
}

