/* SPDX-License-Identifier: MIT */
/*
 * Hostile input under the sanitizers: the shipped recordings (file, zstd,
 * pipe) cut at 1,000 offsets and with random bytes flipped; the reader must
 * end every run with a clean result or a one-line error naming an offset,
 * without a crash, a sanitizer report or a leak.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../torture.h"

static void run_file(const char *path, unsigned ntrunc, unsigned nflip)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *img = malloc((size_t)len), *work = malloc((size_t)len);
	assert_non_null(img);
	assert_non_null(work);
	assert_int_equal(fread(img, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	struct torture_result res;
	torture_run(img, work, (size_t)len, ntrunc, nflip, 42, 4, &res);
	assert_int_equal(res.bad_messages, 0);
	assert_true(res.errors > 0);	/* cuts inside the data must be reported */
	assert_true(res.runs >= ntrunc + nflip);
	free(img);
	free(work);
}

static void test_file(void **s) { (void)s; run_file("tests/data/rec/sched-irq-timer.perf.data", 1000, 400); }
static void test_zstd(void **s) { (void)s; run_file("tests/data/rec/sched-zstd.perf.data", 1000, 400); }
static void test_pipe(void **s) { (void)s; run_file("tests/data/rec/sched-timer-pipe.perf.data", 1000, 400); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_pipe),
	};
	return cmocka_run_group_tests_name("torture", tests, NULL, NULL);
}
