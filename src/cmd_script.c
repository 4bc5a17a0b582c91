/* SPDX-License-Identifier: MIT */
/* cmd_script.c - `latscope script`: print perf.data samples like perf script. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "parse.h"
#include "pdprint.h"
#include "pdread.h"
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope script [-i FILE] [options]\n"
"\n"
"Print every sample of a perf.data file (default ./perf.data, '-' for a pipe)\n"
"in perf script's layout: comm tid [cpu] sec.usec: event: fields.\n"
"\n"
"  -i, --input FILE      perf.data file, or - for stdin (pipe mode)\n"
"      --ns              nanosecond timestamps\n"
"  -F, --fields LIST     comm,tid,pid,cpu,time,event,trace,ip,period,addr\n"
"                        (+LIST adds to the default comm,tid,cpu,time,event,trace)\n"
"  -C, --cpu LIST        only these CPUs (0-3,7)\n"
"      --pid LIST        only these process ids (comma separated)\n"
"      --tid LIST        only these thread ids\n"
"      --time START,END  only samples in this perf-time window (seconds, either may be empty)\n"
"      --json            one JSON object per line per sample, fields typed\n"
"      --unordered       print in file order (no time sorting)\n"
"      --kallsyms FILE   resolve symbol fields (%%ps) with FILE ('' = never); by default\n"
"                        /proc/kallsyms when the file was recorded on this kernel\n"
"  -j, --jobs N          accepted for compatibility (1 or 2): script runs on one\n"
"                        thread, which measured faster than any split\n"
"  -v, --verbose         say on stderr which event formats were compiled and\n"
"                        which libtraceevent printed (and why)\n"
"  -q, --quiet           no summary on stderr\n"
"      --strict          exit 1 when events were lost or records skipped (the summary\n"
"                        says which)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0 ok, 1 data lost or skipped under --strict, 2 unreadable or\n"
"malformed input (the message names the file offset) or a write error on the\n"
"output.  See latscope-script(1).\n");
}

#define MAX_IDS 64

struct idlist {
	int n;
	int32_t v[MAX_IDS];
};

static int parse_idlist(const char *s, struct idlist *l)
{
	char *dup = strdup(s), *save = NULL;
	if (!dup)
		return -ENOMEM;
	l->n = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int64_t v;
		if (l->n == MAX_IDS || ps_i64(t, -1, INT32_MAX, &v)) {
			free(dup);
			return -EINVAL;
		}
		l->v[l->n++] = (int32_t)v;
	}
	free(dup);
	return l->n ? 0 : -EINVAL;
}

static bool in_list(const struct idlist *l, int32_t v)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

/* pp_emit's writer: stdout (errors are seen by ferror/cio_finish). */
static int emit_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (fwrite_unlocked(s, 1, n, stdout) != n)
		cio_note_error();
	return 0;
}

