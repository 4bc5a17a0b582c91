/* SPDX-License-Identifier: MIT */
/* script.c - `latscope dtl script`: one timeline of DTL entries and the other samples. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "format/dtl.h"
#include "base/jsonnum.h"
#include "jsonout.h"
#include "format/ksym.h"
#include "dtl_cmd.h"
#include "scriptout.h"
#include "engine/dtlmerge.h"
#include "engine/dtltl.h"
#include "base/parse.h"
#include "print/pdprint.h"
#include "format/pdread.h"

/* ---- script ---- */

enum { OUT_PERF, OUT_WIDE, OUT_CSV, OUT_JSON };

struct script {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT, DTL_CMD_READ_OPTS */
	struct pdread *r;
	struct pdprint *pp;
	struct dtltl *t;
	int mode;
	bool ns, dtl_only, samples_only;
	bool have_cpus;
	struct parse_cpuset cpus;
	uint64_t t0_ns, t1_ns;
	bool quiet;
	char *line;
	size_t line_cap;
	uint64_t dtl_lines, sample_lines;
	struct ksym *syms;	/* NULL: srr0 stays [unknown] */
	bool json, force;		/* --json, --force */
	const char *json_file;		/* --json=FILE (argv) */
	FILE *jf;			/* it, open (cmdio_fopen_safe), or NULL */
	struct safeout_file *jsf;
	bool syms_todo;		/* /proc/kallsyms loaded at the first DTL line */
	struct scriptout so;	/* the default layout: latscope script's output */
	bool have_so;
};

static bool want(const struct script *s, uint32_t cpu, uint64_t t)
{
	if (s->have_cpus && !parse_cpuset_has(&s->cpus, cpu))
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

/* ---- the default layout's DTL line, written straight into the output ---- */

static char *put_str(char *o, const char *str, size_t n)
{
	memcpy(o, str, n);
	return o + n;
}

#define PUT_LIT(o, lit) put_str(o, lit, sizeof(lit) - 1)

/* v in decimal, at least min digits (zeros in front) */
static char *put_u64(char *o, uint64_t v, int min)
{
	char t[24];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < min);
	while (n)
		*o++ = t[--n];
	return o;
}

static char *put_i32(char *o, int32_t v)
{
	if (v < 0) {
		*o++ = '-';
		return put_u64(o, -(int64_t)v, 1);
	}
	return put_u64(o, (uint64_t)v, 1);
}

/* str right-aligned in width (printf's %*s) */
static char *put_right(char *o, const char *str, size_t n, size_t width)
{
	for (; width > n; width--)
		*o++ = ' ';
	return put_str(o, str, n);
}

/* %16 PRIx64 */
static char *put_hex16(char *o, uint64_t v)
{
	char t[16];
	int n = 0;

	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int i = n; i < 16; i++)
		*o++ = ' ';
	while (n)
		*o++ = t[--n];
	return o;
}

/* fmt_time()'s text into o: its length */
static size_t put_time(char *o, uint64_t t, bool ns)
{
	char *e;

	if (ns) {
		char *p = put_u64(o, t / 1000000000u, 1);
		size_t il = (size_t)(p - o);
		if (il < 5) {	/* %5 PRIu64: right-aligned */
			memmove(o + 5 - il, o, il);
			memset(o, ' ', 5 - il);
			p = o + 5;
		}
		*p++ = '.';
		e = put_u64(p, t % 1000000000u, 9);
	} else {
		e = put_u64(o, t / 1000000000u, 1);
		*e++ = '.';
		e = put_u64(e, t % 1000000000u / 1000u, 6);
	}
	return (size_t)(e - o);
}

/* The perf-layout DTL line (the same text as the printf it replaces:
 * "%16s %5s [%03u] %12s: %*s: timebase: ..."), at most bound bytes. */
