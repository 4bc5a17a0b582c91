/* SPDX-License-Identifier: MIT */
/*
 * idlecheck.c - self-test for dropped idle-entry tracepoint samples, and the
 * SCHED_IDLE keep-busy threads.  See idlecheck.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "live/idlecheck.h"
#include "base/workthread.h"
#include "live/perfring.h"

#define IDLECHECK_RING_PAGES 16u		/* 64 KiB with 4 KiB pages: > 2000 samples */
#define IDLECHECK_MIN_IRQS 10u

const char *idlecheck_verdict_name(enum idlecheck_verdict v)
{
	switch (v) {
	case IDLECHECK_OK:
		return "ok";
	case IDLECHECK_DROPS:
		return "drops";
	default:
		return "unknown";
	}
}

enum idlecheck_verdict idlecheck_judge(const struct idlecheck_cpu_result *r)
{
	/* the event's own counter counts every firing; the window is closed
	 * (disabled) and the ring read to the end before the verdict, so on a
	 * kernel that delivers what it fires, samples + lost == counted */
	if (r->counted < IDLECHECK_MIN_IRQS)
		return IDLECHECK_UNKNOWN;
	return r->samples + r->lost < r->counted ? IDLECHECK_DROPS : IDLECHECK_OK;
}

bool idlecheck_any_drops(const struct idlecheck_cpu_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].verdict == IDLECHECK_DROPS)
			return true;
	return false;
}

/* Tracepoint id from tracefs (events/<sys>/<event>/id); negative errno. */
static int tp_id(const char *spec, uint64_t *id)
{
	char sys[128], path[512], buf[32];
	const char *colon = strchr(spec, ':');
	const char *dir = tracefs_tracing_dir();
	if (!colon || (size_t)(colon - spec) >= sizeof(sys) || !colon[1])
		return -EINVAL;
	if (!dir)
		return -ENOENT;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = 0;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, colon + 1) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EIO;
	*id = v;
	return 0;
}

int idlecheck_irq_line(const char *label, uint64_t *counts, size_t ncounts)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char *line = NULL;
	size_t cap = 0;
	int *col = NULL;
	size_t ncol = 0;
	int ret = -ENOENT;
	size_t llen = strlen(label);

	if (!f)
		return -errno;
	memset(counts, 0, ncounts * sizeof(*counts));
	if (getline(&line, &cap, f) < 0) {
		ret = -EIO;
		goto out;
	}
	/* header: "           CPU0       CPU1 ..." */
	for (char *p = line; (p = strstr(p, "CPU")) != NULL;) {
		p += 3;
		char *end;
		long c = strtol(p, &end, 10);
		if (end == p || c < 0)
			continue;
		int *n = realloc(col, (ncol + 1) * sizeof(*col));
		if (!n) {
			ret = -ENOMEM;
			goto out;
		}
		col = n;
		col[ncol++] = (int)c;
		p = end;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, label, llen) || p[llen] != ':')
			continue;
		p += llen + 1;
		for (size_t i = 0; i < ncol; i++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (col[i] >= 0 && (size_t)col[i] < ncounts)
				counts[col[i]] = v;
		}
		ret = 0;
		break;
	}
out:
	free(line);
	free(col);
	fclose(f);
	return ret;
}

