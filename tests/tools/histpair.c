/* SPDX-License-Identifier: MIT */
/*
 * histpair - compare two recordings of the same tracepoint hits sample by
 * sample: our live run's -o file (A) and perf record's file (B), made at the
 * same time on the same machine.
 *
 *   histpair [--bound NS] [--hv-ok] [--list-gaps NS] A.perf.data B.perf.data FROM_NS UNTIL_NS
 *
 * Every tracepoint hit is written once per perf event attached to it, and
 * each copy is stamped when it is written, so A and B hold the same hits
 * with slightly different stamps.  histpair
 *
 *  0. moves FROM and UNTIL inwards to quiet points (no hit in either file
 *     within 100 us) and prints them ("window: FROM UNTIL"), so that both
 *     copies of every hit fall on the same side of the edges;
 *  1. aligns the hits: per CPU, A's hits in [FROM, UNTIL] (of the kinds both
 *     files recorded) must be B's hits on that CPU in the same order, equal
 *     in kind, task and payload, except that B's copy of a hit written with
 *     interrupts on may follow hits of an interrupt (hardirq, softirq or NMI
 *     context) taken between its two writes; the stamp gap of a hit is
 *     g = tB - tA;
 *  2. runs the latency trackers (lib/latency) on exactly those hits, A with
 *     A's stamps, B with B's, and pairs the samples per type and CPU in
 *     order: counts, victim, culprit (pid and prio) and timer offsets must be
 *     equal; each paired latency must be made of the same two hits on both
 *     sides, so that its difference is exactly g(end hit) - g(start hit);
 *  3. accepts a latency difference above --bound (default 1000 ns) only when
 *     it is explained by a hypervisor gap: a hit whose copies are further
 *     apart than the bound, in the direction of that CPU's normal gap (a
 *     pause between the two writes can only lengthen it), written with
 *     interrupts off (common_flags) so that no guest interrupt can run in
 *     between, and --hv-ok given (the caller saw no NMI in the window).
 *
 * Prints one line per CPU (hits, gap percentiles), one per histogram type,
 * and one per outlier; exits 0 when everything pairs, 1 when not, 2 on bad
 * input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latency.h"
#include "format/pdread.h"
#include "format/tpevent.h"

#define TRACE_FLAG_IRQS_OFF 0x01
#define TRACE_FLAG_IRQ_CTX 0x58	/* HARDIRQ | SOFTIRQ | NMI */
#define MAX_CPUS 256
#define QUIET_NS 100000

struct hit {
	struct tpevent t;
	size_t seq;		/* file order */
	int64_t gap;		/* tB - tA once aligned */
	uint64_t other_ns;	/* the other file's stamp once aligned */
	bool aligned;
};

struct file {
	const char *path;
	struct hit *h;
	size_t n, cap;
	bool has[TPEVENT_NR_KINDS];
	uint64_t lost_events, lost_samples;
	struct tpdecode_losses loss;		/* samples that did not decode */
	uint32_t nr_cpus;
};

static int load(struct file *f)
{
	struct pdread *r = NULL;
	struct tpdecode *d = NULL;
	struct pdread_event ev;
	int rc = pdread_open(&r, f->path, NULL);
	if (rc < 0) {
		fprintf(stderr, "histpair: %s: %s\n", f->path, r ? pdread_strerror(r) : strerror(-rc));
		pdread_close(r);
		return -1;
	}
	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.evsel || !ev.has_sample ||
		    ev.evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		if (!d) {
			if (!pdread_tep(r) || !(d = tpdecode_new(pdread_tep(r)))) {
				fprintf(stderr, "histpair: %s: no tracing data\n", f->path);
				pdread_close(r);
				return -1;
			}
			for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
				const struct pdread_evsel *e = pdread_evsel(r, i);
				if (e->attr.type == PDFORMAT_TYPE_TRACEPOINT)
					f->has[tpdecode_kind(d, (int)e->attr.config)] = true;
			}
		}
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 65536;
			struct hit *nh = realloc(f->h, f->cap * sizeof(*nh));
			if (!nh) {
				fprintf(stderr, "histpair: out of memory\n");
				exit(2);
			}
			f->h = nh;
		}
		struct hit *h = &f->h[f->n];
		memset(h, 0, sizeof(*h));
		if (tpdecode_decode_sample(d, &ev, &h->t, &f->loss) != 0)
			continue;
		h->seq = f->n;
		if (h->t.cpu >= MAX_CPUS)
			continue;
		if (h->t.cpu + 1 > f->nr_cpus)
			f->nr_cpus = h->t.cpu + 1;
		f->n++;
	}
	if (rc < 0) {
		fprintf(stderr, "histpair: %s: %s\n", f->path, pdread_strerror(r));
		tpdecode_free(d);
		pdread_close(r);
		return -1;
	}
	f->lost_events = pdread_stats(r)->lost_events;
	f->lost_samples = pdread_stats(r)->lost_samples;
	tpdecode_free(d);
	pdread_close(r);
	return 0;
}

