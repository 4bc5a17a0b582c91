/* SPDX-License-Identifier: MIT */
/*
 * The option tables of the commands migrated to src/cli.c: no long name or
 * short key twice (cli_table_ok()), every documented option in the usage
 * text, and perf's letters where the dtl commands follow perf (-i input,
 * -C/--cpu with --cpus too, -c the period of dtl record, -m its ring, -q),
 * rtla's where hist follows rtla (-c/--cpus, -d, -P, -T, -q), and the values
 * the hist tables store (sizes, priorities, durations, the old spellings).
 * Linked with the command objects (not main.o).
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
#include "../../src/dtl_cmd.h"
#include "../../src/hist/hist.h"

static const struct cli_cmd *const cmds[] = {
	&dtl_dump_cli, &dtl_script_cli, &dtl_report_cli, &dtl_record_cli, &dtl_synth_cli,
	&hist_report_cli, &hist_record_cli, &hist_top_cli,
};

static const struct cli_opt *find(const struct cli_cmd *c, const char *name)
{
	for (const struct cli_opt *o = c->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static void test_tables_ok(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		print_message("%s\n", cmds[i]->name);
		assert_true(cli_table_ok(cmds[i]));
	}
}

/* every option with a help line is in the usage text, in its table's order */
static void test_usage_lists_all(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		cli_usage(cmds[i], f);
		fclose(f);
		assert_non_null(strstr(buf, cmds[i]->usage));
		const char *at = buf;
		for (const struct cli_opt *o = cmds[i]->opts; o->name; o++) {
			char want[64];
			if (!o->help)
				continue;
			snprintf(want, sizeof(want), "--%s%s", o->name, o->optional ? "[=" : " ");
			const char *hit = strstr(at, want);
			if (!hit)
				fail_msg("%s: --%s not in the usage text", cmds[i]->name, o->name);
			at = hit;
		}
		free(buf);
	}
}

static void want_key(const struct cli_cmd *c, const char *name, int key)
{
	const struct cli_opt *o = find(c, name);
	if (!o || o->key != key)
		fail_msg("%s: --%s should be -%c", c->name, name, key);
}

static void test_perf_letters(void **state)
{
	(void)state;
	const struct cli_cmd *readers[] = { &dtl_dump_cli, &dtl_script_cli, &dtl_report_cli };
	for (size_t i = 0; i < 3; i++) {
		want_key(readers[i], "input", 'i');
		assert_true(readers[i]->operands);	/* the FILE operand */
	}
	const struct cli_cmd *cpus[] = { &dtl_script_cli, &dtl_report_cli, &dtl_record_cli };
	for (size_t i = 0; i < 3; i++) {
		want_key(cpus[i], "cpu", 'C');
		assert_non_null(find(cpus[i], "cpus"));
		assert_int_equal(find(cpus[i], "cpus")->type, CLI_T_CPUS);
	}
	want_key(&dtl_record_cli, "period", 'c');
	want_key(&dtl_record_cli, "mmap-pages", 'm');
	want_key(&dtl_record_cli, "duration", 'd');
	want_key(&dtl_record_cli, "output", 'o');
	want_key(&dtl_record_cli, "quiet", 'q');
	assert_non_null(find(&dtl_record_cli, "ring-size"));
	assert_true(dtl_record_cli.stop_at_operand);
	want_key(&dtl_script_cli, "quiet", 'q');
	want_key(&dtl_synth_cli, "period", 'c');
	want_key(&dtl_synth_cli, "output", 'o');
	want_key(&dtl_synth_cli, "compression-level", 'z');
}

