/* SPDX-License-Identifier: MIT */
/*
 * jsonout.h - the JSON documents of every command: the "schema" key each
 * carries, and where they go (--json: standard output instead of the text;
 * --json=FILE: FILE, beside the text).  docs/json.md defines the documents.
 *
 * Prefix: jsonout_.  src/ only (it prints: one line on stderr per failure).
 *
 *	struct json_object *j = jsonout_new("latscope.osnoise/1");
 *	... add the keys ...
 *	rc = jsonout_write(j, JSON_C_TO_STRING_PRETTY, c->json_file, c->force, prog);
 *	json_object_put(j);
 */
#ifndef LATSCOPE_JSONOUT_H
#define LATSCOPE_JSONOUT_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

/* The schema names, "latscope.<document>/<version>": a version changes when
 * a key is renamed, removed or changes meaning (added keys too, as every
 * schema lists its keys). */
#define JSONOUT_SCRIPT "latscope.script/1"
#define JSONOUT_DTL_SCRIPT "latscope.dtl-script/1"
#define JSONOUT_DTL_REPORT "latscope.dtl-report/1"
#define JSONOUT_OSNOISE "latscope.osnoise/1"
#define JSONOUT_HIST "latscope.hist/1"

/* jsonout_new - a new object whose first key is "schema": schema.  The
 * caller owns it (json_object_put); NULL when out of memory. */
struct json_object *jsonout_new(const char *schema);

/*
 * jsonout_adopt - a new object: "schema" first, then j's keys in j's order
 * (for a document a library built).  Takes j's reference (put here) and
 * returns the caller's new reference, NULL when out of memory.
 */
struct json_object *jsonout_adopt(const char *schema, struct json_object *j);

/*
 * jsonout_write - j as text (json-c flags, e.g. JSON_C_TO_STRING_PRETTY)
 * and a newline: on standard output when file is NULL (a write error is
 * noted for cmdio_finish()), else in file through cmdio_fopen_safe (force =
 * the command's --force).  0, or 2 (EXIT_ERR) after a line on stderr.
 * j stays the caller's.
 */
int jsonout_write(struct json_object *j, int flags, const char *file, bool force, const char *prog);

/*
 * jsonout_html - the page lib/print/htmlrep draws from j (any document of
 * the table above with a page: htmlrep_supported) in file, through
 * cmdio_fopen_safe (force = --force).  0, or 2 (EXIT_ERR) after a line on
 * stderr.  j stays the caller's.
 */
int jsonout_html(struct json_object *j, const char *file, bool force, const char *prog);

/* jsonout_line - j on f as one line (a stream of objects); 0 or -EIO. */
int jsonout_line(struct json_object *j, FILE *f);

#endif
