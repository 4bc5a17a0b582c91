/* SPDX-License-Identifier: MIT */
/* report.c - `latscope dtl report`: DTL statistics per CPU and in total. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdio.h"
#include "commands.h"
#include "base/bytes.h"
#include "format/dtl.h"
#include "base/jsonnum.h"
#include "jsonout.h"
#include "format/ksym.h"
#include "report.h"
#include "engine/dtlmerge.h"
#include "engine/dtlstat.h"
#include "engine/dtltask.h"
#include "engine/dtltl.h"
#include "format/tpevent.h"
#include "base/parse.h"
#include "format/pdread.h"

#define REP_FLAG(n, f, h) CLI_OPT(n, 0, CLI_T_FLAG, struct rep, f, CLI_NONE, 0, 0, 0, NULL, h, NULL)
static const struct cli_opt report_opts[] = {
	DTL_CMD_INPUT,
	CLI_JSON(struct rep, json, json_file),
	CLI_FORCE(struct rep, force),
	CLI_RENDERS(struct rep, renders),
	REP_FLAG("no-hist", no_hist, "text: leave out the histograms"),
	REP_FLAG("total-only", total_only, "text: only the total, no per-CPU sections"),
	CLI_CPU_PERF(struct rep, cpus, have_cpus, "only these CPUs"),
	CLI_OPT("tb-freq", 0, CLI_T_U64, struct rep, tb_freq_opt, CLI_NONE, 1, 0, 0, "HZ",
		"timebase frequency of the entries (overrides the\nheader records)", "a positive integer"),
	CLI_OPT("boot-tb", 0, CLI_T_U64, struct rep, boot_tb_opt, CLI_GIVEN(struct rep, have_boot_tb), 0, 0, 0,
		"N", "boot timebase of the entries (overrides the header\nrecords)", "an integer"),
	CLI_OPT("top", 0, CLI_T_U64, struct rep, top, CLI_NONE, 0, 1000000, 0, "N",
		"rows of the per-task table (default 20; 0 = all)", NULL),
	DTL_CMD_READ_OPTS("symbols for srr0 from this kallsyms file (the top\n"
			  "symbols where the vCPUs were taken, by count and by\n"
			  "hypervisor time; default: /proc/kallsyms when the\n"
			  "recording's osrelease and arch are this machine's)"),
	CLI_END
};

const struct cli_cmd dtl_report_cli = {
	.name = "latscope dtl report",
	.usage = "usage: latscope dtl report [options] FILE",
	.intro =
"Statistics of the DTL entries of a perf.data file, per CPU and in total:\n"
"dispatch and preempt reason counts; the three DTL times (enqueue_to_dispatch,\n"
"ready_to_enqueue, waiting_to_ready) as latency histograms in microseconds with\n"
"min/avg/max and p50/p90/p99/p99.9; the hypervisor time taken from the\n"
"partition (enqueue_to_dispatch + ready_to_enqueue, as the kernel's stolen-time\n"
"accounting counts it) as a share of the recorded time (each CPU's first to\n"
"last DTL entry); dispatches per second; how often a vCPU came back on another\n"
"physical processor; the worst dispatch delays with time and CPU.\n",
	.opts = report_opts,
	.outro =
"When the file also has sched:sched_switch samples (or comes through a pipe),\n"
"the entries are merged with them into one timeline and every involuntary\n"
"interruption (any preempt reason but H_CEDE, H_CONFER, H_CONFER_ADJUNCT, which\n"
"are the partition's own choice) is charged to the task that was running on\n"
"that vCPU when the hypervisor took it: per task the interruptions, their\n"
"hypervisor time (enqueue_to_dispatch + ready_to_enqueue), the worst one, and\n"
"that time as a share of the task's run time.  Idle time is shown as [idle];\n"
"entries before a CPU's first sched_switch as [unknown].\n",
	.operands = true,
};

static int syms_init(struct rep *o)
{
	if (!o->syms)
		return 0;
	o->nsyms = ksym_count(o->syms);
	o->sym_count = calloc(o->nsyms + 1, sizeof(uint64_t));
	o->sym_hv = calloc(o->nsyms + 1, sizeof(uint64_t));
	o->last_idx = SIZE_MAX;
	return o->sym_count && o->sym_hv ? 0 : -ENOMEM;
}

/* One entry's srr0 and hypervisor ticks into the per-symbol counters. */
static void sym_account(struct rep *o, const uint8_t *raw)
{
	uint64_t a = dtl_raw_srr0(raw);
	size_t i;

	if (a == o->last_addr && o->last_idx != SIZE_MAX) {
		i = o->last_idx;
	} else {
		struct ksym_hit h;
		i = ksym_lookup(o->syms, a, &h) ? h.index : o->nsyms;
		o->last_addr = a;
		o->last_idx = i;
	}
	o->sym_count[i]++;
	o->sym_hv[i] += (uint64_t)dtl_raw_enqueue_to_dispatch(raw) + dtl_raw_ready_to_enqueue(raw);
}

