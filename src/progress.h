/* SPDX-License-Identifier: MIT */
/*
 * progress.h - the one status line of a long live run (`hist record`,
 * `osnoise hist`) on stderr: elapsed of duration, events processed, events
 * lost, redrawn in place ("\r" + erase to the end of the line) at most once
 * a second, erased before the final report.
 *
 * Prefix: progress_.  src/ only (it prints, to the FILE it is given).
 *
 * On by default when the stream is a terminal (isatty), silent otherwise,
 * so pipes and files never get escape codes; --progress forces it on,
 * --no-progress off (CLI_PROGRESS below, one spelling for every command;
 * h is --progress's help line).
 *
 *	struct progress p;
 *	progress_init(&p, stderr, c->progress, start_ns, duration_ns);
 *	... in the loop's refresh: progress_update(&p, now_ns, events, lost);
 *	progress_clear(&p);              // before the report, and on every exit path
 */
#ifndef LATSCOPE_PROGRESS_H
#define LATSCOPE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

#define PROGRESS_AUTO (-1)	/* on when the stream is a terminal */
#define PROGRESS_PERIOD_NS 1000000000ULL

struct progress {
	FILE *f;		/* NULL: off */
	uint64_t start_ns, duration_ns;	/* duration 0: until stopped */
	uint64_t next_ns;	/* the next redraw at or after */
	const char *what;	/* what is counted: "events", "gaps" (static) */
	bool drawn;		/* a line is on the screen */
};

/* progress_init - mode PROGRESS_AUTO (on when f is a terminal), 0 off, 1
 * on; what names the counted things ("events"; a static string).  Nothing
 * is drawn yet.  Holds nothing to free. */
void progress_init(struct progress *p, FILE *f, int mode, uint64_t start_ns, uint64_t duration_ns,
		   const char *what);
/* progress_on - whether the line is drawn at all. */
bool progress_on(const struct progress *p);
/*
 * progress_format - the line's text (no "\r", no escape) into buf (len
 * bytes, NUL-terminated, truncated to fit): "12 s of 60 s, 34567 events, 0
 * lost" (what: "events"), or "12 s, ..." without a duration.  Pure; for the unit test.
 */
void progress_format(char *buf, size_t len, uint64_t elapsed_ns, uint64_t duration_ns,
		     uint64_t events, const char *what, uint64_t lost);
/* progress_update - redraw the line when a second passed since the last
 * one (the first at once); nothing when off. */
void progress_update(struct progress *p, uint64_t now_ns, uint64_t events, uint64_t lost);
/* progress_clear - erase the line if one is drawn (idempotent). */
void progress_clear(struct progress *p);

/* --progress / --no-progress into an int field (PROGRESS_AUTO by default) */
#define CLI_PROGRESS(T, f, h) \
	CLI_OPT("progress", 0, CLI_T_SETINT, T, f, CLI_NONE, 1, 0, 0, NULL, h, NULL), \
	CLI_OPT("no-progress", 0, CLI_T_SETINT, T, f, CLI_NONE, 0, 0, 0, NULL, \
		"never the status line", NULL)

#endif
