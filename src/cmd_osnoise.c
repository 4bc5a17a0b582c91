/* SPDX-License-Identifier: MIT */
/* cmd_osnoise.c - `latscope osnoise`: placeholder until the osnoise work lands. */
#include <stdio.h>
#include "commands.h"

int cmd_osnoise(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "latscope osnoise: not available in this build yet\n");
	return EXIT_ERR;
}
