/* SPDX-License-Identifier: MIT */
/*
 * fuzz_htmlrep.c - libFuzzer target for the HTML pages (lib/print/htmlrep)
 * drawn from a JSON document, as `latscope html -i DOC.json` reads one from
 * any file: the input is parsed by json-c (as the command does) and every
 * object that parses is drawn to /dev/null, whatever its keys, types,
 * values and sizes (a hostile document must give 0 or -EINVAL, never a
 * crash or an endless loop).
 */
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "print/htmlrep.h"

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
		(void)htmlrep_write(devnull, doc);
		clearerr(devnull);
		json_object_put(doc);
	}
	return 0;
}
