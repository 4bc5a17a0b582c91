/* SPDX-License-Identifier: MIT */
/* Unit tests: tfs_describe() writes formats a reader parses back (tests/data/formats). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include <event-parse.h>

#include "bytes.h"
#include "evsrc.h"
#include "pdread.h"
#include "pdwrite.h"
#include "tfsformat.h"

#define FORMATS_DIR "tests/data/formats"

static void test_describe(void **state)
{
	(void)state;
	char dir[] = "/tmp/latscope-tfs.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	const char *names[] = { "sched:sched_switch", "irq:irq_handler_entry" };
	struct pdw *w;
	struct pdw_opts o = { .big_endian = BY_HOST_BIG_ENDIAN };
	assert_int_equal(pdw_open(&w, path, &o), 0);
	struct pdf_attr a;
	uint64_t id = 1;
	evs_tp_attr(1, &a);	/* a tracepoint evsel, as a recording has */
	assert_true(pdw_add_evsel(w, &a, names[0], &id, 1) >= 0);
	assert_int_equal(tfs_describe(w, FORMATS_DIR, names, 2, BY_HOST_BIG_ENDIAN), 0);
	assert_int_equal(pdw_begin_data(w), 0);
	assert_int_equal(pdw_finished_round(w), 0);	/* data_size 0 reads as cut short */
	assert_int_equal(pdw_close(w), 0);

	struct pdr *r;
	assert_int_equal(pdr_open(&r, path, NULL), 0);
	struct tep_handle *tep = pdr_tep(r);
	assert_non_null(tep);
	assert_non_null(tep_find_event_by_name(tep, "sched", "sched_switch"));
	assert_non_null(tep_find_event_by_name(tep, "irq", "irq_handler_entry"));
	pdr_close(r);
	unlink(path);
	rmdir(dir);
}

static void test_describe_unknown(void **state)
{
	(void)state;
	char dir[] = "/tmp/latscope-tfs.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	const char *names[] = { "nosuch:event" };
	struct pdw *w;
	assert_int_equal(pdw_open(&w, path, NULL), 0);
	assert_int_equal(tfs_describe(w, FORMATS_DIR, names, 1, false), -ENOENT);
	pdw_discard(w);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_describe_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
