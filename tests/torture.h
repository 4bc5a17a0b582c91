/* SPDX-License-Identifier: MIT */
/*
 * torture.h - hostile-input driver shared by tests/tools/torture.c (the big
 * shared recording, plain build) and tests/unit/test_torture.c (the small
 * shipped recordings, under ASan/UBSan/LeakSanitizer).
 *
 * For each of ntrunc offsets the image is cut there, both as is and with the
 * header's data size shortened to the cut (a recording that died mid-record);
 * for each of nflip rounds 1-16 random bytes are flipped.  Every run must end
 * with 0 or a negative errno and a message naming an offset.
 */
#ifndef LATSCOPE_TORTURE_H
#define LATSCOPE_TORTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "base/bytes.h"
#include "print/pdprint.h"
#include "format/pdread.h"

struct torture_result {
	unsigned runs, clean, errors, bad_messages;
	uint64_t max_queue_peak;
};

static uint64_t torture_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A regular file holding len bytes of buf (memfd), or -1. */
static int torture_file(const uint8_t *buf, size_t len)
{
	int fd = memfd_create("torture", 0);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}

/*
 * One run.  Most runs read the image in memory; every fourth reads it as a
 * file with read(2) (no mapping), alternately ordered and unordered, so the
 * window reader and its in-window AUX payloads see the same hostile input.
 */
static void torture_one(const uint8_t *buf, size_t len, bool print, struct torture_result *res)
{
	static unsigned nth;
	struct pdread *r;
	struct pdread_opts o = { .max_queue_bytes = 64u << 20 };
	int rc, fd = -1;

	if (++nth % 4 == 0 && (fd = torture_file(buf, len)) >= 0) {
		o.no_map = true;
		o.unordered = nth % 8 == 0;
		rc = pdread_open_fd(&r, fd, true, "torture", &o);
	} else {
		rc = pdread_open_mem(&r, buf, len, &o);
	}
	if (rc == 0) {
		struct pdprint_opts po = { .kallsyms = "" };
		struct pdprint *p = print ? pdprint_new(r, &po) : NULL;
		struct pdread_event ev;
		char line[2048];
		while ((rc = pdread_next(r, &ev)) > 0) {
			if (!p)
				continue;
			if (ev.type == PDFORMAT_RECORD_SAMPLE && ev.has_sample)
				pdprint_format(p, &ev, line, sizeof(line));
			else
				pdprint_track(p, &ev);
		}
		pdprint_free(p);
		if (pdread_stats(r)->queue_peak_bytes > res->max_queue_peak)
			res->max_queue_peak = pdread_stats(r)->queue_peak_bytes;
	}
	res->runs++;
	if (rc == 0) {
		res->clean++;
	} else {
		res->errors++;
		const char *m = pdread_strerror(r);
		if (!strstr(m, "offset") || strchr(m, '\n'))
			res->bad_messages++;
	}
	pdread_close(r);
}

/* Returns 0; results in *res.  work must be a writable copy of img. */
static void torture_run(const uint8_t *img, uint8_t *work, size_t len, unsigned ntrunc, unsigned nflip,
			uint64_t seed, unsigned print_every, struct torture_result *res)
{
	memset(res, 0, sizeof(*res));
	memcpy(work, img, len);
	bool swap = len >= 8 && bytes_ld64(img, false) != PDFORMAT_MAGIC2;
	bool file_mode = len >= 104 && bytes_ld64(img + 8, swap) == 104;
	uint64_t doff = file_mode ? bytes_ld64(img + 40, swap) : 0;
	uint64_t dsz = file_mode ? bytes_ld64(img + 48, swap) : 0;
	for (unsigned i = 0; i < ntrunc; i++) {
		size_t cut = (size_t)((len * (uint64_t)(i + 1)) / (ntrunc + 1));
		cut += (size_t)(torture_rand(&seed) % 977);
		if (cut > len)
			cut = len;
		bool print = print_every && i % print_every == 0;
		torture_one(work, cut, print, res);
		if (file_mode && cut > doff && cut < doff + dsz) {
			/* the data section ends at the cut: records are cut mid-way */
			bytes_st64(work + 48, cut - doff, swap);
			torture_one(work, len, print, res);
			memcpy(work + 48, img + 48, 8);
		}
	}
	for (unsigned i = 0; i < nflip; i++) {
		unsigned n = 1 + (unsigned)(torture_rand(&seed) % 16);
		size_t pos[16];
		for (unsigned k = 0; k < n; k++) {
			uint64_t x = torture_rand(&seed);
			/* a third in the header area, a third at the end (features,
			 * tracing data), a third anywhere */
			size_t span = len < 65536 ? len : 65536;
			if (x % 3 == 0)
				pos[k] = (size_t)((x >> 8) % span);
			else if (x % 3 == 1)
				pos[k] = len - 1 - (size_t)((x >> 8) % span);
			else
				pos[k] = (size_t)((x >> 8) % len);
			work[pos[k]] ^= (uint8_t)(1u << ((x >> 4) % 8));
		}
		torture_one(work, len, print_every && i % print_every == 0, res);
		for (unsigned k = 0; k < n; k++)
			work[pos[k]] = img[pos[k]];
	}
}

#endif
