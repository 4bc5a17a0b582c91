/* SPDX-License-Identifier: MIT */
/* privhint.c - why an unprivileged process cannot trace (see privhint.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/privhint.h"

#define PRIVHINT_CAP_IPC_LOCK 14
#define PRIVHINT_CAP_SYS_ADMIN 21
#define PRIVHINT_CAP_PERFMON 38

int privhint_has_cap(int cap)
{
	char line[256];
	unsigned long long eff = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = 1;
			break;
		}
	fclose(f);
	return found && cap >= 0 && cap < 64 && (eff >> cap) & 1;
}

static int paranoid(void)
{
	int v = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

char *privhint_tracepoints(char *buf, size_t len, const char *tracefs)
{
	struct stat st;
	if (!len)
		return buf;
	buf[0] = 0;
	if (geteuid() == 0)
		return buf;
	if (!tracefs) {
		snprintf(buf, len, "tracefs is not mounted, and only root can mount it: run as root");
		return buf;
	}
	if (access(tracefs, R_OK | X_OK) < 0) {
		if (stat(tracefs, &st) == 0)
			snprintf(buf, len, "tracefs (%s) is mode %04o owned by uid %u, so uid %u cannot "
				 "read the tracepoint formats: run as root", tracefs,
				 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
		else
			snprintf(buf, len, "tracefs (%s) is not accessible to uid %u (%s): run as root",
				 tracefs, (unsigned)geteuid(), strerror(errno));
		return buf;
	}
	int p = paranoid();
	if (p > -1 && !privhint_has_cap(PRIVHINT_CAP_PERFMON) && !privhint_has_cap(PRIVHINT_CAP_SYS_ADMIN))
		snprintf(buf, len, "kernel.perf_event_paranoid is %d and the process has neither "
			 "CAP_PERFMON nor CAP_SYS_ADMIN; system-wide tracepoints need -1: "
			 "sysctl kernel.perf_event_paranoid=-1 (or run as root)", p);
	return buf;
}

char *privhint_mlock(char *buf, size_t len, int err)
{
	struct rlimit rl;
	if (!len)
		return buf;
	buf[0] = 0;
	if (err != -ENOMEM && err != -EPERM)
		return buf;
	if (privhint_has_cap(PRIVHINT_CAP_IPC_LOCK) || getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return buf;
	snprintf(buf, len, "RLIMIT_MEMLOCK is %llu KiB and the process lacks CAP_IPC_LOCK: "
		 "ulimit -l unlimited (or run as root)", (unsigned long long)rl.rlim_cur / 1024);
	return buf;
}
