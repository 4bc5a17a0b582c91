/* SPDX-License-Identifier: MIT */
/*
 * bpfpoff - drives the bpf backend's preemptirq programs
 * (bpfhist_irq_disable/enable, bpfhist_preempt_disable/enable and
 * bpfhist_cpu_idle in lib/live/bpf/bpfhist.bpf.c) through the kernel's
 * BPF_PROG_TEST_RUN, for
 * kernels without the preemptirq tracepoints (this machine's, Debian's):
 * the object is loaded, never attached; each "event" is one test run of a
 * program on CPU 0, where this process is pinned, so the programs see this
 * process as the current task.  Every section's length is bracketed by this
 * process's CLOCK_MONOTONIC reads around the two test runs that open and
 * close it (the programs stamp with bpf_ktime_get_ns(), the same clock), so
 * the checks are exact: lo <= filed <= hi.
 *
 *   bpfpoff          run the checks; "ok ..." lines, exit 0; a "FAIL" line
 *                    and exit 1; exit 77 where BPF is refused or latscope
 *                    was built without the bpf backend
 */

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<bpfhist.skel.h>)
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "live/bpf/bpfhist_abi.h"
#include <bpfhist.skel.h>
#include "monotime.h"

static struct bpfhist_bpf *skel;
static int ncpus;

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* one test run of prog (args: ip, parent_ip, as the tracepoint passes) */
static void run(struct bpf_program *prog)
{
	uint64_t args[2] = { 0xffffffff81000000ULL, 0xffffffff81000010ULL };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o) < 0) {
		printf("FAIL: test run of %s: %s\n", bpf_program__name(prog), strerror(errno));
		exit(1);
	}
}

/* one test run of bpfhist_cpu_idle (args: state, cpu_id, as power:cpu_idle
 * passes them; state (u32)-1 = leaving idle) */
static void run_idle(uint32_t state)
{
	uint64_t args[2] = { state, 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.bpfhist_cpu_idle), &o) < 0) {
		printf("FAIL: test run of bpfhist_cpu_idle: %s\n", strerror(errno));
		exit(1);
	}
}

/* CPU 0's value of key in a per-CPU map, size bytes a CPU, into out */
static void cpu0_value(struct bpf_map *m, uint32_t key, size_t size, void *out)
{
	char *v = calloc((size_t)ncpus, size);
	if (!v || bpf_map_lookup_elem(bpf_map__fd(m), &key, v) < 0) {
		printf("FAIL: reading %s: %s\n", bpf_map__name(m), strerror(errno));
		exit(1);
	}
	memcpy(out, v, size);
	free(v);
}

static struct bpfhist_kstat kstat(uint32_t k)
{
	struct bpfhist_kstat r;
	cpu0_value(skel->maps.bpfhist_kstats, k, sizeof(r), &r);
	return r;
}

static uint64_t counter(uint32_t c)
{
	uint64_t r;
	cpu0_value(skel->maps.bpfhist_ctrs, c, sizeof(r), &r);
	return r;
}

static const char *const kname[BPFHIST_NR_KINDS] = {
	[BPFHIST_IRQSOFF] = "irqsoff", [BPFHIST_PREEMPTOFF] = "preemptoff",
	[BPFHIST_PREEMPTIRQSOFF] = "preemptirqsoff",
};

