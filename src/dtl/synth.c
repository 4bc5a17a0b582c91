/* SPDX-License-Identifier: MIT */
/* synth.c - `latscope dtl synth`: write a synthetic shared-processor LPAR recording. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "format/dtl.h"
#include "base/jsonnum.h"
#include "dtl_cmd.h"
#include "engine/dtlsynth.h"
#include "base/parse.h"
#include "base/safeout.h"

static int dbl(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

struct synth_params {
	struct dtlsynth_cfg c;
	const char *out, *truth_path;
	uint64_t cpus, move, ring, gaps;	/* 0: not given (the model's default) */
	uint64_t wake_preempts;
	bool have_ring, have_aux, quiet;
};

#define SYN_DBL(fn, field, lo, hi) \
	static int fn(const char *arg, void *params) \
	{ return dbl(arg, lo, hi, &((struct synth_params *)params)->c.field); }
SYN_DBL(parse_ent, entitlement, 0.05, 1)
SYN_DBL(parse_load, load, 0.01, 0.98)
SYN_DBL(parse_pre, preempt_hz, 0.001, 1e6)
SYN_DBL(parse_fault, fault_hz, 0.001, 1e6)
SYN_DBL(parse_confer, confer_hz, 0.001, 1e6)

static const char *const layout_names[] = { "perf", "poll", NULL };

static int parse_layout(const char *arg, void *params)
{
	struct synth_params *p = params;
	if (strcmp(arg, "perf") && strcmp(arg, "poll"))
		return -EINVAL;
	p->c.poll_layout = !strcmp(arg, "poll");
	return 0;
}

static int parse_cede(const char *arg, void *params)
{
	struct synth_params *p = params;
	char *end;
	errno = 0;
	p->c.cede_srr0 = strtoull(arg, &end, 16);
	return errno || end == arg || *end || !p->c.cede_srr0 ? -EINVAL : 0;
}

static int parse_zlevel(const char *arg, void *params)
{
	uint64_t v = 1;
	if (arg && parse_u64(arg, 1, 22, &v))
		return -EINVAL;
	((struct synth_params *)params)->c.compress = (int)v;
	return 0;
}

