/* SPDX-License-Identifier: MIT */
/* cmd_dtl.c - `latscope dtl`: placeholder until the dtl work lands. */
#include <stdio.h>
#include "commands.h"

int cmd_dtl(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "latscope dtl: not available in this build yet\n");
	return EXIT_ERR;
}
