/* SPDX-License-Identifier: MIT */
/*
 * cmd_osnoise.c - `latscope osnoise top|hist|trace|record`: OS noise measured
 * in userspace like the kernel osnoise tracer, every gap attributed from
 * tracepoints (lib/noise.c), live or replayed from a perf.data file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "bytes.h"
#include "cmdio.h"
#include "commands.h"
#include "jsonv.h"
#include "evsrc.h"
#include "idlecheck.h"
#include "noise.h"
#include "osneng.h"
#include "osnkernel.h"
#include "oswork.h"
#include "parse.h"
#include "pdread.h"
#include "pdwrite.h"
#include "privhint.h"
#include "safeout.h"
#include "tfsformat.h"
#include "tpevent.h"

enum mode { M_TOP, M_HIST, M_TRACE, M_RECORD };

#define WREC_EVSEL_NAME OSW_EVSEL_NAME
#define NS_PER_S	((uint64_t)1000000000)
#define SLACK_NS	(5 * 1000 * 1000ULL)

static const char *const attr_events[] = {
	"sched:sched_switch",
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry", "irq:softirq_exit",
	"?irq_vectors:*_entry", "?irq_vectors:*_exit",
	"?nmi:nmi_handler",
};

struct ctx {
	enum mode mode;
	/* options */
	struct ps_cpuset cpus, hk;
	bool have_cpus, have_hk;
	uint64_t duration_ns, period_us, runtime_us, threshold_us, stop_us, stop_total_us;
	uint64_t warmup_ns, floor_ns, ring_bytes;
	int policy, prio;
	bool json, quiet, events, no_workload, kernel, tsc, no_attr;
	uint64_t bucket_us, entries;
	bool with_zeros, no_header, no_summary;
	unsigned top_n;
	const char *input, *output, *kernel_text;
	/* run state */
	struct osne *e;			/* the engine (lib/osneng.c) */
	const unsigned *list;		/* its CPUs, nr of them, its accounting */
	size_t nr;
	struct noise *n;
	struct osw *w;
	struct evs *s;
	struct pdw *pw;
	bool attribution;
	char attr_why[512];
	uint64_t *steal0, *steal1;
	bool have_T;			/* -T given (replay keeps a larger recorded one) */
	bool setup_failed;		/* replay: set-up said why already */
	bool replaying;
	bool kmode;			/* records come from the kernel tracer */
	uint64_t kernel_lost;
	bool force, strict;
	/* replay: what the reader or the decoders skipped */
	struct osne_counts cnt;
	int write_err;			/* errno of a stdout failure during the run */
};

/* First Ctrl-C: finish cleanly with the summary; a second one aborts
 * (src/cmdio.c).  A closed stdout stops the run too. */

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope osnoise [top|hist|trace|record] [options]\n"
"\n"
"Measure OS noise per CPU like the kernel osnoise tracer, in userspace: one\n"
"pinned thread per CPU reads the time in a loop; every gap at or above the\n"
"threshold is noise, attributed to the NMIs, IRQs, softirqs and threads that\n"
"ran inside it (tracepoints through perf_event_open; net durations).  A gap\n"
"with no interference is HW noise (in a VM: the hypervisor).\n"
"\n"
"  top      per-CPU table refreshed each period (default)\n"
"  hist     histogram of single gaps per CPU with percentiles\n"
"  trace    one record per period per CPU in the kernel tracer's layout\n"
"  record   measure and write tracepoints + gaps to a perf.data file (-o)\n"
"\n"
"  -c, --cpus LIST        measured CPUs (default all online)\n"
"  -H, --house-keeping L  CPUs for latscope's collector (default: the others)\n"
"  -d, --duration T       run time (10, 10s, 2m...); default until Ctrl-C\n"
"  -p, --period US        period (default 1000000)\n"
"  -r, --runtime US       busy-loop part of the period (default = period)\n"
"  -T, --threshold US     minimum gap counted as noise (default 1)\n"
"  -s, --stop US          stop when a single gap is above US\n"
"  -S, --stop-total US    stop when a period's noise is above US\n"
"  -P, --priority P       o:nice | r:prio | f:prio (default o:0, SCHED_OTHER)\n"
"      --warm-up S        run S seconds before collecting\n"
"      --tsc              read the TSC (constant_tsc) instead of CLOCK_MONOTONIC\n"
"      --floor NS         sub-threshold gaps counted from NS (default 4x loop)\n"
"      --ring-size SIZE   perf ring per CPU in KiB (default 8192)\n"
"      --no-attribution   do not open tracepoints\n"
"      --no-workload      no busy loop: report every task's and IRQ's net time\n"
"      --kernel           drive the kernel osnoise tracer through tracefs\n"
"      --parse-kernel F   show a saved kernel osnoise trace (text; - = stdin)\n"
"  -i, --replay FILE      analyse a file written by `osnoise record`\n"
"  -o, --output FILE      record: output perf.data (default osnoise.data)\n"
"      --force            record: replace -o even when it is another user's file or link\n"
"      --strict           exit 1 when events or records were lost or skipped (so do -s/-S)\n"
"      --top N            contributors shown per CPU (default 5)\n"
"  -q, --quiet            top: only the final summary\n"
"      --json             JSON summary (json-c) instead of text\n"
"  hist: -b/--bucket-size US (1), -E/--entries N (256), --with-zeros,\n"
"        --no-header, --no-summary\n"
"  trace: --events        also print sample_threshold, nmi/irq/softirq/thread_noise\n"
"  -h, --help             this help\n"
"\n"
"Exit status: 0 ok, 1 a stop threshold was hit (or data was lost under -s/-S/--strict),\n"
"2 error (a write error on stdout included), 130 aborted by a second Ctrl-C.\n"
"See latscope-osnoise(1).\n");
}

/* ---- helpers ---------------------------------------------------------- */

static int online_cpus(struct ps_cpuset *s)
{
	char buf[1024];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			fclose(f);
			if (!ps_cpulist(buf, s))
				return 0;
		} else {
			fclose(f);
		}
	}
	memset(s, 0, sizeof(*s));
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	for (long i = 0; i < n && i < PS_MAX_CPUS; i++)
		ps_cpuset_add(s, (unsigned)i);
	return n > 0 ? 0 : -ENODEV;
}

static void read_steal(uint64_t *out, const unsigned *list, size_t nr)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	for (size_t i = 0; i < nr; i++)
		out[i] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned cpu;
		unsigned long long v[8];
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		for (size_t i = 0; i < nr; i++)
			if (list[i] == cpu)
				out[i] = v[7];
	}
	fclose(f);
}

/* "kvm", "hypervisor" or NULL on bare metal. */
static const char *vm_name(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool hv = false;
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5)) {
				hv = strstr(line, " hypervisor") != NULL;
				break;
			}
		fclose(f);
	}
	if (!hv)
		return NULL;
	snprintf(buf, len, "hypervisor");
	f = fopen("/sys/class/dmi/id/sys_vendor", "r");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	return buf;
}

static void print_lines(struct ctx *c, FILE *f)
{
	const char *lines[OSNE_LINE_RING];
	size_t n = osne_recent_lines(c->e, lines, OSNE_LINE_RING);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
}

/* The engine's stop: 0 running, OSNE_STOP_SINGLE or OSNE_STOP_TOTAL. */
static int stop_why(const struct ctx *c)
{
	return c->e ? osne_stop(c->e)->why : 0;
}

static const struct osne_cpu *ocpu(const struct ctx *c, size_t i)
{
	return osne_cpu(c->e, i);
}

/* ---- engine sink ------------------------------------------------------------ */

