/* SPDX-License-Identifier: MIT */
/*
 * tasklat.h - wakeup latency per task (runqlat -P's question: which tasks
 * waited longest between their wakeup and their switch-in), fed the samples
 * the latency trackers file (latency_set_observer: the wakeup and
 * wakeup/sharedprio kinds; the others are ignored).
 *
 * Prefix: tasklat_.  Pure: no I/O, no clock; never prints.
 *
 * Memory is bounded: a fixed table of slots tasks (keyed by pid; the comm
 * is the last one seen), each with a count, the total, the max and a
 * log-linear histogram (16 sub-buckets per power of two of ns: p50 and p99
 * are bucket upper bounds, at most 1/16 above the true value, never above
 * the max; counts, totals and maxima are exact).  A full table keeps the
 * tasks with the largest maxima: a new task whose sample is above the
 * smallest max in the table takes that task's slot (the task evicted and
 * its samples counted in evicted_samples); otherwise its sample is dropped
 * and counted.  Nothing is ever filed without being counted somewhere.
 *
 *	struct tasklat *tl;
 *	tasklat_new(&tl, TASKLAT_DEFAULT_SLOTS);
 *	latency_set_observer(lat, tasklat_observe, tl);
 *	... feed the trackers ...
 *	size_t n = tasklat_rows(tl, rows, max, TASKLAT_BY_MAX);
 *	tasklat_free(tl);
 */
#ifndef LATSCOPE_TASKLAT_H
#define LATSCOPE_TASKLAT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/latency.h"

#define TASKLAT_DEFAULT_SLOTS 1024
#define TASKLAT_MAX_SLOTS (1u << 20)
#define TASKLAT_COMM_LEN 16

struct tasklat;

/* One task's line, copied out by tasklat_rows(). */
struct tasklat_row {
	int32_t pid;
	char comm[TASKLAT_COMM_LEN];	/* NUL-terminated; the last comm seen */
	uint64_t count;			/* samples */
	uint64_t total_ns, max_ns;	/* exact (total saturates at UINT64_MAX) */
	uint64_t p50_ns, p99_ns;	/* nearest rank, bucket upper bound clamped to max */
	uint64_t max_time_ns;		/* when the max was filed (the sample's stamp) */
};

struct tasklat_stats {
	uint32_t slots, used;		/* the table's size, tasks in it */
	uint64_t samples;		/* samples filed in the table */
	uint64_t evicted;		/* tasks pushed out of a full table */
	uint64_t evicted_samples;	/* the samples they had */
	uint64_t dropped;		/* samples of new tasks a full table did not take */
	uint64_t no_task;		/* samples without a victim (pid < 0) */
};

enum tasklat_sort { TASKLAT_BY_MAX, TASKLAT_BY_TOTAL };

/*
 * tasklat_new - a table of slots tasks (8..TASKLAT_MAX_SLOTS).  0 and *out
 * (freed by the caller with tasklat_free), -EINVAL, -ENOMEM.
 */
int tasklat_new(struct tasklat **out, uint32_t slots);
void tasklat_free(struct tasklat *tl);

/* tasklat_add - one wakeup latency of task pid (comm may be NULL; a
 * negative latency counts as 0).  0 filed, 1 dropped (full table), -EINVAL
 * for pid < 0 (counted in no_task). */
int tasklat_add(struct tasklat *tl, int32_t pid, const char *comm, int64_t lat_ns, uint64_t time_ns);

/* tasklat_observe - a latency_sample_fn: arg is the struct tasklat; the
 * wakeup kinds are added, the others ignored. */
void tasklat_observe(void *arg, const struct latency_sample *s);

/*
 * tasklat_rows - the tasks in the table, worst first (by max, ties by total;
 * or by total, ties by max; then by pid), at most max of them copied into
 * rows (the caller's).  Returns how many were copied.
 */
size_t tasklat_rows(const struct tasklat *tl, struct tasklat_row *rows, size_t max,
		    enum tasklat_sort by);

const struct tasklat_stats *tasklat_stats(const struct tasklat *tl);

/* tasklat_bucket / tasklat_bucket_hi - the histogram's bucket of v ns and
 * the largest value in bucket b (for the tests). */
uint32_t tasklat_bucket(uint64_t v_ns);
uint64_t tasklat_bucket_hi(uint32_t b);

#endif
