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

int cmd_script(int argc, char **argv)
{
	struct script_params sp;
	int rc = script_parse(&sp, argc, argv);

	if (rc >= 0)
		return rc;
	const char *input = sp.input;
	struct pdprint_opts po = sp.po;
	struct pdread_opts ro = sp.ro;
	const struct parse_cpuset *cpus = &sp.cpus;
	const struct script_idlist *pids = &sp.pids, *tids = &sp.tids;
	bool cpu_filter = sp.cpu_filter, json = sp.json, quiet = sp.quiet, strict = sp.strict;
	uint64_t t0 = sp.t0, t1 = sp.t1;

	ro.no_map = scriptout_no_map(input);
	ro.keep_duplicates = true;	/* printed as perf script prints them, and said */
	struct pdread *r;
	cmdio_sigpipe_as_error();	/* a closed pipe is a write error: reported, exit 2 */
	int err = cmdio_pdr_open(&r, input, &ro, "latscope script");
	if (err) {
		if (err == -ENOENT)
			fprintf(stderr, "latscope script: record one with `perf record -e 'sched:*' -a -- sleep 1`, or name it with -i\n");
		return EXIT_ERR;
	}
	po.defer_symbols = !json;
	struct pdprint *p = pdprint_new(r, &po);
	if (!p) {
		pdread_close(r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	/* text: the output buffer shared with dtl script (src/scriptout.h) */
	struct scriptout so = { 0 };
	if (json) {
		static char sbuf[64 << 10];
		setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf));
	} else if (scriptout_init(&so, p)) {
		scriptout_free(&so);
		pdprint_free(p);
		pdread_close(r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	uint64_t samples = 0, printed = 0;
	struct safeout_file *jsf = NULL;
	FILE *jf = NULL;	/* --json=FILE */
	if (sp.json_file && !json &&
	    !(jf = cmdio_fopen_safe(&jsf, AT_FDCWD, sp.json_file, NULL, sp.force, "latscope script"))) {
		scriptout_free(&so);
		pdprint_free(p);
		pdread_close(r);
		return EXIT_ERR;
	}
	struct pdread_event ev;
	while ((err = pdread_next(r, &ev)) > 0) {
		if ((samples & 1023) == 0 && ferror(stdout))
			break;	/* the output is gone: stop reading (cmdio_finish() says why) */
		if (ev.type != PDFORMAT_RECORD_SAMPLE) {
			pdprint_track(p, &ev);
			continue;
		}
		samples++;
		if (!ev.has_sample)
			continue;
		const struct pdread_sample *s = &ev.sample;
		if (cpu_filter && !parse_cpuset_has(cpus, s->cpu))
			continue;
		if (pids->n && !in_list(pids, (int32_t)s->pid))
			continue;
		if (tids->n && !in_list(tids, (int32_t)s->tid))
			continue;
		if (s->time < t0 || s->time > t1)
			continue;
		printed++;
		if (json || jf) {
			struct json_object *o = pdprint_json(p, &ev, REPORT_SCRIPT);
			if (o) {
				jsonout_line(o, jf ? jf : stdout);	/* a failed write: said below */
				json_object_put(o);
			}
			if (json)
				continue;
		}
		if (!scriptout_sample(&so, &ev))
			break;	/* refused: said below */
	}
	if (!json)
		scriptout_flush(&so);
	scriptout_free(&so);
	const char *refused = json ? NULL : pdprint_refusal(p);
	if (sp.verbose)
		report_formats(p);
	rc = 0;
	if (cmdio_finish(stdout, "latscope script", "standard output"))
		rc = EXIT_ERR;
	if (jf && cmdio_fclose_safe(jf, jsf, sp.json_file, err < 0, "latscope script"))
		rc = EXIT_ERR;
	if (refused && !rc) {
		fprintf(stderr, "latscope script: stopped after %llu samples: not printed as perf script prints them: %s\n",
			(unsigned long long)(printed - 1), refused);
		rc = EXIT_ERR;
	}
	if (!rc && err < 0) {	/* a read error; after a write error it does not matter */
		fprintf(stderr, "latscope script: %s\n", pdread_strerror(r));
		rc = EXIT_ERR;
	}
	const struct pdread_stats *st = pdread_stats(r);
	uint64_t dropped = st->lost_events + st->lost_samples + st->unknown_records + st->bad_samples +
			   st->unknown_id;
	if (strict && dropped && rc == 0) {
		fprintf(stderr, "latscope script: %llu events were lost or skipped (--strict): exit 1\n",
			(unsigned long long)dropped);
		rc = EXIT_THRESHOLD;
	}
	if (!quiet && (st->lost_records || st->lost_samples_records || st->unknown_records ||
		       st->bad_samples || st->unknown_id || st->out_of_order || st->forced_flushes ||
		       st->duplicates)) {
		fprintf(stderr, "latscope script: %llu records, %llu samples, %llu printed\n",
			(unsigned long long)st->records, (unsigned long long)samples, (unsigned long long)printed);
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
	if (getenv("LATSCOPE_MEMO_STATS")) {
		uint64_t h, m, z;
		pdprint_memo_stats(p, &h, &m, &z);
		fprintf(stderr, "memo: %llu hits %llu misses %llu resets\n", (unsigned long long)h,
			(unsigned long long)m, (unsigned long long)z);
	}
	pdprint_free(p);
	cmdio_pdr_close(r, "latscope script", input);
	return rc;
}
