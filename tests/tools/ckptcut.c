/* SPDX-License-Identifier: MIT */
/*
 * ckptcut - the file a checkpointing writer (lib/pdwrite, pdwrite_checkpoint)
 * left on disk at an earlier moment, for the tests of killed recordings.
 *
 *   ckptcut IN OFFSET OUT   IN's first OFFSET bytes, under the header of the
 *                           last checkpoint whose table record ends by then
 *   ckptcut --list IN       "OFFSET END" of each checkpoint table record
 *
 * A checkpointed writer only appends, except for the header, which it
 * rewrites after each checkpoint's table record is on disk; so when its
 * output had reached OFFSET bytes, the file was IN's first OFFSET bytes
 * under the header of a checkpoint whose table ends at or before OFFSET
 * (the last one, or the one before while the last one's header was being
 * written).  Each table record holds what that header said (lib/format/pdformat.h,
 * PDFORMAT_CKPT_MAGIC): data size = its offset - data offset, and the
 * feature bitmap in its last 32 bytes.  Both byte orders.  Exits 1 with a
 * message when there is no checkpoint by OFFSET.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "slurp.h"
#include "format/pdformat.h"

static int die(const char *msg)
{
	fprintf(stderr, "ckptcut: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	bool list = argc == 3 && !strcmp(argv[1], "--list");
	if (!list && argc != 4) {
		fprintf(stderr, "usage: ckptcut IN OFFSET OUT | ckptcut --list IN\n");
		return 2;
	}
	size_t len;
	uint8_t *p = slurp(argv[list ? 2 : 1], &len);
	if (!p)
		return die("cannot read the input");
	if (len < PDFORMAT_FILE_HEADER_SIZE)
		return die("too short for a perf.data header");
	bool swap = bytes_ld64(p, false) != PDFORMAT_MAGIC2;
	if (bytes_ld64(p, swap) != PDFORMAT_MAGIC2 || bytes_ld64(p + 8, swap) != PDFORMAT_FILE_HEADER_SIZE)
		return die("not a file-mode perf.data");
	uint64_t cut = list ? len : strtoull(argv[2], NULL, 0);
	if (cut > len)
		return die("OFFSET is past the end of the input");
	uint64_t data_off = bytes_ld64(p + 40, swap);

	/* walk the records up to the cut; remember the last table within it */
	uint64_t pos = data_off, table = 0;
	uint16_t tsize = 0;
	while (pos <= len && len - pos >= 8) {
		uint32_t type = bytes_ld32(p + pos, swap);
		uint16_t size = bytes_ld16(p + pos + 6, swap);
		uint64_t end = pos + size;
		if (size < 8 || end > len)
			break;
		if (type == PDFORMAT_RECORD_AUXTRACE && size >= 16)
			end += bytes_ld64(p + pos + 8, swap);
		if (end > cut)
			break;
		if (type == PDFORMAT_RECORD_HEADER_EVENT_TYPE && size >= 16 + 32 &&
		    bytes_ld64(p + pos + 8, swap) == PDFORMAT_CKPT_MAGIC) {
			table = pos;
			tsize = size;
			if (list)
				printf("%llu %llu\n", (unsigned long long)pos, (unsigned long long)end);
		}
		pos = end;
	}
	if (list)
		return 0;
	if (!table)
		return die("no checkpoint table ends by OFFSET (the writer had not published the file yet)");
	bytes_st64(p + 48, table - data_off, swap);
	memcpy(p + 72, p + table + tsize - 32, 32);
	FILE *o = fopen(argv[3], "wb");
	if (!o || fwrite(p, 1, (size_t)cut, o) != cut || fclose(o))
		return die("cannot write the output");
	free(p);
	return 0;
}
