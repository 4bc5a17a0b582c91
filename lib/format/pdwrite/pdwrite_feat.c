/* SPDX-License-Identifier: MIT */
/*
 * pdwrite_feat.c - pdwrite's features: the growable blob their payloads are
 * built in, the feature setters, their pipe-mode records, and the tracing
 * data blob builder.  See pdwrite.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/bytes.h"
#include "base/firedtab.h"
#include "pdwrite_int.h"

/* ----------------------------------------------------------- growable blob */


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
		bytes_st32(at, v, swap);
}

static void gb_u64(struct gbuf *b, uint64_t v, bool swap)
{
	void *at = gb_room(b, 8);
	if (at)
		bytes_st64(at, v, swap);
}

/* perf's header string: u32 len (strlen+1 rounded up to 64), NUL-padded bytes. */
static void gb_string(struct gbuf *b, const char *s, bool swap)
{
	size_t n = strlen(s) + 1;
	size_t len = (n + PDWRITE_NAME_ALIGN - 1) / PDWRITE_NAME_ALIGN * PDWRITE_NAME_ALIGN;
	if (len > UINT32_MAX) {
		b->err = -E2BIG;
		return;
	}
	gb_u32(b, (uint32_t)len, swap);
	gb_put(b, s, n);
	gb_zero(b, len - n);
}


/* ---------------------------------------------------------------- features */

static int feat_set(struct pdwrite *w, int feat, struct gbuf *b);

void *pdwrite_memdup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

void pdwrite_build_event_desc(const struct pdwrite *w, struct gbuf *b)
{
	gb_u32(b, (uint32_t)w->nr_evsels, w->swap);
	gb_u32(b, w->attr_size, w->swap);
	for (size_t i = 0; i < w->nr_evsels; i++) {
		const struct pdwrite_evsel *e = &w->evsels[i];
		uint8_t *at = gb_room(b, w->attr_size);
		if (at)
			pdwrite_encode_attr(w, &e->attr, at);
		gb_u32(b, (uint32_t)e->nr_ids, w->swap);
		gb_string(b, e->name ? e->name : "", w->swap);
		for (size_t j = 0; j < e->nr_ids; j++)
			gb_u64(b, e->ids[j], w->swap);
	}
}

/* Payload of feature `feat` as it is to be written now, in *b (malloc'd by
 * the gbuf; caller frees b->p).  Returns false when the feature is absent. */
