/* SPDX-License-Identifier: MIT */
/*
 * tpencode.h - struct tpevent -> raw tracepoint payload, the inverse of
 * tpdecode_decode() (lib/format/tpevent.h) over the same resolved formats: every offset,
 * size and signedness comes from the tep formats the struct tpdecode was built
 * from, and the payload is written in the tep's byte order
 * (tep_set_file_bigendian() before tpdecode_new()).  Used by the synthesizer
 * (lib/engine/dtlsynth/dtlsynth.c), the test tools and the unit tests.
 *
 * Prefix: tpencode_.
 */
#ifndef LATSCOPE_TPENCODE_H
#define LATSCOPE_TPENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "format/tpevent.h"

struct tep_format_field;

/*
 * tpencode_id - the event id e encodes to: the first event of d of kind
 * e->kind (for TPEVENT_VECTOR_ENTRY/EXIT, the irq_vectors event whose name stem
 * is e->vector.name, e.g. "local_timer").  Returns the id or -ENOENT.
 */
int tpencode_id(const struct tpdecode *d, const struct tpevent *e);

/*
 * tpencode - write the raw payload of e into buf[cap]: common_type (the id of
 * tpencode_id()), common_flags, common_preempt_count, common_pid (e->pid) and
 * every field the decoder reads that the format has; other bytes are 0.
 * Fixed char arrays are truncated to size - 1 and NUL padded; __data_loc and
 * __rel_loc strings go after the format's last field, NUL included.  time_ns,
 * cpu and tid are the sample's, not the payload's: the caller passes them to
 * the writer.  Returns the payload size, -ENOENT when d has no event for e,
 * -ENOSPC when cap is too small (buf may then be partly written).  Nothing
 * is allocated.
 */
ssize_t tpencode(const struct tpdecode *d, const struct tpevent *e, void *buf, size_t cap);

/*
 * tpencode_size - bytes of the fixed part of event_id's payload (the end of
 * its format's last field), or -ENOENT.
 */
ssize_t tpencode_size(const struct tpdecode *d, int event_id);

/*
 * tpencode_field - write one field given as text into a payload of *size
 * bytes in buf[cap] (for tools that build events field by field from a
 * script, whatever the event): a __data_loc string is appended at *size
 * (which grows), a char array is copied (truncated to size - 1), any other
 * field is an integer (decimal or 0x hex; 1, 2, 4 or 8 bytes) stored with
 * swap.  Returns 0, -ENOSPC when the field or the string does not fit, or
 * -EINVAL for a layout it cannot write.
 */
int tpencode_field(void *buf, size_t cap, size_t *size, const struct tep_format_field *f,
		  const char *value, bool swap);

#endif