static size_t dtl_line(char *out, const struct dtlmerge_item *it, bool ns, int w, const char *dr,
		       const char *pr, const char *sym)
{
	const struct dtl_entry *e = &it->e;
	char ts[48];
	size_t tl = put_time(ts, it->time_ns, ns);
	char *o = out;

	o = PUT_LIT(o, "       [no task]     - [");
	o = put_u64(o, it->cpu, 3);
	o = PUT_LIT(o, "] ");
	o = put_right(o, ts, tl, 12);
	o = PUT_LIT(o, ": ");
	o = put_right(o, "vpa-dtl", 7, (size_t)w);
	o = PUT_LIT(o, ": timebase: ");
	o = put_u64(o, e->timebase, 1);
	o = PUT_LIT(o, " dispatch_reason:");
	o = put_str(o, dr, strlen(dr));
	o = PUT_LIT(o, ", preempt_reason:");
	o = put_str(o, pr, strlen(pr));
	o = PUT_LIT(o, ",\nenqueue_to_dispatch_time:");
	o = put_i32(o, (int32_t)e->enqueue_to_dispatch_tb);
	o = PUT_LIT(o, ", ready_to_enqueue_time:");
	o = put_i32(o, (int32_t)e->ready_to_enqueue_tb);
	o = PUT_LIT(o, ",waiting_to_ready_time:");
	o = put_i32(o, (int32_t)e->waiting_to_ready_tb);
	o = PUT_LIT(o, ", processor_id: ");
	o = put_u64(o, e->processor_id, 1);
	*o++ = ' ';
	o = put_hex16(o, e->srr0);
	*o++ = ' ';
	o = put_str(o, sym, strlen(sym));
	*o++ = '\n';
	return (size_t)(o - out);
}

static void print_dtl_perf(struct script *s, const struct dtlmerge_item *it, const char *dr, const char *pr)
{
	char sym[KSYM_NAME_MAX + 64];
	int w = pdprint_name_width(s->pp);

	if (s->syms)
		dtl_cmd_sym(s->syms, it->e.srr0, sym, sizeof(sym), true);
	else
		memcpy(sym, "[unknown] ([unknown])", sizeof("[unknown] ([unknown])"));
	if (w < 7)
		w = 7;
	/* the fixed text and numbers take under 320 bytes */
	size_t bound = 320 + (size_t)w + strlen(dr) + strlen(pr) + strlen(sym);
	if (bound <= SCRIPTOUT_CHUNK) {
		scriptout_commit(&s->so, dtl_line(scriptout_reserve(&s->so, bound), it, s->ns, w, dr, pr, sym));
		return;
	}
	char *big = malloc(bound);	/* an event name longer than a chunk */
	if (!big)
		return;
	size_t n = dtl_line(big, it, s->ns, w, dr, pr, sym);
	scriptout_flush(&s->so);
	if (fwrite(big, 1, n, stdout) != n)
		cmdio_note_error();
	free(big);
}

/* One entry as a latscope.dtl-script/1 line on f (docs/json.md); a failed
 * write is seen by cmdio_finish() (stdout) or cmdio_fclose_safe(). */
static void json_entry(const struct script *s, const struct dtlmerge_item *it, const char *dr,
		       const char *pr, FILE *f)
{
	const struct dtl_entry *e = &it->e;
	struct json_object *o = jsonout_new(REPORT_DTL_SCRIPT);
	if (!o)
		return;
	json_object_object_add(o, "type", json_object_new_string("entry"));
	json_object_object_add(o, "cpu", json_object_new_int64(it->cpu));
	json_object_object_add(o, "time_ns", jsonnum_u64(it->time_ns));
	json_object_object_add(o, "timebase_ticks", jsonnum_u64(e->timebase));
	json_object_object_add(o, "dispatch_reason", json_object_new_string(dr));
	json_object_object_add(o, "preempt_reason", json_object_new_string(pr));
	json_object_object_add(o, "enqueue_to_dispatch_ticks", json_object_new_int64(e->enqueue_to_dispatch_tb));
	json_object_object_add(o, "ready_to_enqueue_ticks", json_object_new_int64(e->ready_to_enqueue_tb));
	json_object_object_add(o, "waiting_to_ready_ticks", json_object_new_int64(e->waiting_to_ready_tb));
	json_object_object_add(o, "processor_id", json_object_new_int64(e->processor_id));
	json_object_object_add(o, "fault_addr", jsonnum_addr(e->fault_addr));
	json_object_object_add(o, "srr0", jsonnum_addr(e->srr0));
	json_object_object_add(o, "srr1", jsonnum_addr(e->srr1));
	char sym[KSYM_NAME_MAX + 64];
	dtl_cmd_sym(s->syms, e->srr0, sym, sizeof(sym), false);
	json_object_object_add(o, "symbol", json_object_new_string(sym));
	jsonout_line(o, f);
	json_object_put(o);
}

