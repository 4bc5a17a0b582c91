/* SPDX-License-Identifier: MIT */
/*
 * htmlrep_int.h - private to lib/print/htmlrep/: the page frame,
 * formatting and the log-scale histogram shared by the pages
 * (htmlrep.c), and the pages (htmlrep_dtl.c, htmlrep_hist.c,
 * htmlrep_timerlat.c, htmlrep_why.c).
 */
#ifndef LATSCOPE_HTMLREP_INT_H
#define LATSCOPE_HTMLREP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "print/htmlrep.h"
#include "report/report.h"

/* s with &, <, >, " escaped. */
void htmlrep_esc(FILE *f, const char *s);
/* A colour for a name (a task): a stable pastel hue, "#rrggbb" in buf[8]. */
const char *htmlrep_colour(char *buf, const char *name);

/* A table cell with o's duration key for people ("12.3 us"), empty when absent. */
void htmlrep_td_dur(FILE *f, struct json_object *o, const char *key);

/* The page around the sections: <head> with the style sheet, the title. */
void htmlrep_page_start(FILE *f, const char *title, const char *subtitle);
void htmlrep_page_end(FILE *f);

struct htmlrep_bucket {
	uint64_t lo_ns, hi_ns, count;
};
struct htmlrep_mark {
	const char *label;	/* "p50", "max"... */
	uint64_t ns;
};
/*
 * htmlrep_loghist - a histogram as an SVG: log-scale time on x (ns, decade
 * ticks), log-scale counts on y, the marks as labelled vertical lines.
 * Buckets in ascending order; several in one pixel column are summed.
 */
void htmlrep_loghist(FILE *f, const char *title, const struct htmlrep_bucket *b, size_t n,
		     const struct htmlrep_mark *m, size_t nm);
/* The marks present in o among p50_ns, p90_ns, p99_ns, p99_9_ns, p99_99_ns, max_ns. */
size_t htmlrep_marks(struct json_object *o, struct htmlrep_mark *m, size_t cap);

/* A histogram of [lo_ns, count] pairs (a document's "buckets", ascending,
 * bucket_ns wide) drawn by htmlrep_loghist() with the marks of stats.  0 or
 * -ENOMEM. */
int htmlrep_pairs_hist(FILE *f, const char *title, struct json_object *pairs, uint64_t bucket_ns,
		       struct json_object *stats);

int htmlrep_dtl(FILE *f, struct json_object *doc);
int htmlrep_hist(FILE *f, struct json_object *doc);
int htmlrep_osnoise(FILE *f, struct json_object *doc);
int htmlrep_timerlat(FILE *f, struct json_object *doc);
int htmlrep_why(FILE *f, struct json_object *doc);

#endif
