/* SPDX-License-Identifier: MIT */
/* dtlrec_drain.c - the DTL recorder's drain: perf rings, AUX areas and debugfs into the file (see dtlrec.c). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "base/bytes.h"
#include "dtlrec_int.h"

static int tmp_reserve(struct dtlrec *r, size_t n)
{
	if (r->tmp_cap >= n)
		return 0;
	uint8_t *p = realloc(r->tmp, n);
	if (!p)
		return -ENOMEM;
	r->tmp = p;
	r->tmp_cap = n;
	return 0;
}

/* One data-ring record into the file (perfring_cb); the walker counts
 * PERF_RECORD_LOST and corrupt data. */
static int copy_record(void *arg, const struct perf_event_header *h, const uint8_t *rec)
{
	struct dtlrec *r = arg;
	struct rcpu *c = r->cur;

	if (h->type == PERF_RECORD_SAMPLE && h->size >= 16 && c) {
		uint64_t id = bytes_ld64(rec + 8, false);	/* PERF_SAMPLE_IDENTIFIER: first */
		for (size_t t = 0; t < r->o.nr_tracepoints; t++)
			if (c->fd_tp[t] >= 0 && id == c->id_tp[t]) {
				c->got_tp[t]++;
				break;
			}
	}
	/* rec is the whole record: aux_offset at 8, aux_size at 16, flags at
	 * 24, then the sample_id trailer (TID, TIME, ...) */
	if (h->type == PERF_RECORD_AUX && h->size >= 32) {
		uint64_t fl = bytes_ld64(rec + 24, false);
		if (fl & (PDFORMAT_AUX_FLAG_TRUNCATED | PDFORMAT_AUX_FLAG_PARTIAL | PDFORMAT_AUX_FLAG_COLLISION))
			r->st.aux_flags_lost++;
		if (c && h->size >= 48)	/* sample_id_all: pid/tid, then time */
			c->last_aux_ns = bytes_ld64(rec + 40, false);
		if (r->o.sink && r->o.aux_sink && c)
			r->o.aux_sink(r->o.sink_arg, c->cpu, bytes_ld64(rec + 8, false), bytes_ld64(rec + 16, false), fl);
	}
	int err = r->o.sink ? 0 : pdwrite_write_record(r->w, h->type, h->misc, rec + sizeof(*h),
						     h->size - sizeof(*h));
	if (!err)
		r->st.records++;
	return err;
}

static int drain_ring(struct dtlrec *r, struct rcpu *c)
{
	if (!c->base)
		return 0;
	r->cur = c;
	int err = perfring_walk(&c->ring, copy_record, r);
	r->cur = NULL;
	return err < 0 ? err : 0;
}

static int write_aux(struct dtlrec *r, struct rcpu *c, const uint8_t *p, size_t len, uint64_t offset)
{
	size_t padded = (len + 7) & ~(size_t)7;
	struct pdread_auxtrace a = { .size = padded, .offset = offset, .reference = 0,
				  .idx = (uint32_t)(c - r->c), .tid = (uint32_t)-1, .cpu = c->cpu };
	int err;

	if (r->o.sink) {
		r->st.aux_chunks++;
		r->st.aux_bytes += len;
		r->o.sink(r->o.sink_arg, c->cpu, offset, p, len);
		return 0;
	}
	if (padded != len) {
		err = tmp_reserve(r, padded);
		if (err)
			return err;
		if (p != r->tmp)
			memmove(r->tmp, p, len);
		memset(r->tmp + len, 0, padded - len);
		p = r->tmp;
	}
	r->st.aux_chunks++;
	r->st.aux_bytes += len;
	return pdwrite_write_auxtrace(r->w, &a, p, padded);
}

/* The most one poll of the driver writes past aux_head (the hypervisor's
 * ring and the header slot), never past the lap's end: the poll that
 * reaches it commits up to the end and the next one starts the next lap. */
#define DRIVER_WRITE_MAX	((DTL_RING_ENTRIES + 1) * DTL_ENTRY_SIZE + 64)

