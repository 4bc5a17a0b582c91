/* SPDX-License-Identifier: MIT */
/* osnbpf_names.c - the pure part of the osnoise bpf backend (osnbpf.h):
 * the vectors' names, built with or without the backend. */
#include <stddef.h>

#include "live/osnbpf.h"

#define OSNBPF_VNAME(nm, idx) [idx] = #nm,
static const char *const vector_names[OSNBPF_NR_VECTORS] = { OSNBPF_VECTORS(OSNBPF_VNAME) };
#undef OSNBPF_VNAME

const char *osnbpf_vector_name(uint32_t idx)
{
	return idx < OSNBPF_NR_VECTORS ? vector_names[idx] : NULL;
}
