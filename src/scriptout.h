/* SPDX-License-Identifier: MIT */
/*
 * scriptout.h - the text output of `latscope script` and `latscope dtl
 * script`: lines formatted straight into one large buffer and written to
 * stdout in 256 KiB chunks.  Prefix: scriptout_.
 *
 * Sample lines go through pdprint_format() (the compiled print formats) and
 * pdprint_emit() (deferred symbols resolved by one pass over kallsyms);
 * other lines (DTL entries) are written by the caller into the same buffer
 * (scriptout_reserve()/scriptout_commit()), so every line keeps its place.
 * Write errors go to cmdio_note_error(); the caller checks stdout with
 * ferror()/cmdio_finish().  Not for JSON or other stdio writers: the buffer
 * must be flushed (scriptout_flush()) before anything else writes to stdout.
 */
#ifndef LATSCOPE_SCRIPTOUT_H
#define LATSCOPE_SCRIPTOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "print/pdprint.h"

struct scriptout {
	struct pdprint *p;	/* not owned */
	char *ob;		/* SCRIPTOUT_HOLD bytes */
	size_t ol;		/* bytes of ob in use */
	char *big;		/* one line longer than a chunk */
	size_t bigcap;
};

enum { SCRIPTOUT_CHUNK = 256 << 10, SCRIPTOUT_HOLD = 4 << 20 };

/* Whether to read input with read(2) rather than a mapping (pdread_opts.
 * no_map): for regular files over 8 MB.  "-" is stdin. */
bool scriptout_no_map(const char *input);

/* Set up so for printer p (which must outlive it): the buffer, stdout's own
 * buffer, and a 1 MiB pipe buffer when stdout is a pipe.  0 or -ENOMEM.
 * The caller frees with scriptout_free() (after a last scriptout_flush()). */
int scriptout_init(struct scriptout *so, struct pdprint *p);

/* The sample's line (pdprint_format()) into the output.  False when the
 * printer refused the sample (pdprint_refusal(): a sampling line or callchain
 * it would not print as perf does): nothing of it is written, and the caller
 * stops with the refusal. */
bool scriptout_sample(struct scriptout *so, const struct pdread_event *ev);

/* Write everything buffered (symbols resolved) to stdout. */
void scriptout_flush(struct scriptout *so);

/* Room for n more bytes (n <= SCRIPTOUT_CHUNK), flushing first when the
 * chunk is full: where to write them; then scriptout_commit(so, used). */
static inline char *scriptout_reserve(struct scriptout *so, size_t n)
{
	size_t lim = pdprint_symbols_pending(so->p) ? SCRIPTOUT_HOLD : SCRIPTOUT_CHUNK;
	if (so->ol + n > lim)
		scriptout_flush(so);
	return so->ob + so->ol;
}

static inline void scriptout_commit(struct scriptout *so, size_t used)
{
	so->ol += used;
}

/* Free the buffers (nothing is written). */
void scriptout_free(struct scriptout *so);

#endif
