/* SPDX-License-Identifier: MIT */
/*
 * firedout.h - what the kernel fired against what it delivered (a
 * base/firedtab.h table) as every command on the perf path shows it: one
 * warning line on stderr, one line of the text report, the JSON "fired"
 * object (docs/json.md).
 *
 * Prefix: firedout_.  src/ only.
 */
#ifndef LATSCOPE_FIREDOUT_H
#define LATSCOPE_FIREDOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "base/firedtab.h"

struct pdread;

/* firedout_names - name t's events after r's evsels of the same config (a
 * table read from a recording has none). */
void firedout_names(struct firedtab *t, const struct pdread *r);

/* firedout_copy - *dst (freed first) becomes a copy of src.  0 or -ENOMEM. */
int firedout_copy(struct firedtab *dst, const struct firedtab *src);

/*
 * firedout_warning - when the kernel dropped samples without a record,
 * "the kernel fired N samples it never delivered, with no LOST record: CPU1
 * 870 of 2387 (sched:sched_wakeup 618 of 1398, ...), ..." into buf; when
 * it throttled events, that too.  Returns false (buf "") when there is
 * nothing to say.
 */
bool firedout_warning(const struct firedtab *t, char *buf, size_t len);

/* firedout_text - the report's line: "fired: N, delivered N, lost N,
 * undelivered N, throttled N" or "fired: not counted (why)". */
void firedout_text(const struct firedtab *t, FILE *f);

/* firedout_json - the "fired" object (a new reference; NULL out of memory). */
struct json_object *firedout_json(const struct firedtab *t);

#endif
