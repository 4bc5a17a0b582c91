/* SPDX-License-Identifier: MIT */
/*
 * hsource_int.h - private to lib/engine/hsource/: what the backends' adapters
 * share (hsource_perf.c, hsource_bpf.c, hsource_kernel.c; the dispatch and
 * the feed in hsource.c).
 */
#ifndef LATSCOPE_HSOURCE_INT_H
#define LATSCOPE_HSOURCE_INT_H

#include "engine/hsource.h"

/* printf into why->reason / why->note */
void hsource_reason(struct hsource_why *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hsource_note(struct hsource_why *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The CPUs of a set: n clamped to 1..HSET_MAX_CPUS. */
uint32_t hsource_clamp_cpus(uint32_t n);

/* on[0..nr_cpus) (the caller's): whether each CPU is traced. */
void hsource_cpu_on(const struct hsource_cfg *cfg, uint32_t nr_cpus, bool *on);

/* An in-kernel backend's kinds: the wakeup events, and the hrtimer ones
 * when timers. */
void hsource_kernel_kinds(bool has[TPEVENT_NR_KINDS], bool timers);

#endif
