/* SPDX-License-Identifier: MIT */
/*
 * stopsigs - print the signals a live command must stop on cleanly, one
 * "NAME NUMBER" line each, for tests/e2e/clean_stop.sh: every signal whose
 * default action ends the process (with or without a core, signal(7)) and
 * that a program may catch, the real-time ones SIGRTMIN..SIGRTMAX as the C
 * library numbers them (it keeps the first ones for itself).  The numbers
 * differ between architectures; the shell's kill knows not every name.
 * This list is the tests' own, written from signal(7), not latscope's.
 */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	static const struct { const char *name; int sig; } s[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
		{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE },
		{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE },
		{ "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "STKFLT", SIGSTKFLT }, { "XCPU", SIGXCPU },
		{ "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "IO", SIGIO },
		{ "PWR", SIGPWR }, { "SYS", SIGSYS },
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		printf("%s %d\n", s[i].name, s[i].sig);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		printf("RTMIN+%d %d\n", sig - SIGRTMIN, sig);
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