static void sink_line(void *arg, const char *line)
{
	struct ctx *c = arg;
	if (c->mode == M_TRACE && c->events && !c->json)
		printf("%s\n", line);
}

static void sink_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p)
{
	struct ctx *c = arg;
	if (c->mode != M_TRACE || c->json)
		return;
	char pre[96];
	uint64_t rt = p->runtime_ns / 1000, nz = p->noise_ns / 1000;
	uint64_t av = noise_avail_e5(rt, nz);
	osne_trace_prefix(c->e, pre, sizeof(pre), cpu, end_ns);
	printf("%s %" PRIu64 " %10" PRIu64 " %3" PRIu64 ".%05" PRIu64 " %7" PRIu64 " %6" PRIu64
	       " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
	       pre, rt, nz, av / 100000, av % 100000, p->max_single_ns / 1000, p->hw_count,
	       p->count[NOISE_NMI], p->count[NOISE_IRQ], p->count[NOISE_SOFTIRQ],
	       p->count[NOISE_THREAD]);
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && !c->write_err) {
		c->write_err = errno ? errno : EIO;
		osne_halt(c->e);	/* a replay stops reading */
		cio_stop();
	}
}

/* ---- feeding ------------------------------------------------------------ */

/* The events read up to until_ns, each after the workload records before it,
 * then the rest of the records up to until_ns (lib/osneng.c). */
static void process(struct ctx *c, uint64_t until_ns)
{
	if (c->s)
		evs_read(c->s, until_ns, osne_event, c->e);
	osne_advance(c->e, until_ns);
}

/* ---- recording ------------------------------------------------------------ */

static void on_raw(void *arg, int cpu, int event_idx, const uint8_t *rec, size_t size)
{
	struct ctx *c = arg;
	(void)cpu; (void)event_idx;
	uint16_t misc;
	uint32_t type;
	memcpy(&type, rec, 4);
	memcpy(&misc, rec + 4, 2);
	pdw_write_record(c->pw, type, misc, rec + 8, size - 8);
}

static int open_recording(struct ctx *c)
{
	int err;
	/* Records from the rings are host order: write the file in host order. */
	struct pdw_opts o = { .big_endian = BY_HOST_BIG_ENDIAN, .force = c->force, .checkpoint = true };
	err = pdw_open(&c->pw, c->output, &o);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise record: cannot create '%s': %s\n", c->output,
			so_strerror(err));
		return err;
	}
	if (c->s) {
		size_t ne = evs_nr_events(c->s);
		const char **names = calloc(ne, sizeof(char *));
		if (!names)
			return -ENOMEM;
		for (size_t i = 0; i < ne; i++) {
			const uint64_t *ids;
			size_t nid = evs_event_ids(c->s, i, &ids);
			names[i] = evs_event_name(c->s, i);
			err = pdw_add_evsel(c->pw, evs_event_attr(c->s, i), names[i], ids, nid);
			if (err < 0)
				break;
		}
		struct tfs_formats *f = NULL;
		if (err >= 0)
			err = tfs_collect(NULL, names, ne, &f);
		free(names);
		if (err >= 0) {
			void *blob;
			size_t len;
			err = tfs_tracing_data(f, BY_HOST_BIG_ENDIAN, &blob, &len);
			if (!err) {
				err = pdw_set_tracing_data(c->pw, blob, len);
				free(blob);
			}
		}
		tfs_free(f);
		if (err < 0) {
			fprintf(stderr, "latscope osnoise record: cannot describe the tracepoints: %s\n",
				strerror(-err));
			return err;
		}
		evs_set_raw_cb(c->s, on_raw, c);
	}
	/* the workload event and the run's parameters */
	err = osne_record(c->e, c->pw);
	if (err < 0)
		return err;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	pdw_set_string_feature(c->pw, PDF_FEAT_HOSTNAME, host);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdw_set_nrcpus(c->pw, (uint32_t)ncpu, (uint32_t)ncpu);
	err = pdw_begin_data(c->pw);
	if (err < 0)
		fprintf(stderr, "latscope osnoise record: writing '%s': %s\n", c->output, strerror(-err));
	return err;
}

static uint64_t wrec_lost(const struct ctx *c)
{
	uint64_t n = 0;
	for (size_t i = 0; c->w && i < c->nr; i++)
		n += osw_lost(c->w, i);
	return n;
}

/* What the results miss: events lost by the kernel, workload records lost,
 * samples skipped as unreadable. */
static uint64_t dropped(const struct ctx *c)
{
	return (c->s ? evs_stats(c->s)->lost : c->cnt.lost) + wrec_lost(c) + c->cnt.unknown_id +
	       c->cnt.bad_samples + c->cnt.undecoded + c->cnt.bad_wrec;
}

/* ---- output --------------------------------------------------------------- */

static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S;
	snprintf(buf, len, "%3" PRIu64 " %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 86400,
		 s / 3600 % 24, s / 60 % 60, s % 60);
}

