/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>

#include "cmdio.h"
#include "commands.h"
#include "jsonout.h"
#include "cli.h"
#include "print/render.h"

struct json_object *jsonout_new(const char *schema)
{
	struct json_object *o = json_object_new_object();
	if (o && json_object_object_add(o, "schema", json_object_new_string(schema)) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jsonout_adopt(const char *schema, struct json_object *j)
{
	struct json_object *o = j ? jsonout_new(schema) : NULL;
	if (o) {
		json_object_object_foreach(j, k, v) {
			if (json_object_object_add(o, k, json_object_get(v)) < 0) {
				json_object_put(o);
				o = NULL;
				break;
			}
		}
	}
	json_object_put(j);
	return o;
}

static const char *text_of(struct json_object *j, int flags)
{
	return json_object_to_json_string_ext(j, flags | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int jsonout_line(struct json_object *j, FILE *f)
{
	return fprintf(f, "%s\n", text_of(j, JSON_C_TO_STRING_PLAIN)) < 0 ? -EIO : 0;
}

int jsonout_write(struct json_object *j, int flags, const char *file, bool force, const char *prog)
{
	if (!file) {
		if (fprintf(stdout, "%s\n", text_of(j, flags)) < 0)
			cmdio_note_error();
		return 0;
	}
	struct safeout_file *sf = NULL;
	FILE *f = cmdio_fopen_safe(&sf, AT_FDCWD, file, NULL, force, prog);
	if (!f)
		return EXIT_ERR;
	fprintf(f, "%s\n", text_of(j, flags));
	return cmdio_fclose_safe(f, sf, file, false, prog);
}

int jsonout_render_one(struct json_object *j, const char *format, const char *file, bool force,
		       const char *prog)
{
	const struct render_ops *r = render_find(format);
	char why[160];
	if (!r || !r->supported(report_schema(j))) {
		/* refused before the file is made: nothing half-written left */
		fprintf(stderr, "%s: %s: %s\n", prog, file, render_strerror(r, -EINVAL, why, sizeof(why)));
		return EXIT_ERR;
	}
	struct safeout_file *sf = NULL;
	FILE *f = cmdio_fopen_safe(&sf, AT_FDCWD, file, NULL, force, prog);
	if (!f)
		return EXIT_ERR;
	int rc = render_write(r, f, j);
	if (rc < 0 && rc != -EIO) {	/* a write error: cmdio_fclose_safe says it */
		fprintf(stderr, "%s: %s: %s\n", prog, file, render_strerror(r, rc, why, sizeof(why)));
		cmdio_fclose_safe(f, sf, file, true, prog);
		return EXIT_ERR;
	}
	return cmdio_fclose_safe(f, sf, file, false, prog);
}

int jsonout_render(struct json_object *j, const struct cli_renders *r, bool force, const char *prog)
{
	int rc = 0;
	for (unsigned i = 0; r && i < r->nr; i++)
		if (jsonout_render_one(j, r->format[i], r->file[i], force, prog))
			rc = EXIT_ERR;
	return rc;
}
