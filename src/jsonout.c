/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>

#include "cmdio.h"
#include "commands.h"
#include "jsonout.h"
#include "print/htmlrep.h"

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

int jsonout_html(struct json_object *j, const char *file, bool force, const char *prog)
{
	struct safeout_file *sf = NULL;
	FILE *f = cmdio_fopen_safe(&sf, AT_FDCWD, file, NULL, force, prog);
	if (!f)
		return EXIT_ERR;
	int rc = htmlrep_write(f, j);
	if (rc == -EINVAL) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, htmlrep_strerror(rc));
		cmdio_fclose_safe(f, sf, file, true, prog);
		return EXIT_ERR;
	}
	return cmdio_fclose_safe(f, sf, file, false, prog);
}