static int cmp_contrib(const void *a, const void *b)
{
	const struct noise_contrib *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

static size_t sorted_contribs(const struct ctx *c, unsigned cpu, struct noise_contrib *out,
			      size_t max)
{
	const struct noise_contrib *list;
	size_t n = noise_contribs(c->n, cpu, &list);
	if (n > 256)
		n = 256;
	memcpy(out, list, n * sizeof(*out));
	qsort(out, n, sizeof(*out), cmp_contrib);
	return n < max ? n : max;
}

static uint64_t run_ns(const struct ctx *c)
{
	const struct osne_times *t = osne_times(c->e);
	uint64_t end = t->end_ns ? t->end_ns : osw_now_ns();
	uint64_t begin = t->warm_end_ns > t->start_ns ? t->warm_end_ns : t->start_ns;
	return end > begin ? end - begin : 0;
}

static void print_top_table(struct ctx *c, FILE *f, bool title)
{
	char dur[32];
	fmt_duration(dur, sizeof(dur), run_ns(c));
	if (title)
		fprintf(f, "%*s%s\n", 44, "", c->no_workload ? "Task and IRQ execution time"
							       : "Operating System Noise");
	fprintf(f, "duration: %s | time is in us\n", dur);
	fprintf(f, "CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single"
		   "          HW          NMI          IRQ      Softirq       Thread\n");
	for (size_t i = 0; i < c->nr; i++) {
		const struct noise_stats *s = noise_cpu_stats(c->n, c->list[i]);
		uint64_t rt = s->runtime_ns / 1000, nz = s->noise_ns / 1000;
		uint64_t av = noise_avail_e5(rt, nz);
		fprintf(f, "%3u #%-6" PRIu64 " %12" PRIu64 " %12" PRIu64 "  %3" PRIu64 ".%05" PRIu64
			" %12" PRIu64 " %12" PRIu64, c->list[i], s->periods, rt, nz, av / 100000,
			av % 100000, s->max_noise_ns / 1000, s->max_single_ns / 1000);
		if (c->attribution)
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

static void print_details(struct ctx *c, FILE *f)
{
	char vm[128], p[5][16];
	const char *hv = vm_name(vm, sizeof(vm));
	long tck = sysconf(_SC_CLK_TCK);
	if (!c->no_workload && c->attribution && !c->kmode) {
		fprintf(f, "\nNoise breakdown (net time inside noise gaps, us; threshold %" PRIu64
			" us):\n", c->threshold_us);
		fprintf(f, "CPU        Noise           HW          NMI          IRQ      Softirq"
			   "       Thread   Below-threshold (count/us/floor ns)\n");
		for (size_t i = 0; i < c->nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->n, c->list[i]);
			fprintf(f, "%3u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				" %12" PRIu64 "   %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
				c->list[i], s->noise_ns / 1000, s->hw_ns / 1000,
				s->net_ns[NOISE_NMI] / 1000, s->net_ns[NOISE_IRQ] / 1000,
				s->net_ns[NOISE_SOFTIRQ] / 1000, s->net_ns[NOISE_THREAD] / 1000,
				s->sub_count, s->sub_ns / 1000, ocpu(c, i)->floor_ns);
			pct(p[0], sizeof(p[0]), s->hw_ns, s->noise_ns);
			pct(p[1], sizeof(p[1]), s->hw_count, s->gaps);
			fprintf(f, "    HW share: %s of the noise time, %s of the %" PRIu64 " gaps\n", p[0],
				p[1], s->gaps);
		}
	}
	if (!c->no_workload && !c->attribution)
		for (size_t i = 0; i < c->nr; i++) {
			const struct noise_stats *s = noise_cpu_stats(c->n, c->list[i]);
			fprintf(f, "\ncpu%u below the threshold: %" PRIu64 " gaps, %" PRIu64
				" us (floor %" PRIu64 " ns)", c->list[i], s->sub_count, s->sub_ns / 1000,
				ocpu(c, i)->floor_ns);
		}
	if (hv) {
		fprintf(f, "\nVirtual machine (%s): HW noise here is mostly the hypervisor taking the vCPU.\n",
			vm);
		if (!c->replaying) {
			fprintf(f, "/proc/stat steal over the run:");
			for (size_t i = 0; i < c->nr; i++)
				fprintf(f, " cpu%u %" PRIu64 " ms", c->list[i],
					(c->steal1[i] - c->steal0[i]) * 1000 / (uint64_t)(tck > 0 ? tck : 100));
			fprintf(f, "\n");
		}
	}
	if (c->attribution && c->top_n) {
		fprintf(f, "\nTop interference per CPU (net us%s):\n",
			c->no_workload || c->kmode ? "" : ", inside noise gaps");
		struct noise_contrib *k = calloc(256, sizeof(*k));
		for (size_t i = 0; k && i < c->nr; i++) {
			size_t n = sorted_contribs(c, c->list[i], k, c->top_n);
			for (size_t j = 0; j < n; j++)
				fprintf(f, "%3u %-8s %24s:%-7d count %-8" PRIu64 " total %-10" PRIu64
					" max %" PRIu64 "\n", c->list[i], noise_class_name(k[j].cls),
					k[j].name, k[j].id, k[j].count, k[j].total_ns / 1000,
					k[j].max_ns / 1000);
		}
		free(k);
	}
	if (c->kmode) {
		fprintf(f, "(from the kernel osnoise tracer)\n");
		return;
	}
	if (!c->no_workload) {
		fprintf(f, "\nTime-read loop:");
		for (size_t i = 0; i < c->nr; i++) {
			const struct osne_cpu *pc = ocpu(c, i);
			fprintf(f, " cpu%u %.1f ns/iteration, smallest gap %" PRIu64 " ns;", c->list[i],
				pc->iters ? (double)pc->loop_ns / (double)pc->iters : 0.0, pc->min_gap_ns);
		}
		fprintf(f, "\n");
	}
	if (c->attribution) {
		const struct noise_anomalies *a = noise_anomalies(c->n);
		uint64_t lost = c->s ? evs_stats(c->s)->lost : c->cnt.lost;
		uint64_t samples = c->s ? evs_stats(c->s)->samples : c->cnt.samples;
		if (lost)
			fprintf(f, "%" PRIu64 " events lost (%.2f%%), attribution is incomplete; raise "
				   "--ring-size\n", lost,
				samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0);
		else
			fprintf(f, "0 events lost\n");
		if (c->s && evs_note(c->s)[0])
			fprintf(f, "tracepoints left out: %s\n", evs_note(c->s));
		if (a->unmatched_exit + a->dropped_open + a->switch_mismatch + a->negative +
		    a->history_overflow)
			fprintf(f, "event stream anomalies: %" PRIu64 " unmatched exits, %" PRIu64
				" dropped entries, %" PRIu64 " switch mismatches, %" PRIu64
				" negative, %" PRIu64 " history overflows\n", a->unmatched_exit,
				a->dropped_open, a->switch_mismatch, a->negative, a->history_overflow);
	} else {
		fprintf(f, "attribution off: %s\n", c->attr_why);
	}
	for (size_t i = 0; c->w && i < c->nr; i++)
		if (osw_lost(c->w, i))
			fprintf(f, "cpu%u: %" PRIu64 " workload records lost (collector too slow)\n",
				c->list[i], osw_lost(c->w, i));
	if (c->cnt.unknown_id + c->cnt.bad_samples + c->cnt.undecoded + c->cnt.bad_wrec)
		fprintf(f, "skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", c->cnt.unknown_id,
			c->cnt.bad_samples, c->cnt.undecoded, c->cnt.bad_wrec);
	if (c->cnt.out_of_order + c->cnt.forced)
		fprintf(f, "ordering: %" PRIu64 " events delivered out of order, %" PRIu64
			" queue flushes forced by a full queue\n", c->cnt.out_of_order, c->cnt.forced);
}

static void print_stop(struct ctx *c, FILE *f)
{
	const struct osne_stop *st = c->e ? osne_stop(c->e) : NULL;
	if (!st || !st->why)
		return;
	if (st->why == OSNE_STOP_SINGLE)
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u single noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->stop_us);
	else
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u period noise %" PRIu64 " us > %"
			PRIu64 " us\n", st->cpu, st->value_ns / 1000, c->stop_total_us);
	if (!(c->mode == M_TRACE && c->events)) {
		fprintf(f, "Events leading up to the stop:\n");
		print_lines(c, f);
	}
}

/* Percentile from the histogram: lower bound of the bucket holding it, in us;
 * in the overflow bucket the maximum. */
static uint64_t hist_pct_us(const struct ctx *c, const struct osne_hist *h, double q)
{
	if (!h->count)
		return 0;
	uint64_t want = (uint64_t)((double)h->count * q);
	if (want >= h->count)
		want = h->count - 1;
	uint64_t acc = 0;
	for (uint64_t b = 0; b < c->entries; b++) {
		acc += h->b[b];
		if (acc > want)
			return b * c->bucket_us;
	}
	return h->max_ns / 1000;
}

static void print_hist(struct ctx *c, FILE *f)
{
	char dur[32];
	size_t show[PS_MAX_CPUS];
	size_t ns = 0;
	for (size_t i = 0; i < c->nr; i++)
		if (ocpu(c, i)->hist.count)
			show[ns++] = i;
	if (!c->no_header) {
		fmt_duration(dur, sizeof(dur), run_ns(c));
		fprintf(f, "# latscope osnoise histogram\n# Time unit is microseconds (us)\n"
			   "# Duration: %s\n", dur);
		fprintf(f, "Index");
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "   CPU-%03u", c->list[show[k]]);
		fprintf(f, "\n");
	}
	for (uint64_t b = 0; b < c->entries; b++) {
		uint64_t tot = 0;
		for (size_t k = 0; k < ns; k++)
			tot += ocpu(c, show[k])->hist.b[b];
		if (!tot && !c->with_zeros)
			continue;
		fprintf(f, "%-6" PRIu64, b * c->bucket_us);
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "%9" PRIu64 " ", ocpu(c, show[k])->hist.b[b]);
		fprintf(f, "\n");
	}
	if (c->no_summary)
		return;
