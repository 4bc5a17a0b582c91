/* SPDX-License-Identifier: MIT */
/*
 * completion.c - `latscope completion bash`: the bash completion script,
 * made from the commands' option tables (src/cli.h), so a new option is
 * completed as soon as its table has it.  `make` writes it to
 * build/latscope.bash and `make install` installs it as
 * share/bash-completion/completions/latscope.
 *
 * What it completes: the commands, their subcommands, every option with a
 * help line (long and short; the hidden aliases are not offered, but their
 * values are completed), file names after the options whose argument is a
 * FILE (F), directories after DIR, the fixed values of the options whose
 * table lists them (cli_opt.choices: --backend perf|bpf|kernel|auto...),
 * and file names for the operands of the commands that take some.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmdio.h"
#include "commands.h"
#include "dtl/dtl_cmd.h"
#include "hist/hist.h"
#include "monitor/monitor.h"
#include "osnoise/osnoise.h"
#include "script_cmd.h"
#include "timerlat/timerlat.h"

/* Every command line latscope parses with a table: the words before the
 * options ("hist record"), the shell variable suffix, the table. */
static const struct {
	const char *words;
	const char *var;
	const struct cli_cmd *cli;
} paths[] = {
	{ "script", "script", &script_cli },
	{ "dtl dump", "dtl_dump", &dtl_dump_cli },
	{ "dtl script", "dtl_script", &dtl_script_cli },
	{ "dtl report", "dtl_report", &dtl_report_cli },
	{ "dtl record", "dtl_record", &dtl_record_cli },
	{ "dtl synth", "dtl_synth", &dtl_synth_cli },
	{ "dtl why", "dtl_why", &dtl_why_cli },
	/* one table for every mode; `latscope osnoise -c 1` is top */
	{ "osnoise", "osnoise", &osnoise_cli },
	{ "osnoise top", "osnoise", &osnoise_cli },
	{ "osnoise hist", "osnoise", &osnoise_cli },
	{ "osnoise trace", "osnoise", &osnoise_cli },
	{ "osnoise record", "osnoise", &osnoise_cli },
	{ "timerlat", "timerlat", &timerlat_cli },
	{ "timerlat top", "timerlat", &timerlat_cli },
	{ "timerlat hist", "timerlat", &timerlat_cli },
	{ "timerlat trace", "timerlat", &timerlat_cli },
	{ "hist report", "hist_report", &hist_report_cli },
	{ "hist record", "hist_record", &hist_record_cli },
	{ "hist top", "hist_top", &hist_top_cli },
	{ "monitor", "monitor", &monitor_cli },
	{ "render", "render", &render_cli },
	{ "html", "html", &html_cli },
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

/* the commands and the subcommands of each (src/main.c, the dispatchers) */
static const char commands[] = "script dtl osnoise timerlat hist monitor render html help completion";
static const char *const subcommands[][2] = {
	{ "dtl", "dump script report record synth why" },
	{ "osnoise", "top hist trace record" },
	{ "timerlat", "top hist trace" },
	{ "hist", "report record top" },
};

static bool is_file_arg(const char *arg)
{
	return arg && (!strcmp(arg, "FILE") || !strcmp(arg, "F"));
}

/* what a value of o is: 'f' file, 'd' directory, 'c' one of o->choices, 0 any */
static char value_kind(const struct cli_opt *o)
{
	if (o->choices)
		return 'c';
	if (is_file_arg(o->arg))
		return 'f';
	if (o->arg && !strcmp(o->arg, "DIR"))
		return 'd';
	return 0;
}

static bool takes_value(const struct cli_opt *o)
{
	return o->type != CLI_T_FLAG && o->type != CLI_T_SETINT;
}

/* one variable: the options of cli with pred, long and short spellings */
static void opt_var(const char *prefix, const char *var, const struct cli_cmd *cli,
		    int (*pred)(const struct cli_opt *))
{
	printf("_latscope_%s_%s='", prefix, var);
	const char *sep = "";
	for (const struct cli_opt *o = cli->opts; o->name; o++) {
		if (!pred(o))
			continue;
		printf("%s--%s", sep, o->name);
		sep = " ";
		if (o->key)
			printf(" -%c", o->key);
	}
	printf("'\n");
}

/* offered after "-": every option with a help line, and -h --help */
static int pred_offer(const struct cli_opt *o) { return o->help != NULL; }
/* the next word is its value: required values (hidden aliases too) */
static int pred_arg(const struct cli_opt *o) { return takes_value(o) && !o->optional; }
static int pred_file(const struct cli_opt *o) { return value_kind(o) == 'f'; }
static int pred_dir(const struct cli_opt *o) { return value_kind(o) == 'd'; }

/* The heading, then per option table (once for the modes that share one) its
 * variables: _latscope_o_VAR (offered), _a_ (take a value), _f_ (files),
 * _d_ (directories), _n_ (1: takes operands). */
static void print_option_vars(void)
{
	printf("# bash completion for latscope %s, made by `latscope completion bash`\n"
	       "# from the commands' option tables.  SPDX-License-Identifier: MIT\n\n",
	       LATSCOPE_VERSION);
	for (size_t i = 0; i < NPATHS; i++) {
		if (i && !strcmp(paths[i].var, paths[i - 1].var))
			continue;
		const struct cli_cmd *c = paths[i].cli;
		opt_var("o", paths[i].var, c, pred_offer);
		opt_var("a", paths[i].var, c, pred_arg);
		opt_var("f", paths[i].var, c, pred_file);
		opt_var("d", paths[i].var, c, pred_dir);
		printf("_latscope_n_%s=%d\n", paths[i].var, c->operands ? 1 : 0);
	}
}

/* _latscope_choices VAR OPTION: a case over every option with fixed values. */
static void print_choices_function(void)
{
	printf("\n# _latscope_choices VAR OPTION: the fixed values of OPTION\n"
	       "_latscope_choices()\n{\n\tcase \"$1 $2\" in\n");
	for (size_t i = 0; i < NPATHS; i++) {
		if (i && !strcmp(paths[i].var, paths[i - 1].var))
			continue;
		for (const struct cli_opt *o = paths[i].cli->opts; o->name; o++) {
			if (!o->choices)
				continue;
			printf("\t\"%s --%s\"", paths[i].var, o->name);
			if (o->key)
				printf("|\"%s -%c\"", paths[i].var, o->key);
			printf(") echo '");
			for (const char *const *v = o->choices; *v; v++)
				printf("%s%s", v == o->choices ? "" : " ", *v);
			printf("';;\n");
		}
	}
	printf("\tesac\n}\n\n");
}

/* The case of a command with subcommands (sc: its name and theirs): the
 * subcommands at the second word, then var set to the subcommand's table. */
static void print_subcommand_case(const char *const sc[2])
{
	bool bare = false;	/* options right after the command (osnoise: top) */
	for (size_t i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].words, sc[0]))
			bare = true;
	printf("\t%s)\n"
	       "\t\tif [ \"$cword\" -eq 2 ]%s; then\n"
	       "\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
	       "\t\t\treturn\n\t\tfi\n", sc[0],
	       bare ? " && [ \"${cur#-}\" = \"$cur\" ]" : "", sc[1]);
	printf("\t\tsub=${COMP_WORDS[2]}\n"
	       "\t\tcase \" %s \" in *\" $sub \"*) ;; *) sub=;; esac\n", sc[1]);
	const char *var_bare = NULL;	/* the variable of the command alone */
	for (size_t i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].words, sc[0]))
			var_bare = paths[i].var;
	if (var_bare)	/* osnoise: its modes share one table */
		printf("\t\tvar=%s\n", var_bare);
	else
		printf("\t\t[ -n \"$sub\" ] || return\n\t\tvar=%s_$sub\n", sc[0]);
	printf("\t\t;;\n");
}

