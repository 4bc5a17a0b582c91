/* SPDX-License-Identifier: MIT */
/*
 * cmdio.h - what every command needs around its output and its run:
 * checked writes (stdout and files), the stop signals, the broken-pipe stop.
 *
 * Prefix: cio_.  src/ only (it prints: one line on stderr per failure).
 *
 * The run of a live command:
 *	cio_signals_install();              // first thing: Ctrl-C during setup is seen
 *	... setup, checking cio_stopped() between steps ...
 *	while (!cio_stopped()) { ...; cio_watch(STDOUT_FILENO); }
 *	... restore the system ...
 *	return cio_finish(stdout, prog, "standard output") ?: rc;
 * The live commands run that loop through src/tool.h (tool_run()).
 */
#ifndef LATSCOPE_CMDIO_H
#define LATSCOPE_CMDIO_H

#include <stdbool.h>
#include <stdio.h>

struct so_file;

/*
 * cio_signals_install - SIGINT/SIGTERM set the stop flag; SIGPIPE sets the
 * stop flag and the broken-pipe flag instead of killing (writes then fail
 * with EPIPE; cio_finish() says "standard output was closed").
 * Idempotent; resets the flags.
 *
 * The abort: a second SIGINT/SIGTERM (or the first one while the program
 * already stops on its own, cio_stop(); a closed pipe does not count)
 * ends the process at once, killed by that signal: exit status 130 for
 * SIGINT, 143 for SIGTERM in a shell.  Before it dies it removes the
 * uncommitted temporary output files (so_unlink_temps()) and does the
 * cio_on_abort_write() writes; what the kernel drops with the process
 * (perf events, /dev/cpu_dma_latency, threads, mlock) needs nothing, and
 * a command's child processes must die with it (PR_SET_PDEATHSIG).
 */
void cio_signals_install(void);
/*
 * cio_on_abort_write - on an abort, write text to path (O_WRONLY|O_TRUNC,
 * one write) before the process ends: for a system setting the run changed
 * and restores at its normal end.  Both strings are copied (path <
 * PATH_MAX, text < 64 bytes, else -ENAMETOOLONG); at most 4 (-ENOSPC).
 * Returns 0 or a negative errno.  cio_on_abort_forget() drops them all
 * (call it once the normal restore is done).
 */
int cio_on_abort_write(const char *path, const char *text);
void cio_on_abort_forget(void);
/*
 * cio_pipe_closed - the closed-pipe line, once per run (cio_signals_install
 * resets it): "<prog>: standard output was closed (Broken pipe): stopped".
 */
void cio_pipe_closed(const char *prog);
/* True once a stop was asked for (signal, broken pipe, cio_stop()). */
bool cio_stopped(void);
/* cio_sigpipe_as_error - for commands that only print at the end (reports):
 * SIGPIPE is ignored, so a closed pipe is a write error (EPIPE) that
 * cio_finish() reports; Ctrl-C keeps its default action. */
void cio_sigpipe_as_error(void);
/* True when the stop came from SIGPIPE or cio_watch() saw the reader go. */
bool cio_broken_pipe(void);
/* Ask for a stop from the program itself. */
void cio_stop(void);
/* The signal that stopped the run (SIGINT, SIGTERM, SIGPIPE), 0 if none. */
int cio_stop_signal(void);

/*
 * cio_watch - when fd is a pipe or socket whose reader has gone (poll()
 * reports POLLERR/POLLHUP), set the stop and broken-pipe flags.  Cheap (a
 * zero-timeout poll); call it in a run's main loop for stdout.  Returns
 * cio_stopped().
 */
bool cio_watch(int fd);

/* cio_note_error - call right after a stdio write that failed (returned < 0
 * or short): keeps errno for cio_finish(), whose own fflush may not see it
 * again (a large write goes around the buffer). */
void cio_note_error(void);

/*
 * cio_finish - flush f and check its error flag.  On a failure prints
 * "<prog>: error writing <what>: <strerror>" once and returns 2 (EXIT_ERR);
 * else 0.  When f is stdout and the reader left during a live run (SIGPIPE
 * or cio_watch() seen), the failure is cio_pipe_closed()'s line instead.
 * Does not close f.
 */
int cio_finish(FILE *f, const char *prog, const char *what);

/*
 * cio_fopen_safe - create path for writing as a stream through lib/safeout
 * (temporary file renamed over the target by cio_fclose_safe()).  atfd as
 * for openat() (AT_FDCWD), force = --force, mode as for open().  On failure
 * prints "<prog>: cannot create <shown>: <reason>" (shown: the name to show,
 * NULL = path) and returns NULL.  *sf is
 * the caller's to pass to cio_fclose_safe().
 */
FILE *cio_fopen_safe(struct so_file **sf, int atfd, const char *path, const char *shown,
		     int mode, bool force, const char *prog);
/*
 * cio_fclose_safe - close f (from cio_fopen_safe) and, when every write
 * succeeded and !discard, put the file in place; else remove it (the target
 * keeps its old contents).  Prints "<prog>: error writing <path>: <reason>"
 * on failure.  Frees f and sf.  Returns 0 or 2 (EXIT_ERR).
 */
int cio_fclose_safe(FILE *f, struct so_file *sf, const char *path, bool discard, const char *prog);

struct pdr;
/*
 * cio_pdr_close - pdr_close(), after a warning on stderr when the recording
 * was not properly terminated (data size 0: read up to the end of the file,
 * as perf does) naming the bytes read and the incomplete tail left out.
 */
void cio_pdr_close(struct pdr *r, const char *prog, const char *path);

#endif