/* kind k has total samples, its worst in [lo, hi] and naming this process */
static void expect(uint32_t k, uint64_t total, uint64_t lo, uint64_t hi, const char *what)
{
	struct bpfhist_kstat s = kstat(k);
	char comm[16] = "";

	prctl(PR_GET_NAME, comm);
	if (s.total != total) {
		printf("FAIL: %s: %s has %llu samples, expected %llu\n", what, kname[k],
		       (unsigned long long)s.total, (unsigned long long)total);
		exit(1);
	}
	if (!s.max.valid || (uint64_t)s.max.latency_ns < lo || (uint64_t)s.max.latency_ns > hi) {
		printf("FAIL: %s: %s worst %lld ns, outside [%llu, %llu] (this process's clock around the "
		       "test runs)\n", what, kname[k], (long long)s.max.latency_ns, (unsigned long long)lo,
		       (unsigned long long)hi);
		exit(1);
	}
	if (s.max.victim.pid != (int32_t)gettid() || strncmp(s.max.victim.comm, comm, sizeof(comm))) {
		printf("FAIL: %s: %s worst case names %d %s, not this process (%d %s)\n", what, kname[k],
		       s.max.victim.pid, s.max.victim.comm, (int)gettid(), comm);
		exit(1);
	}
	printf("ok: %s: %s %llu samples, worst %lld ns in [%llu, %llu], victim %d %s\n", what, kname[k],
	       (unsigned long long)s.total, (long long)s.max.latency_ns, (unsigned long long)lo,
	       (unsigned long long)hi, s.max.victim.pid, s.max.victim.comm);
}

static int load(int both_off)
{
	skel = bpfhist_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->cfg_nr_cpus = (uint32_t)ncpus;
	skel->rodata->cfg_both_off = (uint32_t)both_off;
	bpf_map__set_max_entries(skel->maps.bpfhist_buckets, BPFHIST_NR_KINDS * 10240);
	bpf_map__set_max_entries(skel->maps.bpfhist_cpus, (uint32_t)ncpus);
	return bpfhist_bpf__load(skel);
}

/* a: t_a before the opening run, t_b after it; c/d around the closing run:
 * the section lies in [c - b, d - a] */
#define OPEN(p) (ta = now_ns(), run(skel->progs.p), tb = now_ns())
#define CLOSE(p) (tc = now_ns(), run(skel->progs.p), td = now_ns())

