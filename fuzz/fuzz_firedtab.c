/* SPDX-License-Identifier: MIT */
/*
 * fuzz_firedtab.c - libFuzzer target for the LATSCOPE_FIRED section
 * (lib/base/firedtab.h) as pdread hands a recording's feature to it: any
 * bytes decode to a table or a refusal with an offset inside the section;
 * a decoded table encodes back to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/firedtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct firedtab t = { 0 };
	size_t off;
	const char *why;

	if (size > (1u << 22))
		return 0;
	if (firedtab_decode(data, size, &t, &off, &why) < 0) {
		if (off > size || !why || !why[0])
			abort();
		return 0;
	}
	(void)firedtab_fired(&t);
	(void)firedtab_undelivered(&t);
	uint8_t *b = NULL;
	size_t n = 0;
	if (firedtab_encode(&t, data[4] == 'B', &b, &n) == 0 && (n != size || memcmp(b, data, n)))
		abort();
	free(b);
	firedtab_free(&t);
	return 0;
}
