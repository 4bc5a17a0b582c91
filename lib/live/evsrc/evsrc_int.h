/* SPDX-License-Identifier: MIT */
/*
 * evsrc_int.h - the live tracepoint source's private parts, shared by the
 * files of lib/live/evsrc/ (evsrc.c: open, close, the events; evsrc_read.c:
 * the rings drained and delivered in time order; evsrc_count.c: the
 * counting twins).  Nothing outside the folder includes it.
 */
#ifndef LATSCOPE_EVSRC_INT_H
#define LATSCOPE_EVSRC_INT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/evsrc.h"
#include "live/perfring.h"

#define EVSRC_MAX_EVENTS	128
#define EVSRC_MAX_SYSTEMS	16

struct evsrc_event {
	char name[128];			/* "system:event" */
	int id;				/* tracepoint id */
	struct pdformat_attr pattr;
	bool may_skip;			/* from a glob or an optional spec */
	bool skipped;			/* the kernel refused it: left out */
	uint64_t *ids;			/* one per CPU */
	size_t nr_ids;
	/* per traced CPU (index as s->cpus): the counting twin (-1: none), the
	 * times it fired (its last read) and the samples read of it */
	int *twin;
	uint64_t *fired, *got;
};

struct evsrc_cpu {
	int cpu;
	int ring_fd;			/* fd the ring is mapped on */
	void *base;
	size_t map_len;
	size_t data_len;
	struct perfring ring;		/* walks base's data area */
	struct tpevent *q;			/* reorder queue, sorted by time */
	size_t q_head, q_len;
	struct evsrc *owner;
	uint64_t samples;		/* PERF_RECORD_SAMPLEs read from this ring */
	uint64_t undelivered;		/* fired - samples - lost at the last evsrc_count */
	bool pending;			/* the last drain left records in the ring */
};

struct evsrc {
	struct evsrc_opts opts;
	struct tep_handle *tep;
	struct tpdecode *tpd;
	struct evsrc_event ev[EVSRC_MAX_EVENTS];
	size_t nr_ev;
	size_t first_ok;		/* first event not skipped */
	struct evsrc_cpu *cpus;
	size_t nr_cpus;
	int *fds;			/* nr_fds, -1 when not open */
	size_t nr_fds;
	struct pollfd *pfd;
	struct evsrc_stats st;
	uint64_t last_delivered_ns;
	evsrc_raw_cb raw_cb;
	void *raw_arg;
	struct pdwrite *rec_pw;		/* evsrc_record_into */
	bool *rec_err;
	uint8_t *tmp;			/* bounce buffer of every ring (perfring) */
	char note[1024];		/* events left out */
	char count_note[256];		/* why the twins do not count ("" when they do) */
	size_t page;
	char err[512];
};

/* the error text evsrc_strerror() gives */
void evsrc_seterr(struct evsrc *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* drain every ring until empty or its queue full, total the rings'
 * counters into s->st; whether a ring has records left (evsrc_read.c) */
bool evsrc_drain_all(struct evsrc *s);
/* no counting after all: every twin closed, why in count_note (evsrc_count.c) */
void evsrc_twins_off(struct evsrc *s, const char *why, int err);

#endif
