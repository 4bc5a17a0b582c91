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
#define WREC_ID		(1ULL << 62)
#define LINE_RING	64
#define LINE_LEN	512
#define NS_PER_S	((uint64_t)1000000000)
#define SLACK_NS	(5 * 1000 * 1000ULL)

static const char *const attr_events[] = {
	"sched:sched_switch",
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry", "irq:softirq_exit",
	"?irq_vectors:*_entry", "?irq_vectors:*_exit",
	"?nmi:nmi_handler",
};

struct chist {
	uint64_t *b;			/* entries + 1 (over) */
	uint64_t count, min_ns, max_ns, sum_ns;
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
	unsigned list[PS_MAX_CPUS];
	size_t nr;
	int16_t idx_of[PS_MAX_CPUS];
	struct noise *n;
	struct osw *w;
	struct evs *s;
	struct pdw *pw;
	int wrec_evsel;
	bool attribution;
	char attr_why[512];
	bool *active;
	struct chist *h;
	uint64_t *min_gap_ns, *iters, *loop_ns, *floor_of, *pstart;
	uint64_t warm_end_ns, start_ns, end_ns;
	int stop;			/* 0, 1 single, 2 total */
	unsigned stop_cpu;
	uint64_t stop_value_ns;
	char lines[LINE_RING][LINE_LEN];
	uint64_t nr_lines;
	uint64_t *steal0, *steal1;
	int32_t *tids;
	uint64_t replay_lost;
	/* no-workload: next period boundary */
	uint64_t nw_next_ns;
	bool replaying;
	bool kmode;			/* records come from the kernel tracer */
	uint64_t kernel_lost;
	bool force, strict;
	/* replay: what the reader or the decoders skipped */
	uint64_t replay_samples, unknown_id, bad_samples, undecoded, bad_wrec, out_of_order, forced;
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

static void fmt_ts(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_S, ns % NS_PER_S);
}

static void add_line(struct ctx *c, const char *line)
{
	if (c->stop)	/* keep the events that led up to the stop */
		return;
	char *dst = c->lines[c->nr_lines++ % LINE_RING];
	snprintf(dst, LINE_LEN, "%s", line);
}

static void print_lines(struct ctx *c, FILE *f)
{
	uint64_t first = c->nr_lines > LINE_RING ? c->nr_lines - LINE_RING : 0;
	for (uint64_t i = first; i < c->nr_lines; i++)
		fprintf(f, "%s\n", c->lines[i % LINE_RING]);
}

static int idx_of(const struct ctx *c, unsigned cpu)
{
	return cpu < PS_MAX_CPUS ? c->idx_of[cpu] : -1;
}

/* Context prefix of trace lines: "osnoise/N-TID [NNN] ....." and time. */
static void trace_prefix(const struct ctx *c, char *buf, size_t len, unsigned cpu, uint64_t t_ns)
{
	char task[32];
	int i = idx_of(c, cpu);
	int tid = i >= 0 && c->tids ? c->tids[i] : 0;
	snprintf(task, sizeof(task), "osnoise/%u", cpu);
	snprintf(buf, len, "%16s-%-7d [%03u] ..... %6" PRIu64 ".%06" PRIu64 ":", task, tid, cpu,
		 t_ns / NS_PER_S, (t_ns % NS_PER_S) / 1000);
}

/* ---- noise sink --------------------------------------------------------- */

static void sink_win(void *arg, const struct noise_win *w)
{
	struct ctx *c = arg;
	char pre[96], ts[32], line[LINE_LEN];
	/* In workload mode the kernel reports threads other than the workload
	 * and every IRQ; the line ring keeps the last ones for a stop. */
	trace_prefix(c, pre, sizeof(pre), w->cpu, w->end_ns);
	fmt_ts(ts, sizeof(ts), w->start_ns);
	switch (w->cls) {
	case NOISE_NMI:
		snprintf(line, sizeof(line), "%s nmi_noise: start %s duration %" PRIu64 " ns", pre, ts,
			 w->net_ns);
		break;
	case NOISE_IRQ:
		snprintf(line, sizeof(line), "%s irq_noise: %s:%d start %s duration %" PRIu64 " ns", pre,
			 w->name, w->id, ts, w->net_ns);
		break;
	case NOISE_SOFTIRQ:
		snprintf(line, sizeof(line), "%s softirq_noise: %8s:%d start %s duration %" PRIu64 " ns",
			 pre, w->name, w->id, ts, w->net_ns);
		break;
	default:
		snprintf(line, sizeof(line), "%s thread_noise: %8s:%d start %s duration %" PRIu64 " ns",
			 pre, w->name, w->id, ts, w->net_ns);
		break;
	}
	add_line(c, line);
	if (c->mode == M_TRACE && c->events && !c->json)
		printf("%s\n", line);
}

