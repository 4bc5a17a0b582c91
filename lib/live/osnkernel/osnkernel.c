/* SPDX-License-Identifier: MIT */
/* osnkernel.c - drive the kernel osnoise and timerlat tracers through
 * tracefs (see osnkernel.h; the text is parsed in osnkernel_parse.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "live/osnkernel.h"

/* ---- driving the tracer ------------------------------------------------- */

#define OSNKERNEL_INSTANCE "latscope_osnoise"

/*
 * What the run changed, oldest first, undone newest first by osnkernel_stop()
 * and, in a signal handler, by osnkernel_emergency_restore().  Static: one
 * osnoise tracer per system, so one run at a time, and the handler needs
 * memory that is never freed.  A step is filled, then published (osnk_nr
 * raised, release); an undo reads published steps only, and the normal one
 * unpublishes each step once done.  Undoing a step twice is harmless (an
 * abort in the middle of osnkernel_stop()).
 */
enum osnk_kind {
	OSNK_WRITE = 1,		/* write text to path */
	OSNK_WRITE_EACH,	/* write each word of text to path (osnoise/options: one option a write) */
	OSNK_CLOSE,		/* close fd */
	OSNK_RMDIR,		/* remove the directory path (a tracefs instance) */
};
#define OSNK_STEPS 16
#define OSNK_TEXT 512
static struct {
	enum osnk_kind kind;
	int fd;
	char path[PATH_MAX];
	char text[OSNK_TEXT];
} osnk_steps[OSNK_STEPS];
static int osnk_nr;		/* published steps; atomic */
static bool osnk_running;	/* between osnkernel_start() and osnkernel_stop() */

struct osnkernel {
	struct tracefs_instance *inst;
	int fd;			/* trace_pipe (closed by its undo step) */
	bool owner;		/* the steps are this run's */
	bool stopped;		/* osnkernel_stop() done */
	bool ring_off;		/* config's ring_off: no markers, nothing to read */
	bool unmarked;		/* the start mark could not be written (osnkernel_unmarked) */
	char err[1024];
};

bool osnkernel_available(void)
{
	return osnkernel_has_tracer("osnoise");
}

bool osnkernel_has_tracer(const char *name)
{
	/* (not tracefs_dir_exists(NULL, ...): libtracefs 1.6 looks in the
	 * mounted tracefs there even after tracefs_set_tracing_dir()) */
	struct stat st;
	char *dir = tracefs_get_tracing_file("osnoise");
	bool has = dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	tracefs_put_tracing_file(dir);
	if (!has)
		return false;
	char **t = tracefs_tracers(NULL);
	bool ok = false;
	for (size_t i = 0; t && t[i]; i++)
		ok |= !strcmp(t[i], name);
	tracefs_list_free(t);
	return ok;
}

/* The tracer of the top level or of instance name ("" = the top level)
 * into buf, "" when it cannot be read. */
static void tracer_of(const char *name, char *buf, size_t len)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "%s%s%scurrent_tracer", *name ? "instances/" : "", name, *name ? "/" : "");
	char *path = tracefs_get_tracing_file(rel);
	buf[0] = 0;
	FILE *f = path ? fopen(path, "r") : NULL;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	tracefs_put_tracing_file(path);
}

bool osnkernel_other_run(char *where, size_t len)
{
	char t[64];
	tracer_of("", t, sizeof(t));
	if (!strcmp(t, "osnoise") || !strcmp(t, "timerlat")) {
		snprintf(where, len, "the top-level trace runs %s", t);
		return true;
	}
	char *dir = tracefs_get_tracing_file("instances");
	DIR *d = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, OSNKERNEL_INSTANCE) || strlen(de->d_name) > 400)
			continue;
		tracer_of(de->d_name, t, sizeof(t));
		if (!strcmp(t, "osnoise") || !strcmp(t, "timerlat")) {
			snprintf(where, len, "tracefs instance %s runs %s", de->d_name, t);
			found = true;
		}
	}
	closedir(d);
	return found;
}

const char *osnkernel_strerror(const struct osnkernel *k)
{
	return k ? k->err : "out of memory";
}

/* Async-signal-safe from here to osnkernel_emergency_restore().  0 or the
 * errno of the failed write (an undo that did not take). */
