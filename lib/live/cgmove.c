/* SPDX-License-Identifier: MIT */
/*
 * cgmove.c - see cgmove.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/cgmove.h"

/* mountinfo's octal escapes (\040 for a space) decoded in place */
static void unescape(char *s)
{
	char *o = s;
	for (char *i = s; *i; i++) {
		if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' && i[3] >= '0' &&
		    i[3] <= '7') {
			*o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
			i += 3;
		} else {
			*o++ = *i;
		}
	}
	*o = 0;
}

/* The first cgroup2 mount point of root/proc/self/mountinfo into mnt. */
static int cg2_mount(const char *root, char *mnt, size_t len)
{
	char path[4096], line[4096];
	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int rc = -ENOENT;
	while (rc && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SRC SUPER */
		char *sep = strstr(line, " - ");
		char mp[4096], fs[64];
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 || sscanf(sep + 3, "%63s", fs) != 1 ||
		    strcmp(fs, "cgroup2"))
			continue;
		unescape(mp);
		if (strlen(mp) >= len) {
			rc = -ENAMETOOLONG;
			break;
		}
		strcpy(mnt, mp);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* This process's v2 cgroup ("0::/path") into cg. */
static int own_cgroup(const char *root, char *cg, size_t len)
{
	char path[4096], line[4096];
	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int rc = -ENOENT;
	while (rc && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		if (strlen(line + 3) >= len) {
			rc = -ENAMETOOLONG;
			break;
		}
		strcpy(cg, line + 3);
		rc = 0;
	}
	fclose(f);
	return rc;
}

int cgmove_dir(const char *root, const char *name, char *dir, size_t len, char *why, size_t wlen)
{
	char mnt[4096], cg[4096];
	int err = cg2_mount(root, mnt, sizeof(mnt));
	if (err) {
		snprintf(why, wlen, err == -ENOENT ? "no cgroup2 file system is mounted (cgroup v2 is needed)"
						   : "cannot read %s/proc/self/mountinfo: %s", root, strerror(-err));
		return err;
	}
	if (name) {
		if (strstr(name, "..")) {
			snprintf(why, wlen, "cgroup '%s': a name under %s, without '..'", name, mnt);
			return -EINVAL;
		}
		snprintf(cg, sizeof(cg), "%s%s", name[0] == '/' ? "" : "/", name);
	} else if ((err = own_cgroup(root, cg, sizeof(cg)))) {
		snprintf(why, wlen, err == -ENOENT ? "latscope is in no cgroup v2 (%s/proc/self/cgroup has no 0:: line)"
						   : "cannot read %s/proc/self/cgroup: %s", root, strerror(-err));
		return err;
	}
	/* "/" is the root cgroup: the mount itself */
	int n = snprintf(dir, len, "%s%s%s", root, mnt, strcmp(cg, "/") ? cg : "");
	if (n < 0 || (size_t)n >= len) {
		snprintf(why, wlen, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, wlen, "no cgroup %s (%s)", name ? name : cg, dir);
		return -ENOENT;
	}
	return 0;
}

int cgmove_pid(const char *dir, pid_t pid)
{
	char path[4096], num[32];
	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int n = snprintf(num, sizeof(num), "%d\n", (int)pid);
	ssize_t w = write(fd, num, (size_t)n);
	int err = w == n ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return err;
}
