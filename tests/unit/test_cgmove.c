/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: a cgroup's directory found (lib/live/cgmove.c) against a fake
 * root: the cgroup2 mount from mountinfo (a v1 mount before it ignored, an
 * escaped space decoded), this process's own cgroup from /proc/self/cgroup
 * (a v1 line before the 0:: one), a name with or without its leading
 * slash, the root cgroup, refusals (no such cgroup, "..", no cgroup2
 * mount, no 0:: line), and a pid written into cgroup.procs.
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

#include "live/cgmove.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[512], cmd[600];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkd(const char *rel)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/latscope-cgmove.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("proc/self/mountinfo",
	    "22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
	    "30 22 0:26 / /sys/fs/cgroup/cpu rw shared:5 - cgroup cgroup rw,cpu\n"
	    "31 22 0:27 / /sys/fs/cg\\0402 rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n");
	put("proc/self/cgroup", "1:cpu:/old\n0::/user.slice/me.scope\n");
	mkd("sys/fs/cg 2/user.slice/me.scope");
	mkd("sys/fs/cg 2/rt/work");
	put("sys/fs/cg 2/rt/work/cgroup.procs", "");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void t_dirs(void **state)
{
	(void)state;
	char dir[512], why[256], want[512];
	assert_int_equal(cgmove_dir(root, NULL, dir, sizeof(dir), why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cg 2/user.slice/me.scope", root);
	assert_string_equal(dir, want);
	assert_int_equal(cgmove_dir(root, "rt/work", dir, sizeof(dir), why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cg 2/rt/work", root);
	assert_string_equal(dir, want);
	assert_int_equal(cgmove_dir(root, "/rt/work", dir, sizeof(dir), why, sizeof(why)), 0);
	assert_string_equal(dir, want);
	assert_int_equal(cgmove_dir(root, "/", dir, sizeof(dir), why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cg 2", root);
	assert_string_equal(dir, want);
	/* refusals, each said */
	assert_int_equal(cgmove_dir(root, "nosuch", dir, sizeof(dir), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no cgroup nosuch"));
	assert_int_equal(cgmove_dir(root, "rt/../..", dir, sizeof(dir), why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, ".."));
	/* a buffer too small for the path */
	assert_int_equal(cgmove_dir(root, "rt/work", dir, 10, why, sizeof(why)), -ENAMETOOLONG);
}

static void t_no_v2(void **state)
{
	(void)state;
	char dir[512], why[256];
	put("proc/self/cgroup", "1:cpu:/old\n");
	assert_int_equal(cgmove_dir(root, NULL, dir, sizeof(dir), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no 0:: line"));
	put("proc/self/mountinfo", "30 22 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
	assert_int_equal(cgmove_dir(root, "rt", dir, sizeof(dir), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no cgroup2"));
}

static void t_pid(void **state)
{
	(void)state;
	char dir[512], p[600], line[64];
	snprintf(dir, sizeof(dir), "%s/sys/fs/cg 2/rt/work", root);
	assert_int_equal(cgmove_pid(dir, 1234), 0);
	assert_int_equal(cgmove_pid(dir, 99), 0);
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "1234\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "99\n");
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cg 2/user.slice", root);
	assert_int_equal(cgmove_pid(dir, 1), -ENOENT);	/* no cgroup.procs */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(t_no_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(t_pid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
