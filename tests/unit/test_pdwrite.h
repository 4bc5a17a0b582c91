/* SPDX-License-Identifier: MIT */
/*
 * test_pdwrite.h - helpers shared by the lib/pdwrite unit tests
 * (test_pdwrite.c, test_pdwrite_io.c, test_pdwrite_rt.c): a memfd for the
 * writer, and reads of the image it leaves.
 */
#ifndef LATSCOPE_TEST_PDWRITE_H
#define LATSCOPE_TEST_PDWRITE_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/syscall.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"

#define FORMATS_DIR "tests/data/formats"

/* --------------------------------------------------------------- helpers
 * (each test file uses some of them: unused, not a warning) */

struct img {
	uint8_t *p;
	size_t len;
	bool swap;		/* image order differs from the host's */
};

static __attribute__((unused)) int new_fd(void)
{
	int fd = memfd_create("pdw-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static __attribute__((unused)) struct pdwrite *wopen(int fd, bool be, bool pipe, uint32_t attr_size)
{
	struct pdwrite *w = NULL;
	struct pdwrite_opts o = { .big_endian = be, .pipe = pipe, .attr_size = attr_size };
	assert_int_equal(pdwrite_open_fd(&w, fd, false, &o), 0);
	assert_non_null(w);
	return w;
}

/* What is on disk now, as a reader of a killed writer's file would see it. */
static __attribute__((unused)) void snap(int fd, struct img *im)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	im->len = (size_t)st.st_size;
	im->p = malloc(im->len ? im->len : 1);
	assert_non_null(im->p);
	assert_int_equal(pread(fd, im->p, im->len, 0), (ssize_t)im->len);
}

/* Close w and slurp what it wrote. */
static __attribute__((unused)) void wfinish(struct pdwrite *w, int fd, bool be, struct img *im)
{
	assert_int_equal(pdwrite_close(w), 0);
	snap(fd, im);
	close(fd);
	im->swap = be != (bool)BYTES_HOST_BIG_ENDIAN;
}

static __attribute__((unused)) uint64_t ld64(const struct img *im, size_t off)
{
	assert_true(off + 8 <= im->len);
	return bytes_ld64(im->p + off, im->swap);
}

static __attribute__((unused)) uint32_t ld32(const struct img *im, size_t off)
{
	assert_true(off + 4 <= im->len);
	return bytes_ld32(im->p + off, im->swap);
}

static __attribute__((unused)) uint16_t ld16(const struct img *im, size_t off)
{
	assert_true(off + 2 <= im->len);
	return bytes_ld16(im->p + off, im->swap);
}

static __attribute__((unused)) struct pdformat_attr tp_attr(uint64_t config, uint64_t sample_type)
{
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDFORMAT_TYPE_TRACEPOINT;
	a.config = config;
	a.sample_period = 1;
	a.sample_type = sample_type;
	a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
	return a;
}

/* Offset of the first data record in a file image. */
static __attribute__((unused)) size_t data_off(const struct img *im) { return (size_t)ld64(im, 40); }
static __attribute__((unused)) size_t data_size(const struct img *im) { return (size_t)ld64(im, 48); }

static __attribute__((unused)) bool feat_bit(const struct img *im, int f)
{
	return (ld64(im, 72 + 8 * (size_t)(f / 64)) >> (f % 64)) & 1;
}

/* Find feature f's {offset, size} in a file image; false if absent. */
static __attribute__((unused)) bool feat_sec(const struct img *im, int f, size_t *off, size_t *size)
{
	if (!feat_bit(im, f))
		return false;
	size_t tab = data_off(im) + data_size(im);
	size_t slot = 0;
	for (int i = 0; i < f; i++)	/* bit 0: a checkpoint's table record */
		slot += feat_bit(im, i);
	*off = (size_t)ld64(im, tab + 16 * slot);
	*size = (size_t)ld64(im, tab + 16 * slot + 8);
	assert_true(*off + *size <= im->len);
	return true;
}

/* Whether tests/data/formats holds the sched formats. */
static __attribute__((unused)) bool have_formats(void)
{
	struct stat st;
	return stat(FORMATS_DIR "/sched/sched_switch/format", &st) == 0;
}

/* The formats of specs from tests/data/formats and their tracing-data blob
 * (caller frees both: tracedata_free, free). */
static __attribute__((unused)) void sched_formats(const char **specs, size_t n, bool be,
						  struct tracedata_formats **tf, void **blob, size_t *blen)
{
	assert_int_equal(tracedata_collect(FORMATS_DIR, specs, n, tf), 0);
	assert_int_equal(tracedata_tracing_data(*tf, be, blob, blen), 0);
}

static __attribute__((unused)) const char *sw_specs[] = { "sched:sched_switch", "sched:sched_wakeup" };

/* sched_switch and sched_wakeup formats in be order (skipped without tracefs formats). */
static __attribute__((unused)) void switch_wakeup_formats(bool be, struct tracedata_formats **tf, void **blob,
							  size_t *blen)
{
	if (!have_formats())
		skip();
	sched_formats(sw_specs, 2, be, tf, blob, blen);
}

#endif
