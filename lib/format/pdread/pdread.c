/* SPDX-License-Identifier: MIT */
/*
 * pdread.c - streaming perf.data reader.  See pdread.h; its parts share
 * pdread_int.h:
 *   pdread.c         errors, accessors, open/close, the records and pdread_next()
 *   pdread_input.c   the input window, decompression, raw records, AUX payloads
 *   pdread_evsel.c   evsels, the id map, tracepoint binding
 *   pdread_tdata.c   tracing data, parsed after a checking child (sandbox)
 *   pdread_header.c  the file header and the feature sections
 *   pdread_queue.c   the ordering queue and its block arena
 *
 * Input is read sequentially through one buffer (file, pipe or memory);
 * records that must be time-ordered are copied into a recycled block arena
 * and released at FINISHED_ROUND boundaries with perf's two-round lag.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <zstd.h>

#include "base/bytes.h"
#include "pdread_int.h"

int pdread_fail(struct pdread *r, int err, uint64_t off, const char *fmt, ...)
{
	char msg[240];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "%s: %s at file offset %#llx%s", r->name ? r->name : "perf.data",
		 msg, (unsigned long long)off, !r->info.unterminated ? "" : r->info.checkpoint_size ?
		 " (the header is a checkpoint of a writer that did not finish, so the file was read on to its end)" :
		 " (the header's data size is 0, so the file was read on to its end)");
	return err;
}

const char *pdread_strerror(const struct pdread *r)
{
	return r ? r->err : "out of memory";
}

const struct pdread_info *pdread_info(const struct pdread *r) { return &r->info; }
const struct pdread_stats *pdread_stats(const struct pdread *r) { return &r->stats; }
size_t pdread_nr_evsels(const struct pdread *r) { return r->nr_evsels; }
struct tep_handle *pdread_tep(const struct pdread *r) { return r->tep; }
bool pdread_needs_swap(const struct pdread *r) { return r->swap; }
uint64_t pdread_u64(const struct pdread *r, const void *p) { return bytes_ld64(p, r->swap); }

bool pdread_auxerr(const struct pdread *r, const struct pdread_event *ev, struct pdread_auxerr *e)
{
	const size_t hdr = 8;

	if (ev->type != PDFORMAT_RECORD_AUXTRACE_ERROR || ev->size < hdr + PDFORMAT_AUXERR_MSG_OFF)
		return false;
	const uint8_t *b = ev->data + hdr;
	uint32_t fmt = bytes_ld32(b + 20, r->swap);
	e->type = bytes_ld32(b, r->swap);
	e->code = bytes_ld32(b + 4, r->swap);
	e->cpu = bytes_ld32(b + 8, r->swap);
	e->time_ns = fmt >= 1 ? bytes_ld64(b + 32, r->swap) : 0;
	size_t n = ev->size - hdr - PDFORMAT_AUXERR_MSG_OFF;
	if (n > PDFORMAT_AUXERR_MSG_LEN)
		n = PDFORMAT_AUXERR_MSG_LEN;
	size_t i;
	for (i = 0; i < n && b[PDFORMAT_AUXERR_MSG_OFF + i]; i++) {
		uint8_t ch = b[PDFORMAT_AUXERR_MSG_OFF + i];
		e->msg[i] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	e->msg[i] = 0;
	return true;
}

const struct pdread_evsel *pdread_evsel(const struct pdread *r, size_t idx)
{
	return idx < r->nr_evsels ? &r->evsels[idx] : NULL;
}

/* ------------------------------------------------------- open and close */

static struct pdread *pdread_alloc(const char *name, const struct pdread_opts *opts)
{
	struct pdread *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	for (size_t i = 0; i < PDREAD_IDCACHE; i++)
		r->idc[i].evsel = -1;
	r->name = strdup(name ? name : "perf.data");
	if (opts)
		r->opts = *opts;
	if (!r->opts.max_queue_bytes)
		r->opts.max_queue_bytes = DEFAULT_QUEUE_MAX;
	return r;
}

