/* SPDX-License-Identifier: MIT */
/*
 * output.c - the views of `latscope osnoise`: the top table, the details
 * under it, the histogram, the stop, the trace header; the figures they
 * share with the JSON summary (json.c); the verdict at the end of every mode.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdio.h"
#include "firedout.h"
#include "commands.h"
#include "live/evsrc.h"
#include "engine/noise.h"
#include "osnoise.h"
#include "live/oswork.h"
#include "base/sysinfo.h"

static void print_lines(struct ctx *c, FILE *f)
{
	const char *lines[OSNENG_LINE_RING];
	size_t n = osneng_recent_lines(c->run.e, lines, OSNENG_LINE_RING);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
}

static const struct osneng_cpu *ocpu(const struct ctx *c, size_t i)
{
	return osneng_cpu(c->run.e, i);
}

/* ---- output --------------------------------------------------------------- */

static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S;
	snprintf(buf, len, "%3" PRIu64 " %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 86400,
		 s / 3600 % 24, s / 60 % 60, s % 60);
}

static void print_top_table(struct ctx *c, FILE *f, bool title)
{
	char dur[32];
	fmt_duration(dur, sizeof(dur), osnoise_run_ns(c));
	if (title)
		fprintf(f, "%*s%s\n", 44, "", c->run.no_workload ? "Task and IRQ execution time"
							       : "Operating System Noise");
	fprintf(f, "duration: %s | time is in us\n", dur);
	fprintf(f, "CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single"
		   "          HW          NMI          IRQ      Softirq       Thread\n");
	for (size_t i = 0; i < c->run.nr; i++) {
		const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
		uint64_t rt = s->runtime_ns / 1000, nz = s->noise_ns / 1000;
		uint64_t av = noise_avail_e5(rt, nz);
		fprintf(f, "%3u #%-6" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %3" PRIu64 ".%05" PRIu64
			" %12" PRIu64 " %12" PRIu64, c->run.list[i], s->periods, rt, nz, av / 100000,
			av % 100000, s->max_noise_ns / 1000, s->max_single_ns / 1000);
		if (c->run.attribution)
			fprintf(f, " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				"\n", s->hw_count, s->count[NOISE_NMI], s->count[NOISE_IRQ],
				s->count[NOISE_SOFTIRQ], s->count[NOISE_THREAD]);
		else	/* without tracepoints nothing is known about the gaps */
			fprintf(f, " %12s %12s %12s %12s %12s\n", "-", "-", "-", "-", "-");
	}
}

static void pct(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	if (!whole)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
}

/* Where the noise time went per CPU (the busy loop's gaps, attributed by
 * the perf path or a recording), with the HW share; without attribution
 * only the gaps below the threshold are known. */
static void print_breakdown(const struct ctx *c, FILE *f)
{
	char hw_time[16], hw_gaps[16];
	if (!c->run.no_workload && c->run.attribution && !c->run.kmode) {
		fprintf(f, "\nNoise breakdown (net time inside noise gaps, us; threshold %" PRIu64
			" us):\n", c->run.threshold_us);
		fprintf(f, "CPU        Noise           HW          NMI          IRQ      Softirq"
			   "       Thread   Below-threshold (count/us/floor ns)\n");
		for (size_t i = 0; i < c->run.nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
			fprintf(f, "%3u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				" %12" PRIu64 "   %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
				c->run.list[i], s->noise_ns / 1000, s->hw_ns / 1000,
				s->net_ns[NOISE_NMI] / 1000, s->net_ns[NOISE_IRQ] / 1000,
				s->net_ns[NOISE_SOFTIRQ] / 1000, s->net_ns[NOISE_THREAD] / 1000,
				s->sub_count, s->sub_ns / 1000, ocpu(c, i)->floor_ns);
			pct(hw_time, sizeof(hw_time), s->hw_ns, s->noise_ns);
			pct(hw_gaps, sizeof(hw_gaps), s->hw_count, s->gaps);
			fprintf(f, "    HW share: %s of the noise time, %s of the %" PRIu64 " gaps\n", hw_time,
				hw_gaps, s->gaps);
		}
	}
	if (!c->run.no_workload && !c->run.attribution)
		for (size_t i = 0; i < c->run.nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->run.n, c->run.list[i]);
			fprintf(f, "\ncpu%u below the threshold: %" PRIu64 " gaps, %" PRIu64
				" us (floor %" PRIu64 " ns)", c->run.list[i], s->sub_count, s->sub_ns / 1000,
				ocpu(c, i)->floor_ns);
		}
}