/* The first entry place at or after stream offset pos: each lap of the
 * stream is len bytes, entries from its start, 48 bytes apart, up to
 * (len - 32) / 48 of them (docs/dtl.md, "The AUX buffer wrap"). */
static uint64_t entry_place(uint64_t pos, uint64_t len)
{
	uint64_t in = pos % len, lap = pos - in;
	uint64_t at = (in + DTL_ENTRY_SIZE - 1) / DTL_ENTRY_SIZE * DTL_ENTRY_SIZE;
	return at + DTL_ENTRY_SIZE <= len - 32 ? lap + at : lap + len;
}

/* One PERF_RECORD_AUXTRACE_ERROR of CPU c into the file (or the monitor's
 * counters only): code DTL_AUXERR_*, at time_ns (perf clock; 0 = unknown). */
static int write_auxerr(struct dtlrec *r, struct rcpu *c, uint32_t code, uint64_t time_ns, const char *msg)
{
	uint8_t b[PDFORMAT_AUXERR_BODY_FMT1];
	uint32_t u[6] = { PDFORMAT_AUXERR_TYPE_ITRACE, code, c->cpu, (uint32_t)-1, (uint32_t)-1, 1 };

	if (!r->w)
		return 0;
	memset(b, 0, sizeof(b));
	memcpy(b, u, sizeof(u));	/* the file is in this machine's order */
	memcpy(b + 32, &time_ns, 8);
	snprintf((char *)b + PDFORMAT_AUXERR_MSG_OFF, PDFORMAT_AUXERR_MSG_LEN, "%s", msg);
	return pdwrite_write_record(r->w, PDFORMAT_RECORD_AUXTRACE_ERROR, 0, b, sizeof(b));
}

/* Has the kernel disabled CPU c's vpa_dtl event?  An enabled event's
 * enabled time runs on: two reads differ. */
static bool event_stopped(const struct rcpu *c)
{
	uint64_t a[2], b[2];

	if (read(c->fd_dtl, a, sizeof(a)) != (ssize_t)sizeof(a) || read(c->fd_dtl, b, sizeof(b)) != (ssize_t)sizeof(b))
		return false;
	return a[1] == b[1];
}

/* A CPU whose AUX buffer was found full: has the kernel disabled its event? */
static int check_stopped(struct dtlrec *r, struct rcpu *c)
{
	if (!c->suspect || c->stopped || !r->enabled || r->closing || c->fd_dtl < 0)
		return 0;
	c->suspect--;
	if (!event_stopped(c))
		return 0;
	c->stopped = true;
	r->st.aux_stopped++;
	return write_auxerr(r, c, DTL_AUXERR_STOPPED, c->last_aux_ns,
			    "vpa_dtl AUX buffer full: the kernel stopped this CPU's DTL");
}

/*
 * Copy what the driver committed to CPU c's AUX buffer since the last drain.
 * The driver writes at its own place whatever room the perf core says is
 * left, so a reader that falls behind finds bytes written over before it
 * read them (head - tail > the buffer's size), and bytes a poll may be
 * writing while they are copied (the oldest, when less than one poll's
 * write is free): those are not copied, and the stream has a hole there
 * (counted, and said in the file as an AUXTRACE_ERROR).  A driver poll that
 * finds the buffer full loses its entries and the kernel disables the event
 * for good (the driver frees its DTL buffer): checked when the buffer was
 * found full, said once per CPU.
 */
