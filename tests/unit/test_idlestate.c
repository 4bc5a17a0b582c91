/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: idle states deeper than a limit disabled on the CPUs asked
 * for and written back (lib/live/idlestate.c), against a fake sysfs tree:
 * only the states above the limit change, each file gets its own old value
 * back (one was disabled already), a second limit is refused, a CPU
 * without cpuidle fails and leaves nothing changed, the emergency restore
 * writes the same values.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "live/idlestate.h"

static char root[64];

static void put(unsigned cpu, unsigned state, char v)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/devices/system/cpu/cpu%u/cpuidle/state%u", root, cpu, state);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", p);
	assert_int_equal(system(cmd), 0);
	strcat(p, "/disable");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%c\n", v);
	fclose(f);
}

static char get(unsigned cpu, unsigned state)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/devices/system/cpu/cpu%u/cpuidle/state%u/disable", root, cpu, state);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	int c = fgetc(f);
	fclose(f);
	return (char)c;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/latscope-idlestate.XXXXXX");
	assert_non_null(mkdtemp(root));
	for (unsigned cpu = 0; cpu < 3; cpu++)
		for (unsigned s = 0; s < 4; s++)
			put(cpu, s, '0');
	put(1, 3, '1');	/* disabled before the run: stays so */
	mkdir(strcat(strcpy((char[256]){ 0 }, root), "/devices/system/cpu/cpu3"), 0755);	/* no cpuidle */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_limit_restore(void **state)
{
	(void)state;
	struct parse_cpuset cpus = { 0 };
	parse_cpuset_add(&cpus, 0);
	parse_cpuset_add(&cpus, 1);
	char why[256];
	assert_int_equal(idlestate_limit(root, &cpus, 1, why, sizeof(why)), 4);	/* states 2, 3 of two CPUs */
	assert_int_equal(get(0, 1), '0');
	assert_int_equal(get(0, 2), '1');
	assert_int_equal(get(1, 3), '1');
	assert_int_equal(get(2, 3), '0');	/* not asked for */
	assert_int_equal(idlestate_limit(root, &cpus, 0, why, sizeof(why)), -EBUSY);
	assert_int_equal(idlestate_restore(), 0);
	assert_int_equal(get(0, 2), '0');
	assert_int_equal(get(0, 3), '0');
	assert_int_equal(get(1, 3), '1');	/* its own value back */
	assert_int_equal(idlestate_restore(), 0);	/* nothing left */
	/* the emergency restore writes the same */
	assert_int_equal(idlestate_limit(root, &cpus, -1, why, sizeof(why)), 8);
	assert_int_equal(get(0, 0), '1');
	idlestate_emergency_restore();
	assert_int_equal(get(0, 0), '0');
	assert_int_equal(get(1, 3), '1');
	idlestate_restore();
}

static void test_no_cpuidle(void **state)
{
	(void)state;
	struct parse_cpuset cpus = { 0 };
	parse_cpuset_add(&cpus, 2);
	parse_cpuset_add(&cpus, 3);
	char why[256];
	assert_int_equal(idlestate_limit(root, &cpus, 0, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "CPU 3 has no idle states"));
	assert_int_equal(get(2, 1), '0');	/* CPU 2's change undone */
	assert_int_equal(idlestate_restore(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_restore),
		cmocka_unit_test(test_no_cpuidle),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
