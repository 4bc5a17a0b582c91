/* SPDX-License-Identifier: MIT */
/*
 * report.h - private to `latscope dtl report` (src/dtl/report.c: the
 * options, the run over the timeline, the command; output.c: the text and
 * JSON views).  Prefix: dtl_rep_.
 */
#ifndef LATSCOPE_DTL_REPORT_H
#define LATSCOPE_DTL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/dtl.h"
#include "dtl_cmd.h"
#include "engine/dtlbins.h"
#include "engine/dtlstat.h"
#include "engine/dtltask.h"
#include "engine/dtltl.h"
#include "base/parse.h"

#define NBINS 24

struct rep {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT, DTL_CMD_READ_OPTS */
	bool json, no_hist, total_only, have_cpus, timeline;
	const char *json_file;		/* --json=FILE (argv) */
	bool force;			/* --force: for --json=FILE and --html */
	struct cli_renders renders;	/* --html FILE, --render FORMAT=FILE */
	struct dtlbins *bins;		/* the vcpu_timeline (JSON, HTML), else NULL */
	uint64_t top;
	struct dtltask *tasks;
	struct dtltl *dt;
	/* where the vCPUs were (srr0), per symbol of syms, [nsyms] = unresolved */
	struct ksym *syms;
	uint64_t *sym_count, *sym_hv;
	size_t nsyms;
	uint64_t last_addr;
	size_t last_idx;
	const struct dtltl_stats *tl;
	uint64_t late;
	uint64_t bad_switches;		/* sched_switch samples without a (whole) payload */
	uint64_t dropped;		/* AUX buffers with a CPU out of range */
	uint64_t ring_full;		/* polls that copied all the hypervisor ring lets through */
	struct dtl_slicer **sl;		/* fast path, --syms or bins: [DTLSTAT_MAX_CPUS] */
	uint8_t aux_seen[DTLSTAT_MAX_CPUS];
	struct parse_cpuset cpus;
	uint64_t tb_freq_opt, boot_tb_opt;
	bool have_boot_tb;
	uint64_t min_rec_ns, max_rec_ns;	/* fast path: timed records seen */
	uint64_t aux_records;
	/* PERF_RECORD_AUXTRACE_ERROR records: DTL_AUXERR_STOPPED, _OVERRUN, other */
	uint64_t auxerr[4];	/* stopped, overrun, other, lapped (DTL_AUXERR_*) */
	uint8_t stopped[DTLSTAT_MAX_CPUS];	/* CPUs whose DTL the kernel stopped */
	uint64_t first_sample_ns, last_sample_ns;
};
_Static_assert(offsetof(struct rep, in) == 0, "struct dtl_cmd_in first");

struct json_object;

/* output.c */
struct dtl_tbinfo dtl_rep_eff_tbi(const struct dtlstat *s, const struct dtlstat_cpu *c, const struct rep *o);
uint64_t dtl_rep_freq_of(const struct dtlstat *s, const struct dtlstat_cpu *c, const struct rep *o);
struct json_object *dtl_rep_j_section(const struct dtlstat *s, const struct dtlstat_cpu *c,
				      const struct rep *o, uint64_t span_tb);
struct json_object *dtl_rep_syms_json(const struct rep *o, uint64_t f);
void dtl_rep_syms_text(const struct rep *o, uint64_t f);
struct json_object *dtl_rep_tasks_json(struct rep *o);
void dtl_rep_tasks_text(struct rep *o);
void dtl_rep_text_section(const struct dtlstat *s, const struct dtlstat_cpu *c, const char *title,
			  const struct rep *o, uint64_t span_tb, unsigned nr_vcpus);
struct json_object *dtl_rep_timeline_json(const struct rep *o);
/* timeline.c: the vcpu_timeline object of o->bins (docs/json.md); NULL when out of memory */
struct json_object *dtl_rep_bins_json(const struct rep *o);
/* the entries of one AUX payload of cpu into o->bins (the path without the merge) */
void dtl_rep_bins_payload(struct rep *o, const struct dtlstat *s, uint32_t cpu, const uint8_t *p,
			  uint64_t len);
struct json_object *dtl_rep_worst_json(const struct dtlstat *s, const struct rep *o);
void dtl_rep_worst_text(const struct dtlstat *s, const struct rep *o);

#endif