static void sym_payload(struct rep *o, const uint8_t *p, uint64_t len);

/* Fast path: the bytes [p, p + len) of cpu's payload at stream offset pos
 * (last: they end it) into the stats, the symbols and the bins. */
static int rep_piece(struct rep *o, struct dtlstat *s, uint32_t cpu, uint64_t pos, const uint8_t *p,
		     uint64_t len, bool last, bool swap)
{
	int rc = dtlstat_add_payload(s, cpu, pos, p, len, last, swap);

	if (rc || (!o->syms && !o->bins))
		return rc;
	if (!o->sl && !(o->sl = calloc(DTLSTAT_MAX_CPUS, sizeof(*o->sl))))
		return -ENOMEM;
	if (!o->sl[cpu]) {
		if (!(o->sl[cpu] = malloc(sizeof(*o->sl[cpu]))))
			return -ENOMEM;
		dtl_slicer_init_stream(o->sl[cpu]);
	}
	const uint8_t *run;
	uint64_t at;
	size_t n;

	dtl_slicer_feed(o->sl[cpu], pos, p, len, last);
	while ((n = dtl_slicer_next(o->sl[cpu], &run, &at)) > 0) {
		if (o->syms)
			sym_payload(o, run, (uint64_t)n * DTL_ENTRY_SIZE);
		if (o->bins)
			dtl_rep_bins_payload(o, s, cpu, run, (uint64_t)n * DTL_ENTRY_SIZE);
	}
	return 0;
}

static void sym_payload(struct rep *o, const uint8_t *p, uint64_t len)
{
	for (uint64_t off = 0; off + DTL_ENTRY_SIZE <= len; off += DTL_ENTRY_SIZE)
		if (!dtl_raw_is_skipped(p + off))
			sym_account(o, p + off);
}

static void note_ring(struct rep *o, const struct pdread_event *ev, const struct pdread *r)
{
	_Static_assert(sizeof(o->aux_seen) == 4096, "dtl_cmd_poll_filled_ring's CPUs");
	o->ring_full += dtl_cmd_poll_filled_ring(r, ev, o->aux_seen);
}

/* A PERF_RECORD_AUXTRACE_ERROR: what the recorder says it lost. */
static void note_auxerr(struct rep *o, const struct pdread_event *ev, const struct pdread *r)
{
	struct pdread_auxerr e;

	if (!pdread_auxerr(r, ev, &e))
		return;
	if (e.code == DTL_AUXERR_STOPPED) {
		o->auxerr[0]++;
		if (e.cpu < DTLSTAT_MAX_CPUS)
			o->stopped[e.cpu] = 1;
	} else if (e.code == DTL_AUXERR_OVERRUN) {
		o->auxerr[1]++;
	} else if (e.code == DTL_AUXERR_LAPPED) {
		o->auxerr[3]++;
	} else {
		o->auxerr[2]++;
	}
}

static bool has_sched_switch(const struct pdread *r)
{
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		if (e->name && !strcmp(e->name, "sched:sched_switch"))
			return true;
	}
	return false;
}

/* What run_timeline() keeps between items: the sched_switch decoder (made
 * at the first one; freed by run_timeline()), its losses, the newest time. */
struct timeline_walk {
	struct tpdecode *d;
	struct tpdecode_losses loss;	/* of the sched_switch samples only */
	uint64_t end_ns;		/* the newest entry or timed sample */
};

/* --tb-freq and --boot-tb into the timeline's options, over the header
 * records (--boot-tb alone assumes the default tb_freq). */
static void apply_tb_overrides(struct rep *o)
{
	if (o->tb_freq_opt) {
		o->in.to.fallback.tb_freq = o->tb_freq_opt;
		o->in.to.override_tb_freq = true;
	}
	if (o->have_boot_tb) {
		o->in.to.fallback.boot_tb = o->boot_tb_opt;
		o->in.to.override_boot_tb = true;
		if (!o->in.to.fallback.tb_freq)
			o->in.to.fallback.tb_freq = DTL_DEFAULT_TB_FREQ;
	}
}

/* One DTL entry of a wanted CPU into the statistics, the symbols, the task
 * running on its CPU and the bins.  0, or a negative errno (an entry out of
 * a table's range, -ERANGE, is skipped: 0). */
static int timeline_entry(struct dtlstat *s, struct rep *o, const struct dtlmerge_item *e, uint64_t *end_ns)
{
	int rc;

	if (e->time_ns > *end_ns)
		*end_ns = e->time_ns;
	if (o->have_cpus && !parse_cpuset_has(&o->cpus, e->cpu))
		return 0;
	if (o->syms)
		sym_account(o, e->raw);
	rc = dtlstat_add_raw(s, e->cpu, e->raw, &e->tbi);
	if (!rc)
		rc = dtltask_entry(o->tasks, e->cpu, e->time_ns, &e->e, e->tbi.tb_freq);
	if (!rc && o->bins)
		rc = dtlbins_entry(o->bins, e->cpu, e->time_ns, &e->e, e->tbi.tb_freq);
	return rc == -ERANGE ? 0 : rc;
}