static void print_dtl(struct script *s, const struct dtlmerge_item *it)
{
	const struct dtl_entry *e = &it->e;
	char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ], ts[48];
	const char *dr = dtl_dispatch_reason_str(e->dispatch_reason, b1);
	const char *pr = dtl_preempt_reason_str(e->preempt_reason, b2);

	if (s->samples_only || !want(s, it->cpu, it->time_ns))
		return;
	if (s->syms_todo) {
		s->syms_todo = false;
		(void)dtl_cmd_syms(&s->syms, s->r, NULL, false, "latscope dtl script");
	}
	s->dtl_lines++;
	switch (s->mode) {
	case OUT_PERF:
		print_dtl_perf(s, it, dr, pr);
		break;
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
	case OUT_JSON:
		json_entry(s, it, dr, pr, stdout);
		break;
	}
	if (s->jf)	/* --json=FILE: beside the text */
		json_entry(s, it, dr, pr, s->jf);
}

/* False when the printer refused the sample (a sampling line or callchain it
 * would not print as perf does: pdprint_refusal()). */
static bool print_sample(struct script *s, const struct pdread_event *ev)
{
	size_t n;

	if (s->dtl_only || s->mode == OUT_CSV || s->mode == OUT_JSON)
		return true;
	if (!want(s, ev->sample.cpu, ev->sample.time))
		return true;
	if (s->have_so) {
		if (!scriptout_sample(&s->so, ev))
			return false;
		s->sample_lines++;
		return true;
	}
	n = pdprint_format(s->pp, ev, s->line, s->line_cap);
	if (n >= s->line_cap) {
		size_t cap = n + 1;
		char *nl = realloc(s->line, cap);
		if (!nl)
			return true;
		s->line = nl;
		s->line_cap = cap;
		n = pdprint_format(s->pp, ev, s->line, s->line_cap);
	}
	if ((!ev->evsel || !ev->evsel->tp || ev->sample.callchain) && pdprint_refusal(s->pp))
		return false;
	if (s->mode == OUT_WIDE) {
		/* same time format as the DTL lines: ns, first column */
		char ts[48];
		fmt_time(ts, sizeof(ts), ev->sample.time, true);
		printf("%s cpu %u %s", ts, ev->sample.cpu, s->line);
	} else {
		fwrite(s->line, 1, n, stdout);
	}
	s->sample_lines++;
	return true;
}

_Static_assert(offsetof(struct script, in) == 0, "struct dtl_cmd_in first");

static int script_time(const char *arg, void *params)
{
	struct script *s = params;
	return parse_time_range(arg, &s->t0_ns, &s->t1_ns) ? -EINVAL : 0;
}

#define SCRIPT_MODE(n, m, h) \
	CLI_OPT(n, 0, CLI_T_SETINT, struct script, mode, CLI_NONE, m, 0, 0, NULL, h, NULL)
#define SCRIPT_FLAG(n, f, h) CLI_OPT(n, 0, CLI_T_FLAG, struct script, f, CLI_NONE, 0, 0, 0, NULL, h, NULL)
static const struct cli_opt script_opts[] = {
	DTL_CMD_INPUT,
	SCRIPT_MODE("wide", OUT_WIDE, "one readable line per entry: times in ticks and us,\n"
		    "CPU, processor_id (other samples get the same time\ncolumn)"),
	SCRIPT_MODE("csv", OUT_CSV, "DTL entries only, one CSV row each (header first)"),
	CLI_JSON(struct script, json, json_file),
	CLI_FORCE(struct script, force),
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
	.conflicts = (const char *const[][2]){ { "dtl-only", "samples-only" }, { NULL, NULL } },
};