#define SYN_OPT(n, k, t, f, lo, hi, u, a, h, e) CLI_OPT(n, k, t, struct synth_params, f, CLI_NONE, lo, hi, u, a, h, e)
#define SYN_FLAG(n, f, h) SYN_OPT(n, 0, CLI_T_FLAG, f, 0, 0, 0, NULL, h, NULL)
#define SYN_STR(n, f, a, h) SYN_OPT(n, 0, CLI_T_STR, f, 0, 0, 0, a, h, NULL)
static const struct cli_opt synth_opts[] = {
	CLI_OUTPUT(struct synth_params, out, "output ('-' = stdout; use --pipe for a pipe)"),
	SYN_OPT("cpus", 0, CLI_T_U64, cpus, 1, 1024, 0, "N", "vCPUs (default 4)", NULL),
	CLI_DURATION(struct synth_params, c.duration_ns, "recorded time (default 1s; 500ms, 2m...)"),
	SYN_OPT("seed", 0, CLI_T_U64, c.seed, 0, 0, 0, "N", "random seed (default 1); same seed = same samples",
		"an integer"),
	SYN_FLAG("big-endian", c.big_endian, "write a big-endian file (ppc64)"),
	SYN_FLAG("pipe", c.pipe, "pipe-mode stream (no index; AUXTRACE inline)"),
	SYN_FLAG("no-dtl", c.no_dtl, "the same recording without DTL records (perf 6.1\nreads it)"),
	SYN_FLAG("no-sched", c.no_sched, "DTL only, no sched samples (benchmarks)"),
	CLI_CUSTOM("entitlement", 0, parse_ent, "E", "entitled share of a physical CPU per vCPU, 0.05-1\n(default 0.5)",
		   "0.05..1"),
	CLI_CUSTOM("load", 0, parse_load, "L", "busy fraction of each vCPU, 0.01-0.98 (default 0.6)", "0.01..0.98"),
	CLI_CUSTOM("preempt-hz", 0, parse_pre, "R", "hypervisor time-slice preempts per running second\n"
		   "(default 20*(load/entitlement)^2)", "0.001..1000000"),
	CLI_CUSTOM("fault-hz", 0, parse_fault, "R", "page-fault preempts per running second (default 2)",
		   "0.001..1000000"),
	CLI_CUSTOM("confer-hz", 0, parse_confer, "R", "H_CONFER per running second (default 5)", "0.001..1000000"),
	SYN_OPT("move-permille", 0, CLI_T_U64, move, 1, 1000, 0, "N",
		"dispatches on another physical processor, per 1000\n(default 100)", NULL),
	SYN_OPT("wakeup-preempts", 0, CLI_T_U64, wake_preempts, 0, 1000, 0, "N",
		"of the wakeups that preempt a running task, N per 1000\n"
		"the hypervisor interrupts before the switch (the\n"
		"woken task's latency holds its time; default 0)", NULL),
	SYN_OPT("period", 'c', CLI_T_DUR, c.poll_ns, 1000, UINT64_MAX / 4, 1, "NS",
		"vpa_dtl poll period (sample_period) in ns (default\n"
		"1000000; 1ms works too; the driver polls at least\n"
		"every 1 ms; perf's docs use 1000000000)",
		"at least 1000 ns (a bare number of ns, or 1ms, 10ms...)"),
	SYN_OPT("round", 0, CLI_T_DUR, c.round_ns, 1000, 0, 1000000000ULL, "D",
		"perf record drains every D, +-25 % (default 4ms),\n"
		"whatever the poll: AUXTRACE records come after newer\nsched samples",
		"a duration of at least 1us such as 4ms (a bare number is seconds)"),
	CLI_CHOICE("layout", 0, parse_layout, layout_names, "L", "perf (default: the above) or poll (the old friendly\n"
		   "layout: one round per poll, AUX data right after its\nwindow)", "perf or poll"),
	{ .name = "compression-level", .key = 'z', .type = CLI_T_CUSTOM, .given_off = CLI_NONE,
	  .parse = parse_zlevel, .optional = true, .arg = "N",
	  .help = "zstd-compress the ring records as perf record -z does\n"
		  "(level 1-22, default 1; AUX data stays uncompressed)", .expect = "1..22" },
	SYN_STR("osrelease", c.osrelease, "S", "the recording's kernel (default 6.18.0-synth)"),
	SYN_STR("arch", c.arch, "S", "the recording's machine (default ppc64le or ppc64)"),
	CLI_CUSTOM("cede-srr0", 0, parse_cede, "HEX", "the address where cedes leave the vCPU (default\n"
		   "c0000000000f8094, the idle loop's hcall)", "a non-zero hexadecimal address"),
	CLI_FORCE(struct synth_params, c.force),
	SYN_STR("truth", truth_path, "FILE", "write what the model knows as JSON: per task the\n"
		"involuntary hypervisor interruptions, their time and\nthe task's run time"),
	CLI_OPT("ring", 0, CLI_T_U64, struct synth_params, ring, CLI_GIVEN(struct synth_params, have_ring),
		0, 1u << 30, 0, "N", "entries kept per poll before loss (default 85;\n0 = unlimited)", NULL),
	CLI_OPT("aux-size", 0, CLI_T_SIZE, struct synth_params, c.aux_bytes, CLI_GIVEN(struct synth_params, have_aux),
		0, 1ULL << 32, 1024, "SIZE", "the driver's AUX buffer per CPU, where its copy wraps\n"
		"(default 128K, perf's; a power of two of 4K pages;\n0 = none, no wrap)",
		"0 or a power of two of 4K pages, such as 8K or 4M (a bare number is KiB)"),
	SYN_OPT("gaps", 0, CLI_T_U64, gaps, 2, 1u << 30, 0, "N",
		"drop every Nth AUX chunk of CPU 0 (TRUNCATED + LOST)\nto test gap reports", NULL),
	SYN_STR("formats", c.formats_dir, "DIR", "tracefs-like events directory for the sched formats\n"
		"(default: the live tracefs; LATSCOPE_FORMATS also\nworks)"),
	CLI_QUIET(struct synth_params, quiet, "no summary on stderr"),
	CLI_END
};

