/* SPDX-License-Identifier: MIT */
/*
 * tracedata.h - collect tracepoint format texts and build perf's
 * tracing-data blob for a list of events.
 *
 * Prefix: tracedata_.
 *
 *	struct tracedata_formats *f;
 *	const char *ev[] = { "sched:sched_switch", "irq:*" };
 *	int err = tracedata_collect(NULL, ev, 2, &f);		// live tracefs
 *	for (size_t i = 0; i < f->nr_events; i++)
 *		attr.config = f->events[i].id, ...;
 *	void *blob; size_t len;
 *	err = tracedata_tracing_data(f, false, &blob, &len);	// for pdwrite_set_tracing_data
 *	free(blob);
 *	tracedata_free(f);
 *
 * With events_dir == NULL the live tracefs is used through libtracefs (the
 * events/ directory, header_page, printk_formats and saved_cmdlines).  A
 * non-NULL events_dir is a directory laid out like tracefs' events/ (for
 * example tests/data/formats): <dir>/header_page and
 * <dir>/<system>/<event>/format; printk formats and cmdlines are left empty.
 */
#ifndef LATSCOPE_TRACEDATA_H
#define LATSCOPE_TRACEDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracedata_event {
	char *system;			/* "sched" */
	char *name;			/* "sched_switch" */
	uint64_t id;			/* the format's "ID:" = perf attr.config */
	char *format;			/* format text, NUL-terminated */
};

struct tracedata_formats {
	char *header_page;		/* events/header_page text ("" if unreadable) */
	char *printk_formats;		/* NULL when not available */
	char *saved_cmdlines;		/* NULL when not available */
	uint32_t page_size;
	struct tracedata_event *events;	/* in spec order, globs expanded sorted by name */
	size_t nr_events;
};

/*
 * tracedata_collect - expand specs "system:event" (fnmatch globs allowed in both
 * parts, e.g. "sched:*", "irq:softirq_*"; a bare "system" means "system:*")
 * and read every matching format.  An event matched twice is kept once.
 * Returns 0 and *out (freed by the caller with tracedata_free()), -ENOENT when a
 * spec matches no event, -EINVAL on a malformed spec, -ENODEV when no tracefs
 * is mounted, or another negative errno from reading.
 */
int tracedata_collect(const char *events_dir, const char *const *specs, size_t nr_specs,
		struct tracedata_formats **out);

/* tracedata_tracing_data - perf's tracing-data blob (version 0.6) for f, in the
 * given byte order; *blob is malloc'd, the caller frees it. */
int tracedata_tracing_data(const struct tracedata_formats *f, bool big_endian, void **blob, size_t *len);

struct pdwrite;
/* tracedata_set_tracing_data - f's tracing-data blob, in the given byte order,
 * set as pw's tracing data (pdwrite_set_tracing_data).  0 or a negative errno;
 * f stays the caller's, nothing else is left to free. */
int tracedata_set_tracing_data(struct pdwrite *pw, const struct tracedata_formats *f, bool big_endian);
/*
 * tracedata_describe - the formats of the events names[0..n-1] ("system:event", as
 * tracedata_collect() takes them, from events_dir or the live tracefs) set as the
 * tracing data of pw (pdwrite_set_tracing_data) in the given byte order: what a
 * recording of tracepoints needs beside its evsels.  0 or a negative errno
 * (tracedata_collect()'s, -ENOMEM); nothing is left to free.
 */
int tracedata_describe(struct pdwrite *pw, const char *events_dir, const char *const *names, size_t n,
		 bool big_endian);

/* tracedata_find - the collected event system:name, or NULL. */
const struct tracedata_event *tracedata_find(const struct tracedata_formats *f, const char *system,
				 const char *name);

/* tracedata_free - free f and everything it owns; NULL is fine. */
void tracedata_free(struct tracedata_formats *f);

#endif
