/* SPDX-License-Identifier: MIT */
/* cmd_script.c - `latscope script`: placeholder until the reader lands. */
#include <stdio.h>
#include "commands.h"

int cmd_script(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "latscope script: not available in this build yet\n");
	return EXIT_ERR;
}
