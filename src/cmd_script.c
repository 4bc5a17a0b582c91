/* SPDX-License-Identifier: MIT */
/* cmd_script.c - `latscope script`: print perf.data samples like perf script. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "jsonout.h"
#include "script_cmd.h"
#include "scriptout.h"

static int parse_idlist(const char *s, struct script_idlist *l)
{
	char *dup = strdup(s), *save = NULL;
	if (!dup)
		return -ENOMEM;
	l->n = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int64_t v;
		if (l->n == SCRIPT_MAX_IDS || parse_i64(t, -1, INT32_MAX, &v)) {
			free(dup);
			return -EINVAL;
		}
		l->v[l->n++] = (int32_t)v;
	}
	free(dup);
	return l->n ? 0 : -EINVAL;
}

static bool in_list(const struct script_idlist *l, int32_t v)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

static int parse_fields(const char *arg, void *params)
{
	return pdprint_parse_fields(arg, &((struct script_params *)params)->po.fields) ? -EINVAL : 0;
}

static int parse_pids(const char *arg, void *params)
{
	return parse_idlist(arg, &((struct script_params *)params)->pids);
}

static int parse_tids(const char *arg, void *params)
{
	return parse_idlist(arg, &((struct script_params *)params)->tids);
}

static int parse_time(const char *arg, void *params)
{
	struct script_params *p = params;
	return parse_time_range(arg, &p->t0, &p->t1) ? -EINVAL : 0;
}

#define SCR_OPT(n, k, t, f, lo, hi, a, h, e) CLI_OPT(n, k, t, struct script_params, f, CLI_NONE, lo, hi, 0, a, h, e)
#define SCR_FLAG(n, k, f, h) SCR_OPT(n, k, CLI_T_FLAG, f, 0, 0, NULL, h, NULL)
static const struct cli_opt script_opts[] = {
	SCR_OPT("input", 'i', CLI_T_STR, input, 0, 0, "FILE", "perf.data file, or - for stdin (pipe mode)",
		"a perf.data file, or - for stdin"),
	SCR_FLAG("ns", 0, po.ns, "nanosecond timestamps"),
	CLI_CUSTOM("fields", 'F', parse_fields, "LIST", "comm,tid,pid,cpu,time,event,trace,ip,period,addr\n"
		   "(+LIST adds to the default comm,tid,cpu,time,event,trace)",
		   "fields among comm,tid,pid,cpu,time,event,trace,ip,period,addr"),
	CLI_CPU_PERF(struct script_params, cpus, cpu_filter, "only these CPUs (0-3,7)"),
	CLI_CUSTOM("pid", 0, parse_pids, "LIST", "only these process ids (comma separated)",
		   "a comma-separated list of ids"),
	CLI_CUSTOM("tid", 0, parse_tids, "LIST", "only these thread ids", "a comma-separated list of ids"),
	CLI_CUSTOM("time", 0, parse_time, "START,END",
		   "only samples in this perf-time window (seconds, either\nmay be empty)",
		   "START,END in seconds (e.g. 485.5,486)"),
	CLI_JSON(struct script_params, json, json_file),	/* one object per line per sample */
	SCR_FLAG("unordered", 0, ro.unordered, "print in file order (no time sorting)"),
	SCR_OPT("kallsyms", 0, CLI_T_STR, po.kallsyms, 0, 0, "FILE",
		"resolve symbol fields (%ps) with FILE ('' = never); by\n"
		"default /proc/kallsyms when the file was recorded on\nthis kernel", "a kallsyms file, or '' for none"),
	SCR_OPT("jobs", 'j', CLI_T_U64, jobs, 1, 2, "N",
		"accepted for compatibility (1 or 2): script runs on\n"
		"one thread, which measured faster than any split", "1 or 2 (both run on one thread)"),
	SCR_FLAG("verbose", 'v', verbose, "say on stderr which event formats were compiled and\n"
		 "which libtraceevent printed (and why)"),
	CLI_QUIET(struct script_params, quiet, "no summary on stderr"),
	CLI_STRICT(struct script_params, strict),
	CLI_FORCE(struct script_params, force),
	CLI_END
};

const struct cli_cmd script_cli = {
	.name = "latscope script",
	.usage = "usage: latscope script [-i FILE] [options]",
	.intro =
"Print every sample of a perf.data file (default ./perf.data, '-' for a pipe)\n"
"in perf script's layout: comm tid [cpu] sec.usec: event: fields.\n",
	.opts = script_opts,
	.outro =
"Exit status: 0 ok, 1 data lost or skipped under --strict, 2 unreadable or\n"
"malformed input (the message names the file offset) or a write error on the\n"
"output.  See latscope-script(1).\n",
	.operands = true,	/* refused below, with a hint at -i */
	/* the JSON objects carry every field, typed */
	.conflicts = (const char *const[][2]){ { "json", "fields" }, { NULL, NULL } },
};

