/* SPDX-License-Identifier: MIT */
/*
 * tpdecode_int.h - the decoder's resolved format description, shared by
 * tpdecode.c (which builds it from the tep formats and reads payloads with
 * it) and tpencode.c (which writes payloads with it), the two halves of the
 * typed events in lib/format/tpevent/.  Not for other modules.
 */
#ifndef LATSCOPE_TPDECODE_INT_H
#define LATSCOPE_TPDECODE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/tpevent.h"

#define TPDECODE_MAX_FIELDS 8

/* One field of a format, resolved once (offset and size from the format). */
struct tpdecode_field {
	bool present;
	bool is_signed;
	bool dynamic;		/* __data_loc (offset|len<<16) */
	bool relative;		/* __rel_loc: offset from the end of the field */
	uint32_t offset, size;
};

/*
 * One event the toolkit knows: slot i of f is field i of the kind's spec
 * (see tpdecode_specs in tpdecode.c and the switch of tpdecode_decode()).
 */
struct tpdecode_ev {
	int id;
	enum tpevent_kind kind;
	uint32_t min_size;		/* bytes every present fixed field needs */
	uint32_t rec_size;		/* end of the format's last field (common ones too) */
	struct tpdecode_field common_type, common_flags, common_pc, common_pid;
	struct tpdecode_field f[TPDECODE_MAX_FIELDS];
	char vec_name[TPEVENT_NAME_LEN];
};

struct tpdecode {
	struct tpdecode_ev *ev;		/* sorted by id */
	size_t nr, cap;
	bool swap;			/* the tep's byte order is not the host's */
};

/* The descriptor of event id, or NULL. */
const struct tpdecode_ev *tpdecode_find_ev(const struct tpdecode *d, int id);

#endif
