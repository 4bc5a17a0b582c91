/* SPDX-License-Identifier: MIT */
/*
 * dtl.h - POWER VPA Dispatch Trace Log entry decoder.
 *
 * Prefix: dtl_.
 *
 * A DTL entry is 48 bytes written by the hypervisor, every multi-byte field
 * big-endian whatever the kernel's byte order.  The vpa_dtl PMU puts one
 * extra 48-byte "header" record at the start of each CPU's AUX stream: its
 * timebase field (offset 16) is 0 and its first two u64 words are boot_tb and
 * tb_freq in the *recording host's* byte order (= the perf.data file's byte
 * order), not big-endian.
 *
 * Everything here is pure computation: no allocation, no I/O, no printing.
 * Loads are unaligned-safe (lib/base/bytes.h), so entries may sit at any address.
 */
#ifndef LATSCOPE_DTL_H
#define LATSCOPE_DTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

#define DTL_ENTRY_SIZE		48
#define DTL_RING_ENTRIES	85	/* 4096 / 48: the hypervisor's per-CPU ring */
#define DTL_DEFAULT_TB_FREQ	512000000ULL

/* dtl_enable_mask / vpa_dtl config values. */
#define DTL_MASK_CEDE		0x1
#define DTL_MASK_PREEMPT	0x2
#define DTL_MASK_FAULT		0x4
#define DTL_MASK_ALL		0x7

#define DTL_NR_DISPATCH_REASONS	11
#define DTL_NR_PREEMPT_REASONS	10

/* Buffer size for dtl_*_reason_str(): "unknown(255)" + NUL. */
#define DTL_REASON_BUFSZ	16

/* One decoded entry, host order.  The three times are timebase ticks. */
struct dtl_entry {
	uint8_t dispatch_reason;
	uint8_t preempt_reason;
	uint16_t processor_id;
	uint32_t enqueue_to_dispatch_tb;
	uint32_t ready_to_enqueue_tb;
	uint32_t waiting_to_ready_tb;
	uint64_t timebase;
	uint64_t fault_addr;
	uint64_t srr0;
	uint64_t srr1;
};

/* Timebase parameters from the AUX header record (or from /proc/cpuinfo). */
struct dtl_tbinfo {
	uint64_t boot_tb;
	uint64_t tb_freq;		/* Hz; 0 = unknown */
};

/*
 * The fields of a raw entry, the 48 big-endian bytes at p (any alignment):
 * the one place that knows the layout.  dtl_decode reads them all; a hot
 * path that needs one or two reads those alone.
 */
static inline uint8_t dtl_raw_dispatch_reason(const void *p) { return ((const uint8_t *)p)[0]; }
static inline uint8_t dtl_raw_preempt_reason(const void *p) { return ((const uint8_t *)p)[1]; }
static inline uint16_t dtl_raw_processor_id(const void *p) { return bytes_ld16_be((const uint8_t *)p + 2); }
static inline uint32_t dtl_raw_enqueue_to_dispatch(const void *p) { return bytes_ld32_be((const uint8_t *)p + 4); }
static inline uint32_t dtl_raw_ready_to_enqueue(const void *p) { return bytes_ld32_be((const uint8_t *)p + 8); }
static inline uint32_t dtl_raw_waiting_to_ready(const void *p) { return bytes_ld32_be((const uint8_t *)p + 12); }
static inline uint64_t dtl_raw_timebase(const void *p) { return bytes_ld64_be((const uint8_t *)p + 16); }
static inline uint64_t dtl_raw_fault_addr(const void *p) { return bytes_ld64_be((const uint8_t *)p + 24); }
static inline uint64_t dtl_raw_srr0(const void *p) { return bytes_ld64_be((const uint8_t *)p + 32); }
static inline uint64_t dtl_raw_srr1(const void *p) { return bytes_ld64_be((const uint8_t *)p + 40); }

/* dtl_decode - decode the 48 big-endian bytes at p (any alignment). */
static inline void dtl_decode(const void *p, struct dtl_entry *e)
{
	e->dispatch_reason = dtl_raw_dispatch_reason(p);
	e->preempt_reason = dtl_raw_preempt_reason(p);
	e->processor_id = dtl_raw_processor_id(p);
	e->enqueue_to_dispatch_tb = dtl_raw_enqueue_to_dispatch(p);
	e->ready_to_enqueue_tb = dtl_raw_ready_to_enqueue(p);
	e->waiting_to_ready_tb = dtl_raw_waiting_to_ready(p);
	e->timebase = dtl_raw_timebase(p);
	e->fault_addr = dtl_raw_fault_addr(p);
	e->srr0 = dtl_raw_srr0(p);
	e->srr1 = dtl_raw_srr1(p);
}

