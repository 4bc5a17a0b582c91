/* SPDX-License-Identifier: MIT */
/* cmd_dtl_synth.c - `latscope dtl synth`: write a synthetic shared-processor LPAR recording. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"
#include "dtl.h"
#include "jsonv.h"
#include "dtl_cmd.h"
#include "dtlsynth.h"
#include "parse.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope dtl synth -o FILE [options]\n"
"\n"
"Write a realistic perf.data of a shared-processor LPAR: a vpa_dtl AUXTRACE\n"
"stream per CPU (header record first, at most 85 entries per poll like the\n"
"hypervisor ring) and sched_switch/sched_wakeup samples that agree with it: a\n"
"vCPU that cedes is idle (switched to swapper), one preempted by the hypervisor\n"
"runs no task until its dispatch.\n"
"\n"
"  -o, --output FILE      output ('-' = stdout; use --pipe for a pipe)\n"
"      --cpus N           vCPUs (default 4)\n"
"      --duration S       recorded time (default 1s; 500ms, 2m...)\n"
"      --seed N           random seed (default 1); same seed = same samples\n"
"      --big-endian       write a big-endian file (ppc64)\n"
"      --pipe             pipe-mode stream (no index; AUXTRACE inline)\n"
"      --no-dtl           the same recording without DTL records (perf 6.1 reads it)\n"
"      --no-sched         DTL only, no sched samples (benchmarks)\n"
"      --entitlement E    entitled share of a physical CPU per vCPU, 0.05-1 (default 0.5)\n"
"      --load L           busy fraction of each vCPU, 0.01-0.98 (default 0.6)\n"
"      --preempt-hz R     hypervisor time-slice preempts per running second\n"
"                         (default 20*(load/entitlement)^2)\n"
"      --fault-hz R       page-fault preempts per running second (default 2)\n"
"      --confer-hz R      H_CONFER per running second (default 5)\n"
"      --move-permille N  dispatches on another physical processor, per 1000 (default 100)\n"
"  -c, --period NS        vpa_dtl poll period (sample_period) in ns (default 1000000;\n"
"                         the driver polls at least every 1 ms; perf's docs use 1000000000)\n"
"      --round D          perf record drains every D, +-25 %% (default 4ms), whatever\n"
"                         the poll: AUXTRACE records come after newer sched samples\n"
"      --layout L         perf (default: the above) or poll (the old friendly layout:\n"
"                         one round per poll, AUX data right after its window)\n"
"  -z, --compression-level[=N]  zstd-compress the ring records as perf record -z\n"
"                         does (level 1-22, default 1; AUX data stays uncompressed)\n"
"      --osrelease S, --arch S  the recording's kernel and machine (default\n"
"                         6.18.0-synth, ppc64le or ppc64)\n"
"      --cede-srr0 HEX    the address where cedes leave the vCPU (default\n"
"                         c0000000000f8094, the idle loop's hcall)\n"
"      --truth FILE       write what the model knows as JSON: per task the involuntary\n"
"                         hypervisor interruptions, their time and the task's run time\n"
"      --ring N           entries kept per poll before loss (default 85; 0 = unlimited)\n"
"      --gaps N           drop every Nth AUX chunk of CPU 0 (TRUNCATED + LOST) to test gap reports\n"
"      --formats DIR      tracefs-like events directory for the sched formats\n"
"                         (default: the live tracefs; LATSCOPE_FORMATS also works)\n"
"  -q, --quiet            no summary on stderr\n"
"  -h, --help             this help\n");
}

static int dbl(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

/* The model's truth as JSON: the same keys as `dtl report --json`'s "tasks". */
static int write_truth(const char *path, const struct dtlsyn_truth *t)
{
	struct json_object *j = json_object_new_object(), *a = json_object_new_array();
	int err = 0;

	json_object_object_add(j, "tb_freq", jsonv_u64(t->tb_freq));
	json_object_object_add(j, "end_ns", jsonv_u64(t->end_ns));
	for (size_t i = 0; i < t->nr_tasks; i++) {
		const struct dtlsyn_task *k = &t->tasks[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "comm", json_object_new_string(k->comm));
		json_object_object_add(o, "pid", json_object_new_int64(k->pid));
		json_object_object_add(o, "interruptions", jsonv_u64(k->interruptions));
		json_object_object_add(o, "hypervisor_ns",
				       jsonv_u64(dtl_ticks_to_ns(k->hv_ticks, t->tb_freq)));
		json_object_object_add(o, "worst_ns",
				       jsonv_u64(dtl_ticks_to_ns(k->worst_ticks, t->tb_freq)));
		json_object_object_add(o, "run_ns", jsonv_u64(k->run_ns));
		json_object_array_add(a, o);
	}
	json_object_object_add(j, "tasks", a);
	FILE *f = fopen(path, "w");
	if (!f)
		err = -errno;
	else {
		fputs(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED), f);
		fputc('\n', f);
		if (ferror(f))
			err = -EIO;
		if (fclose(f) && !err)
			err = -errno;
	}
	json_object_put(j);
	return err;
}

