/* SPDX-License-Identifier: MIT */
/* osnkernel_parse.c - parse the text of the kernel's osnoise and timerlat
 * tracers (see osnkernel.h): pure, no tracefs. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live/osnkernel.h"

/* ---- parsing ---------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "sec.frac" with up to 9 fraction digits -> ns. */
static int parse_ts(const char **pp, uint64_t *ns)
{
	const char *p = *pp;
	char *end;
	errno = 0;
	unsigned long long sec = strtoull(p, &end, 10);
	if (end == p || errno || *end != '.')
		return -EINVAL;
	p = end + 1;
	uint64_t frac = 0;
	int digits = 0;
	while (isdigit((unsigned char)*p)) {
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
		p++;
	}
	if (!digits)
		return -EINVAL;
	while (digits++ < 9)
		frac *= 10;
	if (sec > UINT64_MAX / 1000000000ULL)
		return -ERANGE;
	*ns = sec * 1000000000ULL + frac;
	*pp = p;
	return 0;
}

static int osnkernel_parse_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_ws(*pp);
	char *end;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(p, &end, 10);
	if (errno)
		return -ERANGE;
	*v = x;
	*pp = end;
	return 0;
}

static int expect(const char **pp, const char *word)
{
	const char *p = skip_ws(*pp);
	size_t n = strlen(word);
	if (strncmp(p, word, n))
		return -EINVAL;
	*pp = p + n;
	return 0;
}

/* "start <ts> duration <ns> ns" */
static int parse_start_duration(const char **pp, struct osnkernel_rec *o)
{
	const char *p = *pp;
	if (expect(&p, "start") || (p = skip_ws(p), parse_ts(&p, &o->start_ns)) ||
	    expect(&p, "duration") || osnkernel_parse_u64(&p, &o->duration_ns) || expect(&p, "ns"))
		return -EINVAL;
	*pp = p;
	return 0;
}

/* "<desc>:<id> start ..." where desc may hold spaces (comm) and is right-aligned. */
static int parse_desc_id(const char **pp, struct osnkernel_rec *o)
{
	const char *p = skip_ws(*pp);
	const char *st = strstr(p, " start ");
	if (!st)
		return -EINVAL;
	const char *colon = st;
	while (colon > p && *colon != ':')
		colon--;
	if (*colon != ':' || colon == p)
		return -EINVAL;
	size_t n = (size_t)(colon - p);
	if (n >= sizeof(o->desc))
		n = sizeof(o->desc) - 1;
	memcpy(o->desc, p, n);
	o->desc[n] = 0;
	char *end;
	long id = strtol(colon + 1, &end, 10);
	if (end != st || id < INT32_MIN || id > INT32_MAX)
		return -EINVAL;
	o->id = (int32_t)id;
	*pp = st;
	return 0;
}

/* The reader's note of an overrun at p (past "CPU:"'s start): "CPU:N [LOST
 * M EVENTS]" or, when the kernel does not know how many, "CPU:N [LOST
 * EVENTS]".  0 or -EINVAL. */
static int parse_lost(const char *p, struct osnkernel_rec *o)
{
	char *end;
	errno = 0;
	unsigned long cpu = strtoul(p + 4, &end, 10);
	if (end == p + 4 || errno || cpu > 65535 || strncmp(end, " [LOST ", 7))
		return -EINVAL;
	p = end + 7;
	o->kind = OSNKERNEL_LOST;
	o->cpu = (uint32_t)cpu;
	if (isdigit((unsigned char)*p) && osnkernel_parse_u64(&p, &o->lost))
		return -EINVAL;
	if (expect(&p, "EVENTS]"))
		return -EINVAL;
	p = skip_ws(p);
	return *p && *p != '\n' ? -EINVAL : 0;
}

/* The context prefix "<comm>-<pid> [<cpu>] <flags> <sec.usec>: " into o
 * (comm, pid, cpu, ts_ns), *pp moved past it.  0, or -ENOENT when the line
 * has none (not a record of the tracer). */
