/* SPDX-License-Identifier: MIT */
/* Unit tests: tracedata_describe() writes formats a reader parses back (tests/data/formats). */
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

#include "base/bytes.h"
#include "live/evsrc.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"

#define FORMATS_DIR "tests/data/formats"

static void test_describe(void **state)
{
	(void)state;
	char dir[] = "/tmp/latscope-tfs.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	const char *names[] = { "sched:sched_switch", "irq:irq_handler_entry" };
	struct pdwrite *w;
	struct pdwrite_opts o = { .big_endian = BYTES_HOST_BIG_ENDIAN };
	assert_int_equal(pdwrite_open(&w, path, &o), 0);
	struct pdformat_attr a;
	uint64_t id = 1;
	evsrc_tp_attr(1, &a);	/* a tracepoint evsel, as a recording has */
	assert_true(pdwrite_add_evsel(w, &a, names[0], &id, 1) >= 0);
	assert_int_equal(tracedata_describe(w, FORMATS_DIR, names, 2, BYTES_HOST_BIG_ENDIAN), 0);
	assert_int_equal(pdwrite_begin_data(w), 0);
	assert_int_equal(pdwrite_finished_round(w), 0);	/* data_size 0 reads as cut short */
	assert_int_equal(pdwrite_close(w), 0);

	struct pdread *r;
	assert_int_equal(pdread_open(&r, path, NULL), 0);
	struct tep_handle *tep = pdread_tep(r);
	assert_non_null(tep);
	assert_non_null(tep_find_event_by_name(tep, "sched", "sched_switch"));
	assert_non_null(tep_find_event_by_name(tep, "irq", "irq_handler_entry"));
	pdread_close(r);
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
	struct pdwrite *w;
	assert_int_equal(pdwrite_open(&w, path, NULL), 0);
	assert_int_equal(tracedata_describe(w, FORMATS_DIR, names, 1, false), -ENOENT);
	pdwrite_discard(w);
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
