/* SPDX-License-Identifier: MIT */
/* dtlsynth_model.c - the synthesizer's per-vCPU model: episodes, DTL entries, the ring and its polls (see dtlsynth.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "dtlsynth_int.h"

/* ---- the per-vCPU model ---- */

static void push(struct vcpu *v, const struct sev *e)
{
	if (v->fn < FIFO_MAX) {
		v->fifo[(v->fhead + v->fn) % FIFO_MAX] = *e;
		v->fn++;
	}
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static uint16_t dispatch_proc(struct syn *s, struct vcpu *v)
{
	if (dtlsynth_rndn(s, 1000) < s->c.move_permille) {
		uint32_t nproc = s->c.cpus * PROCS_PER_CPU;
		uint16_t p = (uint16_t)dtlsynth_rndn(s, nproc);
		if (p == v->proc)
			p = (uint16_t)((p + 1) % nproc);
		v->proc = p;
	} else {
		v->proc = v->home;
	}
	return v->proc;
}

static void dtl_event(struct syn *s, struct vcpu *v, uint32_t cpu, uint64_t t_d, uint8_t dr,
		      uint8_t pr, uint64_t w2r, uint64_t r2e, uint64_t e2d, uint64_t srr0,
		      uint64_t fault, int victim)
{
	struct sev e = { .t = t_d, .cpu = cpu, .kind = EV_DTL, .victim = (int16_t)victim };

	e.e.dispatch_reason = dr;
	e.e.preempt_reason = pr;
	e.e.processor_id = dispatch_proc(s, v);
	e.e.enqueue_to_dispatch_tb = dtlsynth_ns_to_ticks(s, e2d);
	e.e.ready_to_enqueue_tb = dtlsynth_ns_to_ticks(s, r2e);
	e.e.waiting_to_ready_tb = dtlsynth_ns_to_ticks(s, w2r);
	e.e.timebase = dtlsynth_ns_to_tb(s, t_d);
	e.e.fault_addr = fault;
	e.e.srr0 = srr0;
	e.e.srr1 = 0x8000000000001033ULL;
	push(v, &e);
}

/* The hypervisor takes the vCPU at t_p, between a wakeup of task next (at
 * wake_ns) and its switch-in: a time-slice preempt, its entry logged at the
 * dispatch; the switch comes 1 us after it (returned).  Kept in the truth. */
static uint64_t wake_preempt(struct syn *s, struct vcpu *v, uint32_t cpu, uint64_t t_p, int next, uint64_t wake_ns)
{
	uint64_t r2e = dtlsynth_rexp(s, 3000), e2d = dtlsynth_rexp(s, s->pre_e2d_ns);
	uint64_t srr0 = 0xc000000000200000ULL + ((uint64_t)dtlsynth_rndn(s, 1u << 16) << 2);
	uint64_t t_d = t_p + r2e + e2d;
	dtl_event(s, v, cpu, t_d, 7, 4, 0, r2e, e2d, srr0, 0, (int16_t)v->cur);
	s->st->preempts++;
	s->st->wake_preempts++;
	struct dtlsynth_truth *t = s->truth;
	if (t && grow((void **)&t->wake_hv, &s->cap_wake_hv, t->nr_wake_hv + 1, sizeof(*t->wake_hv)) == 0) {
		struct dtlsynth_wake_hv *h = &t->wake_hv[t->nr_wake_hv++];
		const struct sev *e = &v->fifo[(v->fhead + v->fn - 1) % FIFO_MAX];	/* the entry just pushed */
		*h = (struct dtlsynth_wake_hv){
			.cpu = cpu, .pid = dtlsynth_task_pid(next), .wake_ns = wake_ns, .switch_ns = t_d + 1000,
			.timebase = e->e.timebase,
			.hv_ns = dtl_ticks_to_ns((uint64_t)e->e.enqueue_to_dispatch_tb + e->e.ready_to_enqueue_tb,
						 s->c.tb_freq),
		};
	} else if (t) {
		s->st->wake_preempts_untold++;
	}
	return t_d + 1000;
}

/* Generate the next episode of a vCPU into its fifo (events in time order). */
static void episode(struct syn *s, uint32_t cpu)
{
	struct vcpu *v = &s->v[cpu];
	uint64_t burst = dtlsynth_rexp(s, s->mean_burst_ns);
	uint64_t d_hv = s->hv_hz > 0 ? dtlsynth_rexp(s, 1e9 / s->hv_hz) : UINT64_MAX;

	if (v->cur < 0) {
		/* idle from the start: switch a task in */
		int next = (int)(cpu + s->c.cpus * dtlsynth_rndn(s, TASKS_PER_CPU));
		struct sev w = { .t = v->t + 1000, .cpu = cpu, .kind = EV_WAKEUP, .next = (int16_t)next, .waker = -1 };
		struct sev sw = { .t = v->t + 3000, .cpu = cpu, .kind = EV_SWITCH, .prev = -1,
				  .next = (int16_t)next };
		push(v, &w);
		push(v, &sw);
		v->cur = next;
		v->t += 3000;
		return;
	}
	if (d_hv < burst) {
		/* the hypervisor takes the running vCPU: no sched event until dispatch */
		uint64_t t_p = v->t + d_hv, w2r, r2e, e2d, fault = 0, srr0;
		double k = dtlsynth_rnd01(s) * s->hv_hz;
		uint8_t dr, pr;

		if (k < s->c.preempt_hz) {
			pr = 4; dr = 7;			/* time_slice / time_slice */
			w2r = 0;
			r2e = dtlsynth_rexp(s, 3000);
			e2d = dtlsynth_rexp(s, s->pre_e2d_ns);
			s->st->preempts++;
		} else if (k < s->c.preempt_hz + s->c.fault_hz) {
			pr = 6; dr = 8;			/* virtual_memory_page_fault */
			w2r = dtlsynth_rexp(s, 50000);
			r2e = dtlsynth_rexp(s, 2000);
			e2d = dtlsynth_rexp(s, 20000);
			fault = 0x7fff00000000ULL + ((uint64_t)dtlsynth_rndn(s, 1u << 20) << 12);
			s->st->faults++;
		} else {
			pr = 3; dr = 6;			/* H_CONFER / conferred_cycles */
			w2r = dtlsynth_rexp(s, 20000);
			r2e = dtlsynth_rexp(s, 2000);
			e2d = dtlsynth_rexp(s, 10000);
			s->st->confers++;
		}
		srr0 = dtlsynth_rndn(s, 2) ? 0xc000000000200000ULL + ((uint64_t)dtlsynth_rndn(s, 1u << 16) << 2)
				  : 0x10000000ULL + ((uint64_t)dtlsynth_rndn(s, 1u << 16) << 2);
		uint64_t t_d = t_p + w2r + r2e + e2d;
		dtl_event(s, v, cpu, t_d, dr, pr, w2r, r2e, e2d, srr0, fault, v->cur);
		v->t = t_d;
		return;
	}
	uint64_t t_e = v->t + burst;
	if (dtlsynth_rnd01(s) < 0.5) {
		/* the wakeup (2 us before the switch) must not come before the
		 * vCPU is back from its last dispatch */
		if (burst < 4000)
			t_e = v->t + 4000;
		/* another task on this CPU preempts the current one */
		int next = (int)(cpu + s->c.cpus * dtlsynth_rndn(s, TASKS_PER_CPU));
		if (next == v->cur)
			next = (int)(cpu + s->c.cpus * ((uint32_t)(next / (int)s->c.cpus + 1) % TASKS_PER_CPU));
		struct sev w = { .t = t_e - 2000, .cpu = cpu, .kind = EV_WAKEUP, .next = (int16_t)next,
				 .waker = (int16_t)v->cur };
		push(v, &w);
		uint64_t t_sw = t_e;
		/* (no draw without the option: the same stream as before it) */
		if (s->c.wake_preempt_permille && dtlsynth_rndn(s, 1000) < s->c.wake_preempt_permille)
			t_sw = wake_preempt(s, v, cpu, t_e - 1000, next, t_e - 2000);
		struct sev sw = { .t = t_sw, .cpu = cpu, .kind = EV_SWITCH, .prev = (int16_t)v->cur,
				  .next = (int16_t)next, .prev_state = 0 };
		push(v, &sw);
		v->cur = next;
		v->t = t_sw;
		return;
	}
	/* go idle, cede, and come back at the dispatch */
	struct sev sw = { .t = t_e, .cpu = cpu, .kind = EV_SWITCH, .prev = (int16_t)v->cur, .next = -1,
			  .prev_state = 1 };
	push(v, &sw);
	uint64_t t_c = t_e + 4000;
	uint64_t w2r = dtlsynth_rexp(s, s->mean_idle_ns), r2e = dtlsynth_rexp(s, 3000), e2d = dtlsynth_rexp(s, s->cede_e2d_ns);
	uint64_t t_d = t_c + w2r + r2e + e2d;
	uint32_t x = dtlsynth_rndn(s, 10);
	uint8_t dr = x < 6 ? 3 : x < 9 ? 0 : 2;	/* decrementer, external, H_PROD */
	dtl_event(s, v, cpu, t_d, dr, 2, w2r, r2e, e2d, s->c.cede_srr0, 0, -1);
	s->st->cedes++;
	int next = (int)(cpu + s->c.cpus * dtlsynth_rndn(s, TASKS_PER_CPU));
	struct sev w = { .t = t_d + 2000, .cpu = cpu, .kind = EV_WAKEUP, .next = (int16_t)next, .waker = -1 };
	struct sev sw2 = { .t = t_d + 6000, .cpu = cpu, .kind = EV_SWITCH, .prev = -1, .next = (int16_t)next };
	push(v, &w);
	push(v, &sw2);
	v->cur = next;
	v->t = t_d + 6000;
}


/* The hypervisor logs an entry in the vCPU's 85-entry ring. */
static int add_dtl(struct syn *s, struct vcpu *v, const struct sev *e)
{
	if (s->c.no_dtl)
		return 0;
	if (!s->c.ring_unlimited && v->ring_used + 1 >= s->c.ring) {
		/* the ring wrapped before the poll: the oldest is overwritten.  The
		 * driver then copies from cur_idx - 85 + 1, so at most 84 reach
		 * the AUX area (even when exactly 85 came, one is dropped) */
		memmove(v->ring, v->ring + DTL_ENTRY_SIZE, (size_t)(v->ring_used - 1) * DTL_ENTRY_SIZE);
		memmove(v->ring_victim, v->ring_victim + 1, (size_t)(v->ring_used - 1) * sizeof(int16_t));
		v->ring_used--;
		s->st->ring_lost++;
	}
	if (v->ring_used == v->ring_cap) {
		size_t cap = v->ring_cap, c2 = cap;
		if (grow((void **)&v->ring, &cap, (size_t)v->ring_used + 1, DTL_ENTRY_SIZE) ||
		    grow((void **)&v->ring_victim, &c2, (size_t)v->ring_used + 1, sizeof(int16_t)))
			return -ENOMEM;
		v->ring_cap = (unsigned)(cap < c2 ? cap : c2);
	}
	dtl_encode(&e->e, v->ring + (size_t)v->ring_used * DTL_ENTRY_SIZE);
	v->ring_victim[v->ring_used] = e->victim;
	v->ring_used++;
	return 0;
}

static int win_push(struct syn *s, const struct sev *e)
{
	if (grow((void **)&s->win, &s->capwin, s->nwin + 1, sizeof(*s->win)))
		return -ENOMEM;
	s->win[s->nwin++] = *e;
	return 0;
}

static bool involuntary(uint8_t preempt_reason)
{
	return preempt_reason != 2 && preempt_reason != 3 && preempt_reason != 7;
}

/* The truth of one entry that reached the stream: its victim's interruption. */
static void truth_entry(struct syn *s, const uint8_t *raw, int16_t victim)
{
	struct dtl_entry e;

	dtl_decode(raw, &e);
	s->st->dtl_entries++;
	uint64_t t_e = dtl_tb_to_ns(e.timebase, &(struct dtl_tbinfo){ s->c.boot_tb, s->c.tb_freq });
	if (t_e > s->last_written_ns)
		s->last_written_ns = t_e;
	if (!s->truth || !involuntary(e.preempt_reason))
		return;
	/* a wakeup's preemption: its entry reached the file (newest first:
	 * entries come out about in the order they were made) */
	for (size_t i = s->truth->nr_wake_hv; e.dispatch_reason == 7 && i-- > 0;)
		if (s->truth->wake_hv[i].timebase == e.timebase && !s->truth->wake_hv[i].written) {
			s->truth->wake_hv[i].written = true;
			break;
		}
	struct dtlsynth_task *k = &s->truth->tasks[victim + 1];
	uint64_t hv = (uint64_t)e.enqueue_to_dispatch_tb + e.ready_to_enqueue_tb;
	k->interruptions++;
	k->hv_ticks += hv;
	if (hv > k->worst_ticks)
		k->worst_ticks = hv;
}

/*
 * The driver's copy of one poll into its AUX buffer (aux_bytes), as the
 * vpa_dtl source does it (docs/dtl.md, "The AUX buffer wrap"): whole
 * entries up to threshold = (aux_bytes - 32) / 48; the poll that reaches it
 * copies only what fits (the rest is lost) and the driver starts again at
 * 0; a commit that would pass the buffer's end is cut to it (the bytes
 * after the threshold, never written: zeros) and the driver starts again
 * at 0 over what that poll copied.  The committed bytes are
 * auxbuf[aux_head % aux_bytes, + *size): *size returned, the header
 * written on the CPU's first poll.
 */
static int drv_copy(struct syn *s, struct vcpu *v, uint64_t *size)
{
	uint64_t aux = s->c.aux_bytes, thr = (aux - 32) / DTL_ENTRY_SIZE;
	uint64_t n = v->ring_used, copied = 0;
	bool full = false;

	if (!v->auxbuf) {
		v->auxbuf = calloc(1, (size_t)aux);
		v->aux_victim = calloc((size_t)(aux / DTL_ENTRY_SIZE), sizeof(*v->aux_victim));
		if (!v->auxbuf || !v->aux_victim)
			return -ENOMEM;
	}
	if (!v->header_done) {
		struct dtl_tbinfo tb = { s->c.boot_tb, s->c.tb_freq };
		dtl_header_write(v->auxbuf, &tb, s->swap);
		memset(v->auxbuf + 24, 0xa5, 24);	/* the kernel leaves the padding uninitialised */
		v->drv_head = 1;
		copied = 1;
	}
	if (v->drv_head + n >= thr) {
		s->st->wrap_lost += n - (thr - v->drv_head);
		n = thr - v->drv_head;
		full = true;
	}
	memcpy(v->auxbuf + v->drv_head * DTL_ENTRY_SIZE, v->ring, (size_t)n * DTL_ENTRY_SIZE);
	memcpy(v->aux_victim + v->drv_head, v->ring_victim, (size_t)n * sizeof(*v->aux_victim));
	copied += n;
	v->drv_head = full ? 0 : v->drv_head + n;
	*size = copied * DTL_ENTRY_SIZE;
	if (*size + v->drv_head_size > aux) {
		/* this poll's entries are overwritten by the next one's */
		s->st->aux_wraps++;
		s->st->wrap_lost += n;
		*size = aux - v->drv_head_size;
		v->drv_head_size = 0;
		v->drv_head = 0;
	} else {
		v->drv_head_size += *size;
	}
	return 0;
}

/*
 * The driver's timer on cpu at time t: copy the ring into the AUX area
 * (header first, once) and emit PERF_RECORD_AUX into the CPU's data ring.
 * Every gaps-th chunk of CPU 0 is lost instead (AUX TRUNCATED + LOST).
 */
int dtlsynth_poll_cpu(struct syn *s, uint32_t cpu, uint64_t t)
{
	struct vcpu *v = &s->v[cpu];
	uint64_t size = (uint64_t)v->ring_used * DTL_ENTRY_SIZE + (v->header_done ? 0 : DTL_ENTRY_SIZE);
	struct sev aux = { .t = t, .cpu = cpu, .kind = EV_AUX };
	const uint8_t *src = NULL;
	const int16_t *victim = NULL;
	bool drop;
	int err;

	if (!v->ring_used)
		return 0;	/* the driver writes nothing (not even the header) without entries */
	if (!s->c.aux_unlimited) {
		err = drv_copy(s, v, &size);
		if (err)
			return err;
		uint64_t at = v->aux_head % s->c.aux_bytes;
		src = v->auxbuf + at;
		victim = v->aux_victim + at / DTL_ENTRY_SIZE;
	}
	v->chunks++;
	s->st->aux_chunks++;
	drop = s->c.gaps && cpu == 0 && v->chunks % s->c.gaps == 0 && v->header_done;
	aux.aux_off = v->aux_head;
	aux.aux_size = size;
	aux.aux_flags = drop ? 0x1 : 0;	/* TRUNCATED */
	err = win_push(s, &aux);
	if (!err && drop) {
		struct sev lost = { .t = t, .cpu = cpu, .kind = EV_LOST };
		err = win_push(s, &lost);
		s->st->gap_lost += v->ring_used;
	}
	if (!err && !drop) {
		if (!v->nsegs || v->segs[v->nsegs - 1].aux_off + v->segs[v->nsegs - 1].len != v->aux_head) {
			if (grow((void **)&v->segs, &v->cap_segs, v->nsegs + 1, sizeof(*v->segs)))
				return -ENOMEM;
			v->segs[v->nsegs++] = (struct seg){ v->aux_head, v->pend_len, 0 };
		}
		if (grow((void **)&v->pend, &v->pend_cap, v->pend_len + size, 1))
			return -ENOMEM;
		uint8_t *p = v->pend + v->pend_len;
		if (src) {
			/* what the perf core hands out: the committed bytes */
			memcpy(p, src, (size_t)size);
			for (uint64_t o = 0; o + DTL_ENTRY_SIZE <= size; o += DTL_ENTRY_SIZE)
				if (!dtl_raw_is_skipped(src + o))
					truth_entry(s, src + o, victim[o / DTL_ENTRY_SIZE]);
		} else {
			if (!v->header_done) {
				struct dtl_tbinfo tb = { s->c.boot_tb, s->c.tb_freq };
				dtl_header_write(p, &tb, s->swap);
				memset(p + 24, 0xa5, 24);	/* the kernel leaves the padding uninitialised */
				p += DTL_ENTRY_SIZE;
			}
			memcpy(p, v->ring, (size_t)v->ring_used * DTL_ENTRY_SIZE);
			for (unsigned i = 0; i < v->ring_used; i++)
				truth_entry(s, v->ring + (size_t)i * DTL_ENTRY_SIZE, v->ring_victim[i]);
		}
		v->pend_len += size;
		v->segs[v->nsegs - 1].len += size;
	}
	v->header_done = true;
	v->aux_head += size;
	v->ring_used = 0;
	return err;
}

/* Write one sched sample, AUX or LOST record of the CPU's data ring. */
int dtlsynth_write_ring_rec(struct syn *s, const struct sev *e)
{
	struct pdread_sample trailer = { .pid = (uint32_t)-1, .tid = (uint32_t)-1, .time = e->t,
				      .id = 1000u + e->cpu, .cpu = e->cpu };
	uint8_t body[24];

	if (e->kind == EV_SWITCH || e->kind == EV_WAKEUP)
		return s->c.no_sched ? 0 : dtlsynth_write_sched(s, e);
	if (e->t > s->last_written_ns)
		s->last_written_ns = e->t;
	if (e->kind == EV_AUX) {
		bytes_st64(body, e->aux_off, s->swap);
		bytes_st64(body + 8, e->aux_size, s->swap);
		bytes_st64(body + 16, e->aux_flags, s->swap);
		return pdwrite_write_with_trailer(s->w, s->ev_dtl, PDFORMAT_RECORD_AUX, 0, body, sizeof(body), &trailer);
	}
	trailer.id = 2000u + e->cpu;
	bytes_st64(body, 2000u + e->cpu, s->swap);
	bytes_st64(body + 8, 3, s->swap);
	return pdwrite_write_with_trailer(s->w, s->ev_sw, PDFORMAT_RECORD_LOST, 0, body, 16, &trailer);
}

/* perf record drains the CPU's AUX area: one AUXTRACE per contiguous run. */
int dtlsynth_drain_aux(struct syn *s, uint32_t cpu)
{
	struct vcpu *v = &s->v[cpu];
	int err = 0;

	for (size_t i = 0; !err && i < v->nsegs; i++) {
		struct pdread_auxtrace a = { .size = v->segs[i].len, .offset = v->segs[i].aux_off,
					  .reference = 0, .idx = cpu, .tid = (uint32_t)-1, .cpu = cpu };
		err = pdwrite_write_auxtrace(s->w, &a, v->pend + v->segs[i].start, v->segs[i].len);
	}
	v->nsegs = 0;
	v->pend_len = 0;
	return err;
}

/* Run cpu's model up to round boundary r (polls included), queueing its ring records. */
int dtlsynth_run_cpu(struct syn *s, uint32_t cpu, uint64_t r, uint64_t end)
{
	struct vcpu *v = &s->v[cpu];
	int err = 0;

	while (!err) {
		if (!v->fn) {
			s->rng = v->rng;
			episode(s, cpu);
			v->rng = s->rng;
		}
		struct sev *e = &v->fifo[v->fhead];
		uint64_t t = e->t < end ? e->t : end;
		if (!s->c.no_dtl && v->next_poll <= r && v->next_poll <= t) {
			err = dtlsynth_poll_cpu(s, cpu, v->next_poll);
			v->next_poll += s->poll_ns;
			continue;
		}
		if (e->t >= r || e->t >= end)
			break;
		if (e->kind == EV_DTL)
			err = add_dtl(s, v, e);
		else
			err = win_push(s, e);
		v->fhead = (v->fhead + 1) % FIFO_MAX;
		v->fn--;
	}
	return err;
}
