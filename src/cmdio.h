/* SPDX-License-Identifier: MIT */
/*
 * cmdio.h - what every command needs around its output and its run:
 * checked writes (stdout and files), the stop signals, the broken-pipe stop.
 *
 * Prefix: cmdio_.  src/ only (it prints: one line on stderr per failure).
 *
 * The run of a live command:
 *	cmdio_signals_install();              // first thing: Ctrl-C during setup is seen
 *	... setup, checking cmdio_stopped() between steps ...
 *	while (!cmdio_stopped()) { ...; cmdio_watch(STDOUT_FILENO); }
 *	... restore the system ...
 *	return cmdio_finish(stdout, prog, "standard output") ?: rc;
 * The live commands run that loop through src/tool.h (tool_run()).
 */
#ifndef LATSCOPE_CMDIO_H
#define LATSCOPE_CMDIO_H

#include <stdbool.h>
#include <stdio.h>

struct safeout_file;

/*
 * cmdio_signals_install - SIGINT/SIGTERM set the stop flag; SIGPIPE sets the
 * stop flag and the broken-pipe flag instead of killing (writes then fail
 * with EPIPE; cmdio_finish() says "standard output was closed").
 * Idempotent; resets the flags.
 *
 * The abort: a second SIGINT/SIGTERM (or the first one while the program
 * already stops on its own, cmdio_stop(); a closed pipe does not count)
 * ends the process at once, killed by that signal: exit status 130 for
 * SIGINT, 143 for SIGTERM in a shell.  Before it dies it removes the
 * uncommitted temporary output files (safeout_unlink_temps()) and does the
 * cmdio_on_abort_write() writes; what the kernel drops with the process
 * (perf events, /dev/cpu_dma_latency, threads, mlock) needs nothing, and
 * a command's child processes must die with it (PR_SET_PDEATHSIG).
 */
void cmdio_signals_install(void);
/*
 * cmdio_on_abort_write - on an abort, write text to path (O_WRONLY|O_TRUNC,
 * one write) before the process ends: for a system setting the run changed
 * and restores at its normal end.  Both strings are copied (path <
 * PATH_MAX, text < 64 bytes, else -ENAMETOOLONG); at most 4 (-ENOSPC).
 * Returns 0 or a negative errno.  cmdio_on_abort_forget() drops them all
 * (call it once the normal restore is done).
 */
int cmdio_on_abort_write(const char *path, const char *text);
void cmdio_on_abort_forget(void);
/*
 * cmdio_pipe_closed - the closed-pipe line, once per run (cmdio_signals_install
 * resets it): "<prog>: standard output was closed (Broken pipe): stopped".
 */
void cmdio_pipe_closed(const char *prog);
/* True once a stop was asked for (signal, broken pipe, cmdio_stop()). */
bool cmdio_stopped(void);
/* cmdio_sigpipe_as_error - for commands that only print at the end (reports):
 * SIGPIPE is ignored, so a closed pipe is a write error (EPIPE) that
 * cmdio_finish() reports; Ctrl-C keeps its default action. */
void cmdio_sigpipe_as_error(void);
/* True when the stop came from SIGPIPE or cmdio_watch() saw the reader go. */
bool cmdio_broken_pipe(void);
/* Ask for a stop from the program itself. */
void cmdio_stop(void);
/* The signal that stopped the run (SIGINT, SIGTERM, SIGPIPE), 0 if none. */
int cmdio_stop_signal(void);

/*
 * cmdio_watch - when fd is a pipe or socket whose reader has gone (poll()
 * reports POLLERR/POLLHUP), set the stop and broken-pipe flags.  Cheap (a
 * zero-timeout poll); call it in a run's main loop for stdout.  Returns
 * cmdio_stopped().
 */
bool cmdio_watch(int fd);

/* cmdio_note_error - call right after a stdio write that failed (returned < 0
 * or short): keeps errno for cmdio_finish(), whose own fflush may not see it
 * again (a large write goes around the buffer). */
void cmdio_note_error(void);

/*
 * cmdio_finish - flush f and check its error flag.  On a failure prints
 * "<prog>: error writing <what>: <strerror>" once and returns 2 (EXIT_ERR);
 * else 0.  When f is stdout and the reader left during a live run (SIGPIPE
 * or cmdio_watch() seen), the failure is cmdio_pipe_closed()'s line instead.
 * Does not close f.
 */
int cmdio_finish(FILE *f, const char *prog, const char *what);

/*
 * cmdio_fopen_safe - create path for writing as a stream through lib/safeout
 * (temporary file renamed over the target by cmdio_fclose_safe()).  atfd as
 * for openat() (AT_FDCWD), force = --force; a new file is 0600 (safeout.h's
 * one rule).  On failure prints "<prog>: cannot create <shown>: <reason>"
 * (shown: the name to show, NULL = path) and returns NULL.  *sf is the
 * caller's to pass to cmdio_fclose_safe().
 */
FILE *cmdio_fopen_safe(struct safeout_file **sf, int atfd, const char *path, const char *shown,
		       bool force, const char *prog);
/*
 * cmdio_fclose_safe - close f (from cmdio_fopen_safe) and, when every write
 * succeeded and !discard, put the file in place; else remove it (the target
 * keeps its old contents).  Prints "<prog>: error writing <path>: <reason>"
 * on failure.  Frees f and sf.  Returns 0 or 2 (EXIT_ERR).
 */
int cmdio_fclose_safe(FILE *f, struct safeout_file *sf, const char *path, bool discard, const char *prog);

struct pdread;
/*
 * cmdio_pdr_close - pdread_close(), after a warning on stderr when the recording
 * was not properly terminated (data size 0: read up to the end of the file,
 * as perf does) naming the bytes read and the incomplete tail left out.
 */
void cmdio_pdr_close(struct pdread *r, const char *prog, const char *path);

#endif
