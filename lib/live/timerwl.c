/* SPDX-License-Identifier: MIT */
/* timerwl.c - cyclictest-like timer workload (see timerwl.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live/timerwl.h"
#include "base/workthread.h"

struct timerwl_thr {
	struct timerwl *w;
	pthread_t th;
	bool started;
	pthread_mutex_t lock;		/* protects hist and info */
	struct lhist hist;
	struct timerwl_thread_info info;
};

struct timerwl {
	struct timerwl_cfg cfg;
	atomic_bool stop;
	unsigned nr;
	struct timerwl_thr *t;
};

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static void ns_ts(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

static void *timerwl_run(void *arg)
{
	struct timerwl_thr *t = arg;
	struct timerwl *w = t->w;
	cpu_set_t set;
	int err = 0;

	char name[16];
	/* its own name: not "latscope" like the collector */
	snprintf(name, sizeof(name), "ls-timer/%u", t->info.cpu);
	pthread_setname_np(pthread_self(), name);
	CPU_ZERO(&set);
	CPU_SET(t->info.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		err = errno;
	bool fifo = false, ok = true, dl = false;
	if (w->cfg.deadline) {
		int e = workthread_set_deadline(w->cfg.dl_runtime_ns, w->cfg.dl_period_ns);
		dl = e == 0;
		if (e < 0 && !err)
			err = -e;
		ok = dl;
	} else if (w->cfg.prio > 0) {
		struct sched_param sp = { .sched_priority = w->cfg.prio };
		if (sched_setscheduler(0, w->cfg.rr ? SCHED_RR : SCHED_FIFO, &sp) == 0)
			fifo = true;
		else if (!err)
			err = errno;
		ok = fifo;
	} else if (w->cfg.nice || w->cfg.set_nice) {
		/* Linux: the nice value of this thread alone */
		if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), w->cfg.nice) < 0) {
			ok = false;
			if (!err)
				err = errno;
		}
	}
	pthread_mutex_lock(&t->lock);
	t->info.tid = (pid_t)syscall(SYS_gettid);
	t->info.fifo = fifo;
	t->info.deadline = dl;
	t->info.policy_ok = ok;
	t->info.sched_err = err;
	pthread_mutex_unlock(&t->lock);

	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t next = ts_ns(&now) + w->cfg.interval_ns;
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		struct timespec due;
		ns_ts(next, &due);
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
		if (rc == EINTR)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t t_ns = ts_ns(&now);
		int64_t late = (int64_t)(t_ns - next);
		pthread_mutex_lock(&t->lock);
		lhist_record(&t->hist, late);
		t->info.cycles++;
		next += w->cfg.interval_ns;
		if (t_ns > next) {	/* missed whole periods: skip them */
			uint64_t skip = (t_ns - next) / w->cfg.interval_ns + 1;
			t->info.overruns += skip;
			next += skip * w->cfg.interval_ns;
		}
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

int timerwl_start(struct timerwl **out, const struct timerwl_cfg *cfg)
{
	struct timerwl *w;
	unsigned n = parse_cpuset_count(&cfg->cpus);

	*out = NULL;
	if (!cfg->interval_ns || n == 0 || cfg->prio < 0 || cfg->prio > 99 || cfg->nice < -20 ||
	    cfg->nice > 19)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cfg = *cfg;
	atomic_init(&w->stop, false);
	w->t = calloc(n, sizeof(*w->t));
	if (!w->t) {
		free(w);
		return -ENOMEM;
	}
	unsigned i = 0;
	int err = 0;
	for (unsigned cpu = 0; i < n && cpu < PARSE_MAX_CPUS; cpu++) {
		if (!parse_cpuset_has(&cfg->cpus, cpu))
			continue;
		struct timerwl_thr *t = &w->t[i];
		t->w = w;
		t->info.cpu = cpu;
		pthread_mutex_init(&t->lock, NULL);
		err = lhist_init(&t->hist, &cfg->hist);
		w->nr = ++i;
		if (err)
			break;
		err = workthread_create(&t->th, NULL, timerwl_run, t);
		if (err)
			break;
		t->started = true;
	}
	if (err) {
		timerwl_stop(w);
		return err;
	}
	*out = w;
	return 0;
}

void timerwl_halt(struct timerwl *w)
{
	if (!w)
		return;
	atomic_store(&w->stop, true);
	for (unsigned i = 0; i < w->nr; i++) {
		struct timerwl_thr *t = &w->t[i];
		if (t->started)
			pthread_join(t->th, NULL);
		t->started = false;
	}
}

void timerwl_stop(struct timerwl *w)
{
	if (!w)
		return;
	timerwl_halt(w);
	for (unsigned i = 0; i < w->nr; i++) {
		struct timerwl_thr *t = &w->t[i];
		lhist_fini(&t->hist);
		pthread_mutex_destroy(&t->lock);
	}
	free(w->t);
	free(w);
}

unsigned timerwl_nr_threads(const struct timerwl *w)
{
	return w ? w->nr : 0;
}

int timerwl_snapshot(struct timerwl *w, unsigned i, struct timerwl_thread_info *info, struct lhist *dst)
{
	if (!w || i >= w->nr)
		return -EINVAL;
	struct timerwl_thr *t = &w->t[i];
	int err = 0;
	pthread_mutex_lock(&t->lock);
	if (info)
		*info = t->info;
	if (dst) {
		lhist_reset(dst);
		err = lhist_merge(dst, &t->hist);
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}