/* Same hit: kind, task, flags and payload (everything but stamp and CPU).
 * The sample's pid/tid are looked up for each copy: when a dead task's pid
 * is released on another CPU between the two writes (its last sched_switch,
 * prev_state X), one copy says -1 (seen: tid 19717 vs -1). */
static bool same_hit(const struct tpevent *a, const struct tpevent *b)
{
	struct tpevent x = *a, y = *b;
	x.time_ns = y.time_ns = 0;
	x.cpu = y.cpu = 0;
	if (x.pid != y.pid && (x.pid == -1 || y.pid == -1))
		x.pid = y.pid = 0;
	if (x.tid != y.tid && (x.tid == -1 || y.tid == -1))
		x.tid = y.tid = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

struct samples {
	struct latency_sample *s;
	size_t n, cap;
};

static void on_sample(void *arg, const struct latency_sample *s)
{
	struct samples *v = arg;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 4096;
		struct latency_sample *ns = realloc(v->s, v->cap * sizeof(*ns));
		if (!ns) {
			fprintf(stderr, "histpair: out of memory\n");
			exit(2);
		}
		v->s = ns;
	}
	v->s[v->n++] = *s;
}

static int cmp_time(const void *pa, const void *pb)
{
	const struct hit *a = *(const struct hit *const *)pa, *b = *(const struct hit *const *)pb;
	if (a->t.time_ns != b->t.time_ns)
		return a->t.time_ns < b->t.time_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* Run the trackers over hits (already in feed order). */
static int run(struct hit **hits, size_t n, uint32_t nr_cpus, struct samples *out)
{
	struct latency_cfg cfg;
	struct latency *l;
	latency_cfg_default(&cfg, nr_cpus ? nr_cpus : 1);
	if (latency_new(&l, &cfg))
		return -1;
	latency_set_observer(l, on_sample, out);
	for (size_t i = 0; i < n; i++)
		latency_feed(l, &hits[i]->t);
	latency_free(l);
	return 0;
}

/* The aligned A hit stamped t (on cpu when cpu >= 0; kinds: 0 any). */
static struct hit *find_a(struct hit **ah, size_t n, uint64_t t, int cpu, bool wake_only)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (ah[m]->t.time_ns < t)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i < n && ah[i]->t.time_ns == t; i++) {
		const struct tpevent *e = &ah[i]->t;
		if (cpu >= 0 && (int)e->cpu != cpu)
			continue;
		if (wake_only && e->kind != TPEVENT_SCHED_WAKING && e->kind != TPEVENT_SCHED_WAKEUP &&
		    e->kind != TPEVENT_SCHED_WAKEUP_NEW)
			continue;
		if (!wake_only && e->kind != TPEVENT_SCHED_SWITCH)
			continue;
		return ah[i];
	}
	return NULL;
}

static int64_t median_gap[MAX_CPUS];

/* An abnormal copy gap that only a stopped vCPU explains. */
static bool hv_gap(const struct hit *h, int64_t bound)
{
	int64_t m = median_gap[h->t.cpu], g = h->gap;
	bool same_dir = m >= 0 ? g > m : g < m;
	return same_dir && llabs(g - m) > bound && (h->t.common_flags & TRACE_FLAG_IRQS_OFF);
}