static int parse_context(const char **pp, struct osnkernel_rec *o)
{
	const char *p = *pp;
	const char *br = strstr(p, " [");
	if (!br)
		return -ENOENT;
	const char *dash = br;
	while (dash > p && *dash != '-')
		dash--;
	if (*dash != '-')
		return -ENOENT;
	size_t cl = (size_t)(dash - p);
	if (cl >= sizeof(o->comm))
		cl = sizeof(o->comm) - 1;
	memcpy(o->comm, p, cl);
	o->comm[cl] = 0;
	o->pid = (int32_t)strtol(dash + 1, NULL, 10);
	p = br + 2;
	char *end;
	unsigned long cpu = strtoul(p, &end, 10);
	if (end == p || *end != ']' || cpu > 65535)
		return -ENOENT;
	o->cpu = (uint32_t)cpu;
	p = skip_ws(end + 1);
	/* optional flags column (".....", "d..2."), then the timestamp */
	if (!isdigit((unsigned char)*p)) {
		while (*p && *p != ' ')
			p++;
		p = skip_ws(p);
	}
	if (parse_ts(&p, &o->ts_ns) || *p != ':')
		return -ENOENT;
	*pp = skip_ws(p + 1);
	return 0;
}

/* A tracing_mark_write's text at p (past its name): trailing spaces and
 * the newline dropped, cut to o->desc. */
static int parse_mark(const char *p, struct osnkernel_rec *o)
{
	o->kind = OSNKERNEL_MARK;
	p = skip_ws(p);
	size_t n = strcspn(p, "\n");
	while (n && p[n - 1] == ' ')
		n--;
	if (n >= sizeof(o->desc))
		n = sizeof(o->desc) - 1;
	memcpy(o->desc, p, n);
	o->desc[n] = 0;
	return 0;
}

/* A sample_threshold's fields at p (past its name): "start <ts> duration
 * <ns> ns interference N" (the doc spells it "interferences").  0 or
 * -EINVAL. */
static int parse_threshold(const char *p, struct osnkernel_rec *o)
{
	o->kind = OSNKERNEL_SAMPLE;
	if (parse_start_duration(&p, o))
		return -EINVAL;
	p = skip_ws(p);
	if (!strncmp(p, "interferences", 13))
		p += 13;
	else if (!strncmp(p, "interference", 12))
		p += 12;
	else
		return -EINVAL;
	return osnkernel_parse_u64(&p, &o->interference) ? -EINVAL : 0;
}

/* A per-period record at p: "runtime noise pct max_single hw nmi irq sirq
 * thread", pct with 5 decimals (kept as avail_e5).  0, -ENOENT when p is
 * no number (not such a record), or -EINVAL. */
static int parse_period(const char *p, struct osnkernel_rec *o)
{
	if (!isdigit((unsigned char)*p))
		return -ENOENT;
	uint64_t ip, fp;
	if (osnkernel_parse_u64(&p, &o->runtime_us) || osnkernel_parse_u64(&p, &o->noise_us) || osnkernel_parse_u64(&p, &ip) ||
	    *p != '.')
		return -EINVAL;
	p++;
	const char *f0 = p;
	if (osnkernel_parse_u64(&p, &fp) || p - f0 != 5 || ip > 100)
		return -EINVAL;
	o->avail_e5 = ip * 100000 + fp;
	if (osnkernel_parse_u64(&p, &o->max_single_us) || osnkernel_parse_u64(&p, &o->hw) || osnkernel_parse_u64(&p, &o->nmi) ||
	    osnkernel_parse_u64(&p, &o->irq) || osnkernel_parse_u64(&p, &o->softirq) || osnkernel_parse_u64(&p, &o->thread))
		return -EINVAL;
	p = skip_ws(p);
	if (*p && *p != '\n')
		return -EINVAL;
	o->kind = OSNKERNEL_PERIOD;
	return 0;
}

/* A timerlat record at p (past the context prefix): "#SEQ context CTX
 * timer_latency N ns", CTX irq, thread or user-ret.  0, -ENOENT when p is
 * no such record, -EINVAL when it is a broken one. */