#define ROW(label, expr) do { \
		fprintf(f, "%-6s", label); \
		for (size_t k = 0; k < ns; k++) { const struct osne_hist *h = &ocpu(c, show[k])->hist; \
			fprintf(f, "%9" PRIu64 " ", (uint64_t)(expr)); } \
		fprintf(f, "\n"); } while (0)
	ROW("over:", h->b[c->entries]);
	ROW("count:", h->count);
	ROW("min:", h->min_ns / 1000);
	fprintf(f, "%-6s", "avg:");
	for (size_t k = 0; k < ns; k++) {
		const struct osne_hist *h = &ocpu(c, show[k])->hist;
		fprintf(f, "%9.2f ", h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0);
	}
	fprintf(f, "\n");
	ROW("max:", h->max_ns / 1000);
	ROW("p99:", hist_pct_us(c, h, 0.99));
	ROW("p99.9:", hist_pct_us(c, h, 0.999));
	ROW("p99.99:", hist_pct_us(c, h, 0.9999));
#undef ROW
}

static json_object *jdouble5(uint64_t e5)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%05" PRIu64, e5 / 100000, e5 % 100000);
	return json_object_new_double_s((double)e5 / 100000.0, buf);
}

static json_object *ju(uint64_t v)
{
	return jsonv_u64(v);	/* one rule for 64-bit values in every command */
}

