/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/progress.c: the status line's text (elapsed of the
 * duration rounded up to whole seconds, without a duration, a small buffer
 * truncated), on/off by mode and terminal (a file is no terminal), the
 * redraw at most once a second, the erasure only of a drawn line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "progress.h"

static void test_format(void **state)
{
	(void)state;
	char b[128];
	progress_format(b, sizeof(b), 12500000000ULL, 60000000000ULL, 34567, "events", 2);
	assert_string_equal(b, "12 s of 60 s, 34567 events, 2 lost");
	progress_format(b, sizeof(b), 999999999ULL, 1500000000ULL, 0, "gaps", 0);
	assert_string_equal(b, "0 s of 2 s, 0 gaps, 0 lost");
	progress_format(b, sizeof(b), 3000000000ULL, 0, 7, "events", 0);
	assert_string_equal(b, "3 s, 7 events, 0 lost");
	progress_format(b, 8, 3000000000ULL, 0, 7, "events", 0);
	assert_string_equal(b, "3 s, 7 ");
	progress_format(b, 0, 0, 0, 0, "x", 0);	/* nothing written */
}

/* what progress wrote into a temporary file */
static char *contents(FILE *f)
{
	static char buf[1024];
	fflush(f);
	long n = ftell(f);
	rewind(f);
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	buf[got] = '\0';
	assert_int_equal((long)got, n);
	fseek(f, 0, SEEK_END);
	return buf;
}

static void test_modes_and_redraw(void **state)
{
	(void)state;
	struct progress p;
	FILE *f = tmpfile();
	assert_non_null(f);
	progress_init(&p, f, PROGRESS_AUTO, 1000, 0, "events");	/* a file: off */
	assert_false(progress_on(&p));
	progress_update(&p, 5000000000ULL, 1, 0);
	progress_clear(&p);
	assert_string_equal(contents(f), "");
	progress_init(&p, f, 0, 1000, 0, "events");
	assert_false(progress_on(&p));
	progress_init(&p, f, 1, 0, 3000000000ULL, "events");	/* forced */
	assert_true(progress_on(&p));
	progress_clear(&p);	/* nothing drawn: nothing erased */
	assert_string_equal(contents(f), "");
	progress_update(&p, 0, 0, 0);
	progress_update(&p, 500000000ULL, 10, 0);	/* within the second: not drawn */
	progress_update(&p, 1000000000ULL, 20, 1);
	assert_string_equal(contents(f), "\r\033[K0 s of 3 s, 0 events, 0 lost"
					 "\r\033[K1 s of 3 s, 20 events, 1 lost");
	progress_clear(&p);
	progress_clear(&p);	/* idempotent */
	assert_string_equal(contents(f), "\r\033[K0 s of 3 s, 0 events, 0 lost"
					 "\r\033[K1 s of 3 s, 20 events, 1 lost\r\033[K");
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_modes_and_redraw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
