/* SPDX-License-Identifier: MIT */
/*
 * kthreads.c - the timerlat threads of a live run: the kernel's
 * "timerlat/N" threads found in /proc and given -P's policy or -C's cgroup;
 * with -u, latscope itself moved into -C's cgroup.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "live/cgmove.h"
#include "timerlat.h"

/* fn on each "timerlat/N" kernel thread of a measured CPU (what names it
 * for fn's lines: opt, "-P" or "-C"); the number done, or -1 after a line
 * (fn's, or none found). */
static int each_kthread(struct tl *c, const char *opt, int (*fn)(struct tl *c, int pid, unsigned cpu, void *arg),
			void *arg)
{
	DIR *d = opendir("/proc");
	if (!d) {
		fprintf(stderr, "%s: %s: cannot read /proc: %s\n", c->prog, opt, strerror(errno));
		return -1;
	}
	struct dirent *de;
	int done = 0;
	while ((de = readdir(d))) {
		char path[300], comm[64];
		int pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool got = fgets(comm, sizeof(comm), f) != NULL;
		fclose(f);
		unsigned cpu;
		char end;
		if (!got || sscanf(comm, "timerlat/%u%c", &cpu, &end) != 2 || end != '\n' ||
		    !parse_cpuset_has(&c->run.cpus, cpu))
			continue;
		if (fn(c, pid, cpu, arg) < 0) {
			done = -1;
			break;
		}
		done++;
	}
	closedir(d);
	if (!done) {
		fprintf(stderr, "%s: %s: no timerlat/N kernel thread found\n", c->prog, opt);
		done = -1;
	}
	return done;
}

static int prio_one(struct tl *c, int pid, unsigned cpu, void *arg)
{
	(void)arg;
	struct sched_param sp = { .sched_priority = c->opt.prio.policy == SCHED_OTHER ? 0 : c->opt.prio.prio };
	if (sched_setscheduler(pid, c->opt.prio.policy, &sp) < 0) {
		fprintf(stderr, "%s: -P: cannot set the policy of timerlat/%u (pid %d): %s\n", c->prog, cpu, pid,
			strerror(errno));
		return -1;
	}
	if (c->opt.prio.policy == SCHED_OTHER)
		setpriority(PRIO_PROCESS, (id_t)pid, c->opt.prio.prio);
	return 0;
}

/* Each "timerlat/N" kernel thread of a measured CPU set to -P's policy.
 * 0, or -1 after a line. */
int timerlat_kthreads_prio(struct tl *c)
{
	if (c->opt.prio.policy == CLI_SCHED_DEADLINE) {
		fprintf(stderr, "%s: -P d:...: the kernel's timerlat threads take no deadline policy from "
				"latscope; with -u latscope's own threads do\n", c->prog);
		return -1;
	}
	return each_kthread(c, "-P", prio_one, NULL) < 0 ? -1 : 0;
}

static int cgroup_one(struct tl *c, int pid, unsigned cpu, void *arg)
{
	const char *dir = arg;
	int e = cgmove_pid(dir, pid);
	if (e < 0) {
		fprintf(stderr, "%s: -C: cannot move timerlat/%u (pid %d) into %s: %s%s\n", c->prog, cpu, pid, dir,
			strerror(-e), e == -EINVAL ? " (the kernel keeps its CPU-bound threads out of cgroups: "
						     "-C works with -u, latscope's own threads)" : "");
		return -1;
	}
	return 0;
}

/* -C: the cgroup's directory into dir (0, or -1 after a line). */
static int cgroup_dir(struct tl *c, char *dir, size_t len)
{
	char why[512];
	if (cgmove_dir("", c->opt.cgroup_name, dir, len, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: -C: %s\n", c->prog, why);
		return -1;
	}
	return 0;
}

/* -C with the kernel's threads: each into the cgroup.  0, or -1 after a
 * line. */
int timerlat_kthreads_cgroup(struct tl *c)
{
	char dir[4096];
	if (cgroup_dir(c, dir, sizeof(dir)) < 0)
		return -1;
	return each_kthread(c, "-C", cgroup_one, dir) < 0 ? -1 : 0;
}

/* -C with -u: latscope (its measuring threads with it) into the cgroup for
 * the run, its own cgroup saved in back for the end of the run.  0, or -1
 * after a line. */
int timerlat_self_cgroup(struct tl *c, char *back, size_t len)
{
	char dir[4096], why[512];
	back[0] = 0;
	if (cgroup_dir(c, dir, sizeof(dir)) < 0)
		return -1;
	if (cgmove_dir("", NULL, back, len, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: -C: %s\n", c->prog, why);
		return -1;
	}
	if (!strcmp(dir, back)) {
		back[0] = 0;	/* there already */
		return 0;
	}
	int e = cgmove_pid(dir, getpid());
	if (e < 0) {
		fprintf(stderr, "%s: -C: cannot move latscope (pid %d) into %s: %s\n", c->prog, (int)getpid(), dir,
			strerror(-e));
		back[0] = 0;
		return -1;
	}
	return 0;
}