int pdread_open_fd(struct pdread **rp, int fd, bool owns_fd, const char *name, const struct pdread_opts *opts)
{
	struct pdread *r = pdread_alloc(name, opts);
	*rp = r;
	if (!r) {
		if (owns_fd)
			close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	r->owns_fd = owns_fd;
	return pdread_open_common(r);
}

int pdread_open(struct pdread **rp, const char *path, const struct pdread_opts *opts)
{
	if (!strcmp(path, "-"))
		return pdread_open_fd(rp, 0, false, "stdin", opts);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		struct pdread *r = pdread_alloc(path, opts);
		*rp = r;
		if (r)
			snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(-e));
		return e;
	}
	return pdread_open_fd(rp, fd, true, path, opts);
}

int pdread_open_mem(struct pdread **rp, const void *buf, size_t len, const struct pdread_opts *opts)
{
	struct pdread *r = pdread_alloc("input", opts);
	*rp = r;
	if (!r)
		return -ENOMEM;
	r->mem = buf;
	r->mem_len = len;
	return pdread_open_common(r);
}

void pdread_close(struct pdread *r)
{
	if (!r)
		return;
	if (r->owns_fd && r->fd >= 0)
		close(r->fd);
	if (r->mapped)
		munmap((void *)r->mem, r->mem_len);
	for (size_t i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i].ids);
		free((char *)r->evsels[i].name);
	}
	free(r->evsels);
	free(r->idmap);
	firedtab_free(&r->info.fired);
	if (r->tep)
		tep_free(r->tep);
	free(r->q);
	free(r->qtmp);
	free(r->td_blob);
	free(r->td_v);
	for (struct arena_block *b = r->all_blks, *n; b; b = n) {
		n = b->all_next;
		free(b);
	}
	if (r->zstd)
		ZSTD_freeDStream(r->zstd);
	free(r->dbuf);
	free(r->auxbuf);
	for (size_t i = 0; i < r->nr_strs; i++)
		free(r->strs[i]);
	free(r->core_id);
	free(r->build_ids);
	free(r->socket_id);
	free(r->pmu_type);
	if (r->pmu_name)
		for (size_t i = 0; i < r->info.nr_pmus; i++)
			free(r->pmu_name[i]);
	free(r->pmu_name);
	free(r->name);
	free(r);
}

/* ---------------------------------------------------------------- records */

/* Time of a kernel record for ordering; false when it has none. */
static bool record_time(struct pdread *r, const struct pdread_evsel *e, uint32_t type, const uint8_t *rec,
			size_t size, uint64_t *t)
{
	if (!e || !(e->attr.sample_type & PDFORMAT_SAMPLE_TIME))
		return false;
	uint64_t st = e->attr.sample_type;
	if (type == PDFORMAT_RECORD_SAMPLE) {
		size_t pos = 8 + 8 * (size_t)(!!(st & PDFORMAT_SAMPLE_IDENTIFIER) + !!(st & PDFORMAT_SAMPLE_IP) +
					      !!(st & PDFORMAT_SAMPLE_TID));
		if (pos + 8 > size)
			return false;
		*t = bytes_ld64(rec + pos, r->swap);
	} else {
		if (!pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL))
			return false;
		size_t back = 8 * (size_t)(1 + !!(st & PDFORMAT_SAMPLE_ID) + !!(st & PDFORMAT_SAMPLE_STREAM_ID) +
					   !!(st & PDFORMAT_SAMPLE_CPU) + !!(st & PDFORMAT_SAMPLE_IDENTIFIER));
		if (back + 8 > size)
			return false;
		*t = bytes_ld64(rec + size - back, r->swap);
	}
	return *t != 0 && *t != UINT64_MAX;
}

/* The AUXTRACE fields of a record that is no AUXTRACE. */
static inline void ev_no_aux(struct pdread_event *ev)
{
	memset(&ev->auxtrace, 0, sizeof(ev->auxtrace));
	ev->aux_data = NULL;
	ev->aux_size = 0;
	ev->aux_file_offset = 0;
}