static int parse_timerlat(const char *p, struct osnkernel_rec *o)
{
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return -ENOENT;
	p++;
	uint64_t seq;
	if (osnkernel_parse_u64(&p, &seq) || seq > UINT32_MAX || expect(&p, "context"))
		return -EINVAL;
	p = skip_ws(p);
	static const struct { const char *name; enum osnkernel_tlat_ctx ctx; } ctxs[] = {
		{ "irq ", OSNKERNEL_TLAT_IRQ }, { "thread ", OSNKERNEL_TLAT_THREAD },
		{ "user-ret ", OSNKERNEL_TLAT_USER },
	};
	size_t i;
	for (i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]); i++)
		if (!strncmp(p, ctxs[i].name, strlen(ctxs[i].name)))
			break;
	if (i == sizeof(ctxs) / sizeof(ctxs[0]))
		return -EINVAL;
	p += strlen(ctxs[i].name);
	if (expect(&p, "timer_latency") || osnkernel_parse_u64(&p, &o->latency_ns) || expect(&p, "ns"))
		return -EINVAL;
	p = skip_ws(p);
	if (*p && *p != '\n')
		return -EINVAL;
	o->kind = OSNKERNEL_TIMERLAT;
	o->seq = (uint32_t)seq;
	o->context = ctxs[i].ctx;
	return 0;
}

/* A stack frame line " => sym" (timerlat's print_stack): the symbol into
 * o->sym, cut to its size. */
static int parse_frame(const char *p, struct osnkernel_rec *o)
{
	p = skip_ws(p + 2);
	size_t n = strcspn(p, " \n");
	if (!n)
		return -EINVAL;
	if (n == 1 && *p == '0')
		return -ENOENT;	/* the unused slots of the kernel's saved stack */
	if (n >= sizeof(o->sym))
		n = sizeof(o->sym) - 1;
	memcpy(o->sym, p, n);
	o->sym[n] = 0;
	o->kind = OSNKERNEL_FRAME;
	return 0;
}

/* "stop tracing hit on cpu N" anywhere in a printk line's text (the
 * kernel's note when a stop threshold is hit, in every instance).  0 or
 * -ENOENT. */
static int parse_stop(const char *p, struct osnkernel_rec *o)
{
	static const char hit[] = "stop tracing hit on cpu ";
	const char *h = strstr(p, hit);
	if (!h)
		return -ENOENT;
	char *end;
	errno = 0;
	unsigned long cpu = strtoul(h + sizeof(hit) - 1, &end, 10);
	if (end == h + sizeof(hit) - 1 || errno || cpu > 65535)
		return -ENOENT;
	o->kind = OSNKERNEL_STOP;
	o->cpu = (uint32_t)cpu;
	return 0;
}

/* The line's kind is told by its start (an overrun note, a stack frame),
 * then by the event name after the context prefix; a number there is a
 * period, a '#' a timerlat record. */
int osnkernel_parse_line(const char *line, struct osnkernel_rec *o)
{
	memset(o, 0, sizeof(*o));
	const char *p = skip_ws(line);
	if (!*p || *p == '#' || *p == '\n')
		return -ENOENT;
	if (!strncmp(p, "CPU:", 4))
		return parse_lost(p, o);
	if (!strncmp(p, "=> ", 3))
		return parse_frame(p, o);
	if (parse_context(&p, o))
		return -ENOENT;

	if (*p == '#')
		return parse_timerlat(p, o);
	if (!strncmp(p, "<stack trace>", 13)) {
		o->kind = OSNKERNEL_STACK;
		return 0;
	}

	if (!strncmp(p, "tracing_mark_write:", 19))
		return parse_mark(p + 19, o);
	if (!strncmp(p, "sample_threshold:", 17))
		return parse_threshold(p + 17, o);
	if (!strncmp(p, "nmi_noise:", 10)) {
		o->kind = OSNKERNEL_NMI;
		p += 10;
		return parse_start_duration(&p, o) ? -EINVAL : 0;
	}
	static const struct { const char *name; enum osnkernel_kind kind; } named[] = {
		{ "irq_noise:", OSNKERNEL_IRQ }, { "softirq_noise:", OSNKERNEL_SOFTIRQ }, { "thread_noise:", OSNKERNEL_THREAD },
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t n = strlen(named[i].name);
		if (strncmp(p, named[i].name, n))
			continue;
		o->kind = named[i].kind;
		p += n;
		if (parse_desc_id(&p, o) || parse_start_duration(&p, o))
			return -EINVAL;
		return 0;
	}
	int err = parse_period(p, o);
	if (err == -ENOENT && !parse_stop(p, o))
		return 0;
	return err;
}