static void print_json(struct ctx *c, FILE *f)
{
	static const char *const mode_names[] = { "top", "hist", "trace", "record" };
	char vm[128];
	const char *hv = vm_name(vm, sizeof(vm));
	long tck = sysconf(_SC_CLK_TCK);
	json_object *root = json_object_new_object();
	json_object_object_add(root, "tool", json_object_new_string("latscope osnoise"));
	json_object_object_add(root, "mode", json_object_new_string(mode_names[c->mode]));
	json_object_object_add(root, "workload", json_object_new_boolean(!c->no_workload));
	json_object_object_add(root, "threshold_us", ju(c->threshold_us));
	json_object_object_add(root, "period_us", ju(c->period_us));
	json_object_object_add(root, "runtime_us", ju(c->runtime_us));
	json_object_object_add(root, "duration_ns", ju(run_ns(c)));
	json_object_object_add(root, "attribution", json_object_new_boolean(c->attribution));
	if (!c->attribution)
		json_object_object_add(root, "attribution_off", json_object_new_string(c->attr_why));
	json_object_object_add(root, "vm", hv ? json_object_new_string(vm) : NULL);
	struct rusage ru;
	if (!getrusage(RUSAGE_THREAD, &ru))	/* the collector (main) thread */
		json_object_object_add(root, "collector_cpu_us",
				       ju((uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
					  (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec));
	json_object_object_add(root, "events_lost",
			       ju(c->s ? evs_stats(c->s)->lost : c->cnt.lost));
	json_object *sk = json_object_new_object();
	json_object_object_add(sk, "unknown_id", ju(c->cnt.unknown_id));
	json_object_object_add(sk, "bad_samples", ju(c->cnt.bad_samples));
	json_object_object_add(sk, "undecoded", ju(c->cnt.undecoded));
	json_object_object_add(sk, "bad_workload_records", ju(c->cnt.bad_wrec));
	json_object_object_add(sk, "workload_records_lost", ju(wrec_lost(c)));
	json_object_object_add(sk, "out_of_order", ju(c->cnt.out_of_order));
	json_object_object_add(sk, "forced_flushes", ju(c->cnt.forced));
	json_object_object_add(root, "skipped", sk);
	json_object_object_add(root, "dropped", ju(dropped(c)));
	json_object *stop = NULL;
	const struct osne_stop *st = osne_stop(c->e);
	if (st->why) {
		stop = json_object_new_object();
		json_object_object_add(stop, "reason", json_object_new_string(
					       st->why == OSNE_STOP_SINGLE ? "single" : "total"));
		json_object_object_add(stop, "cpu", ju(st->cpu));
		json_object_object_add(stop, "value_us", ju(st->value_ns / 1000));
	}
	json_object_object_add(root, "stop", stop);
	json_object *cpus = json_object_new_array();
	struct noise_contrib *k = calloc(256, sizeof(*k));
	for (size_t i = 0; i < c->nr; i++) {
		const struct noise_stats *s = noise_cpu_stats(c->n, c->list[i]);
		json_object *o = json_object_new_object();
		uint64_t rt = s->runtime_ns / 1000, nz = s->noise_ns / 1000;
		json_object_object_add(o, "cpu", ju(c->list[i]));
		json_object_object_add(o, "periods", ju(s->periods));
		json_object_object_add(o, "runtime_us", ju(rt));
		json_object_object_add(o, "noise_us", ju(nz));
		json_object_object_add(o, "cpu_available_pct", jdouble5(noise_avail_e5(rt, nz)));
		json_object_object_add(o, "max_noise_us", ju(s->max_noise_ns / 1000));
		json_object_object_add(o, "max_single_us", ju(s->max_single_ns / 1000));
		bool at = c->attribution;
#define JA(v) (at ? ju(v) : NULL)
		json_object_object_add(o, "hw", JA(s->hw_count));
		json_object_object_add(o, "nmi", JA(s->count[NOISE_NMI]));
		json_object_object_add(o, "irq", JA(s->count[NOISE_IRQ]));
		json_object_object_add(o, "softirq", JA(s->count[NOISE_SOFTIRQ]));
		json_object_object_add(o, "thread", JA(s->count[NOISE_THREAD]));
		json_object_object_add(o, "gaps", ju(s->gaps));
		json_object_object_add(o, "hw_us", JA(s->hw_ns / 1000));
		json_object_object_add(o, "nmi_us", JA(s->net_ns[NOISE_NMI] / 1000));
		json_object_object_add(o, "irq_us", JA(s->net_ns[NOISE_IRQ] / 1000));
		json_object_object_add(o, "softirq_us", JA(s->net_ns[NOISE_SOFTIRQ] / 1000));
		json_object_object_add(o, "thread_us", JA(s->net_ns[NOISE_THREAD] / 1000));
#undef JA
		json_object_object_add(o, "below_threshold_count", ju(s->sub_count));
		json_object_object_add(o, "below_threshold_us", ju(s->sub_ns / 1000));
		const struct osne_cpu *pc = ocpu(c, i);
		json_object_object_add(o, "floor_ns", ju(pc->floor_ns));
		if (!c->no_workload) {
			json_object_object_add(o, "loop_ns_per_iteration",
					       json_object_new_double(pc->iters ? (double)pc->loop_ns /
								      (double)pc->iters : 0.0));
			json_object_object_add(o, "smallest_gap_ns", ju(pc->min_gap_ns));
		}
		if (hv && !c->replaying)
			json_object_object_add(o, "steal_ms",
					       ju((c->steal1[i] - c->steal0[i]) * 1000 /
						  (uint64_t)(tck > 0 ? tck : 100)));
		if (pc->hist.b) {
			const struct osne_hist *h = &pc->hist;
			json_object *hj = json_object_new_object();
			json_object_object_add(hj, "bucket_us", ju(c->bucket_us));
			json_object *bk = json_object_new_array();
			for (uint64_t b = 0; b < c->entries; b++)
				if (h->b[b] || c->with_zeros) {
					json_object *e = json_object_new_array();
					json_object_array_add(e, ju(b * c->bucket_us));
					json_object_array_add(e, ju(h->b[b]));
					json_object_array_add(bk, e);
				}
			json_object_object_add(hj, "buckets", bk);
			json_object_object_add(hj, "over", ju(h->b[c->entries]));
			json_object_object_add(hj, "count", ju(h->count));
			json_object_object_add(hj, "min_us", ju(h->min_ns / 1000));
			char avg[32];
			double a = h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0;
			snprintf(avg, sizeof(avg), "%.2f", a);
			json_object_object_add(hj, "avg_us", json_object_new_double_s(a, avg));
			json_object_object_add(hj, "max_us", ju(h->max_ns / 1000));
			json_object_object_add(hj, "p99_us", ju(hist_pct_us(c, h, 0.99)));
			json_object_object_add(hj, "p999_us", ju(hist_pct_us(c, h, 0.999)));
			json_object_object_add(hj, "p9999_us", ju(hist_pct_us(c, h, 0.9999)));
			json_object_object_add(o, "hist", hj);
		}
		json_object *cj = json_object_new_array();
		size_t n = k && c->attribution ? sorted_contribs(c, c->list[i], k, c->top_n) : 0;
		for (size_t j = 0; j < n; j++) {
			json_object *e = json_object_new_object();
			json_object_object_add(e, "class",
					       json_object_new_string(noise_class_name(k[j].cls)));
			json_object_object_add(e, "name", json_object_new_string(k[j].name));
			json_object_object_add(e, "id", json_object_new_int(k[j].id));
			json_object_object_add(e, "count", ju(k[j].count));
			json_object_object_add(e, "total_us", ju(k[j].total_ns / 1000));
			json_object_object_add(e, "total_ns", ju(k[j].total_ns));
			json_object_object_add(e, "max_us", ju(k[j].max_ns / 1000));
			json_object_array_add(cj, e);
		}
		json_object_object_add(o, "top", cj);
		json_object_array_add(cpus, o);
	}
	free(k);
	json_object_object_add(root, "cpus", cpus);
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		cio_note_error();
	json_object_put(root);
}

/*
 * The end of every mode: the verdict on lost data (exit 1 when a stop
 * threshold or --strict asks for one), then stdout checked (exit 2 on a
 * write error).  rc is the status so far.
 */
static int finish(struct ctx *c, int rc)
{
	uint64_t d = dropped(c);
	if (d && (c->stop_us || c->stop_total_us || c->strict)) {
		fprintf(stderr, "latscope osnoise: %" PRIu64 " events or records were lost or skipped, "
				"so the run cannot pass %s: exit 1\n", d,
			c->strict ? "--strict" : "its stop thresholds");
		if (rc == 0)
			rc = EXIT_THRESHOLD;
	}
	/* a reader that left (SIGPIPE) is cio_finish()'s one line */
	if (c->write_err && !cio_broken_pipe()) {
		fprintf(stderr, "latscope osnoise: error writing standard output: %s\n",
			strerror(c->write_err));
		clearerr(stdout);
		return EXIT_ERR;
	}
	if (cio_finish(stdout, "latscope osnoise", "standard output"))
		return EXIT_ERR;
	return rc;
}

static void print_trace_header(FILE *f)
{
	fprintf(f, "# latscope osnoise trace: one record per period per CPU (time in us)\n");
	fprintf(f, "#                                                RUNTIME      NOISE  %% OF CPU   MAX SINGLE  "
		   "   Interference counters\n");
	fprintf(f, "#           TASK-PID      CPU#       TIMESTAMP      IN US      IN US  AVAILABLE  NOISE IN US"
		   "     HW    NMI    IRQ   SIRQ THREAD\n");
}

static void final_report(struct ctx *c)
{
	FILE *f = stdout;
	if (c->s) {
		c->cnt.out_of_order = evs_stats(c->s)->out_of_order;
		c->cnt.forced = evs_stats(c->s)->forced;
	}
	if (c->json) {
		print_json(c, f);
		if (stop_why(c))
			print_stop(c, stderr);
		return;
	}
	switch (c->mode) {
	case M_HIST:
		print_hist(c, f);
		break;
	case M_TOP:
	case M_RECORD:
		print_top_table(c, f, !c->quiet);
		break;
	case M_TRACE:
		break;
	}
	if (c->mode != M_HIST || !c->no_summary)
		print_details(c, c->mode == M_TRACE ? stderr : f);
	print_stop(c, f);
}

/* ---- option parsing ------------------------------------------------------ */

static int parse_prio(const char *s, int *policy, int *prio)
{
	int64_t v;
	if (strlen(s) < 3 || s[1] != ':')
		return -EINVAL;
	switch (s[0]) {
	case 'o':
		*policy = SCHED_OTHER;
		if (ps_i64(s + 2, -20, 19, &v))
			return -EINVAL;
		break;
	case 'r':
		*policy = SCHED_RR;
		if (ps_i64(s + 2, 1, 99, &v))
			return -EINVAL;
		break;
	case 'f':
		*policy = SCHED_FIFO;
		if (ps_i64(s + 2, 1, 99, &v))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	*prio = (int)v;
	return 0;
}

enum {
	OPT_WARMUP = 256, OPT_JSON, OPT_TSC, OPT_FLOOR, OPT_RING, OPT_NOATTR, OPT_NOWL, OPT_KERNEL,
	OPT_TOP, OPT_ZEROS, OPT_NOHEADER, OPT_NOSUMMARY, OPT_EVENTS, OPT_KTEXT, OPT_FORCE, OPT_STRICT
};

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "latscope osnoise: bad %s '%s': %s\n", opt, val, why);
	return -EINVAL;
}

static int parse_args(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "house-keeping", required_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 'd' },
		{ "period", required_argument, NULL, 'p' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "stop", required_argument, NULL, 's' },
		{ "stop-total", required_argument, NULL, 'S' },
		{ "priority", required_argument, NULL, 'P' },
		{ "warm-up", required_argument, NULL, OPT_WARMUP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tsc", no_argument, NULL, OPT_TSC },
		{ "floor", required_argument, NULL, OPT_FLOOR },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "no-attribution", no_argument, NULL, OPT_NOATTR },
		{ "no-workload", no_argument, NULL, OPT_NOWL },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "parse-kernel", required_argument, NULL, OPT_KTEXT },
		{ "replay", required_argument, NULL, 'i' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "bucket-size", required_argument, NULL, 'b' },
		{ "entries", required_argument, NULL, 'E' },
		{ "with-zeros", no_argument, NULL, OPT_ZEROS },
		{ "no-header", no_argument, NULL, OPT_NOHEADER },
		{ "no-summary", no_argument, NULL, OPT_NOSUMMARY },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int o;
	uint64_t v;
	bool have_runtime = false;
	while ((o = getopt_long(argc, argv, "c:H:d:p:r:T:s:S:P:qi:o:b:E:h", lo, NULL)) != -1) {
		switch (o) {
		case 'c':
			if (ps_cpulist(optarg, &c->cpus))
				return bad("CPU list", optarg, "use e.g. 0-3,5");
			c->have_cpus = true;
			break;
		case 'H':
			if (ps_cpulist(optarg, &c->hk))
				return bad("house-keeping CPU list", optarg, "use e.g. 0");
			c->have_hk = true;
			break;
		case 'd':
			if (ps_duration_ns(optarg, NS_PER_S, &c->duration_ns) || !c->duration_ns)
				return bad("duration", optarg, "use e.g. 10s, 2m");
			break;
		case 'p':
			if (ps_u64(optarg, 100, 10000000, &c->period_us))
				return bad("period", optarg, "100..10000000 us");
			break;
		case 'r':
			if (ps_u64(optarg, 100, 10000000, &c->runtime_us))
				return bad("runtime", optarg, "100..10000000 us");
			have_runtime = true;
			break;
		case 'T':
			if (ps_u64(optarg, 1, 10000000, &c->threshold_us))
				return bad("threshold", optarg, "1..10000000 us");
			break;
		case 's':
			if (ps_u64(optarg, 1, UINT32_MAX, &c->stop_us))
				return bad("stop", optarg, "a positive number of us");
			break;
		case 'S':
			if (ps_u64(optarg, 1, UINT32_MAX, &c->stop_total_us))
				return bad("stop-total", optarg, "a positive number of us");
			break;
		case 'P':
			if (parse_prio(optarg, &c->policy, &c->prio))
				return bad("priority", optarg, "o:nice (-20..19), r:prio or f:prio (1..99)");
			break;
		case OPT_WARMUP:
			if (ps_duration_ns(optarg, NS_PER_S, &c->warmup_ns))
				return bad("warm-up", optarg, "seconds");
			break;
		case OPT_JSON: c->json = true; break;
		case 'q': c->quiet = true; break;
		case OPT_TSC: c->tsc = true; break;
		case OPT_FLOOR:
			if (ps_u64(optarg, 1, 1000000, &c->floor_ns))
				return bad("floor", optarg, "1..1000000 ns");
			break;
		case OPT_RING:
			if (ps_u64(optarg, 4, 1 << 20, &v))
				return bad("ring size", optarg, "4..1048576 KiB");
			c->ring_bytes = v << 10;
			break;
		case OPT_NOATTR: c->no_attr = true; break;
		case OPT_NOWL: c->no_workload = true; break;
		case OPT_KERNEL: c->kernel = true; break;
		case OPT_KTEXT: c->kernel_text = optarg; break;
		case 'i': c->input = optarg; break;
		case 'o': c->output = optarg; break;
		case OPT_TOP:
			if (ps_u64(optarg, 0, 256, &v))
				return bad("top", optarg, "0..256");
			c->top_n = (unsigned)v;
			break;
		case 'b':
			if (ps_u64(optarg, 1, 999999, &c->bucket_us))
				return bad("bucket size", optarg, "1..999999 us");
			break;
		case 'E':
			if (ps_u64(optarg, 10, 9999999, &c->entries))
				return bad("entries", optarg, "10..9999999");
			break;
		case OPT_ZEROS: c->with_zeros = true; break;
		case OPT_NOHEADER: c->no_header = true; break;
		case OPT_NOSUMMARY: c->no_summary = true; break;
		case OPT_EVENTS: c->events = true; break;
		case OPT_FORCE: c->force = true; break;
		case OPT_STRICT: c->strict = true; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "latscope osnoise: see --help for the options\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "latscope osnoise: unexpected argument '%s'; see --help\n", argv[optind]);
		return -EINVAL;
	}
	if (!have_runtime)
		c->runtime_us = c->period_us;
	if (c->runtime_us > c->period_us) {
		fprintf(stderr, "latscope osnoise: runtime (%" PRIu64 " us) must not exceed the period (%"
			PRIu64 " us)\n", c->runtime_us, c->period_us);
		return -EINVAL;
	}
	if (c->mode == M_RECORD && c->input) {
		fprintf(stderr, "latscope osnoise: record cannot replay (-i); use top/hist/trace -i\n");
		return -EINVAL;
	}
	return 0;
}

