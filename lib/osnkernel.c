/* SPDX-License-Identifier: MIT */
/* osnkernel.c - drive and parse the kernel osnoise tracer (see osnkernel.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "osnkernel.h"

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

int osnkernel_parse_line(const char *line, struct osnkernel_rec *o)
{
	memset(o, 0, sizeof(*o));
	const char *p = skip_ws(line);
	if (!*p || *p == '#' || *p == '\n')
		return -ENOENT;
	/* Context prefix: "<comm>-<pid> [<cpu>] <flags> <sec.usec>: " */
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
	p = skip_ws(p + 1);

	if (!strncmp(p, "sample_threshold:", 17)) {
		o->kind = OSNKERNEL_SAMPLE;
		p += 17;
		if (parse_start_duration(&p, o))
			return -EINVAL;
		/* "interference N" (the doc spells it "interferences") */
		p = skip_ws(p);
		if (!strncmp(p, "interferences", 13))
			p += 13;
		else if (!strncmp(p, "interference", 12))
			p += 12;
		else
			return -EINVAL;
		return osnkernel_parse_u64(&p, &o->interference) ? -EINVAL : 0;
	}
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
	/* Per-period record: runtime noise pct max_single hw nmi irq sirq thread */
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

/* ---- driving the tracer ------------------------------------------------- */

#define OSNKERNEL_INSTANCE "latscope_osnoise"

/* The global settings osnkernel_start() writes (top-level tracefs files),
 * saved first and written back by osnkernel_stop(). */
enum {
	SAVED_OPTIONS, SAVED_CPUS, SAVED_PERIOD, SAVED_RUNTIME, SAVED_STOP, SAVED_STOP_TOTAL,
	SAVED_THRESH, SAVED_NR
};
static const char *const saved_files[SAVED_NR] = {
	[SAVED_OPTIONS] = "osnoise/options",	/* absent before Linux 6.2 */
	[SAVED_CPUS] = "osnoise/cpus",
	[SAVED_PERIOD] = "osnoise/period_us",
	[SAVED_RUNTIME] = "osnoise/runtime_us",
	[SAVED_STOP] = "osnoise/stop_tracing_us",
	[SAVED_STOP_TOTAL] = "osnoise/stop_tracing_total_us",
	[SAVED_THRESH] = "tracing_thresh",
};

struct osnkernel {
	struct tracefs_instance *inst;
	int fd;
	char *saved[SAVED_NR];		/* values read before the run (NULL: file absent) */
	bool changed;			/* a saved setting may have been written */
	bool stopped;
	char err[2048];
};

bool osnkernel_available(void)
{
	if (!tracefs_tracing_dir() || !tracefs_dir_exists(NULL, "osnoise"))
		return false;
	char **t = tracefs_tracers(NULL);
	bool ok = false;
	for (size_t i = 0; t && t[i]; i++)
		ok |= !strcmp(t[i], "osnoise");
	tracefs_list_free(t);
	return ok;
}

const char *osnkernel_strerror(const struct osnkernel *k)
{
	return k ? k->err : "out of memory";
}

static int wr(struct osnkernel *k, struct tracefs_instance *inst, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int wr(struct osnkernel *k, struct tracefs_instance *inst, const char *file, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (tracefs_instance_file_write(inst, file, buf) < 0) {
		int err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "writing '%s' to tracefs %s: %s", buf, file,
			 strerror(-err));
		return err;
	}
	return 0;
}

/* True when the word (e.g. "OSNOISE_WORKLOAD") is one of osnoise/options' flags,
 * as "WORD" or "NO_WORD". */
static bool has_option(const struct osnkernel *k, const char *word)
{
	const char *o = k->saved[SAVED_OPTIONS];
	size_t n = strlen(word);
	for (const char *p = o; p && *p; ) {
		p += strspn(p, " \t\n");
		size_t len = strcspn(p, " \t\n");
		if (len >= 3 && !strncmp(p, "NO_", 3)) {
			p += 3;
			len -= 3;
		}
		if (len == n && !strncmp(p, word, n))
			return true;
		p += len;
	}
	return false;
}

