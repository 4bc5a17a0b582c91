/* SPDX-License-Identifier: MIT */
/*
 * The option tables of the commands migrated to src/cli.c: no long name or
 * short key twice (cli_table_ok()), every documented option in the usage
 * text, and perf's letters where the dtl commands follow perf (-i input,
 * -C/--cpu with --cpus too, -c the period of dtl record, -m its ring, -q),
 * rtla's where osnoise and hist follow rtla (osnoise: -c/--cpus, -H, -d, -p, -r,
 * -T, -s, -S, -P; hist: -c/--cpus, -d, -P, -T, -q), osnoise's values with
 * their suffixes and bare units, and the values the hist tables store
 * (sizes, priorities, durations, the old spellings), and script's perf
 * letters and values (script_parse()).
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
#include "../../src/dtl/dtl_cmd.h"
#include "../../src/osnoise/osnoise.h"
#include "../../src/hist/hist.h"
#include "../../src/monitor/monitor.h"
#include "../../src/script_cmd.h"
#include "../../src/timerlat/timerlat.h"
#include "../../src/commands.h"

static const struct cli_cmd *const cmds[] = {
	&dtl_dump_cli, &dtl_script_cli, &dtl_report_cli, &dtl_record_cli, &dtl_synth_cli, &dtl_why_cli,
	&osnoise_cli, &timerlat_cli,
	&hist_report_cli, &hist_record_cli, &hist_top_cli, &monitor_cli,
	&script_cli, &html_cli,
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

static void test_rtla_letters(void **state)
{
	(void)state;
	const struct cli_cmd *o = &osnoise_cli;
	want_key(o, "cpus", 'c');
	want_key(o, "house-keeping", 'H');
	want_key(o, "duration", 'd');
	want_key(o, "period", 'p');
	want_key(o, "runtime", 'r');
	want_key(o, "threshold", 'T');
	want_key(o, "stop", 's');
	want_key(o, "stop-total", 'S');
	want_key(o, "priority", 'P');
	want_key(o, "quiet", 'q');
	want_key(o, "input", 'i');
	want_key(o, "output", 'o');
	want_key(o, "bucket-size", 'b');
	want_key(o, "entries", 'E');
	assert_non_null(find(o, "json"));
	assert_non_null(find(o, "replay"));	/* the older name of -i, kept */
	assert_int_equal(find(o, "replay")->off, find(o, "input")->off);
	assert_false(o->operands);
}

static struct ctx ctx;

/* argv of cmd + the words of line, in buf; returns argc */
static int words(char *buf, size_t len, char **argv, const char *cmd, const char *line)
{
	int argc = 0;

	snprintf(buf, len, "%s %s", cmd, line);
	for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	return argc;
}

/* osnoise_parse() of "osnoise" + the words of line: -1 (go on) or the exit status */
static int osn(const char *line)
{
	char buf[256], *argv[32];
	int argc = words(buf, sizeof(buf), argv, "osnoise", line);

	return osnoise_parse(&ctx, argc, argv);
}

