/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - format samples on a second thread while the main thread reads.
 * Prefix: pipeline_.  The main thread pushes samples (copied into batches) in
 * order; one formatting thread turns each batch into text and writes it to
 * the output in the same order.  File mode only (evsels and formats fixed).
 */
#ifndef LATSCOPE_PIPELINE_H
#define LATSCOPE_PIPELINE_H

#include <stdio.h>

#include "print/pdprint.h"

struct pipeline;

/* Start the formatting thread; NULL on failure.  pipeline_finish() frees it. */
struct pipeline *pipeline_new(struct pdprint *p, FILE *out);
/* Queue one sample (copied) with the task name current at this point. */
int pipeline_push(struct pipeline *pl, const struct pdread_event *ev, const char *comm);
/* Queue a line formatted by the caller (copied), in order with the samples. */
int pipeline_push_text(struct pipeline *pl, const char *text, size_t len);
/* pipeline_failed - the negative errno of the first failed write (0 if none), so
 * the reading side can stop early; callable from the reading thread. */
int pipeline_failed(const struct pipeline *pl);
/* Format and write everything queued, stop the thread, free.  Returns 0 or
 * a negative errno from writing. */
int pipeline_finish(struct pipeline *pl);

#endif
