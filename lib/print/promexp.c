/* SPDX-License-Identifier: MIT */
/* promexp.c - Prometheus text exposition (see promexp.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/dtlstat.h"
#include "engine/noise.h"
#include "engine/noisemon.h"
#include "format/dtl.h"
#include "print/promexp.h"
#include "report/report.h"

const uint64_t promexp_default_bounds_ns[] = {
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000,
};
const size_t promexp_default_nr_bounds = sizeof(promexp_default_bounds_ns) / sizeof(promexp_default_bounds_ns[0]);

int promexp_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		int r;
		if (*s == '\\')
			r = fputs("\\\\", f);
		else if (*s == '"')
			r = fputs("\\\"", f);
		else if (*s == '\n')
			r = fputs("\\n", f);
		else
			r = fputc((unsigned char)*s, f);
		if (r == EOF)
			return -EIO;
	}
	return 0;
}

/* Seconds from ns, as Prometheus reads them back exactly enough. */
static int put_value(FILE *f, double v)
{
	if (isnan(v))
		return fputs("NaN", f) == EOF ? -EIO : 0;
	if (isinf(v))
		return fputs(v > 0 ? "+Inf" : "-Inf", f) == EOF ? -EIO : 0;
	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		return fprintf(f, "%.0f", v) < 0 ? -EIO : 0;
	return fprintf(f, "%.15g", v) < 0 ? -EIO : 0;	/* a Unix time keeps its microseconds */
}

int promexp_family(FILE *f, const char *name, const char *type, const char *help)
{
	return fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type) < 0 ? -EIO : 0;
}

