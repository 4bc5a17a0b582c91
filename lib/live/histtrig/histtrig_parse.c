/* SPDX-License-Identifier: MIT */
/* histtrig_parse.c - the kernel hist-trigger backend's parser: the text of
 * its two hists into a histogram set (histtrig_parse, see histtrig.h).
 * Pure: no tracefs, no I/O. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/histtrig.h"

/* ---- parsing the hist text ------------------------------------------------ */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* An unsigned decimal after optional blanks; -EINVAL / -ERANGE. */
static int num_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_ws(*pp);
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*pp = p;
	return 0;
}

/* A signed decimal (the kernel prints s32 fields with %d). */
static int num_i32(const char **pp, int32_t *v)
{
	const char *p = skip_ws(*pp);
	bool neg = *p == '-';
	uint64_t x;

	if (neg)
		p++;
	if (num_u64(&p, &x) || x > (neg ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX))
		return -ERANGE;
	*v = neg ? (int32_t)(-(int64_t)x) : (int32_t)x;
	*pp = p;
	return 0;
}

/* "NAME:" within [p, end): the position after it, NULL when absent.  NAME
 * must start the text or follow a blank, '{' or ','. */
static const char *field(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);

	for (const char *q = p; q + n <= end; q++) {
		if (strncmp(q, name, n) || q[n] != ':')
			continue;
		if (q == p || q[-1] == ' ' || q[-1] == '\t' || q[-1] == '{' || q[-1] == ',')
			return q + n + 1;
	}
	return NULL;
}

/* The key's CPU: "cpu:" or "common_cpu:" (the kernel prints either). */
static int key_cpu(const char *p, const char *end, uint64_t *cpu)
{
	const char *v = field(p, end, "cpu");

	if (!v)
		v = field(p, end, "common_cpu");
	return v ? num_u64(&v, cpu) : -EINVAL;
}

/* A string field "NAME: text" ending at the next "  " + next_name + ':' (or
 * the line's end): trailing blanks cut, at most HSET_COMM_LEN - 1 bytes. */