/* A sample: when it is a sched_switch, its next task runs on its CPU from
 * now on (the tasks, the bins).  0, or a negative errno (-ERANGE skipped). */
static int timeline_sample(struct pdread *r, struct rep *o, struct timeline_walk *w, const struct pdread_event *ev)
{
	const struct pdread_evsel *es = ev->evsel;
	struct tpevent e;
	int rc;

	if (!es || !es->tp || !(ev->sample.type & PDFORMAT_SAMPLE_CPU))
		return 0;
	if (!w->d) {
		w->d = tpdecode_new(pdread_tep(r));
		if (!w->d)
			return -ENOMEM;
	}
	if (tpdecode_kind(w->d, (int)es->attr.config) != TPEVENT_SCHED_SWITCH)
		return 0;
	if (tpdecode_decode_sample(w->d, ev, &e, &w->loss) < 0) {
		o->bad_switches = w->loss.no_raw + w->loss.bad_raw;
		return 0;
	}
	rc = dtltask_switch(o->tasks, ev->sample.cpu, ev->sample.time, e.sw.prev_pid,
			    e.sw.prev_comm, e.sw.next_pid, e.sw.next_comm);
	if (!rc && o->bins)
		rc = dtlbins_switch(o->bins, ev->sample.cpu, ev->sample.time, e.sw.next_pid,
				    e.sw.next_comm);
	return rc == -ERANGE ? 0 : rc;
}

/* One record of the timeline other than a DTL entry: AUX records and
 * AUXTRACE_ERRORs noted, samples to timeline_sample().  0 or a negative errno. */
static int timeline_record(struct pdread *r, struct rep *o, struct timeline_walk *w, const struct pdread_event *ev)
{
	if (ev->has_sample && (ev->sample.type & PDFORMAT_SAMPLE_TIME) && ev->sample.time > w->end_ns)
		w->end_ns = ev->sample.time;
	switch (ev->type) {
	case PDFORMAT_RECORD_AUX:
		o->aux_records++;
		note_ring(o, ev, r);
		return 0;
	case PDFORMAT_RECORD_AUXTRACE_ERROR:
		note_auxerr(o, ev, r);
		return 0;
	case PDFORMAT_RECORD_SAMPLE:
		return timeline_sample(r, o, w, ev);
	default:
		return 0;
	}
}

/* The end at end_ns: the tasks' and bins' last stretches closed, the merge's
 * scan counts into the statistics, its late entries and the dropped buffers
 * into o. */
static void finish_timeline(struct dtlstat *s, struct rep *o, uint64_t end_ns)
{
	dtltask_end(o->tasks, end_ns);
	if (o->bins)
		dtlbins_end(o->bins, end_ns);
	const struct dtlmerge_stats *ms = dtlmerge_stats(dtltl_merge(o->dt));
	struct dtl_scan_stats sc = {
		.payloads = ms->buffers, .slots = ms->entries + ms->headers + ms->skipped,
		.headers = ms->headers, .skipped = ms->skipped, .odd_payloads = ms->odd_buffers,
		.tail_bytes = ms->tail_bytes, .wrap_gaps = ms->wrap_gaps, .wrap_gap_bytes = ms->wrap_gap_bytes,
		.holes = ms->holes, .hole_bytes = ms->hole_bytes,
	};
	dtlstat_set_scan(s, &sc);
	o->late = ms->late;
	o->dropped = o->tl->bad_cpu_buffers;
}

/*
 * The merged timeline: every entry into the statistics (in time order) and
 * every involuntary interruption charged to the task on its CPU.
 */
static int run_timeline(struct pdread *r, struct dtlstat *s, struct rep *o, const char *path)
{
	struct timeline_walk w = { 0 };
	struct dtltl_item it;
	int rc;

	(void)path;
	apply_tb_overrides(o);
	rc = dtltask_new(&o->tasks);
	if (rc)
		return rc;
	rc = dtltl_new(&o->dt, r, &o->in.to);
	if (rc)
		return rc;
	o->tl = dtltl_stats(o->dt);
	while ((rc = dtltl_next(o->dt, &it)) > 0) {
		if (it.kind == DTLTL_ENTRY)
			rc = timeline_entry(s, o, &it.entry, &w.end_ns);
		else
			rc = timeline_record(r, o, &w, it.ev);
		if (rc < 0)
			break;
	}
	tpdecode_free(w.d);
	if (rc < 0)
		return rc;
	finish_timeline(s, o, w.end_ns);
	return 0;
}

/* the PERF_RECORD_AUXTRACE_ERROR records of every code */
static uint64_t auxerr_total(const struct rep *o)
{
	return o->auxerr[0] + o->auxerr[1] + o->auxerr[2] + o->auxerr[3];
}

/* "0, 1, 5" : the CPUs whose DTL the kernel stopped, into buf */
static void stopped_list(const struct rep *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < DTLSTAT_MAX_CPUS && n + 16 < size; i++)
		if (o->stopped[i])
			n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? ", " : "", i);
}

