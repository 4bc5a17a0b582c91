/* SPDX-License-Identifier: MIT */
/*
 * common.c - what the `latscope dtl` subcommands share (dtl_cmd.h): option
 * parsing with the input file, opening it, the timebase warnings, the
 * verdict on what was lost, symbols.  Below every subcommand and above
 * nothing of src/dtl, so the entry (cli.c) and the subcommands form no
 * circle.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmdio.h"
#include "commands.h"
#include "dtl_cmd.h"
#include "format/ksym.h"
#include "format/pdread.h"

/* ---- shared helpers ---- */

int dtl_cmd_window(const char *arg, void *params)
{
	struct dtltl_opts *to = &((struct dtl_cmd_in *)params)->to;

	if (!strcmp(arg, "auto")) {
		to->window_ns = 0;
		to->no_window = false;
		return 0;
	}
	if (parse_duration_ns(arg, 1000000000ULL, &to->window_ns))
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

int dtl_cmd_open(struct pdread **r, const char *path, bool unordered, bool no_map, const char *who)
{
	struct pdread_opts o = { .unordered = unordered, .no_map = no_map };

	return cmdio_pdr_open(r, path, &o, who) ? EXIT_ERR : 0;
}

void dtl_cmd_tb_warnings(const char *who, const char *path, const struct dtltl *t)
{
	const struct dtlmerge_stats *st = dtlmerge_stats(dtltl_merge(t));
	const struct dtltl_stats *ts = dtltl_stats(t);

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

bool dtl_cmd_poll_filled_ring(const struct pdread *r, const struct pdread_event *ev, uint8_t seen[4096])
{
	if (ev->type != PDFORMAT_RECORD_AUX || ev->size < 32 || !dtltl_is_dtl_evsel(r, ev->evsel))
		return false;
	uint32_t cpu = ev->has_sample ? ev->sample.cpu : UINT32_MAX;
	bool first = cpu < 4096 && !seen[cpu];
	if (cpu < 4096)
		seen[cpu] = 1;
	return dtl_poll_filled_ring(pdread_u64(r, ev->data + 16), first);
}

int dtl_cmd_verdict(const char *who, const struct dtltl *t, const struct pdread *r)
{
	const struct dtlmerge_stats *st = t ? dtlmerge_stats(dtltl_merge(t)) : NULL;
	const struct dtltl_stats *ts = t ? dtltl_stats(t) : NULL;
	const struct pdread_stats *rs = pdread_stats(r);
	uint64_t lost = 0;
	char what[256] = "";
	size_t n = 0;

	if (st)
		for (int k = 0; k < DTLMERGE_GAP_NR_KINDS; k++)
			if (k != DTLMERGE_GAP_TB_BACKWARDS)
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

int dtl_cmd_syms(struct ksym **k, const struct pdread *r, const char *path, bool none, const char *who)
{
	const struct pdread_info *in = pdread_info(r);
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

