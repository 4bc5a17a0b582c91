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
#include <sys/types.h>

struct safeout_file;

/*
 * The stop signals: every signal whose default action ends the process and
 * that a program may catch (signal(7)): SIGHUP, SIGINT, SIGQUIT, SIGILL,
 * SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE,
 * SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
 * SIGIO, SIGPWR, SIGSYS and SIGRTMIN..SIGRTMAX (signals 32 and 33 are
 * glibc's own: sigaction() refuses them, and SIGRTMIN is above them).
 * cmdio_is_stop_signal() says which.  Nothing in latscope or its libraries
 * uses one of them for anything else, but the request signal a command
 * names (cmdio_request_signal(): the monitor's SIGHUP).
 *
 * cmdio_signals_install - from then on a stop signal does what SIGINT does:
 *
 *  - sent by another process (kill, the terminal's Ctrl-C or Ctrl-\, a
 *    hangup, a CPU limit), or raised by no fault of ours: the stop.  It
 *    sets the stop flag (cmdio_stopped()); the run ends, prints its
 *    summary, restores the system and exits as after SIGINT (status 0 for
 *    a run that went well).  This holds for the fault signals too when
 *    another process sends them (kill -SEGV: si_code SI_USER, SI_QUEUE,
 *    SI_TKILL with a pid not ours).
 *  - SIGPIPE raised by our own write (the reader of our output left): the
 *    broken-pipe stop: the stop and broken-pipe flags, writes then fail
 *    with EPIPE, the run ends quietly (cmdio_reader_left() below).
 *    SIGXFSZ raised by our own write (a file over RLIMIT_FSIZE): the stop;
 *    the write fails (EFBIG) and says so.
 *  - a real fault of this process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
 *    SIGSYS from the kernel, SIGABRT from abort()): returning would run
 *    the faulting instruction again, so the abort below at once.
 *
 * The abort: a second stop request (any stop signal from another process,
 * not necessarily the same as the first), or the first one while the
 * program already stops on its own (cmdio_stop(); a closed pipe does not
 * count), ends the process at once, killed by that signal as its default
 * action would (exit status 128 + the signal's number in a shell: 130 for
 * SIGINT, 143 for SIGTERM; a core where the default dumps one).  SIGPIPE
 * and SIGXFSZ raised by our own writes never abort.  Before it dies it
 * removes the uncommitted temporary output files (safeout_unlink_temps())
 * and does the cmdio_on_abort_write() writes and cmdio_on_abort_call()
 * calls (async-signal-safe only); what the kernel drops with the process
 * (perf events, /dev/cpu_dma_latency, threads, their priorities and
 * affinity, mlock) needs nothing, and a command's child processes must
 * die with it (PR_SET_PDEATHSIG).
 *
 * A signal latscope was started with ignored stays ignored (nohup's SIGHUP,
 * a `trap '' USR1`), except SIGINT and SIGQUIT (a shell starts `cmd &` with
 * them ignored, and a script stops its background run with them), SIGTERM,
 * SIGPIPE and the faults, which are always taken.
 *
 * Threads: the handler only sets flags, so any thread may take the
 * signal; the main loop sees the flag after its current wait (at most
 * tool_loop.wait_ms).  Helper threads block the asynchronous signals
 * (lib/base/workthread.h), so a stop signal normally lands on the main thread
 * and ends its wait at once.  No SA_RESTART: a stop ends a blocking
 * write or wait (EINTR).
 *
 * Idempotent; resets the flags.  Call it first, before any thread exists.
 */
void cmdio_signals_install(void);
/* cmdio_is_stop_signal - true for the stop signals above. */
bool cmdio_is_stop_signal(int sig);

/*
 * cmdio_request_signal - after cmdio_signals_install(): from then on sig
 * (not a fault signal; SIGHUP for the monitor, latency_hist's `reset`)
 * is a request, not a stop; cmdio_take_request() returns true once for one
 * or more of them taken since its last call.  cmdio_signals_install()
 * forgets it.
 */
void cmdio_request_signal(int sig);
bool cmdio_take_request(void);
/*
 * cmdio_fork - fork() for a child that runs another program (dtl record --
 * COMMAND): the child starts with the signal dispositions and the signal
 * mask latscope was started with, not latscope's (no handler of ours ever
 * runs in it, exec or not).  Returns as fork() does.
 */
pid_t cmdio_fork(void);
/*
 * cmdio_on_abort_write - on an abort, write text to path (O_WRONLY|O_TRUNC,
 * one write) before the process ends: for a system setting the run changed
 * and restores at its normal end.  Both strings are copied (path <
 * PATH_MAX, text < 64 bytes, else -ENAMETOOLONG); at most 4 (-ENOSPC).
 * Returns 0 or a negative errno.
 */
int cmdio_on_abort_write(const char *path, const char *text);
/*
 * cmdio_on_abort_call - on an abort, call fn (async-signal-safe, any thread,
 * possibly in the middle of the code it undoes; e.g.
 * osnkernel_emergency_restore) before the process ends; at most 4
 * (-ENOSPC).  Returns 0 or a negative errno.
 */
int cmdio_on_abort_call(void (*fn)(void));
/* cmdio_on_abort_forget - drop every abort write and call (once the normal
 * restore is done). */
void cmdio_on_abort_forget(void);
/*
 * The reader of standard output left (`latscope script | head -1`): the run
 * ends quietly, as perf and coreutils do.  The command stops, restores the
 * system and commits its output files as after Ctrl-C, prints no report and
 * no message about the pipe (losses it counted are still named), and main()
 * then ends the process by SIGPIPE's default action (status 141 in a shell).
 *
 * cmdio_stdout_gone - err (a positive errno from a write to stdout, or 0)
 * says the reader left, or a live run saw it go: remember it and return
 * true; else false (a real write error, for the caller to report).
 * cmdio_reader_left - true once that said so, or once a live run saw its
 * reader go (cmdio_broken_pipe()).  cmdio_signals_install() forgets both.
 * cmdio_end_reader_left - end the process by SIGPIPE (never returns).
 */
bool cmdio_stdout_gone(int err);
bool cmdio_reader_left(void);
_Noreturn void cmdio_end_reader_left(void);
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
/* The signal that stopped the run (a stop signal), 0 if none. */
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
 * else 0.  When f is stdout and its reader left (EPIPE, SIGPIPE or
 * cmdio_watch() seen) it prints nothing, remembers it (cmdio_reader_left())
 * and returns 2.
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
struct pdread_opts;
/*
 * cmdio_pdr_open - pdread_open(); on failure prints "<prog>: <file>: <why>"
 * once (pdread's message, which names the file and the offset), leaves *r
 * NULL and returns the negative errno; else 0 with *r the caller's to close
 * (cmdio_pdr_close()).
 */
int cmdio_pdr_open(struct pdread **r, const char *path, const struct pdread_opts *o, const char *prog);
/*
 * cmdio_pdr_close - pdread_close(), after a warning on stderr when the recording
 * was not properly terminated (data size 0: read up to the end of the file,
 * as perf does) naming the bytes read and the incomplete tail left out.
 */
void cmdio_pdr_close(struct pdread *r, const char *prog, const char *path);

#endif
