/* SPDX-License-Identifier: MIT */
/* dtlsynth.c - synthetic shared-processor LPAR recording (see dtlsynth.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "bytes.h"
#include "dtl.h"
#include "dtlsynth.h"
#include "pdwrite.h"
#include "tfsformat.h"

#define TASKS_PER_CPU	3
#define FIFO_MAX	8
#define PROCS_PER_CPU	8	/* SMT8 physical threads per vCPU slot */
#define VPA_PMU_TYPE	14	/* a dynamic PMU type, as sysfs would give */

enum { EV_SWITCH, EV_WAKEUP, EV_DTL, EV_AUX, EV_LOST };

struct sev {
	uint64_t t;
	uint32_t cpu;
	uint8_t kind;
	uint8_t prev_state;
	int16_t prev, next;		/* task index, -1 = swapper */
	int16_t waker;			/* common_pid task of a wakeup, -1 = swapper */
	int16_t victim;			/* EV_DTL: the task running when the vCPU was taken */
	struct dtl_entry e;
	uint64_t aux_off, aux_size, aux_flags;	/* EV_AUX */
};

/* A run of AUX bytes copied by polls and not yet drained by perf record. */
struct seg {
	uint64_t aux_off;		/* position in the CPU's AUX stream */
	size_t start, len;		/* bytes in vcpu.pend */
};

struct vcpu {
	uint64_t t;
	uint64_t rng;			/* the vCPU's own random stream */
	int cur;			/* running task, -1 = idle */
	uint16_t proc, home;
	struct sev fifo[FIFO_MAX];
	int fhead, fn;
	/* the hypervisor's ring: entries logged since the last poll */
	uint8_t *ring;
	int16_t *ring_victim;
	unsigned ring_used, ring_cap;
	/* copied by polls, waiting for perf record's next drain */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	struct seg *segs;
	size_t nsegs, cap_segs;
	uint64_t aux_head;		/* AUX stream offset */
	bool header_done;
	uint64_t chunks;
	uint64_t next_poll;
	/* truth: the task on the CPU as the written sched_switches say */
	int run_task;			/* -2 = none yet */
	uint64_t run_since;
};

struct fld {
	int off, size;
};

struct tpd {
	uint64_t id;
	int size;
	struct fld type, flags, pc, pid;
	struct fld f[7];
};

struct syn {
	struct dtlsyn_cfg c;
	struct dtlsyn_stats *st;
	uint64_t rng;
	struct pdw *w;
	bool swap;
	int ev_dtl, ev_sw, ev_wk;
	struct tpd sw, wk;
	struct vcpu *v;
	struct sev *win;
	size_t nwin, capwin;
	uint64_t rng_layout;		/* rounds and poll phases */
	uint64_t poll_ns;		/* effective: at least 1 ms */
	uint64_t last_written_ns;
	struct dtlsyn_truth *truth;
	double mean_burst_ns, mean_idle_ns, pre_e2d_ns, cede_e2d_ns;
	double hv_hz;
	char *errm;
	size_t errl;
};

static uint64_t rnd64(struct syn *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ULL;
}

