/* SPDX-License-Identifier: MIT */
/* cmd_dtl_record.c - `latscope dtl record` (work in progress). */
#include <stdio.h>
#include "commands.h"
#include "dtl_cmd.h"

int dtl_cmd_record(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "latscope dtl record: not available in this build yet\n");
	return EXIT_ERR;
}
