/* SPDX-License-Identifier: MIT */
/* idlestate.c - idle states disabled for a run and restored (see idlestate.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/idlestate.h"

/* What was changed, oldest first; published one by one (nr raised after
 * the entry is filled) for the signal handler. */
static struct {
	char path[160];
	char old;			/* '0' or '1': the disable file's value before */
} saved[IDLESTATE_MAX_FILES];
static int nr_saved;			/* atomic */

static int write_char(const char *path, char c)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, &c, 1);
	int e = n == 1 ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

static int read_char(const char *path, char *c)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, c, 1);
	int e = n == 1 ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

void idlestate_emergency_restore(void)
{
	for (int i = __atomic_load_n(&nr_saved, __ATOMIC_ACQUIRE); i-- > 0;)
		write_char(saved[i].path, saved[i].old);
}

unsigned idlestate_restore(void)
{
	unsigned failed = 0;
	for (int i = __atomic_load_n(&nr_saved, __ATOMIC_ACQUIRE); i-- > 0;) {
		if (write_char(saved[i].path, saved[i].old) < 0)
			failed++;
		__atomic_store_n(&nr_saved, i, __ATOMIC_RELEASE);
	}
	return failed;
}

/* One state file: saved, then 1 written.  0 or a negative errno (why said). */
static int disable_one(const char *path, char *why, size_t len)
{
	int i = __atomic_load_n(&nr_saved, __ATOMIC_RELAXED);
	if (i == IDLESTATE_MAX_FILES) {
		snprintf(why, len, "more than %d idle states to disable", IDLESTATE_MAX_FILES);
		return -ENOSPC;
	}
	size_t pl = strlen(path);
	if (pl >= sizeof(saved[i].path)) {
		snprintf(why, len, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	char old;
	int e = read_char(path, &old);
	if (!e && old != '0' && old != '1')
		e = -EINVAL;
	if (e) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(-e));
		return e;
	}
	memcpy(saved[i].path, path, pl + 1);
	saved[i].old = old;
	__atomic_store_n(&nr_saved, i + 1, __ATOMIC_RELEASE);
	if ((e = write_char(path, '1')) < 0)
		snprintf(why, len, "cannot write 1 to %s: %s", path, strerror(-e));
	return e;
}

/* CPU cpu's states above deepest disabled: their count, or a negative errno. */
static int limit_cpu(const char *root, unsigned cpu, int deepest, char *why, size_t len)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%u/cpuidle", root, cpu);
	DIR *d = opendir(dir);
	if (!d) {
		int e = -errno;
		snprintf(why, len, "CPU %u has no idle states (%s: %s)", cpu, dir, strerror(-e));
		return e;
	}
	int n = 0, err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, "state", 5))
			continue;
		long k = strtol(de->d_name + 5, &end, 10);
		if (end == de->d_name + 5 || *end || k <= deepest)
			continue;
		char path[PATH_MAX + 300];
		snprintf(path, sizeof(path), "%s/%s/disable", dir, de->d_name);
		err = disable_one(path, why, len);
		n += !err;
	}
	closedir(d);
	return err ? err : n;
}

int idlestate_limit(const char *root, const struct parse_cpuset *cpus, int deepest, char *why, size_t len)
{
	if (__atomic_load_n(&nr_saved, __ATOMIC_ACQUIRE)) {
		snprintf(why, len, "a limit is in place already");
		return -EBUSY;
	}
	int total = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++) {
		if (!parse_cpuset_has(cpus, cpu))
			continue;
		int n = limit_cpu(root ? root : "/sys", cpu, deepest, why, len);
		if (n < 0) {
			idlestate_restore();
			return n;
		}
		total += n;
	}
	return total;
}
