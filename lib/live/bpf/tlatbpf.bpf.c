/* SPDX-License-Identifier: MIT */
/*
 * tlatbpf.bpf.c - `latscope timerlat --backend bpf`: one program on the
 * osnoise:timerlat_sample tracepoint (Linux 6.15 and later), which the
 * timerlat tracer fires for every activation's IRQ, thread and user-return
 * sample whether or not a ring records it.  It keeps, per CPU and context,
 * the summary (live/bpf/tlatbpf_abi.h) and a histogram of `entries` buckets
 * `bucket_ns` wide, and the first sample at or above its context's
 * threshold; after that it counts nothing more (the trace path's kernel
 * stop likewise ends the records).  No sample leaves the kernel.
 *
 * Each CPU writes only its own slots (the program runs on the CPU whose
 * timer fired: the IRQ there, the thread pinned there).
 *
 * The tracepoint's argument is read through a struct of our own with CO-RE
 * relocations (preserve_access_index; the ___latscope suffix is dropped
 * when matching the kernel's struct timerlat_sample), so the object builds
 * on a machine whose kernel has no timerlat tracer.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "live/bpf/tlatbpf_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* the tracepoint's argument (include/trace/events/osnoise.h) */
struct timerlat_sample___latscope {
	__u64 timer_latency;
	unsigned int seqnum;
	int context;
} __attribute__((preserve_access_index));

/* set by the loader before the load */
const volatile __u64 bucket_ns = 1000;
const volatile __u32 entries = 256;
const volatile __u64 stop_irq_ns, stop_thread_ns;	/* 0: none; the thread one for user returns too */

/* key cpu * 3 + ctx; max_entries set by the loader to 3 x the possible
 * CPUs.  Mapped into latscope (BPF_F_MMAPABLE): it reads them with plain
 * loads, never with a map syscall, which would hold the CPU's BPF
 * recursion guard (bpf_prog_active) and make the tracepoint skip the
 * samples of that CPU meanwhile (preemptible on PREEMPT_RT). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TLATBPF_NR_CTX);
	__type(key, __u32);
	__type(value, struct tlatbpf_sum);
} tlatbpf_sums SEC(".maps");

/* key (cpu * 3 + ctx) * entries + bucket; max_entries set by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TLATBPF_NR_CTX * 256);
	__type(key, __u32);
	__type(value, __u64);
} tlatbpf_buckets SEC(".maps");

struct tlatbpf_stop tlatbpf_stop;

static __always_inline void summary(struct tlatbpf_sum *s, __u64 lat, __u32 seq)
{
	if (!s->count) {
		s->first_seq = seq;
		s->min_ns = lat;
	} else if (seq > s->last_seq) {
		s->missed += seq - s->last_seq - 1;
	} else {
		s->restarts++;
		s->first_seq = seq;
	}
	s->last_seq = seq;
	s->cur_ns = lat;
	if (!s->count || lat > s->worst_ns) {
		s->worst_ns = lat;
		s->worst_seq = seq;
		s->worst_ts_ns = bpf_ktime_get_ns();
	}
	if (lat < s->min_ns)
		s->min_ns = lat;
	if (lat > s->max_ns)
		s->max_ns = lat;
	s->count++;
	s->sum_ns += lat;
}

/* a BTF-typed raw tracepoint: its recursion guard is the program's own
 * (a classic tracepoint program shares the CPU's bpf_prog_active with every
 * other tracing program, and on PREEMPT_RT one of them preempted in a task
 * made this one skip samples: 56 and 77 a CPU in 8 s beside hist's bpf
 * backend in the 7.2-rt guest) */
SEC("tp_btf/timerlat_sample")
int BPF_PROG(tlatbpf_sample, struct timerlat_sample___latscope *tp)
{
	if (tlatbpf_stop.hit)
		return 0;
	__u64 lat = BPF_CORE_READ(tp, timer_latency);
	__u32 seq = BPF_CORE_READ(tp, seqnum);
	int cx = BPF_CORE_READ(tp, context);
	if (cx < 0 || cx >= TLATBPF_NR_CTX)
		return 0;
	__u32 k = bpf_get_smp_processor_id() * TLATBPF_NR_CTX + (__u32)cx;
	struct tlatbpf_sum *s = bpf_map_lookup_elem(&tlatbpf_sums, &k);
	if (!s)
		return 0;
	summary(s, lat, seq);
	__u64 b = lat / bucket_ns;
	if (b >= entries) {
		s->over++;
	} else {
		__u32 bk = k * entries + (__u32)b;
		__u64 *c = bpf_map_lookup_elem(&tlatbpf_buckets, &bk);
		if (c)
			(*c)++;
	}
	__u64 stop = cx == 0 ? stop_irq_ns : stop_thread_ns;
	if (stop && lat >= stop && !__sync_fetch_and_add(&tlatbpf_stop.hit, 1)) {
		tlatbpf_stop.lat_ns = lat;
		tlatbpf_stop.ts_ns = bpf_ktime_get_ns();
		tlatbpf_stop.cpu = bpf_get_smp_processor_id();
		tlatbpf_stop.ctx = cx;
		tlatbpf_stop.seq = seq;
	}
	return 0;
}