static void hist_add(struct ctx *c, unsigned cpu, uint64_t ns)
{
	int i = idx_of(c, cpu);
	if (i < 0 || !c->h)
		return;
	struct chist *h = &c->h[i];
	uint64_t b = ns / 1000 / c->bucket_us;
	h->b[b < c->entries ? b : c->entries]++;
	if (!h->count || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
}

static void sink_gap(void *arg, const struct noise_gap *g)
{
	struct ctx *c = arg;
	char pre[96], ts[32], line[LINE_LEN];
	hist_add(c, g->cpu, g->duration_ns);
	trace_prefix(c, pre, sizeof(pre), g->cpu, g->start_ns + g->duration_ns);
	fmt_ts(ts, sizeof(ts), g->start_ns);
	snprintf(line, sizeof(line), "%s sample_threshold: start %s duration %" PRIu64
		 " ns interference %" PRIu64, pre, ts, g->duration_ns, g->interference);
	add_line(c, line);
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
	trace_prefix(c, pre, sizeof(pre), cpu, end_ns);
	printf("%s %" PRIu64 " %10" PRIu64 " %3" PRIu64 ".%05" PRIu64 " %7" PRIu64 " %6" PRIu64
	       " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
	       pre, rt, nz, av / 100000, av % 100000, p->max_single_ns / 1000, p->hw_count,
	       p->count[NOISE_NMI], p->count[NOISE_IRQ], p->count[NOISE_SOFTIRQ],
	       p->count[NOISE_THREAD]);
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && !c->write_err) {
		c->write_err = errno ? errno : EIO;
		cio_stop();
	}
}

/* ---- feeding ------------------------------------------------------------ */

/* A stop threshold: like the kernel, tracing ends here.  The periods in
 * progress are closed at the stop time so the totals include the stop. */
static void set_stop(struct ctx *c, int why, unsigned cpu, uint64_t v, uint64_t t_ns)
{
	if (c->stop)
		return;
	c->stop = why;
	c->stop_cpu = cpu;
	c->stop_value_ns = v;
	if (c->w)
		osw_request_stop(c->w);
	for (size_t i = 0; i < c->nr; i++)
		if (c->active[i]) {
			c->active[i] = false;
			noise_period_end(c->n, c->list[i], t_ns, t_ns > c->pstart[i] ? t_ns - c->pstart[i] : 0);
		}
}

static void write_wrec(struct ctx *c, const struct osw_rec *r)
{
	if (!c->pw)
		return;
	uint8_t raw[OSW_REC_RAW_SIZE];
	osw_rec_encode(r, raw);
	struct pdr_sample s;
	memset(&s, 0, sizeof(s));
	s.id = WREC_ID;
	int i = idx_of(c, r->cpu);
	s.pid = s.tid = (uint32_t)(i >= 0 && c->tids ? c->tids[i] : 0);
	s.time = r->t1_ns;
	s.cpu = r->cpu;
	s.raw = raw;
	s.raw_size = sizeof(raw);
	pdw_write_sample(c->pw, c->wrec_evsel, PDF_MISC_USER, &s);
}

static void feed_wrec(struct ctx *c, const struct osw_rec *r)
{
	write_wrec(c, r);
	int i = idx_of(c, r->cpu);
	if (i < 0)
		return;
	switch (r->type) {
	case OSW_PERIOD_BEGIN:
		if (r->t1_ns >= c->warm_end_ns && !c->stop) {
			noise_period_begin(c->n, r->cpu, r->t1_ns);
			c->active[i] = true;
			c->pstart[i] = r->t1_ns;
		}
		break;
	case OSW_GAP:
		if (c->active[i] && noise_gap(c->n, r->cpu, r->t0_ns, r->t1_ns) == NOISE_STOP)
			set_stop(c, 1, r->cpu, r->t1_ns - r->t0_ns, r->t1_ns);
		break;
	case OSW_PERIOD_END:
		if (!c->active[i])
			break;
		c->active[i] = false;
		noise_sub(c->n, r->cpu, r->v[1], r->v[2]);
		if (!c->min_gap_ns[i] || r->v[4] < c->min_gap_ns[i])
			c->min_gap_ns[i] = r->v[4];
		c->iters[i] += r->v[3];
		c->loop_ns[i] += r->v[0];
		if (noise_period_end(c->n, r->cpu, r->t1_ns, r->v[0]) == NOISE_STOP) {
			const struct noise_stats *p = noise_cpu_period(c->n, r->cpu);
			set_stop(c, 2, r->cpu, p->noise_ns, r->t1_ns);
		}
		break;
	default:
		break;
	}
}