/* In a VM: HW noise is the hypervisor's, and (live) the steal of each CPU
 * over the run. */
static void print_vm(const struct ctx *c, FILE *f)
{
	char vm[128];
	long tck = sysconf(_SC_CLK_TCK);
	if (!sysinfo_vm_name(vm, sizeof(vm)))
		return;
	fprintf(f, "\nVirtual machine (%s): HW noise here is mostly the hypervisor taking the vCPU.\n", vm);
	if (!c->run.replaying) {
		fprintf(f, "/proc/stat steal over the run:");
		for (size_t i = 0; i < c->run.nr; i++)
			fprintf(f, " cpu%u %" PRIu64 " ms", c->run.list[i],
				(c->run.steal1[i] - c->run.steal0[i]) * 1000 / (uint64_t)(tck > 0 ? tck : 100));
		fprintf(f, "\n");
	}
}

/* The --top largest contributors of each CPU (net time). */
static void print_top_contribs(const struct ctx *c, FILE *f)
{
	fprintf(f, "\nTop interference per CPU (net us%s):\n",
		c->run.no_workload || c->run.kmode ? "" : ", inside noise gaps");
	struct noise_contrib *k = calloc(256, sizeof(*k));
	for (size_t i = 0; k && i < c->run.nr; i++) {
		size_t n = osnoise_sorted_contribs(c, c->run.list[i], k, c->out.top_n);
		for (size_t j = 0; j < n; j++)
			fprintf(f, "%3u %-8s %24s:%-7d count %-8" PRIu64 " total %-10" PRIu64
				" max %" PRIu64 "\n", c->run.list[i], noise_class_name(k[j].cls),
				k[j].name, k[j].id, k[j].count, k[j].total_ns / 1000,
				k[j].max_ns / 1000);
	}
	free(k);
}

/* The busy loop's own figures per CPU: time per iteration, smallest gap. */
static void print_loop_figures(const struct ctx *c, FILE *f)
{
	fprintf(f, "\nTime-read loop:");
	for (size_t i = 0; i < c->run.nr; i++) {
		const struct osneng_cpu *pc = ocpu(c, i);
		if (!pc->iters) {
			/* the loop's figures come at the end of a period */
			fprintf(f, " cpu%u no figures (the run ended before its first period did);",
				c->run.list[i]);
			continue;
		}
		fprintf(f, " cpu%u %.1f ns/iteration, smallest gap %" PRIu64 " ns;", c->run.list[i],
			(double)pc->loop_ns / (double)pc->iters, pc->min_gap_ns);
	}
	fprintf(f, "\n");
}

/* The bpf backend's attribution: its programs' runs and what they missed. */
static void print_bpf_counts(const struct ctx *c, FILE *f)
{
	const struct osnbpf_stats *b = &c->res.bst;
	char names[512];
	bpfload_misses_text(b->progs, b->nr_progs, names, sizeof(names));
	fprintf(f, "bpf: %" PRIu64 " program runs, %" PRIu64 " skipped by the kernel's recursion "
		   "guard%s%s%s, %" PRIu64 " windows not in the contributor table (full), %" PRIu64
		   " dropped (lost exits)\n", b->runs, b->recursion_misses, names[0] ? " (" : "",
		names, names[0] ? ")" : "", b->contrib_full, b->dropped);
	if (c->run.bpf && osnbpf_absent(c->run.bpf)[0])
		fprintf(f, "tracepoints this kernel lacks (their programs left out): %s\n",
			osnbpf_absent(c->run.bpf));
	if (b->switch_mismatch)
		fprintf(f, "%" PRIu64 " context switches came with no program run (the kernel ran "
			   "none while the task before ran): those tasks' entries are counted, "
			   "without their time\n", b->switch_mismatch);
}

