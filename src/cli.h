/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the command line of every latscope command: one option table per
 * command, from which the parser, the getopt tables and the usage text are
 * made, so options cannot drift apart between commands.
 *
 * Prefix: cli_.  The only module in src/ that calls getopt_long().
 *
 *	struct params { struct parse_cpuset cpus; bool have_cpus; uint64_t dur_ns; bool json;
 *			const char *json_file; };
 *	static const struct cli_opt opts[] = {
 *		CLI_CPUS('c', struct params, cpus, have_cpus, "measured CPUs (default all online)"),
 *		CLI_DURATION('d', struct params, dur_ns, "run time (default until Ctrl-C)"),
 *		CLI_JSON(struct params, json, json_file),
 *		CLI_END
 *	};
 *	static const struct cli_cmd cmd = { .name = "latscope osnoise top", .opts = opts, ... };
 *	char err[256];
 *	int rc = cli_parse(&cmd, argc, argv, &p, &first, err, sizeof(err));
 *	// rc 0: parsed, argv[first..] are the operands; CLI_HELP: print cli_usage();
 *	// < 0: err holds the one-line message, e.g.
 *	// "latscope osnoise top: --period '5': expected 100..10000000 us"
 *
 * Values (one vocabulary everywhere):
 *   durations  "10s", "500ms", "5us", "1m30s", "1.5s"; a bare number is in the
 *              option's unit (seconds for -d, microseconds for the us options);
 *   sizes      "65536", "512K", "16M", "1G" (binary), "16MiB"; a bare number is
 *              in the option's unit (bytes, or KiB where the option says so);
 *   CPU lists  "0-3,5";
 *   priorities "o:NICE" (SCHED_OTHER), "r:PRIO" (SCHED_RR), "f:PRIO"
 *              (SCHED_FIFO), "d:RUNTIME:PERIOD" (SCHED_DEADLINE; durations,
 *              a bare number in us; 1us <= runtime <= period <= 4s) as rtla
 *              has them; a bare number is f:PRIO.
 * Nothing here prints except cli_usage(), to the FILE it is given; nothing
 * exits.  The parser is a function of argv alone (getopt's state is reset on
 * each call), so the unit tests call it directly.
 */
#ifndef LATSCOPE_CLI_H
#define LATSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/parse.h"

enum cli_type {
	CLI_T_FLAG,	/* bool field = true */
	CLI_T_SETINT,	/* int field = opt.min (e.g. --keep-busy 1, --no-keep-busy 0) */
	CLI_T_STR,	/* const char * field = the argument (argv's storage) */
	CLI_T_U64,	/* uint64_t in [min, max] */
	CLI_T_I64,	/* int64_t in [(int64_t)min, (int64_t)max] */
	CLI_T_DUR,	/* uint64_t duration in ns, bare numbers in unit ns, [min, max] ns */
	CLI_T_DUR_US,	/* uint64_t duration in us (suffixes accepted), bare = us, [min, max] us */
	CLI_T_SIZE,	/* uint64_t size in bytes, bare numbers in unit bytes, [min, max] bytes */
	CLI_T_CPUS,	/* struct parse_cpuset */
	CLI_T_PRIO,	/* struct cli_prio */
	CLI_T_CUSTOM,	/* parse(arg, params): 0 or negative errno */
	CLI_T_JSON,	/* --json: bool field = true (JSON on stdout instead of text);
			 * --json=FILE: const char * at file_off = FILE (text on stdout,
			 * JSON in FILE) and the bool false; the last one given counts */
	CLI_T_RENDER,	/* struct cli_renders: (render, FILE) appended, or with render
			 * NULL (FORMAT, FILE) from FORMAT=FILE; FORMAT a renderer of
			 * lib/print/render.h */
};

/* The forms of the report asked for (--html FILE, --render FORMAT=FILE), in
 * the order given: jsonout_render() writes them. */
#define CLI_MAX_RENDERS 8
struct cli_renders {
	unsigned nr;
	const char *format[CLI_MAX_RENDERS];	/* a renderer's name (static) */
	const char *file[CLI_MAX_RENDERS];	/* argv's storage */
};

/* A scheduling priority as -P takes it. */
struct cli_prio {
	int policy;	/* SCHED_OTHER, SCHED_RR, SCHED_FIFO or CLI_SCHED_DEADLINE */
	int prio;	/* nice for SCHED_OTHER (-20..19), else 1..99; 0 for deadline */
	uint64_t dl_runtime_ns, dl_period_ns;	/* d:RUNTIME:PERIOD (runtime <= period) */
};
#define CLI_SCHED_DEADLINE 6	/* SCHED_DEADLINE (linux/sched.h) */

