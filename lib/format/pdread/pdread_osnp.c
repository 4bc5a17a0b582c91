/* SPDX-License-Identifier: MIT */
/*
 * pdread_osnp.c - the perf.data reader's LATSCOPE_OSNOISE feature: the
 * parameters of a `latscope osnoise record` run (layout in pdformat.h).
 *
 * The section names its own byte order (byte 4), so it is read in that order
 * whatever the file header says.  Every length is checked before it is used;
 * a section that is not exactly what version 1 writes is refused with the
 * file offset of the field at fault.
 */
#include <errno.h>
#include <string.h>

#include "base/bytes.h"
#include "pdread_int.h"

#define OSNP_NAME "LATSCOPE_OSNOISE feature (bit 255)"

int pdread_parse_osnp(struct pdread *r, const uint8_t *p, uint64_t len, uint64_t off)
{
	struct pdformat_osnp *o = &r->info.osnoise_params;
	if (len < 16)
		return pdread_fail(r, -EINVAL, off, OSNP_NAME " is %llu bytes, less than its 16-byte header",
				 (unsigned long long)len);
	if (memcmp(p, PDFORMAT_OSNP_MAGIC, 4))
		return pdread_fail(r, -EINVAL, off, OSNP_NAME " does not start with \"" PDFORMAT_OSNP_MAGIC "\"");
	if (p[4] != 'l' && p[4] != 'B')
		return pdread_fail(r, -EINVAL, off + 4, OSNP_NAME ": byte order tag %#x is neither 'l' nor 'B'",
				 p[4]);
	bool big = p[4] == 'B';
	bool swap = big != BYTES_HOST_BIG_ENDIAN;
	uint16_t version = bytes_ld16(p + 6, swap);
	if (version != PDFORMAT_OSNP_VERSION)
		return pdread_fail(r, -ENOTSUP, off + 6, OSNP_NAME ": version %u, this latscope reads version %u",
				 version, PDFORMAT_OSNP_VERSION);
	uint32_t size = bytes_ld32(p + 8, swap), words = bytes_ld32(p + 12, swap);
	if (words < 1 || words > PDFORMAT_OSNP_MAX_WORDS)
		return pdread_fail(r, -EINVAL, off + 12, OSNP_NAME ": %u CPU bitmap words, expected 1..%u",
				 words, PDFORMAT_OSNP_MAX_WORDS);
	uint32_t want = PDFORMAT_OSNP_FIXED + 8 * words;
	if (size != want)
		return pdread_fail(r, -EINVAL, off + 8, OSNP_NAME ": size field %u, expected %u for %u words",
				 size, want, words);
	if (len != want)
		return pdread_fail(r, -EINVAL, off, OSNP_NAME ": the section is %llu bytes, its header says %u (%s)",
				 (unsigned long long)len, want, len < want ? "truncated" : "oversized");
	struct pdformat_osnp v;
	memset(&v, 0, sizeof(v));
	v.version = version;
	v.big_endian = big;
	v.threshold_us = bytes_ld64(p + 16, swap);
	v.period_us = bytes_ld64(p + 24, swap);
	v.runtime_us = bytes_ld64(p + 32, swap);
	v.stop_us = bytes_ld64(p + 40, swap);
	v.stop_total_us = bytes_ld64(p + 48, swap);
	v.flags = bytes_ld64(p + 56, swap);
	if (v.flags & ~PDFORMAT_OSNP_FLAGS)
		return pdread_fail(r, -EINVAL, off + 56, OSNP_NAME ": unknown flags %#llx",
				 (unsigned long long)v.flags);
	for (uint32_t i = 0; i < words; i++)
		v.cpus[i] = bytes_ld64(p + PDFORMAT_OSNP_FIXED + 8 * i, swap);
	*o = v;
	r->info.has_osnoise_params = true;
	return 0;
}
