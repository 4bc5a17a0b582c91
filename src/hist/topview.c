/* SPDX-License-Identifier: MIT */
/*
 * topview.c - `hist top`'s screen without --full: one line per measured
 * CPU (count, min, p50, p99, max of the main kinds, as cyclictest and rtla
 * timerlat top show them) and an "all" line, cut to the terminal's rows and
 * columns instead of scrolling; the kinds that do not fit are named.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/lhist.h"
#include "engine/tasklat.h"
#include "hist.h"

/* the kinds in the order they get a column block */
static const enum hset_kind order[] = {
	HSET_WAKEUP, HSET_TIMERANDWAKEUP, HSET_MISSED_TIMER, HSET_WAKEUP_SHAREDPRIO,
	HSET_IRQSOFF, HSET_PREEMPTOFF, HSET_PREEMPTIRQSOFF,
};
#define NKINDS (sizeof(order) / sizeof(order[0]))
#define CPU_W 4
#define BLOCK_W 37	/* " %7s %6s %6s %6s %7s" */

/* one line, cut to cols (0: as it is), without trailing blanks */
static void put(FILE *f, unsigned cols, const char *line)
{
	size_t n = strlen(line);
	if (cols && n > cols)
		n = cols;
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	fputc('\n', f);
}

static void cell(char *b, size_t len, const struct lhist *h)
{
	int64_t p50 = 0, p99 = 0;

	if (!h || !h->total) {
		snprintf(b, len, " %7d %6s %6s %6s %7s", 0, "-", "-", "-", "-");
		return;
	}
	lhist_percentile_ns(h, 50, &p50);
	lhist_percentile_ns(h, 99, &p99);
	/* us, truncated as the histograms print them */
	snprintf(b, len, " %7" PRIu64 " %6" PRId64 " %6" PRId64 " %6" PRId64 " %7" PRId64, h->total,
		 h->min_ns / 1000, p50 / 1000, p99 / 1000, h->max_ns / 1000);
}

/* the "all" line's cells: each kind's histograms of the measured CPUs merged */
static void all_line(const struct hctx *c, const enum hset_kind *k, size_t fit, char *line, size_t len)
{
	const struct hset *set = c->run.set;
	uint32_t ncpu = set ? hset_nr_cpus(set) : 0;
	char b[128];
	size_t u = (size_t)snprintf(line, len, "%*s", CPU_W, "all");

	for (size_t i = 0; i < fit; i++) {
		struct lhist all;
		bool ok = set && lhist_init(&all, hset_geometry(set)) == 0;
		for (uint32_t cpu = 0; ok && cpu < ncpu; cpu++) {
			const struct lhist *h = hset_hist(set, k[i], cpu);
			if (h && parse_cpuset_has(&c->lo.cpus, cpu))
				lhist_merge(&all, h);
		}
		cell(b, sizeof(b), ok ? &all : NULL);
		if (ok)
			lhist_fini(&all);
		u += (size_t)snprintf(line + u, len - u, "%s", b);
	}
}

/* --per-task: the worst tasks in the rows left after used (a heading and
 * one at least; rows 0: no limit) */
static void task_lines(const struct hctx *c, FILE *f, unsigned rows, unsigned cols, unsigned used)
{
	char line[256];

	if (!c->run.tasks || (rows && rows < used + 3))
		return;
	size_t want = c->o.per_task_rows ? (size_t)c->o.per_task_rows : tasklat_stats(c->run.tasks)->used;
	if (rows && want > rows - used - 2)
		want = rows - used - 2;
	struct tasklat_row tr[64];
	if (want > sizeof(tr) / sizeof(tr[0]))
		want = sizeof(tr) / sizeof(tr[0]);
	size_t n = tasklat_rows(c->run.tasks, tr, want, TASKLAT_BY_MAX);
	put(f, cols, "");
	snprintf(line, sizeof(line), "%-16s %8s %8s %7s %7s %8s  (tasks, wakeup us, worst max first)",
		 "comm", "pid", "count", "p50", "p99", "max");
	put(f, cols, line);
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%-16s %8" PRId32 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64
			 " %8" PRIu64, tr[i].comm[0] ? tr[i].comm : "?", tr[i].pid, tr[i].count,
			 tr[i].p50_ns / 1000, tr[i].p99_ns / 1000, tr[i].max_ns / 1000);
		put(f, cols, line);
	}
}