static int osnk_write(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = write(fd, text, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	close(fd);
	return e;
}

/* Undo step i: 0, or the errno of the first write or rmdir that failed. */
static int osnk_undo(int i)
{
	const char *t = osnk_steps[i].text;
	int e = 0, e1;
	switch (osnk_steps[i].kind) {
	case OSNK_WRITE:
		e = osnk_write(osnk_steps[i].path, t, strlen(t));
		break;
	case OSNK_WRITE_EACH:
		/* "NO_DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP ...": each option as it
		 * was; [NO_]DEFAULTS only tells whether they all are the defaults */
		while (*t) {
			size_t n = strcspn(t, " ");
			bool dflt = (n == 8 && !strncmp(t, "DEFAULTS", 8)) || (n == 11 && !strncmp(t, "NO_DEFAULTS", 11));
			if (n && !dflt && (e1 = osnk_write(osnk_steps[i].path, t, n)) && !e)
				e = e1;
			t += n + (t[n] == ' ');
		}
		break;
	case OSNK_CLOSE:
		close(osnk_steps[i].fd);
		break;
	case OSNK_RMDIR:
		if (rmdir(osnk_steps[i].path) < 0 && errno != ENOENT)
			e = errno;
		break;
	}
	return e;
}

void osnkernel_emergency_restore(void)
{
	for (int i = __atomic_load_n(&osnk_nr, __ATOMIC_ACQUIRE); i-- > 0;)
		osnk_undo(i);
}

/* Record an undo step before the change it undoes; path NULL for OSNK_CLOSE. */
static int osnk_push(struct osnkernel *k, enum osnk_kind kind, const char *path, const char *text,
		     int fd)
{
	int i = __atomic_load_n(&osnk_nr, __ATOMIC_RELAXED);
	if (i == OSNK_STEPS) {
		snprintf(k->err, sizeof(k->err), "more than %d settings to restore", OSNK_STEPS);
		return -ENOSPC;
	}
	if ((path && strlen(path) >= sizeof(osnk_steps[i].path)) || strlen(text) >= sizeof(osnk_steps[i].text)) {
		snprintf(k->err, sizeof(k->err), "cannot save %s (%zu bytes) to restore it", path ? path : "",
			 strlen(text));
		return -ENAMETOOLONG;
	}
	osnk_steps[i].kind = kind;
	osnk_steps[i].fd = fd;
	snprintf(osnk_steps[i].path, sizeof(osnk_steps[i].path), "%s", path ? path : "");
	snprintf(osnk_steps[i].text, sizeof(osnk_steps[i].text), "%s", text);
	__atomic_store_n(&osnk_nr, i + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Push "write back what file of inst holds now" (kind OSNK_WRITE or OSNK_WRITE_EACH). */
static int save(struct osnkernel *k, struct tracefs_instance *inst, const char *file, enum osnk_kind kind)
{
	char *path = tracefs_instance_get_file(inst, file);
	char *old = path ? tracefs_instance_file_read(inst, file, NULL) : NULL;
	int err = 0;
	if (!old) {
		err = errno ? -errno : -ENOMEM;
		snprintf(k->err, sizeof(k->err), "cannot read tracefs %s: %s", file, strerror(-err));
	} else {
		old[strcspn(old, "\n")] = '\0';	/* one line: the value */
		err = osnk_push(k, kind, path, old, -1);
	}
	free(old);
	tracefs_put_tracing_file(path);
	return err;
}

/* Push "write text to file of inst" (the value that undoes what comes). */
static int save_text(struct osnkernel *k, struct tracefs_instance *inst, const char *file, const char *text)
{
	char *path = tracefs_instance_get_file(inst, file);
	int err = path ? osnk_push(k, OSNK_WRITE, path, text, -1) : -ENOMEM;
	tracefs_put_tracing_file(path);
	return err;
}

static int wr(struct osnkernel *k, struct tracefs_instance *inst, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int wr(struct osnkernel *k, struct tracefs_instance *inst, const char *file, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	errno = 0;
	if (tracefs_instance_file_write(inst, file, buf) < 0) {
		int err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "writing '%s' to tracefs %s: %s", buf, file,
			 strerror(-err));
		return err;
	}
	return 0;
}

/* A global number: its old value saved, then the new one written. */
static int set_u64(struct osnkernel *k, const char *file, uint64_t v)
{
	int err = save(k, NULL, file, OSNK_WRITE);
	return err ? err : wr(k, NULL, file, "%" PRIu64, v);
}

static uint64_t read_u64(const char *file)
{
	char *s = tracefs_instance_file_read(NULL, file, NULL);
	uint64_t v = s ? strtoull(s, NULL, 10) : 0;
	free(s);
	return v;
}

/* True when word (e.g. "OSNOISE_WORKLOAD") is one of the options flags in
 * opts, as "WORD" or "NO_WORD". */
static bool has_option(const char *opts, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = opts; p && *p;) {
		p += strspn(p, " \t\n");
		size_t len = strcspn(p, " \t\n");
		const char *w = p;
		if (len >= 3 && !strncmp(w, "NO_", 3)) {
			w += 3;
			len -= 3;
		}
		if (len == n && !strncmp(w, word, n))
			return true;
		p = w + len;
	}
	return false;
}

/* osnoise/options (absent before the kernel had options): saved, then the
 * defaults with the workload option as asked. */
static int set_options(struct osnkernel *k, const struct osnkernel_config *cfg)
{
	/* (stat, not tracefs_file_exists(): see osnkernel_available()) */
	struct stat st;
	char *path = tracefs_get_tracing_file("osnoise/options");
	bool exists = path && stat(path, &st) == 0;
	tracefs_put_tracing_file(path);
	char *opts = exists ? tracefs_instance_file_read(NULL, "osnoise/options", NULL) : NULL;
	bool workload = has_option(opts, "OSNOISE_WORKLOAD");
	int err = 0;
	if (cfg->no_workload && !workload) {
		snprintf(k->err, sizeof(k->err), "this kernel's osnoise tracer has no OSNOISE_WORKLOAD "
			 "option (tracefs osnoise/options%s%s), needed by --no-workload",
			 opts ? " has: " : " is absent", opts ? opts : "");
		k->err[strcspn(k->err, "\n")] = 0;
		err = -EOPNOTSUPP;
	} else if (opts) {
		if (!(err = save(k, NULL, "osnoise/options", OSNK_WRITE_EACH)) &&
		    !(err = wr(k, NULL, "osnoise/options", "DEFAULTS")) && workload)
			err = wr(k, NULL, "osnoise/options", cfg->no_workload ? "NO_OSNOISE_WORKLOAD"
									      : "OSNOISE_WORKLOAD");
	}
	free(opts);
	return err;
}

/* osnoise's period and runtime: the kernel keeps runtime <= period at each
 * write, so the period first unless it goes below the runtime in place (the
 * undo, newest first, then keeps the rule too). */
static int set_osnoise_period(struct osnkernel *k, const struct osnkernel_config *cfg)
{
	bool period_first = cfg->period_us >= read_u64("osnoise/runtime_us");
	int err = set_u64(k, period_first ? "osnoise/period_us" : "osnoise/runtime_us",
			  period_first ? cfg->period_us : cfg->runtime_us);
	if (!err)
		err = set_u64(k, period_first ? "osnoise/runtime_us" : "osnoise/period_us",
			      period_first ? cfg->runtime_us : cfg->period_us);
	if (!err && cfg->threshold_us)
		err = set_u64(k, "tracing_thresh", cfg->threshold_us);
	return err;
}

static int set_stop(struct osnkernel *k, uint64_t stop_us, uint64_t stop_total_us)
{
	int err = set_u64(k, "osnoise/stop_tracing_us", stop_us);
	return err ? err : set_u64(k, "osnoise/stop_tracing_total_us", stop_total_us);
}

int osnkernel_set_stop(struct osnkernel *k, uint64_t stop_us, uint64_t stop_total_us)
{
	if (!k || !k->inst || k->stopped)
		return -EINVAL;
	return set_stop(k, stop_us, stop_total_us);
}

/* The global osnoise/ settings of the tracer asked for, each saved first. */
static int set_globals(struct osnkernel *k, const struct osnkernel_config *cfg)
{
	int err;
	if ((err = set_options(k, cfg)) ||
	    (err = save(k, NULL, "osnoise/cpus", OSNK_WRITE)) ||
	    (err = wr(k, NULL, "osnoise/cpus", "%s", cfg->cpus ? cfg->cpus : "all")))
		return err;
	if (cfg->tracer == OSNKERNEL_TRACER_TIMERLAT) {
		if ((err = set_u64(k, "osnoise/timerlat_period_us", cfg->timerlat_period_us)) ||
		    (err = set_u64(k, "osnoise/print_stack", cfg->print_stack_us)))
			return err;
	} else if ((err = set_osnoise_period(k, cfg))) {
		return err;
	}
	return set_stop(k, cfg->stop_us, cfg->stop_total_us);
}

/* The instance's tracing_on reads 0 (a stop threshold turned it off). */
static bool tracing_is_off(struct osnkernel *k)
{
	char *on = tracefs_instance_file_read(k->inst, "tracing_on", NULL);
	bool off = on && on[0] == '0';
	free(on);
	return off;
}

/* The caller's events, filters and triggers, in the instance (removed with
 * it: nothing to undo). */
static int extra_events(struct osnkernel *k, const struct osnkernel_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_extra; i++) {
		const struct osnkernel_event *e = &cfg->extra[i];
		const char *n = e->name ? e->name : "*";
		errno = 0;
		if (tracefs_event_enable(k->inst, e->system, e->name) < 0) {
			snprintf(k->err, sizeof(k->err), "no event %s:%s in this kernel", e->system, n);
			return -ENOENT;
		}
		static const char *const files[] = { "filter", "trigger" };
		const char *texts[] = { e->filter, e->trigger };
		for (int f = 0; f < 2; f++) {
			if (!texts[f])
				continue;
			errno = 0;
			if (!e->name || tracefs_event_file_write(k->inst, e->system, e->name, files[f], texts[f]) < 0) {
				int er = errno ? errno : EINVAL;
				snprintf(k->err, sizeof(k->err), "the kernel refused the %s '%s' of %s:%s: %s", files[f],
					 texts[f], e->system, n, strerror(er));
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int start(struct osnkernel *k, const struct osnkernel_config *cfg)
{
	/* osnoise settings are global (top-level osnoise/ and tracing_thresh) */
	int err = set_globals(k, cfg);
	if (err)
		return err;
	errno = 0;
	k->inst = tracefs_instance_create(OSNKERNEL_INSTANCE);
	char *dir = k->inst ? tracefs_instance_get_dir(k->inst) : NULL;
	if (!dir) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot create tracefs instance %s: %s", OSNKERNEL_INSTANCE,
			 strerror(-err));
		return err;
	}
	err = osnk_push(k, OSNK_RMDIR, dir, "", -1);
	tracefs_put_tracing_file(dir);
	if (err)
		return err;
	if (cfg->events) {
		if ((err = save_text(k, k->inst, "events/osnoise/enable", "0")))
			return err;
		if (tracefs_event_enable(k->inst, "osnoise", NULL) < 0) {
			snprintf(k->err, sizeof(k->err), "cannot enable the osnoise events");
			return -EIO;
		}
		if (cfg->no_samples && tracefs_event_disable(k->inst, "osnoise", "sample_threshold") < 0) {
			snprintf(k->err, sizeof(k->err), "cannot leave osnoise:sample_threshold off");
			return -EIO;
		}
	}
	if ((err = extra_events(k, cfg)))
		return err;
	/* the instance's own buffer: gone with it, nothing to restore */
	if (cfg->buffer_kb && (err = wr(k, k->inst, "buffer_size_kb", "%" PRIu64, cfg->buffer_kb)))
		return err;
	/* the ring off while the tracer starts (setting a tracer empties the
	 * ring, and no new one is taken while a trace_pipe is open): then the
	 * pipe, then the ring on and the window's mark at once.  ring_off:
	 * the ring stays off (the samples go to the tracepoint only). */
	if ((err = save_text(k, k->inst, "tracing_on", "0")) || (err = wr(k, k->inst, "tracing_on", "0")) ||
	    (err = save_text(k, k->inst, "current_tracer", "nop")))
		return err;
	const char *tracer = cfg->tracer == OSNKERNEL_TRACER_TIMERLAT ? "timerlat" : "osnoise";
	errno = 0;
	if (tracefs_tracer_set(k->inst, TRACEFS_TRACER_CUSTOM, tracer) < 0) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot select the %s tracer: %s (another "
			 "instance may run osnoise or timerlat)", tracer, strerror(-err));
		return err;
	}
	k->fd = tracefs_instance_file_open(k->inst, "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (k->fd < 0) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot open trace_pipe: %s", strerror(-err));
		return err;
	}
	if ((err = osnk_push(k, OSNK_CLOSE, NULL, "", k->fd)))
		return err;
	k->ring_off = cfg->ring_off;
	if (cfg->ring_off)
		return 0;
	tracefs_trace_on(k->inst);
	err = wr(k, k->inst, "trace_marker", "%s", OSNKERNEL_MARK_START);
	if (err && tracing_is_off(k)) {
		/* a stop threshold was hit between the two writes: the window
		 * is the ring's whole content */
		k->unmarked = true;
		return 0;
	}
	return err;
}

bool osnkernel_unmarked(const struct osnkernel *k)
{
	return k && k->unmarked;
}

int osnkernel_mark(struct osnkernel *k, const char *text)
{
	if (!k || !k->inst || k->stopped || k->ring_off)
		return -EINVAL;
	return wr(k, k->inst, "trace_marker", "%s", text);
}

int osnkernel_quiesce(struct osnkernel *k)
{
	if (!k || !k->inst || k->stopped)
		return -EINVAL;
	if (k->ring_off)
		return 0;
	/* a stop threshold turned tracing off already (the kernel's stop in
	 * every instance): the window ended there, no mark can follow */
	if (tracing_is_off(k))
		return 1;
	int err = wr(k, k->inst, "trace_marker", "%s", OSNKERNEL_MARK_END);
	if (tracefs_trace_off(k->inst) < 0 && !err) {
		err = errno ? -errno : -EIO;
		snprintf(k->err, sizeof(k->err), "cannot stop tracing in the instance: %s", strerror(-err));
	}
	return err;
}

/* The number after "name:" in a per_cpu stats text, 0 when absent. */
static uint64_t stat_field(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
	return 0;
}

int osnkernel_lost(struct osnkernel *k, uint64_t *lost)
{
	*lost = 0;
	if (!k || !k->inst)
		return -EINVAL;
	char *dir = tracefs_instance_get_file(k->inst, "per_cpu");
	DIR *d = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	int read = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		char file[300];
		snprintf(file, sizeof(file), "per_cpu/%s/stats", de->d_name);
		char *t = tracefs_instance_file_read(k->inst, file, NULL);
		if (!t)
			continue;
		read++;
		*lost += stat_field(t, "overrun") + stat_field(t, "commit overrun") +
			 stat_field(t, "dropped events");
		free(t);
	}
	if (d)
		closedir(d);
	if (!read) {
		snprintf(k->err, sizeof(k->err), "cannot read the instance's per_cpu/cpuN/stats");
		return -ENOENT;
	}
	return 0;
}

