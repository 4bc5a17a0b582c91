/* SPDX-License-Identifier: MIT */
/*
 * report.h - the report document: the versioned JSON object a command
 * builds from its engines (docs/json.md, docs/schema/), which every form of
 * the report is drawn from (the text of --json, the --html page, the
 * --render forms: lib/print/render.h).  Here: the documents' schema names
 * and the getters a renderer reads a document with, which never fail: a
 * missing or mistyped key reads as 0, "" or NULL, so a renderer shows what
 * a document has and nothing it lacks.
 *
 * Prefix: report_.  Pure: no I/O.  The objects returned are borrowed from
 * the document (the caller's; nothing here takes or drops a reference).
 */
#ifndef LATSCOPE_REPORT_H
#define LATSCOPE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/* The schema names, "latscope.<document>/<version>": a version changes when
 * a key is renamed, removed or changes meaning (added keys too, as every
 * schema lists its keys). */
#define REPORT_SCRIPT "latscope.script/1"
#define REPORT_DTL_SCRIPT "latscope.dtl-script/1"
#define REPORT_DTL_REPORT "latscope.dtl-report/1"
#define REPORT_DTL_WHY "latscope.dtl-why/1"
#define REPORT_OSNOISE "latscope.osnoise/1"
#define REPORT_HIST "latscope.hist/1"
#define REPORT_TIMERLAT "latscope.timerlat/1"

/* The osnoise document's per-CPU counter keys of the noise classes, in the
 * kernel tracer's column order (HW NMI IRQ SIRQ THREAD); the time of each is
 * the key with "_ns". */
#define REPORT_NOISE_CLASSES 5
extern const char *const report_noise_class_keys[REPORT_NOISE_CLASSES];

/* The "schema" of doc, or NULL when doc is not an object with a string
 * "schema" key. */
const char *report_schema(struct json_object *doc);

struct json_object *report_get(struct json_object *o, const char *key);	/* NULL: none */
bool report_has(struct json_object *o, const char *key);	/* present and not null */
uint64_t report_u64(struct json_object *o, const char *key);	/* u64 numbers or decimal strings */
uint64_t report_u64v(struct json_object *v);
int64_t report_i64(struct json_object *o, const char *key);
double report_dbl(struct json_object *o, const char *key);	/* finite, else 0 */
const char *report_str(struct json_object *o, const char *key);	/* "" when not a string */
size_t report_len(struct json_object *arr);	/* 0 when not an array */
struct json_object *report_idx(struct json_object *arr, size_t i);	/* NULL: not an array, out of range */

/* A duration for people, as every form of the report writes it: "812 ns",
 * "12.3 us", "4.56 ms", "1.23 s" in buf (n bytes); buf returned. */
const char *report_dur(char *buf, size_t n, uint64_t ns);

#endif
