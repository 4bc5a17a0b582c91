/* SPDX-License-Identifier: MIT */
/*
 * action.h - what a live run does when its stop threshold is hit
 * (--on-threshold) and when it ends (--on-end), as rtla's field-work options
 * have them; shared by `osnoise` and `hist record|top`.
 *
 * Prefix: action_.  src/ only: it runs commands and sends signals.
 *
 *   trace[,file=F]               keep the run's trace (a perf.data file; F, or
 *                                the -t/--trace file, or the command's default)
 *   signal,num=N,pid=P|parent    kill(P or the parent process, N)
 *   shell,command=CMD            /bin/sh -c CMD, waited for, with the event in
 *                                its environment (LATSCOPE_EVENT, LATSCOPE_CPU,
 *                                LATSCOPE_LATENCY_NS, LATSCOPE_THRESHOLD_NS,
 *                                LATSCOPE_TRACE_FILE, LATSCOPE_COMMAND)
 *   continue                     (--on-threshold only) go on measuring after
 *                                the actions instead of stopping
 *
 * file= and command= take the rest of the argument, commas included.  The
 * strings point into argv (nothing to free).  The parser is pure: the unit
 * test (tests/unit/test_action.c) calls it directly.
 */
#ifndef LATSCOPE_ACTION_H
#define LATSCOPE_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum action_kind { ACTION_TRACE, ACTION_SIGNAL, ACTION_SHELL, ACTION_CONTINUE };

struct action {
	enum action_kind kind;
	const char *file;	/* trace: file= (argv), NULL = the run's trace file */
	int signo;		/* signal: num= */
	int pid;		/* signal: pid= (> 0); 0 with parent */
	bool parent;		/* signal: pid=parent (the parent at the time of the event) */
	const char *command;	/* shell: command= (argv) */
};

#define ACTION_MAX 16

/* The actions of one option (--on-threshold or --on-end), in the order given. */
struct action_list {
	struct action a[ACTION_MAX];
	size_t n;
	bool cont;		/* a `continue` was given */
	bool trace;		/* a `trace` was given */
	const char *trace_file;	/* the file= of a trace action, NULL when none said one */
};

/*
 * action_parse - one ACTION (the argument of --on-threshold/--on-end) added
 * to l.  allow_continue: `continue` is accepted (--on-threshold).  Returns 0,
 * or -EINVAL with err (errlen bytes) holding one line without the option's
 * name, e.g. "signal needs num=N (1..64)"; -ENOSPC past ACTION_MAX.
 */
int action_parse(struct action_list *l, const char *arg, bool allow_continue, char *err,
		 size_t errlen);

/*
 * action_parse_option - action_parse() for the option --opt: on failure err
 * holds "--opt 'ARG': why" (the command's own line, without its name).
 */
int action_parse_option(struct action_list *l, const char *opt, const char *arg, bool allow_continue,
			char *err, size_t errlen);

/* What happened, for the actions and their environment. */
struct action_event {
	const char *what;		/* "threshold" or "end" */
	const char *command;		/* "osnoise", "hist" */
	int cpu;			/* -1: none */
	uint64_t latency_ns;		/* the sample that hit the threshold (0: none) */
	uint64_t threshold_ns;		/* 0: none */
	const char *trace_file;		/* the trace written, NULL when none */
};

/*
 * action_run - run l's actions for ev, in order; prog prefixes the
 * one-line message of an action that failed (on stderr; the run goes on).
 * A shell command's exit status is not an error of latscope's.  Returns the
 * number of actions that failed.
 */
int action_run(const struct action_list *l, const struct action_event *ev, const char *prog);

/* action_env - the environment variable i (0..) of ev as "NAME=value" into
 * buf; false past the last.  (What the shell action sets; for the tests.) */
bool action_env(const struct action_event *ev, size_t i, char *buf, size_t len);

#endif
