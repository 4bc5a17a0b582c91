/* SPDX-License-Identifier: MIT */
/*
 * noisegen - inject known OS noise on one CPU, for the osnoise ground-truth tests.
 *
 *   noisegen thread -c CPU [-P FIFO_PRIO] [-i INTERVAL_US] [-s SPIN_US] -d SECONDS
 *	a SCHED_FIFO thread pinned on CPU wakes every INTERVAL_US (10000) and
 *	spins SPIN_US (200); prints its tid, comm, the number of wake-ups and
 *	the total time it spent spinning (from the first instruction after the
 *	wake-up to the end of the spin), in ns, and the kernel's account of its
 *	run time and switch-ins (/proc/thread-self/schedstat), and hidden_ns:
 *	the wall time of its spins that its own CPU time does not count (the
 *	hypervisor's steal, and interrupts where the kernel accounts them
 *	apart), measured spin by spin in ns (/proc/stat's steal is in ticks).
 *   noisegen timer -c CPU [-f HZ] -d SECONDS
 *	a CPU-wide cpu-clock perf event on CPU with period 1/HZ: its hrtimer
 *	interrupts CPU HZ times a second with no task woken; prints the
 *	expected number of interrupts, the CPU's LOC count of /proc/interrupts
 *	over the event's life (loc_delta) and two windows of CLOCK_MONOTONIC
 *	around the two reads of LOC: window_start_ns/window_end_ns (outer: from
 *	before the first read to after the last) and inner_start_ns/
 *	inner_end_ns (after the first read, before the last).  The interrupts
 *	LOC counted were taken within the outer window, and every interrupt of
 *	the inner window was counted; the two differ by the reads' time, which
 *	is microseconds unless noisegen was preempted between a read and its
 *	clock read (a busy machine: milliseconds).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/parse.h"
#include "live/idlecheck.h"
#include "monotime.h"

static void usage(void)
{
	fprintf(stderr, "usage: noisegen thread -c CPU [-P prio] [-i interval_us] [-s spin_us] -d seconds\n"
			"       noisegen timer -c CPU [-f hz] -d seconds\n");
	exit(2);
}

/* The kernel's account of this thread: CPU time (sum_exec_runtime, ns, which
 * includes its system calls and the interrupts taken while it ran) and the
 * number of times it was switched in; 0 when schedstats are unavailable. */
static void schedstat(uint64_t *run_ns, uint64_t *switched_in)
{
	unsigned long long a = 0, b = 0, c = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu %llu", &a, &b, &c) != 3)
			a = c = 0;
		fclose(f);
	}
	*run_ns = a;
	*switched_in = c;
}

/* this thread's CPU time (what the kernel counts as its run time), ns */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int run_thread(int cpu, int prio, uint64_t interval_us, uint64_t spin_us, double secs)
{
	/* where the process came to life: a start on the measured CPU (exec,
	 * the loader) is noise there by this thread before the loop, which the
	 * caller must expect or avoid (start it pinned elsewhere) */
	int start_cpu = sched_getcpu();
	/* Start-up and exit run on the other CPUs, so the measured CPU sees
	 * only the loop (and the two migrations around it): what the kernel
	 * accounts below (schedstat over the loop) is then all this thread
	 * ever ran there. */
	cpu_set_t set, others;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_getaffinity(0, sizeof(others), &others) < 0) {
		perror("noisegen: sched_getaffinity");
		return 2;
	}
	CPU_CLR(cpu, &others);
	bool away = CPU_COUNT(&others) > 0;
	if (away && sched_setaffinity(0, sizeof(others), &others) < 0) {
		perror("noisegen: sched_setaffinity");
		return 2;
	}
	struct sched_param sp = { .sched_priority = prio };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("noisegen: sched_setscheduler(SCHED_FIFO)");
		return 2;
	}
	prctl(PR_SET_NAME, "noisegen", 0, 0, 0);
	/* run time from here to after the move away: everything it ran on the
	 * measured CPU (the start of its first switch-in there and the end of
	 * its last one are inside), plus a little on the other side */
	uint64_t runa = 0, cnta = 0;
	schedstat(&runa, &cnta);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("noisegen: sched_setaffinity");
		return 2;
	}
	uint64_t run0 = 0, cnt0 = 0;
	schedstat(&run0, &cnt0);
	uint64_t start = now_ns(), end = start + (uint64_t)(secs * 1e9);
	uint64_t next = start + interval_us * 1000;
	uint64_t total = 0, wakes = 0, late = 0, hidden = 0;
	while (next < end) {
		struct timespec ts = { .tv_sec = (time_t)(next / 1000000000ULL),
				       .tv_nsec = (long)(next % 1000000000ULL) };
		/* a deadline already past when the sleep starts (a slow or loaded
		 * machine) is no wake-up: the thread runs on, one noise entry */
		bool slept = now_ns() < next;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		uint64_t c0 = cpu_ns(), t0 = now_ns(), t;
		do
			t = now_ns();
		while (t - t0 < spin_us * 1000);
		uint64_t c1 = cpu_ns();
		total += t - t0;
		if (t - t0 > c1 - c0)
			hidden += (t - t0) - (c1 - c0);
		wakes += slept;
		late += !slept;
		next += interval_us * 1000;
		while (next < t)
			next += interval_us * 1000;
	}
	uint64_t run1 = 0, cnt1 = 0, runb = 0, cntb = 0;
	schedstat(&run1, &cnt1);
	if (away)
		sched_setaffinity(0, sizeof(others), &others);
	schedstat(&runb, &cntb);
	printf("tid=%ld comm=noisegen wakes=%llu late=%llu spin_total_ns=%llu run_ns=%llu switched_in=%llu "
	       "stay_run_ns=%llu hidden_ns=%llu start_cpu=%d switched_in_before=%llu\n",
	       (long)syscall(SYS_gettid), (unsigned long long)wakes, (unsigned long long)late,
	       (unsigned long long)total,
	       (unsigned long long)(run1 - run0), (unsigned long long)(cnt1 - cnt0),
	       (unsigned long long)(runb - runa), (unsigned long long)hidden, start_cpu,
	       (unsigned long long)cnta);
	return 0;
}