/* hist follows rtla: -c/--cpus, -d, -P, -T, -q; -i/-o/-O, --json, --ring-size */
static void test_hist_letters(void **state)
{
	(void)state;
	const struct cli_cmd *all[] = { &hist_report_cli, &hist_record_cli, &hist_top_cli };
	for (size_t i = 0; i < 3; i++) {
		want_key(all[i], "threshold", 'T');
		want_key(all[i], "quiet", 'q');
		want_key(all[i], "output-dir", 'O');
		assert_non_null(find(all[i], "json"));
		assert_false(all[i]->operands);
	}
	want_key(&hist_report_cli, "input", 'i');
	const struct cli_cmd *live[] = { &hist_record_cli, &hist_top_cli };
	for (size_t i = 0; i < 2; i++) {
		want_key(live[i], "cpus", 'c');
		want_key(live[i], "duration", 'd');
		want_key(live[i], "priority", 'P');
		want_key(live[i], "output", 'o');
		want_key(live[i], "timer-workload", 't');
		assert_non_null(find(live[i], "ring-size"));
		/* the old spellings: hidden aliases */
		assert_null(find(live[i], "ring-bytes")->help);
		assert_null(find(live[i], "prio")->help);
		assert_null(find(live[i], "record")->help);
		assert_null(find(live[i], "input"));
	}
	/* each subcommand lists only its own options */
	assert_null(find(&hist_report_cli, "duration"));
	assert_null(find(&hist_report_cli, "priority"));
	assert_null(find(&hist_record_cli, "refresh"));
	assert_non_null(find(&hist_top_cli, "refresh"));
	assert_null(find(&hist_top_cli, "time"));
}

static int hist_parse(const struct cli_cmd *cmd, struct hctx *c, char *err, size_t len, ...)
{
	char *argv[16] = { (char *)cmd->name };
	int argc = 1;
	va_list ap;
	va_start(ap, len);
	for (char *a; argc < 15 && (a = va_arg(ap, char *)); )
		argv[argc++] = a;
	va_end(ap);
	memset(c, 0, sizeof(*c));
	c->prio.policy = SCHED_FIFO;
	c->prio.prio = 95;
	err[0] = 0;
	return cli_parse(cmd, argc, argv, c, NULL, err, len);
}

static void test_hist_values(void **state)
{
	(void)state;
	struct hctx c;
	char err[256];

	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-P", "90", "-d", "1m30s",
				    "--ring-size", "512", "-T", "5us", "-q", "-c", "0-1", NULL), 0);
	assert_int_equal(c.prio.policy, SCHED_FIFO);
	assert_int_equal(c.prio.prio, 90);
	assert_int_equal(c.duration_ns, 90000000000ULL);
	assert_int_equal(c.ring_bytes, 512 << 10);	/* a bare number is KiB */
	assert_true(c.threshold_given);
	assert_int_equal(c.threshold_ns, 5000);
	assert_true(c.quiet && c.cpus_given);
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "-P", "o:5", "--ring-bytes",
				    "65536", "--threshold", "250", NULL), 0);
	assert_int_equal(c.prio.policy, SCHED_OTHER);
	assert_int_equal(c.prio.prio, 5);
	assert_int_equal(c.ring_bytes, 65536);	/* the old option keeps its bytes */
	assert_int_equal(c.threshold_ns, 250000);	/* a bare number is us */
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--priority=r:10", NULL), 0);
	assert_int_equal(c.prio.policy, SCHED_RR);
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "--prio", "0", NULL), 0);
	assert_int_equal(c.prio.policy, SCHED_OTHER);
	assert_int_equal(c.prio.prio, 0);
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "--prio", "80", NULL), 0);
	assert_int_equal(c.prio.policy, SCHED_FIFO);
	assert_int_equal(c.prio.prio, 80);

	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-d", "x", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: --duration 'x': expected a duration such as 10s, "
				 "1m30s, 500ms (a bare number is seconds)");
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-P", "f:100", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: --priority 'f:100': expected o:NICE (-20..19), "
				 "r:PRIO or f:PRIO (1..99), or PRIO for f:PRIO");
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-p", "95", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: unknown option '-p'; see --help");
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--ring-size", "1", NULL), -EINVAL);
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--interval", "5us", NULL), -EINVAL);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "-d", "1", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist report: unknown option '-d'; see --help");
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--types", "wakeup,bogus", NULL),
			 -EINVAL);
	assert_false(c.types_given);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--types", "timer", "--offset",
				    "-5us", "--time", "1.5,", NULL), 0);
	assert_true(c.types[LAT_MISSED_TIMER] && !c.types[LAT_WAKEUP]);
	assert_int_equal(c.lcfg.hist.lo_ns, -5000);
	assert_true(c.time_given);
	assert_int_equal(c.time_lo_ns, 1500000000ULL);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--time", "3,2", NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_ok),
		cmocka_unit_test(test_usage_lists_all),
		cmocka_unit_test(test_perf_letters),
		cmocka_unit_test(test_hist_letters),
		cmocka_unit_test(test_hist_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
