/* SPDX-License-Identifier: MIT */
/* oswork.c - the userspace osnoise workload (see oswork.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "live/bpf/osnbpf_abi.h"
#include "live/oswork.h"
#include "base/workthread.h"

struct oswork_thread {
	struct oswork *w;
	pthread_t th;
	bool started;
	unsigned cpu;
	int tid;
	int err;
	uint64_t floor_ns;
	struct oswork_rec *ring;
	size_t cap;			/* power of two */
	uint64_t head;			/* written by the thread */
	uint64_t tail;			/* written by the consumer */
	uint64_t lost;
	int ready;			/* 1 ready, -1 failed */
	int done;
	/* the sleep between two runtime windows, which oswork_stop() cuts short */
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* on CLOCK_MONOTONIC */
	bool sync;			/* mu and cv initialised */
};

struct oswork {
	struct oswork_opts o;
	struct oswork_thread *t;
	size_t nr;
	int stop;
	/* TSC -> ns: ns = (tsc - base) * mult >> 32 */
	uint64_t tsc_mult;
};

uint64_t oswork_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

bool oswork_tsc_usable(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool ok = false;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	fclose(f);
	return ok;
}
#else
static inline uint64_t rdtsc(void)
{
	return 0;
}

bool oswork_tsc_usable(void)
{
	return false;
}
#endif

static void push(struct oswork_thread *t, uint32_t type, uint64_t t0, uint64_t t1, const uint64_t *v)
{
	uint64_t tail = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
	if (t->head - tail >= t->cap) {
		t->lost++;
		return;
	}
	struct oswork_rec *r = &t->ring[t->head & (t->cap - 1)];
	r->type = type;
	r->cpu = t->cpu;
	r->t0_ns = t0;
	r->t1_ns = t1;
	if (v)
		memcpy(r->v, v, sizeof(r->v));
	else
		memset(r->v, 0, sizeof(r->v));
	__atomic_store_n(&t->head, t->head + 1, __ATOMIC_RELEASE);
}

struct clk {
	bool tsc;
	uint64_t mult, base_tsc, base_ns;
};

static inline uint64_t clk_read(const struct clk *c)
{
	if (!c->tsc)
		return oswork_now_ns();
	uint64_t d = rdtsc() - c->base_tsc;
	return c->base_ns + (uint64_t)(((unsigned __int128)d * c->mult) >> 32);
}

/* Re-anchor the TSC on CLOCK_MONOTONIC (every period); with a previous
 * anchor at least 100 ms old, refine the factor over that long baseline so
 * the drift within a period stays far below a microsecond. */
static void clk_anchor(struct clk *c)
{
	if (!c->tsc)
		return;
	uint64_t ns = oswork_now_ns(), tsc = rdtsc();
	if (c->base_ns && ns - c->base_ns >= 100000000ULL && tsc > c->base_tsc)
		c->mult = (uint64_t)(((unsigned __int128)(ns - c->base_ns) << 32) / (tsc - c->base_tsc));
	c->base_ns = ns;
	c->base_tsc = tsc;
}

/* Sleep until next_ns (CLOCK_MONOTONIC), or until oswork_stop() ends the run:
 * a stop never waits for the rest of a period. */
static void nap_until(struct oswork_thread *t, uint64_t next_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(next_ns / 1000000000ULL),
			       .tv_nsec = (long)(next_ns % 1000000000ULL) };
	pthread_mutex_lock(&t->mu);
	while (!__atomic_load_n(&t->w->stop, __ATOMIC_RELAXED) &&
	       pthread_cond_timedwait(&t->cv, &t->mu, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&t->mu);
}

