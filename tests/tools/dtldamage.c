/* SPDX-License-Identifier: MIT */
/*
 * dtldamage - damage a perf.data file with DTL data the ways a disk error, a
 * truncated copy, a buggy converter or a broken kernel would, for the DTL
 * tests.  Index modes leave the data section alone.
 *
 *   dtldamage --drop IN OUT        remove the AUXTRACE feature (bit and table slot)
 *   dtldamage --shift N IN OUT     add N to every indexed record offset
 *   dtldamage --swap IN OUT        exchange the first two index entries (order broken)
 *   dtldamage --truncate IN OUT    claim more entries than the section holds
 *   dtldamage --bad-cpu IN OUT     the first indexed AUXTRACE record gets CPU 5000
 *   dtldamage --all-cpus N IN OUT  every indexed AUXTRACE record gets CPU N (-1 as
 *                                  perf writes for a per-thread buffer)
 *   dtldamage --bad-id IN OUT      the first SAMPLE gets an id no event has (any
 *                                  recording whose samples start with IDENTIFIER)
 *   dtldamage --tb-freq N IN OUT   the first header record says tb_freq N
 *   dtldamage --boot-tb N IN OUT   the first header record says boot_tb N
 *
 * Both byte orders; exits 1 with a message when the file has no index.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "slurp.h"

#define FEAT_AUXTRACE 18

static int die(const char *msg)
{
	fprintf(stderr, "dtldamage: %s\n", msg);
	return 1;
}

/* Write the damaged copy; frees p.  The exit status. */
static int put(const char *out, uint8_t *p, size_t len)
{
	FILE *f = fopen(out, "wb");
	int bad = !f || fwrite(p, 1, len, f) != len;
	if (f && fclose(f))
		bad = 1;
	free(p);
	return bad ? die("cannot write the output") : 0;
}

int main(int argc, char **argv)
{
	const char *mode, *in, *out;
	int64_t shift = 0;

	if (argc == 5) {
		mode = argv[1];
		shift = strtoll(argv[2], NULL, 0);
		in = argv[3];
		out = argv[4];
	} else if (argc == 4) {
		mode = argv[1];
		in = argv[2];
		out = argv[3];
	} else {
		return die("usage: dtldamage --drop|--shift N|--swap|--truncate|--bad-cpu|--bad-id|"
			   "--all-cpus N|--tb-freq N|--boot-tb N IN OUT");
	}
	size_t len;
	uint8_t *p = slurp(in, &len);
	if (!p || len < 104)
		return die("cannot read the input, or it is too short");
	bool swap;
	if (!memcmp(p, "PERFILE2", 8))
		swap = BYTES_HOST_BIG_ENDIAN;
	else if (!memcmp(p, "2ELIFREP", 8))
		swap = !BYTES_HOST_BIG_ENDIAN;
	else
		return die("not a perf.data file (pipe streams have no index)");
	uint64_t data_off = bytes_ld64(p + 40, swap), data_size = bytes_ld64(p + 48, swap);
	if (!strcmp(mode, "--bad-id")) {	/* any recording: no index needed */
		uint64_t pos = data_off;
		for (;;) {
			if (pos + 16 > data_off + data_size || pos + 16 > len)
				return die("no SAMPLE record");
			uint32_t type = bytes_ld32(p + pos, swap);
			uint16_t sz = bytes_ld16(p + pos + 6, swap);
			if (sz < 8)
				return die("bad record header");
			if (type == 9) {	/* SAMPLE: IDENTIFIER first */
				bytes_st64(p + pos + 8, 0xdeadbeefULL, swap);
				break;
			}
			pos += sz + (type == 71 && sz >= 16 ? bytes_ld64(p + pos + 8, swap) : 0);
		}
		return put(out, p, len);
	}
	uint64_t words[4];
	for (int i = 0; i < 4; i++)
		words[i] = bytes_ld64(p + 72 + 8 * i, swap);
	if (!(words[0] & (1ULL << FEAT_AUXTRACE)))
		return die("the file has no AUXTRACE index");
	unsigned slot = (unsigned)__builtin_popcountll(words[0] & ((1ULL << FEAT_AUXTRACE) - 1));
	unsigned nslots = 0;
	for (int i = 0; i < 4; i++)
		nslots += (unsigned)__builtin_popcountll(words[i]);
	uint64_t table = data_off + data_size;
	if (table + 16ULL * nslots > len)
		return die("feature table beyond the end of the file");
	uint64_t sec = bytes_ld64(p + table + 16 * slot, swap);
	uint64_t sec_size = bytes_ld64(p + table + 16 * slot + 8, swap);
	if (sec + sec_size > len || sec_size < 8)
		return die("AUXTRACE section beyond the end of the file");
	uint64_t nr = bytes_ld64(p + sec, swap);

	if (!strcmp(mode, "--drop")) {
		words[0] &= ~(1ULL << FEAT_AUXTRACE);
		for (int i = 0; i < 4; i++)
			bytes_st64(p + 72 + 8 * i, words[i], swap);
		memmove(p + table + 16 * slot, p + table + 16 * (slot + 1), 16 * (nslots - slot - 1));
		memset(p + table + 16 * (nslots - 1), 0, 16);
	} else if (!strcmp(mode, "--shift")) {
		for (uint64_t i = 0; i < nr && sec + 8 + 16 * (i + 1) <= len; i++) {
			uint8_t *e = p + sec + 8 + 16 * i;
			bytes_st64(e, bytes_ld64(e, swap) + (uint64_t)shift, swap);
		}
	} else if (!strcmp(mode, "--swap")) {
		if (nr < 2)
			return die("fewer than two index entries");
		uint8_t tmp[16];
		memcpy(tmp, p + sec + 8, 16);
		memcpy(p + sec + 8, p + sec + 24, 16);
		memcpy(p + sec + 24, tmp, 16);
	} else if (!strcmp(mode, "--truncate")) {
		bytes_st64(p + sec, nr + 1000, swap);
	} else if (!strcmp(mode, "--bad-cpu") || !strcmp(mode, "--tb-freq") || !strcmp(mode, "--boot-tb")) {
		if (!nr || sec + 24 > len)
			return die("empty index");
		uint64_t rec = bytes_ld64(p + sec + 8, swap);
		if (rec + 48 + 48 > len)
			return die("index entry beyond the file");
		if (!strcmp(mode, "--bad-cpu"))
			bytes_st32(p + rec + 40, 5000, swap);
		else	/* the header record: boot_tb at 0, tb_freq at 8 (writer's order) */
			bytes_st64(p + rec + 48 + (mode[2] == 't' ? 8 : 0), (uint64_t)shift, swap);
	} else if (!strcmp(mode, "--all-cpus")) {
		for (uint64_t i = 0; i < nr && sec + 8 + 16 * (i + 1) <= len; i++) {
			uint64_t rec = bytes_ld64(p + sec + 8 + 16 * i, swap);
			if (rec + 48 > len)
				return die("index entry beyond the file");
			bytes_st32(p + rec + 40, (uint32_t)shift, swap);
		}
	} else {
		return die("unknown mode");
	}
	return put(out, p, len);
}
