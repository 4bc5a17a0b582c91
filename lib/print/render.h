/* SPDX-License-Identifier: MIT */
/*
 * render.h - the forms a report document (lib/report/report.h) is drawn
 * in, one renderer each: the HTML page (htmlrep.h) and the Markdown
 * summary (mdrep.h).  Every command with a JSON document takes --html FILE
 * and --render FORMAT=FILE, and `latscope render -f FORMAT` draws a saved
 * document: a new form is one renderer file and one line of the table in
 * render.c, with no engine and no command touched.
 *
 * Prefix: render_.  Writes only to the caller's FILE; never prints.
 */
#ifndef LATSCOPE_RENDER_H
#define LATSCOPE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_object;

struct render_ops {
	const char *name;		/* the FORMAT of --render FORMAT=FILE: "html", "md" */
	const char *what;		/* one line for --help */
	/* true when schema (a document's "schema") has this form */
	bool (*supported)(const char *schema);
	/* doc drawn on f: 0, -EINVAL (doc has no such form), -EIO (f's error
	 * flag), -ENOMEM; doc stays the caller's, f is not closed */
	int (*write)(FILE *f, struct json_object *doc);
};

/* The renderer called name, or NULL. */
const struct render_ops *render_find(const char *name);
/* The renderers: *out points at the table (static); their number returned. */
size_t render_all(const struct render_ops *const **out);
/* Their names, comma separated, in buf (always terminated); buf returned. */
const char *render_names(char *buf, size_t len);

/*
 * render_write - doc drawn by r on f, after checking that doc is an object
 * whose schema r supports.  Returns as r->write does.
 */
int render_write(const struct render_ops *r, FILE *f, struct json_object *doc);

/* A one-line reason for render_write's return value (r: which form). */
const char *render_strerror(const struct render_ops *r, int rc, char *buf, size_t len);

#endif