static void test_osnoise_values(void **state)
{
	(void)state;
	/* defaults */
	assert_int_equal(osn(""), -1);
	assert_int_equal(ctx.mode, M_TOP);
	assert_int_equal(ctx.opt.period_us, 1000000);
	assert_int_equal(ctx.opt.runtime_us, 1000000);
	assert_int_equal(ctx.opt.threshold_us, 1);
	assert_false(ctx.opt.have_T);
	assert_int_equal(ctx.out.top_n, 5);
	assert_int_equal(ctx.out.entries, 256);
	assert_string_equal(ctx.opt.output, "osnoise.data");
	/* suffixes, and bare numbers in the option's own unit */
	assert_int_equal(osn("hist -T 5us -p 1ms -r 500 -d 1m30s -s 2ms -S 3000 -b 2us"), -1);
	assert_int_equal(ctx.mode, M_HIST);
	assert_int_equal(ctx.opt.threshold_us, 5);
	assert_true(ctx.opt.have_T);
	assert_int_equal(ctx.opt.period_us, 1000);
	assert_int_equal(ctx.opt.runtime_us, 500);
	assert_int_equal(ctx.opt.duration_ns, 90000000000ULL);
	assert_int_equal(ctx.opt.stop_us, 2000);
	assert_int_equal(ctx.opt.stop_total_us, 3000);
	assert_int_equal(ctx.out.bucket_us, 2);
	assert_int_equal(osn("trace -T5 -d 10 --warm-up 2 --floor 300 --ring-size 16"), -1);
	assert_int_equal(ctx.mode, M_TRACE);
	assert_true(ctx.opt.have_T);
	assert_int_equal(ctx.opt.duration_ns, 10000000000ULL);
	assert_int_equal(ctx.opt.warmup_ns, 2000000000ULL);
	assert_int_equal(ctx.opt.floor_ns, 300);
	assert_int_equal(ctx.opt.ring_bytes, 16 << 10);
	assert_int_equal(osn("--warm-up 500ms --floor 2us --ring-size 16M -P r:5 -c 1 -H 0"), -1);
	assert_int_equal(ctx.opt.warmup_ns, 500000000ULL);
	assert_int_equal(ctx.opt.floor_ns, 2000);
	assert_int_equal(ctx.opt.ring_bytes, 16 << 20);
	assert_int_equal(ctx.opt.prio.policy, SCHED_RR);
	assert_int_equal(ctx.opt.prio.prio, 5);
	assert_true(ctx.opt.have_cpus && ctx.opt.have_hk);
	assert_int_equal(osn("record -o x.data --force --strict -q --json --top 0"), -1);
	assert_int_equal(ctx.mode, M_RECORD);
	assert_string_equal(ctx.opt.output, "x.data");
	assert_true(ctx.opt.force && ctx.opt.strict && ctx.out.quiet && ctx.out.json);
	assert_int_equal(ctx.out.top_n, 0);
	assert_int_equal(osn("top --replay r.data"), -1);
	assert_string_equal(ctx.opt.input, "r.data");
	/* --backend, --kernel its alias, and what bpf refuses (docs/osnoise.md "Backends") */
	assert_int_equal(osn(""), -1);
	assert_int_equal(ctx.opt.backend, OB_PERF);
	assert_false(ctx.opt.backend_given);
	assert_int_equal(osn("hist --backend bpf"), -1);
	assert_int_equal(ctx.opt.backend, OB_BPF);
	assert_int_equal(osn("trace --backend bpf -s 10"), -1);
	assert_int_equal(osn("--backend auto"), -1);
	assert_int_equal(ctx.opt.backend, OB_AUTO);
	assert_int_equal(osn("--kernel"), -1);
	assert_int_equal(ctx.opt.backend, OB_KERNEL);
	assert_int_equal(osn("--kernel --backend kernel"), -1);
	assert_int_equal(osn("--kernel --backend perf"), 2);
	assert_int_equal(osn("--backend foo"), 2);
	assert_int_equal(osn("record --backend bpf"), 2);
	assert_int_equal(osn("trace --events --backend bpf"), 2);
	assert_int_equal(osn("--backend bpf --no-workload"), 2);
	assert_int_equal(osn("--backend bpf --no-attribution"), 2);
	assert_int_equal(osn("--backend perf -i r.data"), 2);
	assert_int_equal(osn("--backend kernel --parse-kernel k.txt"), 2);
	assert_int_equal(osn("record --backend auto"), -1);	/* auto: perf records */
	/* refused: exit status 2 with one line on stderr */
	assert_int_equal(osn("-p 5"), 2);
	assert_int_equal(osn("-p 1500ns"), 2);
	assert_int_equal(osn("-T 0"), 2);
	assert_int_equal(osn("-d 0"), 2);
	assert_int_equal(osn("--ring-size 2"), 2);
	assert_int_equal(osn("-P x:1"), 2);
	assert_int_equal(osn("-r 2000 -p 1000"), 2);
	assert_int_equal(osn("record -i r.data"), 2);
	assert_int_equal(osn("nosuchmode"), 2);
	assert_int_equal(osn("top extra"), 2);
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
	c->lo.prio.policy = SCHED_FIFO;
	c->lo.prio.prio = 95;
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
	assert_int_equal(c.lo.prio.policy, SCHED_FIFO);
	assert_int_equal(c.lo.prio.prio, 90);
	assert_int_equal(c.lo.duration_ns, 90000000000ULL);
	assert_int_equal(c.lo.ring_bytes, 512 << 10);	/* a bare number is KiB */
	assert_true(c.o.threshold_given);
	assert_int_equal(c.o.threshold_ns, 5000);
	assert_true(c.o.quiet && c.lo.cpus_given);
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "-P", "o:5", "--ring-bytes",
				    "65536", "--threshold", "250", NULL), 0);
	assert_int_equal(c.lo.prio.policy, SCHED_OTHER);
	assert_int_equal(c.lo.prio.prio, 5);
	assert_int_equal(c.lo.ring_bytes, 65536);	/* the old option keeps its bytes */
	assert_int_equal(c.o.threshold_ns, 250000);	/* a bare number is us */
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--priority=r:10", NULL), 0);
	assert_int_equal(c.lo.prio.policy, SCHED_RR);
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "--prio", "0", NULL), 0);
	assert_int_equal(c.lo.prio.policy, SCHED_OTHER);
	assert_int_equal(c.lo.prio.prio, 0);
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "--prio", "80", NULL), 0);
	assert_int_equal(c.lo.prio.policy, SCHED_FIFO);
	assert_int_equal(c.lo.prio.prio, 80);

	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-d", "x", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: --duration 'x': expected a duration such as 10s, "
				 "1m30s, 500ms (a bare number is seconds)");
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-P", "f:100", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: --priority 'f:100': expected o:NICE (-20..19), "
				 "r:PRIO or f:PRIO (1..99), d:RUNTIME:PERIOD (SCHED_DEADLINE, e.g. d:100us:1ms), or PRIO for f:PRIO");
	assert_int_equal(hist_parse(&hist_record_cli, &c, err, sizeof(err), "-p", "95", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist record: unknown option '-p'; see --help");
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--ring-size", "1", NULL), -EINVAL);
	assert_int_equal(hist_parse(&hist_top_cli, &c, err, sizeof(err), "--interval", "5us", NULL), -EINVAL);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "-d", "1", NULL), -EINVAL);
	assert_string_equal(err, "latscope hist report: unknown option '-d'; see --help");
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--types", "wakeup,bogus", NULL),
			 -EINVAL);
	assert_false(c.o.types_given);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--types", "timer", "--offset",
				    "-5us", "--time", "1.5,", NULL), 0);
	assert_true(c.o.types[HSET_MISSED_TIMER] && !c.o.types[HSET_WAKEUP]);
	assert_int_equal(c.o.lcfg.hist.lo_ns, -5000);
	assert_true(c.o.time_given);
	assert_int_equal(c.o.time_lo_ns, 1500000000ULL);
	assert_int_equal(hist_parse(&hist_report_cli, &c, err, sizeof(err), "--time", "3,2", NULL), -EINVAL);
}