/*
 * Every loss on stderr, whatever the output mode (the text report and the
 * JSON carry them too): what was dropped or lost, and what it may change.
 */
static void report_losses(const char *path, const struct rep *o, const struct pdread *r,
			  const struct dtl_scan_stats *sc)
{
	const struct pdread_stats *rs = pdread_stats(r);
	const char *who = "latscope dtl report";

	if (o->dropped)
		fprintf(stderr, "%s: %s: %" PRIu64 " AUX buffers dropped (CPU number out of range 0..%d): "
			"their DTL entries are not in the report\n", who, path, o->dropped, DTLSTAT_MAX_CPUS - 1);
	if (rs->aux_truncated || rs->aux_partial || rs->aux_collision || rs->lost_records)
		fprintf(stderr, "%s: %s: data lost while recording: AUX truncated %" PRIu64 ", partial %" PRIu64
			", collision %" PRIu64 ", LOST records %" PRIu64 " (%" PRIu64 " events)\n", who, path,
			rs->aux_truncated, rs->aux_partial, rs->aux_collision, rs->lost_records, rs->lost_events);
	if (o->ring_full)
		fprintf(stderr, "%s: %s: %" PRIu64 " of %" PRIu64 " polls copied 84 entries, all the "
			"hypervisor's 85-entry ring lets through: entries were probably overwritten (poll "
			"more often: -c)\n", who, path, o->ring_full, o->aux_records);
	if (sc->wrap_gaps)
		fprintf(stderr, "%s: %s: the driver's AUX buffer wrapped %" PRIu64 " times: each time it "
			"dropped the rest of the poll that filled it and overwrote the next poll's entries "
			"(at least %" PRIu64 " entries lost; how many is not in the file; a larger AUX buffer "
			"wraps less often: dtl record --aux-size, perf record -m ,SIZE)\n", who, path,
			sc->wrap_gaps, sc->wrap_gaps);
	if (sc->tail_bytes)
		fprintf(stderr, "%s: %s: %" PRIu64 " AUX payloads end inside an entry: %" PRIu64
			" bytes ignored\n", who, path, sc->odd_payloads, sc->tail_bytes);
	if (sc->hole_bytes)
		fprintf(stderr, "%s: %s: %" PRIu64 " bytes of AUX data (at least %" PRIu64 " entries) never "
			"reached the file, in %" PRIu64 " holes of the AUX stream: the driver writes over what the "
			"reader has not copied yet (a larger AUX buffer gives the reader more time: dtl record "
			"--aux-size)\n",
			who, path, sc->hole_bytes, (sc->hole_bytes + DTL_ENTRY_SIZE - 1) / DTL_ENTRY_SIZE, sc->holes);
	if (o->auxerr[0]) {
		char l[256];
		stopped_list(o, l, sizeof(l));
		fprintf(stderr, "%s: %s: the AUX buffer of CPU %s filled up and the kernel stopped recording "
			"its DTL: no entries after that point (a larger AUX buffer: dtl record --aux-size)\n",
			who, path, l);
	}
	if (o->auxerr[3])
		fprintf(stderr, "%s: %s: the hypervisor lapped the debugfs reader %" PRIu64 " times (a read "
			"of the kernel's whole buffer less one, or entries out of order, dropped): entries were "
			"probably lost (dtl record -c: poll more often)\n", who, path, o->auxerr[3]);
	if (o->auxerr[2])
		fprintf(stderr, "%s: %s: %" PRIu64 " AUX trace errors of other kinds recorded\n", who, path,
			o->auxerr[2]);
	if (rs->unknown_id || rs->bad_samples)
		fprintf(stderr, "%s: %s: %" PRIu64 " samples with an id no event declares and %" PRIu64
			" too short for their sample_type were skipped: a task switch among them is missed, "
			"so interruptions may be charged to the wrong task or to [unknown]\n", who, path,
			rs->unknown_id, rs->bad_samples);
	if (o->late)
		fprintf(stderr, "%s: %s: %" PRIu64 " DTL entries came after a newer record "
			"(beyond the reorder window): their tasks may be wrong\n", who, path, o->late);
	if (o->bad_switches)
		fprintf(stderr, "%s: %s: %" PRIu64 " sched_switch samples dropped (no "
			"payload or one too short for its format): their tasks may be wrong\n", who, path,
			o->bad_switches);
}

/* A large AUX payload left in the file (ev), read in chunks into *pay
 * (allocated here once, the caller frees it; the slicer joins a slot two
 * chunks cut). */