int dtl_cmd_synth(int argc, char **argv)
{
	enum { O_CPUS = 256, O_DUR, O_SEED, O_BE, O_PIPE, O_NODTL, O_NOSCHED, O_ENT, O_LOAD, O_PRE,
	       O_FAULT, O_CONFER, O_MOVE, O_RING, O_GAPS, O_FORMATS, O_ROUND, O_LAYOUT, O_TRUTH,
	       O_OSREL, O_ARCH, O_CEDE };
	uint64_t zlevel = 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "duration", required_argument, NULL, O_DUR },
		{ "seed", required_argument, NULL, O_SEED },
		{ "big-endian", no_argument, NULL, O_BE },
		{ "pipe", no_argument, NULL, O_PIPE },
		{ "no-dtl", no_argument, NULL, O_NODTL },
		{ "no-sched", no_argument, NULL, O_NOSCHED },
		{ "entitlement", required_argument, NULL, O_ENT },
		{ "load", required_argument, NULL, O_LOAD },
		{ "preempt-hz", required_argument, NULL, O_PRE },
		{ "fault-hz", required_argument, NULL, O_FAULT },
		{ "confer-hz", required_argument, NULL, O_CONFER },
		{ "move-permille", required_argument, NULL, O_MOVE },
		{ "period", required_argument, NULL, 'c' },
		{ "ring", required_argument, NULL, O_RING },
		{ "gaps", required_argument, NULL, O_GAPS },
		{ "formats", required_argument, NULL, O_FORMATS },
		{ "round", required_argument, NULL, O_ROUND },
		{ "layout", required_argument, NULL, O_LAYOUT },
		{ "truth", required_argument, NULL, O_TRUTH },
		{ "osrelease", required_argument, NULL, O_OSREL },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "cede-srr0", required_argument, NULL, O_CEDE },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dtlsyn_cfg c = { 0 };
	struct dtlsyn_stats st;
	const char *out = NULL, *truth_path = NULL;
	bool quiet = false;
	uint64_t v;
	int o;
	char msg[256];

	c.formats_dir = getenv("LATSCOPE_FORMATS");
	optind = 1;
	while ((o = getopt_long(argc, argv, "o:c:z::qh", opts, NULL)) != -1) {
		int bad = 0;
		switch (o) {
		case 'o': out = optarg; break;
		case O_CPUS: bad = ps_u64(optarg, 1, 1024, &v); c.cpus = (unsigned)v; break;
		case O_DUR: bad = ps_duration_ns(optarg, 1000000000ULL, &c.duration_ns) || !c.duration_ns; break;
		case O_SEED: bad = ps_u64(optarg, 0, UINT64_MAX, &c.seed); break;
		case O_BE: c.big_endian = true; break;
		case O_PIPE: c.pipe = true; break;
		case O_NODTL: c.no_dtl = true; break;
		case O_NOSCHED: c.no_sched = true; break;
		case O_ENT: bad = dbl(optarg, 0.05, 1, &c.entitlement); break;
		case O_LOAD: bad = dbl(optarg, 0.01, 0.98, &c.load); break;
		case O_PRE: bad = dbl(optarg, 0.001, 1e6, &c.preempt_hz); break;
		case O_FAULT: bad = dbl(optarg, 0.001, 1e6, &c.fault_hz); break;
		case O_CONFER: bad = dbl(optarg, 0.001, 1e6, &c.confer_hz); break;
		case O_MOVE: bad = ps_u64(optarg, 1, 1000, &v); c.move_permille = (unsigned)v; break;
		case 'c': bad = ps_u64(optarg, 1000, UINT64_MAX / 4, &c.poll_ns); break;
		case O_RING:
			bad = ps_u64(optarg, 0, 1u << 30, &v);
			c.ring = (unsigned)v;
			c.ring_unlimited = v == 0;
			break;
		case O_GAPS: bad = ps_u64(optarg, 2, 1u << 30, &v); c.gaps = (unsigned)v; break;
		case O_FORMATS: c.formats_dir = optarg; break;
		case O_ROUND: bad = ps_duration_ns(optarg, 1000000000ULL, &c.round_ns) || c.round_ns < 1000; break;
		case O_LAYOUT:
			bad = strcmp(optarg, "perf") && strcmp(optarg, "poll");
			c.poll_layout = !strcmp(optarg, "poll");
			break;
		case O_TRUTH: truth_path = optarg; break;
		case O_OSREL: c.osrelease = optarg; break;
		case O_ARCH: c.arch = optarg; break;
		case O_CEDE: {
			char *end;
			errno = 0;
			c.cede_srr0 = strtoull(optarg, &end, 16);
			bad = errno || end == optarg || *end || !c.cede_srr0;
			break;
		}
		case 'z':
			zlevel = 1;
			bad = optarg && ps_u64(optarg, 1, 22, &zlevel);
			c.compress = (int)zlevel;
			break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_ERR;
		}
		if (bad) {
			const char *name = "option";
			for (const struct option *p = opts; p->name; p++)
				if (p->val == o)
					name = p->name;
			fprintf(stderr, "latscope dtl synth: bad value '%s' for --%s (see --help for the range)\n",
				optarg, name);
			return EXIT_ERR;
		}
	}
	if (!out || optind < argc) {
		fprintf(stderr, "latscope dtl synth: -o FILE is required\n");
		usage(stderr);
		return EXIT_ERR;
	}
	if (c.no_dtl && c.no_sched) {
		fprintf(stderr, "latscope dtl synth: --no-dtl and --no-sched leave nothing to write\n");
		return EXIT_ERR;
	}
	struct dtlsyn_truth truth = { 0 };
	struct dtlsyn_truth *tp = truth_path ? &truth : NULL;
	int err = dtlsyn_write_truth(&c, out, &st, tp, msg, sizeof(msg));
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
			dtlsyn_truth_free(tp);
			err = dtlsyn_write_truth(&c, out, &st, tp, msg, sizeof(msg));
			if (!err && !quiet)
				fprintf(stderr, "latscope dtl synth: tracefs not readable, sched formats taken from %s\n",
					dirs[i]);
		}
	}
	if (err) {
		fprintf(stderr, "latscope dtl synth: %s: %s (%s)\n", out, msg[0] ? msg : "failed", strerror(-err));
		dtlsyn_truth_free(tp);
		return EXIT_ERR;
	}
	if (tp) {
		int terr = write_truth(truth_path, tp);
		dtlsyn_truth_free(tp);
		if (terr) {
			fprintf(stderr, "latscope dtl synth: cannot write %s: %s\n", truth_path, strerror(-terr));
			return EXIT_ERR;
		}
	}
	if (!quiet)
		fprintf(stderr, "latscope dtl synth: %s: %" PRIu64 " DTL entries (%" PRIu64 " cedes, %" PRIu64
			" preempts, %" PRIu64 " faults, %" PRIu64 " confers; %" PRIu64 " lost to the 85-entry ring, %"
			PRIu64 " to injected gaps) in %" PRIu64 " AUX chunks, %" PRIu64 " sched samples\n",
			out, st.dtl_entries, st.cedes, st.preempts, st.faults, st.confers, st.ring_lost,
			st.gap_lost, st.aux_chunks, st.samples);
	return 0;
}