/* The tracepoints' attribution (perf rings or a recording): events lost,
 * tracepoints left out, fired against delivered, the stream's anomalies. */
static void print_event_losses(const struct ctx *c, FILE *f)
{
	const struct noise_anomalies *a = noise_anomalies(c->run.n);
	uint64_t lost = c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
	uint64_t samples = c->run.s ? evsrc_stats(c->run.s)->samples : c->res.cnt.samples;
	if (lost)
		fprintf(f, "%" PRIu64 " events lost (%.2f%%)%s, attribution is incomplete%s\n", lost,
			samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0,
			c->run.replaying ? " while recording" : "",
			c->run.replaying ? "" : "; raise --ring-size");
	else
		fprintf(f, "0 events lost\n");
	if (c->run.s && evsrc_note(c->run.s)[0])
		fprintf(f, "tracepoints left out: %s\n", evsrc_note(c->run.s));
	if (c->run.s || c->res.fired.counted)
		firedout_text(&c->res.fired, f);
	if (a->switch_mismatch)
		fprintf(f, "%" PRIu64 " context switches came with no event (the kernel "
			   "reported none while the task before ran): those tasks' entries "
			   "are counted, without their time\n", a->switch_mismatch);
	if (a->unmatched_exit + a->dropped_open + a->negative + a->history_overflow)
		fprintf(f, "event stream anomalies: %" PRIu64 " unmatched exits, %" PRIu64
			" dropped entries, %" PRIu64 " negative, %" PRIu64
			" history overflows\n", a->unmatched_exit, a->dropped_open, a->negative,
			a->history_overflow);
}

/* What the results miss or had to fix beside the attribution: workload
 * records lost, samples skipped, corrupt ring bytes, ordering, duplicates. */
static void print_skipped(const struct ctx *c, FILE *f)
{
	const struct osneng_counts *n = &c->res.cnt;
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		if (oswork_lost(c->run.w, i))
			fprintf(f, "cpu%u: %" PRIu64 " workload records lost (collector too slow)\n",
				c->run.list[i], oswork_lost(c->run.w, i));
	if (n->unknown_id + n->bad_samples + n->undecoded + n->bad_wrec)
		fprintf(f, "skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", n->unknown_id,
			n->bad_samples, n->undecoded, n->bad_wrec);
	if (c->run.s && evsrc_stats(c->run.s)->corrupt_bytes)
		fprintf(f, "corrupt ring data: %" PRIu64 " bytes skipped\n",
			evsrc_stats(c->run.s)->corrupt_bytes);
	if (n->out_of_order + n->forced)
		fprintf(f, "ordering: %" PRIu64 " events delivered out of order, %" PRIu64
			" queue flushes forced by a full queue\n", n->out_of_order, n->forced);
	if (n->duplicates)
		fprintf(f, "duplicates: %" PRIu64 " samples byte for byte the one before them (the recorder "
			"wrote part of a ring twice), dropped: nothing is missing\n", n->duplicates);
}

/* The details under the summary (trace: on stderr), in this order: the
 * breakdown, the VM, the top contributors; the kernel tracer's loss (and
 * nothing more); PREEMPT_RT, the loop's figures, the attribution's counts
 * or why there is none, what was skipped. */
static void print_details(struct ctx *c, FILE *f)
{
	print_breakdown(c, f);
	print_vm(c, f);
	if (c->run.attribution && c->out.top_n)
		print_top_contribs(c, f);
	if (c->run.kmode) {
		fprintf(f, "(from the kernel osnoise tracer; %" PRIu64 " events lost in its buffer)\n",
			c->res.cnt.lost);
		return;
	}
	if (c->run.softirq_in_threads)
		fprintf(f, "PREEMPT_RT: softirqs run in threads and count as the time of the thread that "
			   "ran them, as the kernel tracer counts them\n");
	if (!c->run.no_workload)
		print_loop_figures(c, f);
	if (c->run.attribution && c->res.bst_read)
		print_bpf_counts(c, f);
	else if (c->run.attribution)
		print_event_losses(c, f);
	else
		fprintf(f, "attribution off: %s\n", c->run.attr_why);
	print_skipped(c, f);
}