int main(void)
{
	cpu_set_t set;
	uint64_t ta, tb, tc, td, pa, pb, ia, ib;

	libbpf_set_print(NULL);
	ncpus = libbpf_num_possible_cpus();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (ncpus <= 0 || sched_setaffinity(0, sizeof(set), &set) < 0) {
		printf("FAIL: cannot pin to CPU 0\n");
		return 1;
	}
	int err = load(0);
	if (err) {
		printf("skip: the BPF object does not load here: %s\n", strerror(-err));
		return 77;
	}
	/* an enable with no disable seen: counted, nothing filed */
	run(skel->progs.bpfhist_irq_enable);
	if (counter(BPFHIST_C_UNMATCHED_ENABLE) != 1 || kstat(BPFHIST_IRQSOFF).total) {
		printf("FAIL: an unmatched irq_enable: counter %llu, irqsoff samples %llu\n",
		       (unsigned long long)counter(BPFHIST_C_UNMATCHED_ENABLE),
		       (unsigned long long)kstat(BPFHIST_IRQSOFF).total);
		return 1;
	}
	printf("ok: an irq_enable with no disable seen is counted (unmatched_enable 1), not filed\n");
	/* irqs off for 2 ms: one irqsoff and one preemptirqsoff sample */
	OPEN(bpfhist_irq_disable);
	run(skel->progs.bpfhist_irq_disable);	/* nested disable: no new section */
	sleep_ns(2000000);
	CLOSE(bpfhist_irq_enable);
	expect(BPFHIST_IRQSOFF, 1, tc - tb, td - ta, "irqs off 2 ms");
	expect(BPFHIST_PREEMPTIRQSOFF, 1, tc - tb, td - ta, "irqs off 2 ms");
	ia = tc - tb, ib = td - ta;	/* that section's bounds */
	/* preemption off, then irqs off inside, preemption back on, then irqs:
	 * preemptoff and the either-off section from pa/pb on (the second
	 * irqsoff section is counted; the worst is the larger of the two) */
	OPEN(bpfhist_preempt_disable);
	pa = ta, pb = tb;
	sleep_ns(1000000);
	run(skel->progs.bpfhist_irq_disable);
	sleep_ns(1000000);
	CLOSE(bpfhist_preempt_enable);
	expect(BPFHIST_PREEMPTOFF, 1, tc - pb, td - pa, "preemption off 2 ms");
	sleep_ns(1000000);
	CLOSE(bpfhist_irq_enable);
	/* the irqsoff worst: the 2 ms one of before or this one, the larger */
	struct bpfhist_kstat s = kstat(BPFHIST_IRQSOFF);
	if (s.total != 2) {
		printf("FAIL: irqsoff has %llu samples after two sections\n", (unsigned long long)s.total);
		return 1;
	}
	printf("ok: irqsoff 2 samples after two sections\n");
	/* the preemptirqsoff worst is the larger of the 2 ms section before
	 * and this 3 ms one: the 2 ms sleep can take longer than 3 ms on a
	 * loaded machine (5.2 ms seen beside burstload + a gzip loop), so the
	 * bounds are those of the larger of two values, one in each section's */
	expect(BPFHIST_PREEMPTIRQSOFF, 2, ia > tc - pb ? ia : tc - pb, ib > td - pa ? ib : td - pa,
	       "either off 3 ms (or the 2 ms one before, when longer)");
	bpfhist_bpf__destroy(skel);

	/* --both-off: the combined section only while both are off */
	if ((err = load(1))) {
		printf("FAIL: the object loaded once and not again: %s\n", strerror(-err));
		return 1;
	}
	OPEN(bpfhist_preempt_disable);
	sleep_ns(1000000);
	OPEN(bpfhist_irq_disable);
	ia = ta, ib = tb;
	sleep_ns(1000000);
	CLOSE(bpfhist_preempt_enable);
	expect(BPFHIST_PREEMPTIRQSOFF, 1, tc - ib, td - ia, "both off 1 ms (--both-off)");
	CLOSE(bpfhist_irq_enable);
	bpfhist_bpf__destroy(skel);

	/* the idle wait (power:cpu_idle): ignored before any preempt event of
	 * the CPU; then preemption off up to entering it, none during it, off
	 * again from leaving it to the next preempt_enable */
	if ((err = load(0))) {
		printf("FAIL: the object loaded once and not again: %s\n", strerror(-err));
		return 1;
	}
	run_idle(UINT32_MAX);
	run(skel->progs.bpfhist_preempt_enable);
	if (counter(BPFHIST_C_UNMATCHED_ENABLE) != 1 || kstat(BPFHIST_PREEMPTOFF).total) {
		printf("FAIL: cpu_idle before any preempt event: unmatched_enable %llu, preemptoff samples "
		       "%llu (expected 1, 0)\n", (unsigned long long)counter(BPFHIST_C_UNMATCHED_ENABLE),
		       (unsigned long long)kstat(BPFHIST_PREEMPTOFF).total);
		return 1;
	}
	printf("ok: cpu_idle before any preempt event of the CPU changes nothing\n");
	OPEN(bpfhist_preempt_disable);
	sleep_ns(1000000);
	tc = now_ns(), run_idle(1), td = now_ns();
	expect(BPFHIST_PREEMPTOFF, 1, tc - tb, td - ta, "preemption off 1 ms up to the idle wait");
	ia = tc - tb, ib = td - ta;
	sleep_ns(5000000);	/* the wait: no section */
	ta = now_ns(), run_idle(UINT32_MAX), tb = now_ns();
	sleep_ns(1000000);
	CLOSE(bpfhist_preempt_enable);
	expect(BPFHIST_PREEMPTOFF, 2, ia > tc - tb ? ia : tc - tb, ib > td - ta ? ib : td - ta,
	       "preemption off 1 ms from the idle wait's end (or the one before, when longer)");
	bpfhist_bpf__destroy(skel);
	return 0;
}
#else
int main(void)
{
	printf("skip: latscope was built without the bpf backend\n");
	return 77;
}
#endif
