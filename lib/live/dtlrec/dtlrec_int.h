/* SPDX-License-Identifier: MIT */
/*
 * dtlrec_int.h - the DTL recorder's state, shared by dtlrec.c (open, enable,
 * close), dtlrec_header.c (the output's header) and dtlrec_drain.c (draining
 * the rings, debugfs and AUX areas).
 * Not for other modules.
 */
#ifndef LATSCOPE_DTLREC_INT_H
#define LATSCOPE_DTLREC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/dtl.h"
#include "live/dtlrec.h"
#include "format/pdwrite.h"
#include "live/perfring.h"


#define MAX_TP		16
#define DBG_READ	(DTL_RING_ENTRIES * DTL_ENTRY_SIZE)	/* 4080: a multiple of 48 */
#define SYNTH_ID_BASE	0x7ff00000ULL

struct rcpu {
	unsigned cpu;
	int fd_main;			/* owns the ring: vpa_dtl (PMU) or the first tracepoint */
	int fd_dtl;			/* vpa_dtl event, -1 in debugfs mode */
	int fd_tp[MAX_TP];
	int fd_twin[MAX_TP];		/* each tracepoint's counting twin (firecount.h), -1: none */
	uint64_t got_tp[MAX_TP];	/* its samples copied */
	uint64_t id_dtl, id_tp[MAX_TP];
	void *base;
	size_t map_len;
	struct perfring ring;		/* walks base's data area (owns its bounce buffer) */
	void *aux;
	size_t aux_len;
	int dbg_fd;
	uint8_t carry[DTL_ENTRY_SIZE];
	size_t carry_len;
	uint64_t aux_off;		/* debugfs: bytes of AUX stream written */
	uint64_t dbg_last_tb;		/* debugfs: timebase of the last entry written */
	struct dtl_slicer sl;		/* PMU: counts the entries of the AUX stream */
	uint64_t last_aux_ns;		/* time of its last PERF_RECORD_AUX (perf clock) */
	int suspect;			/* its AUX buffer was found full: drains left to check */
	bool stopped;			/* the kernel disabled its event (a full AUX buffer) */
	bool header_done;
};

struct dtlrec {
	struct dtlrec_opts o;
	char err[512];
	struct pdwrite *w;
	struct rcpu *c;
	unsigned nc;
	bool pmu;
	uint32_t pmu_type;
	uint64_t tb_freq, boot_tb;
	uint64_t dbg_entries;		/* debugfs: the kernel's buffer (dtl_buf_entries), 0: unknown */
	size_t page;
	struct tracedata_formats *tf;
	uint64_t tp_id[MAX_TP];
	uint8_t *tmp;
	size_t tmp_cap;
	struct dtlrec_stats st;
	bool enabled;
	bool closing;			/* dtlrec_close disabled the events */
	bool counting;			/* every tracepoint has its twin */
	struct rcpu *cur;		/* the CPU whose ring is being drained */
	char mask_path[4096];		/* debugfs dtl_event_mask, "" when not written */
	char mask_old[16];		/* its text before the run, written back by dtlrec_close */
};

/* dtlrec_drain.c */
int dtlrec_drain_all(struct dtlrec *r);
/* the CPUs whose AUX buffer was found full: is their event disabled? (said
 * in the file and the counters) */
int dtlrec_check_stopped(struct dtlrec *r);

/* dtlrec.c */
int dtlrec_seterr(struct dtlrec *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* dtlrec_header.c: the output's header (the events, the features, the
 * kernel's map and the tasks' names); nothing with a sink.  0 or a
 * negative errno (the error text set). */
int dtlrec_write_header(struct dtlrec *r, const char *output);

/* given when set and not empty, else def (a root directory's default) */
static inline const char *dtlrec_root(const char *given, const char *def)
{
	return given && *given ? given : def;
}

#endif