#define CLI_NONE ((size_t)-1)

struct cli_opt {
	const char *name;	/* long name without "--"; NULL ends the table */
	int key;		/* short letter, or 0 */
	enum cli_type type;
	size_t off;		/* offsetof(params, field) */
	size_t given_off;	/* offsetof a bool set when the option is given, or CLI_NONE */
	uint64_t min, max;	/* bounds (max 0: none); CLI_T_SETINT: the value */
	uint64_t unit;		/* CLI_T_DUR: ns per bare number; CLI_T_SIZE: bytes per bare number */
	int (*parse)(const char *arg, void *params);	/* CLI_T_CUSTOM */
	const char *arg;	/* usage: the argument's name ("LIST"); NULL for flags */
	const char *help;	/* usage: one line; NULL hides the option (an alias) */
	const char *expect;	/* error: what a good value is ("100..10000000 us") */
	bool optional;		/* CLI_T_CUSTOM, CLI_T_JSON: the value may be left out (only
				 * --name=V or -kV give one); parse() gets NULL then */
	size_t file_off;	/* CLI_T_JSON: offsetof the const char * FILE field */
	const char *render;	/* CLI_T_RENDER: the form the option names ("html"), NULL:
				 * FORMAT=FILE */
	const char *const *choices;	/* the fixed values it takes (NULL-terminated,
					 * static), for `latscope completion`; NULL: any */
};

struct cli_cmd {
	const char *name;	/* "latscope osnoise top": prefix of every message */
	const char *usage;	/* "usage: latscope osnoise [top|hist|trace|record] [options]" */
	const char *intro;	/* text between the usage line and the options, or NULL */
	const struct cli_opt *opts;
	const char *outro;	/* text after the options (exit status...), or NULL */
	bool operands;		/* operands allowed (a file, a command to run) */
	bool stop_at_operand;	/* options end at the first operand ("--" too) */
	/* pairs of long option names that contradict each other, {NULL, NULL}
	 * last (or NULL): both given is refused with one line.  Two
	 * CLI_T_SETINT options on one field always are. */
	const char *const (*conflicts)[2];
};

#define CLI_HELP 1

/*
 * cli_parse - parse argv[1..argc-1] (argv[0] is the command's name) into
 * params, which holds the defaults on entry.  *first (may be NULL) is the
 * index of the first operand.  0, CLI_HELP for -h/--help, or a negative
 * errno with err (errlen bytes, may be 0) holding one line without a
 * newline.  Pointers stored in params point into argv.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *params, int *first,
	      char *err, size_t errlen);

/* cli_usage - the usage text: usage line, intro, the options table, outro.
 * A help text may hold newlines: its next lines are indented under it. */
void cli_usage(const struct cli_cmd *cmd, FILE *f);

/*
 * cli_table_ok - whether cmd's table can be parsed as meant: no long name or
 * short key twice (nor "help" or 'h', which every command has), every
 * CLI_T_CUSTOM entry with a parse function, only CLI_T_CUSTOM optional.
 * For the unit tests; cli_parse() takes the first of two equal names.
 */
bool cli_table_ok(const struct cli_cmd *cmd);

/* Shared entries: one spelling and one help line per concept. */
#define CLI_OPT(n, k, t, T, f, g, lo, hi, u, a, h, e) \
	{ .name = (n), .key = (k), .type = (t), .off = offsetof(T, f), .given_off = (g), \
	  .min = (lo), .max = (hi), .unit = (u), .arg = (a), .help = (h), .expect = (e) }
#define CLI_GIVEN(T, g) offsetof(T, g)
#define CLI_END { .name = NULL }
/* a value with its own syntax: fn(arg, params) stores it, 0 or -EINVAL */
#define CLI_CUSTOM(n, k, fn, a, h, e) \
	{ .name = (n), .key = (k), .type = CLI_T_CUSTOM, .given_off = CLI_NONE, .parse = (fn), \
	  .arg = (a), .help = (h), .expect = (e) }

/* a value out of a fixed set: choices (a static NULL-terminated array) is
 * every value fn accepts (tests/unit/test_cli_tables.c parses each) */
#define CLI_CHOICE(n, k, fn, ch, a, h, e) \
	{ .name = (n), .key = (k), .type = CLI_T_CUSTOM, .given_off = CLI_NONE, .parse = (fn), \
	  .choices = (ch), .arg = (a), .help = (h), .expect = (e) }

/* -c/--cpus (rtla) or -C/--cpu (perf; --cpus also accepted there) */
#define CLI_CPUS(k, T, f, g, h) \
	CLI_OPT("cpus", k, CLI_T_CPUS, T, f, CLI_GIVEN(T, g), 0, 0, 0, "LIST", h, "a CPU list such as 0-3,5")