static int drain_aux(struct dtlrec *r, struct rcpu *c)
{
	struct perf_event_mmap_page *pg = c->base;
	uint64_t head, head2, tail, start, n, len;
	int err = 0;

	if (!pg || !c->aux)
		return 0;
	len = c->aux_len;
	head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	tail = pg->aux_tail;
	if (head > tail) {
		n = head - tail;
		if (n >= len) {
			r->st.aux_full++;
			c->suspect = 2;
		}
		start = n > len ? head - len : tail;
		n = head - start;
		err = tmp_reserve(r, (size_t)n + 8);
		if (err)
			return err;
		uint64_t off = start % len;
		size_t k = (size_t)(len - off < n ? len - off : n);
		memcpy(r->tmp, (uint8_t *)c->aux + off, k);
		memcpy(r->tmp + k, c->aux, (size_t)n - k);
		/* what the driver may have written over while it was copied */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		head2 = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
		/* a poll writing now writes from head2 to its lap's end at most */
		uint64_t lap_end = (head2 / len + 1) * len;
		uint64_t busy_end = head2 + DRIVER_WRITE_MAX < lap_end ? head2 + DRIVER_WRITE_MAX : lap_end;
		if (busy_end > start + len)
			start = entry_place(busy_end - len, len);
		if (start > tail) {
			uint64_t gone = (start < head ? start : head) - tail;
			char msg[PDFORMAT_AUXERR_MSG_LEN];
			r->st.aux_overruns++;
			r->st.aux_overrun_bytes += gone;
			snprintf(msg, sizeof(msg), "vpa_dtl AUX overrun: %" PRIu64 " bytes written over unread", gone);
			err = write_auxerr(r, c, DTL_AUXERR_OVERRUN, c->last_aux_ns, msg);
		}
		if (!err && start < head) {
			const uint8_t *p = r->tmp + (n - (head - start)), *run;
			uint64_t at, m = head - start;
			size_t k2;
			/* the entries (not the header, not the zero run at a lap's end) */
			dtl_slicer_feed(&c->sl, start, p, m, true);
			while ((k2 = dtl_slicer_next(&c->sl, &run, &at)) > 0)
				for (size_t i = 0; i < k2; i++)
					r->st.dtl_entries += !dtl_raw_is_skipped(run + i * DTL_ENTRY_SIZE);
			err = write_aux(r, c, p, (size_t)m, start);
		}
		__atomic_store_n(&pg->aux_tail, head, __ATOMIC_RELEASE);
		if (err)
			return err;
	}
	return check_stopped(r, c);
}

int dtlrec_check_stopped(struct dtlrec *r)
{
	int err = 0;

	for (unsigned i = 0; i < r->nc && !err; i++)
		err = check_stopped(r, &r->c[i]);
	return err;
}

/*
 * The entries a debugfs read copied while the hypervisor wrote into the
 * same buffer, in place: an entry newer than the one after it was written
 * over the slot during the copy (it is read again at its own index later)
 * and one not newer than the last entry written is stale; both are dropped
 * and counted in *dropped, the rest stay in order.  Returns the bytes kept.
 */
static size_t drop_lapped(struct rcpu *c, uint8_t *p, size_t len, uint64_t *dropped)
{
	size_t n = len / DTL_ENTRY_SIZE, out = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t tb = dtl_raw_timebase(p + i * DTL_ENTRY_SIZE);
		uint64_t next = i + 1 < n ? dtl_raw_timebase(p + (i + 1) * DTL_ENTRY_SIZE) : UINT64_MAX;
		if (tb <= c->dbg_last_tb) {
			(*dropped)++;
			continue;
		}
		if (next < tb && next > c->dbg_last_tb) {
			(*dropped)++;
			continue;
		}
		if (out != i)
			memmove(p + out * DTL_ENTRY_SIZE, p + i * DTL_ENTRY_SIZE, DTL_ENTRY_SIZE);
		out++;
		c->dbg_last_tb = tb;
	}
	return out * DTL_ENTRY_SIZE;
}

