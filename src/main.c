/* SPDX-License-Identifier: MIT */
/* main.c - latscope command dispatcher. */
#include <stdio.h>
#include <string.h>

#include "cmdio.h"
#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "script",  cmd_script,  "print the samples of a perf.data file, like perf script" },
	{ "dtl",     cmd_dtl,     "POWER Dispatch Trace Log: dump, script, report, record, synth" },
	{ "osnoise", cmd_osnoise, "measure OS noise per CPU and attribute every gap (top, hist, trace)" },
	{ "timerlat", cmd_timerlat, "timer IRQ and thread latency per CPU with the kernel's timerlat tracer" },
	{ "hist",    cmd_hist,    "latency histograms: wakeup, timer, irqsoff... (record, report, top)" },
	{ "monitor", cmd_monitor, "keep the histograms running and serve them to Prometheus (/metrics)" },
	{ "render",  cmd_render,  "draw a saved JSON report as HTML or a Markdown summary" },
	{ "html",    cmd_html,    "draw the HTML page (inline SVG) of a saved JSON report" },
	{ "completion", cmd_completion, "print the bash completion script: latscope completion bash" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: latscope <command> [options]\n\n"
		   "When your code was not running on its CPU: who took the CPU, and for how long?\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n", "help", "this text, or `latscope help <command>` for a command's options");
	fprintf(f, "\nOptions: -h/--help, -v/--version.  Each command takes --help; man latscope-<command>.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERR;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return cmdio_finish(stdout, "latscope", "standard output");
	}
	if (!strcmp(cmd, "-v") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("latscope %s\n", LATSCOPE_VERSION);
		return cmdio_finish(stdout, "latscope", "standard output");
	}
	if (!strcmp(cmd, "help")) {
		if (argc < 3) {
			usage(stdout);
			return cmdio_finish(stdout, "latscope", "standard output");
		}
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (!strcmp(argv[2], commands[i].name)) {
				char *hargv[] = { argv[2], (char *)"--help", NULL };
				int rc = commands[i].fn(2, hargv);
				return rc ? rc : cmdio_finish(stdout, "latscope", "standard output");
			}
		}
		fprintf(stderr, "latscope: no command '%s'; `latscope help` lists them\n", argv[2]);
		return EXIT_ERR;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name)) {
			int rc = commands[i].fn(argc - 1, argv + 1);
			if (cmdio_reader_left())
				cmdio_end_reader_left();	/* quietly, as perf */
			/* the last word on stdout for every command (help texts, and
			 * commands that do not check their own output yet): a write
			 * error is exit 2, never a silent 0 */
			if (rc != EXIT_ERR && cmdio_finish(stdout, "latscope", "standard output")) {
				if (cmdio_reader_left())
					cmdio_end_reader_left();
				return EXIT_ERR;
			}
			return rc;
		}
	fprintf(stderr, "latscope: no command '%s'; `latscope help` lists them\n", cmd);
	return EXIT_ERR;
}
