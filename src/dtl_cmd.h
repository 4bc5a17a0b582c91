/* SPDX-License-Identifier: MIT */
/* dtl_cmd.h - private to the `latscope dtl` subcommands (src/cmd_dtl*.c). */
#ifndef LATSCOPE_DTL_CMD_H
#define LATSCOPE_DTL_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "pdread.h"

int dtl_cmd_dump(int argc, char **argv);
int dtl_cmd_script(int argc, char **argv);
int dtl_cmd_report(int argc, char **argv);
int dtl_cmd_record(int argc, char **argv);
int dtl_cmd_synth(int argc, char **argv);

/* True when evsel is the vpa_dtl event (name "vpa_dtl..." or its PMU type). */
bool dtl_cmd_is_dtl_evsel(const struct pdr *r, const struct pdr_evsel *e);

/* True when the file's AUX data is DTL (AUXTRACE_INFO type 7, or no info but
 * a vpa_dtl evsel). */
bool dtl_cmd_file_has_dtl(const struct pdr *r);

/* Open a perf.data for reading, printing a helpful error; 0 or EXIT_ERR. */
int dtl_cmd_open(struct pdr **r, const char *path, bool unordered);

#endif