/* script follows perf script: -i, -F, -C/--cpu (and --cpus), -j, -v, -q */
static void test_script_letters(void **state)
{
	(void)state;
	const struct cli_cmd *c = &script_cli;
	want_key(c, "input", 'i');
	want_key(c, "fields", 'F');
	want_key(c, "cpu", 'C');
	want_key(c, "jobs", 'j');
	want_key(c, "verbose", 'v');
	want_key(c, "quiet", 'q');
	assert_int_equal(find(c, "cpus")->type, CLI_T_CPUS);
	assert_null(find(c, "cpus")->help);	/* accepted, not listed (as before) */
	const char *long_only[] = { "ns", "pid", "tid", "time", "json", "unordered", "kallsyms", "strict" };
	for (size_t i = 0; i < sizeof(long_only) / sizeof(long_only[0]); i++) {
		assert_non_null(find(c, long_only[i]));
		assert_int_equal(find(c, long_only[i])->key, 0);
	}
	assert_false(c->stop_at_operand);
}

static struct script_params sp;

/* script_parse() of "script" + the words of line: -1 (go on) or the exit status */
static int scr(const char *line)
{
	char buf[256], *argv[32];
	int argc = words(buf, sizeof(buf), argv, "script", line);

	return script_parse(&sp, argc, argv);
}

