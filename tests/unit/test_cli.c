/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/cli.c: one table gives the parser, the errors and the
 * usage text; the shared value types (durations with suffixes, sizes, CPU
 * lists, priorities) parse the same everywhere.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/cli.h"

struct p {
	struct parse_cpuset cpus;
	bool have_cpus;
	uint64_t dur_ns;
	uint64_t period_us;
	uint64_t thr_us;
	uint64_t ring;
	struct cli_prio prio;
	bool have_prio;
	bool json, quiet;
	const char *json_file;
	const char *out;
	int keep;
	int64_t off;
	int custom;
	struct cli_renders renders;
};

static int parse_custom(const char *arg, void *params)
{
	struct p *p = params;
	if (strcmp(arg, "yes") && strcmp(arg, "no"))
		return -EINVAL;
	p->custom = !strcmp(arg, "yes") ? 1 : 2;
	return 0;
}

static const struct cli_opt opts[] = {
	CLI_CPUS('c', struct p, cpus, have_cpus, "measured CPUs"),
	CLI_DURATION(struct p, dur_ns, "run time"),
	CLI_OPT("period", 'p', CLI_T_DUR_US, struct p, period_us, CLI_NONE, 100, 10000000, 0, "US",
		"period", "100..10000000 us"),
	CLI_THRESHOLD_US(struct p, thr_us, 1, 10000000, "threshold"),
	CLI_RING_SIZE(struct p, ring, 1024, 4096, 1ULL << 32, "ring per CPU (bare: KiB)", NULL),
	CLI_PRIORITY(struct p, prio, have_prio, "priority"),
	CLI_JSON(struct p, json, json_file),
	CLI_QUIET(struct p, quiet, "only the summary"),
	CLI_OUTPUT(struct p, out, "output file"),
	CLI_OPT("keep-busy", 0, CLI_T_SETINT, struct p, keep, CLI_NONE, 1, 0, 0, NULL, "keep busy", NULL),
	CLI_OPT("no-keep-busy", 0, CLI_T_SETINT, struct p, keep, CLI_NONE, 0, 0, 0, NULL, "do not", NULL),
	CLI_OPT("offset", 0, CLI_T_I64, struct p, off, CLI_NONE, (uint64_t)-5, 5, 0, "N", "offset", NULL),
	{ .name = "custom", .type = CLI_T_CUSTOM, .off = 0, .given_off = CLI_NONE, .parse = parse_custom,
	  .arg = "yes|no", .help = "custom", .expect = "yes or no" },
	CLI_RENDERS(struct p, renders),
	CLI_END
};

static const struct cli_cmd cmd = {
	.name = "latscope test top", .usage = "usage: latscope test [options]", .opts = opts,
	.outro = "Exit status: 0.\n",
};

static int run(struct p *p, char *err, size_t len, int *first, ...)
{
	char *argv[32] = { "test" };
	int argc = 1;
	va_list ap;
	va_start(ap, first);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	memset(p, 0, sizeof(*p));
	p->keep = -1;
	err[0] = '\0';
	return cli_parse(&cmd, argc, argv, p, first, err, len);
}

