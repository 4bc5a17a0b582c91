/* SPDX-License-Identifier: MIT */
/* dtltl.c - the DTL timeline: records and DTL entries in one order (see dtltl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "dtl.h"
#include "dtltl.h"
#include "pdformat.h"

#define HOLD_BLOCK	(1u << 20)	/* held records live in blocks of this size */
#define MIN_POLL_NS	1000000ULL	/* the driver's clamp */

/* A held record: the event (pointers rebased at release) and its bytes. */
struct held {
	struct pdr_event ev;
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

struct dtlt {
	struct pdr *r;
	struct dtlt_opts o;
	struct dtlm *m;
	struct dtlt_stats st;
	struct idxwin *iw_src, *iw_cov;	/* the source walker's and the coverage check's */
	struct scanblk *sb_src, *sb_cov;	/* the same for scans */
	bool pipe, has_dtl, eof;
	bool swap;
	uint64_t data_begin, data_end;
	/* file mode: the source, and a cursor that checks each AUXTRACE record
	 * met in the stream against it */
	uint64_t cov_pos;
	bool cov_have;
	struct dtlm_buf_info cov_bi;
	uint64_t cov_next;
	/* file mode: a record waiting for the entries before it */
	bool pending;
	struct pdr_event ev;
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
	struct pdr_event out_ev;
};

/* ---------------------------------------------------------------- helpers */

static uint32_t pmu_type_of(const struct pdr *r, const char *name)
{
	const struct pdr_info *in = pdr_info(r);

	for (size_t i = 0; i < in->nr_pmus; i++)
		if (in->pmu_name[i] && !strcmp(in->pmu_name[i], name))
			return in->pmu_type[i];
	return UINT32_MAX;
}

bool dtlt_is_dtl_evsel(const struct pdr *r, const struct pdr_evsel *e)
{
	if (!e)
		return false;
	if (e->name && !strncmp(e->name, "vpa_dtl", 7))
		return true;
	return e->attr.type >= 6 && e->attr.type == pmu_type_of(r, "vpa_dtl");
}

bool dtlt_file_has_dtl(const struct pdr *r)
{
	const struct pdr_info *in = pdr_info(r);

	if (in->has_auxtrace_info)
		return in->auxtrace_info_type == PDF_AUXTRACE_VPA_DTL;
	for (size_t i = 0; i < pdr_nr_evsels(r); i++)
		if (dtlt_is_dtl_evsel(r, pdr_evsel(r, i)))
			return true;
	/* no AUXTRACE_INFO and no named event: assume DTL (the only AUX we read) */
	return true;
}

uint64_t dtlt_poll_ns(const struct pdr *r)
{
	for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
		const struct pdr_evsel *e = pdr_evsel(r, i);
		uint64_t p;

		if (!dtlt_is_dtl_evsel(r, e))
			continue;
		if (pdf_attr_flag(&e->attr, PDF_ATTR_FLAG_FREQ))
			p = e->attr.sample_period ? 1000000000ULL / e->attr.sample_period : 0;
		else
			p = e->attr.sample_period;
		if (!p)
			return 0;
		return p < MIN_POLL_NS ? MIN_POLL_NS : p;
	}
	return 0;
}

static int pread_cb(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pdr_pread(ctx, off, buf, len);
}

