/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/parse.h"

static void test_cpulist(void **state)
{
	(void)state;
	struct parse_cpuset s;
	char buf[64];
	assert_int_equal(parse_cpulist("0-3,5,7-8", &s), 0);
	assert_int_equal(parse_cpuset_count(&s), 7);
	assert_true(parse_cpuset_has(&s, 5));
	assert_false(parse_cpuset_has(&s, 4));
	parse_cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,5,7-8");
	assert_int_equal(parse_cpulist("3-1", &s), -ERANGE);
	assert_int_equal(parse_cpulist("1,,2", &s), -EINVAL);
	assert_int_equal(parse_cpulist("", &s), -EINVAL);
	assert_int_equal(parse_cpulist("99999", &s), -ERANGE);
}

static void test_duration(void **state)
{
	(void)state;
	uint64_t ns;
	assert_int_equal(parse_duration_ns("10", 1000000000ULL, &ns), 0);
	assert_int_equal(ns, 10000000000ULL);
	assert_int_equal(parse_duration_ns("500ms", 1, &ns), 0);
	assert_int_equal(ns, 500000000ULL);
	assert_int_equal(parse_duration_ns("2m", 1, &ns), 0);
	assert_int_equal(ns, 120000000000ULL);
	assert_int_equal(parse_duration_ns("5x", 1, &ns), -EINVAL);
	assert_int_equal(parse_duration_ns("1m30s", 1, &ns), 0);
	assert_int_equal(ns, 90000000000ULL);
	assert_int_equal(parse_duration_ns("1s500ms", 1, &ns), 0);
	assert_int_equal(ns, 1500000000ULL);
	assert_int_equal(parse_duration_ns("1.5s", 1, &ns), 0);
	assert_int_equal(ns, 1500000000ULL);
	assert_int_equal(parse_duration_ns("5us", 1, &ns), 0);
	assert_int_equal(ns, 5000);
	assert_int_equal(parse_duration_ns("2.25", 1000, &ns), 0);	/* bare: the default unit */
	assert_int_equal(ns, 2250);
	assert_int_equal(parse_duration_ns("0.000000001s", 1, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(parse_duration_ns("10 s", 1, &ns), -EINVAL);
	assert_int_equal(parse_duration_ns("1m30", 1, &ns), -EINVAL);	/* a bare part after a unit */
	assert_int_equal(parse_duration_ns("1.s", 1, &ns), -EINVAL);
	assert_int_equal(parse_duration_ns("ms", 1, &ns), -EINVAL);
	assert_int_equal(parse_duration_ns("99999999999999d", 1, &ns), -ERANGE);
}

static void test_time(void **state)
{
	(void)state;
	uint64_t a, b;
	assert_int_equal(parse_time_ns("485.4266", &a), 0);
	assert_int_equal(a, 485426600000ULL);
	assert_int_equal(parse_time_range("485.5,", &a, &b), 0);
	assert_int_equal(a, 485500000000ULL);
	assert_true(b == UINT64_MAX);
	assert_int_equal(parse_time_range(",12", &a, &b), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 12000000000ULL);
	assert_int_equal(parse_time_range("5,4", &a, &b), -ERANGE);
	int64_t i;
	assert_int_equal(parse_i64("-5", -10, 10, &i), 0);
	assert_int_equal(i, -5);
	assert_int_equal(parse_i64("-50", -10, 10, &i), -ERANGE);
}

static void test_size(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_int_equal(parse_size_bytes("65536", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size_bytes("512K", &v), 0);
	assert_int_equal(v, 512u << 10);
	assert_int_equal(parse_size_bytes("16M", &v), 0);
	assert_int_equal(v, 16u << 20);
	assert_int_equal(parse_size_bytes("16MiB", &v), 0);
	assert_int_equal(v, 16u << 20);
	assert_int_equal(parse_size_bytes("2GB", &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(parse_size_bytes("1g", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_true(parse_size_bytes("", &v) < 0);
	assert_true(parse_size_bytes("M", &v) < 0);
	assert_true(parse_size_bytes("8X", &v) < 0);
	assert_true(parse_size_bytes("-1K", &v) < 0);
	assert_true(parse_size_bytes("99999999999999999999G", &v) < 0);
	assert_true(parse_size_bytes("17179869184G", &v) < 0);	/* 2^34 GiB overflows */
	assert_true(parse_size_bytes(NULL, &v) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
