/* SPDX-License-Identifier: MIT */
/*
 * action.c - --on-threshold / --on-end actions: the parser (pure) and the
 * runner (kill(2), fork + /bin/sh -c).  See action.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "action.h"
#include "base/parse.h"

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static const struct {
	const char *name;
	int signo;
} sig_names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	{ "CONT", SIGCONT }, { "STOP", SIGSTOP },
};

/* num=: 1..64, or a name with or without SIG */
static int parse_signo(const char *s, int *out)
{
	uint64_t v;
	if (!parse_u64(s, 1, 64, &v)) {
		*out = (int)v;
		return 0;
	}
	if (starts(s, "SIG"))
		s += 3;
	for (size_t i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (!strcmp(s, sig_names[i].name)) {
			*out = sig_names[i].signo;
			return 0;
		}
	return -EINVAL;
}

/* signal's fields after "signal,": num=N and pid=P|parent, comma-separated */
static int parse_signal(struct action *a, const char *s, char *err, size_t errlen)
{
	bool have_num = false, have_pid = false;
	char field[64];

	while (*s) {
		size_t n = strcspn(s, ",");
		if (n >= sizeof(field)) {
			snprintf(err, errlen, "signal: field '%.20s...' is too long", s);
			return -EINVAL;
		}
		memcpy(field, s, n);
		field[n] = 0;
		s += n + (s[n] == ',');
		if (starts(field, "num=")) {
			if (parse_signo(field + 4, &a->signo) < 0) {
				snprintf(err, errlen, "signal: num='%s' is not a signal (1..64, or a name "
					 "such as USR1)", field + 4);
				return -EINVAL;
			}
			have_num = true;
		} else if (starts(field, "pid=")) {
			uint64_t v;
			if (!strcmp(field + 4, "parent")) {
				a->parent = true;
				a->pid = 0;
			} else if (!parse_u64(field + 4, 1, INT32_MAX, &v)) {
				a->pid = (int)v;
				a->parent = false;
			} else {
				snprintf(err, errlen, "signal: pid='%s' is not a process id (1..%d) nor "
					 "'parent'", field + 4, INT32_MAX);
				return -EINVAL;
			}
			have_pid = true;
		} else {
			snprintf(err, errlen, "signal: unknown field '%s' (num=N, pid=P|parent)", field);
			return -EINVAL;
		}
	}
	if (!have_num || !have_pid) {
		snprintf(err, errlen, "signal needs %s (signal,num=N,pid=P|parent)",
			 !have_num ? "num=N" : "pid=P or pid=parent");
		return -EINVAL;
	}
	return 0;
}

int action_parse(struct action_list *l, const char *arg, bool allow_continue, char *err,
		 size_t errlen)
{
	struct action a;

	memset(&a, 0, sizeof(a));
	if (l->n >= ACTION_MAX) {
		snprintf(err, errlen, "at most %d actions", ACTION_MAX);
		return -ENOSPC;
	}
	if (!strcmp(arg, "trace") || starts(arg, "trace,")) {
		a.kind = ACTION_TRACE;
		if (arg[5] == ',') {
			if (!starts(arg + 6, "file=") || !arg[11]) {
				snprintf(err, errlen, "trace takes file=F (trace,file=F), not '%s'", arg + 6);
				return -EINVAL;
			}
			a.file = arg + 11;
			if (l->trace_file && strcmp(l->trace_file, a.file)) {
				snprintf(err, errlen, "one trace file per run: '%s' and '%s'", l->trace_file,
					 a.file);
				return -EINVAL;
			}
			l->trace_file = a.file;
		}
		l->trace = true;
	} else if (starts(arg, "signal,")) {
		a.kind = ACTION_SIGNAL;
		if (parse_signal(&a, arg + 7, err, errlen) < 0)
			return -EINVAL;
	} else if (!strcmp(arg, "signal")) {
		snprintf(err, errlen, "signal needs num=N and pid=P|parent (signal,num=N,pid=P)");
		return -EINVAL;
	} else if (starts(arg, "shell,") || !strcmp(arg, "shell")) {
		a.kind = ACTION_SHELL;
		if (!starts(arg + 5, ",command=") || !arg[14]) {
			snprintf(err, errlen, "shell needs command=CMD (shell,command=CMD)");
			return -EINVAL;
		}
		a.command = arg + 14;
	} else if (!strcmp(arg, "continue")) {
		if (!allow_continue) {
			snprintf(err, errlen, "continue is an action of --on-threshold only");
			return -EINVAL;
		}
		a.kind = ACTION_CONTINUE;
		l->cont = true;
	} else {
		snprintf(err, errlen, "unknown action '%s' (trace[,file=F], signal,num=N,pid=P|parent, "
			 "shell,command=CMD%s)", arg, allow_continue ? ", continue" : "");
		return -EINVAL;
	}
	l->a[l->n++] = a;
	return 0;
}

bool action_env(const struct action_event *ev, size_t i, char *buf, size_t len)
{
	switch (i) {
	case 0:
		snprintf(buf, len, "LATSCOPE_EVENT=%s", ev->what ? ev->what : "");
		return true;
	case 1:
		snprintf(buf, len, "LATSCOPE_COMMAND=%s", ev->command ? ev->command : "");
		return true;
	case 2:
		if (ev->cpu >= 0)
			snprintf(buf, len, "LATSCOPE_CPU=%d", ev->cpu);
		else
			snprintf(buf, len, "LATSCOPE_CPU=");
		return true;
	case 3:
		snprintf(buf, len, "LATSCOPE_LATENCY_NS=%" PRIu64, ev->latency_ns);
		return true;
	case 4:
		snprintf(buf, len, "LATSCOPE_THRESHOLD_NS=%" PRIu64, ev->threshold_ns);
		return true;
	case 5:
		snprintf(buf, len, "LATSCOPE_TRACE_FILE=%s", ev->trace_file ? ev->trace_file : "");
		return true;
	default:
		return false;
	}
}

/* /bin/sh -c cmd with ev in the environment, its stdout on our stderr (our
 * stdout is the report); waited for.  0, or -errno of fork/wait. */
static int run_shell(const char *cmd, const struct action_event *ev, int *status)
{
	char env[6][4200];
	size_t n = 0;
	while (n < 6 && action_env(ev, n, env[n], sizeof(env[n])))
		n++;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		for (size_t i = 0; i < n; i++)
			putenv(env[i]);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int action_run(const struct action_list *l, const struct action_event *ev, const char *prog)
{
	int failed = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct action *a = &l->a[i];
		int err, st = 0;
		switch (a->kind) {
		case ACTION_SIGNAL: {
			pid_t to = a->parent ? getppid() : (pid_t)a->pid;
			if (kill(to, a->signo) < 0) {
				fprintf(stderr, "%s: --on-%s signal %d to %d: %s\n", prog, ev->what, a->signo,
					(int)to, strerror(errno));
				failed++;
			}
			break;
		}
		case ACTION_SHELL:
			err = run_shell(a->command, ev, &st);
			if (err < 0) {
				fprintf(stderr, "%s: --on-%s shell: %s\n", prog, ev->what, strerror(-err));
				failed++;
			} else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
				fprintf(stderr, "%s: --on-%s shell: '%s' exited 127 (command not found?)\n",
					prog, ev->what, a->command);
			}
			break;
		default:	/* trace: the command keeps its file; continue: the command's */
			break;
		}
	}
	return failed;
}

int action_parse_option(struct action_list *l, const char *opt, const char *arg, bool allow_continue,
			char *err, size_t errlen)
{
	char e[400];
	int rc = action_parse(l, arg, allow_continue, e, sizeof(e));
	if (rc < 0)
		snprintf(err, errlen, "--%s '%s': %s", opt, arg, e);
	return rc;
}