int oswork_view_advance(struct oswork_view *v, const volatile struct osnbpf_slot *s, uint64_t s0,
			uint64_t gap[5])
{
	uint64_t count[OSWORK_NR_CLASSES], net[OSWORK_NR_CLASSES], packed = 0;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (int c = 0; c < OSWORK_NR_CLASSES; c++) {
		count[c] = s->count[c];
		net[c] = s->net_ns[c];
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (s->seq != s0)
		return -EAGAIN;
	for (int c = 0; c < OSWORK_NR_CLASSES && gap; c++) {
		uint64_t n = count[c] - v->count[c];
		gap[c] = net[c] - v->net_ns[c];
		packed |= (n > 0xffff ? 0xffff : n) << (16 * c);
	}
	if (gap)
		gap[4] = packed;
	v->seq = s0;
	memcpy(v->count, count, sizeof(count));
	memcpy(v->net_ns, net, sizeof(net));
	return 0;
}

void oswork_gap_unpack(const uint64_t gap[5], uint64_t count[OSWORK_NR_CLASSES],
		       uint64_t net_ns[OSWORK_NR_CLASSES])
{
	for (int c = 0; c < OSWORK_NR_CLASSES; c++) {
		net_ns[c] = gap[c];
		count[c] = gap[4] >> (16 * c) & 0xffff;
	}
}

/* A time read with the seq of slot (the counters' change count) it goes
 * with: false when the counters moved during the read (read again). */
static inline __attribute__((always_inline)) bool read_counted(const struct clk *clk,
							       const volatile struct osnbpf_slot *slot,
							       uint64_t *now, uint64_t *s0)
{
	if (!slot) {
		*now = clk_read(clk);
		return true;
	}
	*s0 = slot->seq;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*now = clk_read(clk);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return slot->seq == *s0;
}

/*
 * One runtime window of the loop: the period's records.  With a slot, every
 * time read is bracketed by two reads of its seq (an interrupt in between:
 * read again, as the kernel tracer's loop does with its interrupt counter),
 * and when the seq moved since the last read, the counters' difference is
 * the gap's attribution (a gap below the threshold only moves the view).
 *
 * *last is the last time read of the previous period when the loop goes on
 * without a sleep (0: none, the period starts at its first read): the
 * period then starts there, so that whatever took the CPU between two
 * periods (the records written at the end of one, a task woken then) is a
 * gap of the next one, not unmeasured time.  On return, *last is this
 * period's last read.
 */
static inline __attribute__((always_inline)) void run_period(struct oswork_thread *t, struct clk *clk,
							     volatile struct osnbpf_slot *slot,
							     struct oswork_view *view, uint64_t *last)
{
	const struct oswork_opts *o = &t->w->o;
	uint64_t thr = o->threshold_ns, floor_ns = t->floor_ns;
	uint64_t pstart, now, s0 = 0, count0[OSWORK_NR_CLASSES] = { 0 };

	if (*last) {
		/* the view is that of the last read (the loop below keeps it so) */
		pstart = *last;
	} else {
		while (!read_counted(clk, slot, &pstart, &s0) ||
		       (slot && oswork_view_advance(view, slot, s0, NULL) < 0))
			;
	}
	if (slot)
		memcpy(count0, view->count, sizeof(count0));
	push(t, OSWORK_PERIOD_BEGIN, pstart, pstart, NULL);
	uint64_t prev = pstart;
	uint64_t sub_c = 0, sub_ns = 0, iters = 0, minv = UINT64_MAX;
	for (;;) {
		uint64_t gap[5];
		if (!read_counted(clk, slot, &now, &s0))
			continue;
		/* (a TSC re-anchored between two periods may read a hair
		 * before the last read of the previous one) */
		uint64_t d = now > prev ? now - prev : 0;
		bool moved = slot && s0 != view->seq;
		if (moved && oswork_view_advance(view, slot, s0, d >= thr ? gap : NULL) < 0)
			continue;
		if (d >= thr)
			push(t, OSWORK_GAP, prev, now, moved ? gap : NULL);
		else if (d >= floor_ns) {
			sub_c++;
			sub_ns += d;
		}
		if (d < minv)
			minv = d;
		if (now > prev)
			prev = now;
		iters++;
		if (prev - pstart >= o->runtime_ns || __atomic_load_n(&t->w->stop, __ATOMIC_RELAXED))
			break;
	}
	if (slot) {
		uint64_t pc[5] = { 0 };
		for (int c = 0; c < OSWORK_NR_CLASSES; c++)
			pc[c] = view->count[c] - count0[c];
		push(t, OSWORK_PERIOD_COUNTS, prev, prev, pc);
	}
	uint64_t v[5] = { prev - pstart, sub_c, sub_ns, iters, minv };
	push(t, OSWORK_PERIOD_END, prev, prev, v);
	*last = prev;
}

static void *thread_main(void *arg)
{
	struct oswork_thread *t = arg;
	struct oswork *w = t->w;
	const struct oswork_opts *o = &w->o;
	cpu_set_t set;

	t->tid = (int)syscall(SYS_gettid);
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		t->err = -errno;
		goto fail;
	}
	if (o->policy == SCHED_OTHER) {
		if ((o->prio || o->set_nice) && setpriority(PRIO_PROCESS, (id_t)t->tid, o->prio) < 0) {
			t->err = -errno;
			goto fail;
		}
	} else if (o->policy == 6) {	/* SCHED_DEADLINE */
		int err = workthread_set_deadline(o->dl_runtime_ns, o->dl_period_ns);
		if (err < 0) {
			t->err = err;
			goto fail;
		}
	} else {
		struct sched_param sp = { .sched_priority = o->prio };
		if (sched_setscheduler(0, o->policy, &sp) < 0) {
			t->err = -errno;
			goto fail;
		}
	}
	struct clk clk = { .tsc = o->use_tsc, .mult = w->tsc_mult };
	clk_anchor(&clk);
	/* Sub-threshold floor: 4 x the loop's smallest gap, at least 100 ns. */
	if (o->floor_ns) {
		t->floor_ns = o->floor_ns;
	} else {
		uint64_t prev = clk_read(&clk), minv = UINT64_MAX;
		for (int i = 0; i < 20000; i++) {
			uint64_t now = clk_read(&clk);
			if (now - prev < minv && now > prev)
				minv = now - prev;
			prev = now;
		}
		t->floor_ns = minv == UINT64_MAX || minv * 4 < 100 ? 100 : minv * 4;
	}
	/* Named once it measures (not osnoise/N: that is the kernel tracer's
	 * threads' name): whoever waits for ls-osnoise/N to appear knows its
	 * loop runs.  Named before the calibration above (20000 clock reads:
	 * tens of ms in a loaded TCG guest), a task started then could run on
	 * the CPU unmeasured. */
	char name[16];
	snprintf(name, sizeof(name), OSWORK_THREAD_NAME, t->cpu);
	pthread_setname_np(pthread_self(), name);
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);

	volatile struct osnbpf_slot *slot = o->slots && t->cpu < o->nr_slots ? &o->slots[t->cpu] : NULL;
	struct oswork_view view = { 0 };
	if (slot)
		slot->workload_tid = t->tid;	/* from here the programs count this CPU */
	uint64_t first = oswork_now_ns(), last = 0;
	bool naps = o->period_ns > o->runtime_ns;
	for (uint64_t k = 0; !__atomic_load_n(&w->stop, __ATOMIC_RELAXED); k++) {
		clk_anchor(&clk);
		/* the contributor table counts the windows of the measured time:
		 * without naps, all of it from the first period on */
		if (slot)
			slot->active = 1;
		/* one loop without counters, one with: each compiled on its own */
		if (slot)
			run_period(t, &clk, slot, &view, &last);
		else
			run_period(t, &clk, NULL, NULL, &last);
		if (naps) {
			if (slot)
				slot->active = 0;
			nap_until(t, first + (k + 1) * o->period_ns);
			last = 0;	/* the sleep is no noise: the next period starts afresh */
		}
	}
	if (slot)
		slot->active = 0;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
