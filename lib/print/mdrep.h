/* SPDX-License-Identifier: MIT */
/*
 * mdrep.h - a report document (lib/report/report.h) as a short Markdown
 * summary for a CI log, a ticket or a pull request: the headline table of
 * each document (hist: per kind and CPU the samples, percentiles and the
 * worst case's victim and culprit; osnoise: per CPU the noise, the
 * availability and the top contributor; dtl report: per vCPU the
 * dispatches and the hypervisor's share, the worst dispatch delays) and
 * every loss the document names.  GitHub-flavoured tables, no HTML.
 *
 * Prefix: mdrep_.  Writes only to the caller's FILE; never prints.
 */
#ifndef LATSCOPE_MDREP_H
#define LATSCOPE_MDREP_H

#include <stdbool.h>
#include <stdio.h>

struct json_object;

/* True when schema has a summary (dtl-report, hist, osnoise). */
bool mdrep_supported(const char *schema);

/* mdrep_write - the summary of doc on f: 0, -EINVAL (not a document with a
 * summary), -EIO (f's error flag).  doc stays the caller's. */
int mdrep_write(FILE *f, struct json_object *doc);

#endif