static void report_gaps(const char *path, struct dtltl *t, const struct script *s, bool quiet)
{
	const struct dtlmerge *m = dtltl_merge(t);
	const struct dtlmerge_stats *st = dtlmerge_stats(m);
	const struct dtltl_stats *ts = dtltl_stats(t);
	const struct dtlmerge_gap *g;
	size_t ng = dtlmerge_gaps(m, &g);
	uint64_t total = 0;

	for (int k = 0; k < DTLMERGE_GAP_NR_KINDS; k++)
		total += st->gaps[k];
	if (ts->source == DTLTL_SRC_SCAN && ts->why_scan[0])
		fprintf(stderr, "latscope dtl script: %s: %s; found %" PRIu64 " AUX buffers by scanning "
			"the data section instead\n", path, ts->why_scan, ts->dtl_buffers);
	if (ts->bad_cpu_buffers || st->dropped_buffers)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " AUX buffers dropped (CPU number "
			"out of range 0..%d)\n", path,
			ts->bad_cpu_buffers > st->dropped_buffers ? ts->bad_cpu_buffers : st->dropped_buffers,
			DTLMERGE_MAX_CPUS - 1);
	if (ts->unindexed_buffers)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " AUX buffers were not in the index "
			"(their entries may be late)\n", path, ts->unindexed_buffers);
	if (quiet && !total && !st->late && !ts->forced_records)
		return;
	fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " DTL entries (%" PRIu64
		" printed) on %zu CPUs, %" PRIu64 " other samples printed, %" PRIu64 " late",
		path, st->entries, s->dtl_lines, st->nr_queues, s->sample_lines, st->late);
	if (ts->source == DTLTL_SRC_STREAM) {
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
	for (int k = 0; k < DTLMERGE_GAP_NR_KINDS; k++)
		if (st->gaps[k])
			fprintf(stderr, " %s %" PRIu64, dtlmerge_gap_name(k), st->gaps[k]);
	fputc('\n', stderr);
	for (size_t i = 0; i < ng && i < 20; i++) {
		char ts2[48];
		if (g[i].time_ns)
			fmt_time(ts2, sizeof(ts2), g[i].time_ns, true);
		else
			snprintf(ts2, sizeof(ts2), "the start");
		char what[256], where[24] = "";
		switch (g[i].kind) {
		case DTLMERGE_GAP_LOST:
			snprintf(what, sizeof(what), "%" PRIu64 " events lost", g[i].a);
			break;
		case DTLMERGE_GAP_TB_BACKWARDS:
			snprintf(what, sizeof(what), "timebase %" PRIu64 " after %" PRIu64, g[i].b, g[i].a);
			break;
		case DTLMERGE_GAP_OFFSET:
			snprintf(what, sizeof(what), "expected AUX offset %#" PRIx64 ", got %#" PRIx64, g[i].a, g[i].b);
			break;
		case DTLMERGE_GAP_ODD_SIZE:
			snprintf(what, sizeof(what), "payload of %" PRIu64 " bytes ends inside an entry: its %"
				 PRIu64 " bytes ignored", g[i].a, g[i].b);
			break;
		case DTLMERGE_GAP_AUX_WRAP:
			snprintf(what, sizeof(what), "the driver's AUX buffer wrapped at AUX offset %#" PRIx64
				 ": the rest of the poll that filled it and the next poll are lost (how many "
				 "entries is not in the file; a larger AUX buffer wraps less often: --aux-size)",
				 g[i].a);
			break;
		case DTLMERGE_GAP_RING_FULL:
			snprintf(what, sizeof(what), "a poll copied %" PRIu64 " entries, all the hypervisor's "
				 "85-entry ring lets through: older ones were probably overwritten (poll more "
				 "often: -c)", g[i].a);
			break;
		case DTLMERGE_GAP_FORCED:
			snprintf(what, sizeof(what), "%" PRIu64 " bytes queued: entries printed early", g[i].a);
			break;
		default:
			snprintf(what, sizeof(what), "AUX offset %#" PRIx64 ", flags %#" PRIx64, g[i].a, g[i].b);
			break;
		}
		if (g[i].cpu != UINT32_MAX)
			snprintf(where, sizeof(where), " cpu %u", g[i].cpu);
		fprintf(stderr, "  gap %s%s at %s: %s\n", dtlmerge_gap_name(g[i].kind), where, ts2, what);
	}
	if (ng > 20)
		fprintf(stderr, "  ... (%zu more listed, %" PRIu64 " in all)\n", ng - 20, total);
}

/* --json beside --wide or --csv refused (both would go to standard output);
 * --json alone is the JSON mode; --boot-tb or --tb-freq without a tb_freq
 * assume the default one.  0, or EXIT_ERR after the message. */