/* _latscope's start: the commands at the first word, then the case that sets
 * var, the option table of the command line being completed. */
static void print_command_dispatch(void)
{
	printf("_latscope()\n{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} cword=$COMP_CWORD var sub opt i\n"
	       "\tlocal prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "\tCOMPREPLY=()\n"
	       "\tif [ \"$cword\" -eq 1 ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '%s -h --help -v --version' -- \"$cur\"))\n"
	       "\t\treturn\n\tfi\n", commands);
	printf("\tcase ${COMP_WORDS[1]} in\n"
	       "\thelp) [ \"$cword\" -eq 2 ] && COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return;;\n"
	       "\tcompletion) [ \"$cword\" -eq 2 ] && COMPREPLY=($(compgen -W 'bash' -- \"$cur\")); return;;\n",
	       commands);
	for (size_t s = 0; s < sizeof(subcommands) / sizeof(subcommands[0]); s++)
		print_subcommand_case(subcommands[s]);
	for (size_t i = 0; i < NPATHS; i++)
		if (!strchr(paths[i].words, ' ') && strcmp(paths[i].words, "osnoise") &&
		    strcmp(paths[i].words, "timerlat"))
			printf("\t%s) var=%s;;\n", paths[i].words, paths[i].var);
	printf("\t*) return;;\n\tesac\n");
}

