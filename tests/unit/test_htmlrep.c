/* SPDX-License-Identifier: MIT */
/* test_htmlrep.c - the HTML pages: which documents, escaping, hostile values, write errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "print/htmlrep.h"

/* The page of the document text, in a malloc'd string (caller frees); rc out. */
static char *page(const char *doc, int *rc)
{
	struct json_object *j = json_tokener_parse(doc);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = htmlrep_write(f, j);
	fclose(f);
	json_object_put(j);
	return buf;
}

static void test_schemas(void **state)
{
	(void)state;
	int rc;
	assert_true(htmlrep_supported("latscope.dtl-report/1"));
	assert_true(htmlrep_supported("latscope.hist/1"));
	assert_true(htmlrep_supported("latscope.osnoise/1"));
	assert_false(htmlrep_supported("latscope.script/1"));
	assert_false(htmlrep_supported("latscope.hist/2"));
	assert_false(htmlrep_supported(NULL));
	free(page("{\"schema\":\"latscope.script/1\"}", &rc));
	assert_int_equal(rc, -EINVAL);
	free(page("[1,2]", &rc));
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(htmlrep_write(stdout, NULL), -EINVAL);
	assert_non_null(strstr(htmlrep_strerror(-EINVAL), "latscope.hist/1"));
}

/* Names from the recording are text, never markup. */
static void test_escaped(void **state)
{
	(void)state;
	int rc;
	char *p = page("{\"schema\":\"latscope.osnoise/1\",\"mode\":\"top\",\"cpus\":[{\"cpu\":0,"
		       "\"runtime_ns\":1000,\"irq_ns\":10,\"top\":[{\"class\":\"thread\","
		       "\"name\":\"<script>x</script>&\\\"\",\"id\":5}]}]}", &rc);
	assert_int_equal(rc, 0);
	assert_null(strstr(p, "<script>"));
	assert_non_null(strstr(p, "&lt;script&gt;x&lt;/script&gt;&amp;&quot;"));
	assert_non_null(strstr(p, "id=\"noise\""));
	free(p);
}

/* Durations near a unit's 1000 take the next unit: 999 950 000 ns is "1 s"
 * or "999.9 ms", never "1e+03 ms" (%.3g's exponent). */
static void test_durations(void **state)
{
	(void)state;
	static const char *const v[] = { "999999", "999950000", "999499", "999499999", "999" };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char doc[256];
		int rc;
		snprintf(doc, sizeof(doc), "{\"schema\":\"latscope.osnoise/1\",\"mode\":\"top\",\"cpus\":"
			 "[{\"cpu\":0,\"runtime_ns\":%s,\"noise_ns\":%s}]}", v[i], v[i]);
		char *p = page(doc, &rc);
		assert_int_equal(rc, 0);
		assert_null(strstr(p, "e+0"));
		free(p);
	}
}

/* Wrong types, huge and negative numbers, missing keys: a page, no crash. */
static void test_hostile(void **state)
{
	(void)state;
	static const char *const docs[] = {
		"{\"schema\":\"latscope.dtl-report/1\"}",
		"{\"schema\":\"latscope.dtl-report/1\",\"cpus\":7,\"worst\":[1,null,{\"cpu\":\"x\"}],"
		"\"vcpu_timeline\":{\"start_ns\":5,\"bin_ns\":1,\"bins\":999999999,\"tasks\":3,"
		"\"cpus\":[{\"cpu\":0,\"task\":[99,-5,\"a\"],\"preempted_ns\":[18446744073709551615],"
		"\"worst_delay_ns\":[\"184467440737095516150\"]},7]}}",
		"{\"schema\":\"latscope.dtl-report/1\",\"total\":{\"times\":{\"enqueue_to_dispatch\":"
		"{\"hist\":[{\"lo_ns\":-1,\"hi_ns\":0,\"count\":1e300},{\"lo_ns\":5,\"hi_ns\":2,\"count\":3}],"
		"\"max_ns\":0}}}}",
		"{\"schema\":\"latscope.hist/1\",\"bucket_ns\":0,\"histograms\":{\"wakeup\":{\"all\":"
		"{\"total\":3,\"buckets\":[[0,1],[1,1],[18446744073709551615,1],\"x\",[]]},"
		"\"cpus\":[{\"cpu\":1,\"total\":1,\"max_latency\":{\"comm\":7}}]}}}",
		"{\"schema\":\"latscope.osnoise/1\",\"cpus\":[{\"cpu\":0,\"runtime_ns\":0,\"hw_ns\":5},"
		"{\"cpu\":1,\"runtime_ns\":1,\"thread_ns\":18446744073709551615,\"hist\":{\"buckets\":7}}]}",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		int rc;
		char *p = page(docs[i], &rc);
		assert_int_equal(rc, 0);
		assert_non_null(strstr(p, "</html>"));
		free(p);
	}
}

/* A full output reports -EIO. */
static void test_write_error(void **state)
{
	(void)state;
	char small[64];
	FILE *f = fmemopen(small, sizeof(small), "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	struct json_object *j = json_tokener_parse("{\"schema\":\"latscope.hist/1\"}");
	assert_int_equal(htmlrep_write(f, j), -EIO);
	json_object_put(j);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