/* period and runtime in the order the kernel accepts (runtime <= period at
 * every step); cur_runtime is the runtime_us the kernel has now. */
static int set_period_runtime(struct osnkernel *k, const char *period, const char *runtime,
			      uint64_t new_period, uint64_t cur_runtime)
{
	int err;
	if (new_period >= cur_runtime) {
		if ((err = wr(k, NULL, saved_files[SAVED_PERIOD], "%s", period)) ||
		    (err = wr(k, NULL, saved_files[SAVED_RUNTIME], "%s", runtime)))
			return err;
		return 0;
	}
	if ((err = wr(k, NULL, saved_files[SAVED_RUNTIME], "%s", runtime)) ||
	    (err = wr(k, NULL, saved_files[SAVED_PERIOD], "%s", period)))
		return err;
	return 0;
}

static uint64_t saved_u64(const struct osnkernel *k, int i)
{
	return k->saved[i] ? strtoull(k->saved[i], NULL, 10) : 0;
}

/* Read every setting before anything is written; values without their
 * trailing blanks. */
static int save_settings(struct osnkernel *k)
{
	for (int i = 0; i < SAVED_NR; i++) {
		if (i == SAVED_OPTIONS && !tracefs_file_exists(NULL, saved_files[i]))
			continue;
		char *v = tracefs_instance_file_read(NULL, saved_files[i], NULL);
		if (!v) {
			int err = errno ? -errno : -EIO;
			snprintf(k->err, sizeof(k->err), "cannot read tracefs %s: %s", saved_files[i],
				 strerror(-err));
			return err;
		}
		size_t n = strlen(v);
		while (n && isspace((unsigned char)v[n - 1]))
			v[--n] = 0;
		k->saved[i] = v;
	}
	return 0;
}

/* osnoise/options back as saved: DEFAULTS, then every flag as it was. */
static int restore_options(struct osnkernel *k)
{
	int err = wr(k, NULL, saved_files[SAVED_OPTIONS], "DEFAULTS");
	const char *p = k->saved[SAVED_OPTIONS];
	while (!err && *p) {
		p += strspn(p, " \t\n");
		size_t len = strcspn(p, " \t\n");
		bool dflt = (len == 8 && !strncmp(p, "DEFAULTS", 8)) || (len == 11 && !strncmp(p, "NO_DEFAULTS", 11));
		if (len && !dflt)
			err = wr(k, NULL, saved_files[SAVED_OPTIONS], "%.*s", (int)len, p);
		p += len;
	}
	return err;
}

/* Every saved setting written back; the first failure is returned (and
 * named in k->err), the others are still tried. */
static int restore_settings(struct osnkernel *k)
{
	int first = 0, err;
	char e0[sizeof(k->err)] = "";
#define KEEP(x) do { if ((err = (x)) && !first) { first = err; memcpy(e0, k->err, sizeof(e0)); } } while (0)
	if (k->saved[SAVED_OPTIONS])
		KEEP(restore_options(k));
	char *now = tracefs_instance_file_read(NULL, saved_files[SAVED_RUNTIME], NULL);
	uint64_t cur_runtime = now ? strtoull(now, NULL, 10) : 0;
	free(now);
	KEEP(set_period_runtime(k, k->saved[SAVED_PERIOD], k->saved[SAVED_RUNTIME],
				saved_u64(k, SAVED_PERIOD), cur_runtime));
	for (int i = SAVED_CPUS; i < SAVED_NR; i++)
		if (i != SAVED_PERIOD && i != SAVED_RUNTIME)
			KEEP(wr(k, NULL, saved_files[i], "%s", k->saved[i]));
#undef KEEP
	if (first)
		memcpy(k->err, e0, sizeof(e0));
	return first;
}