const struct cli_cmd dtl_synth_cli = {
	.name = "latscope dtl synth",
	.usage = "usage: latscope dtl synth -o FILE [options]",
	.intro =
"Write a realistic perf.data of a shared-processor LPAR: a vpa_dtl AUXTRACE\n"
"stream per CPU (header record first, at most 85 entries per poll like the\n"
"hypervisor ring) and sched_switch/sched_wakeup samples that agree with it: a\n"
"vCPU that cedes is idle (switched to swapper), one preempted by the hypervisor\n"
"runs no task until its dispatch.\n",
	.opts = synth_opts,
};

/* The model's truth as JSON: the same keys as `dtl report --json`'s "tasks".
 * 0 or EXIT_ERR (the error said). */
static int write_truth(const char *path, const struct dtlsynth_truth *t, bool force)
{
	struct json_object *j = json_object_new_object(), *a = json_object_new_array();
	int err = 0;

	json_object_object_add(j, "tb_freq", jsonnum_u64(t->tb_freq));
	json_object_object_add(j, "end_ns", jsonnum_u64(t->end_ns));
	for (size_t i = 0; i < t->nr_tasks; i++) {
		const struct dtlsynth_task *k = &t->tasks[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "comm", json_object_new_string(k->comm));
		json_object_object_add(o, "pid", json_object_new_int64(k->pid));
		json_object_object_add(o, "interruptions", jsonnum_u64(k->interruptions));
		json_object_object_add(o, "hypervisor_ns",
				       jsonnum_u64(dtl_ticks_to_ns(k->hv_ticks, t->tb_freq)));
		json_object_object_add(o, "worst_ns",
				       jsonnum_u64(dtl_ticks_to_ns(k->worst_ticks, t->tb_freq)));
		json_object_object_add(o, "run_ns", jsonnum_u64(k->run_ns));
		json_object_array_add(a, o);
	}
	json_object_object_add(j, "tasks", a);
	struct json_object *w = json_object_new_array();
	for (size_t i = 0; i < t->nr_wake_hv; i++) {
		const struct dtlsynth_wake_hv *h = &t->wake_hv[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "cpu", jsonnum_u64(h->cpu));
		json_object_object_add(o, "pid", jsonnum_u64(h->pid));
		json_object_object_add(o, "wake_ns", jsonnum_u64(h->wake_ns));
		json_object_object_add(o, "switch_ns", jsonnum_u64(h->switch_ns));
		json_object_object_add(o, "timebase", jsonnum_u64(h->timebase));
		json_object_object_add(o, "hypervisor_ns", jsonnum_u64(h->hv_ns));
		json_object_object_add(o, "written", json_object_new_boolean(h->written));
		json_object_array_add(w, o);
	}
	json_object_object_add(j, "wakeup_preempts", w);
	struct safeout_file *sf;
	FILE *f = cmdio_fopen_safe(&sf, AT_FDCWD, path, NULL, force, "latscope dtl synth");
	if (!f) {
		err = EXIT_ERR;
	} else {
		if (fputs(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED),
			  f) < 0 || fputc('\n', f) == EOF)
			cmdio_note_error();
		err = cmdio_fclose_safe(f, sf, path, false, "latscope dtl synth");
	}
	json_object_put(j);
	return err;
}

