/* SPDX-License-Identifier: MIT */
/* firecount.c - counting twins of sampled perf events (see firecount.h). */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "live/firecount.h"

int firecount_open(const struct perf_event_attr *sampled, int cpu, int group_fd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = sampled->type;
	a.config = sampled->config;
	a.config1 = sampled->config1;
	a.config2 = sampled->config2;
	a.exclude_user = sampled->exclude_user;
	a.exclude_kernel = sampled->exclude_kernel;
	a.exclude_hv = sampled->exclude_hv;
	a.use_clockid = sampled->use_clockid;	/* a group has one clock */
	a.clockid = sampled->clockid;
	a.disabled = group_fd < 0;	/* a member follows its leader */
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int firecount_read(int fd, uint64_t *count)
{
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof(v));

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	*count = v;
	return 0;
}
