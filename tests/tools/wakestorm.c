/* SPDX-License-Identifier: MIT */
/*
 * wakestorm - a wakeup storm at a fixed rate, with its own latency of each
 * wakeup, for the histogram backends' agreement tests.
 *
 *   wakestorm -w WAKER_CPU -s SLEEPER_CPU -r RATE_HZ -d SECONDS [-p FIFO_PRIO] [-g] [-n BURSTS]
 *
 * Two SCHED_FIFO threads (priority 80 unless -p), each pinned on its CPU.
 * The waker sleeps to absolute times RATE_HZ apart (clock_nanosleep,
 * TIMER_ABSTIME: a late period is caught up at once, so the rate holds on
 * average), reads CLOCK_MONOTONIC and wakes the sleeper with FUTEX_WAKE;
 * the sleeper waits in FUTEX_WAIT, reads CLOCK_MONOTONIC when it returns
 * and files the difference: its own latency, which contains the kernel's
 * wakeup latency of the same wakeup (sched_waking/sched_wakeup inside the
 * FUTEX_WAKE, switch-in before the FUTEX_WAIT returns).
 *
 * With -g, once both threads are in place it prints "ready sleeper_tid=N
 * waker_tid=N" and waits for SIGUSR1 before the first period (a test starts
 * a measurement of the sleeper, then the storm inside it).
 *
 * With -n BURSTS (default 1) the storm runs BURSTS times, SECONDS each,
 * the same sleeper throughout (a test that resets its measurement between
 * two storms of one task).  After each burst but the last it prints
 * "burst K periods=N wakeups=N" (K from 1) and, with -g, waits for SIGUSR1
 * again; the sleeper waits in FUTEX_WAIT meanwhile.  A burst's wakeups are
 * the sleeper's voluntary switches (/proc/self/task/TID/status) from 20 ms
 * into the burst's start to 20 ms after its last period, both times with the
 * sleeper asleep in FUTEX_WAIT: each sleep ended in the burst is one.  The
 * last burst's are on the final line (wakeups there is the sum over the
 * bursts, as without -n), as "last_burst_wakeups=N".
 *
 * At the end, on standard output, one line of key=value pairs:
 *   sleeper_tid waker_tid periods woken not_waiting wakeups other_sleeps
 *   own_samples
 *   own_p50_ns own_p99_ns own_max_ns last_burst_wakeups preempted
 * periods: FUTEX_WAKE calls; woken: those that woke the sleeper (the
 * kernel emitted sched_waking/sched_wakeup for each: a task still on its
 * CPU's run queue, on its way to sleep, included); not_waiting: those that
 * found it not waiting (it was late: no wakeup); wakeups: the sleeper's
 * voluntary context switches from its first wait to its end (getrusage),
 * that is its wakeups from a sleep: the storm's that found it asleep, and
 * the final one that stops it (made 20 ms after the last period), each a
 * sched_wakeup and a switch-in; other_sleeps: those of its sleeps that were
 * not in FUTEX_WAIT (a page fault, say: a kernel-side wakeup with no own
 * sample); own_samples: the wakes that ended a sleep in FUTEX_WAIT (its
 * voluntary switches counted around the wait), the final one included (a
 * wake that found the sleeper on its CPU, on its way into FUTEX_WAIT, has no
 * kernel-side wakeup and no own sample); preempted: the sleeper's
 * involuntary switches (getrusage): each may be a wake that found it taken
 * off its CPU on its way into FUTEX_WAIT (preempted with its sleeping state
 * set, it is still queued: the kernel files a wakeup for it, and it never
 * slept, so no own sample).  The quantiles are upper bounds of 1 us buckets (the
 * histograms' rule: docs/hist.md).  Then one line per non-empty 1 us bucket
 * of the sleeper's own latencies, "bucket US COUNT" (US: the bucket's lower
 * end), the last one holding everything from 100 ms on.
 * Exit 0, 2 on a usage or set-up error (no permission for SCHED_FIFO...).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "monotime.h"

#define WS_BUCKETS 100000	/* 1 us each: 100 ms; above it in the last */
#define WS_RING 1024