static int str_field(const char *p, const char *end, const char *name, const char *next_name,
		     char out[HSET_COMM_LEN])
{
	const char *v = field(p, end, name), *e = end;

	if (!v)
		return -EINVAL;
	if (*v == ' ')
		v++;
	if (next_name) {
		e = field(v, end, next_name);
		if (!e)
			return -EINVAL;
		e -= strlen(next_name) + 1;
	}
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	size_t n = (size_t)(e - v) < HSET_COMM_LEN - 1 ? (size_t)(e - v) : HSET_COMM_LEN - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

struct pcpu {
	bool any;
	int64_t lo_min;			/* the lowest bucket's lower edge */
	uint64_t lo_min_count, lo_min_sum;
	int64_t hi_max;			/* the highest bucket's last value */
	bool has_max;
	struct hset_max m;
};

struct pstate {
	const struct histtrig_cfg *cfg;
	struct hset *set;
	struct histtrig_stats *st;
	struct pcpu *pc;
	enum { SEC_NONE, SEC_BUCKETS, SEC_MAX } sec;
	int64_t max_cpu;		/* the CPU of the last max-hist entry, -1 none */
};

static bool cpu_in(const struct pstate *ps, uint64_t cpu)
{
	return cpu < ps->cfg->nr_cpus && (!ps->cfg->cpu_on || ps->cfg->cpu_on[cpu]);
}

/* "{ cpu: N, lat: ~ A-B } hitcount: C  lat: S" (or "lat: A" without buckets) */
static int bucket_line(struct pstate *ps, const char *p, const char *end)
{
	const char *close = memchr(p, '}', (size_t)(end - p)), *v;
	uint64_t cpu, a, b, count, sum;
	const struct lhist_cfg *g = &ps->cfg->hist;

	if (!close || key_cpu(p, close, &cpu) || !(v = field(p, close, "lat")))
		return -EINVAL;
	v = skip_ws(v);
	if (*v == '~') {	/* .buckets=W: "~ A-B", B = A + W - 1 */
		v++;
		if (num_u64(&v, &a) || *v++ != '-' || num_u64(&v, &b) || b < a ||
		    b - a + 1 != g->bucket_ns)
			return -EINVAL;
	} else if (num_u64(&v, &a) || g->bucket_ns != 1) {	/* a plain key: 1 ns wide */
		return -EINVAL;
	} else {
		b = a;
	}
	v = field(close, end, "hitcount");
	if (!v || num_u64(&v, &count) || !(v = field(v, end, "lat")) || num_u64(&v, &sum))
		return -EINVAL;
	if (a > INT64_MAX || a % g->bucket_ns || count == 0)
		return -EINVAL;
	if (!cpu_in(ps, cpu)) {
		ps->st->outside_cpus += count;
		return 0;
	}
	struct lhist *h = hset_hist_mut(ps->set, HSET_WAKEUP, (uint32_t)cpu);
	if (!h)
		return -ENOMEM;
	int64_t lo = (int64_t)a;
	if (lo < g->lo_ns) {
		h->below += count;
	} else {
		uint64_t i = (uint64_t)(lo - g->lo_ns) / g->bucket_ns;
		if (i >= g->nr_buckets)
			h->above += count;
		else
			h->counts[i] += count;
	}
	h->total += count;
	h->sum_ns = sum > (uint64_t)(INT64_MAX - h->sum_ns) ? INT64_MAX : h->sum_ns + (int64_t)sum;
	struct pcpu *c = &ps->pc[cpu];
	if (!c->any || lo < c->lo_min) {
		c->lo_min = lo;
		c->lo_min_count = count;
		c->lo_min_sum = sum;
	}
	int64_t last = b > INT64_MAX ? INT64_MAX : (int64_t)b;
	if (!c->any || last > c->hi_max)
		c->hi_max = last;
	c->any = true;
	return 0;
}

/* "\tmax: M  pid: P  prio: R  comm: X  prev_pid: P  prev_prio: R  prev_comm: X  ts_ns: T" */
static int max_line(struct pstate *ps, const char *p, const char *end)
{
	struct hset_max m = { .valid = true, .has_culprit = true };
	const char *v;
	uint64_t lat, ts;

	if (ps->max_cpu < 0)
		return -EINVAL;
	if (!(v = field(p, end, "max")) || num_u64(&v, &lat) || lat > INT64_MAX ||
	    !(v = field(p, end, "pid")) || num_i32(&v, &m.pid) ||
	    !(v = field(p, end, "prio")) || num_i32(&v, &m.prio) ||
	    str_field(p, end, "comm", "prev_pid", m.comm) ||
	    !(v = field(p, end, "prev_pid")) || num_i32(&v, &m.culprit_pid) ||
	    !(v = field(p, end, "prev_prio")) || num_i32(&v, &m.culprit_prio) ||
	    str_field(p, end, "prev_comm", "ts_ns", m.culprit_comm) ||
	    !(v = field(p, end, "ts_ns")) || num_u64(&v, &ts))
		return -EINVAL;
	m.latency_ns = (int64_t)lat;
	m.time_ns = ts;
	struct pcpu *c = &ps->pc[ps->max_cpu];
	c->m = m;
	c->has_max = true;
	ps->max_cpu = -1;
	return 0;
}

/* One line of the text; 0, -EINVAL (unreadable), -ENOMEM. */
static int parse_line(struct pstate *ps, const char *p, const char *end)
{
	const char *q = skip_ws(p);
	uint64_t v, cpu;

	if (q == end)
		return 0;
	if (*q == '#') {
		const char *ti = field(q, end, "info");	/* "# trigger info: hist:..." */
		if (!ti)
			return 0;
		size_t n = (size_t)(end - ti);
		bool onmax = memmem(ti, n, "onmax(", 6) != NULL;
		ps->sec = onmax ? SEC_MAX : memmem(ti, n, ".buckets=", 9) ? SEC_BUCKETS : SEC_NONE;
		ps->max_cpu = -1;
		if (onmax)
			ps->st->has_max = true;
		return 0;
	}
	if (!strncmp(q, "Totals:", 7))
		return 0;
	if (ps->sec == SEC_BUCKETS && (!strncmp(q, "Hits:", 5) || !strncmp(q, "Entries:", 8) ||
				       !strncmp(q, "Dropped:", 8))) {
		const char *n = strchr(q, ':') + 1;
		if (num_u64(&n, &v))
			return -EINVAL;
		*(q[0] == 'H' ? &ps->st->hits : q[0] == 'E' ? &ps->st->entries : &ps->st->dropped) = v;
		return 0;
	}
	if (!strncmp(q, "Hits:", 5) || !strncmp(q, "Entries:", 8) || !strncmp(q, "Dropped:", 8))
		return 0;
	if (ps->sec == SEC_BUCKETS && *q == '{')
		return bucket_line(ps, q, end);
	if (ps->sec == SEC_MAX && *q == '{') {
		const char *close = memchr(q, '}', (size_t)(end - q));
		ps->max_cpu = -1;
		if (!close || key_cpu(q, close, &cpu))
			return -EINVAL;
		if (cpu_in(ps, cpu))
			ps->max_cpu = (int64_t)cpu;
		return 0;
	}
	if (ps->sec == SEC_MAX && !strncmp(q, "max:", 4))
		return ps->max_cpu < 0 ? 0 : max_line(ps, q, end);	/* a CPU not asked: skipped */
	return ps->sec == SEC_NONE ? 0 : -EINVAL;
}

int histtrig_parse(const char *text, const struct histtrig_cfg *cfg, struct hset *set,
		   struct histtrig_stats *st)
{
	struct histtrig_stats local;
	struct pstate ps = { .cfg = cfg, .set = set, .st = st ? st : &local, .max_cpu = -1 };

	if (!lhist_same_geometry(hset_geometry(set), &cfg->hist) || hset_nr_cpus(set) < cfg->nr_cpus ||
	    !cfg->hist.bucket_ns)
		return -EINVAL;
	memset(ps.st, 0, sizeof(*ps.st));
	hset_reset(set);
	ps.pc = calloc(cfg->nr_cpus ? cfg->nr_cpus : 1, sizeof(*ps.pc));
	if (!ps.pc)
		return -ENOMEM;
	int err = 0;
	for (const char *p = text; p && *p && !err;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		int e = parse_line(&ps, p, end);
		if (e == -ENOMEM)
			err = e;
		else if (e)
			ps.st->bad_lines++;
		p = nl ? nl + 1 : NULL;
	}
	for (uint32_t cpu = 0; cpu < cfg->nr_cpus && !err; cpu++) {
		struct pcpu *c = &ps.pc[cpu];
		struct lhist *h = c->any ? hset_hist_mut(set, HSET_WAKEUP, cpu) : NULL;
		if (!h)
			continue;
		/* one sample in the lowest bucket: its sum is the exact minimum */
		h->min_ns = c->lo_min_count == 1 ? (int64_t)c->lo_min_sum : c->lo_min;
		h->max_ns = c->hi_max;
		/* the onmax entry, unless it is below the highest bucket (a text
		 * read while samples came: the buckets are newer) */
		if (c->has_max && c->m.latency_ns > c->hi_max - (int64_t)cfg->hist.bucket_ns) {
			h->max_ns = c->m.latency_ns;
			hset_offer_max(set, HSET_WAKEUP, cpu, &c->m);
		}
		if (h->min_ns > h->max_ns)
			h->min_ns = h->max_ns;
	}
	free(ps.pc);
	return err;
}

