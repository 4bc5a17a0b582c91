/* SPDX-License-Identifier: MIT */
/*
 * osnjson - print one value of a JSON document, for shell tests.
 *
 *   osnjson FILE PATH
 * PATH is dot-separated: object keys, array indexes, and key[field=value] to
 * pick the first array element whose field equals value, e.g.
 *   cpus.0.noise_ns    cpus.0.top[name=noisegen].total_ns    cpus.length
 * Strings print without quotes, numbers as stored, null as "null".
 * Exit 0 found, 1 not found, 2 unreadable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static json_object *step(json_object *o, char *comp)
{
	char *sel = strchr(comp, '[');
	json_object *v = NULL;
	if (sel)
		*sel++ = 0;
	if (!strcmp(comp, "length") && json_object_is_type(o, json_type_array))
		return json_object_new_int((int)json_object_array_length(o));
	if (json_object_is_type(o, json_type_array)) {
		char *end;
		long i = strtol(comp, &end, 10);
		if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
			return NULL;
		v = json_object_array_get_idx(o, (size_t)i);
	} else if (!json_object_object_get_ex(o, comp, &v)) {
		return NULL;
	}
	if (!sel)
		return v;
	char *eq = strchr(sel, '='), *close = strchr(sel, ']');
	if (!eq || !close || !json_object_is_type(v, json_type_array))
		return NULL;
	*eq = 0;
	*close = 0;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i), *f;
		if (json_object_object_get_ex(e, sel, &f) && !strcmp(json_object_get_string(f), eq + 1))
			return e;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: osnjson FILE PATH\n");
		return 2;
	}
	json_object *root = json_object_from_file(argv[1]);
	if (!root) {
		fprintf(stderr, "osnjson: cannot parse %s\n", argv[1]);
		return 2;
	}
	char *path = strdup(argv[2]), *save = NULL;
	json_object *o = root;
	for (char *c = strtok_r(path, ".", &save); c && o; c = strtok_r(NULL, ".", &save)) {
		/* a selector value may contain dots: rejoin up to the closing bracket */
		if (strchr(c, '[') && !strchr(c, ']')) {
			char *rest = strtok_r(NULL, "]", &save);
			if (rest) {
				char buf[512];
				snprintf(buf, sizeof(buf), "%s.%s]", c, rest);
				o = step(o, buf);
				continue;
			}
		}
		o = step(o, c);
	}
	free(path);
	if (!o) {
		json_object_put(root);
		return 1;
	}
	printf("%s\n", json_object_is_type(o, json_type_null) ? "null" : json_object_get_string(o));
	json_object_put(root);
	return 0;
}