struct sleeper {
	pthread_t th;
	unsigned cpu;
	uint64_t sleep_ns;
	atomic_bool *stop;
	bool started;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return NULL;
	struct timespec ts = { .tv_sec = (time_t)(s->sleep_ns / 1000000000u),
			       .tv_nsec = (long)(s->sleep_ns % 1000000000u) };
	while (!atomic_load_explicit(s->stop, memory_order_relaxed))
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

struct probe {
	int fd;
	void *base;
	size_t map_len;
};

static int count_sample(void *arg, const struct perf_event_header *h, const uint8_t *rec)
{
	struct idlecheck_cpu_result *r = arg;
	if (h->type == PERF_RECORD_SAMPLE)
		r->samples++;
	return 0;
}

/* Count the ring's samples, lost events and corrupt bytes into r. */
static int count_ring(const struct probe *p, size_t page, struct idlecheck_cpu_result *r)
{
	struct perfring ring;
	int err = perfring_init(&ring, p->base, page, IDLECHECK_RING_PAGES * page, NULL);
	if (!err)
		perfring_walk(&ring, count_sample, r);
	r->lost += ring.st.lost;
	r->corrupt_bytes += ring.st.corrupt_bytes;
	perfring_fini(&ring);
	return err;
}

/* One check's state, shared by its steps: a probe (the tracepoint sampled
 * into its ring) and a sleeper per CPU measured, and the interrupt line's
 * counts before and after the window (per CPU number).  free_check frees
 * it all; n probes are open (each closed there). */
struct check {
	const char *label;		/* the /proc/interrupts line */
	size_t page;
	uint64_t *before, *after;
	struct probe *pr;
	struct sleeper *sl;		/* one per probe */
	size_t n;
	atomic_bool stop;		/* tells the sleepers to return */
};

/* A probe per CPU of cpus (at most out_len): the disabled tracepoint id
 * sampled into a ring of IDLECHECK_RING_PAGES, and out[] cleared with the
 * CPU's number.  0 or a negative errno; k->n counts what is to be closed. */
static int open_probes(struct check *k, const struct parse_cpuset *cpus, uint64_t id,
		       struct idlecheck_cpu_result *out, size_t out_len)
{
	struct probe *pr = k->pr;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS && k->n < out_len; cpu++) {
		if (!parse_cpuset_has(cpus, cpu))
			continue;
		size_t n = k->n;
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TIME;
		a.disabled = 1;
		a.wakeup_events = 1u << 20;
		pr[n].fd = -1;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].cpu = cpu;
		long fd = syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		pr[n].fd = (int)fd;
		pr[n].map_len = (IDLECHECK_RING_PAGES + 1) * k->page;
		pr[n].base = NULL;
		k->n++;
		void *m = mmap(NULL, pr[n].map_len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
		if (m == MAP_FAILED)
			return -errno;
		pr[n].base = m;
	}
	return 0;
}

/* A sleeper on each probe's CPU, waking every sleep_ns until k->stop.
 * 0, or -EAGAIN with k->stop set (the ones started are joined by
 * join_sleepers). */
static int start_sleepers(struct check *k, const struct idlecheck_cpu_result *out, uint64_t sleep_ns)
{
	for (size_t i = 0; i < k->n; i++) {
		struct sleeper *sl = &k->sl[i];
		sl->cpu = out[i].cpu;
		sl->sleep_ns = sleep_ns;
		sl->stop = &k->stop;
		if (workthread_create(&sl->th, NULL, sleeper_main, sl) != 0) {
			atomic_store(&k->stop, true);
			return -EAGAIN;
		}
		sl->started = true;
	}
	return 0;
}

/* The measured window: once the sleepers settled, the probes enabled for
 * window_ns between the interrupt counts before and after; then the
 * sleepers are told to stop. */
