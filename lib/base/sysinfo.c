/* SPDX-License-Identifier: MIT */
/* sysinfo.c - online CPUs, steal time, VM and PREEMPT_RT detection (see sysinfo.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "base/sysinfo.h"

int sysinfo_online_cpus(struct parse_cpuset *s)
{
	char buf[1024];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			fclose(f);
			if (!parse_cpulist(buf, s))
				return 0;
		} else {
			fclose(f);
		}
	}
	memset(s, 0, sizeof(*s));
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	for (long i = 0; i < n && i < PARSE_MAX_CPUS; i++)
		parse_cpuset_add(s, (unsigned)i);
	return n > 0 ? 0 : -ENODEV;
}

void sysinfo_steal(uint64_t *out, const unsigned *list, size_t nr)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	for (size_t i = 0; i < nr; i++)
		out[i] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned cpu;
		unsigned long long v[8];
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		for (size_t i = 0; i < nr; i++)
			if (list[i] == cpu)
				out[i] = v[7];
	}
	fclose(f);
}

const char *sysinfo_vm_name(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool hv = false;
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5)) {
				hv = strstr(line, " hypervisor") != NULL;
				break;
			}
		fclose(f);
	}
	if (!hv)
		return NULL;
	snprintf(buf, len, "hypervisor");
	f = fopen("/sys/class/dmi/id/sys_vendor", "r");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	return buf;
}

bool sysinfo_version_rt(const char *version)
{
	static const char word[] = "PREEMPT_RT";
	const size_t n = sizeof(word) - 1;

	for (const char *p = version; p && (p = strstr(p, word)); p += n)
		if ((p == version || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

bool sysinfo_preempt_rt(void)
{
	FILE *f = fopen("/sys/kernel/realtime", "re");
	struct utsname u;
	if (f) {
		int c = fgetc(f);
		fclose(f);
		return c == '1';
	}
	return uname(&u) == 0 && sysinfo_version_rt(u.version);
}
