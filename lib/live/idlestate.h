/* SPDX-License-Identifier: MIT */
/*
 * idlestate.h - the CPU idle states deeper than a limit disabled on some
 * CPUs for a run (rtla's --deepest-idle-state), through cpuidle's sysfs
 * files (cpuN/cpuidle/stateK/disable), and every one of them written back
 * at the end, or from a signal handler on an abort.
 *
 * Prefix: idlestate_.
 *
 * One limit at a time per process: the saved values are static, so that
 * idlestate_emergency_restore() (async-signal-safe: open, write, close)
 * needs no allocation.  Never prints.
 */
#ifndef LATSCOPE_IDLESTATE_H
#define LATSCOPE_IDLESTATE_H

#include <stddef.h>

#include "base/parse.h"

/* The most state files one limit saves (CPUs x states beyond the limit). */
#define IDLESTATE_MAX_FILES 4096

/*
 * idlestate_limit - on every CPU of cpus, disable each idle state whose
 * number is above deepest (-1: all of them; 0 keeps state0, the polling
 * one, usable), saving each file's value first.  root is the sysfs root
 * ("/sys"; tests: a directory laid out like it).  Returns the number of
 * states disabled (>= 0), or a negative errno with why (at most len bytes):
 * -ENOENT when a CPU has no cpuidle states (a VM without an idle driver:
 * nothing to limit), -EBUSY when a limit is in place already, -ENOSPC past
 * IDLESTATE_MAX_FILES; what was written before a failure is restored.
 */
int idlestate_limit(const char *root, const struct parse_cpuset *cpus, int deepest, char *why, size_t len);

/* idlestate_restore - every saved value written back, newest first; the
 * number that could not be (0: all back).  A second call does nothing. */
unsigned idlestate_restore(void);

/* idlestate_emergency_restore - the same from a signal handler that ends the
 * process (src/cmdio.h's cmdio_on_abort_call); async-signal-safe. */
void idlestate_emergency_restore(void);

#endif
