/* SPDX-License-Identifier: MIT */
/*
 * jsonout.h - the JSON documents of every command (the report model,
 * lib/report/report.h): the "schema" key each carries, and where they go
 * (--json: standard output instead of the text; --json=FILE: FILE, beside
 * the text; --html and --render: the forms lib/print/render.h draws).  docs/json.md defines the documents.
 *
 * Prefix: jsonout_.  src/ only (it prints: one line on stderr per failure).
 *
 *	struct json_object *j = jsonout_new(REPORT_OSNOISE);
 *	... add the keys ...
 *	rc = jsonout_write(j, JSON_C_TO_STRING_PRETTY, c->json_file, c->force, prog);
 *	json_object_put(j);
 */
#ifndef LATSCOPE_JSONOUT_H
#define LATSCOPE_JSONOUT_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "report/report.h"	/* the schema names: REPORT_HIST... */

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
 * jsonout_render - j drawn in each form r asks for (--html, --render:
 * lib/print/render.h), each in its file through cmdio_fopen_safe (force =
 * --force).  0, or 2 (EXIT_ERR) after a line on stderr for each form that
 * failed.  j stays the caller's.
 */
struct cli_renders;
int jsonout_render(struct json_object *j, const struct cli_renders *r, bool force, const char *prog);

/* jsonout_render_one - j drawn by the renderer called format in file: as
 * jsonout_render (format must name a renderer). */
int jsonout_render_one(struct json_object *j, const char *format, const char *file, bool force,
		       const char *prog);

/* jsonout_line - j on f as one line (a stream of objects); 0 or -EIO. */
int jsonout_line(struct json_object *j, FILE *f);

#endif