/* -v: how each tracepoint format was printed. */
static void report_formats(struct pp *p)
{
	struct pp_format_stat fs;
	for (size_t i = 0; pp_format_stat(p, i, &fs); i++) {
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
	enum { O_NS = 256, O_PID, O_TID, O_TIME, O_JSON, O_UNORDERED, O_KALLSYMS, O_STRICT };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "ns", no_argument, NULL, O_NS },
		{ "fields", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "time", required_argument, NULL, O_TIME },
		{ "json", no_argument, NULL, O_JSON },
		{ "unordered", no_argument, NULL, O_UNORDERED },
		{ "quiet", no_argument, NULL, 'q' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data";
	struct pp_opts po = { 0 };
	struct pdr_opts ro = { 0 };
	struct ps_cpuset cpus;
	bool cpu_filter = false, json = false, quiet = false, strict = false, verbose = false;
	uint64_t jobs = 1;	/* accepted, not used: one thread */
	struct idlist pids = { 0 }, tids = { 0 };
	uint64_t t0 = 0, t1 = UINT64_MAX;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:F:C:qhj:v", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case O_NS:
			po.ns = true;
			break;
		case 'F':
			if (pp_parse_fields(optarg, &po.fields)) {
				fprintf(stderr, "latscope script: -F '%s': fields are comm,tid,pid,cpu,time,event,trace,ip,period,addr\n", optarg);
				return EXIT_ERR;
			}
			break;
		case 'C':
			if (ps_cpulist(optarg, &cpus)) {
				fprintf(stderr, "latscope script: --cpu '%s' is not a CPU list like 0-3,7\n", optarg);
				return EXIT_ERR;
			}
			cpu_filter = true;
			break;
		case O_PID:
		case O_TID:
			if (parse_idlist(optarg, c == O_PID ? &pids : &tids)) {
				fprintf(stderr, "latscope script: --%s '%s' is not a comma-separated list of ids\n",
					c == O_PID ? "pid" : "tid", optarg);
				return EXIT_ERR;
			}
			break;
		case O_TIME:
			if (ps_time_range(optarg, &t0, &t1)) {
				fprintf(stderr, "latscope script: --time '%s' is not START,END in seconds (e.g. 485.5,486)\n", optarg);
				return EXIT_ERR;
			}
			break;
		case O_JSON:
			json = true;
			break;
		case O_UNORDERED:
			ro.unordered = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case O_KALLSYMS:
			po.kallsyms = optarg;
			break;
		case O_STRICT:
			strict = true;
			break;
		case 'j':
			if (ps_u64(optarg, 1, 2, &jobs)) {
				fprintf(stderr, "latscope script: --jobs takes 1 or 2 (both run on one thread)\n");
				return EXIT_ERR;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_ERR;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "latscope script: unexpected argument '%s' (the input is given with -i)\n", argv[optind]);
		return EXIT_ERR;
	}

	/* Large files are read with read(2) into reused blocks: faulting a
	 * mapping in costs several times the copy on VMs.  Small ones are
	 * mapped: then no fresh memory is needed for them at all, which wins
	 * below a few MB (docs/script.md). */
	struct stat ist;
	ro.no_map = strcmp(input, "-") && stat(input, &ist) == 0 && S_ISREG(ist.st_mode) &&
		    ist.st_size > (8 << 20);
	struct pdr *r;
	cio_sigpipe_as_error();	/* a closed pipe is a write error: reported, exit 2 */
	int err = pdr_open(&r, input, &ro);
	if (err) {
		fprintf(stderr, "latscope script: %s\n", pdr_strerror(r));
		if (err == -ENOENT)
			fprintf(stderr, "latscope script: record one with `perf record -e 'sched:*' -a -- sleep 1`, or name it with -i\n");
		pdr_close(r);
		return EXIT_ERR;
	}
	po.defer_symbols = !json;
	struct pp *p = pp_new(r, &po);
	if (!p) {
		pdr_close(r);
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
	(void)jobs;
	struct stat so;
	if (!json && fstat(STDOUT_FILENO, &so) == 0 && S_ISFIFO(so.st_mode))
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4 * OB_CHUNK);
	char *ob = malloc(OB_HOLD);
	size_t ol = 0;
	if (!ob) {
		pp_free(p);
		pdr_close(r);
		fprintf(stderr, "latscope script: out of memory\n");
		return EXIT_ERR;
	}
	/* small pieces (JSON, text around deferred symbols) are gathered here */
	static char sbuf[64 << 10];
	setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf));
	char *big = NULL;
	size_t bigcap = 0;
	uint64_t samples = 0, printed = 0;
	struct pdr_event ev;
	while ((err = pdr_next(r, &ev)) > 0) {
		if ((samples & 1023) == 0 && ferror(stdout))
			break;	/* the output is gone: stop reading (cio_finish() says why) */
		if (ev.type != PDF_RECORD_SAMPLE) {
			pp_track(p, &ev);
			continue;
		}
		samples++;
		if (!ev.has_sample)
			continue;
		const struct pdr_sample *s = &ev.sample;
		if (cpu_filter && !ps_cpuset_has(&cpus, s->cpu))
			continue;
		if (pids.n && !in_list(&pids, (int32_t)s->pid))
			continue;
		if (tids.n && !in_list(&tids, (int32_t)s->tid))
			continue;
		if (s->time < t0 || s->time > t1)
			continue;
		printed++;
		if (json) {
			struct json_object *o = pp_json(p, &ev);
			if (o) {
				fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
				fputc('\n', stdout);
				json_object_put(o);
			}
			continue;
		}
		size_t lim = pp_symbols_pending(p) ? OB_HOLD : OB_CHUNK;
		size_t n = ol < lim ? pp_format(p, &ev, ob + ol, lim - ol) : SIZE_MAX;
		if (n < lim - ol) {
			ol += n;
			continue;
		}
		if (ol) {
			pp_emit(p, ob, ol, emit_stdout, NULL);
			ol = 0;
			n = pp_format(p, &ev, ob, OB_CHUNK);
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
		pp_format(p, &ev, big, bigcap);
		pp_emit(p, big, n, emit_stdout, NULL);
	}
	pp_emit(p, ob, ol, emit_stdout, NULL);
	free(ob);
	free(big);
	if (verbose)
		report_formats(p);
	int rc = 0;
	if (cio_finish(stdout, "latscope script", "standard output"))
		rc = EXIT_ERR;
	if (!rc && err < 0) {	/* a read error; after a write error it does not matter */
		fprintf(stderr, "latscope script: %s\n", pdr_strerror(r));
		rc = EXIT_ERR;
	}
	const struct pdr_stats *st = pdr_stats(r);
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
		pp_memo_stats(p, &h, &m, &z);
		fprintf(stderr, "memo: %llu hits %llu misses %llu resets\n", (unsigned long long)h,
			(unsigned long long)m, (unsigned long long)z);
	}
	pp_free(p);
	cio_pdr_close(r, "latscope script", input);
	return rc;
}