static int settle_modes(struct script *s)
{
	struct dtltl_opts *to = &s->in.to;

	if (s->json && !s->json_file && s->mode != OUT_PERF) {
		/* both on standard output: one would silently win */
		fprintf(stderr, "latscope dtl script: --json and --%s cannot be used together (--json=FILE "
			"writes the JSON beside them)\n", s->mode == OUT_WIDE ? "wide" : "csv");
		return EXIT_ERR;
	}
	if (s->json && !s->json_file)
		s->mode = OUT_JSON;	/* DTL entries only, one JSON object per line */
	if ((to->override_boot_tb || to->override_tb_freq) && !to->fallback.tb_freq)
		to->fallback.tb_freq = DTL_DEFAULT_TB_FREQ;
	return 0;
}

/* Everything the printing needs once s->r is open: the sample printer and
 * its line, the timeline, the symbols (--kallsyms now, this machine's at the
 * first DTL line), the --json=FILE file, the default layout's output buffer,
 * the CSV header.  0, or EXIT_ERR after the message (what was made is freed
 * by dtl_cmd_script()'s end). */
static int open_printing(struct script *s, const char *path)
{
	/* the default layout: samples through latscope script's formatter and
	 * output buffer (src/scriptout.h), symbols resolved together */
	struct pdprint_opts po = { .ns = s->ns, .defer_symbols = s->mode == OUT_PERF };
	s->pp = pdprint_new(s->r, &po);
	s->line_cap = 4096;
	s->line = malloc(s->line_cap);
	if (!s->pp || !s->line) {
		fprintf(stderr, "latscope dtl script: out of memory\n");
		return EXIT_ERR;
	}
	int rc = dtltl_new(&s->t, s->r, &s->in.to);
	if (rc) {
		fprintf(stderr, "latscope dtl script: %s: %s\n", path,
			*pdread_strerror(s->r) ? pdread_strerror(s->r) : strerror(-rc));
		return EXIT_ERR;
	}
	/* --kallsyms is loaded (and refused) now; this machine's own symbols
	 * only when a DTL line needs them */
	if (!s->in.kallsyms && !s->in.no_symbols)
		s->syms_todo = true;
	else if (dtl_cmd_syms(&s->syms, s->r, s->in.kallsyms, s->in.no_symbols, "latscope dtl script"))
		return EXIT_ERR;
	if (s->json_file && !s->json &&
	    !(s->jf = cmdio_fopen_safe(&s->jsf, AT_FDCWD, s->json_file, NULL, s->force, "latscope dtl script")))
		return EXIT_ERR;
	if (s->mode == OUT_PERF) {
		if (scriptout_init(&s->so, s->pp)) {
			fprintf(stderr, "latscope dtl script: out of memory\n");
			return EXIT_ERR;
		}
		s->have_so = true;
	}
	if (s->mode == OUT_CSV)
		printf("cpu,time_ns,timebase,dispatch_reason,preempt_reason,enqueue_to_dispatch_time,"
		       "ready_to_enqueue_time,waiting_to_ready_time,processor_id,fault_addr,srr0,srr1,symbol\n");
	return 0;
}

/* The timeline printed: each DTL entry, each sample but the DTL's, task
 * names tracked from the other records.  Stops when the output is gone or a
 * sample was refused (said; *ret = EXIT_ERR).  Returns dtltl_next()'s last
 * answer (< 0: a read error, not yet said). */
static int print_timeline(struct script *s, int *ret)
{
	struct dtltl_item it;
	uint64_t n_items = 0;
	int rc;

	while ((rc = dtltl_next(s->t, &it)) > 0) {
		if ((++n_items & 4095) == 0 && ferror(stdout))
			break;	/* the output is gone (closed pipe, full disk): said below */
		if (it.kind == DTLTL_ENTRY) {
			print_dtl(s, &it.entry);
			continue;
		}
		const struct pdread_event *ev = it.ev;
		if (ev->type != PDFORMAT_RECORD_SAMPLE) {
			pdprint_track(s->pp, ev);	/* task names: COMM, FORK */
			continue;
		}
		if (dtltl_evsel_is_dtl(s->t, ev->evsel))
			continue;
		if (!ev->evsel || !ev->has_sample)
			continue;	/* unknown id or too short: counted by the reader, said below */
		if (!print_sample(s, ev)) {
			fprintf(stderr, "latscope dtl script: stopped after %" PRIu64 " samples: not printed as "
				"perf script prints them: %s\n", s->sample_lines, pdprint_refusal(s->pp));
			*ret = EXIT_ERR;
			break;
		}
	}
	return rc;
}

