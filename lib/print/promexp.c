/* SPDX-License-Identifier: MIT */
/* promexp.c - Prometheus text exposition (see promexp.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "print/promexp.h"

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