static void test_script_values(void **state)
{
	(void)state;
	char *argv[] = { "script", "-i", "in.data", "--kallsyms", "", NULL };

	/* defaults */
	assert_int_equal(scr(""), -1);
	assert_string_equal(sp.input, "perf.data");
	assert_int_equal(sp.po.fields, 0);	/* pp's default set */
	assert_false(sp.po.ns || sp.ro.unordered || sp.cpu_filter || sp.json || sp.quiet || sp.strict ||
		     sp.verbose);
	assert_null(sp.po.kallsyms);
	assert_int_equal(sp.jobs, 1);
	assert_int_equal(sp.pids.n + sp.tids.n, 0);
	assert_int_equal(sp.t0, 0);
	assert_true(sp.t1 == UINT64_MAX);
	/* every option */
	assert_int_equal(scr("-i - --ns -F comm,tid,event -C 1,3 --pid 5,-1 --tid 7 --time 1.5,2 "
			     "--unordered -j2 -v -q --strict"), -1);
	assert_string_equal(sp.input, "-");
	assert_true(sp.po.ns && sp.ro.unordered && !sp.json && sp.verbose && sp.quiet && sp.strict);
	assert_int_equal(sp.po.fields, PDPRINT_F_COMM | PDPRINT_F_TID | PDPRINT_F_EVNAME);
	assert_true(sp.cpu_filter);
	assert_true(parse_cpuset_has(&sp.cpus, 1) && parse_cpuset_has(&sp.cpus, 3) && !parse_cpuset_has(&sp.cpus, 2));
	assert_int_equal(sp.pids.n, 2);
	assert_int_equal(sp.pids.v[0], 5);
	assert_int_equal(sp.pids.v[1], -1);
	assert_int_equal(sp.tids.n, 1);
	assert_int_equal(sp.tids.v[0], 7);
	assert_int_equal(sp.t0, 1500000000ULL);
	assert_int_equal(sp.t1, 2000000000ULL);
	assert_int_equal(sp.jobs, 2);
	assert_int_equal(scr("--json -i -"), -1);
	assert_true(sp.json);
	assert_int_equal(scr("--cpus 0-2 -F +ip --time ,3"), -1);
	assert_true(sp.cpu_filter && parse_cpuset_has(&sp.cpus, 2));
	assert_true(sp.po.fields & PDPRINT_F_IP);
	assert_true(sp.po.fields & PDPRINT_F_COMM);	/* + adds to the default */
	assert_int_equal(sp.t0, 0);
	assert_int_equal(sp.t1, 3000000000ULL);
	assert_int_equal(script_parse(&sp, 5, argv), -1);	/* '' = never resolve */
	assert_string_equal(sp.input, "in.data");
	assert_string_equal(sp.po.kallsyms, "");
	/* refused: exit status 2 with one line on stderr */
	assert_int_equal(scr("-F bogus"), 2);
	assert_int_equal(scr("-C x"), 2);
	assert_int_equal(scr("--pid a"), 2);
	assert_int_equal(scr("--tid 1,,x"), 2);
	assert_int_equal(scr("--time x"), 2);
	assert_int_equal(scr("--time 3,2"), 2);
	assert_int_equal(scr("-j 0"), 2);
	assert_int_equal(scr("-j 3"), 2);
	assert_int_equal(scr("--bogus"), 2);
	assert_int_equal(scr("-i"), 2);
	assert_int_equal(scr("perf.data"), 2);	/* the input is given with -i */
}

/* the messages of a bad value: the shared form, naming option and value */
static void test_script_messages(void **state)
{
	(void)state;
	struct script_params p = { 0 };
	char err[256];
	char *argv[] = { "latscope script", "-F", "x", NULL };

	assert_int_equal(cli_parse(&script_cli, 3, argv, &p, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "latscope script: --fields 'x': expected fields among "
				 "comm,tid,pid,cpu,time,event,trace,ip,period,addr");
	argv[1] = "--jobs";
	argv[2] = "3";
	assert_int_equal(cli_parse(&script_cli, 3, argv, &p, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "latscope script: --jobs '3': expected 1 or 2 (both run on one thread)");
	argv[1] = "--time";
	argv[2] = "1,x";
	assert_int_equal(cli_parse(&script_cli, 3, argv, &p, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "latscope script: --time '1,x': expected START,END in seconds (e.g. 485.5,486)");
}

/* every value an option's choices list (what `latscope completion` offers)
 * is one its parser takes, and a value off the list is refused */
static void test_choices_parse(void **state)
{
	static _Alignas(64) unsigned char params[1 << 20];	/* any command's params */
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		for (const struct cli_opt *o = cmds[i]->opts; o->name; o++) {
			if (!o->choices)
				continue;
			assert_int_equal(o->type, CLI_T_CUSTOM);
			assert_non_null(o->choices[0]);
			char name[64], err[256];
			snprintf(name, sizeof(name), "--%s", o->name);
			for (const char *const *v = o->choices; *v; v++, n++) {
				char *argv[] = { (char *)"x", name, (char *)*v, NULL };
				memset(params, 0, sizeof(params));
				int rc = cli_parse(cmds[i], 3, argv, params, NULL, err, sizeof(err));
				if (rc)
					fail_msg("%s %s %s: %s", cmds[i]->name, name, *v, err);
			}
			char *bad[] = { (char *)"x", name, (char *)"no-such-value", NULL };
			memset(params, 0, sizeof(params));
			assert_true(cli_parse(cmds[i], 3, bad, params, NULL, err, sizeof(err)) < 0);
		}
	}
	assert_true(n >= 14);	/* osnoise, hist record/top, monitor --backend; dtl --event, --layout */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_ok),
		cmocka_unit_test(test_choices_parse),
		cmocka_unit_test(test_usage_lists_all),
		cmocka_unit_test(test_perf_letters),
		cmocka_unit_test(test_rtla_letters),
		cmocka_unit_test(test_osnoise_values),
		cmocka_unit_test(test_hist_letters),
		cmocka_unit_test(test_hist_values),
		cmocka_unit_test(test_script_letters),
		cmocka_unit_test(test_script_values),
		cmocka_unit_test(test_script_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