/* dtl_encode - inverse of dtl_decode (synthetic data, tests). */
void dtl_encode(const struct dtl_entry *e, void *p);

/* True when the 8 bytes at offset 16 (the timebase) are all zero: the slot is
 * the vpa_dtl header record (or an empty slot). */
static inline bool dtl_raw_is_header(const void *p)
{
	return dtl_raw_timebase(p) == 0;	/* zero in either byte order */
}

/* True when perf would skip the slot: its timebase, read as a signed
 * big-endian 64-bit value, is <= 0 (header, zero fill, garbage). */
static inline bool dtl_raw_is_skipped(const void *p)
{
	return (int64_t)dtl_raw_timebase(p) <= 0;
}

/*
 * dtl_header_read - read boot_tb and tb_freq from a header slot in the
 * FILE's byte order (swap = the file's order differs from the host's).
 * perf reads them natively, which is wrong for a cross-endian file.
 */
static inline void dtl_header_read(const void *p, bool swap, struct dtl_tbinfo *out)
{
	out->boot_tb = bytes_ld64(p, swap);
	out->tb_freq = bytes_ld64((const uint8_t *)p + 8, swap);
}

/*
 * dtl_poll_filled_ring - true when one poll of the vpa_dtl driver copied
 * aux_size bytes that mean the hypervisor's 85-entry ring overflowed before
 * it: the driver copies at most 84 entries (from cur_idx - 85 + 1 on
 * overflow), plus the header record on a CPU's first poll (first).
 */
static inline bool dtl_poll_filled_ring(uint64_t aux_size, bool first)
{
	uint64_t slots = aux_size / DTL_ENTRY_SIZE;

	return aux_size % DTL_ENTRY_SIZE == 0 &&
	       (slots == DTL_RING_ENTRIES - 1 || (first && slots == DTL_RING_ENTRIES));
}

/* dtl_header_write - build a header slot (padding zeroed) in the given order. */
void dtl_header_write(void *p, const struct dtl_tbinfo *tb, bool swap);

/* A header is plausible when tb_freq is non-zero (not an empty slot). */
static inline bool dtl_tbinfo_valid(const struct dtl_tbinfo *tb)
{
	return tb->tb_freq != 0;
}

/* The sample_type perf record gives the vpa_dtl event (IDENTIFIER, IP, TID,
 * TIME, CPU, PERIOD: 0x10187); perf script refuses a file without IP, as
 * its default fields print symbols.  dtl record (file and live event) and
 * dtl synth write it. */
#define DTL_VPA_SAMPLE_TYPE	((1ULL << 16) | (1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 7) | (1ULL << 8))

/* What a 48-byte slot of a vpa_dtl payload is, by perf's skip rule. */
enum dtl_slot_kind {
	DTL_SLOT_ENTRY,		/* timebase (signed, big-endian) > 0 */
	DTL_SLOT_HEADER,	/* timebase 0 and a plausible boot_tb/tb_freq */
	DTL_SLOT_SKIPPED,	/* any other timebase <= 0: zero fill, garbage */
};

/*
 * dtl_slot_kind - classify the slot at p.  For a header, *h holds its
 * boot_tb/tb_freq read in the file's order (swap); otherwise *h is not
 * touched.  Nothing is allocated.
 */
static inline enum dtl_slot_kind dtl_slot_kind(const void *p, bool swap, struct dtl_tbinfo *h)
{
	struct dtl_tbinfo t;

	if (!dtl_raw_is_skipped(p))
		return DTL_SLOT_ENTRY;
	dtl_header_read(p, swap, &t);
	if (!dtl_raw_is_header(p) || !dtl_tbinfo_valid(&t))
		return DTL_SLOT_SKIPPED;
	*h = t;
	return DTL_SLOT_HEADER;
}

/* Table names; NULL when the code is outside the table. Static strings. */
const char *dtl_dispatch_reason_name(unsigned code);
const char *dtl_preempt_reason_name(unsigned code);

