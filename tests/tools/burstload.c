/* SPDX-License-Identifier: MIT */
/*
 * burstload - a bursty foreign load for the tests: spin SPIN_US, sleep
 * SLEEP_US, again, until killed or for SECONDS.
 *
 *   burstload [-s SPIN_US] [-i SLEEP_US] [-d SECONDS]
 *
 * Default: spin 2000 us, sleep 3000 us, forever, not pinned.  A spinner
 * keeps a CPU out of idle and hides the kernels that deliver no perf sample
 * of a tracepoint fired on an idle CPU; this load makes the CPUs enter and
 * leave idle hundreds of times a second, as real work does (docs/hist.md,
 * "Samples the kernel never delivers").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "monotime.h"

static unsigned long arg_num(const char *s, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "burstload: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long spin_us = 2000, sleep_us = 3000, secs = 0;
	int o;

	while ((o = getopt(argc, argv, "s:i:d:")) != -1) {
		switch (o) {
		case 's':
			spin_us = arg_num(optarg, "spin time");
			break;
		case 'i':
			sleep_us = arg_num(optarg, "sleep time");
			break;
		case 'd':
			secs = arg_num(optarg, "duration");
			break;
		default:
			fprintf(stderr, "usage: burstload [-s SPIN_US] [-i SLEEP_US] [-d SECONDS]\n");
			return 2;
		}
	}
	uint64_t end = secs ? now_ns() + (uint64_t)secs * 1000000000ULL : UINT64_MAX;
	struct timespec nap = { .tv_sec = (time_t)(sleep_us / 1000000),
				.tv_nsec = (long)(sleep_us % 1000000) * 1000 };
	for (;;) {
		uint64_t t = now_ns();
		if (t >= end)
			return 0;
		while (now_ns() - t < (uint64_t)spin_us * 1000)
			;
		if (sleep_us)
			nanosleep(&nap, NULL);
	}
}
