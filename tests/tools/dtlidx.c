/* SPDX-License-Identifier: MIT */
/*
 * dtlidx - damage the HEADER_AUXTRACE index of a perf.data file, as a disk
 * error, a truncated copy or a buggy converter would, for the DTL timeline
 * tests.  The data section is left alone.
 *
 *   dtlidx --drop IN OUT        remove the AUXTRACE feature (bit and table slot)
 *   dtlidx --shift N IN OUT     add N to every indexed record offset
 *   dtlidx --swap IN OUT        exchange the first two index entries (order broken)
 *   dtlidx --truncate IN OUT    claim more entries than the section holds
 *
 * Both byte orders; exits 1 with a message when the file has no index.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define FEAT_AUXTRACE 18

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int die(const char *msg)
{
	fprintf(stderr, "dtlidx: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode, *in, *out;
	int64_t shift = 0;

	if (argc == 5 && !strcmp(argv[1], "--shift")) {
		mode = argv[1];
		shift = strtoll(argv[2], NULL, 0);
		in = argv[3];
		out = argv[4];
	} else if (argc == 4) {
		mode = argv[1];
		in = argv[2];
		out = argv[3];
	} else {
		return die("usage: dtlidx --drop|--shift N|--swap|--truncate IN OUT");
	}
	size_t len;
	uint8_t *p = slurp(in, &len);
	if (!p || len < 104)
		return die("cannot read the input, or it is too short");
	bool swap;
	if (!memcmp(p, "PERFILE2", 8))
		swap = BY_HOST_BIG_ENDIAN;
	else if (!memcmp(p, "2ELIFREP", 8))
		swap = !BY_HOST_BIG_ENDIAN;
	else
		return die("not a perf.data file (pipe streams have no index)");
	uint64_t data_off = by_ld64(p + 40, swap), data_size = by_ld64(p + 48, swap);
	uint64_t words[4];
	for (int i = 0; i < 4; i++)
		words[i] = by_ld64(p + 72 + 8 * i, swap);
	if (!(words[0] & (1ULL << FEAT_AUXTRACE)))
		return die("the file has no AUXTRACE index");
	unsigned slot = (unsigned)__builtin_popcountll(words[0] & ((1ULL << FEAT_AUXTRACE) - 1));
	unsigned nslots = 0;
	for (int i = 0; i < 4; i++)
		nslots += (unsigned)__builtin_popcountll(words[i]);
	uint64_t table = data_off + data_size;
	if (table + 16ULL * nslots > len)
		return die("feature table beyond the end of the file");
	uint64_t sec = by_ld64(p + table + 16 * slot, swap);
	uint64_t sec_size = by_ld64(p + table + 16 * slot + 8, swap);
	if (sec + sec_size > len || sec_size < 8)
		return die("AUXTRACE section beyond the end of the file");
	uint64_t nr = by_ld64(p + sec, swap);

	if (!strcmp(mode, "--drop")) {
		words[0] &= ~(1ULL << FEAT_AUXTRACE);
		for (int i = 0; i < 4; i++)
			by_st64(p + 72 + 8 * i, words[i], swap);
		memmove(p + table + 16 * slot, p + table + 16 * (slot + 1), 16 * (nslots - slot - 1));
		memset(p + table + 16 * (nslots - 1), 0, 16);
	} else if (!strcmp(mode, "--shift")) {
		for (uint64_t i = 0; i < nr && sec + 8 + 16 * (i + 1) <= len; i++) {
			uint8_t *e = p + sec + 8 + 16 * i;
			by_st64(e, by_ld64(e, swap) + (uint64_t)shift, swap);
		}
	} else if (!strcmp(mode, "--swap")) {
		if (nr < 2)
			return die("fewer than two index entries");
		uint8_t tmp[16];
		memcpy(tmp, p + sec + 8, 16);
		memcpy(p + sec + 8, p + sec + 24, 16);
		memcpy(p + sec + 24, tmp, 16);
	} else if (!strcmp(mode, "--truncate")) {
		by_st64(p + sec, nr + 1000, swap);
	} else {
		return die("unknown mode");
	}
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		return die("cannot write the output");
	free(p);
	return 0;
}