/* Fill the rest of ev for a kernel record whose header fields are set
 * (evsel, sample, no AUXTRACE fields; stats). */
static void fill_kernel(struct pdread *r, struct pdread_event *ev)
{
	struct pdread_evsel *e = pdread_record_evsel(r, ev->type, ev->data, ev->size, true);
	ev_no_aux(ev);
	ev->evsel = e;
	ev->has_sample = false;
	if (e && ev->type == PDFORMAT_RECORD_SAMPLE) {
		if (pdread_parse_sample(&e->attr, r->swap, ev->data, ev->size, false, &ev->sample) == 0)
			ev->has_sample = true;
		else
			r->stats.bad_samples++;
	} else if (e && pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) && ev->size >= 8 + e->trailer_size) {
		ev->has_sample = pdread_parse_sample(&e->attr, r->swap, ev->data, ev->size, true,
						  &ev->sample) == 0;
	} else {
		memset(&ev->sample, 0, sizeof(ev->sample));
	}
}

static void count_kernel(struct pdread *r, uint32_t type, const uint8_t *rec, size_t size)
{
	switch (type) {
	case PDFORMAT_RECORD_LOST:
		r->stats.lost_records++;
		if (size >= 24)
			r->stats.lost_events += bytes_ld64(rec + 16, r->swap);
		break;
	case PDFORMAT_RECORD_LOST_SAMPLES:
		r->stats.lost_samples_records++;
		if (size >= 16)
			r->stats.lost_samples += bytes_ld64(rec + 8, r->swap);
		break;
	case PDFORMAT_RECORD_AUX:
		if (size >= 32) {
			uint64_t fl = bytes_ld64(rec + 24, r->swap);
			r->stats.aux_truncated += !!(fl & PDFORMAT_AUX_FLAG_TRUNCATED);
			r->stats.aux_partial += !!(fl & PDFORMAT_AUX_FLAG_PARTIAL);
			r->stats.aux_collision += !!(fl & PDFORMAT_AUX_FLAG_COLLISION);
		}
		break;
	default:
		break;
	}
}

