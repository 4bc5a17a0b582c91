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

int dtl_scan_payload(const void *data, uint64_t len, bool swap, struct dtl_tbinfo *tbi,
		     struct dtl_scan_stats *st, dtl_entry_fn fn, void *ctx)
{
	const uint8_t *p = data;
	uint64_t tail;
	size_t n = dtl_payload_slots(len, &tail);
	struct dtl_entry e;

	if (st) {
		st->payloads++;
		st->slots += n;
		if (tail) {
			st->odd_payloads++;
			st->tail_bytes += tail;
		}
	}
	for (size_t i = 0; i < n; i++, p += DTL_ENTRY_SIZE) {
		if (dtl_raw_is_skipped(p)) {
			struct dtl_tbinfo h;

			dtl_header_read(p, swap, &h);
			if (dtl_raw_is_header(p) && dtl_tbinfo_valid(&h)) {
				if (st)
					st->headers++;
				if (tbi && !dtl_tbinfo_valid(tbi))
					*tbi = h;
			} else if (st) {
				st->skipped++;
			}
			continue;
		}
		dtl_decode(p, &e);
		if (st) {
			st->entries++;
			if (e.dispatch_reason >= DTL_NR_DISPATCH_REASONS ||
			    e.preempt_reason >= DTL_NR_PREEMPT_REASONS)
				st->bad_reasons++;
		}
		if (fn) {
			int rc = fn(ctx, &e, (uint64_t)i * DTL_ENTRY_SIZE);
			if (rc)
				return rc;
		}
	}
	return 0;
}
