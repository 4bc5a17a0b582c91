/* SPDX-License-Identifier: MIT */
/*
 * htmlrep.h - a report as one self-contained HTML page: inline CSS and SVG
 * pictures, no script, no network.  The page is drawn from the JSON
 * document the command built for --json (docs/json.md), picked by its
 * "schema" key, so the pictures and the JSON never disagree:
 *   latscope.dtl-report/1  a timeline per vCPU (the task that ran, the time
 *                          the hypervisor had the vCPU: preempted, ceded,
 *                          waiting for its dispatch; the worst dispatch
 *                          delay of each column and the worst delays
 *                          marked), the DTL time histograms, the srr0 and
 *                          per-task tables;
 *   latscope.hist/1        per kind and CPU a log-scale histogram with
 *                          p50/p99/p99.9/max marked, the worst case's
 *                          victim and culprit;
 *   latscope.osnoise/1     the noise per CPU split by class as stacked bars,
 *                          the gap histograms, the top contributors.
 * The timeline is drawn at the resolution of the document (its fixed
 * number of bins), at most HTMLREP_MAX_LANES vCPUs of it, so the page's
 * size does not grow with the recording.
 *
 * Prefix: htmlrep_.  Writes only to the caller's FILE; never prints.
 */
#ifndef LATSCOPE_HTMLREP_H
#define LATSCOPE_HTMLREP_H

#include <stdbool.h>
#include <stdio.h>

struct json_object;

#define HTMLREP_MAX_LANES 64

/* True when schema (a document's "schema" value) has a page. */
bool htmlrep_supported(const char *schema);

/*
 * htmlrep_write - the page of doc on f.  0; -EINVAL when doc is not an
 * object with a supported "schema"; -EIO when a write to f failed (f's
 * error flag).  doc stays the caller's; f is not closed.
 */
int htmlrep_write(FILE *f, struct json_object *doc);

/* A one-line reason for htmlrep_write's return value. */
const char *htmlrep_strerror(int rc);

#endif