static void print_stop(struct ctx *c, FILE *f)
{
	const struct osneng_stop *st = c->run.e ? osneng_stop(c->run.e) : NULL;
	if (!st || !st->why)
		return;
	if (st->why == OSNENG_STOP_SINGLE)
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u single noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->opt.stop_us);
	else
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u period noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->opt.stop_total_us);
	if (!(c->mode == M_TRACE && c->out.events)) {
		fprintf(f, "Events leading up to the stop:\n");
		print_lines(c, f);
	}
}

/* Percentile pct (0..100) of a CPU's gap histogram in us (truncated), by the
 * nearest-rank rule of lib/base/lhist.h; 0 with no gap. */
static uint64_t hist_pct_us(const struct ctx *c, const struct osneng_hist *h, double pct)
{
	uint64_t v = 0;
	if (osneng_hist_percentile_ns(h, c->out.bucket_us, c->out.entries, pct, &v))
		return 0;
	return v / 1000;
}

static void print_hist(struct ctx *c, FILE *f)
{
	char dur[32];
	size_t show[PARSE_MAX_CPUS];
	size_t ns = 0;
	for (size_t i = 0; i < c->run.nr; i++)
		if (ocpu(c, i)->hist.count)
			show[ns++] = i;
	if (!c->out.no_header) {
		fmt_duration(dur, sizeof(dur), osnoise_run_ns(c));
		fprintf(f, "# latscope osnoise histogram\n# Time unit is microseconds (us)\n"
			   "# Duration: %s\n", dur);
		fprintf(f, "Index");
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "   CPU-%03u", c->run.list[show[k]]);
		fprintf(f, "\n");
	}
	for (uint64_t b = 0; b < c->out.entries; b++) {
		uint64_t tot = 0;
		for (size_t k = 0; k < ns; k++)
			tot += ocpu(c, show[k])->hist.b[b];
		if (!tot && !c->out.with_zeros)
			continue;
		fprintf(f, "%-6" PRIu64, b * c->out.bucket_us);
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "%9" PRIu64 " ", ocpu(c, show[k])->hist.b[b]);
		fprintf(f, "\n");
	}
	if (c->out.no_summary)
		return;
#define ROW(label, expr) do { \
		fprintf(f, "%-6s", label); \
		for (size_t k = 0; k < ns; k++) { const struct osneng_hist *h = &ocpu(c, show[k])->hist; \
			fprintf(f, "%9" PRIu64 " ", (uint64_t)(expr)); } \
		fprintf(f, "\n"); } while (0)
	ROW("over:", h->b[c->out.entries]);
	ROW("count:", h->count);
	ROW("min:", h->min_ns / 1000);
	fprintf(f, "%-6s", "avg:");
	for (size_t k = 0; k < ns; k++) {
		const struct osneng_hist *h = &ocpu(c, show[k])->hist;
		fprintf(f, "%9.2f ", h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0);
	}
	fprintf(f, "\n");
	ROW("max:", h->max_ns / 1000);
#undef ROW
	bool clipped = false;
	for (size_t p = 0; p < OSNOISE_NR_PCTS; p++) {
		fprintf(f, "%-7s", osnoise_hist_pcts[p].label);
		for (size_t k = 0; k < ns; k++) {
			const struct osneng_hist *h = &ocpu(c, show[k])->hist;
			char v[32];
			if (osnoise_hist_pct_clipped(c, h, osnoise_hist_pcts[p].pct)) {
				/* the rank lies past the last bucket: only a bound is known */
				snprintf(v, sizeof(v), ">%" PRIu64, c->out.entries * c->out.bucket_us);
				clipped = true;
			} else {
				snprintf(v, sizeof(v), "%" PRIu64, hist_pct_us(c, h, osnoise_hist_pcts[p].pct));
			}
			fprintf(f, "%8s ", v);
		}
		fprintf(f, "\n");
	}
	if (clipped)
		fprintf(f, "# a percentile shown as >%" PRIu64 " lies past the last bucket (-E %" PRIu64 " x -b %"
			   PRIu64 " us): only that bound is known; raise -E or -b to see it\n",
			c->out.entries * c->out.bucket_us, c->out.entries, c->out.bucket_us);
}