/* ---- run modes -------------------------------------------------------------- */

/* The engine for c->cpus with the options of c (the caller frees it with
 * free_state, also after a failure), and the steal counters. */
static int setup_state(struct ctx *c)
{
	struct osne_opts o = {
		.cpus = c->cpus,
		.threshold_us = c->threshold_us,
		.period_us = c->period_us,
		.runtime_us = c->runtime_us,
		.stop_us = c->stop_us,
		.stop_total_us = c->stop_total_us,
		.warmup_ns = c->warmup_ns,
		.no_workload = c->no_workload,
		.hist = c->mode == M_HIST || c->json,
		.bucket_us = c->bucket_us,
		.entries = c->entries,
	};
	struct osne_sink sk = { .arg = c, .line = sink_line, .period = sink_period };
	int err = osne_new(&c->e, &o, &sk);
	if (err < 0)
		return err;
	c->list = osne_list(c->e);
	c->nr = osne_nr(c->e);
	c->n = osne_noise(c->e);
	c->steal0 = calloc(c->nr, sizeof(uint64_t));
	c->steal1 = calloc(c->nr, sizeof(uint64_t));
	return c->steal0 && c->steal1 ? 0 : -ENOMEM;
}

static void free_state(struct ctx *c)
{
	free(c->steal0);
	free(c->steal1);
	osne_free(c->e);
	c->e = NULL;
}

static void refresh_top(struct ctx *c)
{
	if (c->json || c->quiet || c->mode != M_TOP)
		return;
	if (isatty(STDOUT_FILENO))
		printf("\033[H\033[2J");
	print_top_table(c, stdout, true);
	fflush(stdout);
}

/* Ctrl-C (or a closed stdout) during setup: one line; the caller unwinds. */
static bool setup_interrupted(void)
{
	if (!cio_stopped() && !cio_watch(STDOUT_FILENO))
		return false;
	fprintf(stderr, "latscope osnoise: %s before the measurement started; nothing to report\n",
		cio_broken_pipe() ? "standard output was closed" : "interrupted");
	return true;
}

/* The end of a run: steal read, the report (unless the reader left), the
 * verdict.  Returns the exit status so far. */
static int end_report(struct ctx *c)
{
	read_steal(c->steal1, c->list, c->nr);
	if (cio_broken_pipe())
		cio_pipe_closed("latscope osnoise");
	else
		final_report(c);
	return finish(c, stop_why(c) ? EXIT_THRESHOLD : 0);
}

