/* SPDX-License-Identifier: MIT */
/*
 * bpfload.h - what the BPF backends (live/bpfhist.h, live/osnbpf.h) share
 * around libbpf: libbpf's warnings kept instead of printed and a refusal
 * explained with the last of them, the kernel's BTF checked, every loaded
 * program's counts read from the kernel (struct bpf_prog_info), and the
 * programs that missed runs named.
 *
 * Prefix: bpfload_.
 *
 * bpfload_misses_text() is pure and built always (bpfload_text.c); the rest
 * (bpfload.c) only where the Makefile builds the BPF backends.  Never
 * prints.
 */
#ifndef LATSCOPE_BPFLOAD_H
#define LATSCOPE_BPFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_object;

/* One loaded program's counts, as the kernel keeps them. */
struct bpfload_prog {
	char name[48];			/* the program's name in the object (bpfhist_waking...) */
	uint64_t run_cnt;		/* runs: counted only while the kernel's BPF stats are on
					 * (bpf_enable_stats) */
	uint64_t run_time_ns;		/* their time, likewise */
	uint64_t recursion_misses;	/* runs the kernel skipped: the program was already
					 * running on that CPU (its per-CPU recursion guard,
					 * prog->active): a LOSS, the event was not seen */
};

/*
 * bpfload_misses_text - the programs of p[0..n) that missed runs, as
 * "bpfhist_switch 3, bpfhist_waking 1" (in p's order) into buf (at most len
 * bytes, NUL-terminated; "" when none).  Returns the total of their
 * recursion_misses.  Pure.
 */
uint64_t bpfload_misses_text(const struct bpfload_prog *p, uint32_t n, char *buf, size_t len);

/* From here on libbpf's warnings are kept (the last one, for
 * bpfload_explain) instead of printed on stderr; bpfload_capture_end() puts
 * libbpf's printer back.  Not for two threads at once. */
void bpfload_capture_begin(void);
void bpfload_capture_end(void);

/* "WHAT: strerror(-err) (the privileges a refusal asks for); libbpf: its
 * last warning" into why (at most len bytes). */
void bpfload_explain(char *why, size_t len, int err, const char *what);

/* 0 when the kernel has BTF (/sys/kernel/btf/vmlinux: CO-RE can relocate the
 * programs), else the negative errno and why (at most len bytes). */
int bpfload_need_btf(char *why, size_t len);

/*
 * bpfload_tp_arg_is_ptr - whether argument arg (0 = the first after the
 * tracepoint's context) of tracepoint tp is a pointer in the running
 * kernel, from its BTF (btf_trace_TP: a pointer to the probe's prototype,
 * whose first parameter is the context; typedefs and qualifiers looked
 * through).  Kernels change an argument's form: hrtimer_expire_entry's
 * `now` is a ktime_t * in 6.1 and a ktime_t in 7.2.  Returns 1 (pointer),
 * 0 (not), -ENOENT when the kernel has no such tracepoint or argument, or
 * the negative errno of reading the BTF.  The BTF read is freed here.
 */
int bpfload_tp_arg_is_ptr(const char *tp, unsigned arg);

/*
 * bpfload_read_progs - every loaded program of obj (not those left out of
 * the load): its name and counts into out[*nr], up to max, and their sums
 * into *run_cnt and *misses (added to).  Returns 0, -E2BIG when more than max
 * programs are loaded, or bpf_obj_get_info_by_fd's negative errno.
 */
int bpfload_read_progs(struct bpf_object *obj, struct bpfload_prog *out, uint32_t max, uint32_t *nr,
		       uint64_t *run_cnt, uint64_t *misses);

#endif
