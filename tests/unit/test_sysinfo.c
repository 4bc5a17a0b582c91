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

/* uname -v of Debian's kernels (the kernel tier's guests) */
static void test_version_rt(void **state)
{
	(void)state;
	assert_true(sysinfo_version_rt("#1 SMP PREEMPT_RT Debian 7.2.13-1 (2026-10-28)"));
	assert_true(sysinfo_version_rt("#1 SMP PREEMPT_RT Debian 6.1.192-3 (2026-11-26)"));
	assert_false(sysinfo_version_rt("#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"));
	assert_false(sysinfo_version_rt("#1 SMP PREEMPT_DYNAMIC @0"));
	assert_true(sysinfo_version_rt("PREEMPT_RT"));
	assert_false(sysinfo_version_rt("#1 SMP PREEMPT_RTX"));
	assert_false(sysinfo_version_rt("#1 SMP XPREEMPT_RT"));
	assert_true(sysinfo_version_rt("#1 XPREEMPT_RT PREEMPT_RT"));	/* the second one */
	assert_false(sysinfo_version_rt(""));
	assert_false(sysinfo_version_rt(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_vm_name),
		cmocka_unit_test(test_version_rt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
