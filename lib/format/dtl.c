/* SPDX-License-Identifier: MIT */
/* dtl.c - POWER VPA Dispatch Trace Log entry decoder (see dtl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/dtl.h"

/* Names as perf's vpa-dtl decoder prints them (merged version): index = code. */
static const char *const dispatch_names[DTL_NR_DISPATCH_REASONS] = {
	"external_interrupt",
	"firmware_internal_event",
	"H_PROD",
	"decrementer_interrupt",
	"system_reset",
	"firmware_internal_event",
	"conferred_cycles",
	"time_slice",
	"virtual_memory_page_fault",
	"expropriated_adjunct",
	"priv_doorbell",
};

static const char *const preempt_names[DTL_NR_PREEMPT_REASONS] = {
	"unused",
	"firmware_internal_event",
	"H_CEDE",
	"H_CONFER",
	"time_slice",
	"migration_hibernation_page_fault",
	"virtual_memory_page_fault",
	"H_CONFER_ADJUNCT",
	"hcall_adjunct",
	"HDEC_adjunct",
};

void dtl_encode(const struct dtl_entry *e, void *p)
{
	uint8_t *b = p;

	b[0] = e->dispatch_reason;
	b[1] = e->preempt_reason;
	bytes_st16_be(b + 2, e->processor_id);
	bytes_st32_be(b + 4, e->enqueue_to_dispatch_tb);
	bytes_st32_be(b + 8, e->ready_to_enqueue_tb);
	bytes_st32_be(b + 12, e->waiting_to_ready_tb);
	bytes_st64_be(b + 16, e->timebase);
	bytes_st64_be(b + 24, e->fault_addr);
	bytes_st64_be(b + 32, e->srr0);
	bytes_st64_be(b + 40, e->srr1);
}

void dtl_header_write(void *p, const struct dtl_tbinfo *tb, bool swap)
{
	uint8_t *b = p;

	memset(b, 0, DTL_ENTRY_SIZE);
	bytes_st64(b, tb->boot_tb, swap);
	bytes_st64(b + 8, tb->tb_freq, swap);
}

const char *dtl_dispatch_reason_name(unsigned code)
{
	return code < DTL_NR_DISPATCH_REASONS ? dispatch_names[code] : NULL;
}

const char *dtl_preempt_reason_name(unsigned code)
{
	return code < DTL_NR_PREEMPT_REASONS ? preempt_names[code] : NULL;
}

static const char *reason_str(const char *name, unsigned code, char *buf)
{
	if (name)
		return name;
	snprintf(buf, DTL_REASON_BUFSZ, "unknown(%u)", code & 0xffffu);
	return buf;
}

const char *dtl_dispatch_reason_str(unsigned code, char *buf)
{
	return reason_str(dtl_dispatch_reason_name(code), code, buf);
}

const char *dtl_preempt_reason_str(unsigned code, char *buf)
{
	return reason_str(dtl_preempt_reason_name(code), code, buf);
}

static int reason_code(const char *name, const char *const *tab, unsigned n)
{
	unsigned v;
	char end;

	if (!name)
		return -ENOENT;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(name, tab[i]))
			return (int)i;
	if (sscanf(name, "unknown(%u%c", &v, &end) == 2 && end == ')' && v <= 255)
		return (int)v;
	return -ENOENT;
}

int dtl_dispatch_reason_code(const char *name)
{
	return reason_code(name, dispatch_names, DTL_NR_DISPATCH_REASONS);
}

int dtl_preempt_reason_code(const char *name)
{
	return reason_code(name, preempt_names, DTL_NR_PREEMPT_REASONS);
}

uint64_t dtl_tb_to_ns(uint64_t tb, const struct dtl_tbinfo *tbi)
{
	double v;

	if (tb == 0 || tbi->tb_freq == 0)
		return 0;
	v = ((double)(tb - tbi->boot_tb) / (double)tbi->tb_freq) * 1e9;
	if (!(v < 18446744073709551616.0))	/* also catches NaN */
		return UINT64_MAX;
	return (uint64_t)v;
}

