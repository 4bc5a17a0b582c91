/* SPDX-License-Identifier: MIT */
/* dtl_cmd.h - private to the `latscope dtl` subcommands (src/dtl/). */
#ifndef LATSCOPE_DTL_CMD_H
#define LATSCOPE_DTL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "engine/dtltl.h"
#include "format/pdread.h"

int dtl_cmd_dump(int argc, char **argv);
int dtl_cmd_script(int argc, char **argv);
int dtl_cmd_report(int argc, char **argv);
int dtl_cmd_record(int argc, char **argv);
int dtl_cmd_synth(int argc, char **argv);
int dtl_cmd_why(int argc, char **argv);

/* The command lines of the subcommands (static tables; nothing to free),
 * here for the unit test of their tables. */
extern const struct cli_cmd dtl_dump_cli, dtl_script_cli, dtl_report_cli, dtl_record_cli,
	dtl_synth_cli, dtl_why_cli;

/*
 * What dump, script and report read and how.  It is the FIRST member of
 * their option structs, so the shared table entries below and
 * dtl_cmd_window() reach it through the params pointer.  The strings point
 * into argv.
 */
struct dtl_cmd_in {
	const char *path;	/* -i FILE or the FILE operand */
	struct dtltl_opts to;	/* --reorder-window, --pipe-budget, --scan (script: more) */
	const char *kallsyms;	/* --kallsyms FILE or NULL */
	bool no_symbols;	/* --no-symbols */
	bool strict;		/* --strict */
};

/* --reorder-window auto|DURATION into ((struct dtl_cmd_in *)params)->to:
 * 0 or -EINVAL. */
int dtl_cmd_window(const char *arg, void *params);

#define DTL_CMD_INPUT CLI_INPUT(struct dtl_cmd_in, path, "the perf.data file ('-' = pipe on stdin)")
/* --pipe-budget, --reorder-window, --scan, --kallsyms (help: kallsyms_help),
 * --no-symbols, --strict */
#define DTL_CMD_READ_OPTS(kallsyms_help) \
	CLI_OPT("pipe-budget", 0, CLI_T_SIZE, struct dtl_cmd_in, to.budget_bytes, CLI_NONE, 1, 0, 1, "B", \
		"pipe mode: bytes of held records and AUX data (default\n" \
		"64M); beyond it the oldest print early (reported)", \
		"a size in bytes (suffixes K, M, G)"), \
	CLI_CUSTOM("reorder-window", 0, dtl_cmd_window, "D", "pipe mode: hold other records back this long so DTL\n" \
		   "buffers that arrive late still print in order (default\n" \
		   "auto: twice the vpa_dtl poll, growing with the delays\nseen; 0 = none)", \
		   "a duration (e.g. 2s, 500ms; 0 = none) or auto"), \
	CLI_OPT("scan", 0, CLI_T_FLAG, struct dtl_cmd_in, to.ignore_index, CLI_NONE, 0, 0, 0, NULL, \
		"find the AUX buffers by scanning the data section even\n" \
		"when the file's AUXTRACE index is good", NULL), \
	CLI_OPT("kallsyms", 0, CLI_T_STR, struct dtl_cmd_in, kallsyms, CLI_NONE, 0, 0, 0, "F", \
		kallsyms_help, NULL), \
	CLI_OPT("no-symbols", 0, CLI_T_FLAG, struct dtl_cmd_in, no_symbols, CLI_NONE, 0, 0, 0, NULL, \
		"leave srr0 unresolved", NULL), \
	CLI_OPT("strict", 0, CLI_T_FLAG, struct dtl_cmd_in, strict, CLI_NONE, 0, 0, 0, NULL, \
		"exit 1 when data was lost, dropped, late or skipped", NULL)

/* Parse argv by cmd into params (cli_parse()): -1 to go on, argv[*first..]
 * the operands; else the exit status after the usage on stdout (--help: 0)
 * or a one-line error on stderr (EXIT_ERR). */
int dtl_cmd_parse(const struct cli_cmd *cmd, int argc, char **argv, void *params, int *first);

/* The FILE operand into in->path unless -i gave it: 0, or EXIT_ERR after a
 * one-line error (no file, or an operand too many). */
int dtl_cmd_file(const struct cli_cmd *cmd, struct dtl_cmd_in *in, int argc, char **argv, int first);

struct ksym;
/* Load the symbols for srr0: from path (--kallsyms), else /proc/kallsyms
 * when the recording was made on this kernel, else none (*k = NULL); none
 * skips it all.  0, or EXIT_ERR after a message naming who. */
int dtl_cmd_syms(struct ksym **k, const struct pdread *r, const char *path, bool none, const char *who);

/* "name+0xoff ([kernel.kallsyms])" (with_dso) or "name+0xoff" for addr into
 * buf; "[unknown] ([unknown])" or "" when no symbol covers it (false). */
bool dtl_cmd_sym(const struct ksym *k, uint64_t addr, char *buf, size_t len, bool with_dso);

struct dtltl;
/* Warn about implausible timebase parameters (tb_freq out of range, entries
 * a day away from the records). */
void dtl_cmd_tb_warnings(const char *who, const char *path, const struct dtltl *t);

/* --strict: EXIT_THRESHOLD after a line saying what was lost, dropped, late
 * or skipped (t may be NULL), else 0. */
int dtl_cmd_verdict(const char *who, const struct dtltl *t, const struct pdread *r);

/* ev, when it is a PERF_RECORD_AUX of the vpa_dtl event: true when its poll
 * copied all the hypervisor's 85-entry ring lets through (entries were
 * overwritten before it).  seen[] (4096 CPUs, the caller's, zeroed at the
 * start) marks the CPUs whose first poll was seen (it holds the header). */
bool dtl_cmd_poll_filled_ring(const struct pdread *r, const struct pdread_event *ev, uint8_t seen[4096]);

/* Open a perf.data for reading, printing a helpful error; 0 or EXIT_ERR. */
/* no_map: read(2) into a window instead of a mapping (a single pass that
 * touches every byte: faster on VMs, and RSS does not follow the file). */
int dtl_cmd_open(struct pdread **r, const char *path, bool unordered, bool no_map, const char *who);

#endif
