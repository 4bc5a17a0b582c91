/* SPDX-License-Identifier: MIT */
/*
 * cli.c - `latscope dtl`: POWER Dispatch Trace Log from perf.data.
 * Subcommands: dump, script (here), report (report.c),
 * record (record.c), synth (synth.c).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "pipeline.h"
#include "dtl.h"
#include "jsonv.h"
#include "ksym.h"
#include "dtl_cmd.h"
#include "dtlmerge.h"
#include "dtltl.h"
#include "parse.h"
#include "pdprint.h"
#include "pdread.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope dtl <subcommand> [options]\n"
"\n"
"POWER VPA Dispatch Trace Log: when the hypervisor took a vCPU away, why, and\n"
"for how long.\n"
"\n"
"  dump FILE        the DTL records as `perf report -D` shows them\n"
"  script FILE      one timeline of DTL entries and the other samples\n"
"  report FILE      per-CPU reasons, latency histograms, hypervisor time\n"
"  record -- CMD    record vpa_dtl + sched events on a shared-processor LPAR\n"
"  synth -o FILE    write a realistic synthetic recording (tests, demos)\n"
"\n"
"`latscope dtl <subcommand> --help` for its options; see latscope-dtl(1).\n");
}

int cmd_dtl(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERR;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(sub, "record"))
		cio_sigpipe_as_error();	/* a closed output is an error to report, not a kill */
	if (!strcmp(sub, "dump"))
		return dtl_cmd_dump(argc - 1, argv + 1);
	if (!strcmp(sub, "script"))
		return dtl_cmd_script(argc - 1, argv + 1);
	if (!strcmp(sub, "report"))
		return dtl_cmd_report(argc - 1, argv + 1);
	if (!strcmp(sub, "record"))
		return dtl_cmd_record(argc - 1, argv + 1);
	if (!strcmp(sub, "synth"))
		return dtl_cmd_synth(argc - 1, argv + 1);
	fprintf(stderr, "latscope dtl: no subcommand '%s'; try `latscope dtl --help`\n", sub);
	return EXIT_ERR;
}

/* ---- shared helpers ---- */

int dtl_cmd_window(const char *arg, void *params)
{
	struct dtlt_opts *to = &((struct dtl_cmd_in *)params)->to;

	if (!strcmp(arg, "auto")) {
		to->window_ns = 0;
		to->no_window = false;
		return 0;
	}
	if (ps_duration_ns(arg, 1000000000ULL, &to->window_ns))
		return -EINVAL;
	to->no_window = to->window_ns == 0;
	return 0;
}

int dtl_cmd_parse(const struct cli_cmd *cmd, int argc, char **argv, void *params, int *first)
{
	char err[512];
	int rc = cli_parse(cmd, argc, argv, params, first, err, sizeof(err));

	if (rc == CLI_HELP) {
		cli_usage(cmd, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : "bad command line");
		return EXIT_ERR;
	}
	return -1;
}

int dtl_cmd_file(const struct cli_cmd *cmd, struct dtl_cmd_in *in, int argc, char **argv, int first)
{
	if (!in->path && first < argc)
		in->path = argv[first++];
	if (!in->path) {
		fprintf(stderr, "%s: no input: give FILE or -i FILE; see --help\n", cmd->name);
		return EXIT_ERR;
	}
	if (first < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; see --help\n", cmd->name, argv[first]);
		return EXIT_ERR;
	}
	return 0;
}

int dtl_cmd_open(struct pdr **r, const char *path, bool unordered, bool no_map)
{
	struct pdr_opts o = { .unordered = unordered, .no_map = no_map };
	int err = pdr_open(r, path, &o);

	if (err < 0) {
		fprintf(stderr, "latscope dtl: cannot read %s: %s\n", path,
			*r && *pdr_strerror(*r) ? pdr_strerror(*r) : strerror(-err));
		pdr_close(*r);
		*r = NULL;
		return EXIT_ERR;
	}
	return 0;
}

void dtl_cmd_tb_warnings(const char *who, const char *path, const struct dtlt *t)
{
	const struct dtlm_stats *st = dtlm_stats(dtlt_merge(t));
	const struct dtlt_stats *ts = dtlt_stats(t);

	if (st->bad_tb_freq)
		fprintf(stderr, "%s: %s: CPU %u's DTL header says tb_freq %" PRIu64 " Hz, outside "
			"1 MHz..10 GHz (%" PRIu64 " such headers): DTL times are probably wrong; "
			"--tb-freq overrides it\n", who, path, st->bad_tb_freq_cpu, st->bad_tb_freq_value,
			st->bad_tb_freq);
	if (ts->far_entries)
		fprintf(stderr, "%s: %s: %" PRIu64 " DTL entries lie more than a day from the records "
			"around them (the first on CPU %u at %" PRIu64 ".%09" PRIu64 " s): boot_tb or tb_freq "
			"is probably wrong; --boot-tb and --tb-freq override them\n", who, path,
			ts->far_entries, ts->far_cpu, ts->far_time_ns / 1000000000u,
			ts->far_time_ns % 1000000000u);
}