static int aux_in_chunks(struct pdread *r, struct dtlstat *s, struct rep *o, const struct pdread_event *ev,
			 bool swap, uint8_t **pay)
{
	const struct pdread_auxtrace *a = &ev->auxtrace;
	const uint64_t chunk = DTL_ENTRY_SIZE * 21845ULL;
	uint64_t done = 0;
	int rc;

	if (!*pay)
		*pay = malloc(chunk);
	rc = *pay ? 0 : -ENOMEM;
	while (!rc && done < a->size) {
		uint64_t n = a->size - done < chunk ? a->size - done : chunk;
		rc = pdread_pread(r, ev->aux_file_offset + done, *pay, (size_t)n);
		if (!rc)
			rc = rep_piece(o, s, a->cpu, a->offset + done, *pay, n, done + n == a->size, swap);
		done += n;
	}
	return rc;
}

/* No sched_switch to charge: the AUX data read in file order, no merge.
 * 0 at the end of the file, or a negative errno (the reader says why). */
static int read_file_order(struct pdread *r, struct dtlstat *s, struct rep *o, bool swap, uint8_t **pay)
{
	struct pdread_event ev;
	int rc;

	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type < PDFORMAT_RECORD_USER_START && ev.has_sample && ev.sample.time &&
		    (ev.sample.type & PDFORMAT_SAMPLE_TIME)) {
			if (!o->min_rec_ns || ev.sample.time < o->min_rec_ns)
				o->min_rec_ns = ev.sample.time;
			if (ev.sample.time > o->max_rec_ns)
				o->max_rec_ns = ev.sample.time;
		}
		switch (ev.type) {
		case PDFORMAT_RECORD_AUXTRACE: {
			const struct pdread_auxtrace *a = &ev.auxtrace;
			if (!dtltl_file_has_dtl(r))
				break;
			if (o->have_cpus && !parse_cpuset_has(&o->cpus, a->cpu))
				break;
			if (ev.aux_data)
				rc = rep_piece(o, s, a->cpu, a->offset, ev.aux_data, a->size, true, swap);
			else
				rc = aux_in_chunks(r, s, o, &ev, swap, pay);
			if (rc == -ERANGE) {
				o->dropped++;
				rc = 0;
			}
			if (rc < 0)
				return rc;
			break;
		}
		case PDFORMAT_RECORD_AUX:
			o->aux_records++;
			note_ring(o, &ev, r);
			break;
		case PDFORMAT_RECORD_AUXTRACE_ERROR:
			note_auxerr(o, &ev, r);
			break;
		default:
			break;
		}
	}
	return rc < 0 ? rc : 0;
}

/* The report document (docs/json.md, latscope.dtl-report/1): the caller's. */
static struct json_object *report_json(struct dtlstat *s, struct rep *o, const struct pdread *r, const char *path,
				       const struct dtlstat_cpu *tot, uint64_t tot_span)
{
	const struct dtl_scan_stats *sc = dtlstat_scan_stats(s);
	const struct pdread_stats *rs = pdread_stats(r);	/* LOST records, AUX flags */
	struct dtl_tbinfo tbi = dtlstat_tbinfo(s);

	struct json_object *j = jsonout_new(REPORT_DTL_REPORT), *cpus = json_object_new_array(),
			   *data = json_object_new_object();
	json_object_object_add(j, "file", json_object_new_string(path));
	json_object_object_add(j, "boot_ticks", jsonnum_u64(tbi.boot_tb));
	json_object_object_add(j, "tb_freq_hz", jsonnum_u64(dtl_rep_freq_of(s, NULL, o)));
	json_object_object_add(j, "has_header", json_object_new_boolean(dtl_tbinfo_valid(&tbi)));
	json_object_object_add(data, "payloads", jsonnum_u64(sc->payloads));
	json_object_object_add(data, "slots", jsonnum_u64(sc->slots));
	json_object_object_add(data, "entries", jsonnum_u64(sc->entries));
	json_object_object_add(data, "headers", jsonnum_u64(sc->headers));
	json_object_object_add(data, "skipped_slots", jsonnum_u64(sc->skipped));
	json_object_object_add(data, "odd_payloads", jsonnum_u64(sc->odd_payloads));
	json_object_object_add(data, "tail_bytes", jsonnum_u64(sc->tail_bytes));
	json_object_object_add(data, "aux_wraps", jsonnum_u64(sc->wrap_gaps));
	json_object_object_add(data, "aux_wrap_bytes", jsonnum_u64(sc->wrap_gap_bytes));
	json_object_object_add(data, "aux_holes", jsonnum_u64(sc->holes));
	json_object_object_add(data, "aux_hole_bytes", jsonnum_u64(sc->hole_bytes));
	json_object_object_add(data, "aux_errors", jsonnum_u64(auxerr_total(o)));
	struct json_object *stop = json_object_new_array();
	for (uint32_t i = 0; i < DTLSTAT_MAX_CPUS; i++)
		if (o->stopped[i])
			json_object_array_add(stop, json_object_new_int64(i));
	json_object_object_add(data, "dtl_stopped_cpus", stop);
	json_object_object_add(data, "unknown_reasons", jsonnum_u64(sc->bad_reasons));
	json_object_object_add(data, "aux_truncated", jsonnum_u64(rs->aux_truncated));
	json_object_object_add(data, "aux_partial", jsonnum_u64(rs->aux_partial));
	json_object_object_add(data, "aux_collision", jsonnum_u64(rs->aux_collision));
	json_object_object_add(data, "lost_records", jsonnum_u64(rs->lost_records));
	json_object_object_add(data, "lost_events", jsonnum_u64(rs->lost_events));
	json_object_object_add(data, "dropped_buffers", jsonnum_u64(o->dropped));
	json_object_object_add(data, "ring_full_polls", jsonnum_u64(o->ring_full));
	json_object_object_add(data, "polls", jsonnum_u64(o->aux_records));
	json_object_object_add(data, "unknown_id_samples", jsonnum_u64(pdread_stats(r)->unknown_id));
	json_object_object_add(data, "short_samples", jsonnum_u64(pdread_stats(r)->bad_samples));
	json_object_object_add(data, "late_entries", jsonnum_u64(o->late));
	if (o->bad_switches)	/* only then: the key is new */
		json_object_object_add(data, "bad_switch_samples", jsonnum_u64(o->bad_switches));
	json_object_object_add(j, "data", data);
	for (uint32_t i = 0; i < dtlstat_nr_cpus(s); i++) {
		const struct dtlstat_cpu *cc = dtlstat_cpu(s, i);
		if (cc && cc->entries)
			json_object_array_add(cpus, dtl_rep_j_section(s, cc, o, dtlstat_span_tb(cc)));
	}
	json_object_object_add(j, "cpus", cpus);
	json_object_object_add(j, "total", dtl_rep_j_section(s, tot, o, tot_span));
	json_object_object_add(j, "worst", dtl_rep_worst_json(s, o));
	json_object_object_add(j, "symbols", dtl_rep_syms_json(o, dtl_rep_freq_of(s, NULL, o)));
	if (o->timeline) {
		json_object_object_add(j, "timeline", dtl_rep_timeline_json(o));
		json_object_object_add(j, "tasks", dtl_rep_tasks_json(o));
	}
	json_object_object_add(j, "vcpu_timeline", dtl_rep_bins_json(o));
	return j;
}

