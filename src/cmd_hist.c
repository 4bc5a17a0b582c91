/* SPDX-License-Identifier: MIT */
/* cmd_hist.c - `latscope hist`: placeholder until the hist work lands. */
#include <stdio.h>
#include "commands.h"

int cmd_hist(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "latscope hist: not available in this build yet\n");
	return EXIT_ERR;
}
