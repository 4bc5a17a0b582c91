/* SPDX-License-Identifier: MIT */
/*
 * firecount.h - counting twins: for a sampled perf event, a non-sampling event
 * of the same tracepoint on the same CPU, in the same group, that counts
 * every time the tracepoint fired.
 *
 * Prefix: firecount_.
 *
 * Some kernels fire a tracepoint, count it, and never write its sample into
 * the ring, with no PERF_RECORD_LOST or THROTTLE record to say so (seen on
 * KVM guests with the haltpoll cpuidle driver, for events fired in an
 * interrupt taken on an idle CPU: docs/hist.md, "Samples the kernel never
 * delivers").  The samples read from a ring cannot show that; the twin's
 * count can: fired - delivered - lost is what the kernel dropped silently.
 * A twin in the sampled event's group is enabled and disabled with it in
 * one step, so both count over the same window; after the group is
 * disabled and the ring read to the end, the figure is exact.
 *
 *	int twin = firecount_open(&sampled_attr, cpu, leader_fd);
 *	... enable the group, run, disable it, drain the ring ...
 *	uint64_t fired;
 *	if (twin >= 0 && firecount_read(twin, &fired) == 0) ...
 *	close(twin);
 *
 * Never prints, never exits.
 */
#ifndef LATSCOPE_FIRECOUNT_H
#define LATSCOPE_FIRECOUNT_H

#include <stdint.h>

#include <linux/perf_event.h>

/*
 * firecount_open - open the counting twin of sampled (its type and config; no
 * sampling, no ring, no task records) on cpu in group_fd's group (-1: its
 * own group, opened disabled).  Returns the descriptor (close-on-exec; the
 * caller closes it) or a negative errno.
 */
int firecount_open(const struct perf_event_attr *sampled, int cpu, int group_fd);

/* firecount_read - the twin's count so far into *count.  0 or a negative errno. */
int firecount_read(int fd, uint64_t *count);

#endif