/* User records that change the reader's state. */
static int process_user(struct pdread *r, struct pdread_event *ev)
{
	const uint8_t *p = ev->data;
	size_t size = ev->size;
	switch (ev->type) {
	case PDFORMAT_RECORD_HEADER_ATTR: {
		struct pdformat_attr a;
		size_t used;
		if (pdread_decode_attr(p + 8, size - 8, r->swap, &a, &used))
			return pdread_fail(r, -EINVAL, ev->file_offset, "HEADER_ATTR record is malformed");
		size_t nids = (size - 8 - used) / 8;
		int err = pdread_add_evsel(r, &a, p + 8 + used, nids, ev->file_offset);
		if (err)
			return err;
		pdread_bind_tracepoints(r);
		return 0;
	}
	case PDFORMAT_RECORD_HEADER_TRACING_DATA: {
		if (size < 12)
			return pdread_fail(r, -EINVAL, ev->file_offset, "TRACING_DATA record too short");
		uint32_t tsz = bytes_ld32(p + 8, r->swap);
		if (tsz > MAX_FEATURE)
			return pdread_fail(r, -EINVAL, ev->file_offset, "TRACING_DATA of %u bytes", tsz);
		size_t keep = size < sizeof(r->recbuf) ? size : sizeof(r->recbuf);
		memcpy(r->recbuf, p, keep);
		ev->data = r->recbuf;
		ev->size = (uint16_t)keep;
		/* The blob follows the record, outside header.size. */
		uint8_t *blob = malloc(tsz ? tsz : 1);
		if (!blob)
			return -ENOMEM;
		uint64_t boff = in_offset(r);
		ssize_t a = pdread_in_need(r, tsz);
		if (a < 0 || (size_t)a < tsz) {
			free(blob);
			return pdread_fail(r, -EINVAL, boff, "TRACING_DATA blob is truncated");
		}
		memcpy(blob, r->buf + r->buf_pos, tsz);
		r->buf_pos += tsz;
		/* A second copy (a file with the feature and the record, or a
		 * stream that sends it twice) is skipped, counted: replacing the
		 * formats would pull them from under the events already bound. */
		bool dup = r->tep != NULL;
		if (dup)
			r->info.dup_tracing_data++;
		int err = r->opts.no_tracing_data || dup ? 0 : pdread_parse_tracing_data(r, blob, tsz, boff);
		free(blob);
		if (err)
			return err;
		pdread_bind_tracepoints(r);
		r->info.feat_bits[0] |= 1ULL << PDFORMAT_FEAT_TRACING_DATA;
		return 0;
	}
	case PDFORMAT_RECORD_HEADER_FEATURE: {
		if (size < 16)
			return pdread_fail(r, -EINVAL, ev->file_offset, "FEATURE record too short");
		uint64_t feat = bytes_ld64(p + 8, r->swap);
		if (feat < PDFORMAT_FEAT_BITS) {
			int err = pdread_parse_feature(r, (int)feat, p + 16, size - 16, ev->file_offset);
			if (err)
				return err;
			if (feat == PDFORMAT_FEAT_EVENT_DESC)
				pdread_bind_tracepoints(r);
		}
		return 0;
	}
	case PDFORMAT_RECORD_AUXTRACE_INFO:
		if (size >= 16 && !r->info.has_auxtrace_info) {
			r->info.has_auxtrace_info = true;
			r->info.auxtrace_info_type = bytes_ld32(p + 8, r->swap);
			size_t n = (size - 16) / 8;
			if (n > 8)
				n = 8;
			for (size_t i = 0; i < n; i++)
				r->info.auxtrace_info_priv[i] = bytes_ld64(p + 16 + 8 * i, r->swap);
			r->info.auxtrace_info_nr_priv = n;
		}
		return 0;
	case PDFORMAT_RECORD_AUXTRACE:
		return pdread_read_aux_payload(r, ev);
	default:
		return 0;
	}
}

/*
 * Is the next ready record a sample the recorder wrote twice?  perf record
 * (6.1, seen under load) sometimes writes the end of a CPU's ring again at
 * the start of the next round: the same records, byte for byte, time and
 * CPU included.  Sorted, a copy comes right after its original among the
 * records of that time, which this flush has released already and whose
 * memory is still there (nothing is read, so nothing reused, until the
 * ready records are all delivered).  Two real samples never share every
 * byte: a time in ns, the CPU and the payload.  Samples without a time
 * (time 0) are never compared.
 */
static bool queued_duplicate(const struct pdread *r)
{
	const struct qent *q = &r->q[r->ready_pos];
	uint16_t size = bytes_ld16(q->rec + 6, r->swap);

	if (!q->time || bytes_ld32(q->rec, r->swap) != PDFORMAT_RECORD_SAMPLE)
		return false;
	for (size_t j = r->ready_pos, n = 0; j-- > 0 && n < 64 && r->q[j].time == q->time; n++) {
		const struct qent *o = &r->q[j];
		if (bytes_ld16(o->rec + 6, r->swap) == size && !memcmp(o->rec, q->rec, size))
			return true;
	}
	return false;
}

/* Deliver the next ready queued record into ev. */
static void deliver_queued(struct pdread *r, struct pdread_event *ev)
{
	struct qent *q = &r->q[r->ready_pos++];
	/* the records were read a round or two ago: fetch a few ahead */
	if (r->ready_pos + 3 < r->ready_len)
		__builtin_prefetch(r->q[r->ready_pos + 3].rec);
	ev->type = bytes_ld32(q->rec, r->swap);
	ev->misc = bytes_ld16(q->rec + 4, r->swap);
	ev->size = bytes_ld16(q->rec + 6, r->swap);
	r->live_bytes -= ev->size + 2 * sizeof(struct qent);
	ev->data = q->rec;
	ev->file_offset = q->off & ~QENT_COMPRESSED;
	ev->compressed = (q->off & QENT_COMPRESSED) != 0;
	fill_kernel(r, ev);
	/* The record stays valid until the next call: release the previous one. */
	if (r->have_last && r->last_delivered.blk)
		pdread_arena_release(r, r->last_delivered.blk);
	r->last_delivered = *q;
	r->have_last = true;
}