int dtl_cmd_verdict(const char *who, const struct dtlt *t, const struct pdr *r)
{
	const struct dtlm_stats *st = t ? dtlm_stats(dtlt_merge(t)) : NULL;
	const struct dtlt_stats *ts = t ? dtlt_stats(t) : NULL;
	const struct pdr_stats *rs = pdr_stats(r);
	uint64_t lost = 0;
	char what[256] = "";
	size_t n = 0;

	if (st)
		for (int k = 0; k < DTLM_GAP_NR_KINDS; k++)
			if (k != DTLM_GAP_TB_BACKWARDS && k != DTLM_GAP_ODD_SIZE && k != DTLM_GAP_RING_FULL)
				lost += st->gaps[k];
	lost += rs->lost_records + rs->aux_truncated + rs->aux_partial + rs->aux_collision;
#define SAY(cond, ...) do { if ((cond) && n < sizeof(what)) \
	n += (size_t)snprintf(what + n, sizeof(what) - n, __VA_ARGS__); } while (0)
	SAY(lost, " %" PRIu64 " loss records/gaps;", lost);
	SAY(ts && ts->bad_cpu_buffers, " %" PRIu64 " AUX buffers dropped;", ts ? ts->bad_cpu_buffers : 0);
	SAY(st && st->late, " %" PRIu64 " entries late;", st ? st->late : 0);
	SAY(ts && ts->forced_records, " %" PRIu64 " records released early;", ts ? ts->forced_records : 0);
	SAY(rs->unknown_id || rs->bad_samples, " %" PRIu64 " samples skipped;", rs->unknown_id + rs->bad_samples);
#undef SAY
	if (!n)
		return 0;
	fprintf(stderr, "%s: --strict: the result is incomplete:%s exit 1\n", who, what);
	return EXIT_THRESHOLD;
}

int dtl_cmd_syms(struct ksym **k, const struct pdr *r, const char *path, bool none, const char *who)
{
	const struct pdr_info *in = pdr_info(r);
	int err;

	*k = NULL;
	if (none)
		return 0;
	if (path) {
		err = ksym_load(k, path);
		if (err) {
			fprintf(stderr, "%s: --kallsyms %s: %s\n", who, path,
				err == -EPERM ? "every address is 0 (kptr_restrict hides them: read it as root "
						"or set kernel.kptr_restrict=0)"
				: err == -ENODATA ? "no kernel text symbol in it" : strerror(-err));
			return EXIT_ERR;
		}
		return 0;
	}
	/* the recording's own kernel: this machine's symbols are right */
	if (ksym_matches_running(in->osrelease, in->arch) && ksym_load(k, "/proc/kallsyms"))
		*k = NULL;	/* not readable or hidden: addresses stay [unknown] */
	return 0;
}

bool dtl_cmd_sym(const struct ksym *k, uint64_t addr, char *buf, size_t len, bool with_dso)
{
	struct ksym_hit h;

	if (!k || !ksym_lookup(k, addr, &h)) {
		snprintf(buf, len, "%s", with_dso ? "[unknown] ([unknown])" : "");
		return false;
	}
	if (with_dso)
		ksym_format(buf, len, &h);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, h.name, h.offset);
	return true;
}

/* ---- dump ---- */

struct dump_params {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT */
	bool no_raw;
};
_Static_assert(offsetof(struct dump_params, in) == 0, "struct dtl_cmd_in first");

static const struct cli_opt dump_opts[] = {
	DTL_CMD_INPUT,
	CLI_OPT("no-raw", 0, CLI_T_FLAG, struct dump_params, no_raw, CLI_NONE, 0, 0, 0, NULL,
		"leave out the raw hex dump of each record", NULL),
	CLI_END
};

const struct cli_cmd dtl_dump_cli = {
	.name = "latscope dtl dump",
	.usage = "usage: latscope dtl dump [options] FILE",
	.intro =
"Print the DTL records of a perf.data file the way `perf report -D` prints\n"
"them: AUXTRACE_INFO, each AUXTRACE header, then `. ... VPA DTL PMU data:`\n"
"and one line per 48-byte slot with its offset.  The boot_tb/tb_freq header is\n"
"read in the file's byte order (perf reads it natively).\n",
	.opts = dump_opts,
	.operands = true,
};

static void hexdump(const uint8_t *p, size_t n)
{
	printf(".\n. ... raw event: size %zu bytes\n", n);
	for (size_t off = 0; off < n; off += 16) {
		size_t k = n - off < 16 ? n - off : 16;
		printf(".  %04zx: ", off);
		for (size_t i = 0; i < 16; i++) {
			if (i < k)
				printf(" %02x", p[off + i]);
			else
				printf("   ");
		}
		printf("  ");
		for (size_t i = 0; i < 16; i++)
			putchar(i < k ? (isprint(p[off + i]) ? p[off + i] : '.') : ' ');
		putchar('\n');
	}
}