int main(int argc, char **argv)
{
	int64_t bound = 1000;
	bool hv_ok = false;
	int64_t list_gaps = 0;
	int ai = 1;
	for (; ai < argc && argv[ai][0] == '-' && argv[ai][1] == '-'; ai++) {
		if (!strcmp(argv[ai], "--bound") && ai + 1 < argc)
			bound = strtoll(argv[++ai], NULL, 10);
		else if (!strcmp(argv[ai], "--list-gaps") && ai + 1 < argc)
			list_gaps = strtoll(argv[++ai], NULL, 10);
		else if (!strcmp(argv[ai], "--hv-ok"))
			hv_ok = true;
		else
			break;
	}
	if (argc - ai != 4) {
		fprintf(stderr, "usage: histpair [--bound NS] [--hv-ok] A.data B.data FROM_NS UNTIL_NS\n");
		return 2;
	}
	struct file fa = { .path = argv[ai] }, fb = { .path = argv[ai + 1] };
	uint64_t from = strtoull(argv[ai + 2], NULL, 10), until = strtoull(argv[ai + 3], NULL, 10);
	if (load(&fa) || load(&fb))
		return 2;
	if (fa.lost_events || fa.lost_samples || fb.lost_events || fb.lost_samples) {
		printf("lost events: A %" PRIu64 "/%" PRIu64 ", B %" PRIu64 "/%" PRIu64 "\n",
		       fa.lost_events, fa.lost_samples, fb.lost_events, fb.lost_samples);
		return 1;
	}
	if (fa.loss.no_raw || fa.loss.bad_raw || fb.loss.no_raw || fb.loss.bad_raw) {
		printf("undecodable samples (no payload/bad payload): A %" PRIu64 "/%" PRIu64
		       ", B %" PRIu64 "/%" PRIu64 "\n", fa.loss.no_raw, fa.loss.bad_raw, fb.loss.no_raw,
		       fb.loss.bad_raw);
		return 1;
	}
	uint32_t nr_cpus = fa.nr_cpus > fb.nr_cpus ? fa.nr_cpus : fb.nr_cpus;
	int bad = 0;

	/* 0. quiet edges: move FROM and UNTIL inwards to the middle of the first
	 * and last stretch of 2 * QUIET_NS without any hit in either file, so
	 * that both copies of every hit fall on the same side of the edges
	 * (checked below: B's hits in the window are exactly the paired ones) */
	{
		size_t nt = 0;
		uint64_t *ts = malloc((fa.n + fb.n + 1) * sizeof(*ts));
		if (!ts)
			return 2;
		for (size_t i = 0; i < fa.n; i++)
			if (fb.has[fa.h[i].t.kind])
				ts[nt++] = fa.h[i].t.time_ns;
		for (size_t i = 0; i < fb.n; i++)
			if (fa.has[fb.h[i].t.kind])
				ts[nt++] = fb.h[i].t.time_ns;
		qsort(ts, nt, sizeof(*ts), cmp_u64);
		uint64_t f2 = 0, u2 = 0;
		for (size_t i = 1; i < nt; i++) {
			uint64_t mid = ts[i - 1] + (ts[i] - ts[i - 1]) / 2;
			if (ts[i] - ts[i - 1] < 2 * QUIET_NS || mid < from || mid > until)
				continue;
			if (!f2)
				f2 = mid;
			u2 = mid;
		}
		free(ts);
		if (!f2 || u2 <= f2) {
			printf("no stretch of %d us without events in the window\n", 2 * QUIET_NS / 1000);
			return 1;
		}
		from = f2;
		until = u2;
		printf("window: %" PRIu64 " %" PRIu64 "\n", from, until);
	}

	/* 1. align per CPU */
	size_t nal = 0;
	struct hit **ah = calloc(fa.n + 1, sizeof(*ah)), **bh = calloc(fa.n + 1, sizeof(*bh));
	int64_t *gaps = calloc(fa.n + 1, sizeof(*gaps));
	if (!ah || !bh || !gaps)
		return 2;
	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		size_t na = 0, nb = 0, j = 0, i0 = nal, nested = 0;
		struct hit **bc = calloc(fb.n + 1, sizeof(*bc));
		if (!bc)
			return 2;
		for (size_t i = 0; i < fb.n; i++)
			if (fb.h[i].t.cpu == cpu && fa.has[fb.h[i].t.kind])
				bc[nb++] = &fb.h[i];
		bool started = false;
		for (size_t i = 0; i < fa.n; i++) {
			struct hit *a = &fa.h[i];
			if (a->t.cpu != cpu || a->t.time_ns < from || a->t.time_ns > until ||
			    !fb.has[a->t.kind])
				continue;
			if (!started) {
				/* B's copy of the first hit: same hit, nearest stamp */
				uint64_t best = UINT64_MAX;
				for (size_t k = 0; k < nb; k++) {
					uint64_t dt = bc[k]->t.time_ns > a->t.time_ns ?
							      bc[k]->t.time_ns - a->t.time_ns :
							      a->t.time_ns - bc[k]->t.time_ns;
					if (dt < best && same_hit(&bc[k]->t, &a->t)) {
						best = dt;
						j = k;
					}
				}
				if (best > 1000000) {
					printf("cpu%u: the first hit at %" PRIu64 " (%s) is not in %s\n",
					       cpu, a->t.time_ns, tpevent_kind_name(a->t.kind), fb.path);
					bad++;
					break;
				}
				started = true;
			}
			/* B's copy is the next unused B hit, or, for a hit written with
			 * interrupts on, a later one: an interrupt taken between the two
			 * writes puts its own hits (hardirq/softirq/NMI context) before
			 * B's copy (seen: sched_process_exit, 66 us apart around an
			 * hrtimer interrupt) */
			while (j < nb && bc[j]->aligned)
				j++;
			size_t k = j;
			bool nested_ok = !(a->t.common_flags & TRACE_FLAG_IRQS_OFF);
			while (k < nb && k < j + 256 && (bc[k]->aligned || !same_hit(&bc[k]->t, &a->t))) {
				if (!bc[k]->aligned && !(nested_ok && (bc[k]->t.common_flags & TRACE_FLAG_IRQ_CTX)))
					k = nb;
				else
					k++;
			}
			if (k >= nb || k >= j + 256) {
				printf("cpu%u: hit %zu at %" PRIu64 " (%s) differs from the other file's "
				       "(%s at %" PRIu64 ")\n", cpu, na, a->t.time_ns,
				       tpevent_kind_name(a->t.kind),
				       j < nb ? tpevent_kind_name(bc[j]->t.kind) : "none",
				       j < nb ? bc[j]->t.time_ns : 0);
				bad++;
				break;
			}
			if (k != j)
				nested++;
			struct hit *b = bc[k];
			a->gap = b->gap = (int64_t)(b->t.time_ns - a->t.time_ns);
			a->other_ns = b->t.time_ns;
			b->other_ns = a->t.time_ns;
			a->aligned = b->aligned = true;
			ah[nal] = a;
			bh[nal] = b;
			gaps[na] = a->gap;
			if (list_gaps && llabs(a->gap) > list_gaps)
				printf("gap: cpu%u %" PRIu64 " %s flags %#x pc %#x gap %" PRId64 " ns\n",
				       cpu, a->t.time_ns, tpevent_kind_name(a->t.kind), a->t.common_flags,
				       a->t.common_preempt_count, a->gap);
			nal++;
			na++;
		}
		size_t nbw = 0;
		for (size_t k = 0; k < nb; k++)
			nbw += bc[k]->t.time_ns >= from && bc[k]->t.time_ns <= until;
		free(bc);
		if (!bad && nbw != na) {
			printf("cpu%u: %zu hits in the window, %zu in the other file's\n", cpu, na, nbw);
			bad++;
		}
		if (!na)
			continue;
		qsort(gaps, na, sizeof(*gaps), cmp_i64);
		median_gap[cpu] = gaps[na / 2];
		printf("hits: cpu%u %zu paired, stamp gap (other - ours) min %" PRId64 " p50 %" PRId64
		       " p99 %" PRId64 " p99.99 %" PRId64 " max %" PRId64 " ns; %zu with interrupt hits "
		       "between the two copies\n", cpu, na, gaps[0], gaps[na / 2], gaps[na * 99 / 100],
		       gaps[(size_t)((double)na * 0.9999)], gaps[na - 1], nested);
		(void)i0;
	}
	free(gaps);
	if (bad)
		return 1;

	/* 2. the trackers on the same hits, each with its own stamps */
	qsort(ah, nal, sizeof(*ah), cmp_time);
	qsort(bh, nal, sizeof(*bh), cmp_time);
	struct samples sa = { 0 }, sb = { 0 };
	if (run(ah, nal, nr_cpus, &sa) || run(bh, nal, nr_cpus, &sb))
		return 2;

	int outliers = 0, explained = 0;
	char *obuf = NULL;
	size_t olen = 0;
	FILE *of = open_memstream(&obuf, &olen);
	if (!of)
		return 2;
	for (int type = 0; type < HSET_NR_KINDS; type++) {
		bool any = false;
		for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
			size_t i = 0, j = 0, na = 0, nb = 0;
			int64_t maxd = 0;
			for (size_t k = 0; k < sa.n; k++)
				na += sa.s[k].type == (enum hset_kind)type && sa.s[k].cpu == cpu;
			for (size_t k = 0; k < sb.n; k++)
				nb += sb.s[k].type == (enum hset_kind)type && sb.s[k].cpu == cpu;
			if (!na && !nb)
				continue;
			if (!any)
				printf("%s:", hset_kind_name((enum hset_kind)type));
			any = true;
			printf(" cpu%u %zu %s %zu", cpu, na, na == nb ? "=" : "!=", nb);
			if (na != nb)
				bad++;
			for (size_t n = 0; n < na && n < nb; n++, i++, j++) {
				while (sa.s[i].type != (enum hset_kind)type || sa.s[i].cpu != cpu)
					i++;
				while (sb.s[j].type != (enum hset_kind)type || sb.s[j].cpu != cpu)
					j++;
				const struct latency_sample *x = &sa.s[i], *y = &sb.s[j];
				if (x->pid != y->pid || x->prio != y->prio ||
				    x->culprit_pid != y->culprit_pid ||
				    x->culprit_prio != y->culprit_prio ||
				    x->timer_offset_ns != y->timer_offset_ns) {
					printf(" [sample %zu: victim %d/%d vs %d/%d, culprit %d/%d vs "
					       "%d/%d, timer offset %" PRId64 " vs %" PRId64 "]",
					       n, x->pid, x->prio, y->pid, y->prio, x->culprit_pid,
					       x->culprit_prio, y->culprit_pid, y->culprit_prio,
					       x->timer_offset_ns, y->timer_offset_ns);
					bad++;
					continue;
				}
				int64_t d = y->latency_ns - x->latency_ns;
				if (type == HSET_MISSED_TIMER) {
					if (d) {
						printf(" [sample %zu: %" PRId64 " vs %" PRId64 "]", n,
						       x->latency_ns, y->latency_ns);
						bad++;
					}
					continue;
				}
				if (llabs(d) > llabs(maxd))
					maxd = d;
				/* both sides made of the same two hits? */
				struct hit *end = find_a(ah, nal, x->time_ns, (int)cpu, false);
				int64_t wa = x->latency_ns - x->timer_offset_ns;
				int64_t wb = y->latency_ns - y->timer_offset_ns;
				struct hit *start = wa > 0 ? find_a(ah, nal, x->time_ns - (uint64_t)wa, -1,
								   true) : NULL;
				if (!end || !start || end->other_ns != y->time_ns ||
				    start->other_ns != y->time_ns - (uint64_t)wb) {
					if (llabs(d) > bound) {
						printf(" [sample %zu at %" PRIu64 ": %" PRId64 " vs %" PRId64
						       ", not made of the same hits]", n, x->time_ns,
						       x->latency_ns, y->latency_ns);
						bad++;
					}
					continue;
				}
				if (llabs(d) <= bound)
					continue;
				outliers++;
				bool ok = hv_ok && ((hv_gap(end, bound / 2) && llabs(end->gap -
						median_gap[cpu]) >= llabs(d) - bound / 2) ||
					  (hv_gap(start, bound / 2) && llabs(start->gap -
						median_gap[start->t.cpu]) >= llabs(d) - bound / 2));
				fprintf(of, "outlier: %s cpu%u sample %zu at %" PRIu64 ": %" PRId64 " vs %"
				       PRId64 " ns (%+" PRId64 "): %s hit on cpu%u gap %" PRId64
				       " ns (flags %#x), %s hit on cpu%u gap %" PRId64
				       " ns (flags %#x), cpu median %" PRId64 ": %s",
				       hset_kind_name((enum hset_kind)type), cpu, n, x->time_ns,
				       x->latency_ns, y->latency_ns, d, tpevent_kind_name(start->t.kind),
				       start->t.cpu, start->gap, start->t.common_flags,
				       tpevent_kind_name(end->t.kind), end->t.cpu, end->gap,
				       end->t.common_flags, median_gap[cpu],
				       ok ? "explained (the vCPU stopped between the two writes of one hit, "
					    "interrupts off)" : "NOT explained");
				fputc('\n', of);
				if (ok)
					explained++;
				else
					bad++;
			}
			printf(" (max diff %+" PRId64 " ns)", maxd);
		}
		if (any)
			printf("\n");
	}
	fclose(of);
	fputs(obuf, stdout);
	free(obuf);
	printf("paired %zu hits; %d outliers beyond %" PRId64 " ns, %d explained by hypervisor gaps\n",
	       nal, outliers, bound, explained);
	free(ah);
	free(bh);
	free(sa.s);
	free(sb.s);
	free(fa.h);
	free(fb.h);
	return bad ? 1 : 0;
}
