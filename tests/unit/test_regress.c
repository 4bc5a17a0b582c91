/* SPDX-License-Identifier: MIT */
/*
 * Inputs that once crashed or leaked (found by the fuzzers), kept in
 * fuzz/regress/<target>/: each must now read to a clean end or a clean error.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "print/pdprint.h"
#include "format/pdread.h"

static void test_pdread_regressions(void **state)
{
	(void)state;
	DIR *d = opendir("fuzz/regress/fuzz_pdread");
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512];
		snprintf(path, sizeof(path), "fuzz/regress/fuzz_pdread/%s", de->d_name);
		struct pdread *r;
		int rc = pdread_open(&r, path, NULL);
		if (rc == 0) {
			struct pdprint_opts po = { .kallsyms = "" };
			struct pdprint *p = pdprint_new(r, &po);
			struct pdread_event ev;
			char line[2048];
			while ((rc = pdread_next(r, &ev)) > 0)
				if (ev.type == PDFORMAT_RECORD_SAMPLE && ev.has_sample && p)
					pdprint_format(p, &ev, line, sizeof(line));
			pdprint_free(p);
		}
		if (rc < 0)
			assert_non_null(strstr(pdread_strerror(r), "offset"));
		pdread_close(r);
		n++;
	}
	closedir(d);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdread_regressions),
	};
	return cmocka_run_group_tests_name("regress", tests, NULL, NULL);
}
