/* SPDX-License-Identifier: MIT */
/*
 * fuzz_render.c - libFuzzer target for the report's forms
 * (lib/print/render.h: the HTML page, the Markdown summary) drawn from a
 * JSON document, as `latscope render -i DOC.json` reads one from any file:
 * the input is parsed by json-c (as the command does) and every object that
 * parses is drawn in every form to /dev/null, whatever its keys, types,
 * values and sizes (a hostile document must give 0 or -EINVAL, never a
 * crash or an endless loop).
 */
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "print/render.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		return 0;
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return 0;
	struct json_object *doc = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (doc) {
		const struct render_ops *const *r;
		size_t n = render_all(&r);
		for (size_t i = 0; i < n; i++) {
			(void)render_write(r[i], devnull, doc);
			clearerr(devnull);
		}
		json_object_put(doc);
	}
	return 0;
}