uint64_t dtl_tb_to_ns_exact(uint64_t tb, const struct dtl_tbinfo *tbi)
{
	unsigned __int128 v;

	if (tb == 0 || tbi->tb_freq == 0)
		return 0;
	v = (unsigned __int128)(tb - tbi->boot_tb) * 1000000000u / tbi->tb_freq;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

uint64_t dtl_ticks_to_ns(uint64_t ticks, uint64_t tb_freq)
{
	unsigned __int128 v;

	if (tb_freq == 0)
		return 0;
	v = (unsigned __int128)ticks * 1000000000u / tb_freq;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void dtl_slicer_init(struct dtl_slicer *s)
{
	memset(s, 0, sizeof(*s));
}

void dtl_slicer_init_stream(struct dtl_slicer *s)
{
	dtl_slicer_init(s);
	s->have_next = true;
	s->next_pos = 0;
}

/* where a lap-end zero run can start: 32 or 64 bytes before a multiple of 4096 */
#define LAP_ALIGN	4096u

static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void slicer_cut(struct dtl_slicer *s)
{
	if (s->part_len) {
		s->st.cut_pieces++;
		s->st.cut_bytes += s->part_len;
		s->part_len = 0;
	}
}

void dtl_slicer_feed(struct dtl_slicer *s, uint64_t pos, const void *data, uint64_t len, bool last)
{
	if (s->have_next && pos != s->next_pos) {
		if (pos > s->next_pos) {
			s->st.holes++;
			s->st.hole_bytes += pos - s->next_pos;
		}
		slicer_cut(s);		/* the stream jumps: a held partial slot is lost */
		s->gap_end = 0;
	}
	s->p = data;
	s->len = data ? len : 0;
	s->pos = pos;
	s->last = last;
	s->have_next = true;
	s->next_pos = pos + s->len;
}

static void slicer_skip(struct dtl_slicer *s, uint64_t n)
{
	s->p += n;
	s->pos += n;
	s->len -= n;
}

size_t dtl_slicer_next(struct dtl_slicer *s, const uint8_t **run, uint64_t *run_pos)
{
	for (;;) {
		if (!s->len) {
			if (s->last)
				slicer_cut(s);
			return 0;
		}
		if (s->part_len) {
			/* a held start of a lap-end zero run that this piece goes on with */
			uint64_t part_lap = LAP_ALIGN - s->part_pos % LAP_ALIGN;
			if ((part_lap == 32 || part_lap == 64) && all_zero(s->part, s->part_len)) {
				uint64_t rest = part_lap - s->part_len;
				if (all_zero(s->p, s->len < rest ? s->len : rest)) {
					s->st.wrap_gaps++;
					s->st.gap_bytes += s->part_len;
					s->gap_end = s->part_pos + part_lap;
					s->part_len = 0;
					continue;
				}
			}
			/* complete the slot a previous piece of this payload cut */
			uint64_t n = DTL_ENTRY_SIZE - s->part_len;
			if (n > s->len)
				n = s->len;
			memcpy(s->part + s->part_len, s->p, (size_t)n);
			s->part_len += (uint32_t)n;
			slicer_skip(s, n);
			if (s->part_len < DTL_ENTRY_SIZE)
				continue;
			s->part_len = 0;
			s->st.slots++;
			*run = s->part;
			*run_pos = s->part_pos;
			return 1;
		}
		if (s->gap_end > s->pos) {
			uint64_t n = s->gap_end - s->pos;
			if (n > s->len)
				n = s->len;
			if (!all_zero(s->p, n)) {
				/* not a lap's end after all (the zeros before were a
				 * zero slot): slots go on from here */
				s->gap_end = 0;
				s->st.wrap_gaps--;
				continue;
			}
			s->st.gap_bytes += n;
			slicer_skip(s, n);
			continue;
		}
		uint64_t to_lap = LAP_ALIGN - s->pos % LAP_ALIGN;
		if ((to_lap == 32 || to_lap == 64) && s->len >= 32 &&
		    all_zero(s->p, s->len < to_lap ? s->len : to_lap)) {
			s->st.wrap_gaps++;
			s->gap_end = s->pos + to_lap;
			continue;
		}
		if (s->len < DTL_ENTRY_SIZE) {
			/* a partial slot: the next piece may complete it */
			memcpy(s->part, s->p, (size_t)s->len);
			s->part_len = (uint32_t)s->len;
			s->part_pos = s->pos;
			slicer_skip(s, s->len);
			continue;
		}
		/* whole slots up to the next place a zero run can start */
		size_t n = 0;
		uint64_t max = s->len / DTL_ENTRY_SIZE, at = to_lap;
		do {
			n++;
			at = at > DTL_ENTRY_SIZE ? at - DTL_ENTRY_SIZE : at + LAP_ALIGN - DTL_ENTRY_SIZE;
		} while (n < max && at != 32 && at != 64);
		*run = s->p;
		*run_pos = s->pos;
		slicer_skip(s, (uint64_t)n * DTL_ENTRY_SIZE);
		s->st.slots += n;
		return n;
	}
}

int dtl_scan_payload(uint64_t pos, const void *data, uint64_t len, bool swap, struct dtl_tbinfo *tbi,
		     struct dtl_scan_stats *st, dtl_entry_fn fn, void *ctx)
{
	struct dtl_slicer sl;
	const uint8_t *p;
	uint64_t at;
	size_t n;
	struct dtl_entry e;

	dtl_slicer_init(&sl);
	dtl_slicer_feed(&sl, pos, data, len, true);
	while ((n = dtl_slicer_next(&sl, &p, &at)) > 0) {
		for (size_t i = 0; i < n; i++, p += DTL_ENTRY_SIZE, at += DTL_ENTRY_SIZE) {
			struct dtl_tbinfo h;
			enum dtl_slot_kind k = dtl_slot_kind(p, swap, &h);

			if (k == DTL_SLOT_HEADER) {
				if (st)
					st->headers++;
				if (tbi && !dtl_tbinfo_valid(tbi))
					*tbi = h;
			} else if (k == DTL_SLOT_SKIPPED && st) {
				st->skipped++;
			}
			if (k != DTL_SLOT_ENTRY)
				continue;
			dtl_decode(p, &e);
			if (st) {
				st->entries++;
				if (e.dispatch_reason >= DTL_NR_DISPATCH_REASONS ||
				    e.preempt_reason >= DTL_NR_PREEMPT_REASONS)
					st->bad_reasons++;
			}
			if (fn) {
				int rc = fn(ctx, &e, at - pos);
				if (rc)
					return rc;
			}
		}
	}
	if (st) {
		st->payloads++;
		st->slots += sl.st.slots;
		st->odd_payloads += sl.st.cut_pieces;
		st->tail_bytes += sl.st.cut_bytes;
		st->wrap_gaps += sl.st.wrap_gaps;
		st->wrap_gap_bytes += sl.st.gap_bytes;
	}
	return 0;
}
