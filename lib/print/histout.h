/* SPDX-License-Identifier: MIT */
/*
 * histout.h - output of latency histograms: latency_hist files, max_latency
 * lines, JSON (json-c) and a compact terminal table.
 *
 * Prefix: histout_.
 *
 * The functions write only to the FILE* or buffer the caller passes in (use
 * open_memstream() for a growing buffer); they never print on their own.
 */
#ifndef LATSCOPE_HISTOUT_H
#define LATSCOPE_HISTOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/hset.h"
#include "base/lhist.h"

struct latency_stats;

struct json_object;

/*
 * histout_hist_file - a latency_hist `CPU<n>` file: the #Minimum/#Average/
 * #Maximum latency, #Total samples, below/above lines, the `#usecs samples`
 * header, then one row per bucket (all of them, zero rows included, unless
 * nonzero_only).  h may be NULL (no samples) and is then shown with geometry
 * cfg.  Buckets that are whole microseconds print as latency_hist does;
 * finer ones print their rows in ns (`#nsecs`) and min/avg/max with 3
 * decimals.  Returns 0 or -EIO.
 */
int histout_hist_file(FILE *f, const struct lhist *h, const struct lhist_cfg *cfg,
		    bool nonzero_only);

/*
 * histout_maxline - format a max_latency-CPU<n> line (newline included) into
 * buf[len]:
 *   <pid> <prio> <latency> (<timeroffset>) <comm> <- <pid> <prio> <comm> <sec>.<usec>
 * latencies in us, priorities in user RT numbering (99 - kernel prio), the
 * time in the recording clock.  An empty record gives "(none)".  Returns the
 * length, or -ENOSPC when buf is too small (buf then holds a truncated line).
 */
int histout_maxline(char *buf, size_t len, const struct hset_max *m);

/*
 * histout_json - the histograms of the set as a new json-c object the caller
 * frees with json_object_put(); NULL on allocation failure.  types[t] selects the
 * types; unsupported[t] marks types the input lacks events for (listed in
 * "unavailable").  Values in ns; with buckets, the non-zero buckets as
 * [lower_edge_ns, count] pairs.
 */
struct json_object *histout_json(const struct hset *set, const bool types[HSET_NR_KINDS],
			       const bool unsupported[HSET_NR_KINDS], bool buckets);

/* histout_json_engine_stats - the userspace engine's counters (engine/latency.h)
 * as a new json-c object (the caller's; NULL on allocation failure), for the
 * "stats" key of a run that had that engine. */
struct json_object *histout_json_engine_stats(const struct latency_stats *st);

/*
 * histout_term - compact table of type t: non-zero rows only (grouped so there
 * are at most max_rows, 0 = 40), one column per CPU that has samples plus a
 * total, then min/avg/max/percentile/total rows.  Returns 0 or -EIO.
 */
int histout_term(FILE *f, const struct hset *set, enum hset_kind t, unsigned max_rows);

#endif