/* The text report on standard output. */
static void report_text(struct dtlstat *s, struct rep *o, const struct pdread *r, const char *path,
			const struct dtlstat_cpu *tot, uint64_t tot_span, unsigned nr_vcpus)
{
	const struct dtl_scan_stats *sc = dtlstat_scan_stats(s);
	const struct pdread_stats *rs = pdread_stats(r);	/* LOST records, AUX flags */
	struct dtl_tbinfo tbi = dtlstat_tbinfo(s);

	printf("DTL report: %s\n", path);
	printf("  %" PRIu64 " entries in %" PRIu64 " AUX payloads", sc->entries, sc->payloads);
	if (dtl_tbinfo_valid(&tbi))
		printf(", boot_tb %" PRIu64 ", tb_freq %" PRIu64 " Hz\n", tbi.boot_tb, tbi.tb_freq);
	else
		printf(", no header record: tb_freq %" PRIu64 " Hz assumed\n", dtl_rep_freq_of(s, NULL, o));
	printf("  slots %" PRIu64 ": headers %" PRIu64 ", skipped %" PRIu64
	       "; payloads ending inside an entry: %" PRIu64 " (%" PRIu64 " bytes ignored)"
	       "; entries with unknown reasons: %" PRIu64 "\n", sc->slots, sc->headers,
	       sc->skipped, sc->odd_payloads, sc->tail_bytes, sc->bad_reasons);
	if (rs->aux_truncated || rs->aux_partial || rs->aux_collision || rs->lost_records)
		printf("  DATA LOST: AUX truncated %" PRIu64 ", partial %" PRIu64 ", collision %" PRIu64
		       ", LOST records %" PRIu64 " (%" PRIu64 " events)\n", rs->aux_truncated,
		       rs->aux_partial, rs->aux_collision, rs->lost_records, rs->lost_events);
	if (o->ring_full)
		printf("  PROBABLY LOST: %" PRIu64 " of %" PRIu64 " polls copied 84 entries, all the hypervisor's "
		       "85-entry ring lets through: older entries were overwritten before them "
		       "(poll more often: -c)\n", o->ring_full, o->aux_records);
	if (sc->wrap_gaps)
		printf("  LOST: the driver's AUX buffer wrapped %" PRIu64 " times, losing the rest of "
		       "the poll that filled it and the next poll each time (at least %" PRIu64
		       " entries; a larger AUX buffer wraps less often: --aux-size)\n",
		       sc->wrap_gaps, sc->wrap_gaps);
	if (sc->hole_bytes)
		printf("  LOST: %" PRIu64 " bytes of AUX data (at least %" PRIu64 " entries) in %" PRIu64
		       " holes of the stream, never copied out of the AUX buffer (an overrun: --aux-size)\n",
		       sc->hole_bytes, (sc->hole_bytes + DTL_ENTRY_SIZE - 1) / DTL_ENTRY_SIZE, sc->holes);
	if (o->auxerr[3])
		printf("  LOST: the hypervisor lapped the debugfs reader %" PRIu64 " times: entries "
		       "probably lost (-c)\n", o->auxerr[3]);
	if (o->auxerr[0]) {
		char l[256];
		stopped_list(o, l, sizeof(l));
		printf("  LOST: the AUX buffer of CPU %s filled up and the kernel stopped its DTL there "
		       "(--aux-size)\n", l);
	}
	if (!o->total_only) {
		for (uint32_t i = 0; i < dtlstat_nr_cpus(s); i++) {
			const struct dtlstat_cpu *cc = dtlstat_cpu(s, i);
			char title[32];
			if (!cc || !cc->entries)
				continue;
			snprintf(title, sizeof(title), "CPU %u", i);
			dtl_rep_text_section(s, cc, title, o, dtlstat_span_tb(cc), 1);
		}
	}
	if (tot->entries)
		dtl_rep_text_section(s, tot, "Total", o, tot_span, nr_vcpus);
	dtl_rep_worst_text(s, o);
	if (sc->entries)
		dtl_rep_syms_text(o, dtl_rep_freq_of(s, NULL, o));
	if (o->timeline)
		dtl_rep_tasks_text(o);
}