fail:
	__atomic_store_n(&t->ready, -1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int calibrate_tsc(struct oswork *w)
{
	uint64_t n0 = oswork_now_ns(), c0 = rdtsc();
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	uint64_t n1 = oswork_now_ns(), c1 = rdtsc();
	if (c1 <= c0 || n1 <= n0)
		return -ENOTSUP;
	w->tsc_mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (c1 - c0));
	return 0;
}

int oswork_start(struct oswork **wp, const struct oswork_opts *opts)
{
	struct oswork *w = calloc(1, sizeof(*w));
	*wp = w;
	if (!w)
		return -ENOMEM;
	w->o = *opts;
	if (!w->o.threshold_ns)
		w->o.threshold_ns = 1000;
	if (!w->o.ring_recs)
		w->o.ring_recs = 65536;
	if (!w->o.runtime_ns || w->o.runtime_ns > w->o.period_ns)
		return -EINVAL;
	if (w->o.use_tsc) {
		if (!oswork_tsc_usable())
			return -ENOTSUP;
		int err = calibrate_tsc(w);
		if (err < 0)
			return err;
	}
	size_t cap = 1;
	while (cap < w->o.ring_recs)
		cap <<= 1;
	w->nr = parse_cpuset_count(&w->o.cpus);
	if (!w->nr)
		return -EINVAL;
	w->t = calloc(w->nr, sizeof(*w->t));
	if (!w->t)
		return -ENOMEM;
	size_t i = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS && i < w->nr; cpu++) {
		if (!parse_cpuset_has(&w->o.cpus, cpu))
			continue;
		struct oswork_thread *t = &w->t[i++];
		t->w = w;
		t->cpu = cpu;
		t->cap = cap;
		t->ring = malloc(cap * sizeof(*t->ring));
		if (!t->ring)
			return -ENOMEM;
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_mutex_init(&t->mu, NULL);
		pthread_cond_init(&t->cv, &ca);
		pthread_condattr_destroy(&ca);
		t->sync = true;
	}
	pthread_attr_t pa;
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, 256 * 1024);
	for (i = 0; i < w->nr; i++) {
		int err = workthread_create(&w->t[i].th, &pa, thread_main, &w->t[i]);
		if (err) {
			w->stop = 1;
			pthread_attr_destroy(&pa);
			return err;
		}
		w->t[i].started = true;
	}
	pthread_attr_destroy(&pa);
	for (i = 0; i < w->nr; i++) {
		int r;
		while (!(r = __atomic_load_n(&w->t[i].ready, __ATOMIC_ACQUIRE))) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
		if (r < 0) {
			__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
			return w->t[i].err ? w->t[i].err : -EINVAL;
		}
	}
	return 0;
}