static int run_live(struct ctx *c)
{
	int err;
	struct ps_cpuset online;
	cpu_set_t aff0;
	bool aff_saved = sched_getaffinity(0, sizeof(aff0), &aff0) == 0, locked = false;

	cio_signals_install();	/* first: a Ctrl-C during setup unwinds below */
	online_cpus(&online);
	if (!c->have_cpus)
		c->cpus = online;
	for (unsigned cpu = 0; cpu < PS_MAX_CPUS; cpu++)
		if (ps_cpuset_has(&c->cpus, cpu) && !ps_cpuset_has(&online, cpu)) {
			fprintf(stderr, "latscope osnoise: CPU %u is not online\n", cpu);
			return EXIT_ERR;
		}
	err = setup_state(c);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		free_state(c);
		return EXIT_ERR;
	}

	/* The collector runs on the house-keeping CPUs, by default the others. */
	struct ps_cpuset hk = c->hk;
	if (!c->have_hk) {
		memset(&hk, 0, sizeof(hk));
		for (unsigned cpu = 0; cpu < PS_MAX_CPUS; cpu++)
			if (ps_cpuset_has(&online, cpu) && !ps_cpuset_has(&c->cpus, cpu))
				ps_cpuset_add(&hk, cpu);
	}
	if (ps_cpuset_count(&hk)) {
		cpu_set_t set;
		CPU_ZERO(&set);
		for (unsigned cpu = 0; cpu < CPU_SETSIZE && cpu < PS_MAX_CPUS; cpu++)
			if (ps_cpuset_has(&hk, cpu))
				CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0 && c->have_hk) {
			fprintf(stderr, "latscope osnoise: cannot run on house-keeping CPUs: %s\n",
				strerror(errno));
			free_state(c);
			return EXIT_ERR;
		}
	}
	/* Attribution: tracepoints through perf_event_open. */
	if (c->no_attr) {
		snprintf(c->attr_why, sizeof(c->attr_why), "--no-attribution");
	} else {
		struct evs_opts eo = { .ring_bytes = c->ring_bytes };
		err = evs_open(&c->s, attr_events, sizeof(attr_events) / sizeof(attr_events[0]),
			       &c->cpus, &eo);
		if (err < 0) {
			snprintf(c->attr_why, sizeof(c->attr_why), "%s", evs_strerror(c->s));
			evs_close(c->s);
			c->s = NULL;
			if (c->no_workload) {
				fprintf(stderr, "latscope osnoise: --no-workload needs the tracepoints: %s\n",
					c->attr_why);
				free_state(c);
				return EXIT_ERR;
			}
		} else {
			c->attribution = true;
		}
	}
	/* Without the busy loop the measured CPUs go idle, and some kernels
	 * (KVM guests with haltpoll) drop perf samples of interrupts taken on an
	 * idle CPU: say so, the IRQ/softirq time of idle CPUs is then too low. */
	if (c->no_workload && c->attribution) {
		struct idc_cpu_result idr[64];
		size_t nidr = 0;
		if (idc_check(&c->cpus, NULL, idr, sizeof(idr) / sizeof(idr[0]), &nidr) == 0 &&
		    idc_any_drops(idr, nidr)) {
			char list[256] = "";
			for (size_t i = 0; i < nidr; i++)
				if (idr[i].verdict == IDC_DROPS)
					snprintf(list + strlen(list), sizeof(list) - strlen(list), " CPU%u %" PRIu64 "/%" PRIu64,
						 idr[i].cpu, idr[i].samples, idr[i].irqs);
			fprintf(stderr, "latscope osnoise: this kernel drops perf samples of interrupts taken on an "
					"idle CPU (self-test, samples/timer interrupts:%s): with --no-workload the "
					"IRQ and softirq time of idle CPUs is undercounted\n", list);
		}
	}
	if (setup_interrupted())
		goto out_err;
	if (c->mode == M_RECORD && open_recording(c) < 0)
		goto out_err;
	if (setup_interrupted())
		goto out_err;

	read_steal(c->steal0, c->list, c->nr);
	if (c->s && (err = evs_enable(c->s)) < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", evs_strerror(c->s));
		goto out_err;
	}
	osne_start(c->e, osw_now_ns());
	if (!c->no_workload) {
		struct osw_opts wo = {
			.cpus = c->cpus,
			.period_ns = c->period_us * 1000,
			.runtime_ns = c->runtime_us * 1000,
			.threshold_ns = c->threshold_us * 1000,
			.floor_ns = c->floor_ns,
			.policy = c->policy,
			.prio = c->prio,
			.use_tsc = c->tsc,
		};
		err = osw_start(&c->w, &wo);
		if (err < 0) {
			fprintf(stderr, "latscope osnoise: cannot start the workload: %s%s\n",
				strerror(-err),
				err == -EPERM ? " (real-time priority needs root or CAP_SYS_NICE)" :
				err == -ENOTSUP ? " (no constant TSC: drop --tsc)" : "");
			osw_free(c->w);
			c->w = NULL;
			goto out_err;
		}
		if (setup_interrupted()) {
			osw_stop(c->w);
			osw_free(c->w);
			c->w = NULL;
			goto out_err;
		}
		osne_use_workload(c->e, c->w);
		for (size_t i = 0; i < c->nr; i++)
			osne_set_tid(c->e, c->list[i], osw_tid(c->w, i), osw_floor_ns(c->w, i));
	}
	/* Lock memory once everything is allocated (threads, rings). */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		int e = errno;
		char why[256];
		munlockall();	/* a failed mlockall may leave MCL_FUTURE behind */
		ph_mlock(why, sizeof(why), -e);
		if (!c->quiet && !c->json)
			fprintf(stderr, "latscope osnoise: mlockall failed (%s%s%s); page faults may add "
				"noise\n", strerror(e), why[0] ? ": " : "", why);
	} else {
		locked = true;
	}

	if (c->mode == M_TRACE && !c->json)
		print_trace_header(stdout);

	uint64_t warm_end_ns = osne_times(c->e)->warm_end_ns;
	uint64_t deadline = c->duration_ns ? warm_end_ns + c->duration_ns : UINT64_MAX;
	uint64_t next_refresh = warm_end_ns + c->period_us * 1000;
	while (!cio_watch(STDOUT_FILENO) && !stop_why(c)) {
		if (c->s)
			evs_poll(c->s, 100);
		else {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		uint64_t now = osw_now_ns();
		if (now >= deadline)
			break;
		process(c, now - SLACK_NS);
		if (c->pw)	/* the recording survives a kill (errors stick: reported at close) */
			pdw_checkpoint(c->pw, false);
		if (now >= next_refresh) {
			refresh_top(c);
			next_refresh = now + c->period_us * 1000;
		}
	}
	/* Stop the workload (its last period ends here), then take everything. */
	osw_stop(c->w);
	if (c->s)
		evs_disable(c->s);
	osne_set_end(c->e, osw_now_ns());
	process(c, UINT64_MAX);
	osne_close(c->e);
	int rc = end_report(c);
	if (cio_broken_pipe())
		rc = EXIT_ERR;
	evs_close(c->s);
	c->s = NULL;
	if (c->pw) {
		err = pdw_close(c->pw);
		c->pw = NULL;
		if (err < 0) {
			fprintf(stderr, "latscope osnoise record: writing '%s': %s\n", c->output,
				strerror(-err));
			rc = EXIT_ERR;
		} else if (!c->json) {
			fprintf(stderr, "latscope osnoise record: wrote '%s'\n", c->output);
		}
	}
	osw_free(c->w);
	free_state(c);
	if (locked)
		munlockall();
	if (aff_saved)
		sched_setaffinity(0, sizeof(aff0), &aff0);
	return rc;
out_err:
	evs_close(c->s);
	c->s = NULL;
	pdw_discard(c->pw);
	c->pw = NULL;
	free_state(c);
	if (aff_saved)
		sched_setaffinity(0, sizeof(aff0), &aff0);
	return EXIT_ERR;
}

/* ---- replay ----------------------------------------------------------------- */

static int not_osnoise(struct ctx *c)
{
	fprintf(stderr, "latscope osnoise: '%s' has no osnoise data (no %s event, no "
			"latscope-osnoise parameters): replay reads files written by "
			"`latscope osnoise record`\n", c->input, WREC_EVSEL_NAME);
	return EXIT_ERR;
}

/*
 * The replay's set-up (an osne_setup_fn), at the first sample: a pipe, or a
 * recording whose writer was killed (its header is a checkpoint), carries
 * its features as records at the start of the data, read by then.
 */
static int replay_setup(void *arg, struct pdr *r, bool have_formats, struct osne **ep)
{
	struct ctx *c = arg;
	const struct pdr_info *info = pdr_info(r);
	c->setup_failed = true;		/* each failure below says why */
	if (!osne_is_recording(r)) {
		not_osnoise(c);
		return -EINVAL;
	}
	struct osne_opts o = {
		.cpus = c->cpus, .threshold_us = c->threshold_us, .period_us = c->period_us,
		.runtime_us = c->runtime_us, .no_workload = c->no_workload,
	};
	if (osne_params_apply(info->version, &o, c->have_T, c->have_cpus)) {
		c->cpus = o.cpus;
		c->have_cpus = true;
	}
	c->threshold_us = o.threshold_us;
	c->period_us = o.period_us;
	c->runtime_us = o.runtime_us;
	c->no_workload = o.no_workload;
	if (!c->have_cpus) {
		uint32_t n = info->nr_cpus_online ? info->nr_cpus_online : 1;
		memset(&c->cpus, 0, sizeof(c->cpus));
		for (uint32_t i = 0; i < n && i < PS_MAX_CPUS; i++)
			ps_cpuset_add(&c->cpus, i);
	}
	c->replaying = true;
	int err = setup_state(c);
	*ep = c->e;
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		return err;
	}
	c->attribution = have_formats;
	if (!have_formats)
		snprintf(c->attr_why, sizeof(c->attr_why), "'%s' has no tracepoint formats", c->input);
	if (c->mode == M_TRACE && !c->json)
		print_trace_header(stdout);
	c->setup_failed = false;
	return 0;
}