/*
 * Every loss, one line per kind on stderr, in every mode (the text report
 * and the JSON carry the counts too): events the kernel lost or never
 * reported, workload records lost, samples skipped, corrupt ring bytes.
 * Not when the run stopped because the reader of stdout left.
 */
static void print_losses(const struct ctx *c)
{
	const char *who = "latscope osnoise";
	if (c->res.bst_read) {
		char names[512];
		uint64_t miss = bpfload_misses_text(c->res.bst.progs, c->res.bst.nr_progs, names, sizeof(names));
		if (miss)
			fprintf(stderr, "%s: %" PRIu64 " bpf program runs skipped by the kernel's recursion guard "
				"(%s): those events were not seen, the attribution is incomplete\n", who, miss, names);
		if (c->res.bst.contrib_full)
			fprintf(stderr, "%s: %" PRIu64 " noise entries not in the contributor table (the bpf "
				"map is full): the table misses them, the totals do not\n", who, c->res.bst.contrib_full);
		if (c->res.bst.dropped)
			fprintf(stderr, "%s: %" PRIu64 " noise entries dropped (their exit was lost)\n", who,
				c->res.bst.dropped);
	}
	if (c->run.attribution && !c->run.kmode && c->run.n) {
		uint64_t lost = c->run.s ? evsrc_stats(c->run.s)->lost : c->res.cnt.lost;
		uint64_t samples = c->run.s ? evsrc_stats(c->run.s)->samples : c->res.cnt.samples;
		const struct noise_anomalies *a = noise_anomalies(c->run.n);
		if (lost)
			fprintf(stderr, "%s: %" PRIu64 " events lost (%.2f%%)%s: the attribution is incomplete%s\n",
				who, lost, samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0,
				c->run.replaying ? " while recording" : "",
				c->run.replaying ? "" : "; raise --ring-size");
		char fw[1024];
		if (firedout_warning(&c->res.fired, fw, sizeof(fw)))
			fprintf(stderr, "%s: warning: %s%s\n", who, fw,
				firedtab_undelivered(&c->res.fired) ? ": the attribution is incomplete" : "");
		if (osnoise_unseen_switches(c))
			fprintf(stderr, "%s: %" PRIu64 " context switches came with no event: those tasks' "
				"entries are counted, without their time\n", who, osnoise_unseen_switches(c));
		if (a->dropped_open)
			fprintf(stderr, "%s: %" PRIu64 " nested noise entries dropped (nesting too deep)\n", who,
				a->dropped_open);
		if (a->contrib_overflow)
			fprintf(stderr, "%s: %" PRIu64 " noise entries not in the contributor table (%" PRIu64
				" of the smallest contributors evicted from a full table of 4096 a CPU): the "
				"table misses them, the totals do not\n", who, a->contrib_overflow,
				a->contrib_evicted);
		if (a->history_overflow)
			fprintf(stderr, "%s: %" PRIu64 " gaps held more entries than the history keeps: their "
				"entry counts and top contributor are incomplete\n", who, a->history_overflow);
	}
	if (c->run.kmode && c->res.cnt.lost && c->run.replaying)
		fprintf(stderr, "%s: the trace says the kernel tracer's buffer lost %" PRIu64 " events "
			"([LOST] lines): periods, samples and the attribution are incomplete\n", who,
			c->res.cnt.lost);
	else if (c->run.kmode && c->res.cnt.lost)
		fprintf(stderr, "%s: the kernel tracer's buffer lost %" PRIu64 " events (overrun): periods, "
			"samples and the attribution are incomplete; raise --ring-size (%" PRIu64
			" KiB per CPU) or -T\n", who, c->res.cnt.lost, c->run.kbuf_bytes / 1024);
	for (size_t i = 0; c->run.w && i < c->run.nr; i++)
		if (oswork_lost(c->run.w, i))
			fprintf(stderr, "%s: cpu%u: %" PRIu64 " workload records lost (collector too slow)\n",
				who, c->run.list[i], oswork_lost(c->run.w, i));
	if (c->res.cnt.unknown_id + c->res.cnt.bad_samples + c->res.cnt.undecoded + c->res.cnt.bad_wrec)
		fprintf(stderr, "%s: skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", who, c->res.cnt.unknown_id,
			c->res.cnt.bad_samples, c->res.cnt.undecoded, c->res.cnt.bad_wrec);
	if (c->run.s && evsrc_stats(c->run.s)->corrupt_bytes)
		fprintf(stderr, "%s: corrupt ring data: %" PRIu64 " bytes skipped\n", who,
			evsrc_stats(c->run.s)->corrupt_bytes);
	if (c->res.cnt.forced)
		fprintf(stderr, "%s: %" PRIu64 " queue flushes forced by a full queue: events after them "
			"may be out of order (%" PRIu64 " were)\n", who, c->res.cnt.forced, c->res.cnt.out_of_order);
}

