/* SPDX-License-Identifier: MIT */
/*
 * monotime.h - CLOCK_MONOTONIC in ns, for the test tools that time what they
 * inject (noisegen, bpfpoff, wakestorm): the clock latscope's live paths and
 * bpf_ktime_get_ns() read.
 */
#ifndef LATSCOPE_TEST_MONOTIME_H
#define LATSCOPE_TEST_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