int script_parse(struct script_params *p, int argc, char **argv)
{
	char err[512];
	int first;

	memset(p, 0, sizeof(*p));
	p->input = "perf.data";
	p->jobs = 1;
	p->t1 = UINT64_MAX;
	int rc = cli_parse(&script_cli, argc, argv, p, &first, err, sizeof(err));
	if (rc == CLI_HELP) {
		cli_usage(&script_cli, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "latscope script: bad command line");
		return EXIT_ERR;
	}
	if (first < argc) {
		fprintf(stderr, "latscope script: unexpected argument '%s' (the input is given with -i)\n",
			argv[first]);
		return EXIT_ERR;
	}
	return -1;
}

/* -v: how each tracepoint format was printed. */
static void report_formats(struct pdprint *p)
{
	struct pdprint_format_stat fs;
	for (size_t i = 0; pdprint_format_stat(p, i, &fs); i++) {
		if (fs.compiled)
			fprintf(stderr, "latscope script: %s: compiled (%llu samples, %llu printed by libtraceevent)\n",
				fs.name, (unsigned long long)fs.compiled_samples,
				(unsigned long long)fs.fallback_samples);
		else
			fprintf(stderr, "latscope script: %s: libtraceevent, %s (%llu samples)\n", fs.name, fs.why,
				(unsigned long long)fs.fallback_samples);
	}
}

/* One run of latscope script: the command line, the reader and the printer,
 * the outputs and the counts.  r, p, so and jf are owned here: the steps
 * below free them (open_outputs() on its failure, cmd_script() at the end). */
struct script_run {
	const struct script_params *sp;
	struct pdread *r;
	struct pdprint *p;
	struct scriptout so;	/* text: the output buffer shared with dtl script (src/scriptout.h) */
	struct safeout_file *jsf;
	FILE *jf;		/* --json=FILE, or NULL */
	uint64_t samples, printed;
};

/* Open the input for reading in perf script's way: 0, or EXIT_ERR after the
 * message (with a hint when there is no such file). */
static int open_input(struct script_run *run)
{
	const struct script_params *sp = run->sp;
	struct pdread_opts ro = sp->ro;

	ro.no_map = scriptout_no_map(sp->input);
	ro.keep_duplicates = true;	/* printed as perf script prints them, and said */
	cmdio_sigpipe_as_error();	/* a closed pipe is a write error: reported, exit 2 */
	int err = cmdio_pdr_open(&run->r, sp->input, &ro, "latscope script");
	if (err) {
		if (err == -ENOENT)
			fprintf(stderr, "latscope script: record one with `perf record -e 'sched:*' -a -- sleep 1`, or name it with -i\n");
		return EXIT_ERR;
	}
	return 0;
}

/* The printer, and the outputs: stdout's buffer for --json, the text buffer
 * otherwise, and the --json=FILE file.  0, or EXIT_ERR after the message with
 * everything of the run freed (the reader too). */