static int run_replay(struct ctx *c)
{
	struct pdr *r = NULL;
	cio_sigpipe_as_error();
	int err = pdr_open(&r, c->input, NULL);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: cannot read '%s': %s\n", c->input,
			r ? pdr_strerror(r) : strerror(-err));
		pdr_close(r);
		return EXIT_ERR;
	}
	const struct pdr_info *info = pdr_info(r);
	if (!info->pipe && !info->unterminated && !osne_is_recording(r)) {
		pdr_close(r);
		return not_osnoise(c);
	}
	struct osne *e;
	err = osne_replay(r, replay_setup, c, &e);
	c->e = e;	/* the engine set-up made, if any */
	if (err < 0) {
		if (!c->setup_failed)
			fprintf(stderr, "latscope osnoise: '%s': %s\n", c->input, pdr_strerror(r));
		pdr_close(r);
		free_state(c);
		return EXIT_ERR;
	}
	c->cnt = *osne_counts(e);
	final_report(c);
	int rc = finish(c, stop_why(c) ? EXIT_THRESHOLD : 0);
	cio_pdr_close(r, "latscope osnoise", c->input);
	free_state(c);
	return rc;
}

/* ---- kernel tracer ------------------------------------------------------------ */

static int kernel_setup(struct ctx *c)
{
	int err = setup_state(c);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		return err;
	}
	c->attribution = true;
	c->kmode = true;
	return 0;
}

/* --parse-kernel FILE: a saved osnoise trace (text) shown in the same views. */
static int run_kernel_text(struct ctx *c, const char *path)
{
	cio_sigpipe_as_error();
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "latscope osnoise: cannot open '%s': %s\n", path, strerror(errno));
		return EXIT_ERR;
	}
	if (!c->have_cpus) {
		/* the CPUs are those of the records */
		char line[4096];
		struct okt_rec r;
		memset(&c->cpus, 0, sizeof(c->cpus));
		while (fgets(line, sizeof(line), f))
			if (!okt_parse_line(line, &r))
				ps_cpuset_add(&c->cpus, r.cpu);
		if (f == stdin || fseek(f, 0, SEEK_SET) < 0) {
			fprintf(stderr, "latscope osnoise: '%s' cannot be read twice; give the CPUs with -c\n",
				path);
			if (f != stdin)
				fclose(f);
			return EXIT_ERR;
		}
		if (!ps_cpuset_count(&c->cpus)) {
			fprintf(stderr, "latscope osnoise: no osnoise records in '%s'\n", path);
			fclose(f);
			return EXIT_ERR;
		}
	}
	c->replaying = true;
	if (kernel_setup(c) < 0) {
		if (f != stdin)
			fclose(f);
		free_state(c);
		return EXIT_ERR;
	}
	static struct osne_kbuf kb;
	kb.len = kb.bad = 0;
	char buf[16384];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		osne_kernel_text(c->e, &kb, buf, n);
	osne_kernel_text(c->e, &kb, "\n", 1);
	if (f != stdin)
		fclose(f);
	if (kb.bad)
		fprintf(stderr, "latscope osnoise: %" PRIu64 " malformed osnoise lines skipped\n", kb.bad);
	c->cnt.bad_wrec += kb.bad;
	final_report(c);
	int rc = finish(c, stop_why(c) ? EXIT_THRESHOLD : 0);
	free_state(c);
	return rc;
}

static int run_kernel(struct ctx *c)
{
	cio_signals_install();	/* first: the tracer is always stopped below */
	if (!okt_available()) {
		fprintf(stderr, "latscope osnoise: --kernel needs the kernel osnoise tracer, which this "
				"kernel does not have (no %s/osnoise; CONFIG_OSNOISE_TRACER); run without "
				"--kernel to measure in userspace\n",
			tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs");
		return EXIT_ERR;
	}
	struct ps_cpuset online;
	online_cpus(&online);
	if (!c->have_cpus)
		c->cpus = online;
	if (kernel_setup(c) < 0) {
		free_state(c);
		return EXIT_ERR;
	}
	char cl[1024];
	ps_cpulist_format(&c->cpus, cl, sizeof(cl));
	struct okt_config kc = {
		.cpus = cl, .period_us = c->period_us, .runtime_us = c->runtime_us,
		.stop_us = c->stop_us, .stop_total_us = c->stop_total_us,
		.threshold_us = c->threshold_us, .no_workload = c->no_workload,
		.events = c->events || c->mode == M_HIST || c->attribution,
	};
	struct okt *k;
	int err = okt_start(&k, &kc);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: kernel tracer: %s\n", okt_strerror(k));
		okt_stop(k);
		free_state(c);
		return EXIT_ERR;
	}
	if (setup_interrupted()) {
		okt_stop(k);
		free_state(c);
		return EXIT_ERR;
	}
	read_steal(c->steal0, c->list, c->nr);
	uint64_t t0 = osw_now_ns();
	uint64_t deadline = c->duration_ns ? t0 + c->duration_ns : UINT64_MAX;
	if (c->mode == M_TRACE && !c->json)
		print_trace_header(stdout);
	static struct osne_kbuf kb;
	char buf[16384];
	while (!cio_watch(STDOUT_FILENO) && !stop_why(c) && osw_now_ns() < deadline) {
		long n = okt_read(k, buf, sizeof(buf));
		if (n < 0)
			break;
		if (n == 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			continue;
		}
		osne_kernel_text(c->e, &kb, buf, (size_t)n);
	}
	okt_stop(k);	/* the tracer instance removed before anything is printed */
	int rc = end_report(c);
	free_state(c);
	return cio_broken_pipe() ? EXIT_ERR : rc;
}

/* ---- entry ------------------------------------------------------------------ */

int cmd_osnoise(int argc, char **argv)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	memset(c, 0, sizeof(*c));
	c->mode = M_TOP;
	c->period_us = 1000000;
	c->threshold_us = 1;
	c->bucket_us = 1;
	c->entries = 256;
	c->top_n = 5;
	c->policy = SCHED_OTHER;
	c->output = "osnoise.data";
	int shift = 0;
	if (argc > 1 && argv[1][0] != '-') {
		if (!strcmp(argv[1], "top"))
			c->mode = M_TOP;
		else if (!strcmp(argv[1], "hist"))
			c->mode = M_HIST;
		else if (!strcmp(argv[1], "trace"))
			c->mode = M_TRACE;
		else if (!strcmp(argv[1], "record"))
			c->mode = M_RECORD;
		else {
			fprintf(stderr, "latscope osnoise: no mode '%s' (top, hist, trace, record)\n",
				argv[1]);
			return EXIT_ERR;
		}
		shift = 1;
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-T") || !strncmp(argv[i], "--threshold", 11))
			c->have_T = true;
	optind = 1;
	int r = parse_args(c, argc - shift, argv + shift);
	if (r)
		return r > 0 ? 0 : EXIT_ERR;
	if (c->kernel_text)
		return run_kernel_text(c, c->kernel_text);
	if (c->kernel)
		return run_kernel(c);
	if (c->input)
		return run_replay(c);
	return run_live(c);
}