/* The "cpu time " prefix perf prints before a user record (zeroed sample). */
static void tstamp_prefix(const struct pdr *r, char *buf, size_t len)
{
	uint64_t st = 0;
	bool any_id_all = false;

	for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
		const struct pdr_evsel *e = pdr_evsel(r, i);
		st |= e->attr.sample_type;
		if (pdf_attr_flag(&e->attr, PDF_ATTR_FLAG_SAMPLE_ID_ALL))
			any_id_all = true;
	}
	if (!any_id_all) {
		snprintf(buf, len, "-1 -1 ");
		return;
	}
	snprintf(buf, len, "%s%s", (st & PDF_SAMPLE_CPU) ? "0 " : "", (st & PDF_SAMPLE_TIME) ? "0 " : "");
}

static void dump_payload(const uint8_t *p, uint64_t size, bool swap)
{
	printf(".\n. ... VPA DTL PMU data: size %" PRIu64 " bytes, entries is %" PRIu64 "\n",
	       size, size / DTL_ENTRY_SIZE);
	for (uint64_t off = 0; off + DTL_ENTRY_SIZE <= size; off += DTL_ENTRY_SIZE) {
		const uint8_t *s = p + off;
		printf(".  %08" PRIx64 ": ", off);
		if (!dtl_raw_is_header(s)) {
			struct dtl_entry e;
			char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ];

			dtl_decode(s, &e);
			printf("dispatch_reason:%s, preempt_reason:%s, enqueue_to_dispatch_time:%d, "
			       "ready_to_enqueue_time:%d, waiting_to_ready_time:%d\n",
			       dtl_dispatch_reason_str(e.dispatch_reason, b1),
			       dtl_preempt_reason_str(e.preempt_reason, b2),
			       (int32_t)e.enqueue_to_dispatch_tb, (int32_t)e.ready_to_enqueue_tb,
			       (int32_t)e.waiting_to_ready_tb);
		} else {
			struct dtl_tbinfo h;
			dtl_header_read(s, swap, &h);
			printf("boot_tb: %" PRIu64 ", tb_freq: %" PRIu64 "\n", h.boot_tb, h.tb_freq);
		}
	}
	if (size % DTL_ENTRY_SIZE)
		printf(".  %08" PRIx64 ": (%" PRIu64 " trailing bytes, not a whole entry)\n",
		       size - size % DTL_ENTRY_SIZE, size % DTL_ENTRY_SIZE);
}