static int open_outputs(struct script_run *run)
{
	const struct script_params *sp = run->sp;
	struct pdprint_opts po = sp->po;

	po.defer_symbols = !sp->json;
	run->p = pdprint_new(run->r, &po);
	if (!run->p) {
		pdread_close(run->r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	if (sp->json) {
		static char sbuf[64 << 10];
		setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf));
	} else if (scriptout_init(&run->so, run->p)) {
		scriptout_free(&run->so);
		pdprint_free(run->p);
		pdread_close(run->r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	if (sp->json_file && !sp->json &&
	    !(run->jf = cmdio_fopen_safe(&run->jsf, AT_FDCWD, sp->json_file, NULL, sp->force, "latscope script"))) {
		scriptout_free(&run->so);
		pdprint_free(run->p);
		pdread_close(run->r);
		return EXIT_ERR;
	}
	return 0;
}

/* Whether the filters (-C, --pid, --tid, --time) let sample s through. */
static bool sample_wanted(const struct script_params *sp, const struct pdread_sample *s)
{
	if (sp->cpu_filter && !parse_cpuset_has(&sp->cpus, s->cpu))
		return false;
	if (sp->pids.n && !in_list(&sp->pids, (int32_t)s->pid))
		return false;
	if (sp->tids.n && !in_list(&sp->tids, (int32_t)s->tid))
		return false;
	return s->time >= sp->t0 && s->time <= sp->t1;
}

/* One wanted sample: its JSON line (--json, --json=FILE), its text line
 * (unless --json).  False when the printer refused it (the run stops). */
static bool print_sample(struct script_run *run, const struct pdread_event *ev)
{
	bool json = run->sp->json;

	if (json || run->jf) {
		struct json_object *o = pdprint_json(run->p, ev, REPORT_SCRIPT);
		if (o) {
			jsonout_line(o, run->jf ? run->jf : stdout);	/* a failed write: said below */
			json_object_put(o);
		}
		if (json)
			return true;
	}
	return scriptout_sample(&run->so, ev);
}

/* Every record of the input: the samples printed, the others tracked (task
 * names).  Stops when the output is gone or a sample was refused; returns
 * pdread_next()'s last answer (< 0: a read error). */
static int print_samples(struct script_run *run)
{
	struct pdread_event ev;
	int err;

	while ((err = pdread_next(run->r, &ev)) > 0) {
		if ((run->samples & 1023) == 0 && ferror(stdout))
			break;	/* the output is gone: stop reading (cmdio_finish() says why) */
		if (ev.type != PDFORMAT_RECORD_SAMPLE) {
			pdprint_track(run->p, &ev);
			continue;
		}
		run->samples++;
		if (!ev.has_sample || !sample_wanted(run->sp, &ev.sample))
			continue;
		run->printed++;
		if (!print_sample(run, &ev))
			break;	/* refused: said below */
	}
	return err;
}

/* The exit status of the printing: a write error (stdout, --json=FILE), a
 * refused sample (refused: why), a read error (err < 0); then --strict's
 * verdict on what the reader lost or skipped.  Each said on stderr. */
static int script_status(const struct script_run *run, int err, const char *refused)
{
	const struct script_params *sp = run->sp;
	int rc = 0;

	if (cmdio_finish(stdout, "latscope script", "standard output"))
		rc = EXIT_ERR;
	if (run->jf && cmdio_fclose_safe(run->jf, run->jsf, sp->json_file, err < 0, "latscope script"))
		rc = EXIT_ERR;
	if (refused && !rc) {
		fprintf(stderr, "latscope script: stopped after %llu samples: not printed as perf script prints them: %s\n",
			(unsigned long long)(run->printed - 1), refused);
		rc = EXIT_ERR;
	}
	if (!rc && err < 0) {	/* a read error; after a write error it does not matter */
		fprintf(stderr, "latscope script: %s\n", pdread_strerror(run->r));
		rc = EXIT_ERR;
	}
	const struct pdread_stats *st = pdread_stats(run->r);
	uint64_t dropped = st->lost_events + st->lost_samples + st->unknown_records + st->bad_samples +
			   st->unknown_id;
	if (sp->strict && dropped && rc == 0) {
		fprintf(stderr, "latscope script: %llu events were lost or skipped (--strict): exit 1\n",
			(unsigned long long)dropped);
		rc = EXIT_THRESHOLD;
	}
	return rc;
}

/* The summary on stderr when the reader lost, skipped, reordered or saw
 * duplicated anything (nothing otherwise). */
static void report_read_stats(const struct script_run *run)
{
	const struct pdread_stats *st = pdread_stats(run->r);

	if (!(st->lost_records || st->lost_samples_records || st->unknown_records || st->bad_samples ||
	      st->unknown_id || st->out_of_order || st->forced_flushes || st->duplicates))
		return;
	fprintf(stderr, "latscope script: %llu records, %llu samples, %llu printed\n",
		(unsigned long long)st->records, (unsigned long long)run->samples,
		(unsigned long long)run->printed);
	if (st->lost_records)
		fprintf(stderr, "  lost: %llu events in %llu LOST records (the kernel ring overflowed)\n",
			(unsigned long long)st->lost_events, (unsigned long long)st->lost_records);
	if (st->lost_samples_records)
		fprintf(stderr, "  lost: %llu samples in %llu LOST_SAMPLES records\n",
			(unsigned long long)st->lost_samples, (unsigned long long)st->lost_samples_records);
	if (st->unknown_records)
		fprintf(stderr, "  skipped: %llu records of unknown type\n", (unsigned long long)st->unknown_records);
	if (st->bad_samples)
		fprintf(stderr, "  skipped: %llu samples too short for their sample_type\n", (unsigned long long)st->bad_samples);
	if (st->unknown_id)
		fprintf(stderr, "  skipped: %llu records with an id no event declares\n", (unsigned long long)st->unknown_id);
	if (st->out_of_order)
		fprintf(stderr, "  %llu records arrived after their time had been flushed (printed late)\n",
			(unsigned long long)st->out_of_order);
	if (st->forced_flushes)
		fprintf(stderr, "  %llu queue flushes forced by the memory cap\n", (unsigned long long)st->forced_flushes);
	if (st->duplicates)
		fprintf(stderr, "  %llu samples are byte for byte the one before them (the recorder wrote part of "
			"a ring twice): printed, as perf script does; latscope's analyses drop them\n",
			(unsigned long long)st->duplicates);
}

int cmd_script(int argc, char **argv)
{
	struct script_params sp;
	struct script_run run = { .sp = &sp };
	int rc = script_parse(&sp, argc, argv);

	if (rc >= 0)
		return rc;
	if (open_input(&run) || open_outputs(&run))
		return EXIT_ERR;
	int err = print_samples(&run);
	if (!sp.json)
		scriptout_flush(&run.so);
	scriptout_free(&run.so);
	const char *refused = sp.json ? NULL : pdprint_refusal(run.p);
	if (sp.verbose)
		report_formats(run.p);
	rc = script_status(&run, err, refused);
	if (!sp.quiet)
		report_read_stats(&run);
	if (getenv("LATSCOPE_MEMO_STATS")) {
		uint64_t h, m, z;
		pdprint_memo_stats(run.p, &h, &m, &z);
		fprintf(stderr, "memo: %llu hits %llu misses %llu resets\n", (unsigned long long)h,
			(unsigned long long)m, (unsigned long long)z);
	}
	pdprint_free(run.p);
	cmdio_pdr_close(run.r, "latscope script", sp.input);
	return rc;
}