int pdread_next(struct pdread *r, struct pdread_event *ev)
{
	for (;;) {
		if (r->ready_pos < r->ready_len) {
			bool dup = queued_duplicate(r);
			r->stats.duplicates += dup;
			if (dup && !r->opts.keep_duplicates) {
				struct qent *q = &r->q[r->ready_pos++];
				r->live_bytes -= bytes_ld16(q->rec + 6, r->swap) + 2 * sizeof(struct qent);
				if (q->blk)
					pdread_arena_release(r, q->blk);
				continue;
			}
			deliver_queued(r, ev);
			return 1;
		}
		if (r->pending) {
			*ev = r->pending_ev;
			r->pending = false;
			return 1;
		}
		if (r->at_end)
			return 0;

		struct pdread_event e;	/* read_raw sets the header fields */
		int rc = pdread_read_raw(r, &e);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			r->at_end = true;
			pdread_queue_flush(r, UINT64_MAX);
			continue;
		}
		if (e.type < PDFORMAT_RECORD_USER_MAX)
			r->stats.by_type[e.type]++;
		if (e.type >= PDFORMAT_RECORD_USER_START) {
			e.evsel = NULL;
			e.has_sample = false;
			memset(&e.sample, 0, sizeof(e.sample));
			ev_no_aux(&e);
			if (e.type >= PDFORMAT_RECORD_USER_MAX)
				r->stats.unknown_records++;
			int err = process_user(r, &e);
			if (err)
				return err;
			if (r->drop_record) {
				r->drop_record = false;
				continue;
			}
			if (e.type == PDFORMAT_RECORD_HEADER_EVENT_TYPE)
				continue;	/* obsolete for perf, which skips it; latscope's
						 * checkpoint tables (pdformat.h) */
			if (e.type == PDFORMAT_RECORD_FINISHED_ROUND && !r->opts.unordered) {
				/* release everything up to the previous round's max */
				pdread_queue_flush(r, r->next_flush);
				r->next_flush = r->max_time;
				if (r->ready_pos < r->ready_len) {
					r->pending = true;
					r->pending_ev = e;
					continue;
				}
			}
			*ev = e;
			return 1;
		}
		if (e.type >= PDFORMAT_RECORD_KERNEL_MAX || e.type == 0)
			r->stats.unknown_records++;
		count_kernel(r, e.type, e.data, e.size);
		uint64_t t;
		if (!r->opts.unordered) {
			struct pdread_evsel *es = pdread_record_evsel(r, e.type, e.data, e.size, false);
			if (record_time(r, es, e.type, e.data, e.size, &t)) {
				int err = pdread_queue_push(r, t, e.data, e.size, e.file_offset, e.compressed);
				if (err)
					return err;
				if (r->live_bytes > r->opts.max_queue_bytes && r->q_len - r->ready_pos > 1) {
					/* memory cap: release the older half, like perf */
					r->stats.forced_flushes++;
					pdread_queue_flush(r, UINT64_MAX);
					r->ready_len = r->q_len / 2;
					if (r->ready_len)
						r->last_flush = r->q[r->ready_len - 1].time;
				}
				continue;
			}
		}
		ev->type = e.type;
		ev->misc = e.misc;
		ev->size = e.size;
		ev->data = e.data;
		ev->file_offset = e.file_offset;
		ev->compressed = e.compressed;
		fill_kernel(r, ev);
		return 1;
	}
}
