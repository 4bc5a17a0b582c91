/* SPDX-License-Identifier: MIT */
/*
 * privhint.h - why an unprivileged process cannot trace, and the one fix.
 *
 * Prefix: privhint_.
 *
 * Looks at the facts (effective uid, tracefs mount mode, perf_event_paranoid,
 * CAP_PERFMON/CAP_SYS_ADMIN/CAP_IPC_LOCK, RLIMIT_MEMLOCK) instead of guessing.
 * Writes into the caller's buffer; never prints.
 */
#ifndef LATSCOPE_PRIVHINT_H
#define LATSCOPE_PRIVHINT_H

#include <stddef.h>

/*
 * privhint_tracepoints - the cause and the fix for a failure to use tracepoints
 * system-wide (reading tracefs formats or perf_event_open of a tracepoint),
 * e.g. "tracefs (/sys/kernel/tracing) is mode 0700 owned by uid 0, unreadable
 * for uid 1000: run as root".  tracefs is the tracing directory (NULL: not
 * mounted).  Writes "" when nothing explains it (e.g. running as root).
 * Returns buf.
 */
char *privhint_tracepoints(char *buf, size_t len, const char *tracefs);

/*
 * privhint_mlock - the cause of an mlockall() failure with err (negative errno):
 * "RLIMIT_MEMLOCK is 8192 KiB and the process lacks CAP_IPC_LOCK: run as root
 * or raise it (ulimit -l unlimited)", or "" when that is not it.  Returns buf.
 */
char *privhint_mlock(char *buf, size_t len, int err);

/* privhint_has_cap - true when capability bit cap is in the effective set. */
int privhint_has_cap(int cap);

#endif
