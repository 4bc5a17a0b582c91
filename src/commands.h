/* SPDX-License-Identifier: MIT */
/* commands.h - the subcommands of the latscope binary (src/ is the only place that prints). */
#ifndef LATSCOPE_COMMANDS_H
#define LATSCOPE_COMMANDS_H

/* Each returns the process exit status: 0 ok, 1 "a threshold was hit" where
 * a command defines that, 2 error (bad input, bad file, failure). */
int cmd_script(int argc, char **argv);
int cmd_dtl(int argc, char **argv);
int cmd_osnoise(int argc, char **argv);
int cmd_timerlat(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_html(int argc, char **argv);

struct cli_cmd;
extern const struct cli_cmd render_cli;	/* src/cmd_render.c: its option table */
extern const struct cli_cmd html_cli;	/* src/cmd_render.c: its option table */
int cmd_completion(int argc, char **argv);	/* src/completion.c */

#define EXIT_THRESHOLD 1
#define EXIT_ERR 2

#endif