int osnkernel_start(struct osnkernel **kp, const struct osnkernel_config *cfg)
{
	struct osnkernel *k = calloc(1, sizeof(*k));
	*kp = k;
	if (!k)
		return -ENOMEM;
	k->fd = -1;
	if (osnk_running) {
		snprintf(k->err, sizeof(k->err), "the kernel tracer is driven already");
		return -EBUSY;
	}
	bool tl = cfg->tracer == OSNKERNEL_TRACER_TIMERLAT;
	if (!osnkernel_has_tracer(tl ? "timerlat" : "osnoise")) {
		snprintf(k->err, sizeof(k->err), "the kernel has no %s tracer (no %s/osnoise or no %s in "
			 "available_tracers; needs CONFIG_%s_TRACER)", tl ? "timerlat" : "osnoise",
			 tracefs_tracing_dir() ?: "tracefs", tl ? "timerlat" : "osnoise",
			 tl ? "TIMERLAT" : "OSNOISE");
		return -ENODEV;
	}
	osnk_running = k->owner = true;
	return start(k, cfg);
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
	int first = 0;
	if (!k || k->stopped)
		return 0;
	k->stopped = true;
	if (k->owner) {
		/* every step of this run, newest first; all are tried */
		for (int i = __atomic_load_n(&osnk_nr, __ATOMIC_ACQUIRE); i-- > 0;) {
			int e = osnk_undo(i);
			if (e && !first) {
				first = -e;
				snprintf(k->err, sizeof(k->err), "cannot write '%s' back to %s: %s",
					 osnk_steps[i].text, osnk_steps[i].path, strerror(e));
			}
			__atomic_store_n(&osnk_nr, i, __ATOMIC_RELEASE);
		}
		osnk_running = false;
	}
	return first;
}

void osnkernel_free(struct osnkernel *k)
{
	if (!k)
		return;
	osnkernel_stop(k);
	if (k->inst)
		tracefs_instance_free(k->inst);
	free(k);
}