/* the heading lines: the kinds left out, then the kinds' names over their
 * blocks and the column names; returns the lines written */
static unsigned heading(FILE *f, unsigned cols, const enum hset_kind *k, size_t nk, size_t fit)
{
	char line[256 + NKINDS * 128];
	unsigned used = 0;

	if (nk > fit) {
		size_t u = (size_t)snprintf(line, sizeof(line), "not shown (--full, or a wider terminal):");
		for (size_t i = fit; i < nk && u < sizeof(line); i++)
			u += (size_t)snprintf(line + u, sizeof(line) - u, "%s %s", i == fit ? "" : ",",
					      hset_kind_name(k[i]));
		put(f, cols, line);
		used++;
	}
	size_t u = (size_t)snprintf(line, sizeof(line), "%*s", CPU_W, "");
	for (size_t i = 0; i < fit; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s (us)", hset_kind_name(k[i]));
		u += (size_t)snprintf(line + u, sizeof(line) - u, " %-*s", BLOCK_W - 1, name);
	}
	put(f, cols, line);
	u = (size_t)snprintf(line, sizeof(line), "%*s", CPU_W, "CPU");
	for (size_t i = 0; i < fit; i++)
		u += (size_t)snprintf(line + u, sizeof(line) - u, " %7s %6s %6s %6s %7s", "count", "min",
				      "p50", "p99", "max");
	put(f, cols, line);
	return used + 2;
}

void hist_top_compact(struct hctx *c, FILE *f, const bool unsup[HSET_NR_KINDS], const char *head,
		      unsigned rows, unsigned cols)
{
	enum hset_kind k[NKINDS];
	size_t nk = 0, fit;
	char line[256 + NKINDS * 128], b[128];
	unsigned used = 0;

	for (size_t i = 0; i < NKINDS; i++)
		if (c->o.types[order[i]] && !unsup[order[i]])
			k[nk++] = order[i];
	fit = nk;
	if (cols)
		fit = cols > CPU_W ? (cols - CPU_W) / BLOCK_W : 0;
	if (fit > nk)
		fit = nk;
	if (!fit && nk)
		fit = 1;	/* cut, but something */

	put(f, cols, head);
	used = 1 + heading(f, cols, k, nk, fit);
	/* the "all" line last: its merged histograms */
	const struct hset *set = c->run.set;
	uint32_t ncpu = set ? hset_nr_cpus(set) : 0, listed = 0, total_cpus = 0;
	for (uint32_t cpu = 0; cpu < ncpu; cpu++)
		if (parse_cpuset_has(&c->lo.cpus, cpu))
			total_cpus++;
	/* rows: the lines left, one for "all", one for "... more" when cut */
	unsigned room = rows ? (rows > used + 1 ? rows - used - 1 : 0) : UINT32_MAX;
	bool cut = total_cpus > room, more_line = cut && room;
	if (more_line)
		room--;	/* for "... N more CPUs" (no room at all: only "all") */
	for (uint32_t cpu = 0; cpu < ncpu && listed < room; cpu++) {
		if (!parse_cpuset_has(&c->lo.cpus, cpu))
			continue;
		size_t u = (size_t)snprintf(line, sizeof(line), "%*" PRIu32, CPU_W, cpu);
		for (size_t i = 0; i < fit; i++) {
			cell(b, sizeof(b), hset_hist(set, k[i], cpu));
			u += (size_t)snprintf(line + u, sizeof(line) - u, "%s", b);
		}
		put(f, cols, line);
		listed++;
	}
	if (more_line) {
		snprintf(line, sizeof(line), "... %" PRIu32 " more CPUs (a taller terminal, or -c)",
			 total_cpus - listed);
		put(f, cols, line);
	}
	all_line(c, k, fit, line, sizeof(line));
	put(f, cols, line);
	used += listed + more_line + 1;
	task_lines(c, f, rows, cols, used);
}