/* No-workload mode: period boundaries are generated by the collector. */
static bool nw_peek(struct ctx *c, size_t i, struct osw_rec *r)
{
	(void)i;
	if (!c->nw_next_ns)
		return false;
	memset(r, 0, sizeof(*r));
	r->type = OSW_PERIOD_END;
	r->t0_ns = r->t1_ns = c->nw_next_ns;
	return true;
}

static bool wpeek(struct ctx *c, size_t i, struct osw_rec *r)
{
	if (c->w)
		return osw_peek(c->w, i, r);
	return false;
}

/* Feed the workload records of CPU index i with key < limit (or <= when incl). */
static void feed_wrecs_until(struct ctx *c, size_t i, uint64_t limit, bool incl)
{
	struct osw_rec r;
	while (wpeek(c, i, &r) && (r.t1_ns < limit || (incl && r.t1_ns == limit))) {
		osw_pop(c->w, i);
		feed_wrec(c, &r);
	}
}

/* No-workload period boundaries due before limit. */
static void nw_boundaries(struct ctx *c, uint64_t limit)
{
	struct osw_rec r;
	if (c->end_ns && limit > c->end_ns)
		limit = c->end_ns;	/* the run is over: no boundary after its end */
	while (c->no_workload && nw_peek(c, 0, &r) && r.t1_ns <= limit) {
		for (size_t i = 0; i < c->nr; i++) {
			unsigned cpu = c->list[i];
			if (c->active[i]) {
				noise_period_end(c->n, cpu, r.t1_ns, c->period_us * 1000);
				c->active[i] = false;
			}
			if (!c->stop && r.t1_ns >= c->warm_end_ns) {
				noise_period_begin(c->n, cpu, r.t1_ns);
				c->active[i] = true;
				c->pstart[i] = r.t1_ns;
			}
		}
		c->nw_next_ns += c->period_us * 1000;
	}
}

/* No-workload: the last, partial period ends with the run. */
static void close_partial(struct ctx *c)
{
	if (!c->no_workload || c->stop)
		return;
	for (size_t i = 0; i < c->nr; i++)
		if (c->active[i]) {
			c->active[i] = false;
			noise_period_end(c->n, c->list[i], c->end_ns,
					 c->end_ns > c->pstart[i] ? c->end_ns - c->pstart[i] : 0);
		}
}

static int on_event(void *arg, const struct tpe *e)
{
	struct ctx *c = arg;
	int i = idx_of(c, e->cpu);
	if (i < 0 || c->stop)
		return 0;
	if (c->no_workload)
		nw_boundaries(c, e->time_ns);
	else
		feed_wrecs_until(c, (size_t)i, e->time_ns, false);
	noise_event(c->n, e);
	return 0;
}