/* Never NULL: the name, or "unknown(N)" written into buf (DTL_REASON_BUFSZ). */
const char *dtl_dispatch_reason_str(unsigned code, char *buf);
const char *dtl_preempt_reason_str(unsigned code, char *buf);

/* Reverse lookup for option parsing: code or -ENOENT ("unknown(N)" accepted). */
int dtl_dispatch_reason_code(const char *name);
int dtl_preempt_reason_code(const char *name);

/*
 * dtl_tb_to_ns - timebase to perf time (ns since boot_tb) with perf's exact
 * double formula: (u64)(((double)(tb - boot_tb) / (double)tb_freq) * 1e9),
 * the subtraction in unsigned 64-bit.  tb == 0 gives 0.  A tb_freq of 0
 * gives 0; results beyond the u64 range saturate to UINT64_MAX (perf's
 * conversion is undefined there).
 */
uint64_t dtl_tb_to_ns(uint64_t tb, const struct dtl_tbinfo *tbi);

/* dtl_tb_to_ns_exact - floor((tb - boot_tb) * 1e9 / tb_freq) in 128-bit
 * integer arithmetic (may differ from perf's double by ~1 ns). */
uint64_t dtl_tb_to_ns_exact(uint64_t tb, const struct dtl_tbinfo *tbi);

/* Duration in ticks to ns (exact, 128-bit); tb_freq 0 gives 0. */
uint64_t dtl_ticks_to_ns(uint64_t ticks, uint64_t tb_freq);

/*
 * Payload geometry: a payload of len bytes holds len / 48 whole slots and
 * len % 48 trailing bytes that perf ignores.  Returns the slot count and
 * stores the remainder in *tail_bytes (may be NULL).
 */
static inline size_t dtl_payload_slots(uint64_t len, uint64_t *tail_bytes)
{
	if (tail_bytes)
		*tail_bytes = len % DTL_ENTRY_SIZE;
	return (size_t)(len / DTL_ENTRY_SIZE);
}

/*
 * The AUX buffer wrap of the vpa_dtl driver (docs/dtl.md, "The AUX buffer
 * wrap"): the driver copies whole entries up to threshold = (size - 32) / 48
 * entries into its AUX buffer of size bytes (a power of two of pages) and
 * never writes the 32 or 64 bytes after them; the commit that reaches the
 * buffer's end commits those bytes too, so each lap of a CPU's AUX stream
 * ends with a run of zero bytes and the next lap starts, entry-aligned, at a
 * multiple of the buffer size.  A reader that steps 48 bytes at a time from a
 * payload's start reads shifted garbage after such a run (perf does).
 *
 * dtl_slicer walks one CPU's AUX stream, fed piece by piece in stream order
 * (pos = the stream offset of the piece's first byte: the AUXTRACE record's
 * offset plus the position in its payload), and hands out runs of whole
 * 48-byte slots, skipping the zero run at a lap's end.  A lap ends at a
 * multiple of the buffer size, and every buffer size is a multiple of 4096,
 * so a zero run of 32 or 64 bytes that ends at a multiple of 4096 is taken
 * for one; a real entry cannot be one (its timebase, bytes 16-23, is never
 * zero).  A slot that a piece cuts is completed from the next piece when
 * that continues the stream (a payload read in chunks); at the end of a
 * payload (last) or where the stream jumps, its bytes are counted as cut; a
 * piece that starts past the stream's end so far is a hole (counted: bytes
 * the reader never copied) and must start at an entry's place.
 * No allocation; the struct is the caller's (zero it, or dtl_slicer_init).
 */
struct dtl_slice_stats {
	uint64_t slots;			/* whole slots handed out */
	uint64_t wrap_gaps;		/* zero runs at a lap's end skipped */
	uint64_t gap_bytes;		/* their bytes */
	uint64_t cut_pieces;		/* payload ends (or jumps) inside a slot */
	uint64_t cut_bytes;		/* the bytes of those partial slots */
	uint64_t holes;			/* pieces that start past where the stream was: bytes
					 * of the stream never in the file (an AUX overrun) */
	uint64_t hole_bytes;		/* the bytes skipped */
};