struct storm {
	int waker_cpu, sleeper_cpu, prio;
	uint64_t period_ns, duration_ns;
	_Atomic uint32_t seq;		/* the futex word: bumped before each wake */
	/* the waker's clock read before wake N, at [N % WS_RING]: a sleeper
	 * that returns after more than one wake measures from the first */
	_Atomic uint64_t woke_at_ns[WS_RING];
	_Atomic bool done;
	_Atomic int sleeper_tid, ready;
	uint64_t periods, woken, not_waiting;
	uint64_t own_samples, own_max_ns;
	uint64_t preempted;		/* the sleeper's involuntary switches */
	uint64_t slept;			/* the sleeper's voluntary switches */
	uint64_t futex_sleeps;		/* of them, its sleeps in FUTEX_WAIT ended by a wake */
	uint32_t *buckets;
	int err;
};

static long futex(_Atomic uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)w, op, val, NULL, NULL, 0);
}

/* pinned on CPU and SCHED_FIFO PRIO: 0 or an errno */
static int place(int cpu, int prio)
{
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = prio };

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return errno;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		return errno;
	return 0;
}

/* this thread's voluntary context switches: its sleeps */
static uint64_t nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) < 0 ? 0 : (uint64_t)ru.ru_nvcsw;
}

static uint64_t nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) < 0 ? 0 : (uint64_t)ru.ru_nivcsw;
}

static void *sleeper(void *arg)
{
	struct storm *s = arg;
	uint32_t seen = 0;
	int e = place(s->sleeper_cpu, s->prio);

	if (e) {
		s->err = e;
		atomic_store(&s->ready, -1);
		return NULL;
	}
	atomic_store(&s->sleeper_tid, (int)syscall(SYS_gettid));
	uint64_t sw0 = nvcsw(), iv0 = nivcsw();
	atomic_store(&s->ready, 1);
	while (!atomic_load(&s->done)) {
		uint64_t sw = nvcsw();
		if (futex(&s->seq, FUTEX_WAIT_PRIVATE, seen) < 0 && errno != EAGAIN &&
		    errno != EINTR)
			break;
		uint64_t t = now_ns();
		uint32_t cur = atomic_load(&s->seq);
		if (cur == seen)
			continue;	/* spurious */
		uint64_t w = atomic_load(&s->woke_at_ns[(seen + 1) % WS_RING]);
		seen = cur;
		/* only a wake that ended a sleep in FUTEX_WAIT has a kernel-side
		 * wakeup; one that found it on its way there (no switch) has not */
		if (nvcsw() == sw)
			continue;
		s->futex_sleeps++;
		uint64_t lat = t > w ? t - w : 0;
		s->buckets[lat / 1000 < WS_BUCKETS ? lat / 1000 : WS_BUCKETS - 1]++;
		s->own_samples++;
		if (lat > s->own_max_ns)
			s->own_max_ns = lat;
	}
	s->slept = nvcsw() - sw0;
	s->preempted = nivcsw() - iv0;
	return NULL;
}

/* The waker's next wake: its clock read filed for the sleeper, the futex
 * word bumped, FUTEX_WAKE; last: the one that stops the sleeper (done set
 * before the word, so the sleeper files it and leaves).  FUTEX_WAKE's
 * result: 1 when the sleeper was waiting. */
static long wake(struct storm *s, bool last)
{
	uint32_t n = atomic_load(&s->seq) + 1;

	atomic_store(&s->woke_at_ns[n % WS_RING], now_ns());
	if (last)
		atomic_store(&s->done, true);
	atomic_store(&s->seq, n);
	return futex(&s->seq, FUTEX_WAKE_PRIVATE, 1);
}

/* the upper bound (ns) of the bucket holding the q-quantile */
static uint64_t quantile_ns(const struct storm *s, double q)
{
	uint64_t want = (uint64_t)((double)s->own_samples * q + 0.999999), acc = 0;

	if (!s->own_samples)
		return 0;
	if (want < 1)
		want = 1;
	for (uint32_t i = 0; i < WS_BUCKETS; i++) {
		acc += s->buckets[i];
		if (acc >= want)
			return (uint64_t)(i + 1) * 1000;
	}
	return (uint64_t)WS_BUCKETS * 1000;
}