/* The JSON stream's last line (stdout, or the --json=FILE file): what was
 * counted, for its readers.  A failed write is seen at the end. */
static void print_json_summary(const struct script *s)
{
	const struct dtlmerge *m = dtltl_merge(s->t);
	const struct dtlmerge_stats *ms = dtlmerge_stats(m);
	const struct dtltl_stats *ts = dtltl_stats(s->t);
	const struct pdread_stats *rs = pdread_stats(s->r);
	struct json_object *o = jsonout_new(REPORT_DTL_SCRIPT), *sm = json_object_new_object(),
			   *g = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("summary"));
	json_object_object_add(sm, "entries", jsonnum_u64(ms->entries));
	json_object_object_add(sm, "printed", jsonnum_u64(s->dtl_lines));
	json_object_object_add(sm, "late", jsonnum_u64(ms->late));
	json_object_object_add(sm, "dropped_buffers", jsonnum_u64(ts->bad_cpu_buffers));
	json_object_object_add(sm, "unknown_id_samples", jsonnum_u64(rs->unknown_id));
	json_object_object_add(sm, "short_samples", jsonnum_u64(rs->bad_samples));
	json_object_object_add(sm, "forced_records", jsonnum_u64(ts->forced_records));
	json_object_object_add(sm, "far_entries", jsonnum_u64(ts->far_entries));
	for (int k = 0; k < DTLMERGE_GAP_NR_KINDS; k++)
		json_object_object_add(g, dtlmerge_gap_name(k), jsonnum_u64(ms->gaps[k]));
	json_object_object_add(sm, "gaps", g);
	json_object_object_add(o, "summary", sm);
	jsonout_line(o, s->jf ? s->jf : stdout);	/* a failed write: said below */
	json_object_put(o);
}

int dtl_cmd_script(int argc, char **argv)
{
	struct script s = { .mode = OUT_PERF, .t1_ns = UINT64_MAX };
	int first, rc, ret = 0;

	if ((rc = dtl_cmd_parse(&dtl_script_cli, argc, argv, &s, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_script_cli, &s.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = s.in.path;
	if (settle_modes(&s))
		return EXIT_ERR;
	/* read as latscope script reads (a large file with read(2)) */
	if (dtl_cmd_open(&s.r, path, false, scriptout_no_map(path), "latscope dtl script"))
		return EXIT_ERR;
	if ((ret = open_printing(&s, path)))
		goto out;
	rc = print_timeline(&s, &ret);
	if (rc < 0) {
		fprintf(stderr, "latscope dtl script: %s: %s\n", path,
			*pdread_strerror(s.r) ? pdread_strerror(s.r) : strerror(-rc));
		ret = EXIT_ERR;
	}
	if (rc == 0 && (s.mode == OUT_JSON || s.jf))
		print_json_summary(&s);
	if (s.have_so)
		scriptout_flush(&s.so);
	if (cmdio_finish(stdout, "latscope dtl script", "standard output")) {
		ret = EXIT_ERR;
	}
	if (!cmdio_reader_left())	/* a reader that left asked for nothing more */
		report_gaps(path, s.t, &s, s.quiet);
	dtl_cmd_tb_warnings("latscope dtl script", path, s.t);
	const struct pdread_stats *rs = pdread_stats(s.r);
	if (rs->unknown_id || rs->bad_samples)
		fprintf(stderr, "latscope dtl script: %s: %" PRIu64 " samples with an unknown id and %" PRIu64
			" too short for their sample_type were skipped\n", path, rs->unknown_id, rs->bad_samples);
	if (s.in.strict && !ret)
		ret = dtl_cmd_verdict("latscope dtl script", s.t, s.r);
out:
	scriptout_free(&s.so);
	if (s.jf && cmdio_fclose_safe(s.jf, s.jsf, s.json_file, ret == EXIT_ERR, "latscope dtl script"))
		ret = EXIT_ERR;
	ksym_free(s.syms);
	dtltl_free(s.t);
	pdprint_free(s.pp);
	free(s.line);
	cmdio_pdr_close(s.r, "latscope dtl script", path);
	return ret;
}
