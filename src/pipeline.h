/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - format samples on a second thread while the main thread reads.
 * Prefix: pl_.  The main thread pushes samples (copied into batches) in
 * order; one formatting thread turns each batch into text and writes it to
 * the output in the same order.  File mode only (evsels and formats fixed).
 */
#ifndef LATSCOPE_PIPELINE_H
#define LATSCOPE_PIPELINE_H

#include <stdio.h>

#include "pdprint.h"

struct pl;

/* Start the formatting thread; NULL on failure.  pl_finish() frees it. */
struct pl *pl_new(struct pp *p, FILE *out);
/* Queue one sample (copied) with the task name current at this point. */
int pl_push(struct pl *pl, const struct pdr_event *ev, const char *comm);
/* Queue a line formatted by the caller (copied), in order with the samples. */
int pl_push_text(struct pl *pl, const char *text, size_t len);
/* pl_failed - the negative errno of the first failed write (0 if none), so
 * the reading side can stop early; callable from the reading thread. */
int pl_failed(const struct pl *pl);
/* Format and write everything queued, stop the thread, free.  Returns 0 or
 * a negative errno from writing. */
int pl_finish(struct pl *pl);

#endif