static double rnd01(struct syn *s)
{
	return (double)(rnd64(s) >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t rndn(struct syn *s, uint32_t n)
{
	return n ? (uint32_t)((rnd64(s) >> 32) % n) : 0;
}

static uint64_t rexp(struct syn *s, double mean_ns)
{
	double u = rnd01(s);
	double v = -mean_ns * log(1.0 - u);
	if (v > 4e9)
		v = 4e9;
	return (uint64_t)v + 1;
}

void dtlsyn_defaults(struct dtlsyn_cfg *c)
{
	if (!c->cpus)
		c->cpus = 4;
	if (!c->duration_ns)
		c->duration_ns = 1000000000ULL;
	if (c->entitlement <= 0)
		c->entitlement = 0.5;
	if (c->entitlement > 1)
		c->entitlement = 1;
	if (c->load <= 0)
		c->load = 0.6;
	if (c->load > 0.98)
		c->load = 0.98;
	if (c->fault_hz <= 0)
		c->fault_hz = 2;
	if (c->confer_hz <= 0)
		c->confer_hz = 5;
	if (!c->move_permille)
		c->move_permille = 100;
	if (!c->ring)
		c->ring = DTL_RING_ENTRIES;
	if (!c->poll_ns)
		c->poll_ns = 1000000ULL;
	if (!c->round_ns)
		c->round_ns = 4000000ULL;
	if (!c->cede_srr0)
		c->cede_srr0 = 0xc0000000000f8094ULL;
	if (!c->boot_tb)
		c->boot_tb = 21349649546353231ULL;
	if (!c->tb_freq)
		c->tb_freq = DTL_DEFAULT_TB_FREQ;
	if (!c->start_ns)
		c->start_ns = 100000000000ULL;
	if (c->preempt_hz <= 0) {
		double r = c->load / c->entitlement;
		c->preempt_hz = 20.0 * r * r;
	}
}

static int fail(struct syn *s, int err, const char *msg)
{
	if (s->errm && s->errl)
		snprintf(s->errm, s->errl, "%s", msg);
	return err;
}

static uint32_t ns_to_ticks(const struct syn *s, uint64_t ns)
{
	unsigned __int128 v = (unsigned __int128)ns * s->c.tb_freq / 1000000000u;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint64_t ns_to_tb(const struct syn *s, uint64_t ns)
{
	return s->c.boot_tb + (uint64_t)((unsigned __int128)ns * s->c.tb_freq / 1000000000u);
}

/* ---- tracepoint payloads ---- */

static int field(struct tep_event *e, const char *name, struct fld *f)
{
	struct tep_format_field *tf = tep_find_any_field(e, name);
	if (!tf)
		return -1;
	f->off = tf->offset;
	f->size = tf->size;
	return 0;
}

static int ev_size(struct tep_event *e)
{
	int end = 0;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	return end;
}

static void put_num(uint8_t *raw, const struct fld *f, uint64_t v, bool swap)
{
	switch (f->size) {
	case 1: raw[f->off] = (uint8_t)v; break;
	case 2: by_st16(raw + f->off, (uint16_t)v, swap); break;
	case 4: by_st32(raw + f->off, (uint32_t)v, swap); break;
	case 8: by_st64(raw + f->off, v, swap); break;
	default: break;
	}
}

static void put_str(uint8_t *raw, const struct fld *f, const char *str)
{
	size_t n = strlen(str);
	memset(raw + f->off, 0, (size_t)f->size);
	memcpy(raw + f->off, str, n < (size_t)f->size ? n : (size_t)f->size - 1);
}

static int resolve(struct tep_handle *tep, const struct tfs_event *te, struct tpd *d,
		   const char *const *names, int n)
{
	struct tep_event *e;

	if (tep_parse_event(tep, te->format, strlen(te->format), te->system))
		return -EINVAL;
	e = tep_find_event_by_name(tep, te->system, te->name);
	if (!e)
		return -EINVAL;
	d->id = te->id;
	d->size = ev_size(e);
	if (d->size > 256 || field(e, "common_type", &d->type) || field(e, "common_flags", &d->flags) ||
	    field(e, "common_preempt_count", &d->pc) || field(e, "common_pid", &d->pid))
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (field(e, names[i], &d->f[i]))
			return -EINVAL;
	return 0;
}

static uint32_t task_pid(int task)
{
	return task < 0 ? 0 : 2000u + (uint32_t)task;
}

static void task_comm(int task, uint32_t cpu, char *buf, size_t len)
{
	if (task < 0)
		snprintf(buf, len, "swapper/%u", cpu);
	else
		snprintf(buf, len, "worker-%d", task);
}

static int write_sched(struct syn *s, const struct sev *e)
{
	uint8_t raw[256];
	char c1[32], c2[32];
	const struct tpd *d = e->kind == EV_SWITCH ? &s->sw : &s->wk;
	int cur = e->kind == EV_SWITCH ? e->prev : e->waker;

	memset(raw, 0, sizeof(raw));
	put_num(raw, &d->type, d->id, s->swap);
	put_num(raw, &d->flags, 1, s->swap);
	put_num(raw, &d->pc, 0, s->swap);
	put_num(raw, &d->pid, task_pid(cur), s->swap);
	if (e->kind == EV_SWITCH) {
		task_comm(e->prev, e->cpu, c1, sizeof(c1));
		task_comm(e->next, e->cpu, c2, sizeof(c2));
		put_str(raw, &d->f[0], c1);
		put_num(raw, &d->f[1], task_pid(e->prev), s->swap);
		put_num(raw, &d->f[2], 120, s->swap);
		put_num(raw, &d->f[3], e->prev_state, s->swap);
		put_str(raw, &d->f[4], c2);
		put_num(raw, &d->f[5], task_pid(e->next), s->swap);
		put_num(raw, &d->f[6], 120, s->swap);
	} else {
		task_comm(e->next, e->cpu, c1, sizeof(c1));
		put_str(raw, &d->f[0], c1);
		put_num(raw, &d->f[1], task_pid(e->next), s->swap);
		put_num(raw, &d->f[2], 120, s->swap);
		put_num(raw, &d->f[3], e->cpu, s->swap);
	}
	struct pdr_sample smp = {
		.ip = 0xc000000000100000ULL + (e->kind == EV_SWITCH ? 0x1234 : 0x5678),
		.pid = task_pid(cur), .tid = task_pid(cur),
		.time = e->t,
		.id = (e->kind == EV_SWITCH ? 2000u : 3000u) + e->cpu,
		.cpu = e->cpu,
		.period = 1,
		.raw = raw,
		.raw_size = (uint32_t)d->size,
	};
	s->st->samples++;
	if (e->t > s->last_written_ns)
		s->last_written_ns = e->t;
	if (e->kind == EV_SWITCH && s->truth) {
		struct vcpu *v = &s->v[e->cpu];
		if (v->run_task != -2)
			s->truth->tasks[v->run_task + 1].run_ns += e->t - v->run_since;
		v->run_task = e->next;
		v->run_since = e->t;
	}
	return pdw_write_sample(s->w, e->kind == EV_SWITCH ? s->ev_sw : s->ev_wk, PDF_MISC_KERNEL, &smp);
}

/* ---- the per-vCPU model ---- */

static void push(struct vcpu *v, const struct sev *e)
{
	if (v->fn < FIFO_MAX) {
		v->fifo[(v->fhead + v->fn) % FIFO_MAX] = *e;
		v->fn++;
	}
}

static uint16_t dispatch_proc(struct syn *s, struct vcpu *v)
{
	if (rndn(s, 1000) < s->c.move_permille) {
		uint32_t nproc = s->c.cpus * PROCS_PER_CPU;
		uint16_t p = (uint16_t)rndn(s, nproc);
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
	e.e.enqueue_to_dispatch_tb = ns_to_ticks(s, e2d);
	e.e.ready_to_enqueue_tb = ns_to_ticks(s, r2e);
	e.e.waiting_to_ready_tb = ns_to_ticks(s, w2r);
	e.e.timebase = ns_to_tb(s, t_d);
	e.e.fault_addr = fault;
	e.e.srr0 = srr0;
	e.e.srr1 = 0x8000000000001033ULL;
	push(v, &e);
}

/* Generate the next episode of a vCPU into its fifo (events in time order). */
static void episode(struct syn *s, uint32_t cpu)
{
	struct vcpu *v = &s->v[cpu];
	uint64_t burst = rexp(s, s->mean_burst_ns);
	uint64_t d_hv = s->hv_hz > 0 ? rexp(s, 1e9 / s->hv_hz) : UINT64_MAX;

	if (v->cur < 0) {
		/* idle from the start: switch a task in */
		int next = (int)(cpu + s->c.cpus * rndn(s, TASKS_PER_CPU));
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
		double k = rnd01(s) * s->hv_hz;
		uint8_t dr, pr;

		if (k < s->c.preempt_hz) {
			pr = 4; dr = 7;			/* time_slice / time_slice */
			w2r = 0;
			r2e = rexp(s, 3000);
			e2d = rexp(s, s->pre_e2d_ns);
			s->st->preempts++;
		} else if (k < s->c.preempt_hz + s->c.fault_hz) {
			pr = 6; dr = 8;			/* virtual_memory_page_fault */
			w2r = rexp(s, 50000);
			r2e = rexp(s, 2000);
			e2d = rexp(s, 20000);
			fault = 0x7fff00000000ULL + ((uint64_t)rndn(s, 1u << 20) << 12);
			s->st->faults++;
		} else {
			pr = 3; dr = 6;			/* H_CONFER / conferred_cycles */
			w2r = rexp(s, 20000);
			r2e = rexp(s, 2000);
			e2d = rexp(s, 10000);
			s->st->confers++;
		}
		srr0 = rndn(s, 2) ? 0xc000000000200000ULL + ((uint64_t)rndn(s, 1u << 16) << 2)
				  : 0x10000000ULL + ((uint64_t)rndn(s, 1u << 16) << 2);
		uint64_t t_d = t_p + w2r + r2e + e2d;
		dtl_event(s, v, cpu, t_d, dr, pr, w2r, r2e, e2d, srr0, fault, v->cur);
		v->t = t_d;
		return;
	}
	uint64_t t_e = v->t + burst;
	if (rnd01(s) < 0.5) {
		/* the wakeup (2 us before the switch) must not come before the
		 * vCPU is back from its last dispatch */
		if (burst < 4000)
			t_e = v->t + 4000;
		/* another task on this CPU preempts the current one */
		int next = (int)(cpu + s->c.cpus * rndn(s, TASKS_PER_CPU));
		if (next == v->cur)
			next = (int)(cpu + s->c.cpus * ((uint32_t)(next / (int)s->c.cpus + 1) % TASKS_PER_CPU));
		struct sev w = { .t = t_e - 2000, .cpu = cpu, .kind = EV_WAKEUP, .next = (int16_t)next,
				 .waker = (int16_t)v->cur };
		struct sev sw = { .t = t_e, .cpu = cpu, .kind = EV_SWITCH, .prev = (int16_t)v->cur,
				  .next = (int16_t)next, .prev_state = 0 };
		push(v, &w);
		push(v, &sw);
		v->cur = next;
		v->t = t_e;
		return;
	}
	/* go idle, cede, and come back at the dispatch */
	struct sev sw = { .t = t_e, .cpu = cpu, .kind = EV_SWITCH, .prev = (int16_t)v->cur, .next = -1,
			  .prev_state = 1 };
	push(v, &sw);
	uint64_t t_c = t_e + 4000;
	uint64_t w2r = rexp(s, s->mean_idle_ns), r2e = rexp(s, 3000), e2d = rexp(s, s->cede_e2d_ns);
	uint64_t t_d = t_c + w2r + r2e + e2d;
	uint32_t x = rndn(s, 10);
	uint8_t dr = x < 6 ? 3 : x < 9 ? 0 : 2;	/* decrementer, external, H_PROD */
	dtl_event(s, v, cpu, t_d, dr, 2, w2r, r2e, e2d, s->c.cede_srr0, 0, -1);
	s->st->cedes++;
	int next = (int)(cpu + s->c.cpus * rndn(s, TASKS_PER_CPU));
	struct sev w = { .t = t_d + 2000, .cpu = cpu, .kind = EV_WAKEUP, .next = (int16_t)next, .waker = -1 };
	struct sev sw2 = { .t = t_d + 6000, .cpu = cpu, .kind = EV_SWITCH, .prev = -1, .next = (int16_t)next };
	push(v, &w);
	push(v, &sw2);
	v->cur = next;
	v->t = t_d + 6000;
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

/*
 * The driver's timer on cpu at time t: copy the ring into the AUX area
 * (header first, once) and emit PERF_RECORD_AUX into the CPU's data ring.
 * Every gaps-th chunk of CPU 0 is lost instead (AUX TRUNCATED + LOST).
 */
static int poll_cpu(struct syn *s, uint32_t cpu, uint64_t t)
{
	struct vcpu *v = &s->v[cpu];
	size_t size = (size_t)v->ring_used * DTL_ENTRY_SIZE + (v->header_done ? 0 : DTL_ENTRY_SIZE);
	struct sev aux = { .t = t, .cpu = cpu, .kind = EV_AUX };
	bool drop;
	int err;

	if (!v->ring_used)
		return 0;	/* the driver writes nothing (not even the header) without entries */
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
		if (!v->header_done) {
			struct dtl_tbinfo tb = { s->c.boot_tb, s->c.tb_freq };
			dtl_header_write(p, &tb, s->swap);
			memset(p + 24, 0xa5, 24);	/* the kernel leaves the padding uninitialised */
			p += DTL_ENTRY_SIZE;
		}
		memcpy(p, v->ring, (size_t)v->ring_used * DTL_ENTRY_SIZE);
		v->pend_len += size;
		v->segs[v->nsegs - 1].len += size;
		s->st->dtl_entries += v->ring_used;
		for (unsigned i = 0; i < v->ring_used; i++) {
			struct dtl_entry e;
			dtl_decode(v->ring + (size_t)i * DTL_ENTRY_SIZE, &e);
			uint64_t t_e = dtl_tb_to_ns(e.timebase, &(struct dtl_tbinfo){ s->c.boot_tb, s->c.tb_freq });
			if (t_e > s->last_written_ns)
				s->last_written_ns = t_e;
			if (!s->truth || !involuntary(e.preempt_reason))
				continue;
			struct dtlsyn_task *k = &s->truth->tasks[v->ring_victim[i] + 1];
			uint64_t hv = (uint64_t)e.enqueue_to_dispatch_tb + e.ready_to_enqueue_tb;
			k->interruptions++;
			k->hv_ticks += hv;
			if (hv > k->worst_ticks)
				k->worst_ticks = hv;
		}
	}
	v->header_done = true;
	v->aux_head += size;
	v->ring_used = 0;
	return err;
}

/* Write one sched sample, AUX or LOST record of the CPU's data ring. */
static int write_ring_rec(struct syn *s, const struct sev *e)
{
	struct pdr_sample trailer = { .pid = (uint32_t)-1, .tid = (uint32_t)-1, .time = e->t,
				      .id = 1000u + e->cpu, .cpu = e->cpu };
	uint8_t body[24];

	if (e->kind == EV_SWITCH || e->kind == EV_WAKEUP)
		return s->c.no_sched ? 0 : write_sched(s, e);
	if (e->t > s->last_written_ns)
		s->last_written_ns = e->t;
	if (e->kind == EV_AUX) {
		by_st64(body, e->aux_off, s->swap);
		by_st64(body + 8, e->aux_size, s->swap);
		by_st64(body + 16, e->aux_flags, s->swap);
		return pdw_write_with_trailer(s->w, s->ev_dtl, PDF_RECORD_AUX, 0, body, sizeof(body), &trailer);
	}
	trailer.id = 2000u + e->cpu;
	by_st64(body, 2000u + e->cpu, s->swap);
	by_st64(body + 8, 3, s->swap);
	return pdw_write_with_trailer(s->w, s->ev_sw, PDF_RECORD_LOST, 0, body, 16, &trailer);
}

/* perf record drains the CPU's AUX area: one AUXTRACE per contiguous run. */
static int drain_aux(struct syn *s, uint32_t cpu)
{
	struct vcpu *v = &s->v[cpu];
	int err = 0;

	for (size_t i = 0; !err && i < v->nsegs; i++) {
		struct pdr_auxtrace a = { .size = v->segs[i].len, .offset = v->segs[i].aux_off,
					  .reference = 0, .idx = cpu, .tid = (uint32_t)-1, .cpu = cpu };
		err = pdw_write_auxtrace(s->w, &a, v->pend + v->segs[i].start, v->segs[i].len);
	}
	v->nsegs = 0;
	v->pend_len = 0;
	return err;
}

/* Run cpu's model up to round boundary r (polls included), queueing its ring records. */
static int run_cpu(struct syn *s, uint32_t cpu, uint64_t r, uint64_t end)
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
			err = poll_cpu(s, cpu, v->next_poll);
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

static int write_pmu_mappings(struct syn *s)
{
	static const struct { uint32_t type; const char *name; } m[] = {
		{ 1, "software" }, { 2, "tracepoint" }, { 4, "cpu" }, { VPA_PMU_TYPE, "vpa_dtl" },
	};
	uint8_t buf[512];
	size_t n = 0, cnt = s->c.no_dtl ? 3 : 4;

	by_st32(buf, (uint32_t)cnt, s->swap);
	n = 4;
	for (size_t i = 0; i < cnt; i++) {
		size_t l = strlen(m[i].name) + 1, pl = (l + 63) / 64 * 64;
		by_st32(buf + n, m[i].type, s->swap);
		by_st32(buf + n + 4, (uint32_t)pl, s->swap);
		memset(buf + n + 8, 0, pl);
		memcpy(buf + n + 8, m[i].name, l);
		n += 8 + pl;
	}
	return pdw_set_raw_feature(s->w, PDF_FEAT_PMU_MAPPINGS, buf, n);
}

static int setup(struct syn *s, const char *path, struct tfs_formats **tfp, struct tep_handle **tepp)
{
	static const char *const specs[] = { "sched:sched_switch", "sched:sched_wakeup" };
	static const char *const sw_f[] = { "prev_comm", "prev_pid", "prev_prio", "prev_state",
					     "next_comm", "next_pid", "next_prio" };
	static const char *const wk_f[] = { "comm", "pid", "prio", "target_cpu" };
	struct tfs_formats *tf = NULL;
	struct pdw_opts o = { .big_endian = s->c.big_endian, .pipe = s->c.pipe };
	int err;

	err = tfs_collect(s->c.formats_dir, specs, 2, &tf);
	*tfp = tf;
	if (err == -EACCES || err == -EPERM)
		return fail(s, err, "tracefs is not readable by this user, so the sched formats "
			    "cannot be read (run as root, or pass --formats DIR)");
	if (err)
		return fail(s, err, "cannot read the sched:sched_switch/sched_wakeup formats "
			    "(mount tracefs, or pass a formats directory)");
	struct tep_handle *tep = tep_alloc();
	*tepp = tep;
	if (!tep)
		return -ENOMEM;
	const struct tfs_event *tsw = tfs_find(tf, "sched", "sched_switch");
	const struct tfs_event *twk = tfs_find(tf, "sched", "sched_wakeup");
	if (!tsw || !twk || resolve(tep, tsw, &s->sw, sw_f, 7) || resolve(tep, twk, &s->wk, wk_f, 4))
		return fail(s, -EINVAL, "the sched formats lack the expected fields");

	err = pdw_open(&s->w, path, &o);
	if (err)
		return fail(s, err, "cannot create the output file");
	s->swap = pdw_needs_swap(s->w);

	uint64_t *idv = calloc(s->c.cpus, sizeof(*idv));
	if (!idv)
		return -ENOMEM;
	s->ev_dtl = -1;
	if (!s->c.no_dtl) {
		struct pdf_attr a = { 0 };
		a.type = VPA_PMU_TYPE;
		a.config = 7;
		a.sample_period = s->c.poll_ns;
		a.sample_type = PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU;
		a.flags = (1ULL << PDF_ATTR_FLAG_DISABLED) | (1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL);
		for (unsigned i = 0; i < s->c.cpus; i++)
			idv[i] = 1000u + i;
		s->ev_dtl = pdw_add_evsel(s->w, &a, "vpa_dtl/dtl_all/", idv, s->c.cpus);
	}
	for (int k = 0; k < 2 && !s->c.no_sched; k++) {
		struct pdf_attr a = { 0 };
		a.type = PDF_TYPE_TRACEPOINT;
		a.config = k ? s->wk.id : s->sw.id;
		a.sample_period = 1;
		a.sample_type = PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_IP | PDF_SAMPLE_TID | PDF_SAMPLE_TIME |
				PDF_SAMPLE_CPU | PDF_SAMPLE_PERIOD | PDF_SAMPLE_RAW;
		a.flags = (1ULL << PDF_ATTR_FLAG_DISABLED) | (1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL) |
			  (1ULL << PDF_ATTR_FLAG_EXCLUDE_GUEST);
		for (unsigned i = 0; i < s->c.cpus; i++)
			idv[i] = (k ? 3000u : 2000u) + i;
		int ev = pdw_add_evsel(s->w, &a, specs[k], idv, s->c.cpus);
		if (k)
			s->ev_wk = ev;
		else
			s->ev_sw = ev;
	}
	free(idv);
	if (s->c.no_sched)	/* a DTL-only recording (perf record -e vpa_dtl/dtl_all/) */
		s->ev_sw = s->ev_wk = s->ev_dtl;
	if ((!s->c.no_dtl && s->ev_dtl < 0) || s->ev_sw < 0 || s->ev_wk < 0)
		return fail(s, -EINVAL, "cannot add the events");

	void *blob = NULL;
	size_t blen = 0;
	err = tfs_tracing_data(tf, s->c.big_endian, &blob, &blen);
	if (!err)
		err = pdw_set_tracing_data(s->w, blob, blen);
	free(blob);
	if (!err)
		err = pdw_set_string_feature(s->w, PDF_FEAT_HOSTNAME, "lpar-synth");
	if (!err)
		err = pdw_set_string_feature(s->w, PDF_FEAT_OSRELEASE, s->c.osrelease ? s->c.osrelease : "6.18.0-synth");
	if (!err)
		err = pdw_set_string_feature(s->w, PDF_FEAT_VERSION, "latscope-dtl-synth");
	if (!err)
		err = pdw_set_string_feature(s->w, PDF_FEAT_ARCH, s->c.arch ? s->c.arch : s->c.big_endian ? "ppc64" : "ppc64le");
	if (!err)
		err = pdw_set_string_feature(s->w, PDF_FEAT_CPUDESC, "POWER10 (architected), altivec supported");
	if (!err)
		err = pdw_set_nrcpus(s->w, s->c.cpus, s->c.cpus);
	if (!err)
		err = write_pmu_mappings(s);
	if (!err)
		err = pdw_begin_data(s->w);
	if (!err && !s->c.no_dtl)
		err = pdw_write_auxtrace_info(s->w, PDF_AUXTRACE_VPA_DTL, (const uint64_t[]){ 0 }, 1);
	if (err)
		return fail(s, err, "writing the header failed");

	/* task names: COMM records, and the kernel map perf expects */
	static const char kname[] = "[kernel.kallsyms]_text";
	uint8_t body[64];
	memset(body, 0, sizeof(body));
	by_st32(body, (uint32_t)-1, s->swap);
	by_st64(body + 8, 0xc000000000000000ULL, s->swap);
	by_st64(body + 16, 0x2000000ULL, s->swap);
	by_st64(body + 24, 0xc000000000000000ULL, s->swap);
	memcpy(body + 32, kname, sizeof(kname));
	struct pdr_sample tr = { .pid = (uint32_t)-1, .tid = 0 };
	err = pdw_write_with_trailer(s->w, s->ev_sw, PDF_RECORD_MMAP, PDF_MISC_KERNEL, body,
				     32 + sizeof(kname), &tr);
	for (unsigned t = 0; !err && t < s->c.cpus * TASKS_PER_CPU; t++) {
		char comm[32];
		memset(body, 0, sizeof(body));
		task_comm((int)t, 0, comm, sizeof(comm));
		comm[15] = '\0';
		by_st32(body, task_pid((int)t), s->swap);
		by_st32(body + 4, task_pid((int)t), s->swap);
		memcpy(body + 8, comm, strlen(comm) + 1);
		struct pdr_sample ct = { .pid = task_pid((int)t), .tid = task_pid((int)t) };
		err = pdw_write_with_trailer(s->w, s->ev_sw, PDF_RECORD_COMM, 0, body, 8 + strlen(comm) + 1, &ct);
	}
	return err ? fail(s, err, "writing the task records failed") : 0;
}

void dtlsyn_truth_free(struct dtlsyn_truth *t)
{
	if (!t)
		return;
	free(t->tasks);
	t->tasks = NULL;
	t->nr_tasks = 0;
}

static uint64_t next_round(struct syn *s, uint64_t r)
{
	if (s->c.poll_layout)
		return r + s->poll_ns;
	/* perf record wakes up every few ms, never exactly periodic */
	s->rng = s->rng_layout;
	uint64_t d = s->c.round_ns * 3 / 4 + (uint64_t)(rnd01(s) * (double)(s->c.round_ns / 2));
	s->rng_layout = s->rng;
	return r + (d ? d : 1);
}

int dtlsyn_write_truth(const struct dtlsyn_cfg *cfg, const char *path, struct dtlsyn_stats *st,
		       struct dtlsyn_truth *truth, char *err_msg, size_t err_len)
{
	struct syn s;
	struct dtlsyn_stats dummy;
	struct tfs_formats *tf = NULL;
	struct tep_handle *tep = NULL;
	int err;

	memset(&s, 0, sizeof(s));
	s.c = *cfg;
	dtlsyn_defaults(&s.c);
	s.st = st ? st : &dummy;
	memset(s.st, 0, sizeof(*s.st));
	s.errm = err_msg;
	s.errl = err_len;
	if (err_msg && err_len)
		err_msg[0] = '\0';
	if (truth)
		memset(truth, 0, sizeof(*truth));
	if (s.c.cpus > 1024)
		return fail(&s, -EINVAL, "at most 1024 CPUs");
	s.poll_ns = s.c.poll_ns < 1000000ULL ? 1000000ULL : s.c.poll_ns;	/* the driver's clamp */
	s.rng_layout = 0xD1B54A32D192ED03ULL ^ (s.c.seed * 0x9E3779B97F4A7C15ULL);
	if (!s.rng_layout)
		s.rng_layout = 1;
	s.mean_burst_ns = 2e6;
	s.mean_idle_ns = s.mean_burst_ns * (1 - s.c.load) / s.c.load;
	double r = s.c.load / s.c.entitlement;
	s.pre_e2d_ns = 500000.0 * r;
	s.cede_e2d_ns = 10000.0 * r;
	s.hv_hz = s.c.preempt_hz + s.c.fault_hz + s.c.confer_hz;
	s.v = calloc(s.c.cpus, sizeof(*s.v));
	if (!s.v)
		return fail(&s, -ENOMEM, "out of memory");
	if (truth) {
		truth->tb_freq = s.c.tb_freq;
		truth->nr_tasks = 1 + (size_t)s.c.cpus * TASKS_PER_CPU;
		truth->tasks = calloc(truth->nr_tasks, sizeof(*truth->tasks));
		if (!truth->tasks) {
			free(s.v);
			return fail(&s, -ENOMEM, "out of memory");
		}
		for (size_t k = 0; k < truth->nr_tasks; k++) {
			char tmp[32];
			task_comm((int)k - 1, 0, tmp, sizeof(tmp));
			snprintf(truth->tasks[k].comm, sizeof(truth->tasks[k].comm), "%.15s", tmp);
			truth->tasks[k].pid = task_pid((int)k - 1);
		}
		snprintf(truth->tasks[0].comm, sizeof(truth->tasks[0].comm), "swapper");
		s.truth = truth;
	}
	err = setup(&s, path, &tf, &tep);
	for (unsigned i = 0; i < s.c.cpus; i++) {
		struct vcpu *v = &s.v[i];
		v->t = s.c.start_ns + 1000u * i;
		v->cur = -1;
		v->home = v->proc = (uint16_t)(i * PROCS_PER_CPU + i % PROCS_PER_CPU);
		v->rng = (0x9E3779B97F4A7C15ULL ^ (s.c.seed * 0x100000001B3ULL)) + 0x632BE59BD9B4E019ULL * (i + 1);
		if (!v->rng)
			v->rng = 1;
		v->run_task = -2;
		/* each CPU's driver timer has its own phase */
		s.rng = s.rng_layout;
		v->next_poll = s.c.start_ns + (s.c.poll_layout ? s.poll_ns
					       : 1 + (uint64_t)(rnd01(&s) * (double)(s.poll_ns - 1)));
		s.rng_layout = s.rng;
	}
	uint64_t end = s.c.start_ns + s.c.duration_ns;
	uint64_t rb = s.c.start_ns;
	bool last = false;
	while (!err && !last) {
		rb = next_round(&s, rb);
		if (rb >= end) {
			rb = end;
			last = true;
		}
		for (unsigned cpu = 0; !err && cpu < s.c.cpus; cpu++) {
			s.nwin = 0;
			err = run_cpu(&s, cpu, rb, end);
			if (!err && last && !s.c.no_dtl)
				err = poll_cpu(&s, cpu, end);	/* the driver's stop */
			if (!err && s.c.compress && s.nwin)
				err = pdw_compress_begin(s.w, s.c.compress);
			for (size_t i = 0; !err && i < s.nwin; i++)
				err = write_ring_rec(&s, &s.win[i]);
			if (!err && s.c.compress && s.nwin)
				err = pdw_compress_end(s.w);
			if (!err && !s.c.no_dtl)
				err = drain_aux(&s, cpu);
		}
		if (!err)
			err = pdw_finished_round(s.w);
	}
	if (truth && !err) {
		truth->end_ns = s.last_written_ns;
		for (unsigned i = 0; i < s.c.cpus; i++)
			if (s.v[i].run_task != -2)
				truth->tasks[s.v[i].run_task + 1].run_ns += s.last_written_ns - s.v[i].run_since;
	}
	if (err && err_msg && !err_msg[0])
		snprintf(err_msg, err_len, "writing failed");
	int cerr = pdw_close(s.w);
	if (!err)
		err = cerr;
	for (unsigned i = 0; i < s.c.cpus; i++) {
		free(s.v[i].ring);
		free(s.v[i].ring_victim);
		free(s.v[i].pend);
		free(s.v[i].segs);
	}
	free(s.v);
	free(s.win);
	if (tep)
		tep_free(tep);
	tfs_free(tf);
	return err;
}

int dtlsyn_write(const struct dtlsyn_cfg *cfg, const char *path, struct dtlsyn_stats *st,
		 char *err_msg, size_t err_len)
{
	return dtlsyn_write_truth(cfg, path, st, NULL, err_msg, err_len);
}
