/* SPDX-License-Identifier: MIT */
/* histtrig.c - the kernel hist-trigger backend: its recipe set up and undone
 * through tracefs, its hist text read (see histtrig.h); the parser of that
 * text is histtrig_parse.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "live/histtrig.h"

const char *histtrig_kind_refusal(enum hset_kind k)
{
	switch (k) {
	case HSET_WAKEUP:
		return NULL;
	case HSET_WAKEUP_SHAREDPRIO:
		return "needs the priority of the task running on the target CPU at the wakeup and of "
		       "the one tracked there: a hist variable is read once, so no trigger can keep a "
		       "CPU's running priority for the next wakeup";
	case HSET_MISSED_TIMER:
		return "needs the timers whose callback wakes a task: hrtimer_start -> "
		       "hrtimer_expire_entry gives every timer's offset, and no trigger can tell "
		       "whether the callback woke a task before hrtimer_expire_exit";
	case HSET_TIMERANDWAKEUP:
		return "needs the missed timer offset of the timer that woke the task (see "
		       "missed_timer_offsets) carried to its switch-in";
	default:
		return "the kernel has no preemptirq tracepoints here, and a hist trigger on them "
		       "would be one more tracepoint in every irq/preempt toggle";
	}
}

/* ---- setting the recipe up and undoing it ------------------------------- */

/*
 * What the run changed, oldest first, undone newest first by histtrig_stop()
 * and by histtrig_emergency_restore().  Static: the handler needs memory
 * that is never freed; one run at a time.  A step is filled, then published
 * (ht_nr raised, release); undoing a step twice, or one whose change was
 * never made, is harmless (the kernel refuses "!" of a trigger it does not
 * have).
 */
enum ht_kind {
	HT_APPEND = 1,		/* append text to path (triggers, synthetic_events: never
				 * O_TRUNC, which would clear every one of them) */
	HT_RMDIR,		/* remove the instance we made */
};
#define HT_STEPS 8
#define HT_TEXT 1024
static struct {
	enum ht_kind kind;
	char path[PATH_MAX];
	char text[HT_TEXT];
} ht_steps[HT_STEPS];
static int ht_nr;		/* published steps; atomic */
static bool ht_running;
/* The descriptor this module has open in tracefs, -1 none: an abort closes
 * it first, as the kernel refuses to remove an instance one of its files is
 * open in (the handler runs in the thread that opened it, which never
 * resumes). */
static volatile sig_atomic_t ht_open_fd = -1;

struct histtrig {
	struct histtrig_cfg cfg;
	bool *cpu_on;			/* cfg.cpu_on's copy, or NULL */
	struct tracefs_instance *inst;
	int gen_step;			/* the undo step of the trigger making the samples, -1 */
	struct histtrig_window win;
	bool owner, stopped;
	/* the two hists on the synthetic event, as written (histtrig_clear
	 * names them again) */
	char hist_lat[HT_TEXT], hist_max[HT_TEXT];
	char err[1024];
};

/* Async-signal-safe: text and a newline in one write (one command, as echo
 * writes it); 0 or the errno of the failed open/write. */
