/* SPDX-License-Identifier: MIT */
/* script_cmd.h - private to `latscope script` (src/cmd_script.c): its option
 * table and parser, here for the unit test of the table. */
#ifndef LATSCOPE_SCRIPT_CMD_H
#define LATSCOPE_SCRIPT_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "base/parse.h"
#include "print/pdprint.h"
#include "format/pdread.h"

#define SCRIPT_MAX_IDS 64

struct script_idlist {
	int n;
	int32_t v[SCRIPT_MAX_IDS];
};

/* What the command line asks for; the strings point into argv. */
struct script_params {
	const char *input;		/* -i, default "perf.data"; "-" = stdin */
	struct pdprint_opts po;		/* --ns, -F, --kallsyms */
	struct pdread_opts ro;		/* --unordered */
	struct parse_cpuset cpus;		/* -C/--cpu/--cpus, when cpu_filter */
	bool cpu_filter, json, quiet, strict, verbose;
	bool force;			/* --force: for --json=FILE */
	const char *json_file;		/* --json=FILE (argv): text on stdout, JSON there */
	uint64_t jobs;			/* -j: accepted (1 or 2), not used: one thread */
	struct script_idlist pids, tids;	/* --pid, --tid (n 0: all) */
	uint64_t t0, t1;		/* --time, perf time in ns (default 0, UINT64_MAX) */
};

/* The command line of `latscope script` (a static table; nothing to free). */
extern const struct cli_cmd script_cli;

/*
 * script_parse - the defaults into *p, then argv parsed by script_cli.
 * Returns -1 to go on, else the exit status (0 after --help, which went to
 * stdout; 2 after one line on stderr).
 */
int script_parse(struct script_params *p, int argc, char **argv);

#endif
