/* SPDX-License-Identifier: MIT */
/*
 * cgmove.h - tasks moved into a cgroup (v2) for a run, as rtla's -C does:
 * the directory of a cgroup found from its name (under the cgroup2 mount
 * of /proc/self/mountinfo) or as this process's own (/proc/self/cgroup),
 * and a task written into its cgroup.procs.
 *
 * Prefix: cgmove_.  Never prints; the caller frees nothing (all buffers are
 * the caller's).
 */
#ifndef LATSCOPE_CGMOVE_H
#define LATSCOPE_CGMOVE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * cgmove_dir - the directory of the cgroup name into dir (at most len
 * bytes): name "x" or "/x" is <mount>/x, name NULL this process's own
 * cgroup.  root prefixes every path read ("" on a live system; tests: a
 * directory laid out like it).  Returns 0 or a negative errno with why (at
 * most wlen bytes): -ENOENT no cgroup2 mount, no such cgroup, or this
 * process in no v2 cgroup; -EINVAL a name with "..".
 */
int cgmove_dir(const char *root, const char *name, char *dir, size_t len, char *why, size_t wlen);

/* cgmove_pid - the task (or, for a thread-group leader, its whole process)
 * pid written into dir/cgroup.procs.  0 or a negative errno (the kernel's:
 * -EINVAL for a kernel thread bound to a CPU, which stays where it is). */
int cgmove_pid(const char *dir, pid_t pid);

#endif