static void test_values(void **state)
{
	(void)state;
	struct p p;
	char err[256];
	int first = -1;
	assert_int_equal(run(&p, err, sizeof(err), &first, "-c", "0-2,5", "-d", "1m30s", "-p", "1ms",
			     "-T", "5us", "--ring-size", "16M", "-P", "o:-5", "--json", "-q", "-o", "x",
			     "--no-keep-busy", "--offset", "-3", "--custom", "yes", NULL), 0);
	assert_true(p.have_cpus);
	assert_int_equal(parse_cpuset_count(&p.cpus), 4);
	assert_true(parse_cpuset_has(&p.cpus, 5));
	assert_int_equal(p.dur_ns, 90000000000ULL);
	assert_int_equal(p.period_us, 1000);
	assert_int_equal(p.thr_us, 5);
	assert_int_equal(p.ring, 16ULL << 20);
	assert_true(p.have_prio);
	assert_int_equal(p.prio.policy, SCHED_OTHER);
	assert_int_equal(p.prio.prio, -5);
	assert_true(p.json && p.quiet);
	assert_string_equal(p.out, "x");
	assert_int_equal(p.keep, 0);
	assert_int_equal(p.off, -3);
	assert_int_equal(p.custom, 1);
	assert_int_equal(first, 22);	/* argv[0] and 21 arguments */

	/* bare numbers are in the option's unit */
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-d", "10", "-p", "500", "-T", "7",
			     "--ring-size", "8192", "-P", "50", "--keep-busy", NULL), 0);
	assert_int_equal(p.dur_ns, 10000000000ULL);
	assert_int_equal(p.period_us, 500);
	assert_int_equal(p.thr_us, 7);
	assert_int_equal(p.ring, 8192ULL << 10);
	assert_int_equal(p.prio.policy, SCHED_FIFO);
	assert_int_equal(p.prio.prio, 50);
	assert_int_equal(p.keep, 1);
	assert_false(p.have_cpus);
	/* long forms with '=' and the rtla priority spellings */
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--cpus=3", "--priority=r:10",
			     "--duration=1.5s", NULL), 0);
	assert_true(parse_cpuset_has(&p.cpus, 3));
	assert_int_equal(p.prio.policy, SCHED_RR);
	assert_int_equal(p.dur_ns, 1500000000ULL);
	/* SCHED_DEADLINE as rtla spells it: d:RUNTIME:PERIOD, a bare number in us */
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:100us:1ms", NULL), 0);
	assert_int_equal(p.prio.policy, CLI_SCHED_DEADLINE);
	assert_int_equal(p.prio.dl_runtime_ns, 100000);
	assert_int_equal(p.prio.dl_period_ns, 1000000);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:50:200", NULL), 0);
	assert_int_equal(p.prio.dl_runtime_ns, 50000);
	assert_int_equal(p.prio.dl_period_ns, 200000);
}

static void test_errors(void **state)
{
	(void)state;
	struct p p;
	char err[256];
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--period", "5", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: --period '5': expected 100..10000000 us");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-p", "5", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: --period '5': expected 100..10000000 us");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-T", "1500ns", NULL), -EINVAL);
	assert_non_null(strstr(err, "--threshold '1500ns': expected 1..10000000 us"));
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-x", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: unknown option '-x'; see --help");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--nope", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: unknown option '--nope'; see --help");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-c", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: --cpus needs a value: a CPU list such as 0-3,5");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--duration", NULL), -EINVAL);
	assert_non_null(strstr(err, "--duration needs a value"));
	assert_int_equal(run(&p, err, sizeof(err), NULL, "stray", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: unexpected argument 'stray'; see --help");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-c", "3-1", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-d", "0", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "f:100", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "x:1", NULL), -EINVAL);
	/* deadline: runtime above the period, below 1 us, no period, a period above 4 s */
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:1ms:100us", NULL), -EINVAL);
	assert_non_null(strstr(err, "d:RUNTIME:PERIOD"));
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:500ns:1ms", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:100us", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:100us:", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d:1s:5s", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "-P", "d::1ms", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--ring-size", "1K", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--offset", "9", NULL), -EINVAL);
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--custom", "maybe", NULL), -EINVAL);
	assert_string_equal(err, "latscope test top: --custom 'maybe': expected yes or no");
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--json", "-h", NULL), CLI_HELP);
	/* a NULL error buffer is fine */
	char *argv[] = { "t", "-x" };
	assert_int_equal(cli_parse(&cmd, 2, argv, &p, NULL, NULL, 0), -EINVAL);
}

