/* SPDX-License-Identifier: MIT */
/*
 * firedtab.h - what the kernel fired against what it delivered: per traced
 * CPU and per event, the counting twins' counts (live/firecount.h) beside the
 * samples read; the one model of that loss, filled by the live source
 * (evsrc_fired_table) or a recording (pdread: the LATSCOPE_FIRED feature)
 * and rendered by every command that uses the perf path.
 *
 * Prefix: firedtab_.
 *
 * The LATSCOPE_FIRED section (perf.data feature bit 254, a bit perf never
 * parses: pdformat.h), every integer in the order named by byte 4 ('l'
 * little-endian, 'B' big-endian):
 *
 *	off size
 *	  0   4  magic "LSFC"
 *	  4   1  byte order tag 'l' or 'B'
 *	  5   1  0
 *	  6   2  u16 version (FIREDTAB_VERSION)
 *	  8   4  u32 size of the whole section
 *	 12   4  u32 nr_cpu
 *	 16   4  u32 nr_ev
 *	 20   4  u32 0
 *	 24   8  u64 throttles (PERF_RECORD_THROTTLE records read)
 *	 32   8  u64 unthrottles
 *	 40      nr_cpu records of 40 bytes: u32 cpu, u32 0, u64 fired,
 *	         u64 samples, u64 lost (PERF_RECORD_LOST), u64 undelivered
 *	         nr_ev records of 32 bytes: u64 config (tracepoint id), u32 cpu,
 *	         u32 0, u64 fired, u64 delivered
 *
 * size = 40 + 40 * nr_cpu + 32 * nr_ev; the reserved fields (0 above) are
 * 0; the decoder refuses anything else, so a decoded section encodes back
 * to the same bytes.
 * Pure: no I/O, never prints.
 */
#ifndef LATSCOPE_FIREDTAB_H
#define LATSCOPE_FIREDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIREDTAB_MAGIC		"LSFC"
#define FIREDTAB_VERSION	1
#define FIREDTAB_FIXED		40u
#define FIREDTAB_CPU_REC	40u
#define FIREDTAB_EV_REC		32u
#define FIREDTAB_MAX_CPUS	4096u
#define FIREDTAB_MAX_EVENTS	(128u * FIREDTAB_MAX_CPUS)

struct firedtab_cpu {
	uint32_t cpu;
	uint64_t fired;			/* every event's firings on it */
	uint64_t samples;		/* samples read from its ring */
	uint64_t lost;			/* counted in PERF_RECORD_LOST records */
	uint64_t undelivered;		/* fired - samples - lost: dropped without a record */
};

struct firedtab_event {
	uint64_t config;		/* tracepoint id */
	uint32_t cpu;
	uint64_t fired, delivered;	/* the twin's count; the samples read */
	char name[96];			/* "sys:event" when known, else "" */
};

struct firedtab {
	bool counted;			/* the counts exist (else note says why) */
	char note[256];
	uint64_t throttles, unthrottles;
	struct firedtab_cpu *cpu;	/* nr_cpu, owned by the table */
	size_t nr_cpu;
	struct firedtab_event *ev;	/* nr_ev, owned by the table */
	size_t nr_ev;
};

/* firedtab_alloc - room for nr_cpu CPUs and nr_ev events (zeroed); t's
 * earlier arrays are freed.  0 or -ENOMEM/-E2BIG.  Free with firedtab_free. */
int firedtab_alloc(struct firedtab *t, size_t nr_cpu, size_t nr_ev);
/* firedtab_free - free the arrays; t is empty (not counted) after. */
void firedtab_free(struct firedtab *t);
/* Totals over the CPUs. */
uint64_t firedtab_fired(const struct firedtab *t);
uint64_t firedtab_undelivered(const struct firedtab *t);

/*
 * firedtab_encode - t as a LATSCOPE_FIRED section in byte order big_endian:
 * *out (malloc'd, the caller frees it) of *len bytes.  0 or -ENOMEM/-E2BIG.
 */
int firedtab_encode(const struct firedtab *t, bool big_endian, uint8_t **out, size_t *len);
/*
 * firedtab_decode - a section of len bytes into t (counted; names empty).
 * 0, or a negative errno with *bad_off the offset of the field at fault
 * inside the section and why a static text.  t is the caller's: free it with
 * firedtab_free on success.
 */
int firedtab_decode(const uint8_t *p, size_t len, struct firedtab *t, size_t *bad_off, const char **why);

#endif