int dtl_cmd_dump(int argc, char **argv)
{
	struct dump_params p = { 0 };
	int first, rc;
	struct pdr *r;
	struct pdr_event ev;
	uint8_t *pay = NULL;
	size_t pay_cap = 0;
	uint64_t nrec = 0;

	if ((rc = dtl_cmd_parse(&dtl_dump_cli, argc, argv, &p, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_dump_cli, &p.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = p.in.path;
	if (dtl_cmd_open(&r, path, true, true))
		return EXIT_ERR;
	const char *shown = strcmp(path, "-") ? path : "stdin";
	bool swap = pdr_needs_swap(r);
	while ((rc = pdr_next(r, &ev)) > 0) {
		char pfx[16];

		if (ev.type != PDF_RECORD_AUXTRACE_INFO && ev.type != PDF_RECORD_AUXTRACE)
			continue;
		nrec++;
		printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", ev.file_offset, shown, ev.size, ev.type);
		if (!p.no_raw)
			hexdump(ev.data, ev.size);
		tstamp_prefix(r, pfx, sizeof(pfx));
		printf("\n%s%#" PRIx64 " [%#x]: PERF_RECORD_%s", pfx, ev.file_offset, ev.size,
		       ev.type == PDF_RECORD_AUXTRACE ? "AUXTRACE" : "AUXTRACE_INFO");
		if (ev.type == PDF_RECORD_AUXTRACE_INFO) {
			uint32_t type = ev.size >= 12 ? by_ld32(ev.data + 8, swap) : 0;
			printf(" type: %u\n", type);
			if (type == PDF_AUXTRACE_VPA_DTL)
				printf("  %-19s%" PRId64 "\n", "PMU Type",
				       ev.size >= 24 ? (int64_t)by_ld64(ev.data + 16, swap) : 0);
			continue;
		}
		const struct pdr_auxtrace *a = &ev.auxtrace;
		printf(" size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64
		       "  idx: %u  tid: %d  cpu: %d\n", a->size, a->offset, a->reference, a->idx,
		       (int32_t)a->tid, (int32_t)a->cpu);
		if (!dtlt_file_has_dtl(r))
			continue;
		const uint8_t *data = ev.aux_data;
		if (!data && a->size) {
			if (a->size > (256u << 20)) {
				printf(". (payload of %" PRIu64 " bytes not shown)\n", a->size);
				continue;
			}
			if (pay_cap < a->size) {
				uint8_t *n = realloc(pay, (size_t)a->size);
				if (!n) {
					fprintf(stderr, "latscope dtl dump: out of memory\n");
					break;
				}
				pay = n;
				pay_cap = (size_t)a->size;
			}
			int err = pdr_pread(r, ev.aux_file_offset, pay, (size_t)a->size);
			if (err) {
				fprintf(stderr, "latscope dtl dump: cannot read the AUX payload at %#" PRIx64 ": %s\n",
					ev.aux_file_offset, strerror(-err));
				rc = err;
				break;
			}
			data = pay;
		}
		dump_payload(data, a->size, swap);
	}
	free(pay);
	if (rc < 0) {
		fprintf(stderr, "latscope dtl dump: %s: %s\n", path, *pdr_strerror(r) ? pdr_strerror(r) : strerror(-rc));
		pdr_close(r);
		return EXIT_ERR;
	}
	cio_pdr_close(r, "latscope dtl dump", path);
	if (cio_finish(stdout, "latscope dtl dump", "standard output"))
		return EXIT_ERR;
	if (!nrec) {
		fprintf(stderr, "latscope dtl dump: %s has no AUXTRACE_INFO or AUXTRACE records "
			"(was it recorded with -e vpa_dtl/dtl_all/?)\n", path);
		return EXIT_ERR;
	}
	return 0;
}

/* ---- script ---- */

enum { OUT_PERF, OUT_WIDE, OUT_CSV, OUT_JSON };

struct script {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT, DTL_CMD_READ_OPTS */
	struct pdr *r;
	struct pp *pp;
	struct dtlt *t;
	int mode;
	bool ns, dtl_only, samples_only;
	bool have_cpus;
	struct ps_cpuset cpus;
	uint64_t t0_ns, t1_ns;
	bool quiet;
	char *line;
	size_t line_cap;
	uint64_t dtl_lines, sample_lines;
	struct ksym *syms;	/* NULL: srr0 stays [unknown] */
	struct pl *pl;		/* second formatting thread, or NULL */
};

static bool want(const struct script *s, uint32_t cpu, uint64_t t)
{
	if (s->have_cpus && !ps_cpuset_has(&s->cpus, cpu))
		return false;
	return t >= s->t0_ns && t <= s->t1_ns;
}

static void fmt_time(char *buf, size_t len, uint64_t t, bool ns)
{
	if (ns)
		snprintf(buf, len, "%5" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
	else
		snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, t / 1000000000u, t % 1000000000u / 1000u);
}

static void us3(char *buf, size_t len, uint64_t ticks, uint64_t tb_freq)
{
	uint64_t ns = dtl_ticks_to_ns(ticks, tb_freq);
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void print_dtl(struct script *s, const struct dtlm_item *it)
{
	const struct dtl_entry *e = &it->e;
	char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ], ts[48];
	const char *dr = dtl_dispatch_reason_str(e->dispatch_reason, b1);
	const char *pr = dtl_preempt_reason_str(e->preempt_reason, b2);

	if (s->samples_only || !want(s, it->cpu, it->time_ns))
		return;
	s->dtl_lines++;
	switch (s->mode) {
	case OUT_PERF: {
		char sym[KSYM_NAME_MAX + 64];
		dtl_cmd_sym(s->syms, e->srr0, sym, sizeof(sym), true);
		int w = pp_name_width(s->pp);
		if (w < 7)
			w = 7;
		fmt_time(ts, sizeof(ts), it->time_ns, s->ns);
		/* The DTL has no task: say so instead of perf's invented pid/tid. */
		if (s->pl) {
			char l[1024 + KSYM_NAME_MAX];
			int n = snprintf(l, sizeof(l), "%16s %5s [%03u] %12s: %*s: timebase: %" PRIu64
			       " dispatch_reason:%s, preempt_reason:%s,\n"
			       "enqueue_to_dispatch_time:%d, ready_to_enqueue_time:%d,"
			       "waiting_to_ready_time:%d, processor_id: %d %16" PRIx64 " %s\n",
			       "[no task]", "-", it->cpu, ts, w, "vpa-dtl", e->timebase, dr, pr,
			       (int32_t)e->enqueue_to_dispatch_tb, (int32_t)e->ready_to_enqueue_tb,
			       (int32_t)e->waiting_to_ready_tb, e->processor_id, e->srr0, sym);
			if (n > 0)
				pl_push_text(s->pl, l, (size_t)n < sizeof(l) ? (size_t)n : sizeof(l) - 1);
			break;
		}
		printf("%16s %5s [%03u] %12s: %*s: timebase: %" PRIu64
		       " dispatch_reason:%s, preempt_reason:%s,\n"
		       "enqueue_to_dispatch_time:%d, ready_to_enqueue_time:%d,"
		       "waiting_to_ready_time:%d, processor_id: %d %16" PRIx64 " %s\n",
		       "[no task]", "-", it->cpu, ts, w, "vpa-dtl", e->timebase, dr, pr,
		       (int32_t)e->enqueue_to_dispatch_tb, (int32_t)e->ready_to_enqueue_tb,
		       (int32_t)e->waiting_to_ready_tb, e->processor_id, e->srr0, sym);
		break;
	}
	case OUT_WIDE: {
		char a[32], b[32], c[32], sym[KSYM_NAME_MAX + 64];
		bool have = dtl_cmd_sym(s->syms, e->srr0, sym, sizeof(sym), false);
		fmt_time(ts, sizeof(ts), it->time_ns, true);
		us3(a, sizeof(a), e->enqueue_to_dispatch_tb, it->tbi.tb_freq);
		us3(b, sizeof(b), e->ready_to_enqueue_tb, it->tbi.tb_freq);
		us3(c, sizeof(c), e->waiting_to_ready_tb, it->tbi.tb_freq);
		printf("%s cpu %u proc %u dtl dispatch=%s preempt=%s enqueue_to_dispatch=%" PRIu32
		       " (%s us) ready_to_enqueue=%" PRIu32 " (%s us) waiting_to_ready=%" PRIu32
		       " (%s us) tb=%" PRIu64 " srr0=0x%" PRIx64 "%s%s%s\n",
		       ts, it->cpu, e->processor_id, dr, pr, e->enqueue_to_dispatch_tb, a,
		       e->ready_to_enqueue_tb, b, e->waiting_to_ready_tb, c, e->timebase, e->srr0,
		       have ? " sym=" : "", have ? sym : "", it->late ? " late" : "");
		break;
	}
	case OUT_CSV: {
		char sym[KSYM_NAME_MAX + 64];
		dtl_cmd_sym(s->syms, e->srr0, sym, sizeof(sym), false);
		printf("%u,%" PRIu64 ",%" PRIu64 ",%s,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%u,0x%" PRIx64
		       ",0x%" PRIx64 ",0x%" PRIx64 ",%s\n", it->cpu, it->time_ns, e->timebase, dr, pr,
		       e->enqueue_to_dispatch_tb, e->ready_to_enqueue_tb, e->waiting_to_ready_tb,
		       e->processor_id, e->fault_addr, e->srr0, e->srr1, sym);
		break;
	}
	case OUT_JSON: {
		struct json_object *o = json_object_new_object();
		if (!o)
			return;
		json_object_object_add(o, "cpu", json_object_new_int64(it->cpu));
		json_object_object_add(o, "time_ns", jsonv_u64(it->time_ns));
		json_object_object_add(o, "timebase", jsonv_u64(e->timebase));
		json_object_object_add(o, "dispatch_reason", json_object_new_string(dr));
		json_object_object_add(o, "preempt_reason", json_object_new_string(pr));
		json_object_object_add(o, "enqueue_to_dispatch_time", json_object_new_int64(e->enqueue_to_dispatch_tb));
		json_object_object_add(o, "ready_to_enqueue_time", json_object_new_int64(e->ready_to_enqueue_tb));
		json_object_object_add(o, "waiting_to_ready_time", json_object_new_int64(e->waiting_to_ready_tb));
		json_object_object_add(o, "processor_id", json_object_new_int64(e->processor_id));
		json_object_object_add(o, "fault_addr", jsonv_addr(e->fault_addr));
		json_object_object_add(o, "srr0", jsonv_addr(e->srr0));
		json_object_object_add(o, "srr1", jsonv_addr(e->srr1));
		char sym[KSYM_NAME_MAX + 64];
		dtl_cmd_sym(s->syms, e->srr0, sym, sizeof(sym), false);
		json_object_object_add(o, "symbol", json_object_new_string(sym));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		break;
	}
	}
}

static void print_sample(struct script *s, const struct pdr_event *ev)
{
	size_t n;

	if (s->dtl_only || s->mode == OUT_CSV || s->mode == OUT_JSON)
		return;
	if (!want(s, ev->sample.cpu, ev->sample.time))
		return;
	if (s->pl) {
		if (pl_push(s->pl, ev, pp_comm(s->pp, (int32_t)ev->sample.pid, (int32_t)ev->sample.tid)) == 0)
			s->sample_lines++;
		return;
	}
	n = pp_format(s->pp, ev, s->line, s->line_cap);
	if (n >= s->line_cap) {
		size_t cap = n + 1;
		char *nl = realloc(s->line, cap);
		if (!nl)
			return;
		s->line = nl;
		s->line_cap = cap;
		n = pp_format(s->pp, ev, s->line, s->line_cap);
	}
	if (s->mode == OUT_WIDE) {
		/* same time format as the DTL lines: ns, first column */
		char ts[48];
		fmt_time(ts, sizeof(ts), ev->sample.time, true);
		printf("%s cpu %u %s", ts, ev->sample.cpu, s->line);
	} else {
		fwrite(s->line, 1, n, stdout);
	}
	s->sample_lines++;
}

_Static_assert(offsetof(struct script, in) == 0, "struct dtl_cmd_in first");

static int script_time(const char *arg, void *params)
{
	struct script *s = params;
	return ps_time_range(arg, &s->t0_ns, &s->t1_ns) ? -EINVAL : 0;
}

#define SCRIPT_MODE(n, m, h) \
	CLI_OPT(n, 0, CLI_T_SETINT, struct script, mode, CLI_NONE, m, 0, 0, NULL, h, NULL)
#define SCRIPT_FLAG(n, f, h) CLI_OPT(n, 0, CLI_T_FLAG, struct script, f, CLI_NONE, 0, 0, 0, NULL, h, NULL)
static const struct cli_opt script_opts[] = {
	DTL_CMD_INPUT,
	SCRIPT_MODE("wide", OUT_WIDE, "one readable line per entry: times in ticks and us,\n"
		    "CPU, processor_id (other samples get the same time\ncolumn)"),
	SCRIPT_MODE("csv", OUT_CSV, "DTL entries only, one CSV row each (header first)"),
	SCRIPT_MODE("json", OUT_JSON, "DTL entries only, one JSON object per line"),
	SCRIPT_FLAG("ns", ns, "nanosecond timestamps (perf script --ns)"),
	SCRIPT_FLAG("exact-time", in.to.exact_time, "convert the timebase with exact 128-bit integer\n"
		    "math instead of perf's double formula (may differ by\n1 ns)"),
	SCRIPT_FLAG("dtl-only", dtl_only, "leave out the other samples"),
	SCRIPT_FLAG("samples-only", samples_only, "leave out the DTL entries"),
	CLI_CPU_PERF(struct script, cpus, have_cpus, "only these CPUs"),
	CLI_CUSTOM("time", 0, script_time, "A,B", "only this perf-time window (seconds; either side may\nbe empty)",
		   "START,END in seconds"),
	CLI_OPT("boot-tb", 0, CLI_T_U64, struct script, in.to.fallback.boot_tb,
		CLI_GIVEN(struct script, in.to.override_boot_tb), 0, 0, 0, "N",
		"boot timebase for CPUs without a header record\n(debugfs)", "an integer"),
	CLI_OPT("tb-freq", 0, CLI_T_U64, struct script, in.to.fallback.tb_freq,
		CLI_GIVEN(struct script, in.to.override_tb_freq), 1, 0, 0, "HZ",
		"timebase frequency for them (default 512000000)", "a positive integer"),
	DTL_CMD_READ_OPTS("resolve srr0 with this kallsyms file (default:\n"
			  "/proc/kallsyms when the recording's osrelease and\n"
			  "arch are this machine's)"),
	CLI_QUIET(struct script, quiet, "no summary on stderr"),
	CLI_END
};

const struct cli_cmd dtl_script_cli = {
	.name = "latscope dtl script",
	.usage = "usage: latscope dtl script [options] FILE",
	.intro =
"One timeline of the DTL entries and every other sample of a perf.data file\n"
"(file or pipe mode, either byte order).  Each DTL entry older than a record\n"
"is printed before it (a tie prints the record first); entries after the last\n"
"record are printed at the end.  The DTL has no task, so DTL lines show\n"
"`[no task]` and `-` where perf prints an invented pid/tid.\n",
	.opts = script_opts,
	.outro =
"Gaps (AUX TRUNCATED/PARTIAL/COLLISION, LOST records, a timebase going\n"
"backwards, discontinuous buffers, odd payload sizes) are summarised on stderr.\n",
	.operands = true,
};

static void report_gaps(const char *path, struct dtlt *t, const struct script *s, bool quiet)
{
	const struct dtlm *m = dtlt_merge(t);
	const struct dtlm_stats *st = dtlm_stats(m);
	const struct dtlt_stats *ts = dtlt_stats(t);
	const struct dtlm_gap *g;
	size_t ng = dtlm_gaps(m, &g);
	uint64_t total = 0;

	for (int k = 0; k < DTLM_GAP_NR_KINDS; k++)
		total += st->gaps[k];
	if (ts->source == DTLT_SRC_SCAN && ts->why_scan[0])
		fprintf(stderr, "latscope dtl script: %s: %s; found %" PRIu64 " AUX buffers by scanning "
			"the data section instead\n", path, ts->why_scan, ts->dtl_buffers);
	if (ts->bad_cpu_buffers || st->dropped_buffers)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " AUX buffers dropped (CPU number "
			"out of range 0..%d)\n", path,
			ts->bad_cpu_buffers > st->dropped_buffers ? ts->bad_cpu_buffers : st->dropped_buffers,
			DTLM_MAX_CPUS - 1);
	if (ts->unindexed_buffers)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " AUX buffers were not in the index "
			"(their entries may be late)\n", path, ts->unindexed_buffers);
	if (quiet && !total && !st->late && !ts->forced_records)
		return;
	fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " DTL entries (%" PRIu64
		" printed) on %zu CPUs, %" PRIu64 " other samples printed, %" PRIu64 " late",
		path, st->entries, s->dtl_lines, st->nr_queues, s->sample_lines, st->late);
	if (ts->source == DTLT_SRC_STREAM) {
		char w[48];
		fmt_time(w, sizeof(w), ts->window_ns, true);
		fprintf(stderr, "; pipe: reorder window %s s", w);
		if (ts->forced_records)
			fprintf(stderr, ", %" PRIu64 " records released early (budget)", ts->forced_records);
	}
	if (st->no_tbinfo)
		fprintf(stderr, ", %" PRIu64 " entries without boot_tb/tb_freq (times assume 512 MHz from 0)",
			st->no_tbinfo);
	fputc('\n', stderr);
	if (!total)
		return;
	fprintf(stderr, "latscope dtl script: gaps:");
	for (int k = 0; k < DTLM_GAP_NR_KINDS; k++)
		if (st->gaps[k])
			fprintf(stderr, " %s %" PRIu64, dtlm_gap_name(k), st->gaps[k]);
	fputc('\n', stderr);
	for (size_t i = 0; i < ng && i < 20; i++) {
		char ts2[48];
		if (g[i].time_ns)
			fmt_time(ts2, sizeof(ts2), g[i].time_ns, true);
		else
			snprintf(ts2, sizeof(ts2), "the start");
		char what[256], where[24] = "";
		switch (g[i].kind) {
		case DTLM_GAP_LOST:
			snprintf(what, sizeof(what), "%" PRIu64 " events lost", g[i].a);
			break;
		case DTLM_GAP_TB_BACKWARDS:
			snprintf(what, sizeof(what), "timebase %" PRIu64 " after %" PRIu64, g[i].b, g[i].a);
			break;
		case DTLM_GAP_OFFSET:
			snprintf(what, sizeof(what), "expected AUX offset %#" PRIx64 ", got %#" PRIx64, g[i].a, g[i].b);
			break;
		case DTLM_GAP_ODD_SIZE:
			snprintf(what, sizeof(what), "payload of %" PRIu64 " bytes, %" PRIu64 " trailing bytes ignored",
				 g[i].a, g[i].b);
			break;
		case DTLM_GAP_RING_FULL:
			snprintf(what, sizeof(what), "a poll copied %" PRIu64 " entries, all the hypervisor's "
				 "85-entry ring lets through: older ones were probably overwritten (poll more "
				 "often: -c)", g[i].a);
			break;
		case DTLM_GAP_FORCED:
			snprintf(what, sizeof(what), "%" PRIu64 " bytes queued: entries printed early", g[i].a);
			break;
		default:
			snprintf(what, sizeof(what), "AUX offset %#" PRIx64 ", flags %#" PRIx64, g[i].a, g[i].b);
			break;
		}
		if (g[i].cpu != UINT32_MAX)
			snprintf(where, sizeof(where), " cpu %u", g[i].cpu);
		fprintf(stderr, "  gap %s%s at %s: %s\n", dtlm_gap_name(g[i].kind), where, ts2, what);
	}
	if (ng > 20)
		fprintf(stderr, "  ... (%zu more listed, %" PRIu64 " in all)\n", ng - 20, total);
}