static void test_operands(void **state)
{
	(void)state;
	static const struct cli_cmd c2 = {
		.name = "latscope test record", .opts = opts, .operands = true, .stop_at_operand = true,
	};
	struct p p;
	char *argv[] = { "t", "-q", "sleep", "-d", "1", NULL };
	int first = 0;
	memset(&p, 0, sizeof(p));
	assert_int_equal(cli_parse(&c2, 5, argv, &p, &first, NULL, 0), 0);
	assert_true(p.quiet);
	assert_int_equal(first, 2);	/* "-d 1" belongs to the command run */
	assert_int_equal(p.dur_ns, 0);
	char *argv2[] = { "t", "--", "-q", NULL };
	memset(&p, 0, sizeof(p));
	assert_int_equal(cli_parse(&c2, 3, argv2, &p, &first, NULL, 0), 0);
	assert_false(p.quiet);
	assert_int_equal(first, 2);
}

/* cli_usage() of c as a string (the caller frees it) */
static char *usage_text(const struct cli_cmd *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	cli_usage(c, f);
	fclose(f);
	return buf;
}

static void test_usage(void **state)
{
	(void)state;
	char *buf = usage_text(&cmd);
	assert_non_null(strstr(buf, "usage: latscope test [options]\n"));
	assert_non_null(strstr(buf, "  -c, --cpus LIST        measured CPUs\n"));
	assert_non_null(strstr(buf, "      --json[=FILE]      JSON (times in ns, docs/json.md) instead of the text on\n"
				    "                         standard output; with =FILE the text as usual and the\n"));
	assert_non_null(strstr(buf, "  -h, --help             this help\n"));
	assert_non_null(strstr(buf, "Exit status: 0.\n"));
	/* every option with a help line is listed, once */
	for (const struct cli_opt *o = opts; o->name; o++) {
		char want[64];
		snprintf(want, sizeof(want), "--%s", o->name);
		char *at = strstr(buf, want);
		assert_non_null(at);
	}
	free(buf);
}

struct q { int level; bool json; const char *json_file; };

static int parse_level(const char *arg, void *params)
{
	struct q *q = params;
	uint64_t v = 1;
	if (arg && parse_u64(arg, 1, 22, &v))
		return -EINVAL;
	q->level = (int)v;
	return 0;
}

/* an optional value (-z, -z5, --level=5), help texts on several lines, and
 * tables with a name or key twice */