#define CLI_CPU_PERF(T, f, g, h) \
	CLI_OPT("cpu", 'C', CLI_T_CPUS, T, f, CLI_GIVEN(T, g), 0, 0, 0, "LIST", h, "a CPU list such as 0-3,5"), \
	CLI_OPT("cpus", 0, CLI_T_CPUS, T, f, CLI_GIVEN(T, g), 0, 0, 0, "LIST", NULL, "a CPU list such as 0-3,5")
#define CLI_DURATION(T, f, h) \
	CLI_OPT("duration", 'd', CLI_T_DUR, T, f, CLI_NONE, 1, 0, 1000000000ULL, "T", h, \
		"a duration such as 10s, 1m30s, 500ms (a bare number is seconds)")
/* --json (JSON on stdout instead of the text) or --json=FILE (the text on
 * stdout, the JSON in FILE, written as the command's other outputs are:
 * cmdio_json_write()).  Every command with JSON takes it this way. */
#define CLI_JSON(T, f, file) \
	{ .name = "json", .type = CLI_T_JSON, .off = offsetof(T, f), .given_off = CLI_NONE, \
	  .file_off = offsetof(T, file), .optional = true, .arg = "FILE", \
	  .help = "JSON (times in ns, docs/json.md) instead of the text on\n" \
		  "standard output; with =FILE the text as usual and the\n" \
		  "JSON in FILE", .expect = "a file name" }
/* --html FILE: the same report as a self-contained HTML page (inline SVG
 * pictures, no network; docs/html.md); --render FORMAT=FILE: in any form
 * lib/print/render.h has (html, md...).  Both drawn from the JSON document
 * (jsonout_render), written as the command's other outputs are (--force);
 * f is a struct cli_renders. */
#define CLI_RENDERS(T, f) \
	{ .name = "html", .type = CLI_T_RENDER, .off = offsetof(T, f), .given_off = CLI_NONE, \
	  .render = "html", .arg = "FILE", \
	  .help = "the report as one self-contained HTML page with\n" \
		  "pictures (inline SVG, no network; docs/html.md)" }, \
	{ .name = "render", .type = CLI_T_RENDER, .off = offsetof(T, f), .given_off = CLI_NONE, \
	  .arg = "FORMAT=FILE", \
	  .help = "the report in FORMAT in FILE (repeatable): html, or\n" \
		  "md (a Markdown summary: the headline tables and\n" \
		  "every loss; docs/render.md)" }
#define CLI_QUIET(T, f, h) CLI_OPT("quiet", 'q', CLI_T_FLAG, T, f, CLI_NONE, 0, 0, 0, NULL, h, NULL)
#define CLI_PRIORITY(T, f, g, h) \
	CLI_OPT("priority", 'P', CLI_T_PRIO, T, f, CLI_GIVEN(T, g), 0, 0, 0, "P", h, \
		"o:NICE (-20..19), r:PRIO or f:PRIO (1..99), d:RUNTIME:PERIOD (SCHED_DEADLINE, " \
		"e.g. d:100us:1ms), or PRIO for f:PRIO")
#define CLI_RING_SIZE(T, f, unit, lo, hi, h, e) \
	CLI_OPT("ring-size", 0, CLI_T_SIZE, T, f, CLI_NONE, lo, hi, unit, "SIZE", h, e)
#define CLI_INPUT(T, f, h) CLI_OPT("input", 'i', CLI_T_STR, T, f, CLI_NONE, 0, 0, 0, "FILE", h, NULL)
#define CLI_OUTPUT(T, f, h) CLI_OPT("output", 'o', CLI_T_STR, T, f, CLI_NONE, 0, 0, 0, "FILE", h, NULL)
#define CLI_FORCE(T, f) \
	CLI_OPT("force", 0, CLI_T_FLAG, T, f, CLI_NONE, 0, 0, 0, NULL, \
		"write an output that is another user's file or link\n" \
		"(replaced, never written through), or whose path\n" \
		"goes through another user's link (followed)", NULL)
#define CLI_STRICT(T, f) \
	CLI_OPT("strict", 0, CLI_T_FLAG, T, f, CLI_NONE, 0, 0, 0, NULL, \
		"exit 1 when events or records were lost or skipped", NULL)
#define CLI_THRESHOLD_US(T, f, lo, hi, h) \
	CLI_OPT("threshold", 'T', CLI_T_DUR_US, T, f, CLI_NONE, lo, hi, 0, "US", h, NULL)

#endif
