/* SPDX-License-Identifier: MIT */
/* report.c - the report document's schema names and getters (see report.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "report/report.h"

const char *const report_noise_class_keys[REPORT_NOISE_CLASSES] = { "hw", "nmi", "irq", "softirq", "thread" };

const char *report_schema(struct json_object *doc)
{
	struct json_object *s = report_get(doc, "schema");
	return s && json_object_is_type(s, json_type_string) ? json_object_get_string(s) : NULL;
}

struct json_object *report_get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

bool report_has(struct json_object *o, const char *key)
{
	struct json_object *v = report_get(o, key);
	return v && !json_object_is_type(v, json_type_null);
}

uint64_t report_u64v(struct json_object *v)
{
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;
		errno = 0;
		unsigned long long x = strtoull(s, &end, 10);
		return errno || end == s || *s == '-' ? 0 : (uint64_t)x;
	}
	if (json_object_is_type(v, json_type_int)) {
		int64_t x = json_object_get_int64(v);
		if (x >= 0)
			return (uint64_t)x;
		return json_object_get_uint64(v) > (uint64_t)INT64_MAX ? json_object_get_uint64(v) : 0;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		return d > 0 && d < 1.8e19 ? (uint64_t)d : 0;
	}
	return 0;
}

uint64_t report_u64(struct json_object *o, const char *key)
{
	return report_u64v(report_get(o, key));
}

int64_t report_i64(struct json_object *o, const char *key)
{
	struct json_object *v = report_get(o, key);
	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

double report_dbl(struct json_object *o, const char *key)
{
	struct json_object *v = report_get(o, key);
	if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return 0;
	double d = json_object_get_double(v);
	return isfinite(d) ? d : 0;
}

const char *report_str(struct json_object *o, const char *key)
{
	struct json_object *v = report_get(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

size_t report_len(struct json_object *arr)
{
	return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

struct json_object *report_idx(struct json_object *arr, size_t i)
{
	return i < report_len(arr) ? json_object_array_get_idx(arr, i) : NULL;
}

const char *report_dur(char *buf, size_t n, uint64_t ns)
{
	/* each unit up to what rounds to 1000 of it in 3 digits (999.5): 999 950 ns
	 * is "1 ms", not "1e+03 us" */
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	else if (ns < 999500)
		snprintf(buf, n, "%.3g us", ns / 1e3);
	else if (ns < 999500000)
		snprintf(buf, n, "%.3g ms", ns / 1e6);
	else if (ns < 1000000000000ULL)
		snprintf(buf, n, "%.4g s", ns / 1e9);
	else
		snprintf(buf, n, "%.0f s", ns / 1e9);
	return buf;
}

