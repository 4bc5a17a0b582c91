/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope dtl`: POWER Dispatch Trace Log from perf.data.
 * The entry (cmd_dtl), which hands over to the subcommands: dump (dump.c),
 * script (script.c), report (report.c, output.c), record (record.c), synth
 * (synth.c), why (why.c); what they share is in common.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmdio.h"
#include "commands.h"
#include "dtl_cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope dtl <subcommand> [options]\n"
"\n"
"POWER VPA Dispatch Trace Log: when the hypervisor took a vCPU away, why, and\n"
"for how long.\n"
"\n"
"  dump FILE        the DTL records as `perf report -D` shows them\n"
"  script FILE      one timeline of DTL entries and the other samples\n"
"  report FILE      per-CPU reasons, latency histograms, hypervisor time\n"
"  record -- CMD    record vpa_dtl + sched events on a shared-processor LPAR\n"
"  synth -o FILE    write a realistic synthetic recording (tests, demos)\n"
"  why FILE         the worst wakeup latencies split into who had the CPU,\n"
"                   the hypervisor included\n"
"\n"
"`latscope dtl <subcommand> --help` for its options; see latscope-dtl(1).\n");
}

int cmd_dtl(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERR;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(sub, "record"))
		cmdio_sigpipe_as_error();	/* a closed output is an error to report, not a kill */
	if (!strcmp(sub, "dump"))
		return dtl_cmd_dump(argc - 1, argv + 1);
	if (!strcmp(sub, "script"))
		return dtl_cmd_script(argc - 1, argv + 1);
	if (!strcmp(sub, "report"))
		return dtl_cmd_report(argc - 1, argv + 1);
	if (!strcmp(sub, "record"))
		return dtl_cmd_record(argc - 1, argv + 1);
	if (!strcmp(sub, "synth"))
		return dtl_cmd_synth(argc - 1, argv + 1);
	if (!strcmp(sub, "why"))
		return dtl_cmd_why(argc - 1, argv + 1);
	fprintf(stderr, "latscope dtl: no subcommand '%s'; try `latscope dtl --help`\n", sub);
	return EXIT_ERR;
}
