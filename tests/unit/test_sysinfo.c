/* SPDX-License-Identifier: MIT */
/* Unit tests: lib/base/sysinfo.c on the machine running them (whatever it is). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/sysinfo.h"

static void test_online(void **state)
{
	(void)state;
	struct parse_cpuset s;
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(sysinfo_online_cpus(&s), 0);
	assert_true(parse_cpuset_count(&s) >= 1);
	assert_true(parse_cpuset_count(&s) <= (unsigned)sysconf(_SC_NPROCESSORS_CONF));
}

static void test_steal(void **state)
{
	(void)state;
	const unsigned list[2] = { 0, PARSE_MAX_CPUS + 7 };	/* the second exists nowhere */
	uint64_t v[2] = { 123, 456 };
	sysinfo_steal(v, list, 2);
	assert_int_equal(v[1], 0);
	sysinfo_steal(NULL, NULL, 0);	/* nothing asked, nothing written */
}

static void test_vm_name(void **state)
{
	(void)state;
	char buf[8];
	const char *n = sysinfo_vm_name(buf, sizeof(buf));
	if (n) {	/* a VM: the vendor or "hypervisor", cut to the buffer */
		assert_ptr_equal(n, buf);
		assert_true(strlen(n) < sizeof(buf));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_vm_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