struct dtl_slicer {
	const uint8_t *p;		/* the piece being walked */
	uint64_t len, pos;
	bool last;
	bool have_next;
	uint64_t next_pos;		/* stream offset after the last piece */
	uint64_t gap_end;		/* inside a lap-end zero run up to here */
	uint64_t part_pos;
	uint32_t part_len;
	uint8_t part[DTL_ENTRY_SIZE];	/* a slot cut by a piece boundary */
	struct dtl_slice_stats st;
};

void dtl_slicer_init(struct dtl_slicer *s);

/* dtl_slicer_init_stream - for a CPU's whole AUX stream, which starts at
 * offset 0 (the perf core's aux_head does): a first piece past 0 is a hole
 * too (what an overrun before the first read leaves). */
void dtl_slicer_init_stream(struct dtl_slicer *s);

/* dtl_slicer_feed - walk [data, data + len) next, the stream bytes at pos;
 * last: the piece ends its payload.  data must stay valid until
 * dtl_slicer_next returns 0. */
void dtl_slicer_feed(struct dtl_slicer *s, uint64_t pos, const void *data, uint64_t len, bool last);

/* dtl_slicer_next - the next run of whole slots of the piece: returns their
 * number (0: the piece is used up) and sets *run to the first slot's bytes
 * (into the piece, or the slicer's own copy of a slot the pieces cut) and
 * *run_pos to its stream offset.  Slots are contiguous within a run. */
size_t dtl_slicer_next(struct dtl_slicer *s, const uint8_t **run, uint64_t *run_pos);

/*
 * The codes of the PERF_RECORD_AUXTRACE_ERROR records latscope dtl record
 * writes (pdformat.h, type PDFORMAT_AUXERR_TYPE_ITRACE: perf counts them as
 * trace errors and dumps their message): DTL_AUXERR_STOPPED, the CPU's AUX
 * buffer was full at a poll of the driver, which lost that poll and the
 * kernel disabled the event for good (its DTL ends there);
 * DTL_AUXERR_OVERRUN, the driver wrote over AUX bytes before they were read
 * (the bytes are a hole in the CPU's AUX stream: dtl_slice_stats.holes);
 * DTL_AUXERR_LAPPED, the hypervisor lapped the debugfs reader (a read that
 * returned the kernel's whole buffer less one, or entries out of order,
 * dropped): entries before it are lost, how many is not known.
 */
#define DTL_AUXERR_STOPPED	1
#define DTL_AUXERR_OVERRUN	2
#define DTL_AUXERR_LAPPED	3

/* Counters of a payload scan (see dtl_scan_payload). */
struct dtl_scan_stats {
	uint64_t payloads;
	uint64_t slots;			/* whole 48-byte slots seen */
	uint64_t entries;		/* real entries delivered */
	uint64_t headers;		/* header records (timebase 0, tb_freq != 0) */
	uint64_t skipped;		/* other slots with timebase <= 0 */
	uint64_t odd_payloads;		/* payloads that end inside a slot (cut) */
	uint64_t tail_bytes;		/* the bytes of those partial slots */
	uint64_t wrap_gaps;		/* AUX laps' end zero runs skipped */
	uint64_t wrap_gap_bytes;	/* their bytes */
	uint64_t holes;			/* payloads that start past where the CPU's stream was:
					 * bytes the reader never copied (an AUX overrun) */
	uint64_t hole_bytes;		/* those bytes */
	uint64_t bad_reasons;		/* entries with a reason outside the tables */
};

/*
 * dtl_scan_payload - walk one whole AUX payload whose first byte is at
 * stream offset pos (its AUXTRACE record's offset; see dtl_slicer, whose
 * wrap rule it applies): header slots update *tbi (when
 * tbi != NULL and it is still unset, i.e. tb_freq == 0), skipped slots are
 * counted, and fn(ctx, entry, slot_offset) is called for each real entry in
 * order.  fn returning non-zero stops the scan and that value is returned;
 * otherwise 0.  swap is the file's byte order (for the header).
 */
typedef int (*dtl_entry_fn)(void *ctx, const struct dtl_entry *e, uint64_t slot_off);
int dtl_scan_payload(uint64_t pos, const void *data, uint64_t len, bool swap, struct dtl_tbinfo *tbi,
		     struct dtl_scan_stats *st, dtl_entry_fn fn, void *ctx);

#endif