static int ht_append(const char *path, const char *text)
{
	char b[HT_TEXT + 1];
	size_t len = strlen(text);
	if (len >= HT_TEXT)
		return ENAMETOOLONG;
	memcpy(b, text, len);
	b[len++] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ht_open_fd = fd;
	ssize_t n = write(fd, b, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	ht_open_fd = -1;
	close(fd);
	return e;
}

/* Undo step i: 0, or the errno of what failed.  ENOENT (no such file, or
 * the kernel has no such trigger or event: the change was never made, as
 * after a start that failed at that write) leaves nothing to undo. */
static int ht_undo(int i)
{
	if (ht_steps[i].kind == HT_APPEND) {
		int e = ht_append(ht_steps[i].path, ht_steps[i].text);
		return e == ENOENT ? 0 : e;
	}
	if (rmdir(ht_steps[i].path) < 0 && errno != ENOENT)
		return errno;
	return 0;
}

void histtrig_emergency_restore(void)
{
	int fd = ht_open_fd;

	if (fd >= 0)
		close(fd);
	for (int i = __atomic_load_n(&ht_nr, __ATOMIC_ACQUIRE); i-- > 0;)
		ht_undo(i);
}

const char *histtrig_strerror(const struct histtrig *h)
{
	return h ? h->err : "out of memory";
}

static int ht_push(struct histtrig *h, enum ht_kind kind, const char *path, const char *text)
{
	int i = __atomic_load_n(&ht_nr, __ATOMIC_RELAXED);
	if (i == HT_STEPS || strlen(path) >= sizeof(ht_steps[i].path) ||
	    strlen(text) >= sizeof(ht_steps[i].text)) {
		snprintf(h->err, sizeof(h->err), "cannot save the undo of %s (%zu bytes)", path,
			 strlen(text));
		return -ENOSPC;
	}
	ht_steps[i].kind = kind;
	snprintf(ht_steps[i].path, sizeof(ht_steps[i].path), "%s", path);
	snprintf(ht_steps[i].text, sizeof(ht_steps[i].text), "%s", text);
	__atomic_store_n(&ht_nr, i + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Save "!text" (the kernel's removal of exactly that trigger or event, its
 * filter included), then append text to file of inst (NULL: the top level). */
static int ht_add(struct histtrig *h, struct tracefs_instance *inst, const char *file,
		  const char *text, const char *undo)
{
	char *path = tracefs_instance_get_file(inst, file);
	char u[HT_TEXT];
	int err;

	if (!path)
		return -ENOMEM;
	snprintf(u, sizeof(u), "!%s", undo ? undo : text);
	err = ht_push(h, HT_APPEND, path, u);
	if (!err && (err = -ht_append(path, text)))
		snprintf(h->err, sizeof(h->err), "writing '%s' to tracefs %s: %s", text, file,
			 strerror(-err));
	tracefs_put_tracing_file(path);
	return err;
}

int histtrig_available(char *why, size_t why_len)
{
	/* (stat, not tracefs_file_exists(): libtracefs 1.6 looks in the mounted
	 * tracefs there even after tracefs_set_tracing_dir()) */
	struct stat st;
	char *path = tracefs_get_tracing_file("synthetic_events");
	bool synth = path && stat(path, &st) == 0;
	tracefs_put_tracing_file(path);
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	bool hist = readme && strstr(readme, "hist:keys=");
	free(readme);
	if (synth && hist)
		return 0;
	snprintf(why, why_len, "the kernel has no %s (needs CONFIG_HIST_TRIGGERS; %s/%s)",
		 synth ? "hist triggers" : "synthetic events", tracefs_tracing_dir() ?: "tracefs",
		 synth ? "README names no hist:keys=" : "synthetic_events is absent");
	return -ENODEV;
}

/* The three texts libtracefs builds for the synthetic event and the two
 * triggers feeding it: "s:NAME fields" and two "hist:..." */
static int build(struct histtrig *h, char *def, char *start, char *end, size_t len)
{
	const char *sys[] = { "sched", NULL };
	struct tep_handle *tep = tracefs_local_events_system(NULL, sys);
	struct tracefs_synth *s = NULL;
	struct trace_seq seq;
	char pid[24];
	int err = -EINVAL;

	trace_seq_init(&seq);
	if (!tep) {
		snprintf(h->err, sizeof(h->err), "cannot read the sched events' formats from tracefs");
		err = -ENOENT;
		goto out;
	}
	snprintf(pid, sizeof(pid), "%" PRId32, h->cfg.pid);
	s = tracefs_synth_alloc(tep, HISTTRIG_SYNTH, "sched", "sched_waking", "sched",
				"sched_switch", "pid", "next_pid", "pid");
	if (!s || tracefs_synth_add_compare_field(s, TRACEFS_TIMESTAMP, TRACEFS_TIMESTAMP,
						  TRACEFS_SYNTH_DELTA_END, "lat") ||
	    tracefs_synth_add_end_field(s, "next_prio", "prio") ||
	    tracefs_synth_add_end_field(s, "next_comm", "comm") ||
	    tracefs_synth_add_end_field(s, "prev_pid", "prev_pid") ||
	    tracefs_synth_add_end_field(s, "prev_prio", "prev_prio") ||
	    tracefs_synth_add_end_field(s, "prev_comm", "prev_comm") ||
	    tracefs_synth_add_end_field(s, TRACEFS_TIMESTAMP, "ts_ns") ||
	    (h->cfg.pid > 0 ? tracefs_synth_append_start_filter(s, TRACEFS_FILTER_COMPARE, "pid",
								TRACEFS_COMPARE_EQ, pid)
	     : !h->cfg.all_tasks && tracefs_synth_append_start_filter(s, TRACEFS_FILTER_COMPARE, "prio",
								      TRACEFS_COMPARE_LT, "100")) ||
	    tracefs_synth_echo_cmd(&seq, s) < 0) {
		snprintf(h->err, sizeof(h->err), "libtracefs cannot build the synthetic event: %s",
			 strerror(errno ? errno : EINVAL));
		goto out;
	}
	trace_seq_terminate(&seq);
	/* three lines "echo 'TEXT' >> FILE": the texts; the files are ours to choose */
	char *out[3] = { def, start, end };
	const char *p = seq.buffer;
	int n = 0;
	for (; n < 3 && p && (p = strchr(p, '\'')); n++) {
		const char *q = strchr(p + 1, '\'');
		if (!q || (size_t)(q - p - 1) >= len)
			break;
		memcpy(out[n], p + 1, (size_t)(q - p - 1));
		out[n][q - p - 1] = '\0';
		p = strchr(q, '\n');
	}
	if (n != 3 || strncmp(def, "s:", 2) || strncmp(start, "hist:", 5) || strncmp(end, "hist:", 5)) {
		snprintf(h->err, sizeof(h->err), "libtracefs built an unexpected recipe: %.200s",
			 seq.buffer);
		goto out;
	}
	memmove(def, def + 2, strlen(def + 2) + 1);	/* for synthetic_events */
	err = 0;
out:
	trace_seq_destroy(&seq);
	tracefs_synth_free(s);
	tep_free(tep);
	return err;
}

/* text with ":clock=mono" after its hist part (before " if FILTER") */
static int with_clock(char *text, size_t len)
{
	char *f = strstr(text, " if ");
	size_t at = f ? (size_t)(f - text) : strlen(text), add = strlen(":clock=mono");

	if (strlen(text) + add >= len)
		return -ENOSPC;
	memmove(text + at + add, text + at, strlen(text + at) + 1);
	memcpy(text + at, ":clock=mono", add);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t entries_for(const struct histtrig_cfg *cfg)
{
	uint64_t want = cfg->entries, on = 0;

	if (!want) {
		for (uint32_t i = 0; i < cfg->nr_cpus; i++)
			on += !cfg->cpu_on || cfg->cpu_on[i];
		want = on * ((uint64_t)cfg->hist.nr_buckets + 2);	/* + below, above */
	}
	uint32_t n = 2048;
	while (n < want && n < HISTTRIG_MAX_ENTRIES)
		n <<= 1;
	return n;
}

static int start(struct histtrig *h)
{
	char def[HT_TEXT], strig[HT_TEXT], etrig[HT_TEXT];
	const char *sfile = "events/sched/sched_waking/trigger", *efile = "events/sched/sched_switch/trigger";
	const char *yfile = "events/synthetic/" HISTTRIG_SYNTH "/trigger";
	int err;

	if ((err = histtrig_available(h->err, sizeof(h->err))))
		return err;
	if (h->cfg.hist.bucket_ns == 0 || h->cfg.hist.lo_ns % (int64_t)h->cfg.hist.bucket_ns) {
		snprintf(h->err, sizeof(h->err), "the kernel's buckets start at 0: the offset must be a "
			 "multiple of the resolution");
		return -EINVAL;
	}
	if ((err = build(h, def, strig, etrig, sizeof(def))) ||
	    (err = with_clock(strig, sizeof(strig))) || (err = with_clock(etrig, sizeof(etrig))))
		return err;
	char *have = tracefs_instance_file_read(NULL, "synthetic_events", NULL);
	for (const char *p = have; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, HISTTRIG_SYNTH, strlen(HISTTRIG_SYNTH)) &&
		    (p[strlen(HISTTRIG_SYNTH)] == ' ' || p[strlen(HISTTRIG_SYNTH)] == '\t'))
			err = -EBUSY;
	free(have);
	if (err) {
		snprintf(h->err, sizeof(h->err), "the synthetic event %s exists already (another run, "
			 "or one killed by SIGKILL: echo '!%s' >> synthetic_events after removing its "
			 "triggers)", HISTTRIG_SYNTH, HISTTRIG_SYNTH);
		return err;
	}
	errno = 0;
	h->inst = tracefs_instance_create(HISTTRIG_INSTANCE);
	char *dir = h->inst ? tracefs_instance_get_dir(h->inst) : NULL;
	if (!dir) {
		err = errno ? -errno : -EIO;
		snprintf(h->err, sizeof(h->err), "cannot create tracefs instance %s: %s",
			 HISTTRIG_INSTANCE, strerror(-err));
		return err;
	}
	/* an instance that was there before stays (it is not ours to remove) */
	err = tracefs_instance_is_new(h->inst) ? ht_push(h, HT_RMDIR, dir, "") : 0;
	tracefs_put_tracing_file(dir);
	if (err)
		return err;
	/* the synthetic event (global), the two hists on it, then its feeders:
	 * the last write turns the recipe on */
	if ((err = ht_add(h, NULL, "synthetic_events", def, HISTTRIG_SYNTH)))
		return err;
	snprintf(h->hist_lat, sizeof(h->hist_lat),
		 "hist:keys=cpu,lat.buckets=%" PRIu64 ":vals=hitcount,lat:sort=cpu,lat:size=%" PRIu32,
		 h->cfg.hist.bucket_ns, entries_for(&h->cfg));
	if ((err = ht_add(h, h->inst, yfile, h->hist_lat, NULL)))
		return err;
	snprintf(h->hist_max, sizeof(h->hist_max), "hist:keys=cpu:vals=hitcount:maxlat=lat:onmax($maxlat)"
		 ".save(pid,prio,comm,prev_pid,prev_prio,prev_comm,ts_ns)");
	if ((err = ht_add(h, h->inst, yfile, h->hist_max, NULL)) ||
	    (err = ht_add(h, h->inst, sfile, strig, NULL)))
		return err;
	h->win.on_lo_ns = mono_ns();
	err = ht_add(h, h->inst, efile, etrig, NULL);
	h->win.on_hi_ns = mono_ns();
	if (!err)
		h->gen_step = __atomic_load_n(&ht_nr, __ATOMIC_RELAXED) - 1;
	return err;
}

int histtrig_start(struct histtrig **out, const struct histtrig_cfg *cfg)
{
	struct histtrig *h = calloc(1, sizeof(*h));

	*out = h;
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	h->gen_step = -1;
	if (cfg->cpu_on && cfg->nr_cpus) {
		h->cpu_on = malloc(cfg->nr_cpus * sizeof(bool));
		if (!h->cpu_on)
			return -ENOMEM;
		memcpy(h->cpu_on, cfg->cpu_on, cfg->nr_cpus * sizeof(bool));
	}
	h->cfg.cpu_on = h->cpu_on;
	if (ht_running) {
		snprintf(h->err, sizeof(h->err), "the hist triggers are driven already");
		return -EBUSY;
	}
	ht_running = h->owner = true;
	return start(h);
}

int histtrig_clear(struct histtrig *h)
{
	const char *yfile = "events/synthetic/" HISTTRIG_SYNTH "/trigger";
	char t[HT_TEXT + 16];	/* a hist and ":clear" or "!" */
	int err = 0;

	if (h->stopped || !h->hist_max[0])
		return -EINVAL;
	char *path = tracefs_instance_get_file(h->inst, yfile);
	if (!path)
		return -ENOMEM;
	/* the bucket hist: the kernel finds the hist with the same definition
	 * and clears it (Documentation/trace/histogram.rst, "clear"); the max
	 * hist refuses "clear" (its variable would be defined twice: EINVAL on
	 * 6.1), so it is removed and set again, its onmax from zero (no
	 * worst case is kept for the microseconds in between) */
	snprintf(t, sizeof(t), "%s:clear", h->hist_lat);
	if ((err = -ht_append(path, t)))
		snprintf(h->err, sizeof(h->err), "clearing the bucket hist: %s", strerror(-err));
	snprintf(t, sizeof(t), "!%s", h->hist_max);
	if (!err && (err = -ht_append(path, t)))
		snprintf(h->err, sizeof(h->err), "removing the max hist to clear it: %s", strerror(-err));
	if (!err && (err = -ht_append(path, h->hist_max)))
		snprintf(h->err, sizeof(h->err), "setting the max hist again: %s (the worst case is no "
			 "longer kept)", strerror(-err));
	tracefs_put_tracing_file(path);
	return err;
}

void histtrig_window(const struct histtrig *h, struct histtrig_window *w)
{
	*w = h->win;
}

/* The whole of path, NUL-terminated (the caller frees it); NULL with errno. */
static char *ht_read(const char *path)
{
	size_t len = 0, cap = 65536;
	char *b = malloc(cap);
	int fd = b ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = 0;

	if (fd < 0) {
		free(b);
		return NULL;
	}
	ht_open_fd = fd;
	while ((n = read(fd, b + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			char *nb = cap < (64u << 20) ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	int e = errno;
	ht_open_fd = -1;
	close(fd);
	if (n < 0) {
		free(b);
		errno = e;
		return NULL;
	}
	b[len] = '\0';
	return b;
}

int histtrig_read(struct histtrig *h, struct hset *set, struct histtrig_stats *st)
{
	errno = 0;
	char *path = h->inst ? tracefs_instance_get_file(h->inst, "events/synthetic/" HISTTRIG_SYNTH "/hist")
			     : NULL;
	char *text = path ? ht_read(path) : NULL;
	tracefs_put_tracing_file(path);
	if (!text) {
		int err = errno ? -errno : -EIO;
		snprintf(h->err, sizeof(h->err), "cannot read the synthetic event's hist: %s",
			 strerror(-err));
		return err;
	}
	int err = histtrig_parse(text, &h->cfg, set, st);
	free(text);
	return err;
}

/* (The kernel refuses "hist:...:pause" for a trigger with variables or
 * actions: it parses them again and finds them defined.  The trigger that
 * makes the samples is the newest change, so it is undone first, now.) */
int histtrig_pause(struct histtrig *h)
{
	int i = h ? h->gen_step : -1;

	if (i < 0 || h->stopped || __atomic_load_n(&ht_nr, __ATOMIC_ACQUIRE) != i + 1)
		return -EINVAL;
	h->win.off_lo_ns = mono_ns();
	int e = ht_undo(i);
	h->win.off_hi_ns = mono_ns();
	if (e) {
		snprintf(h->err, sizeof(h->err), "cannot remove the sched_switch trigger: %s", strerror(e));
		return -e;
	}
	__atomic_store_n(&ht_nr, i, __ATOMIC_RELEASE);
	h->gen_step = -1;
	return 0;
}

int histtrig_stop(struct histtrig *h)
{
	int first = 0;

	if (!h || h->stopped)
		return 0;
	h->stopped = true;
	if (!h->owner)
		return 0;
	for (int i = __atomic_load_n(&ht_nr, __ATOMIC_ACQUIRE); i-- > 0;) {
		int e = ht_undo(i);
		if (e && !first) {
			first = -e;
			snprintf(h->err, sizeof(h->err), "cannot undo: '%s' to %s: %s", ht_steps[i].text,
				 ht_steps[i].path, strerror(e));
		}
		__atomic_store_n(&ht_nr, i, __ATOMIC_RELEASE);
	}
	ht_running = false;
	return first;
}

void histtrig_free(struct histtrig *h)
{
	if (!h)
		return;
	histtrig_stop(h);
	if (h->inst)
		tracefs_instance_free(h->inst);
	free(h->cpu_on);
	free(h);
}
