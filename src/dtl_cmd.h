/* SPDX-License-Identifier: MIT */
/* dtl_cmd.h - private to the `latscope dtl` subcommands (src/cmd_dtl*.c). */
#ifndef LATSCOPE_DTL_CMD_H
#define LATSCOPE_DTL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdread.h"

int dtl_cmd_dump(int argc, char **argv);
int dtl_cmd_script(int argc, char **argv);
int dtl_cmd_report(int argc, char **argv);
int dtl_cmd_record(int argc, char **argv);
int dtl_cmd_synth(int argc, char **argv);

struct ksym;
/* Load the symbols for srr0: from path (--kallsyms), else /proc/kallsyms
 * when the recording was made on this kernel, else none (*k = NULL); none
 * skips it all.  0, or EXIT_ERR after a message naming who. */
int dtl_cmd_syms(struct ksym **k, const struct pdr *r, const char *path, bool none, const char *who);

/* "name+0xoff ([kernel.kallsyms])" (with_dso) or "name+0xoff" for addr into
 * buf; "[unknown] ([unknown])" or "" when no symbol covers it (false). */
bool dtl_cmd_sym(const struct ksym *k, uint64_t addr, char *buf, size_t len, bool with_dso);

struct dtlt;
/* Warn about implausible timebase parameters (tb_freq out of range, entries
 * a day away from the records). */
void dtl_cmd_tb_warnings(const char *who, const char *path, const struct dtlt *t);

/* --strict: EXIT_THRESHOLD after a line saying what was lost, dropped, late
 * or skipped (t may be NULL), else 0. */
int dtl_cmd_verdict(const char *who, const struct dtlt *t, const struct pdr *r);

/* Open a perf.data for reading, printing a helpful error; 0 or EXIT_ERR. */
/* no_map: read(2) into a window instead of a mapping (a single pass that
 * touches every byte: faster on VMs, and RSS does not follow the file). */
int dtl_cmd_open(struct pdr **r, const char *path, bool unordered, bool no_map);

#endif
