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
#include "script_cmd.h"
#include <sys/stat.h>
#include <unistd.h>

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
	SCR_FLAG("json", 0, json, "one JSON object per line per sample, fields typed"),
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

/* pdprint_emit's writer: stdout (errors are seen by ferror/cmdio_finish). */
static int emit_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (fwrite_unlocked(s, 1, n, stdout) != n)
		cmdio_note_error();
	return 0;
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

	/* Large files are read with read(2) into reused blocks: faulting a
	 * mapping in costs several times the copy on VMs.  Small ones are
	 * mapped: then no fresh memory is needed for them at all, which wins
	 * below a few MB (docs/script.md). */
	struct stat ist;
	ro.no_map = strcmp(input, "-") && stat(input, &ist) == 0 && S_ISREG(ist.st_mode) &&
		    ist.st_size > (8 << 20);
	struct pdread *r;
	cmdio_sigpipe_as_error();	/* a closed pipe is a write error: reported, exit 2 */
	int err = pdread_open(&r, input, &ro);
	if (err) {
		fprintf(stderr, "latscope script: %s\n", pdread_strerror(r));
		if (err == -ENOENT)
			fprintf(stderr, "latscope script: record one with `perf record -e 'sched:*' -a -- sleep 1`, or name it with -i\n");
		pdread_close(r);
		return EXIT_ERR;
	}
	po.defer_symbols = !json;
	struct pdprint *p = pdprint_new(r, &po);
	if (!p) {
		pdread_close(r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	/* Lines are formatted straight into an output buffer and written in
	 * 256 KiB chunks (more than stdout's buffer: written through): fresh
	 * memory is expensive on VMs, and a chunk this size amortises the write
	 * calls.  While symbols wait to be resolved the text is held, up to
	 * OB_HOLD, so that one pass over kallsyms serves them all (only the
	 * pages used are touched).  Into a pipe, a 1 MiB pipe buffer (where the
	 * system allows it) saves most of the switches between writer and
	 * reader: 0.15 -> 0.12 s through `| cat` on the shared recording. */
	enum { OB_CHUNK = 256 << 10, OB_HOLD = 4 << 20 };
	struct stat so;
	if (!json && fstat(STDOUT_FILENO, &so) == 0 && S_ISFIFO(so.st_mode))
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4 * OB_CHUNK);
	char *ob = malloc(OB_HOLD);
	size_t ol = 0;
	if (!ob) {
		pdprint_free(p);
		pdread_close(r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	/* small pieces (JSON, text around deferred symbols) are gathered here */
	static char sbuf[64 << 10];
	setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf));
	char *big = NULL;
	size_t bigcap = 0;
	uint64_t samples = 0, printed = 0;
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
		if (json) {
			struct json_object *o = pdprint_json(p, &ev);
			if (o) {
				fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
				fputc('\n', stdout);
				json_object_put(o);
			}
			continue;
		}
		size_t lim = pdprint_symbols_pending(p) ? OB_HOLD : OB_CHUNK;
		size_t n = ol < lim ? pdprint_format(p, &ev, ob + ol, lim - ol) : SIZE_MAX;
		if ((!ev.evsel || !ev.evsel->tp || s->callchain) && pdprint_refusal(p))
			break;	/* (only sampling lines and callchains refuse) */
		if (n < lim - ol) {
			ol += n;
			continue;
		}
		if (ol) {
			pdprint_emit(p, ob, ol, emit_stdout, NULL);
			ol = 0;
			n = pdprint_format(p, &ev, ob, OB_CHUNK);
			if (n < OB_CHUNK) {
				ol = n;
				continue;
			}
		}
		if (n + 1 > bigcap) {
			char *nb = realloc(big, n + 1);
			if (!nb)
				continue;
			big = nb;
			bigcap = n + 1;
		}
		pdprint_format(p, &ev, big, bigcap);
		pdprint_emit(p, big, n, emit_stdout, NULL);
	}
	pdprint_emit(p, ob, ol, emit_stdout, NULL);
	free(ob);
	const char *refused = pdprint_refusal(p);
	free(big);
	if (sp.verbose)
		report_formats(p);
	rc = 0;
	if (cmdio_finish(stdout, "latscope script", "standard output"))
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
		       st->bad_samples || st->unknown_id || st->out_of_order || st->forced_flushes)) {
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