static void run_window(struct check *k, uint64_t window_ns)
{
	struct timespec settle = { 0, 5000000 };
	nanosleep(&settle, NULL);
	idlecheck_irq_line(k->label, k->before, PARSE_MAX_CPUS);
	for (size_t i = 0; i < k->n; i++)
		ioctl(k->pr[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	struct timespec w = { .tv_sec = (time_t)(window_ns / 1000000000u),
			      .tv_nsec = (long)(window_ns % 1000000000u) };
	while (nanosleep(&w, &w) < 0 && errno == EINTR)
		;
	for (size_t i = 0; i < k->n; i++)
		ioctl(k->pr[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	idlecheck_irq_line(k->label, k->after, PARSE_MAX_CPUS);
	atomic_store(&k->stop, true);
}

/* Each probe's counts into out[]: the event's counter, its ring's samples,
 * lost and corrupt bytes, the interrupts of its CPU, and the verdict.
 * 0, or the error of a ring that cannot be walked. */
static int collect_results(const struct check *k, struct idlecheck_cpu_result *out)
{
	for (size_t i = 0; i < k->n; i++) {
		struct idlecheck_cpu_result *r = &out[i];
		uint64_t v = 0;
		if (read(k->pr[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			r->counted = v;
		int err = count_ring(&k->pr[i], k->page, r);
		if (err)
			return err;
		r->irqs = k->after[r->cpu] >= k->before[r->cpu] ? k->after[r->cpu] - k->before[r->cpu] : 0;
		r->verdict = idlecheck_judge(r);
	}
	return 0;
}

/* Wait for the sleepers started (k->stop is set). */
static void join_sleepers(const struct check *k)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->sl[i].started)
			pthread_join(k->sl[i].th, NULL);
}

/* The probes unmapped and closed, k's arrays freed. */
static void free_check(struct check *k)
{
	for (size_t i = 0; k->pr && i < k->n; i++) {
		if (k->pr[i].base)
			munmap(k->pr[i].base, k->pr[i].map_len);
		if (k->pr[i].fd >= 0)
			close(k->pr[i].fd);
	}
	free(k->pr);
	free(k->sl);
	free(k->before);
	free(k->after);
}

int idlecheck_check(const struct parse_cpuset *cpus, const struct idlecheck_opts *opts,
	      struct idlecheck_cpu_result *out, size_t out_len, size_t *nr_out)
{
	const char *tpname = opts && opts->tracepoint ? opts->tracepoint
						      : "irq_vectors:local_timer_entry";
	uint64_t window_ns = opts && opts->window_ns ? opts->window_ns : 150000000u;
	uint64_t sleep_ns = opts && opts->sleep_ns ? opts->sleep_ns : 1000000u;
	struct check k = {
		.label = opts && opts->irq_line ? opts->irq_line : "LOC",
		.page = (size_t)sysconf(_SC_PAGESIZE),
	};
	uint64_t id = 0;
	int err;

	*nr_out = 0;
	if (!cpus || !out)
		return -EINVAL;
	err = tp_id(tpname, &id);
	if (err)
		return err;
	k.before = calloc(PARSE_MAX_CPUS, sizeof(*k.before));
	k.after = calloc(PARSE_MAX_CPUS, sizeof(*k.after));
	k.pr = calloc(out_len ? out_len : 1, sizeof(*k.pr));
	k.sl = calloc(out_len ? out_len : 1, sizeof(*k.sl));
	if (!k.before || !k.after || !k.pr || !k.sl) {
		err = -ENOMEM;
		goto out;
	}
	err = idlecheck_irq_line(k.label, k.before, PARSE_MAX_CPUS);
	if (err)
		goto out;
	err = open_probes(&k, cpus, id, out, out_len);
	if (err)
		goto out;
	atomic_init(&k.stop, false);
	err = start_sleepers(&k, out, sleep_ns);
	if (err)
		goto join;
	run_window(&k, window_ns);
	err = collect_results(&k, out);
	if (!err)
		*nr_out = k.n;
join:
	join_sleepers(&k);
out:
	free_check(&k);
	return err;
}

/* ---- keep-busy spinners ------------------------------------------------ */

struct idlecheck_spinner {
	pthread_t th;
	unsigned cpu;
	struct idlecheck_spin *owner;
	bool started;
	atomic_bool running;
};

struct idlecheck_spin {
	atomic_bool stop;
	unsigned nr;
	struct idlecheck_spinner t[];
};

static void *spin_main(void *arg)
{
	struct idlecheck_spinner *t = arg;
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = 0 };
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	pthread_setname_np(pthread_self(), "latscope-busy");
	/* never spin at a priority that could delay anything */
	if (sched_setaffinity(0, sizeof(set), &set) < 0 ||
	    sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		return NULL;
	atomic_store(&t->running, true);
	while (!atomic_load_explicit(&t->owner->stop, memory_order_relaxed))
		__asm__ __volatile__("" ::: "memory");
	return NULL;
}

int idlecheck_spin_start(struct idlecheck_spin **out, const struct parse_cpuset *cpus)
{
	unsigned n = parse_cpuset_count(cpus);
	*out = NULL;
	if (!n)
		return -EINVAL;
	struct idlecheck_spin *s = calloc(1, sizeof(*s) + n * sizeof(s->t[0]));
	if (!s)
		return -ENOMEM;
	atomic_init(&s->stop, false);
	unsigned k = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS && k < n; cpu++) {
		if (!parse_cpuset_has(cpus, cpu))
			continue;
		struct idlecheck_spinner *t = &s->t[k++];
		t->cpu = cpu;
		t->owner = s;
		atomic_init(&t->running, false);
		int e = workthread_create(&t->th, NULL, spin_main, t);
		if (e) {
			s->nr = k;
			idlecheck_spin_stop(s);
			return e;
		}
		t->started = true;
	}
	s->nr = k;
	/* wait (bounded) until the threads run, so the caller measures with them */
	for (int i = 0; i < 200 && idlecheck_spin_nr_running(s) < k; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	*out = s;
	return 0;
}

unsigned idlecheck_spin_nr_running(const struct idlecheck_spin *s)
{
	unsigned n = 0;
	for (unsigned i = 0; s && i < s->nr; i++)
		n += atomic_load(&s->t[i].running);
	return n;
}

void idlecheck_spin_stop(struct idlecheck_spin *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	for (unsigned i = 0; i < s->nr; i++)
		if (s->t[i].started)
			pthread_join(s->t[i].th, NULL);
	free(s);
}