int osnkernel_start(struct osnkernel **kp, const struct osnkernel_config *cfg)
{
	struct osnkernel *k = calloc(1, sizeof(*k));
	*kp = k;
	if (!k)
		return -ENOMEM;
	k->fd = -1;
	if (!osnkernel_available()) {
		snprintf(k->err, sizeof(k->err), "the kernel has no osnoise tracer (no %s/osnoise; needs "
			 "CONFIG_OSNOISE_TRACER)", tracefs_tracing_dir() ?: "tracefs");
		return -ENODEV;
	}
	int err = save_settings(k);
	if (err)
		return err;
	if (!has_option(k, "OSNOISE_WORKLOAD") && cfg->no_workload) {
		snprintf(k->err, sizeof(k->err), "this kernel's osnoise tracer has no OSNOISE_WORKLOAD "
			 "option (tracefs osnoise/options%s), needed by --no-workload",
			 k->saved[SAVED_OPTIONS] ? ": " : " is absent");
		if (k->saved[SAVED_OPTIONS])
			snprintf(k->err + strlen(k->err), sizeof(k->err) - strlen(k->err), " has %s",
				 k->saved[SAVED_OPTIONS]);
		return -EOPNOTSUPP;
	}
	/* osnoise settings are global (top-level osnoise/ and tracing_thresh). */
	k->changed = true;
	char period[32], runtime[32];
	snprintf(period, sizeof(period), "%" PRIu64, cfg->period_us);
	snprintf(runtime, sizeof(runtime), "%" PRIu64, cfg->runtime_us);
	if ((k->saved[SAVED_OPTIONS] && (err = wr(k, NULL, "osnoise/options", "DEFAULTS"))) ||
	    (has_option(k, "OSNOISE_WORKLOAD") &&
	     (err = wr(k, NULL, "osnoise/options", cfg->no_workload ? "NO_OSNOISE_WORKLOAD"
								     : "OSNOISE_WORKLOAD"))) ||
	    (err = wr(k, NULL, "osnoise/cpus", "%s", cfg->cpus ? cfg->cpus : "all")) ||
	    (err = set_period_runtime(k, period, runtime, cfg->period_us, saved_u64(k, SAVED_RUNTIME))) ||
	    (err = wr(k, NULL, "osnoise/stop_tracing_us", "%" PRIu64, cfg->stop_us)) ||
	    (err = wr(k, NULL, "osnoise/stop_tracing_total_us", "%" PRIu64, cfg->stop_total_us)))
		return err;
	if (cfg->threshold_us && (err = wr(k, NULL, "tracing_thresh", "%" PRIu64, cfg->threshold_us)))
		return err;
	k->inst = tracefs_instance_create(OSNKERNEL_INSTANCE);
	if (!k->inst) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot create tracefs instance %s: %s", OSNKERNEL_INSTANCE,
			 strerror(-err));
		return err;
	}
	if (cfg->events && tracefs_event_enable(k->inst, "osnoise", NULL) < 0) {
		snprintf(k->err, sizeof(k->err), "cannot enable the osnoise events");
		return -EIO;
	}
	if (tracefs_tracer_set(k->inst, TRACEFS_TRACER_CUSTOM, "osnoise") < 0) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot select the osnoise tracer: %s (another "
			 "instance may run osnoise or timerlat)", strerror(-err));
		return err;
	}
	k->fd = tracefs_instance_file_open(k->inst, "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (k->fd < 0) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot open trace_pipe: %s", strerror(-err));
		return err;
	}
	tracefs_trace_on(k->inst);
	return 0;
}

long osnkernel_read(struct osnkernel *k, char *buf, size_t len)
{
	ssize_t n = read(k->fd, buf, len);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return (long)n;
}

int osnkernel_stop(struct osnkernel *k)
{
	if (!k || k->stopped)
		return 0;
	k->stopped = true;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	if (k->inst) {
		tracefs_tracer_clear(k->inst);
		tracefs_instance_destroy(k->inst);
		tracefs_instance_free(k->inst);
		k->inst = NULL;
	}
	return k->changed ? restore_settings(k) : 0;
}

void osnkernel_free(struct osnkernel *k)
{
	if (!k)
		return;
	osnkernel_stop(k);
	for (int i = 0; i < SAVED_NR; i++)
		free(k->saved[i]);
	free(k);
}