/* The fast path's warnings: each CPU's timebase frequency, and its entries'
 * span against the records' (one line, the first CPU that is off). */
static void fast_path_tb_warnings(const struct dtlstat *s, const struct rep *o, const char *path)
{
	for (uint32_t i = 0; i < dtlstat_nr_cpus(s); i++) {
		const struct dtlstat_cpu *cc = dtlstat_cpu(s, i);
		if (!cc || !cc->entries)
			continue;
		struct dtl_tbinfo tb = dtl_rep_eff_tbi(s, cc, o);
		if (tb.tb_freq < DTLMERGE_TB_FREQ_MIN || tb.tb_freq > DTLMERGE_TB_FREQ_MAX) {
			fprintf(stderr, "latscope dtl report: %s: CPU %u's tb_freq is %" PRIu64 " Hz, outside "
				"1 MHz..10 GHz: DTL times are probably wrong; --tb-freq overrides it\n",
				path, i, tb.tb_freq);
			break;
		}
		uint64_t a = dtl_tb_to_ns(cc->first_tb, &tb), b = dtl_tb_to_ns(cc->last_tb, &tb);
		if (o->max_rec_ns && (a + DTLTL_FAR_NS < o->min_rec_ns || b > o->max_rec_ns + DTLTL_FAR_NS)) {
			fprintf(stderr, "latscope dtl report: %s: CPU %u's DTL entries (%" PRIu64 ".%09" PRIu64
				" s to %" PRIu64 ".%09" PRIu64 " s) lie more than a day from the records: boot_tb "
				"or tb_freq is probably wrong; --boot-tb and --tb-freq override them\n", path, i,
				a / 1000000000u, a % 1000000000u, b / 1000000000u, b % 1000000000u);
			break;
		}
	}
}

/* --strict: 0, or EXIT_THRESHOLD after a line saying what is incomplete. */
static int strict_verdict(const struct dtlstat *s, const struct rep *o, const struct pdread *r)
{
	const struct dtl_scan_stats *sc = dtlstat_scan_stats(s);
	int ret = dtl_cmd_verdict("latscope dtl report", o->dt, r);
	if (!ret && o->dropped) {
		fprintf(stderr, "latscope dtl report: --strict: the result is incomplete: %" PRIu64
			" AUX buffers dropped; exit 1\n", o->dropped);
		ret = EXIT_THRESHOLD;
	}
	/* entries lost in the kernel: at each wrap of the driver's AUX
	 * buffer (at least one each), the polls that found the
	 * hypervisor's ring full (the vpa_dtl driver then skips the
	 * oldest: at least one each, unless exactly 84 had arrived), and
	 * the bytes of an entry a payload cuts; docs/dtl.md "Losses" */
	if (!ret && (sc->tail_bytes || o->ring_full || sc->wrap_gaps || sc->hole_bytes || auxerr_total(o))) {
		fprintf(stderr, "latscope dtl report: --strict: the result is incomplete: %" PRIu64
			" AUX buffer wraps, %" PRIu64 " polls that found the hypervisor's ring full, %"
			PRIu64 " bytes of cut entries, %" PRIu64 " bytes in AUX holes, %" PRIu64
			" AUX trace errors; exit 1\n", sc->wrap_gaps, o->ring_full, sc->tail_bytes,
			sc->hole_bytes, auxerr_total(o));
		ret = EXIT_THRESHOLD;
	}
	return ret;
}

/* The results of a read: the JSON document and its forms, the text, then
 * on stderr the losses and warnings; the exit status. */
