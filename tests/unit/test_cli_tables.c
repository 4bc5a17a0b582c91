/* SPDX-License-Identifier: MIT */
/*
 * The option tables of the commands migrated to src/cli.c: no long name or
 * short key twice (cli_table_ok()), every documented option in the usage
 * text, and perf's letters where the dtl commands follow perf (-i input,
 * -C/--cpu with --cpus too, -c the period of dtl record, -m its ring, -q).
 * Linked with the command objects (not main.o).
 */
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

static const struct cli_cmd *const cmds[] = {
	&dtl_dump_cli, &dtl_script_cli, &dtl_report_cli, &dtl_record_cli, &dtl_synth_cli,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_ok),
		cmocka_unit_test(test_usage_lists_all),
		cmocka_unit_test(test_perf_letters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
