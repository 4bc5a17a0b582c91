/* SPDX-License-Identifier: MIT */
/*
 * bytes.h - unaligned, explicit-endianness loads and stores.
 *
 * Prefix: bytes_.  Every multi-byte field read from a file goes through one of
 * these: `swap` is true when the file's byte order differs from the host's;
 * the _be/_le variants are for fields whose order is fixed by a format
 * (DTL entries are always big-endian).
 */
#ifndef LATSCOPE_BYTES_H
#define LATSCOPE_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTES_HOST_BIG_ENDIAN 1
#else
#define BYTES_HOST_BIG_ENDIAN 0
#endif

static inline uint16_t bytes_ld16(const void *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t bytes_ld32(const void *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t bytes_ld64(const void *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static inline void bytes_st16(void *p, uint16_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void bytes_st32(void *p, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void bytes_st64(void *p, uint64_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

/*
 * bytes_copy - memcpy for the short copies of text formatting: up to 16 bytes
 * with two possibly overlapping loads and stores (no call, no read or
 * write outside [s, s + n) and [d, d + n)), longer ones by memcpy.
 */
static inline void bytes_copy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (n >= 8 && n <= 16) {
		uint64_t a, b;
		memcpy(&a, sp, 8);
		memcpy(&b, sp + n - 8, 8);
		memcpy(dp, &a, 8);
		memcpy(dp + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t a, b;
		memcpy(&a, sp, 4);
		memcpy(&b, sp + n - 4, 4);
		memcpy(dp, &a, 4);
		memcpy(dp + n - 4, &b, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			dp[i] = sp[i];
	} else {
		memcpy(d, s, n);
	}
}

/* Fixed big-endian loads (swap exactly when the host is little-endian). */
static inline uint16_t bytes_ld16_be(const void *p) { return bytes_ld16(p, !BYTES_HOST_BIG_ENDIAN); }
static inline uint32_t bytes_ld32_be(const void *p) { return bytes_ld32(p, !BYTES_HOST_BIG_ENDIAN); }
static inline uint64_t bytes_ld64_be(const void *p) { return bytes_ld64(p, !BYTES_HOST_BIG_ENDIAN); }
static inline void bytes_st16_be(void *p, uint16_t v) { bytes_st16(p, v, !BYTES_HOST_BIG_ENDIAN); }
static inline void bytes_st32_be(void *p, uint32_t v) { bytes_st32(p, v, !BYTES_HOST_BIG_ENDIAN); }
static inline void bytes_st64_be(void *p, uint64_t v) { bytes_st64(p, v, !BYTES_HOST_BIG_ENDIAN); }

#endif