static int drain_debugfs(struct dtlrec *r, struct rcpu *c)
{
	size_t len = 0;
	int err;

	if (c->dbg_fd < 0)
		return 0;
	err = tmp_reserve(r, 2 * DTL_ENTRY_SIZE + 64 * DBG_READ);
	if (err)
		return err;
	if (!c->header_done) {
		struct dtl_tbinfo tb = { r->boot_tb, r->tb_freq };
		dtl_header_write(r->tmp, &tb, false);
		len = DTL_ENTRY_SIZE;
	}
	size_t body = len;
	memcpy(r->tmp + len, c->carry, c->carry_len);
	len += c->carry_len;
	c->carry_len = 0;
	uint64_t full = 0;
	for (int rounds = 0; rounds < 64; rounds++) {
		ssize_t n = read(c->dbg_fd, r->tmp + len, DBG_READ);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return dtlrec_seterr(r, -errno, "reading the DTL of CPU %u: %s", c->cpu, strerror(errno));
		}
		if (n == 0)
			break;
		if (n % DTL_ENTRY_SIZE)
			r->st.odd_reads++;
		/* the kernel skips its reader ahead to its buffer's oldest
		 * entry when the hypervisor has lapped it: a read then returns
		 * the whole buffer less one (r->dbg_entries - 1) */
		full += r->dbg_entries > 1 && (uint64_t)n / DTL_ENTRY_SIZE >= r->dbg_entries - 1;
		len += (size_t)n;
	}
	/* keep a partial entry for the next read (only regular files do that) */
	c->carry_len = (len - body) % DTL_ENTRY_SIZE;
	len -= c->carry_len;
	memcpy(c->carry, r->tmp + len, c->carry_len);
	uint64_t dropped = 0;
	len = body + drop_lapped(c, r->tmp + body, len - body, &dropped);
	if (full || dropped) {
		char msg[128];
		r->st.dbg_full_reads += full;
		r->st.dbg_out_of_order += dropped;
		snprintf(msg, sizeof(msg), "debugfs: the hypervisor lapped the reader (%" PRIu64 " full reads, %" PRIu64
			 " entries out of order dropped): entries probably lost", full, dropped);
		err = write_auxerr(r, c, DTL_AUXERR_LAPPED, 0, msg);
		if (err)
			return err;
	}
	if (len == body)
		return 0;
	r->st.dtl_entries += (len - body) / DTL_ENTRY_SIZE;
	err = write_aux(r, c, r->tmp, len, c->aux_off);
	c->aux_off += len;
	c->header_done = true;
	return err;
}

int dtlrec_poll_ms(const struct dtlrec *r)
{
	uint64_t ms = r->o.period_ns / 1000000u;
	if (ms < 1)
		ms = 1;
	if (ms > 1000)
		ms = 1000;
	return r->pmu ? 100 : (int)ms;
}

int dtlrec_drain_all(struct dtlrec *r)
{
	int err = 0;

	struct perfring_stats tot = { 0 };

	for (unsigned i = 0; i < r->nc && !err; i++) {
		struct rcpu *c = &r->c[i];
		err = drain_aux(r, c);
		if (!err)
			err = drain_ring(r, c);
		if (!err)
			err = drain_debugfs(r, c);
	}
	for (unsigned i = 0; i < r->nc; i++)
		perfring_stats_add(&tot, &r->c[i].ring.st);
	r->st.lost = tot.lost;
	r->st.throttles = tot.throttles;	/* perfring counts them */
	r->st.corrupt = tot.corrupt;
	r->st.corrupt_bytes = tot.corrupt_bytes;
	if (!err && r->w)
		err = pdwrite_finished_round(r->w);
	return err;
}

int dtlrec_poll(struct dtlrec *r, int timeout_ms)
{
	struct pollfd *pf = calloc(r->nc ? r->nc : 1, sizeof(*pf));
	nfds_t n = 0;

	if (!pf)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nc; i++)
		if (r->c[i].fd_main >= 0 && r->pmu)
			pf[n++] = (struct pollfd){ .fd = r->c[i].fd_main, .events = POLLIN };
	if (n)
		poll(pf, n, timeout_ms);
	else if (timeout_ms > 0)
		usleep((useconds_t)timeout_ms * 1000);
	free(pf);
	int err = dtlrec_drain_all(r);
	/* a file recording survives a kill: valid up to its last checkpoint */
	return err || !r->w ? err : pdwrite_checkpoint(r->w, false);
}
