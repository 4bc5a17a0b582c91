/* SPDX-License-Identifier: MIT */
/* jsonnum.c - JSON values that readers do not round (see jsonnum.h). */
#include <inttypes.h>
#include <stdio.h>

#include "base/jsonnum.h"

struct json_object *jsonnum_u64(uint64_t v)
{
	char b[24];

	if (v <= JSONNUM_EXACT_MAX)
		return json_object_new_int64((int64_t)v);
	snprintf(b, sizeof(b), "%" PRIu64, v);
	return json_object_new_string(b);
}

struct json_object *jsonnum_i64(int64_t v)
{
	char b[24];

	if (v <= (int64_t)JSONNUM_EXACT_MAX && v >= -(int64_t)JSONNUM_EXACT_MAX)
		return json_object_new_int64(v);
	snprintf(b, sizeof(b), "%" PRId64, v);
	return json_object_new_string(b);
}

struct json_object *jsonnum_addr(uint64_t a)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, a);
	return json_object_new_string(b);
}
