/* SPDX-License-Identifier: MIT */
/*
 * test_faketfs.h - a fake tracefs tree for the unit tests that drive
 * tracefs through libtracefs (test_osnkernel.c, test_histtrig.c): files in
 * the directory tdir (the including test names it and points libtracefs at
 * it with tracefs_set_tracing_dir()).  Include after <cmocka.h>.
 */
#ifndef LATSCOPE_TEST_FAKETFS_H
#define LATSCOPE_TEST_FAKETFS_H

#include <limits.h>
#include <stdio.h>

static char tdir[64];

/* Write text to the file rel of the tree (created or replaced). */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#endif