static void test_optional_and_tables(void **state)
{
	(void)state;
	static const struct cli_opt qo[] = {
		{ .name = "level", .key = 'z', .type = CLI_T_CUSTOM, .given_off = CLI_NONE, .parse = parse_level,
		  .optional = true, .arg = "N", .help = "compress\n(level 1-22)", .expect = "1..22" },
		CLI_JSON(struct q, json, json_file),
		CLI_END
	};
	static const struct cli_cmd qc = { .name = "latscope q", .opts = qo, .operands = true };
	struct q q = { 0 };
	char err[128];
	char *a1[] = { "q", "-z", "x", NULL };
	int first = 0;
	assert_int_equal(cli_parse(&qc, 3, a1, &q, &first, err, sizeof(err)), 0);
	assert_int_equal(q.level, 1);
	assert_int_equal(first, 2);	/* "x" is an operand, not the level */
	char *a2[] = { "q", "-z7", "--level=9", NULL };
	assert_int_equal(cli_parse(&qc, 2, a2, &q, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.level, 7);
	assert_int_equal(cli_parse(&qc, 3, a2, &q, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.level, 9);
	char *a3[] = { "q", "--level=99", NULL };
	assert_int_equal(cli_parse(&qc, 2, a3, &q, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "latscope q: --level '99': expected 1..22");

	char *buf = usage_text(&qc);
	assert_non_null(strstr(buf, "  -z, --level[=N]        compress\n"
				    "                         (level 1-22)\n"));
	free(buf);

	char *a4[] = { "q", "--json=out.json", NULL };
	assert_int_equal(cli_parse(&qc, 2, a4, &q, NULL, err, sizeof(err)), 0);
	assert_false(q.json);	/* the text stays on stdout */
	assert_string_equal(q.json_file, "out.json");
	char *a5[] = { "q", "--json", "x", NULL };
	q.json_file = NULL;
	assert_int_equal(cli_parse(&qc, 3, a5, &q, &first, err, sizeof(err)), 0);
	assert_true(q.json);
	assert_null(q.json_file);
	assert_int_equal(first, 2);	/* "x" is an operand, not the file */
	char *a7[] = { "q", "--json", "--json=f", NULL };
	assert_int_equal(cli_parse(&qc, 3, a7, &q, NULL, err, sizeof(err)), 0);
	assert_false(q.json);
	assert_string_equal(q.json_file, "f");
	char *a6[] = { "q", "--json=", NULL };
	assert_int_equal(cli_parse(&qc, 2, a6, &q, NULL, err, sizeof(err)), -EINVAL);

	assert_true(cli_table_ok(&qc));
	assert_true(cli_table_ok(&cmd));
	static const struct cli_opt dup_name[] = { CLI_JSON(struct q, json, json_file), CLI_JSON(struct q, json, json_file), CLI_END };
	static const struct cli_opt dup_key[] = {
		CLI_OPT("a", 'x', CLI_T_FLAG, struct q, json, CLI_NONE, 0, 0, 0, NULL, "a", NULL),
		CLI_OPT("b", 'x', CLI_T_FLAG, struct q, json, CLI_NONE, 0, 0, 0, NULL, "b", NULL),
		CLI_END
	};
	static const struct cli_opt help_key[] = {
		CLI_OPT("hop", 'h', CLI_T_FLAG, struct q, json, CLI_NONE, 0, 0, 0, NULL, "a", NULL), CLI_END
	};
	static const struct cli_opt no_parse[] = {
		{ .name = "c", .type = CLI_T_CUSTOM, .given_off = CLI_NONE }, CLI_END
	};
	const struct cli_opt *bad[] = { dup_name, dup_key, help_key, no_parse };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cli_cmd b = { .name = "b", .opts = bad[i] };
		assert_false(cli_table_ok(&b));
	}
}

/* --html FILE and --render FORMAT=FILE: the forms in the order given, each
 * a renderer of lib/print/render.h */
static void test_renders(void **state)
{
	(void)state;
	struct p p;
	char err[256];
	assert_int_equal(run(&p, err, sizeof(err), NULL, "--render", "md=sum.md", "--html", "a.html",
			     "--render=html=b=c.html", NULL), 0);
	assert_int_equal(p.renders.nr, 3);
	assert_string_equal(p.renders.format[0], "md");
	assert_string_equal(p.renders.file[0], "sum.md");
	assert_string_equal(p.renders.format[1], "html");
	assert_string_equal(p.renders.file[1], "a.html");
	assert_string_equal(p.renders.format[2], "html");
	assert_string_equal(p.renders.file[2], "b=c.html");
	/* an unknown form, no FILE, no '=': one line naming the forms */
	const char *bad[] = { "pdf=x.pdf", "md=", "md", "=x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run(&p, err, sizeof(err), NULL, "--render", bad[i], NULL), -EINVAL);
		assert_non_null(strstr(err, "FORMAT one of html, md"));
	}
	/* at most CLI_MAX_RENDERS */
	char *argv[2 + 2 * (CLI_MAX_RENDERS + 1)] = { "test" };
	int argc = 1;
	for (int i = 0; i <= CLI_MAX_RENDERS; i++) {
		argv[argc++] = "--render";
		argv[argc++] = "md=x.md";
	}
	memset(&p, 0, sizeof(p));
	assert_int_equal(cli_parse(&cmd, argc, argv, &p, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(p.renders.nr, CLI_MAX_RENDERS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_optional_and_tables),
		cmocka_unit_test(test_renders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