bool pdwrite_feat_payload(const struct pdwrite *w, int feat, struct gbuf *b)
{
	if (feat == PDFORMAT_FEAT_EVENT_DESC && !w->feat[feat].set) {
		pdwrite_build_event_desc(w, b);
		return true;
	}
	if (feat == PDFORMAT_FEAT_SAMPLE_TIME && !w->feat[feat].set && w->have_time) {
		gb_u64(b, w->first_ns, w->swap);
		gb_u64(b, w->last_ns, w->swap);
		return true;
	}
	if (feat == PDFORMAT_FEAT_AUXTRACE && !w->feat[feat].set && w->nr_aux && !w->pipe) {
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
int pdwrite_emit_feature_record(struct pdwrite *w, int feat, const void *payload, size_t len)
{
	size_t size = pdwrite_pad8(16 + len);
	if (size > PDWRITE_REC_MAX)
		return pdwrite_set_err(w, -E2BIG);
	uint8_t hdr[16];
	pdwrite_put_hdr(w, hdr, PDFORMAT_RECORD_HEADER_FEATURE, 0, (uint16_t)size);
	bytes_st64(hdr + 8, (uint64_t)feat, w->swap);
	int err = pdwrite_out(w, hdr, sizeof(hdr));
	if (!err)
		err = pdwrite_out(w, payload, len);
	if (!err)
		err = pdwrite_out_zeros(w, size - 16 - len);
	return err;
}

/* Pipe mode: HEADER_TRACING_DATA {u32 size, u32 pad} + blob padded to 8. */
int pdwrite_emit_tracing_data_record(struct pdwrite *w, const void *blob, size_t len)
{
	size_t padded = pdwrite_pad8(len);
	if (padded > UINT32_MAX)
		return pdwrite_set_err(w, -E2BIG);
	uint8_t hdr[16];
	pdwrite_put_hdr(w, hdr, PDFORMAT_RECORD_HEADER_TRACING_DATA, 0, sizeof(hdr));
	bytes_st32(hdr + 8, (uint32_t)padded, w->swap);
	bytes_st32(hdr + 12, 0, w->swap);
	int err = pdwrite_out(w, hdr, sizeof(hdr));
	if (!err)
		err = pdwrite_out(w, blob, len);
	if (!err)
		err = pdwrite_out_zeros(w, padded - len);
	return err;
}


static int feat_set(struct pdwrite *w, int feat, struct gbuf *b)
{
	if (b->err) {
		free(b->p);
		return b->err;
	}
	if (feat <= 0 || feat >= PDFORMAT_FEAT_BITS) {
		free(b->p);
		return -EINVAL;
	}
	struct pdwrite_blob *f = &w->feat[feat];
	free(f->data);
	f->data = b->p ? b->p : malloc(1);
	f->len = b->len;
	f->set = f->data != NULL;
	w->pre[feat].valid = false;	/* a checkpoint carries the new payload */
	if (!f->set)
		return -ENOMEM;
	if (w->pipe && w->begun && !pdwrite_feat_in_stream(w, feat))
		return 0;
	if (w->pipe && w->begun) {
		if (feat == PDFORMAT_FEAT_TRACING_DATA)
			return pdwrite_emit_tracing_data_record(w, f->data, f->len);
		return pdwrite_emit_feature_record(w, feat, f->data, f->len);
	}
	return 0;
}


/* --------------------------------------------------------------- features */

int pdwrite_set_tracing_data(struct pdwrite *w, const void *blob, size_t len)
{
	if (!w || (len && !blob) || len > UINT32_MAX - 8)
		return -EINVAL;		/* the pipe record stores a u32 size */
	struct gbuf b = { 0 };
	gb_put(&b, blob, len);
	return feat_set(w, PDFORMAT_FEAT_TRACING_DATA, &b);
}

int pdwrite_set_string_feature(struct pdwrite *w, int feat, const char *s)
{
	if (!w || !s)
		return -EINVAL;
	switch (feat) {
	case PDFORMAT_FEAT_HOSTNAME: case PDFORMAT_FEAT_OSRELEASE: case PDFORMAT_FEAT_VERSION:
	case PDFORMAT_FEAT_ARCH: case PDFORMAT_FEAT_CPUDESC: case PDFORMAT_FEAT_CPUID:
		break;
	default:
		return -EINVAL;
	}
	struct gbuf b = { 0 };
	gb_string(&b, s, w->swap);
	return feat_set(w, feat, &b);
}

int pdwrite_set_nrcpus(struct pdwrite *w, uint32_t avail, uint32_t online)
{
	if (!w)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u32(&b, avail, w->swap);
	gb_u32(&b, online, w->swap);
	return feat_set(w, PDFORMAT_FEAT_NRCPUS, &b);
}

int pdwrite_set_cmdline(struct pdwrite *w, int argc, const char *const *argv)
{
	if (!w || argc < 0 || (argc && !argv))
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u32(&b, (uint32_t)argc, w->swap);
	for (int i = 0; i < argc; i++)
		gb_string(&b, argv[i] ? argv[i] : "", w->swap);
	return feat_set(w, PDFORMAT_FEAT_CMDLINE, &b);
}

int pdwrite_set_sample_time(struct pdwrite *w, uint64_t first_ns, uint64_t last_ns)
{
	if (!w)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_u64(&b, first_ns, w->swap);
	gb_u64(&b, last_ns, w->swap);
	return feat_set(w, PDFORMAT_FEAT_SAMPLE_TIME, &b);
}

int pdwrite_set_raw_feature(struct pdwrite *w, int feat, const void *payload, size_t len)
{
	if (!w || (len && !payload) || feat <= 0 || feat >= PDFORMAT_FEAT_BITS)
		return -EINVAL;
	struct gbuf b = { 0 };
	gb_put(&b, payload, len);
	return feat_set(w, feat, &b);
}

int pdwrite_set_fired(struct pdwrite *w, const struct firedtab *t)
{
	uint8_t *buf;
	size_t len;
	if (!w || !t)
		return -EINVAL;
	int err = firedtab_encode(t, w->big_endian, &buf, &len);
	if (err)
		return err;
	err = pdwrite_set_raw_feature(w, PDFORMAT_FEAT_LATSCOPE_FIRED, buf, len);
	free(buf);
	return err;
}

int pdwrite_set_osnoise_params(struct pdwrite *w, const struct pdformat_osnp *p)
{
	if (!w || !p)
		return -EINVAL;
	uint32_t words = 1;
	for (uint32_t i = 0; i < PDFORMAT_OSNP_MAX_WORDS; i++)
		if (p->cpus[i])
			words = i + 1;
	uint32_t size = PDFORMAT_OSNP_FIXED + 8 * words;
	struct gbuf b = { 0 };
	uint8_t *h = gb_room(&b, 8);
	if (h) {
		memcpy(h, PDFORMAT_OSNP_MAGIC, 4);
		h[4] = w->big_endian ? 'B' : 'l';	/* the order of every field below */
		h[5] = 0;
		bytes_st16(h + 6, PDFORMAT_OSNP_VERSION, w->swap);
	}
	gb_u32(&b, size, w->swap);
	gb_u32(&b, words, w->swap);
	gb_u64(&b, p->threshold_us, w->swap);
	gb_u64(&b, p->period_us, w->swap);
	gb_u64(&b, p->runtime_us, w->swap);
	gb_u64(&b, p->stop_us, w->swap);
	gb_u64(&b, p->stop_total_us, w->swap);
	gb_u64(&b, p->flags & PDFORMAT_OSNP_FLAGS, w->swap);
	for (uint32_t i = 0; i < words; i++)
		gb_u64(&b, p->cpus[i], w->swap);
	return feat_set(w, PDFORMAT_FEAT_LATSCOPE_OSNOISE, &b);
}

/* A pipe carries only the features perf knows: perf 6.1 stops reading a
 * stream at a HEADER_FEATURE record whose number is at or above its last
 * feature (perf_event__process_feature returns -1).  A file carries every
 * feature (perf skips the table slots of bits it does not know). */
bool pdwrite_feat_in_stream(const struct pdwrite *w, int feat)
{
	return !w->pipe || feat < PDFORMAT_FEAT_LAST_KNOWN;
}

/* HOSTNAME must be present: a reader of a byte-swapped file checks that bit
 * to guess how the feature bitmap was stored. */
int pdwrite_default_hostname(struct pdwrite *w)
{
	if (w->feat[PDFORMAT_FEAT_HOSTNAME].set)
		return 0;
	struct utsname u;
	if (uname(&u) < 0)
		return pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "unknown");
	return pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, u.nodename);
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

int pdwrite_tracing_data_build(bool big_endian, uint32_t page_size, const char *header_page,
			   const struct pdwrite_tp_format *fmts, size_t nr, const char *printk_formats,
			   const char *saved_cmdlines, void **blob, size_t *len)
{
	static const uint8_t magic[3] = { 0x17, 0x08, 0x44 };
	bool sw = big_endian != (bool)BYTES_HOST_BIG_ENDIAN;
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