/* The CPU's count in /proc/interrupts' LOC line, or -1 (live/idlecheck.h). */
static long long loc_of(int cpu)
{
	uint64_t counts[PARSE_MAX_CPUS];

	if (cpu < 0 || cpu >= PARSE_MAX_CPUS || idlecheck_irq_line("LOC", counts, PARSE_MAX_CPUS) < 0)
		return -1;
	return (long long)counts[cpu];
}

static int run_timer(int cpu, uint64_t hz, double secs)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ULL / hz;
	a.sample_type = PERF_SAMPLE_TIME;
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
	if (fd < 0) {
		perror("noisegen: perf_event_open(cpu-clock)");
		return 2;
	}
	/* the window the event lived in (CLOCK_MONOTONIC, as latscope's event
	 * lines) and the CPU's local timer interrupts over it (LOC; x86) */
	/* the tracepoint every local timer interrupt fires, counted (no
	 * samples): what any tracer of it can see */
	long long tp_id = -1;
	FILE *idf = fopen("/sys/kernel/tracing/events/irq_vectors/local_timer_entry/id", "r");
	if (idf) {
		if (fscanf(idf, "%lld", &tp_id) != 1)
			tp_id = -1;
		fclose(idf);
	}
	long cfd = -1;
	if (tp_id >= 0) {
		struct perf_event_attr c;
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.type = PERF_TYPE_TRACEPOINT;
		c.config = (uint64_t)tp_id;
		cfd = syscall(SYS_perf_event_open, &c, -1, cpu, -1, 0);
	}
	uint64_t t0 = now_ns();
	long long loc0 = loc_of(cpu);
	uint64_t tp0 = 0, tp1 = 0;
	if (cfd >= 0 && read((int)cfd, &tp0, sizeof(tp0)) != sizeof(tp0))
		cfd = -1;
	uint64_t t0_in = now_ns();
	struct timespec ts = { .tv_sec = (time_t)secs, .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	uint64_t t1_in = now_ns();
	long long loc1 = loc_of(cpu);
	if (cfd >= 0 && read((int)cfd, &tp1, sizeof(tp1)) != sizeof(tp1))
		cfd = -1;
	uint64_t t1 = now_ns();
	close((int)fd);
	printf("timer_irqs_expected=%llu\n", (unsigned long long)((double)hz * secs));
	printf("window_start_ns=%llu\nwindow_end_ns=%llu\n", (unsigned long long)t0, (unsigned long long)t1);
	printf("inner_start_ns=%llu\ninner_end_ns=%llu\n", (unsigned long long)t0_in, (unsigned long long)t1_in);
	if (loc0 >= 0 && loc1 >= loc0)
		printf("loc_delta=%lld\n", loc1 - loc0);
	if (cfd >= 0) {
		printf("tracepoint_delta=%llu\n", (unsigned long long)(tp1 - tp0));
		close((int)cfd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *mode = argv[1];
	int cpu = -1, prio = 50, o;
	uint64_t interval_us = 10000, spin_us = 200, hz = 2000;
	double secs = 0;
	optind = 2;
	while ((o = getopt(argc, argv, "c:P:i:s:d:f:")) != -1) {
		switch (o) {
		case 'c': cpu = atoi(optarg); break;
		case 'P': prio = atoi(optarg); break;
		case 'i': interval_us = strtoull(optarg, NULL, 10); break;
		case 's': spin_us = strtoull(optarg, NULL, 10); break;
		case 'd': secs = atof(optarg); break;
		case 'f': hz = strtoull(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (cpu < 0 || secs <= 0 || !interval_us || !hz || hz > 100000)
		usage();
	if (!strcmp(mode, "thread"))
		return run_thread(cpu, prio, interval_us, spin_us, secs);
	if (!strcmp(mode, "timer"))
		return run_timer(cpu, hz, secs);
	usage();
	return 2;
}