static void process(struct ctx *c, uint64_t until_ns)
{
	if (c->s)
		evs_read(c->s, until_ns, on_event, c);
	if (c->no_workload)
		nw_boundaries(c, until_ns);
	else
		for (size_t i = 0; i < c->nr; i++)
			feed_wrecs_until(c, i, until_ns, true);
	if (c->pw)
		pdw_finished_round(c->pw);
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
	struct pdf_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDF_TYPE_SOFTWARE;
	a.config = 9;	/* PERF_COUNT_SW_DUMMY */
	a.sample_period = 1;
	a.sample_type = PDF_SAMPLE_IDENTIFIER | PDF_SAMPLE_TID | PDF_SAMPLE_TIME | PDF_SAMPLE_CPU |
			PDF_SAMPLE_RAW;
	a.flags = (1ULL << PDF_ATTR_FLAG_SAMPLE_ID_ALL) | (1ULL << PDF_ATTR_FLAG_USE_CLOCKID);
	a.clockid = CLOCK_MONOTONIC;
	uint64_t id = WREC_ID;
	c->wrec_evsel = pdw_add_evsel(c->pw, &a, WREC_EVSEL_NAME, &id, 1);
	if (c->wrec_evsel < 0)
		return c->wrec_evsel;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	pdw_set_string_feature(c->pw, PDF_FEAT_HOSTNAME, host);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pdw_set_nrcpus(c->pw, (uint32_t)ncpu, (uint32_t)ncpu);
	/* The run's parameters, so replay uses the same threshold and period. */
	char cmd[1024], cl[512];
	ps_cpulist_format(&c->cpus, cl, sizeof(cl));
	snprintf(cmd, sizeof(cmd), "latscope-osnoise threshold_us=%" PRIu64 " period_us=%" PRIu64
		 " runtime_us=%" PRIu64 " stop_us=%" PRIu64 " stop_total_us=%" PRIu64 " no_workload=%d"
		 " cpus=%s", c->threshold_us, c->period_us, c->runtime_us, c->stop_us,
		 c->stop_total_us, c->no_workload, cl);
	pdw_set_string_feature(c->pw, PDF_FEAT_VERSION, cmd);
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
	return (c->s ? evs_stats(c->s)->lost : c->replay_lost) + wrec_lost(c) + c->unknown_id +
	       c->bad_samples + c->undecoded + c->bad_wrec;
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
	uint64_t end = c->end_ns ? c->end_ns : osw_now_ns();
	uint64_t begin = c->warm_end_ns > c->start_ns ? c->warm_end_ns : c->start_ns;
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
				s->sub_count, s->sub_ns / 1000, c->floor_of[i]);
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
				c->floor_of[i]);
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
		for (size_t i = 0; i < c->nr; i++)
			fprintf(f, " cpu%u %.1f ns/iteration, smallest gap %" PRIu64 " ns;", c->list[i],
				c->iters[i] ? (double)c->loop_ns[i] / (double)c->iters[i] : 0.0,
				c->min_gap_ns[i]);
		fprintf(f, "\n");
	}
	if (c->attribution) {
		const struct noise_anomalies *a = noise_anomalies(c->n);
		uint64_t lost = c->s ? evs_stats(c->s)->lost : c->replay_lost;
		uint64_t samples = c->s ? evs_stats(c->s)->samples : c->replay_samples;
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
	if (c->unknown_id + c->bad_samples + c->undecoded + c->bad_wrec)
		fprintf(f, "skipped: %" PRIu64 " samples with an id no event declares, %" PRIu64
			" too short for their sample_type, %" PRIu64 " tracepoint payloads that do not "
			"decode, %" PRIu64 " malformed workload records\n", c->unknown_id,
			c->bad_samples, c->undecoded, c->bad_wrec);
	if (c->out_of_order + c->forced)
		fprintf(f, "ordering: %" PRIu64 " events delivered out of order, %" PRIu64
			" queue flushes forced by a full queue\n", c->out_of_order, c->forced);
}

static void print_stop(struct ctx *c, FILE *f)
{
	if (!c->stop)
		return;
	if (c->stop == 1)
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u single noise %" PRIu64 " us > %"
			PRIu64 " us\n", c->stop_cpu, c->stop_value_ns / 1000, c->stop_us);
	else
		fprintf(f, "latscope osnoise hit stop tracing: cpu %u period noise %" PRIu64 " us > %"
			PRIu64 " us\n", c->stop_cpu, c->stop_value_ns / 1000, c->stop_total_us);
	if (!(c->mode == M_TRACE && c->events)) {
		fprintf(f, "Events leading up to the stop:\n");
		print_lines(c, f);
	}
}

/* Percentile from the histogram: lower bound of the bucket holding it, in us;
 * in the overflow bucket the maximum. */
static uint64_t hist_pct_us(const struct ctx *c, const struct chist *h, double q)
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
		if (c->h[i].count)
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
			tot += c->h[show[k]].b[b];
		if (!tot && !c->with_zeros)
			continue;
		fprintf(f, "%-6" PRIu64, b * c->bucket_us);
		for (size_t k = 0; k < ns; k++)
			fprintf(f, "%9" PRIu64 " ", c->h[show[k]].b[b]);
		fprintf(f, "\n");
	}
	if (c->no_summary)
		return;