int promexp_sample(FILE *f, const char *name, const struct promexp_label *labels, size_t nr_labels,
		   double value)
{
	if (fputs(name, f) == EOF)
		return -EIO;
	for (size_t i = 0; i < nr_labels; i++) {
		if (fprintf(f, "%s%s=\"", i ? "," : "{", labels[i].name) < 0 ||
		    promexp_escape(f, labels[i].value) < 0 || fputc('"', f) == EOF)
			return -EIO;
	}
	if ((nr_labels && fputc('}', f) == EOF) || fputc(' ', f) == EOF || put_value(f, value) < 0 ||
	    fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

static void seconds_label(char *buf, size_t n, uint64_t ns)
{
	/* exact decimal seconds: ns / 1e9 without float rounding */
	snprintf(buf, n, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
	char *e = buf + strlen(buf) - 1;
	while (*e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
}

size_t promexp_first_bad_bound(const struct lhist_cfg *g, const uint64_t *bounds_ns, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int64_t off = (int64_t)bounds_ns[i] - g->lo_ns;
		if ((i && bounds_ns[i] <= bounds_ns[i - 1]) || off < 0 || (uint64_t)off % g->bucket_ns)
			return i;
	}
	return nr;
}

int promexp_hset(FILE *f, const char *prefix, const struct hset *set, const bool kinds[HSET_NR_KINDS],
		 const uint64_t *bounds_ns, size_t nr)
{
	const struct lhist_cfg *g = hset_geometry(set);
	char name[128], le[40], cpu[16];
	int err = 0;

	if (!bounds_ns) {
		bounds_ns = promexp_default_bounds_ns;
		nr = promexp_default_nr_bounds;
	}
	if (nr > PROMEXP_MAX_BOUNDS || promexp_first_bad_bound(g, bounds_ns, nr) < nr)
		return -EINVAL;
	snprintf(name, sizeof(name), "%s_latency_seconds", prefix);
	err = promexp_family(f, name, "histogram", "latency_hist-style latency per kind and CPU "
			     "(a bucket counts the samples below its bound)");
	for (int k = 0; !err && k < HSET_NR_KINDS; k++) {
		if (!kinds[k])
			continue;
		for (uint32_t c = 0; !err && c < hset_nr_cpus(set); c++) {
			const struct lhist *h = hset_hist(set, k, c);
			if (!h || !h->total)
				continue;
			snprintf(cpu, sizeof(cpu), "%u", c);
			uint64_t cum = h->below;
			uint32_t b = 0;
			snprintf(name, sizeof(name), "%s_latency_seconds_bucket", prefix);
			for (size_t i = 0; !err && i < nr; i++) {
				uint32_t upto = (uint32_t)(((uint64_t)((int64_t)bounds_ns[i] - g->lo_ns)) / g->bucket_ns);
				if (upto > g->nr_buckets)
					upto = g->nr_buckets;
				for (; b < upto; b++)
					cum += h->counts[b];
				seconds_label(le, sizeof(le), bounds_ns[i]);
				struct promexp_label l[] = { { "kind", hset_kind_name(k) }, { "cpu", cpu },
							     { "le", le } };
				err = promexp_sample(f, name, l, 3, (double)cum);
			}
			/* +Inf and _count from the buckets, not h->total: a set read
			 * from maps that the kernel fills meanwhile (bpf) may have a
			 * sample in a bucket and not yet in the total; the
			 * exposition stays monotonic either way */
			for (; b < g->nr_buckets; b++)
				cum += h->counts[b];
			cum += h->above;
			struct promexp_label inf[] = { { "kind", hset_kind_name(k) }, { "cpu", cpu },
						       { "le", "+Inf" } };
			if (!err)
				err = promexp_sample(f, name, inf, 3, (double)cum);
			struct promexp_label l2[] = { { "kind", hset_kind_name(k) }, { "cpu", cpu } };
			snprintf(name, sizeof(name), "%s_latency_seconds_sum", prefix);
			if (!err)
				err = promexp_sample(f, name, l2, 2, (double)h->sum_ns / 1e9);
			snprintf(name, sizeof(name), "%s_latency_seconds_count", prefix);
			if (!err)
				err = promexp_sample(f, name, l2, 2, (double)cum);
		}
	}
	snprintf(name, sizeof(name), "%s_latency_max_seconds", prefix);
	if (!err)
		err = promexp_family(f, name, "gauge", "the largest latency per kind and CPU since the "
				     "start or the last reset");
	for (int k = 0; !err && k < HSET_NR_KINDS; k++)
		for (uint32_t c = 0; kinds[k] && !err && c < hset_nr_cpus(set); c++) {
			const struct hset_max *m = hset_max(set, k, c);
			if (!m->valid)
				continue;
			snprintf(cpu, sizeof(cpu), "%u", c);
			struct promexp_label l[] = { { "kind", hset_kind_name(k) }, { "cpu", cpu } };
			err = promexp_sample(f, name, l, 2, (double)m->latency_ns / 1e9);
		}
	snprintf(name, sizeof(name), "%s_latency_max_info", prefix);
	if (!err)
		err = promexp_family(f, name, "gauge", "the worst case's victim and culprit (value 1)");
	for (int k = 0; !err && k < HSET_NR_KINDS; k++)
		for (uint32_t c = 0; kinds[k] && !err && c < hset_nr_cpus(set); c++) {
			const struct hset_max *m = hset_max(set, k, c);
			if (!m->valid)
				continue;
			char vpid[16], vprio[16], cpid[16] = "", cprio[16] = "";
			snprintf(cpu, sizeof(cpu), "%u", c);
			snprintf(vpid, sizeof(vpid), "%d", m->pid);
			snprintf(vprio, sizeof(vprio), "%d", m->pid >= 0 ? hset_user_prio(m->prio) : 0);
			if (m->has_culprit) {
				snprintf(cpid, sizeof(cpid), "%d", m->culprit_pid);
				snprintf(cprio, sizeof(cprio), "%d", hset_user_prio(m->culprit_prio));
			}
			struct promexp_label l[] = {
				{ "kind", hset_kind_name(k) }, { "cpu", cpu },
				{ "victim_comm", m->pid >= 0 ? m->comm : "" }, { "victim_pid", vpid },
				{ "victim_prio", vprio },
				{ "culprit_comm", m->has_culprit ? m->culprit_comm : "" },
				{ "culprit_pid", cpid }, { "culprit_prio", cprio },
			};
			err = promexp_sample(f, name, l, 8, 1);
		}
	return err;
}

/* ---- the DTL and noise families of the monitor ---------------------------------------- */

/* One vCPU's samples of a DTL family: d is a CPU with entries, cpu its
 * label, k the caller's index (which family, which reason table). */
typedef int (*dtl_cpu_fn)(const struct promexp_dtl_losses *l, FILE *f, const struct dtlstat_cpu *d,
			  const char *cpu, size_t k);

/* fn for every vCPU of s that has entries, in CPU order; the first error ends it. */
static int each_dtl_cpu(const struct dtlstat *s, const struct promexp_dtl_losses *l, FILE *f, dtl_cpu_fn fn,
			size_t k)
{
	char cpu[16];
	int err;

	for (uint32_t i = 0; i < dtlstat_nr_cpus(s); i++) {
		const struct dtlstat_cpu *d = dtlstat_cpu(s, i);
		if (!d || !d->entries)
			continue;
		snprintf(cpu, sizeof(cpu), "%u", d->cpu);
		if ((err = fn(l, f, d, cpu, k)))
			return err;
	}
	return 0;
}

static const struct {
	const char *name, *type, *help;
} dtl_fam[] = {
	{ "latscope_dtl_entries_total", "counter", "DTL entries: the hypervisor's dispatches of the vCPU" },
	{ "latscope_dtl_hypervisor_seconds_total", "counter",
	  "time the vCPU waited for the hypervisor (enqueue_to_dispatch + ready_to_enqueue)" },
	{ "latscope_dtl_dispatch_delay_max_seconds", "gauge",
	  "the largest enqueue_to_dispatch time since the start or the last reset" },
};

static int dtl_fam_sample(const struct promexp_dtl_losses *l0, FILE *f, const struct dtlstat_cpu *d,
			  const char *cpu, size_t k)
{
	(void)l0;
	uint64_t hz = d->tbi.tb_freq;
	double v = k == 0 ? (double)d->entries
		 : !hz ? NAN
		 : k == 1 ? (double)dtl_ticks_to_ns(d->stolen_tb, hz) / 1e9
			  : (double)dtl_ticks_to_ns(d->h[DTLSTAT_E2D].max, hz) / 1e9;
	struct promexp_label l[] = { { "cpu", cpu } };
	return promexp_sample(f, dtl_fam[k].name, l, 1, v);
}

static int dtl_loss_samples(const struct promexp_dtl_losses *lo, FILE *f, const struct dtlstat_cpu *d,
			    const char *cpu, size_t k)
{
	(void)k;
	bool in = d->cpu < DTLSTAT_MAX_CPUS;
	const struct {
		const char *cause;
		double v;
	} ev[] = {
		{ "ring_full", (double)(in && lo->ring_full ? lo->ring_full[d->cpu] : 0) },
		{ "aux_wrap", (double)d->aux_wraps },
		{ "aux_overrun", (double)d->aux_holes },
		{ "dtl_stopped", in && lo->stopped && lo->stopped[d->cpu] ? 1.0 : 0.0 },
	};
	int err;

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct promexp_label l[] = { { "cpu", cpu }, { "cause", ev[i].cause } };
		if ((err = promexp_sample(f, "latscope_dtl_loss_events_total", l, 2, ev[i].v)))
			return err;
	}
	return 0;
}

static const struct {
	const char *name, *help;
	bool preempt;
} dtl_why[] = {
	{ "latscope_dtl_dispatches_total", "dispatches by the reason the hypervisor gave", false },
	{ "latscope_dtl_preemptions_total", "preemptions by the reason the hypervisor gave", true },
};

static int dtl_reason_samples(const struct promexp_dtl_losses *l0, FILE *f, const struct dtlstat_cpu *d,
			      const char *cpu, size_t k)
{
	(void)l0;
	int err;

	for (unsigned code = 0; code < 256; code++) {
		uint64_t n = dtl_why[k].preempt ? d->preempt[code] : d->dispatch[code];
		char buf[32];
		if (!n)
			continue;
		struct promexp_label l[] = {
			{ "cpu", cpu },
			{ "reason", dtl_why[k].preempt ? dtl_preempt_reason_str(code, buf) : dtl_dispatch_reason_str(code, buf) },
		};
		if ((err = promexp_sample(f, dtl_why[k].name, l, 2, (double)n)))
			return err;
	}
	return 0;
}

int promexp_dtl(FILE *f, const struct dtlstat *s, const struct promexp_dtl_losses *l)
{
	int err;

	if ((err = promexp_family(f, "latscope_dtl_lost_total", "counter",
				  "DTL data lost: events the rings dropped, AUX chunks the kernel truncated, "
				  "chunks the counters refused, reads that failed")) ||
	    (err = promexp_sample(f, "latscope_dtl_lost_total", NULL, 0, (double)l->lost)))
		return err;
	for (size_t k = 0; k < sizeof(dtl_fam) / sizeof(dtl_fam[0]); k++)
		if ((err = promexp_family(f, dtl_fam[k].name, dtl_fam[k].type, dtl_fam[k].help)) ||
		    (err = each_dtl_cpu(s, l, f, dtl_fam_sample, k)))
			return err;
	if ((err = promexp_family(f, "latscope_dtl_loss_events_total", "counter",
				  "events that lost DTL entries in the kernel, at least one each, how many not "
				  "known: polls that found the hypervisor's 85-entry ring overrun (ring_full), "
				  "wraps of the driver's AUX buffer (aux_wrap), holes where the driver wrote over "
				  "AUX data before it was read (aux_overrun), and 1 once the kernel stopped the "
				  "CPU's DTL because its AUX buffer filled up (dtl_stopped)")) ||
	    (err = each_dtl_cpu(s, l, f, dtl_loss_samples, 0)))
		return err;
	for (size_t k = 0; k < sizeof(dtl_why) / sizeof(dtl_why[0]); k++)
		if ((err = promexp_family(f, dtl_why[k].name, "counter", dtl_why[k].help)) ||
		    (err = each_dtl_cpu(s, l, f, dtl_reason_samples, k)))
			return err;
	return 0;
}

int promexp_noise(FILE *f, const struct noisemon_cpu *n, size_t nr)
{
	char cpu[16];
	int err;
	/* the osnoise document's class keys: hw, then the engine's classes */
	_Static_assert(NOISE_NR_CLASSES + 1 == REPORT_NOISE_CLASSES, "hw and the engine's classes");
	static const struct {
		const char *name, *type, *help;
		size_t off;
		bool ns;
	} per_cpu[] = {
		{ "latscope_noise_periods_total", "counter", "finished periods of the noise busy loop",
		  offsetof(struct noisemon_cpu, periods), false },
		{ "latscope_noise_runtime_seconds_total", "counter",
		  "time the noise busy loop ran (--noise: runtime out of every period)",
		  offsetof(struct noisemon_cpu, runtime_ns), true },
		{ "latscope_noise_seconds_total", "counter",
		  "its gaps at or above the threshold: the OS noise it saw",
		  offsetof(struct noisemon_cpu, noise_ns), true },
		{ "latscope_noise_gaps_total", "counter", "gaps at or above the threshold",
		  offsetof(struct noisemon_cpu, gaps), false },
		{ "latscope_noise_max_single_seconds", "gauge",
		  "the largest single gap since the start or the last reset",
		  offsetof(struct noisemon_cpu, max_single_ns), true },
	};

	for (size_t k = 0; k < sizeof(per_cpu) / sizeof(per_cpu[0]); k++) {
		if ((err = promexp_family(f, per_cpu[k].name, per_cpu[k].type, per_cpu[k].help)))
			return err;
		for (size_t i = 0; i < nr; i++) {
			uint64_t v = *(const uint64_t *)((const char *)&n[i] + per_cpu[k].off);
			snprintf(cpu, sizeof(cpu), "%u", n[i].cpu);
			struct promexp_label l[] = { { "cpu", cpu } };
			if ((err = promexp_sample(f, per_cpu[k].name, l, 1, per_cpu[k].ns ? (double)v / 1e9 : (double)v)))
				return err;
		}
	}
	static const struct {
		const char *name, *help;
		bool events;
	} per_class[] = {
		{ "latscope_noise_class_seconds_total", "net time of each class of interference inside "
		  "the gaps (hw: gaps with none: the hardware, or the hypervisor in a VM)", false },
		{ "latscope_noise_class_events_total", "interference entries of each class while the busy "
		  "loop ran (hw: gaps with no interference)", true },
	};
	for (size_t k = 0; k < sizeof(per_class) / sizeof(per_class[0]); k++) {
		if ((err = promexp_family(f, per_class[k].name, "counter", per_class[k].help)))
			return err;
		for (size_t i = 0; i < nr; i++) {
			snprintf(cpu, sizeof(cpu), "%u", n[i].cpu);
			for (int j = 0; j <= NOISE_NR_CLASSES; j++) {
				bool hw = j == NOISE_NR_CLASSES;
				struct promexp_label l[] = { { "cpu", cpu }, { "class", report_noise_class_keys[hw ? 0 : j + 1] } };
				double v = per_class[k].events ? (double)(hw ? n[i].hw_count : n[i].count[j])
							       : (double)(hw ? n[i].hw_ns : n[i].net_ns[j]) / 1e9;
				if ((err = promexp_sample(f, per_class[k].name, l, 2, v)))
					return err;
			}
		}
	}
	return 0;
}

/* latscope_timerlat_latency_seconds's buckets of one series: the counts of
 * the 1 us buckets below each bound, cumulated; +Inf and _count the total. */
static int tlat_hist(FILE *f, const struct promexp_tlat *t, const uint64_t *bounds_ns, size_t nr)
{
	char cpu[16], le[40];
	snprintf(cpu, sizeof(cpu), "%u", t->cpu);
	uint64_t cum = 0;
	uint32_t i = 0;
	int err;
	for (size_t b = 0; b < nr; b++) {
		uint64_t edge = bounds_ns[b] / 1000;	/* buckets below this one */
		for (; i < t->nr_buckets && i < edge; i++)
			cum += t->counts[i];
		snprintf(le, sizeof(le), "%.9g", (double)bounds_ns[b] / 1e9);
		struct promexp_label l[] = { { "cpu", cpu }, { "context", t->context }, { "le", le } };
		if ((err = promexp_sample(f, "latscope_timerlat_latency_seconds_bucket", l, 3, (double)cum)))
			return err;
	}
	for (; i < t->nr_buckets; i++)
		cum += t->counts[i];
	cum += t->over;
	struct promexp_label l[] = { { "cpu", cpu }, { "context", t->context }, { "le", "+Inf" } };
	if ((err = promexp_sample(f, "latscope_timerlat_latency_seconds_bucket", l, 3, (double)cum)))
		return err;
	if ((err = promexp_sample(f, "latscope_timerlat_latency_seconds_sum", l, 2, (double)t->sum_ns / 1e9)))
		return err;
	return promexp_sample(f, "latscope_timerlat_latency_seconds_count", l, 2, (double)cum);
}

int promexp_timerlat(FILE *f, const struct promexp_tlat *s, size_t n, const uint64_t *bounds_ns, size_t nr)
{
	if (!bounds_ns) {
		bounds_ns = promexp_default_bounds_ns;
		nr = promexp_default_nr_bounds;
	}
	for (size_t b = 0; b < nr; b++)
		if (bounds_ns[b] % 1000 || (b && bounds_ns[b] <= bounds_ns[b - 1]))
			return -EINVAL;
	int err = promexp_family(f, "latscope_timerlat_latency_seconds", "histogram",
				 "the kernel timerlat tracer's latency of each activation: the timer's expiry to its "
				 "IRQ handler (context irq), to the timerlat thread (thread), to the return to user "
				 "space (user)");
	for (size_t i = 0; !err && i < n; i++)
		err = tlat_hist(f, &s[i], bounds_ns, nr);
	static const struct { const char *name, *type, *help; } fam[] = {
		{ "latscope_timerlat_latency_max_seconds", "gauge",
		  "the largest timerlat latency since the start or the last reset" },
		{ "latscope_timerlat_missed_total", "counter",
		  "activations with no sample (gaps in the kernel's activation numbers)" },
	};
	for (size_t k = 0; !err && k < 2; k++) {
		err = promexp_family(f, fam[k].name, fam[k].type, fam[k].help);
		for (size_t i = 0; !err && i < n; i++) {
			char cpu[16];
			snprintf(cpu, sizeof(cpu), "%u", s[i].cpu);
			struct promexp_label l[] = { { "cpu", cpu }, { "context", s[i].context } };
			err = promexp_sample(f, fam[k].name, l, 2, k ? (double)s[i].missed : (double)s[i].max_ns / 1e9);
		}
	}
	return err;
}
