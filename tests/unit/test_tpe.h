/* SPDX-License-Identifier: MIT */
/* test_tpe.h - typed sched_switch events for the unit tests that feed
 * trackers and engines (tt_ prefix). */
#ifndef LATSCOPE_TEST_TPE_H
#define LATSCOPE_TEST_TPE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "format/tpevent.h"

/* name, or "task<pid>" when name is NULL. */
static inline void tt_comm(char *comm, size_t len, int pid, const char *name)
{
	if (name)
		snprintf(comm, len, "%s", name);
	else
		snprintf(comm, len, "task%d", pid);
}

/* A sched_switch from prev to next at t on cpu; comms NULL: "task<pid>". */
static inline void tt_switch(struct tpevent *e, uint64_t t, uint32_t cpu, int prev, int pprio,
			     const char *pc, int next, int nprio, const char *nc)
{
	memset(e, 0, sizeof(*e));
	e->kind = TPEVENT_SCHED_SWITCH;
	e->time_ns = t;
	e->cpu = cpu;
	e->sw.prev_pid = prev;
	e->sw.prev_prio = pprio;
	tt_comm(e->sw.prev_comm, sizeof(e->sw.prev_comm), prev, pc);
	e->sw.next_pid = next;
	e->sw.next_prio = nprio;
	tt_comm(e->sw.next_comm, sizeof(e->sw.next_comm), next, nc);
}

#endif