#define ROW(label, expr) do { \
		fprintf(f, "%-6s", label); \
		for (size_t k = 0; k < ns; k++) { const struct chist *h = &c->h[show[k]]; \
			fprintf(f, "%9" PRIu64 " ", (uint64_t)(expr)); } \
		fprintf(f, "\n"); } while (0)
	ROW("over:", h->b[c->entries]);
	ROW("count:", h->count);
	ROW("min:", h->min_ns / 1000);
	fprintf(f, "%-6s", "avg:");
	for (size_t k = 0; k < ns; k++) {
		const struct chist *h = &c->h[show[k]];
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
			       ju(c->s ? evs_stats(c->s)->lost : c->replay_lost));
	json_object *sk = json_object_new_object();
	json_object_object_add(sk, "unknown_id", ju(c->unknown_id));
	json_object_object_add(sk, "bad_samples", ju(c->bad_samples));
	json_object_object_add(sk, "undecoded", ju(c->undecoded));
	json_object_object_add(sk, "bad_workload_records", ju(c->bad_wrec));
	json_object_object_add(sk, "workload_records_lost", ju(wrec_lost(c)));
	json_object_object_add(sk, "out_of_order", ju(c->out_of_order));
	json_object_object_add(sk, "forced_flushes", ju(c->forced));
	json_object_object_add(root, "skipped", sk);
	json_object_object_add(root, "dropped", ju(dropped(c)));
	json_object *stop = NULL;
	if (c->stop) {
		stop = json_object_new_object();
		json_object_object_add(stop, "reason", json_object_new_string(c->stop == 1 ? "single"
											   : "total"));
		json_object_object_add(stop, "cpu", ju(c->stop_cpu));
		json_object_object_add(stop, "value_us", ju(c->stop_value_ns / 1000));
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
		json_object_object_add(o, "floor_ns", ju(c->floor_of[i]));
		if (!c->no_workload) {
			json_object_object_add(o, "loop_ns_per_iteration",
					       json_object_new_double(c->iters[i] ? (double)c->loop_ns[i] /
								      (double)c->iters[i] : 0.0));
			json_object_object_add(o, "smallest_gap_ns", ju(c->min_gap_ns[i]));
		}
		if (hv && !c->replaying)
			json_object_object_add(o, "steal_ms",
					       ju((c->steal1[i] - c->steal0[i]) * 1000 /
						  (uint64_t)(tck > 0 ? tck : 100)));
		if (c->h) {
			const struct chist *h = &c->h[i];
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
		c->out_of_order = evs_stats(c->s)->out_of_order;
		c->forced = evs_stats(c->s)->forced;
	}
	if (c->json) {
		print_json(c, f);
		if (c->stop)
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

static int setup_state(struct ctx *c)
{
	c->nr = 0;
	for (unsigned cpu = 0; cpu < PS_MAX_CPUS; cpu++) {
		c->idx_of[cpu] = -1;
		if (ps_cpuset_has(&c->cpus, cpu)) {
			c->idx_of[cpu] = (int16_t)c->nr;
			c->list[c->nr++] = cpu;
		}
	}
	if (!c->nr)
		return -EINVAL;
	c->active = calloc(c->nr, sizeof(bool));
	c->min_gap_ns = calloc(c->nr, sizeof(uint64_t));
	c->iters = calloc(c->nr, sizeof(uint64_t));
	c->loop_ns = calloc(c->nr, sizeof(uint64_t));
	c->floor_of = calloc(c->nr, sizeof(uint64_t));
	c->pstart = calloc(c->nr, sizeof(uint64_t));
	c->steal0 = calloc(c->nr, sizeof(uint64_t));
	c->steal1 = calloc(c->nr, sizeof(uint64_t));
	c->tids = calloc(c->nr, sizeof(int32_t));
	if (!c->active || !c->min_gap_ns || !c->iters || !c->loop_ns || !c->floor_of || !c->pstart || !c->steal0 ||
	    !c->steal1 || !c->tids)
		return -ENOMEM;
	if (c->mode == M_HIST || c->json) {
		c->h = calloc(c->nr, sizeof(*c->h));
		if (!c->h)
			return -ENOMEM;
		for (size_t i = 0; i < c->nr; i++) {
			c->h[i].b = calloc(c->entries + 1, sizeof(uint64_t));
			if (!c->h[i].b)
				return -ENOMEM;
		}
	}
	struct noise_opts no = {
		.threshold_ns = c->threshold_us * 1000,
		.stop_single_ns = c->stop_us * 1000,
		.stop_total_ns = c->stop_total_us * 1000,
		.no_workload = c->no_workload,
	};
	struct noise_sink sk = { .arg = c, .win = sink_win, .gap = sink_gap, .period = sink_period };
	return noise_new(&c->n, c->list[c->nr - 1] + 1, &no, &sk);
}

static void free_state(struct ctx *c)
{
	if (c->h)
		for (size_t i = 0; i < c->nr; i++)
			free(c->h[i].b);
	free(c->h);
	free(c->active);
	free(c->min_gap_ns);
	free(c->iters);
	free(c->loop_ns);
	free(c->floor_of);
	free(c->pstart);
	free(c->steal0);
	free(c->steal1);
	free(c->tids);
	noise_free(c->n);
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
	return finish(c, c->stop ? EXIT_THRESHOLD : 0);
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
	c->start_ns = osw_now_ns();
	c->warm_end_ns = c->start_ns + c->warmup_ns;
	if (c->no_workload) {
		c->nw_next_ns = c->warm_end_ns;
	} else {
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
		for (size_t i = 0; i < c->nr; i++) {
			c->tids[i] = osw_tid(c->w, i);
			c->floor_of[i] = osw_floor_ns(c->w, i);
			noise_set_workload(c->n, c->list[i], c->tids[i]);
			if (c->pw) {
				/* time 0: replay learns the workload threads first */
				struct osw_rec t = { .type = OSW_TID, .cpu = c->list[i] };
				t.v[0] = (uint64_t)c->tids[i];
				t.v[1] = c->floor_of[i];
				write_wrec(c, &t);
			}
		}
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

	uint64_t deadline = c->duration_ns ? c->warm_end_ns + c->duration_ns : UINT64_MAX;
	uint64_t next_refresh = c->warm_end_ns + c->period_us * 1000;
	while (!cio_watch(STDOUT_FILENO) && !c->stop) {
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
	c->end_ns = osw_now_ns();
	process(c, UINT64_MAX);
	close_partial(c);
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

static void parse_recorded_params(struct ctx *c, const char *ver, bool have_T)
{
	const char *p;
	uint64_t v;
	if (!ver || strncmp(ver, "latscope-osnoise ", 17))
		return;
	if ((p = strstr(ver, "threshold_us=")) && sscanf(p + 13, "%" SCNu64, &v) == 1 &&
	    (!have_T || c->threshold_us < v))
		c->threshold_us = v;
	if ((p = strstr(ver, "period_us=")) && sscanf(p + 10, "%" SCNu64, &v) == 1)
		c->period_us = v;
	if ((p = strstr(ver, "runtime_us=")) && sscanf(p + 11, "%" SCNu64, &v) == 1)
		c->runtime_us = v;
	if ((p = strstr(ver, "no_workload=1")))
		c->no_workload = true;
	char cl[512];
	struct ps_cpuset set;
	if (!c->have_cpus && (p = strstr(ver, "cpus=")) && sscanf(p + 5, "%511s", cl) == 1 &&
	    !ps_cpulist(cl, &set)) {
		c->cpus = set;
		c->have_cpus = true;
	}
}

/* A file written by `osnoise record`: its workload event, or its parameters. */
static bool has_osnoise_data(struct pdr *r)
{
	const char *ver = pdr_info(r)->version;
	if (ver && !strncmp(ver, "latscope-osnoise ", 17))
		return true;
	for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
		const struct pdr_evsel *e = pdr_evsel(r, i);
		if (e->name && !strcmp(e->name, WREC_EVSEL_NAME))
			return true;
	}
	return false;
}

static int not_osnoise(struct ctx *c)
{
	fprintf(stderr, "latscope osnoise: '%s' has no osnoise data (no %s event, no "
			"latscope-osnoise parameters): replay reads files written by "
			"`latscope osnoise record`\n", c->input, WREC_EVSEL_NAME);
	return EXIT_ERR;
}

/*
 * The replay's set-up, at the first sample: a pipe, or a recording whose
 * writer was killed (its header is a checkpoint), carries its features as
 * records at the start of the data, read by then.  0, or an exit status.
 */
static int replay_setup(struct ctx *c, struct pdr *r, bool have_T, struct tpd **d)
{
	const struct pdr_info *info = pdr_info(r);
	if (!has_osnoise_data(r))
		return not_osnoise(c);
	parse_recorded_params(c, info->version, have_T);
	if (!c->have_cpus) {
		uint32_t n = info->nr_cpus_online ? info->nr_cpus_online : 1;
		memset(&c->cpus, 0, sizeof(c->cpus));
		for (uint32_t i = 0; i < n && i < PS_MAX_CPUS; i++)
			ps_cpuset_add(&c->cpus, i);
	}
	c->replaying = true;
	int err = setup_state(c);
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: %s\n", strerror(-err));
		return EXIT_ERR;
	}
	*d = pdr_tep(r) ? tpd_new(pdr_tep(r)) : NULL;
	c->attribution = *d != NULL;
	if (!*d)
		snprintf(c->attr_why, sizeof(c->attr_why), "'%s' has no tracepoint formats", c->input);
	if (c->mode == M_TRACE && !c->json)
		print_trace_header(stdout);
	return 0;
}

static int run_replay(struct ctx *c, bool have_T)
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
	if (!info->pipe && !info->unterminated && !has_osnoise_data(r)) {
		pdr_close(r);
		return not_osnoise(c);
	}
	struct tpd *d = NULL;
	struct pdr_event ev;
	bool any_wrec = false, set_up = false;
	while (!c->stop && !c->write_err && (err = pdr_next(r, &ev)) > 0) {
		if (ev.type != PDF_RECORD_SAMPLE || !ev.evsel || !ev.has_sample)
			continue;
		if (!set_up) {
			int rc = replay_setup(c, r, have_T, &d);
			if (rc) {
				pdr_close(r);
				free_state(c);
				return rc;
			}
			set_up = true;
		}
		c->replay_samples++;
		const struct pdr_sample *s = &ev.sample;
		if (!c->start_ns) {
			c->start_ns = s->time;
			c->warm_end_ns = s->time + c->warmup_ns;
			c->nw_next_ns = c->warm_end_ns;
		}
		if (s->time > c->end_ns)
			c->end_ns = s->time;
		if (ev.evsel->name && !strcmp(ev.evsel->name, WREC_EVSEL_NAME)) {
			struct osw_rec w;
			if (osw_rec_decode(s->raw, s->raw_size, &w) < 0) {
				c->bad_wrec++;
				continue;
			}
			int i = idx_of(c, w.cpu);
			if (i < 0)
				continue;	/* a CPU not asked for with -c */
			if (w.type == OSW_TID) {
				c->tids[i] = (int32_t)w.v[0];
				c->floor_of[i] = w.v[1];
				noise_set_workload(c->n, w.cpu, (int32_t)w.v[0]);
				continue;
			}
			if (!any_wrec && w.type == OSW_PERIOD_BEGIN) {
				any_wrec = true;
				if (c->warmup_ns)
					c->warm_end_ns = w.t1_ns + c->warmup_ns;
			}
			if (!c->no_workload)
				feed_wrec(c, &w);
			continue;
		}
		if (!d || ev.evsel->attr.type != PDF_TYPE_TRACEPOINT || !s->raw)
			continue;
		struct tpe e;
		memset(&e, 0, sizeof(e));
		err = tpd_decode(d, (int)ev.evsel->attr.config, s->raw, s->raw_size, &e);
		if (err == -ENOENT)
			continue;	/* an event the noise accounting does not use */
		if (err < 0) {
			c->undecoded++;
			continue;
		}
		e.time_ns = s->time;
		e.cpu = s->cpu;
		e.pid = (int32_t)s->pid;
		e.tid = (int32_t)s->tid;
		on_event(c, &e);
	}
	if (err < 0) {
		fprintf(stderr, "latscope osnoise: '%s': %s\n", c->input, pdr_strerror(r));
		tpd_free(d);
		pdr_close(r);
		free_state(c);
		return EXIT_ERR;
	}
	if (!set_up) {	/* no sample at all */
		int rc = replay_setup(c, r, have_T, &d);
		if (rc) {
			pdr_close(r);
			free_state(c);
			return rc;
		}
	}
	if (c->no_workload)
		nw_boundaries(c, c->end_ns + 1);
	const struct pdr_stats *st = pdr_stats(r);
	c->replay_lost = st->lost_events + st->lost_samples;
	c->unknown_id = st->unknown_id;
	c->bad_samples = st->bad_samples;
	c->out_of_order = st->out_of_order;
	c->forced = st->forced_flushes;
	close_partial(c);
	final_report(c);
	int rc = finish(c, c->stop ? EXIT_THRESHOLD : 0);
	tpd_free(d);
	cio_pdr_close(r, "latscope osnoise", c->input);
	free_state(c);
	return rc;
}

/* ---- kernel tracer ------------------------------------------------------------ */

static void feed_kernel_rec(struct ctx *c, const struct okt_rec *k)
{
	int i = idx_of(c, k->cpu);
	if (i < 0 || c->stop)
		return;
	if (!c->start_ns || k->ts_ns < c->start_ns)
		c->start_ns = k->ts_ns;
	if (k->ts_ns > c->end_ns)
		c->end_ns = k->ts_ns;
	if (!c->tids[i] && !strncmp(k->comm, "osnoise/", 8))
		c->tids[i] = k->pid;
	switch (k->kind) {
	case OKT_PERIOD: {
		struct noise_stats p;
		memset(&p, 0, sizeof(p));
		p.periods = 1;
		p.runtime_ns = k->runtime_us * 1000;
		p.noise_ns = k->noise_us * 1000;
		p.max_noise_ns = p.noise_ns;
		p.max_single_ns = k->max_single_us * 1000;
		p.hw_count = k->hw;
		p.count[NOISE_NMI] = k->nmi;
		p.count[NOISE_IRQ] = k->irq;
		p.count[NOISE_SOFTIRQ] = k->softirq;
		p.count[NOISE_THREAD] = k->thread;
		noise_add_period(c->n, k->cpu, k->ts_ns, &p);
		if (c->stop_total_us && k->noise_us > c->stop_total_us)
			set_stop(c, 2, k->cpu, p.noise_ns, k->ts_ns);
		break;
	}
	case OKT_SAMPLE: {
		struct noise_gap g;
		memset(&g, 0, sizeof(g));
		g.cpu = k->cpu;
		g.start_ns = k->start_ns;
		g.duration_ns = k->duration_ns;
		g.interference = k->interference;
		g.hw = !k->interference;
		sink_gap(c, &g);
		if (c->stop_us && k->duration_ns > c->stop_us * 1000)
			set_stop(c, 1, k->cpu, k->duration_ns, k->ts_ns);
		break;
	}
	default: {
		struct noise_win w;
		memset(&w, 0, sizeof(w));
		w.cls = k->kind == OKT_NMI ? NOISE_NMI : k->kind == OKT_IRQ ? NOISE_IRQ :
			k->kind == OKT_SOFTIRQ ? NOISE_SOFTIRQ : NOISE_THREAD;
		w.cpu = k->cpu;
		w.start_ns = k->start_ns;
		w.end_ns = k->start_ns + k->duration_ns;
		w.net_ns = k->duration_ns;
		w.id = k->id;
		const char *d = k->desc;
		while (*d == ' ')
			d++;
		snprintf(w.name, sizeof(w.name), "%s", k->kind == OKT_NMI ? "nmi" : d);
		noise_add_window(c->n, &w);
		break;
	}
	}
}

/* Split text into lines and feed the osnoise records; a partial last line
 * stays in c->kbuf. */
struct kbuf {
	char buf[65536];
	size_t len;
	uint64_t bad;
};

static void feed_kernel_text(struct ctx *c, struct kbuf *kb, const char *data, size_t n)
{
	while (n) {
		size_t room = sizeof(kb->buf) - 1 - kb->len;
		size_t take = n < room ? n : room;
		memcpy(kb->buf + kb->len, data, take);
		kb->len += take;
		data += take;
		n -= take;
		kb->buf[kb->len] = 0;
		char *start = kb->buf, *nl;
		while ((nl = strchr(start, '\n'))) {
			*nl = 0;
			struct okt_rec r;
			int err = okt_parse_line(start, &r);
			if (!err)
				feed_kernel_rec(c, &r);
			else if (err == -EINVAL)
				kb->bad++;
			start = nl + 1;
		}
		size_t rest = kb->len - (size_t)(start - kb->buf);
		if (rest == sizeof(kb->buf) - 1)
			rest = 0;	/* an absurdly long line: drop it */
		memmove(kb->buf, start, rest);
		kb->len = rest;
	}
}

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
	static struct kbuf kb;
	kb.len = kb.bad = 0;
	char buf[16384];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		feed_kernel_text(c, &kb, buf, n);
	feed_kernel_text(c, &kb, "\n", 1);
	if (f != stdin)
		fclose(f);
	if (kb.bad)
		fprintf(stderr, "latscope osnoise: %" PRIu64 " malformed osnoise lines skipped\n", kb.bad);
	c->bad_wrec += kb.bad;
	final_report(c);
	int rc = finish(c, c->stop ? EXIT_THRESHOLD : 0);
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
	static struct kbuf kb;
	char buf[16384];
	while (!cio_watch(STDOUT_FILENO) && !c->stop && osw_now_ns() < deadline) {
		long n = okt_read(k, buf, sizeof(buf));
		if (n < 0)
			break;
		if (n == 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			continue;
		}
		feed_kernel_text(c, &kb, buf, (size_t)n);
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
	bool have_T = false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-T") || !strncmp(argv[i], "--threshold", 11))
			have_T = true;
	optind = 1;
	int r = parse_args(c, argc - shift, argv + shift);
	if (r)
		return r > 0 ? 0 : EXIT_ERR;
	if (c->kernel_text)
		return run_kernel_text(c, c->kernel_text);
	if (c->kernel)
		return run_kernel(c);
	if (c->input)
		return run_replay(c, have_T);
	return run_live(c);
}