void oswork_request_stop(struct oswork *w)
{
	if (w)
		__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
}

void oswork_stop(struct oswork *w)
{
	if (!w)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
	for (size_t i = 0; w->t && i < w->nr; i++)
		if (w->t[i].started) {
			/* wake its sleep (it checks stop under mu: no lost wake-up) */
			pthread_mutex_lock(&w->t[i].mu);
			pthread_cond_broadcast(&w->t[i].cv);
			pthread_mutex_unlock(&w->t[i].mu);
			pthread_join(w->t[i].th, NULL);
			w->t[i].started = false;
		}
}

void oswork_free(struct oswork *w)
{
	if (!w)
		return;
	oswork_stop(w);
	for (size_t i = 0; w->t && i < w->nr; i++) {
		free(w->t[i].ring);
		if (w->t[i].sync) {
			pthread_mutex_destroy(&w->t[i].mu);
			pthread_cond_destroy(&w->t[i].cv);
		}
	}
	free(w->t);
	free(w);
}

bool oswork_done(const struct oswork *w)
{
	for (size_t i = 0; i < w->nr; i++)
		if (!__atomic_load_n(&w->t[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

size_t oswork_nr(const struct oswork *w)
{
	return w->nr;
}

unsigned oswork_cpu(const struct oswork *w, size_t idx)
{
	return idx < w->nr ? w->t[idx].cpu : 0;
}

int oswork_tid(const struct oswork *w, size_t idx)
{
	return idx < w->nr ? w->t[idx].tid : -1;
}

uint64_t oswork_floor_ns(const struct oswork *w, size_t idx)
{
	return idx < w->nr ? w->t[idx].floor_ns : 0;
}

uint64_t oswork_lost(const struct oswork *w, size_t idx)
{
	return idx < w->nr ? __atomic_load_n(&w->t[idx].lost, __ATOMIC_RELAXED) : 0;
}

bool oswork_peek(struct oswork *w, size_t idx, struct oswork_rec *out)
{
	if (idx >= w->nr)
		return false;
	struct oswork_thread *t = &w->t[idx];
	uint64_t head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	if (t->tail == head)
		return false;
	*out = t->ring[t->tail & (t->cap - 1)];
	return true;
}

void oswork_pop(struct oswork *w, size_t idx)
{
	if (idx >= w->nr)
		return;
	struct oswork_thread *t = &w->t[idx];
	__atomic_store_n(&t->tail, t->tail + 1, __ATOMIC_RELEASE);
}

void oswork_rec_encode(const struct oswork_rec *r, uint8_t out[OSWORK_REC_RAW_SIZE])
{
	bool swap = BYTES_HOST_BIG_ENDIAN;		/* the payload is little-endian */
	bytes_st32(out, OSWORK_REC_VERSION, swap);
	bytes_st32(out + 4, r->type, swap);
	bytes_st64(out + 8, r->cpu, swap);
	bytes_st64(out + 16, r->t0_ns, swap);
	bytes_st64(out + 24, r->t1_ns, swap);
	for (int i = 0; i < 5; i++)
		bytes_st64(out + 32 + 8 * i, r->v[i], swap);
}

int oswork_rec_decode(const uint8_t *raw, size_t len, struct oswork_rec *r)
{
	bool swap = BYTES_HOST_BIG_ENDIAN;
	if (!raw || len < OSWORK_REC_RAW_SIZE || bytes_ld32(raw, swap) != OSWORK_REC_VERSION)
		return -EINVAL;
	uint64_t cpu = bytes_ld64(raw + 8, swap);
	if (cpu >= PARSE_MAX_CPUS)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->type = bytes_ld32(raw + 4, swap);
	r->cpu = (uint32_t)cpu;
	r->t0_ns = bytes_ld64(raw + 16, swap);
	r->t1_ns = bytes_ld64(raw + 24, swap);
	for (int i = 0; i < 5; i++)
		r->v[i] = bytes_ld64(raw + 32 + 8 * i, swap);
	return 0;
}