int dtl_cmd_synth(int argc, char **argv)
{
	struct synth_params p = { .c.formats_dir = getenv("LATSCOPE_FORMATS") };
	struct dtlsynth_cfg c;
	struct dtlsynth_stats st;
	int first, rc;
	char msg[256];

	if ((rc = dtl_cmd_parse(&dtl_synth_cli, argc, argv, &p, &first)) >= 0)
		return rc;
	if (!p.out) {
		fprintf(stderr, "latscope dtl synth: -o FILE is required; see --help\n");
		return EXIT_ERR;
	}
	c = p.c;
	c.cpus = (unsigned)p.cpus;
	c.move_permille = (unsigned)p.move;
	c.wake_preempt_permille = (unsigned)p.wake_preempts;
	c.gaps = (unsigned)p.gaps;
	c.ring = (unsigned)p.ring;
	c.ring_unlimited = p.have_ring && !p.ring;
	c.aux_unlimited = p.have_aux && !c.aux_bytes;
	if (c.aux_bytes && (c.aux_bytes < 4096 || (c.aux_bytes & (c.aux_bytes - 1)))) {
		fprintf(stderr, "latscope dtl synth: --aux-size: not a power of two of 4K pages: %" PRIu64 "\n",
			c.aux_bytes);
		return EXIT_ERR;
	}
	const char *out = p.out, *truth_path = p.truth_path;
	bool quiet = p.quiet;
	if (c.no_dtl && c.no_sched) {
		fprintf(stderr, "latscope dtl synth: --no-dtl and --no-sched leave nothing to write\n");
		return EXIT_ERR;
	}
	struct safeout_refusal why = { .what = SAFEOUT_NONE };
	c.refusal = &why;
	struct dtlsynth_truth truth = { 0 };
	struct dtlsynth_truth *tp = truth_path ? &truth : NULL;
	int err = dtlsynth_write_truth(&c, out, &st, tp, msg, sizeof(msg));
	if (err == -ENOENT || err == -ENODEV || err == -EACCES || err == -EPERM) {
		/* no readable tracefs here: use the formats shipped with the sources */
		static const char *const dirs[] = { "tests/data/formats", "/usr/local/share/latscope/formats",
						    "/usr/share/latscope/formats" };
		for (size_t i = 0; !c.formats_dir && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			char probe[512];
			snprintf(probe, sizeof(probe), "%s/sched/sched_switch/format", dirs[i]);
			if (access(probe, R_OK))
				continue;
			c.formats_dir = dirs[i];
			dtlsynth_truth_free(tp);
			err = dtlsynth_write_truth(&c, out, &st, tp, msg, sizeof(msg));
			if (!err && !quiet)
				fprintf(stderr, "latscope dtl synth: tracefs not readable, sched formats taken from %s\n",
					dirs[i]);
		}
	}
	if (err) {
		char why_s[PATH_MAX + 160];
		if (why.what != SAFEOUT_NONE || err == -ESTALE)
			fprintf(stderr, "latscope dtl synth: cannot create %s: %s\n", out,
				safeout_explain(why_s, sizeof(why_s), err, &why));
		else
			fprintf(stderr, "latscope dtl synth: %s: %s (%s)\n", out, msg[0] ? msg : "failed",
				strerror(-err));
		dtlsynth_truth_free(tp);
		return EXIT_ERR;
	}
	if (tp) {
		int terr = write_truth(truth_path, tp, c.force);
		dtlsynth_truth_free(tp);
		if (terr)
			return EXIT_ERR;
	}
	if (!quiet)
		fprintf(stderr, "latscope dtl synth: %s: %" PRIu64 " DTL entries (%" PRIu64 " cedes, %" PRIu64
			" preempts, %" PRIu64 " faults, %" PRIu64 " confers; %" PRIu64 " lost to the 85-entry ring, %"
			PRIu64 " to injected gaps, %" PRIu64 " at %" PRIu64 " AUX buffer wraps) in %" PRIu64
			" AUX chunks, %" PRIu64 " sched samples\n",
			out, st.dtl_entries, st.cedes, st.preempts, st.faults, st.confers, st.ring_lost,
			st.gap_lost, st.wrap_lost, st.aux_wraps, st.aux_chunks, st.samples);
	if (!quiet && st.wake_preempts)
		fprintf(stderr, "latscope dtl synth: %" PRIu64 " of the preempts between a wakeup and its switch "
			"(--wakeup-preempts)\n", st.wake_preempts);
	return 0;
}