/* _latscope's rest (fixed text): the value of an option (its choices, file or
 * directory names), the options after "-", file names for the operands. */
static void print_value_completion(void)
{
	printf("\t# the option whose value this word is: \"-o F\", \"--json=F\"\n"
	       "\topt=\n"
	       "\tif [ \"$cur\" = = ]; then opt=$prev; cur=\n"
	       "\telif [ \"$prev\" = = ] && [ \"$cword\" -ge 3 ]; then opt=${COMP_WORDS[COMP_CWORD-2]}\n"
	       "\telse\n"
	       "\t\teval \"local args=\\\" \\$_latscope_a_$var \\\"\"\n"
	       "\t\tcase $args in *\" $prev \"*) opt=$prev;; esac\n"
	       "\tfi\n"
	       "\tif [ -n \"$opt\" ]; then\n"
	       "\t\tlocal ch files dirs\n"
	       "\t\tch=$(_latscope_choices \"$var\" \"$opt\")\n"
	       "\t\teval \"files=\\\" \\$_latscope_f_$var \\\"; dirs=\\\" \\$_latscope_d_$var \\\"\"\n"
	       "\t\tif [ -n \"$ch\" ]; then\n"
	       "\t\t\tCOMPREPLY=($(compgen -W \"$ch\" -- \"$cur\"))\n"
	       "\t\telif [ \"${files#* $opt }\" != \"$files\" ]; then\n"
	       "\t\t\tcompopt -o filenames 2>/dev/null\n"
	       "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\t\telif [ \"${dirs#* $opt }\" != \"$dirs\" ]; then\n"
	       "\t\t\tcompopt -o filenames 2>/dev/null\n"
	       "\t\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
	       "\t\tfi\n"
	       "\t\treturn\n"
	       "\tfi\n"
	       "\tif [ \"${cur#-}\" != \"$cur\" ]; then\n"
	       "\t\teval \"COMPREPLY=(\\$(compgen -W \\\"\\$_latscope_o_$var -h --help\\\" -- \\\"\\$cur\\\"))\"\n"
	       "\t\treturn\n"
	       "\tfi\n"
	       "\teval \"i=\\$_latscope_n_$var\"\n"
	       "\tif [ \"$i\" = 1 ]; then\n"
	       "\t\tcompopt -o filenames 2>/dev/null\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\tfi\n"
	       "}\n"
	       "complete -F _latscope latscope\n");
}

/* The whole script: the tables' variables and _latscope_choices first,
 * then _latscope, which reads them. */
static void print_script(void)
{
	print_option_vars();
	print_choices_function();
	print_command_dispatch();
	print_value_completion();
}

int cmd_completion(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "bash")) {
		print_script();
		return 0;	/* main() checks stdout */
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: latscope completion bash\n\n"
		       "Print the bash completion script of latscope, made from its option tables\n"
		       "(make install installs it; or: source <(latscope completion bash)).\n");
		return 0;
	}
	fprintf(stderr, "latscope completion: usage: latscope completion bash (bash is the one shell)\n");
	return EXIT_ERR;
}