int dtl_cmd_script(int argc, char **argv)
{
	struct script s = { .mode = OUT_PERF, .t1_ns = UINT64_MAX };
	struct dtlt_opts *to = &s.in.to;
	int first, rc, ret = 0;
	struct dtlt_item it;

	if ((rc = dtl_cmd_parse(&dtl_script_cli, argc, argv, &s, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_script_cli, &s.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = s.in.path;
	if ((to->override_boot_tb || to->override_tb_freq) && !to->fallback.tb_freq)
		to->fallback.tb_freq = DTL_DEFAULT_TB_FREQ;
	if (dtl_cmd_open(&s.r, path, false, false))
		return EXIT_ERR;
	const struct pdr_info *info = pdr_info(s.r);
	struct pp_opts po = { .ns = s.ns };
	s.pp = pp_new(s.r, &po);
	s.line_cap = 4096;
	s.line = malloc(s.line_cap);
	if (!s.pp || !s.line) {
		fprintf(stderr, "latscope dtl script: out of memory\n");
		ret = EXIT_ERR;
		goto out;
	}
	rc = dtlt_new(&s.t, s.r, to);
	if (rc) {
		fprintf(stderr, "latscope dtl script: %s: %s\n", path,
			*pdr_strerror(s.r) ? pdr_strerror(s.r) : strerror(-rc));
		ret = EXIT_ERR;
		goto out;
	}
	if (dtl_cmd_syms(&s.syms, s.r, s.in.kallsyms, s.in.no_symbols, "latscope dtl script")) {
		ret = EXIT_ERR;
		goto out;
	}
	/* the default layout formats samples on a second thread (file mode) */
	if (s.mode == OUT_PERF && !info->pipe && !s.dtl_only && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
	    !getenv("LATSCOPE_NO_THREADS")) {
		static char obuf[1 << 20];
		setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
		s.pl = pl_new(s.pp, stdout);
	}
	if (s.mode == OUT_CSV)
		printf("cpu,time_ns,timebase,dispatch_reason,preempt_reason,enqueue_to_dispatch_time,"
		       "ready_to_enqueue_time,waiting_to_ready_time,processor_id,fault_addr,srr0,srr1,symbol\n");
	uint64_t n_items = 0;
	while ((rc = dtlt_next(s.t, &it)) > 0) {
		if ((++n_items & 4095) == 0 && (ferror(stdout) || (s.pl && pl_failed(s.pl))))
			break;	/* the output is gone (closed pipe, full disk): said below */
		if (it.kind == DTLT_ENTRY) {
			print_dtl(&s, &it.entry);
			continue;
		}
		const struct pdr_event *ev = it.ev;
		pp_track(s.pp, ev);
		if (ev->type != PDF_RECORD_SAMPLE || dtlt_evsel_is_dtl(s.t, ev->evsel))
			continue;
		if (!ev->evsel || !ev->has_sample)
			continue;	/* unknown id or too short: counted by the reader, said below */
		print_sample(&s, ev);
	}
	if (rc < 0) {
		fprintf(stderr, "latscope dtl script: %s: %s\n", path,
			*pdr_strerror(s.r) ? pdr_strerror(s.r) : strerror(-rc));
		ret = EXIT_ERR;
	}
	if (rc == 0 && s.mode == OUT_JSON) {
		/* the last line: what was counted, for readers of the stream */
		const struct dtlm *m = dtlt_merge(s.t);
		const struct dtlm_stats *ms = dtlm_stats(m);
		const struct dtlt_stats *ts = dtlt_stats(s.t);
		const struct pdr_stats *rs = pdr_stats(s.r);
		struct json_object *o = json_object_new_object(), *sm = json_object_new_object(),
				   *g = json_object_new_object();
		json_object_object_add(sm, "entries", jsonv_u64(ms->entries));
		json_object_object_add(sm, "printed", jsonv_u64(s.dtl_lines));
		json_object_object_add(sm, "late", jsonv_u64(ms->late));
		json_object_object_add(sm, "dropped_buffers", jsonv_u64(ts->bad_cpu_buffers));
		json_object_object_add(sm, "unknown_id_samples", jsonv_u64(rs->unknown_id));
		json_object_object_add(sm, "short_samples", jsonv_u64(rs->bad_samples));
		json_object_object_add(sm, "forced_records", jsonv_u64(ts->forced_records));
		json_object_object_add(sm, "far_entries", jsonv_u64(ts->far_entries));
		for (int k = 0; k < DTLM_GAP_NR_KINDS; k++)
			json_object_object_add(g, dtlm_gap_name(k), jsonv_u64(ms->gaps[k]));
		json_object_object_add(sm, "gaps", g);
		json_object_object_add(o, "summary", sm);
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	}
	int werr = s.pl ? -pl_finish(s.pl) : 0;	/* the formatter's first write error */
	s.pl = NULL;
	if (werr) {
		fprintf(stderr, "latscope dtl script: error writing standard output: %s\n", strerror(werr));
		clearerr(stdout);
		fflush(stdout);
		clearerr(stdout);
		ret = EXIT_ERR;
	} else if (cio_finish(stdout, "latscope dtl script", "standard output")) {
		ret = EXIT_ERR;
	}
	report_gaps(path, s.t, &s, s.quiet);
	dtl_cmd_tb_warnings("latscope dtl script", path, s.t);
	const struct pdr_stats *rs = pdr_stats(s.r);
	if (rs->unknown_id || rs->bad_samples)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " samples with an unknown id and %" PRIu64
			" too short for their sample_type were skipped\n", path, rs->unknown_id, rs->bad_samples);
	if (s.in.strict && !ret)
		ret = dtl_cmd_verdict("latscope dtl script", s.t, s.r);
out:
	if (s.pl)
		pl_finish(s.pl);
	ksym_free(s.syms);
	dtlt_free(s.t);
	pp_free(s.pp);
	free(s.line);
	cio_pdr_close(s.r, "latscope dtl script", path);
	return ret;
}