static int report_emit(struct dtlstat *s, struct rep *o, struct pdread *r, const char *path)
{
	if (!dtlstat_scan_stats(s)->entries) {
		/* nothing to report: refused before any output */
		report_losses(path, o, r, dtlstat_scan_stats(s));
		if (o->dropped)
			fprintf(stderr, "latscope dtl report: %s has no DTL entries it can use: all %" PRIu64
				" AUX buffers were dropped (above)\n", path, o->dropped);
		else
			fprintf(stderr, "latscope dtl report: %s has no DTL entries: no vpa_dtl AUX data (record "
				"with -e vpa_dtl/dtl_all/, or `latscope dtl record`)\n", path);
		return EXIT_ERR;
	}
	struct dtlstat_cpu *tot = malloc(sizeof(*tot));
	if (!tot)
		return EXIT_ERR;
	dtlstat_total(s, tot);
	uint64_t tot_span = 0;
	unsigned nr_vcpus = 0;
	for (uint32_t i = 0; i < dtlstat_nr_cpus(s); i++) {
		const struct dtlstat_cpu *cc = dtlstat_cpu(s, i);
		if (cc)
			tot_span += dtlstat_span_tb(cc);
		nr_vcpus += cc && cc->entries;
	}
	const struct dtl_scan_stats *sc = dtlstat_scan_stats(s);
	bool json_err = false;
	if (o->json || o->json_file || o->renders.nr) {
		struct json_object *j = report_json(s, o, r, path, tot, tot_span);
		if (o->json || o->json_file)
			json_err = jsonout_write(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED,
						 o->json ? NULL : o->json_file, o->force, "latscope dtl report") != 0;
		if (jsonout_render(j, &o->renders, o->force, "latscope dtl report"))
			json_err = true;
		json_object_put(j);
	}
	if (!o->json)
		report_text(s, o, r, path, tot, tot_span, nr_vcpus);
	free(tot);
	if (cmdio_finish(stdout, "latscope dtl report", "standard output") || json_err) {
		return EXIT_ERR;
	}
	report_losses(path, o, r, sc);
	if (o->timeline)
		dtl_cmd_tb_warnings("latscope dtl report", path, o->dt);
	else
		fast_path_tb_warnings(s, o, path);
	int ret = o->in.strict ? strict_verdict(s, o, r) : 0;
	if (o->timeline && o->tl && o->tl->source == DTLTL_SRC_SCAN && o->tl->why_scan[0])
		fprintf(stderr, "latscope dtl report: %s: %s; found %" PRIu64 " AUX buffers by scanning the "
			"data section instead\n", path, o->tl->why_scan, o->tl->dtl_buffers);
	return ret;
}

int dtl_cmd_report(int argc, char **argv)
{
	struct rep o = { .top = 20 };
	struct pdread *r;
	struct dtlstat *s;
	uint8_t *pay = NULL;
	int first, rc, ret = 0;

	if ((rc = dtl_cmd_parse(&dtl_report_cli, argc, argv, &o, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_report_cli, &o.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = o.in.path;
	if (dtlstat_new(&s)) {
		fprintf(stderr, "latscope dtl report: out of memory\n");
		return EXIT_ERR;
	}
	if (dtl_cmd_open(&r, path, false, true, "latscope dtl report")) {
		dtlstat_free(s);
		return EXIT_ERR;
	}
	bool swap = pdread_needs_swap(r);
	if (dtl_cmd_syms(&o.syms, r, o.in.kallsyms, o.in.no_symbols, "latscope dtl report") ||
	    syms_init(&o)) {
		ret = EXIT_ERR;
		goto out;
	}
	if ((o.json || o.json_file || o.renders.nr) && dtlbins_new(&o.bins)) {
		fprintf(stderr, "latscope dtl report: out of memory\n");
		ret = EXIT_ERR;
		goto out;
	}
	o.timeline = pdread_info(r)->pipe || has_sched_switch(r) || o.have_boot_tb;
	if (o.timeline) {
		rc = run_timeline(r, s, &o, path);
		if (rc < 0)
			goto read_err;
		goto results;
	}
	/* no sched_switch to charge: read the AUX data in file order, no merge */
	pdread_close(r);
	if (dtl_cmd_open(&r, path, true, true, "latscope dtl report")) {
		dtlstat_free(s);
		return EXIT_ERR;
	}
	rc = read_file_order(r, s, &o, swap, &pay);
	if (rc < 0) {
read_err:
		fprintf(stderr, "latscope dtl report: %s: %s\n", path,
			*pdread_strerror(r) ? pdread_strerror(r) : strerror(-rc));
		ret = EXIT_ERR;
		goto out;
	}

results:
	ret = report_emit(s, &o, r, path);
out:
	if (o.sl)
		for (uint32_t i = 0; i < DTLSTAT_MAX_CPUS; i++)
			free(o.sl[i]);
	free(o.sl);
	dtlbins_free(o.bins);
	dtltask_free(o.tasks);
	ksym_free(o.syms);
	free(o.sym_count);
	free(o.sym_hv);
	dtltl_free(o.dt);
	free(pay);
	cmdio_pdr_close(r, "latscope dtl report", path);
	dtlstat_free(s);
	return ret;
}