/*
 * The end of every mode: every loss named (print_losses), the verdict on
 * lost data (exit 1 when a stop threshold or --strict asks for one), then
 * stdout checked (exit 2 on a write error).  rc is the status so far.
 */
int osnoise_finish(struct ctx *c, int rc)
{
	/* a reader that left asked for nothing more (the flush finds out) */
	if (fflush(stdout) != 0)
		cmdio_note_error();	/* cmdio_finish() below names it */
	if (!cmdio_broken_pipe())
		print_losses(c);
	uint64_t d = osnoise_dropped(c);
	if (d && (c->opt.stop_us || c->opt.stop_total_us || c->opt.strict)) {
		fprintf(stderr, "latscope osnoise: %" PRIu64 " events or records were lost or skipped, "
				"so the run cannot pass %s: exit 1\n", d,
			c->opt.strict ? "--strict" : "its stop thresholds");
		if (rc == 0)
			rc = EXIT_THRESHOLD;
	}
	/* a reader that left (SIGPIPE) is cmdio_finish()'s one line */
	if (c->res.write_err && !cmdio_stdout_gone(c->res.write_err)) {
		fprintf(stderr, "latscope osnoise: error writing standard output: %s\n",
			strerror(c->res.write_err));
		clearerr(stdout);
		return EXIT_ERR;
	}
	if (cmdio_finish(stdout, "latscope osnoise", "standard output") || c->res.json_rc)
		return EXIT_ERR;
	return rc;
}

void osnoise_print_trace_header(FILE *f)
{
	fprintf(f, "# latscope osnoise trace: one record per period per CPU (time in us)\n");
	fprintf(f, "#                                                RUNTIME      NOISE  %% OF CPU   MAX SINGLE  "
		   "   Interference counters\n");
	fprintf(f, "#           TASK-PID      CPU#       TIMESTAMP      IN US      IN US  AVAILABLE  NOISE IN US"
		   "     HW    NMI    IRQ   SIRQ THREAD\n");
}

void osnoise_final_report(struct ctx *c)
{
	FILE *f = stdout;
	if (c->run.s) {
		c->res.cnt.out_of_order = evsrc_stats(c->run.s)->out_of_order;
		c->res.cnt.forced = evsrc_stats(c->run.s)->forced;
	}
	if (c->out.json) {
		c->res.json_rc = osnoise_print_json(c);
		if (osnoise_stop_why(c))
			print_stop(c, stderr);
		osnoise_print_auto(c, stderr);
		return;
	}
	switch (c->mode) {
	case M_HIST:
		print_hist(c, f);
		break;
	case M_TOP:
	case M_RECORD:
		print_top_table(c, f, !c->out.quiet);
		break;
	case M_TRACE:
		break;
	}
	if (c->mode != M_HIST || !c->out.no_summary)
		print_details(c, c->mode == M_TRACE ? stderr : f);
	print_stop(c, f);
	osnoise_print_auto(c, f);
	if (c->out.json_file || c->out.renders.nr)
		c->res.json_rc = osnoise_print_json(c);
}

void osnoise_refresh_top(struct ctx *c)
{
	if (c->out.json || c->out.quiet || c->mode != M_TOP)
		return;
	if (isatty(STDOUT_FILENO))
		printf("\033[H\033[2J");
	print_top_table(c, stdout, true);
	fflush(stdout);
}