/* the sleeper's voluntary switches so far, from /proc (another thread's) */
static uint64_t task_nvcsw(int tid)
{
	char path[64], line[128];
	unsigned long long v = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: wakestorm -w waker_cpu -s sleeper_cpu -r rate_hz -d seconds [-p fifo_prio] [-g] "
		"[-n bursts]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct storm s = { .waker_cpu = -1, .sleeper_cpu = -1, .prio = 80 };
	double rate = 0, secs = 0;
	pthread_t th;
	bool go = false;
	sigset_t usr1;
	int opt, bursts = 1;

	while ((opt = getopt(argc, argv, "w:s:r:d:p:gn:")) != -1) {
		switch (opt) {
		case 'w': s.waker_cpu = atoi(optarg); break;
		case 's': s.sleeper_cpu = atoi(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'p': s.prio = atoi(optarg); break;
		case 'g': go = true; break;
		case 'n': bursts = atoi(optarg); break;
		default: usage();
		}
	}
	if (s.waker_cpu < 0 || s.sleeper_cpu < 0 || rate <= 0 || rate > 1e6 || secs <= 0 ||
	    s.prio < 1 || s.prio > 99 || bursts < 1)
		usage();
	s.period_ns = (uint64_t)(1e9 / rate);
	s.duration_ns = (uint64_t)(secs * 1e9);
	s.buckets = calloc(WS_BUCKETS, sizeof(*s.buckets));
	if (!s.buckets)
		return 2;
	/* blocked in every thread: main takes it with sigwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (pthread_create(&th, NULL, sleeper, &s)) {
		fprintf(stderr, "wakestorm: cannot start the sleeper\n");
		return 2;
	}
	while (!atomic_load(&s.ready))
		usleep(1000);
	int e = atomic_load(&s.ready) < 0 ? s.err : place(s.waker_cpu, s.prio);
	if (e) {
		fprintf(stderr, "wakestorm: SCHED_FIFO %d on CPUs %d and %d: %s\n", s.prio,
			s.waker_cpu, s.sleeper_cpu, strerror(e));
		atomic_store(&s.done, true);
		futex(&s.seq, FUTEX_WAKE_PRIVATE, 1);
		pthread_join(th, NULL);
		return 2;
	}
	if (go) {
		int sig;
		printf("ready sleeper_tid=%d waker_tid=%d\n", atomic_load(&s.sleeper_tid),
		       (int)syscall(SYS_gettid));
		fflush(stdout);
		sigwait(&usr1, &sig);
	}
	uint64_t before = 0, v0 = 0;	/* the earlier bursts' wakeups; switches at this burst's start */
	for (int b = 1; b <= bursts; b++) {
		uint64_t periods0 = s.periods;
		usleep(20000);	/* the sleeper in its FUTEX_WAIT */
		v0 = task_nvcsw(atomic_load(&s.sleeper_tid));
		uint64_t start = now_ns(), next = start + s.period_ns, end = start + s.duration_ns;
		while (next <= end) {
			struct timespec ts = { .tv_sec = (time_t)(next / 1000000000ULL),
					       .tv_nsec = (long)(next % 1000000000ULL) };
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			long n = wake(&s, false);
			s.periods++;
			if (n > 0)
				s.woken++;
			else
				s.not_waiting++;
			next += s.period_ns;
		}
		if (b == bursts)
			break;
		usleep(20000);	/* the last wake filed, the sleeper back in FUTEX_WAIT */
		uint64_t w = task_nvcsw(atomic_load(&s.sleeper_tid)) - v0;
		before += w;
		printf("burst %d periods=%llu wakeups=%llu\n", b, (unsigned long long)(s.periods - periods0),
		       (unsigned long long)w);
		fflush(stdout);
		if (go) {
			int sig;
			sigwait(&usr1, &sig);
		}
	}
	/* the sleeper's last wake: let it file it, then stop it with one more
	 * (filed too: a wakeup like the others) */
	usleep(20000);
	wake(&s, true);
	pthread_join(th, NULL);
	printf("sleeper_tid=%d waker_tid=%d periods=%llu woken=%llu not_waiting=%llu wakeups=%llu "
	       "other_sleeps=%llu own_samples=%llu own_p50_ns=%llu own_p99_ns=%llu own_max_ns=%llu "
	       "last_burst_wakeups=%llu preempted=%llu\n",
	       atomic_load(&s.sleeper_tid), (int)syscall(SYS_gettid),
	       (unsigned long long)s.periods, (unsigned long long)s.woken,
	       (unsigned long long)s.not_waiting, (unsigned long long)s.slept,
	       (unsigned long long)(s.slept - s.futex_sleeps), (unsigned long long)s.own_samples,
	       (unsigned long long)quantile_ns(&s, 0.5), (unsigned long long)quantile_ns(&s, 0.99),
	       (unsigned long long)s.own_max_ns, (unsigned long long)(s.slept - before),
	       (unsigned long long)s.preempted);
	for (uint32_t i = 0; i < WS_BUCKETS; i++)
		if (s.buckets[i])
			printf("bucket %u %u\n", i, s.buckets[i]);
	free(s.buckets);
	return 0;
}