/* len bytes at off through the block b (refilled when they are not in it). */
static int blk_read(struct dtlt *t, struct scanblk *b, uint64_t off, void *dst, size_t len)
{
	if (off < b->off || off + len > b->off + b->len) {
		uint64_t n = t->data_end > off ? t->data_end - off : 0;
		if (n > SCAN_BLOCK)
			n = SCAN_BLOCK;
		if (n < len)
			return -ENODATA;
		int err = pdr_pread(t->r, off, b->buf, (size_t)n);
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

/* Read the AUXTRACE record at off (through b when given): 0 with *bi, or
 * -EINVAL if it is not one whose payload lies inside the data section. */
static int read_auxtrace(struct dtlt *t, struct scanblk *b, uint64_t off, struct dtlm_buf_info *bi,
			 uint64_t *end)
{
	uint8_t h[PDF_AUXTRACE_RECORD_SIZE];

	if (off < t->data_begin || off > t->data_end || t->data_end - off < sizeof(h))
		return -EINVAL;
	int err = b ? blk_read(t, b, off, h, sizeof(h)) : pdr_pread(t->r, off, h, sizeof(h));
	if (err)
		return err == -ENODATA ? -EINVAL : err;
	if (by_ld32(h, t->swap) != PDF_RECORD_AUXTRACE ||
	    by_ld16(h + 6, t->swap) != PDF_AUXTRACE_RECORD_SIZE)
		return -EINVAL;
	bi->size = by_ld64(h + 8, t->swap);
	bi->offset = by_ld64(h + 16, t->swap);
	bi->idx = by_ld32(h + 32, t->swap);
	bi->cpu = by_ld32(h + 40, t->swap);
	bi->payload_file_offset = off + sizeof(h);
	if (bi->size > t->data_end - bi->payload_file_offset)
		return -EINVAL;
	*end = bi->payload_file_offset + bi->size;
	return 0;
}

/* ---------------------------------------------------------------- sources */

static int idx_get(struct dtlt *t, struct idxwin *w, uint64_t i, uint64_t *off, uint64_t *sz)
{
	if (i < w->base || i >= w->base + w->n) {
		size_t total = pdr_info(t->r)->nr_auxtrace_index;
		if (i >= total)
			return -ERANGE;
		size_t n = total - i < IDX_BLOCK ? total - (size_t)i : IDX_BLOCK;
		int err = pdr_auxtrace_index_read(t->r, (size_t)i, n, w->pairs);
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
static int index_src(void *ctx, uint64_t pos, struct dtlm_buf_info *bi, uint64_t *at,
		     uint64_t *next)
{
	struct dtlt *t = ctx;
	uint64_t off, end;

	for (; pos < t->st.index_entries; pos++) {
		int err = idx_get(t, t->iw_src, pos, &off, NULL);
		if (err)
			return err;
		err = read_auxtrace(t, NULL, off, bi, &end);
		if (err)
			return err;
		if (bi->cpu >= DTLM_MAX_CPUS)
			continue;	/* counted by the pre-pass */
		*at = pos;
		*next = pos + 1;
		return 1;
	}
	return 0;
}

/* Where the record at pos ends: its size, and for HEADER_TRACING_DATA the
 * blob after it (a checkpointed recording opens its data with one). */
static int rec_end(struct dtlt *t, struct scanblk *b, uint64_t pos, uint32_t type, uint16_t size,
		   uint64_t *end)
{
	uint8_t sz[4];

	*end = pos + size;
	if (type != PDF_RECORD_HEADER_TRACING_DATA)
		return 0;
	if (size < 12 || blk_read(t, b, pos + 8, sz, sizeof(sz)))
		return -EINVAL;
	*end += by_ld32(sz, t->swap);
	return 0;
}

/* A scan: positions are file offsets of records in the data section.  A
 * header that cannot be a record ends the walk (the reader reports it). */
static int scan_next(struct dtlt *t, struct scanblk *b, uint64_t pos, struct dtlm_buf_info *bi,
		     uint64_t *at, uint64_t *next)
{
	while (pos < t->data_end && t->data_end - pos >= 8) {
		uint8_t h[8];
		int err = blk_read(t, b, pos, h, sizeof(h));
		if (err)
			return err == -ENODATA ? 0 : err;
		uint32_t type = by_ld32(h, t->swap);
		uint16_t size = by_ld16(h + 6, t->swap);
		uint64_t end;

		if (size < 8)
			return 0;
		if (type == PDF_RECORD_AUXTRACE) {
			if (read_auxtrace(t, b, pos, bi, &end))
				return 0;
			if (bi->cpu < DTLM_MAX_CPUS) {
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

static int scan_src(void *ctx, uint64_t pos, struct dtlm_buf_info *bi, uint64_t *at, uint64_t *next)
{
	struct dtlt *t = ctx;

	return scan_next(t, t->sb_src, pos, bi, at, next);
}

#define CPU_WORDS (DTLM_MAX_CPUS / 64)

static void cpu_mark(uint64_t *set, uint32_t cpu)
{
	set[cpu / 64] |= 1ULL << (cpu % 64);
}

/* Validate the index; 0 when it is usable, else why_scan says why. */
static int validate_index(struct dtlt *t, uint64_t *cpus)
{
	const struct pdr_info *in = pdr_info(t->r);
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
		struct dtlm_buf_info bi;
		int err = idx_get(t, t->iw_src, i, &off, &sz);

		if (err) {
			snprintf(t->st.why_scan, sizeof(t->st.why_scan),
				 "AUXTRACE index entry %zu cannot be read (%s)", i, strerror(-err));
			return -EINVAL;
		}
		if (sz != PDF_AUXTRACE_RECORD_SIZE || read_auxtrace(t, NULL, off, &bi, &end)) {
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
		if (bi.cpu >= DTLM_MAX_CPUS) {
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
static void prescan(struct dtlt *t, uint64_t *cpus)
{
	uint64_t pos = t->data_begin;

	while (pos < t->data_end && t->data_end - pos >= 8) {
		uint8_t h[8];
		if (blk_read(t, t->sb_src, pos, h, sizeof(h)))
			break;
		uint32_t type = by_ld32(h, t->swap);
		uint16_t size = by_ld16(h + 6, t->swap);
		struct dtlm_buf_info bi;
		uint64_t end;

		if (size < 8) {
			t->st.scan_stopped_at = pos;
			break;
		}
		t->st.scanned_records++;
		if (type == PDF_RECORD_AUXTRACE) {
			if (read_auxtrace(t, t->sb_src, pos, &bi, &end)) {
				t->st.scan_stopped_at = pos;
				break;
			}
			if (bi.cpu >= DTLM_MAX_CPUS) {
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

static int setup_file(struct dtlt *t)
{
	uint64_t *cpus = calloc(CPU_WORDS, sizeof(uint64_t));
	uint32_t *list = NULL;
	size_t n = 0;
	dtlm_source_fn fn = index_src;
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
		t->st.source = DTLT_SRC_SCAN;
	} else {
		t->st.source = DTLT_SRC_INDEX;
	}
	list = malloc(DTLM_MAX_CPUS * sizeof(*list));
	if (!list) {
		free(cpus);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < DTLM_MAX_CPUS; c++)
		if (cpus[c / 64] & (1ULL << (c % 64)))
			list[n++] = c;
	free(cpus);
	t->cov_pos = start;
	err = dtlm_set_source(t->m, fn, t, start, list, n);
	free(list);
	if (!t->st.dtl_buffers && t->st.source == DTLT_SRC_SCAN)
		t->st.why_scan[0] = '\0';	/* no AUX data at all: nothing to explain */
	return err;
}

int dtlt_new(struct dtlt **tp, struct pdr *r, const struct dtlt_opts *o)
{
	struct dtlt *t = calloc(1, sizeof(*t));
	const struct pdr_info *in = pdr_info(r);
	struct dtlm_opts mo = { 0 };
	int err;

	*tp = NULL;
	if (!t)
		return -ENOMEM;
	t->r = r;
	t->iw_src = calloc(1, sizeof(*t->iw_src));
	t->iw_cov = calloc(1, sizeof(*t->iw_cov));
	t->sb_src = malloc(sizeof(*t->sb_src));
	t->sb_cov = malloc(sizeof(*t->sb_cov));
	if (!t->iw_src || !t->iw_cov || !t->sb_src || !t->sb_cov) {
		free(t->iw_src);
		free(t->iw_cov);
		free(t->sb_src);
		free(t->sb_cov);
		free(t);
		return -ENOMEM;
	}
	t->sb_src->len = t->sb_cov->len = 0;
	if (o)
		t->o = *o;
	if (!t->o.budget_bytes)
		t->o.budget_bytes = DTLT_DEFAULT_BUDGET;
	t->pipe = in->pipe;
	t->swap = pdr_needs_swap(r);
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
		mo.pread_ctx = r;
	}
	err = dtlm_new(&t->m, &mo);
	if (err) {
		free(t->iw_src);
		free(t->iw_cov);
		free(t->sb_src);
		free(t->sb_cov);
		free(t);
		return err;
	}
	t->st.poll_ns = dtlt_poll_ns(r);
	if (t->pipe) {
		t->st.source = DTLT_SRC_STREAM;
		t->auto_window = !t->o.window_ns && !t->o.no_window;
		if (t->o.no_window)
			t->window_ns = 0;
		else if (t->o.window_ns)
			t->window_ns = t->o.window_ns;
		else
			t->window_ns = 2 * (t->st.poll_ns ? t->st.poll_ns : MIN_POLL_NS);
		t->st.window_ns = t->window_ns;
	} else {
		t->has_dtl = dtlt_file_has_dtl(r);
		if (t->has_dtl) {
			err = setup_file(t);
			if (err) {
				dtlt_free(t);
				return err;
			}
		}
		if (!t->st.dtl_buffers)
			t->st.source = DTLT_SRC_NONE;
	}
	*tp = t;
	return 0;
}

void dtlt_free(struct dtlt *t)
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
	dtlm_free(t->m);
	free(t->iw_src);
	free(t->iw_cov);
	free(t->sb_src);
	free(t->sb_cov);
	free(t->is_dtl);
	free(t);
}

const struct dtlt_stats *dtlt_stats(const struct dtlt *t)
{
	return &t->st;
}

const struct dtlm *dtlt_merge(const struct dtlt *t)
{
	return t->m;
}

/* ---------------------------------------------------------------- records */

static bool timed(const struct pdr_event *ev)
{
	return ev->type < PDF_RECORD_USER_START && ev->has_sample && ev->sample.time &&
	       (ev->sample.type & PDF_SAMPLE_TIME);
}

bool dtlt_evsel_is_dtl(struct dtlt *t, const struct pdr_evsel *e)
{
	if (!e)
		return false;
	size_t i = (size_t)e->idx;
	if (i >= t->nr_is_dtl) {
		size_t n = i + 16;
		int8_t *v = realloc(t->is_dtl, n);
		if (!v)
			return dtlt_is_dtl_evsel(t->r, e);
		memset(v + t->nr_is_dtl, -1, n - t->nr_is_dtl);
		t->is_dtl = v;
		t->nr_is_dtl = n;
	}
	if (t->is_dtl[i] < 0)
		t->is_dtl[i] = dtlt_is_dtl_evsel(t->r, e);
	return t->is_dtl[i];
}

/* Facts about lost DTL data, noted when a record is read. */
static void note_record(struct dtlt *t, const struct pdr_event *ev)
{
	uint32_t cpu = ev->has_sample ? ev->sample.cpu : UINT32_MAX;
	uint64_t tm = ev->has_sample ? ev->sample.time : 0;

	switch (ev->type) {
	case PDF_RECORD_AUX:
		if (dtlt_evsel_is_dtl(t, ev->evsel) && ev->size >= 32)
			dtlm_note_aux(t->m, cpu, tm, pdr_u64(t->r, ev->data + 8),
				      pdr_u64(t->r, ev->data + 16), pdr_u64(t->r, ev->data + 24));
		break;
	case PDF_RECORD_LOST:
		if (ev->size >= 24)
			dtlm_note_lost(t->m, cpu, tm, pdr_u64(t->r, ev->data + 16));
		break;
	case PDF_RECORD_LOST_SAMPLES:
		if (ev->size >= 16)
			dtlm_note_lost(t->m, cpu, tm, pdr_u64(t->r, ev->data + 8));
		break;
	default:
		break;
	}
}

/* File mode: is the AUXTRACE payload at off one the source listed? */
static int covered(struct dtlt *t, uint64_t payload_off, bool *yes)
{
	uint64_t at;

	*yes = false;
	if (t->st.source == DTLT_SRC_INDEX) {
		/* the index lists record offsets in file order: no need to
		 * read the records again */
		while (t->cov_pos < t->st.index_entries) {
			uint64_t off;
			int err = idx_get(t, t->iw_cov, t->cov_pos, &off, NULL);
			if (err)
				return err;
			if (off + PDF_AUXTRACE_RECORD_SIZE > payload_off)
				return 0;
			t->cov_pos++;
			if (off + PDF_AUXTRACE_RECORD_SIZE == payload_off) {
				*yes = true;
				return 0;
			}
		}
		return 0;
	}
	if (t->st.source != DTLT_SRC_SCAN)
		return 0;
	for (;;) {
		if (!t->cov_have) {
			int rc = scan_next(t, t->sb_cov, t->cov_pos, &t->cov_bi, &at, &t->cov_next);
			if (rc < 0)
				return rc;
			if (rc == 0)
				return 0;
			t->cov_have = true;
		}
		if (t->cov_bi.payload_file_offset > payload_off)
			return 0;
		t->cov_have = false;
		t->cov_pos = t->cov_next;
		if (t->cov_bi.payload_file_offset == payload_off) {
			*yes = true;
			return 0;
		}
	}
}

static int take_auxtrace(struct dtlt *t, const struct pdr_event *ev)
{
	struct dtlm_buf_info bi = {
		.size = ev->auxtrace.size, .offset = ev->auxtrace.offset,
		.idx = ev->auxtrace.idx, .cpu = ev->auxtrace.cpu,
		.payload_file_offset = ev->aux_file_offset,
	};
	int err;

	if (!t->pipe) {
		bool yes;
		if (!t->has_dtl)
			return 0;
		err = covered(t, ev->aux_file_offset, &yes);
		if (err || yes)
			return err;
		if (bi.cpu >= DTLM_MAX_CPUS)
			return 0;	/* counted by the pre-pass */
		t->st.unindexed_buffers++;
		err = dtlm_add_buffer(t->m, &bi, NULL);
		return err == -ERANGE ? 0 : err;
	}
	if (!dtlt_file_has_dtl(t->r))
		return 0;
	if (bi.cpu >= DTLM_MAX_CPUS) {
		t->st.bad_cpu_buffers++;
		(void)dtlm_add_buffer(t->m, &bi, ev->aux_data);	/* counts the drop */
		return 0;
	}
	t->st.dtl_buffers++;
	err = dtlm_add_buffer(t->m, &bi, ev->aux_data);
	if (err == -ERANGE)
		return 0;
	if (err)
		return err;
	/* how late did this buffer come?  The window follows. */
	uint64_t first;
	if (dtlm_first_time(t->m, bi.cpu, ev->aux_data, bi.size, &first) && t->max_time > first) {
		uint64_t need = t->max_time - first;
		if (need > t->st.window_max_need_ns)
			t->st.window_max_need_ns = need;
		if (t->auto_window && need + need / 2 > t->window_ns) {
			t->window_ns = need + need / 2;
			t->st.window_ns = t->window_ns;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- holding */

static int hold(struct dtlt *t, const struct pdr_event *ev)
{
	size_t need = (sizeof(struct held) + ev->size + 7) & ~(size_t)7;
	struct block *b = t->btail;

	if (need > HOLD_BLOCK)
		return -E2BIG;
	if (!b || HOLD_BLOCK - b->used < need) {
		b = t->bfree;
		if (b)
			t->bfree = b->next;
		else if (!(b = malloc(sizeof(*b))))
			return -ENOMEM;
		b->next = NULL;
		b->used = b->head = 0;
		if (t->btail)
			t->btail->next = b;
		else
			t->bhead = b;
		t->btail = b;
	}
	struct held *h = (struct held *)(b->mem + b->used);
	b->used += need;
	h->ev = *ev;
	h->evsel_idx = ev->evsel ? ev->evsel->idx : -1;
	h->len = ev->size;
	memcpy(h->data, ev->data, ev->size);
	h->timed = timed(ev);
	h->time_ns = h->timed ? ev->sample.time : t->max_time;
	t->held_n++;
	t->held_bytes += need;
	if (t->held_bytes > t->st.held_peak_bytes)
		t->st.held_peak_bytes = t->held_bytes;
	if (t->held_n > t->st.held_peak_records)
		t->st.held_peak_records = t->held_n;
	return 0;
}

static struct held *held_head(struct dtlt *t)
{
	struct block *b = t->bhead;

	if (!t->held_n)
		return NULL;
	while (b->head >= b->used) {
		/* this block is done: recycle it */
		t->bhead = b->next;
		if (t->btail == b)
			t->btail = NULL;
		b->next = t->bfree;
		t->bfree = b;
		b = t->bhead;
	}
	return (struct held *)(b->mem + b->head);
}

static void rebase(const uint8_t *old, size_t len, const uint8_t *copy, const uint8_t **p)
{
	if (*p && *p >= old && *p < old + len)
		*p = copy + (*p - old);
}

/* Pop the head into t->out_ev (valid until the next dtlt_next()). */
static const struct pdr_event *release_head(struct dtlt *t)
{
	struct held *h = held_head(t);
	size_t need = (sizeof(struct held) + h->len + 7) & ~(size_t)7;
	const uint8_t *old = h->ev.data;
	struct pdr_sample *s = &t->out_ev.sample;

	t->out_ev = h->ev;
	t->out_ev.data = h->data;
	t->out_ev.evsel = h->evsel_idx >= 0 ? pdr_evsel(t->r, (size_t)h->evsel_idx) : NULL;
	rebase(old, h->len, h->data, &s->read);
	rebase(old, h->len, h->data, &s->callchain);
	rebase(old, h->len, h->data, &s->raw);
	rebase(old, h->len, h->data, &s->branch);
	rebase(old, h->len, h->data, &s->user_regs);
	rebase(old, h->len, h->data, &s->user_stack);
	rebase(old, h->len, h->data, &s->intr_regs);
	rebase(old, h->len, h->data, &s->aux);
	/* the bytes stay valid: the block is only recycled when the next
	 * head is looked for, after this event has been used */
	t->bhead->head += need;
	t->held_n--;
	t->held_bytes -= need;
	t->out = h;
	return &t->out_ev;
}

static bool over_budget(const struct dtlt *t)
{
	return t->held_bytes + dtlm_copied_bytes(t->m) > t->o.budget_bytes;
}

/* ---------------------------------------------------------------- next */

/* The next record other than AUXTRACE (those are queued) into t->ev: 1, or
 * 0 at the end (t->eof set), or a negative errno. */
static int read_record(struct dtlt *t)
{
	for (;;) {
		int rc = pdr_next(t->r, &t->ev);
		if (rc <= 0) {
			t->eof = rc == 0;
			return rc;
		}
		if (t->ev.type != PDF_RECORD_AUXTRACE)
			return 1;
		rc = take_auxtrace(t, &t->ev);
		if (rc < 0)
			return rc;
	}
}

/* After the last record: the entries still queued, oldest first. */
static int end_entry(struct dtlt *t, struct dtlt_item *it)
{
	t->next_rec_ns = 0;
	int rc = dtlm_next(t->m, &it->entry);
	if (rc > 0)
		it->kind = DTLT_ENTRY;
	return rc;
}

static int next_file(struct dtlt *t, struct dtlt_item *it)
{
	int rc;

	for (;;) {
		if (t->pending) {
			if (timed(&t->ev)) {
				t->next_rec_ns = t->ev.sample.time;
				rc = dtlm_next_before(t->m, t->ev.sample.time, &it->entry);
				if (rc > 0) {
					it->kind = DTLT_ENTRY;
					return 1;
				}
				if (rc < 0)
					return rc;
				dtlm_note_time(t->m, t->ev.sample.time);
			}
			t->pending = false;
			t->st.records++;
			it->kind = DTLT_RECORD;
			it->ev = &t->ev;
			return 1;
		}
		if (t->eof)
			return end_entry(t, it);
		rc = read_record(t);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;	/* the end: the queued entries follow */
		if (t->ev.type == PDF_RECORD_AUX || t->ev.type == PDF_RECORD_LOST ||
		    t->ev.type == PDF_RECORD_LOST_SAMPLES)
			note_record(t, &t->ev);
		t->pending = true;
	}
}

static int next_pipe(struct dtlt *t, struct dtlt_item *it)
{
	int rc;

	for (;;) {
		struct held *h = held_head(t);

		if (h && (t->eof || over_budget(t) || h->time_ns + t->window_ns <= t->max_time)) {
			if (h->timed) {
				t->next_rec_ns = h->time_ns;
				rc = dtlm_next_before(t->m, h->time_ns, &it->entry);
				if (rc > 0) {
					it->kind = DTLT_ENTRY;
					return 1;
				}
				if (rc < 0)
					return rc;
				dtlm_note_time(t->m, h->time_ns);
			}
			if (!t->eof && over_budget(t) && h->time_ns + t->window_ns > t->max_time)
				t->st.forced_records++;
			it->kind = DTLT_RECORD;
			it->ev = release_head(t);
			t->st.records++;
			return 1;
		}
		if (!h && !t->eof && dtlm_over_budget(t->m)) {
			/* AUX copies alone exceed the budget: their oldest go early */
			t->next_rec_ns = 0;
			dtlm_note_forced(t->m);
			rc = dtlm_next(t->m, &it->entry);
			if (rc > 0) {
				it->kind = DTLT_ENTRY;
				return 1;
			}
			if (rc < 0)
				return rc;
		}
		if (t->eof)
			return end_entry(t, it);
		rc = read_record(t);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;	/* the end: the queued entries follow */
		note_record(t, &t->ev);
		if (!t->st.poll_ns && t->ev.type >= PDF_RECORD_USER_START) {
			/* the attrs arrive as records: the poll is known once the
			 * vpa_dtl one has come */
			t->st.poll_ns = dtlt_poll_ns(t->r);
			if (t->auto_window && 2 * t->st.poll_ns > t->window_ns)
				t->st.window_ns = t->window_ns = 2 * t->st.poll_ns;
		}
		if (timed(&t->ev) && t->ev.sample.time > t->max_time)
			t->max_time = t->ev.sample.time;
		/* with no window the record is released at once (entries first) */
		rc = hold(t, &t->ev);
		if (rc < 0)
			return rc;
	}
}

/* Entries more than a day from the records around them (a wrong boot_tb or
 * tb_freq): judged against the record they are delivered before (known in
 * both modes) and the last record before them. */
static void judge(struct dtlt *t, const struct dtlt_item *it)
{
	struct dtlt_stats *st = &t->st;

	if (it->kind == DTLT_RECORD) {
		if (!timed(it->ev))
			return;
		uint64_t tm = it->ev->sample.time;
		if (!st->first_record_ns)
			st->first_record_ns = tm;
		if (tm > st->last_record_ns)
			st->last_record_ns = tm;
		return;
	}
	uint64_t e = it->entry.time_ns;
	bool far = (t->next_rec_ns && e + DTLT_FAR_NS < t->next_rec_ns) ||
		   (st->last_record_ns && e > st->last_record_ns + DTLT_FAR_NS);
	if (far && !st->far_entries++) {
		st->far_cpu = it->entry.cpu;
		st->far_time_ns = e;
	}
}

int dtlt_next(struct dtlt *t, struct dtlt_item *it)
{
	int rc = t->pipe ? next_pipe(t, it) : next_file(t, it);

	if (rc > 0)
		judge(t, it);
	return rc;
}
