/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the kernel hist-trigger backend (lib/live/histtrig/): the
 * parser on hist text captured in Debian's 6.1 guests by the kernel tier
 * (tests/data/histtrig/: tests/kernels/guest/hist_kernel_backend.sh saves
 * it as art/captured.hist) and on hostile text; the set-up and its undo
 * against a fake tracefs tree (files in a directory, tracefs_set_tracing_dir):
 * what is written where, and that histtrig_stop() and
 * histtrig_emergency_restore() append the removals newest first; the same
 * through the live-source adapter (engine/hsource.h, hsource_kernel): open,
 * sync, stats, finish, a refused open and a close before finish.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "test_faketfs.h"

#include <tracefs.h>

#include "base/hset.h"
#include "engine/hsource.h"
#include "live/histtrig.h"

#ifndef HISTTRIG_TEST_DATA
#define HISTTRIG_TEST_DATA "tests/data"
#endif

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *b = calloc(1, 1 << 20);
	assert_non_null(b);
	size_t n = fread(b, 1, (1 << 20) - 1, f);
	fclose(f);
	b[n] = '\0';
	return b;
}

static struct hset *new_set(uint32_t nr_cpus)
{
	struct hset *s;
	assert_int_equal(hset_new(&s, nr_cpus, NULL), 0);
	return s;
}

static struct histtrig_cfg cfg2(const bool *on)
{
	struct histtrig_cfg c = { .nr_cpus = 2, .cpu_on = on };
	lhist_cfg_default(&c.hist);
	return c;
}

/* Debian's 6.1 PREEMPT_RT guest, the timer workload on CPU 1 (-c 1) */
static void test_parse_rt61(void **state)
{
	(void)state;
	char *t = slurp(HISTTRIG_TEST_DATA "/histtrig/rt61.hist");
	struct hset *s = new_set(2);
	struct histtrig_cfg c = cfg2(NULL);
	struct histtrig_stats st;

	assert_int_equal(histtrig_parse(t, &c, s, &st), 0);
	assert_int_equal(st.bad_lines, 0);
	assert_true(st.has_max);
	assert_int_equal(st.hits, 2437);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.outside_cpus, 0);
	const struct lhist *h0 = hset_hist(s, HSET_WAKEUP, 0), *h1 = hset_hist(s, HSET_WAKEUP, 1);
	assert_non_null(h0);
	assert_non_null(h1);
	/* the text was read while samples came: the entries printed sum to 2435,
	 * the Totals counted a moment later say 2437 */
	assert_int_equal(h0->total + h1->total, 2435);
	/* 136.6 ms: past the default 10240 us */
	assert_int_equal(h1->max_ns, 136601560);
	assert_true(h1->above >= 1);
	const struct hset_max *m = hset_max(s, HSET_WAKEUP, 1);
	assert_true(m->valid);
	assert_int_equal(m->latency_ns, 136601560);
	assert_int_equal(m->pid, 162);
	assert_int_equal(m->prio, 4);
	assert_string_equal(m->comm, "latscope");
	assert_true(m->has_culprit);
	assert_int_equal(m->culprit_pid, 28);
	assert_int_equal(m->culprit_prio, 98);
	assert_string_equal(m->culprit_comm, "ktimers/1");
	assert_int_equal(m->time_ns, 8004310040ULL);
	assert_int_equal(hset_max(s, HSET_WAKEUP, 0)->latency_ns, 6020600);
	/* a minimum within its bucket, the counts' sum the total */
	uint64_t sum = h1->below + h1->above;
	for (uint32_t i = 0; i < h1->cfg.nr_buckets; i++)
		sum += h1->counts[i];
	assert_int_equal(sum, h1->total);
	assert_true(h1->min_ns <= h1->max_ns && h1->min_ns >= 0);
	/* only CPU 1 asked: CPU 0's samples counted apart */
	bool on[2] = { false, true };
	c = cfg2(on);
	assert_int_equal(histtrig_parse(t, &c, s, &st), 0);
	assert_true(!hset_hist(s, HSET_WAKEUP, 0) || hset_hist(s, HSET_WAKEUP, 0)->total == 0);
	assert_false(hset_max(s, HSET_WAKEUP, 0)->valid);
	assert_int_equal(st.outside_cpus, 55);	/* CPU 0's entries */
	assert_int_equal(hset_hist(s, HSET_WAKEUP, 1)->total, 2380);
	hset_free(s);
	free(t);
}

/* Debian's 6.1 generic guest */
static void test_parse_generic61(void **state)
{
	(void)state;
	char *t = slurp(HISTTRIG_TEST_DATA "/histtrig/generic61.hist");
	struct hset *s = new_set(2);
	struct histtrig_cfg c = cfg2(NULL);
	struct histtrig_stats st;

	assert_int_equal(histtrig_parse(t, &c, s, &st), 0);
	assert_int_equal(st.bad_lines, 0);
	assert_int_equal(st.hits, 2649);
	assert_int_equal(st.entries, 219);
	assert_int_equal(hset_hist(s, HSET_WAKEUP, 0)->total + hset_hist(s, HSET_WAKEUP, 1)->total, 2648);
	const struct hset_max *m = hset_max(s, HSET_WAKEUP, 0);
	assert_int_equal(m->latency_ns, 3805700);
	assert_string_equal(m->comm, "migration/0");
	assert_int_equal(m->prio, 0);
	assert_string_equal(hset_max(s, HSET_WAKEUP, 1)->culprit_comm, "cat");
	hset_free(s);
	free(t);
}

/* Text that is cut, out of range or of another bucket width: counted, skipped. */
static void test_parse_hostile(void **state)
{
	(void)state;
	static const char text[] =
		"# trigger info: hist:keys=common_cpu,lat.buckets=1000:vals=hitcount,lat:size=2048 [active]\n"
		"{ cpu:          1, lat: ~ 2000-2999 } hitcount:          3  lat:       7500\n"
		"{ cpu:          1, lat: ~ 3000-3999 } hitcount:  \n"			/* truncated */
		"{ cpu:          1, lat: ~ 3000-\n"						/* truncated */
		"{ cpu:          1, lat: ~ 3000-3499 } hitcount:          1  lat:       3100\n"	/* width */
		"{ cpu:          1, lat: ~ 99999999999999999999-1 } hitcount: 1  lat: 1\n"	/* > u64 */
		"{ cpu:          1, lat: ~ 18446744073709550616-18446744073709551615 } hitcount: 1  lat: 1\n"
		"{ cpu: 99999999999, lat: ~ 1000-1999 } hitcount:          1  lat:       1500\n"
		"{ cpu:          1, lat: ~ 9000-9999 } hitcount: 18446744073709551615  lat: 18446744073709551615\n"
		"{ cpu:          0, lat: ~ 4000-4999 } hitcount:          0  lat:          0\n"	/* 0 */
		"garbage line\n"
		"Totals:\n    Hits: 99999999999999999999\n    Entries: 3\n    Dropped: 2\n"
		"# trigger info: hist:keys=common_cpu:vals=hitcount:maxlat=lat:onmax($maxlat).save(pid) [active]\n"
		"{ cpu:          1 } hitcount:          4\n"
		"\tmax:   9100  pid:  -5  prio: 4  comm: a b  prev_pid: 0  prev_prio: 120  prev_comm: swapper/1  ts_ns: 5\n"
		"{ cpu:          0 } hitcount:          1\n"
		"\tmax:   9100  pid:  99999999999  prio: 4\n"				/* range, cut */
		"\tmax: 1 pid: 1\n"								/* no entry */
		"{ cpu:          1, lat: ~ 2000-2999 }";					/* no newline */
	struct hset *s = new_set(2);
	struct histtrig_cfg c = cfg2(NULL);
	struct histtrig_stats st;

	assert_int_equal(histtrig_parse(text, &c, s, &st), 0);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.outside_cpus, 1);
	/* the two good lines of CPU 1 and the saturated one */
	const struct lhist *h = hset_hist(s, HSET_WAKEUP, 1);
	assert_non_null(h);
	assert_int_equal(h->counts[2], 3);
	assert_int_equal(h->counts[9], UINT64_MAX);
	assert_int_equal(h->sum_ns, INT64_MAX);
	assert_int_equal(h->max_ns, 9100);
	const struct hset_max *m = hset_max(s, HSET_WAKEUP, 1);
	assert_int_equal(m->pid, -5);
	assert_string_equal(m->comm, "a b");
	assert_string_equal(m->culprit_comm, "swapper/1");
	/* truncated x2, width, > u64, key past INT64_MAX, hitcount 0, garbage,
	 * Hits > u64, max out of range, and the max line after it (its entry
	 * was not closed); the last line is an entry of the max hist */
	assert_int_equal(st.bad_lines, 10);
	assert_false(hset_max(s, HSET_WAKEUP, 0)->valid);
	/* a set of another geometry */
	c.hist.bucket_ns = 100;
	assert_int_equal(histtrig_parse(text, &c, s, &st), -EINVAL);
	hset_free(s);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_null(histtrig_kind_refusal(HSET_WAKEUP));
	for (int k = HSET_WAKEUP_SHAREDPRIO; k < HSET_NR_KINDS; k++)
		assert_non_null(histtrig_kind_refusal(k));
}

/* ---- set-up and undo against a fake tracefs ------------------------------- */


static char *get(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	return slurp(path);
}

static void mkp(const char *rel)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", tdir, rel);
	assert_int_equal(system(cmd), 0);
}

/* Debian's 6.1 RT format of sched/name (tests/data/formats-rt61) */
static void copy_format(const char *name)
{
	char cmd[PATH_MAX * 2];
	mkp(strcat(strcpy((char[128]){ 0 }, "events/sched/"), name));
	snprintf(cmd, sizeof(cmd), "cp %s/formats-rt61/sched/%s/format %s/events/sched/%s/format",
		 HISTTRIG_TEST_DATA, name, tdir, name);
	assert_int_equal(system(cmd), 0);
}

#define I "instances/" HISTTRIG_INSTANCE "/events/"
#define Y I "synthetic/" HISTTRIG_SYNTH "/"

/* A tree with what the kernel shows: the instance's files are made in
 * advance (a real mkdir makes them), so the instance is not new and stays. */
static void fake_tree(void)
{
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	assert_int_equal(system(cmd), 0);
	mkp("events");
	put("README", "  hist trigger: hist:keys=<field1[,field2,...]>\n");
	put("synthetic_events", "");
	put("dynamic_events", "");
	snprintf(cmd, sizeof(cmd), "cp %s/formats-rt61/header_page %s/events/", HISTTRIG_TEST_DATA, tdir);
	assert_int_equal(system(cmd), 0);
	copy_format("sched_switch");
	copy_format("sched_waking");
	put("events/sched/enable", "0\n");	/* how libtracefs knows a system */
	mkp(I "sched/sched_waking");
	mkp(I "sched/sched_switch");
	mkp(Y);
	put(I "sched/sched_waking/trigger", "");
	put(I "sched/sched_switch/trigger", "");
	put(Y "trigger", "");
	put(Y "hist", "");
}

/* libtracefs 1.6 decides how to define a synthetic event (dynamic_events or
 * synthetic_events, with or without the "s:" prefix) once, by looking in
 * the mounted tracefs even under tracefs_set_tracing_dir(): with no tracefs
 * mounted it picks the old form and the build fails.  tracefs_tracing_dir()
 * first mounts it where it can (as latscope's own first tracefs call
 * does); where it cannot (no root, no tracefs), the tests that build a
 * synthetic event skip, saying why. */
static bool synth_ok;

static void need_synth(void)
{
	if (!synth_ok) {
		fprintf(stderr, "no dynamic_events in the mounted tracefs (not mounted, not mountable): "
				"libtracefs 1.6 cannot build a synthetic event then\n");
		skip();
	}
}

static int setup_fake(void **state)
{
	(void)state;
	snprintf(tdir, sizeof(tdir), "/tmp/latscope-histtrig.%d", (int)getpid());
	(void)tracefs_tracing_dir();
	fake_tree();
	int err = tracefs_set_tracing_dir(tdir);
	synth_ok = tracefs_file_exists(NULL, "dynamic_events");
	return err;
}

static int teardown_fake(void **state)
{
	(void)state;
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	int rc = system(cmd);
	(void)rc;
	return tracefs_set_tracing_dir(NULL);
}

/* n-th line (0-based) of text, copied (four buffers in turn: two calls can
 * be compared) */
static const char *line(const char *text, int n)
{
	static char bufs[4][2048];
	static int turn;
	char *b = bufs[turn++ % 4];
	const char *p = text;
	for (; n > 0 && p; n--)
		p = strchr(p, '\n'), p = p ? p + 1 : NULL;
	b[0] = '\0';
	if (p)
		snprintf(b, sizeof(bufs[0]), "%.*s", (int)strcspn(p, "\n"), p);
	return b;
}

static void assert_undone(void)
{
	char *se = get("synthetic_events"), *w = get(I "sched/sched_waking/trigger"),
	     *sw = get(I "sched/sched_switch/trigger"), *y = get(Y "trigger");
	/* each file: what was written, then its removal ("!" + the same text,
	 * the filter included) */
	assert_string_equal(line(se, 1), "!" HISTTRIG_SYNTH);
	assert_true(!strncmp(line(se, 0), HISTTRIG_SYNTH " ", strlen(HISTTRIG_SYNTH) + 1));
	assert_string_equal(line(w, 1) + 1, line(w, 0));
	assert_non_null(strstr(line(w, 0), ":clock=mono if prio < 100"));
	assert_string_equal(line(sw, 1) + 1, line(sw, 0));
	assert_non_null(strstr(line(sw, 0), "onmatch(sched.sched_waking)." HISTTRIG_SYNTH "("));
	/* the two hists on the event, removed newest first */
	assert_string_equal(line(y, 2) + 1, line(y, 1));
	assert_string_equal(line(y, 3) + 1, line(y, 0));
	assert_string_equal(line(y, 0), "hist:keys=cpu,lat.buckets=1000:vals=hitcount,lat:sort=cpu,lat:size=32768");
	assert_non_null(strstr(line(y, 1), "onmax($maxlat).save(pid,prio,comm,prev_pid,prev_prio,prev_comm,ts_ns)"));
	free(se);
	free(w);
	free(sw);
	free(y);
}

static void test_start_stop(void **state)
{
	(void)state;
	need_synth();
	struct histtrig *h;
	struct histtrig_cfg c = cfg2(NULL);
	fake_tree();
	int err = histtrig_start(&h, &c);
	if (err)
		fprintf(stderr, "histtrig_start: %s\n", histtrig_strerror(h));
	assert_int_equal(err, 0);
	char *y = get(Y "trigger"), *sw = get(I "sched/sched_switch/trigger");
	assert_non_null(strstr(y, "lat.buckets=1000"));
	assert_null(strchr(sw, '!'));
	free(y);
	free(sw);
	/* the read goes through the parser */
	char *t = slurp(HISTTRIG_TEST_DATA "/histtrig/rt61.hist");
	put(Y "hist", t);
	free(t);
	struct hset *s = new_set(2);
	struct histtrig_stats st;
	assert_int_equal(histtrig_read(h, s, &st), 0);
	assert_int_equal(st.hits, 2437);
	/* pause: the sched_switch trigger goes first; a second pause is refused */
	assert_int_equal(histtrig_pause(h), 0);
	sw = get(I "sched/sched_switch/trigger");
	assert_string_equal(line(sw, 1) + 1, line(sw, 0));
	free(sw);
	assert_int_equal(histtrig_pause(h), -EINVAL);
	struct histtrig_window w;
	histtrig_window(h, &w);
	assert_true(w.on_lo_ns <= w.on_hi_ns && w.on_hi_ns <= w.off_lo_ns && w.off_lo_ns <= w.off_hi_ns);
	assert_int_equal(histtrig_stop(h), 0);
	assert_undone();
	/* nothing twice */
	assert_int_equal(histtrig_stop(h), 0);
	sw = get(I "sched/sched_switch/trigger");
	assert_string_equal(line(sw, 2), "");
	free(sw);
	histtrig_free(h);
	hset_free(s);
}

static void test_emergency(void **state)
{
	(void)state;
	need_synth();
	struct histtrig *h;
	struct histtrig_cfg c = cfg2(NULL);
	fake_tree();
	assert_int_equal(histtrig_start(&h, &c), 0);
	histtrig_emergency_restore();
	assert_undone();
	histtrig_free(h);
}

/* A start that fails half-way (the synthetic event exists: another run) is
 * undone; one whose instance files are missing too. */
static void test_refused(void **state)
{
	(void)state;
	need_synth();
	struct histtrig *h;
	struct histtrig_cfg c = cfg2(NULL);
	fake_tree();
	put("synthetic_events", HISTTRIG_SYNTH "\tpid_t pid; u64 lat\n");
	assert_int_equal(histtrig_start(&h, &c), -EBUSY);
	assert_non_null(strstr(histtrig_strerror(h), "exists already"));
	histtrig_free(h);
	fake_tree();
	c.hist.lo_ns = 500;
	assert_int_equal(histtrig_start(&h, &c), -EINVAL);
	histtrig_free(h);
	/* the hists' trigger file missing: the synthetic event is removed again */
	fake_tree();
	c.hist.lo_ns = 0;
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm %s/" Y "trigger", tdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(histtrig_start(&h, &c), -ENOENT);
	assert_int_equal(histtrig_stop(h), 0);
	char *se = get("synthetic_events");
	assert_string_equal(line(se, 1), "!" HISTTRIG_SYNTH);
	free(se);
	histtrig_free(h);
	/* no synthetic_events: no hist triggers */
	fake_tree();
	snprintf(cmd, sizeof(cmd), "rm %s/synthetic_events", tdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(histtrig_start(&h, &c), -ENODEV);
	histtrig_free(h);
}

/* The kernel backend as `hist` drives it (engine/hsource.h). */
/* hsource_text's line into arg (a 256-byte buffer) */
static void keep_line(void *arg, const char *line)
{
	snprintf(arg, 256, "%s", line);
}

/* The seam: the backends by name, what each refuses, in neutral words. */
static void test_backend_seam(void **state)
{
	(void)state;
	char buf[512];
	bool kinds[HSET_NR_KINDS] = { false };
	struct hsource_need need = { 0 };

	assert_ptr_equal(hsource_backend("kernel"), &hsource_kernel);
	assert_ptr_equal(hsource_backend("bpf"), &hsource_bpf);
	assert_ptr_equal(hsource_backend("perf"), &hsource_perf);
	assert_null(hsource_backend("auto"));
	size_t n = 0;
	while (hsource_backends[n])
		n++;
	assert_int_equal(n, 3);
	assert_true(hsource_backends[n - 1]->events_in_userspace);	/* auto's last resort */
	for (size_t i = 0; i < n; i++)
		assert_null(hsource_conflict(hsource_backends[i], &need, buf, sizeof(buf)));
	need.record = true;
	assert_null(hsource_conflict(&hsource_perf, &need, buf, sizeof(buf)));
	assert_string_equal(hsource_conflict(&hsource_bpf, &need, buf, sizeof(buf)),
			    "cannot record the events (-o): they never leave the kernel");
	need = (struct hsource_need){ .irqsoff = true };
	assert_null(hsource_conflict(&hsource_bpf, &need, buf, sizeof(buf)));
	assert_string_equal(hsource_conflict(&hsource_kernel, &need, buf, sizeof(buf)),
			    "has no irqsoff/preemptoff histograms (--irqsoff)");
	kinds[HSET_MISSED_TIMER] = true;
	need = (struct hsource_need){ .kinds = kinds };
	assert_null(hsource_conflict(&hsource_bpf, &need, buf, sizeof(buf)));
	const char *why = hsource_conflict(&hsource_kernel, &need, buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "cannot express missed_timer_offsets (--types): it "));
	assert_non_null(hsource_kind_refusal(&hsource_kernel, HSET_MISSED_TIMER));
	assert_null(hsource_kind_refusal(&hsource_kernel, HSET_WAKEUP));
	assert_null(hsource_kind_refusal(&hsource_bpf, HSET_MISSED_TIMER));
	setenv("LATSCOPE_NO_BPF", "1", 1);
	need = (struct hsource_need){ 0 };
	assert_string_equal(hsource_refusal(&hsource_bpf, &need, buf, sizeof(buf)), "refused: LATSCOPE_NO_BPF=1");
	setenv("LATSCOPE_NO_BPF", "0", 1);
	assert_null(hsource_refusal(&hsource_bpf, &need, buf, sizeof(buf)));
	unsetenv("LATSCOPE_NO_BPF");
	need.per_task = true;
	assert_string_equal(hsource_refusal(&hsource_kernel, &need, buf, sizeof(buf)),
			    "not usable: it keeps no latency per task (--per-task)");
	assert_null(hsource_refusal(&hsource_perf, &need, buf, sizeof(buf)));
}

static void test_hsource_kernel(void **state)
{
	(void)state;
	need_synth();
	struct parse_cpuset cpus;
	memset(&cpus, 0, sizeof(cpus));
	parse_cpuset_add(&cpus, 0);
	parse_cpuset_add(&cpus, 1);
	struct hsource_cfg cfg = { .nr_cpus = 2, .cpus = &cpus };
	lhist_cfg_default(&cfg.lcfg.hist);
	struct hsource *src;
	struct hsource_why why;
	struct hsource_stats st;
	struct pollfd *fds;

	fake_tree();
	assert_ptr_equal(hsource_kernel.emergency_restore, histtrig_emergency_restore);
	assert_int_equal(hsource_open(&src, &hsource_kernel, &cfg, &why), 0);
	assert_string_equal(why.reason, "");
	assert_ptr_equal(hsource_ops_of(src), &hsource_kernel);
	assert_int_equal(hsource_start(src, &why), 0);
	assert_int_equal(hsource_pollfds(src, &fds), 0);
	assert_int_equal(hsource_drain(src, UINT64_MAX, &why), 0);
	assert_int_equal(hsource_record(src, NULL, NULL), -EOPNOTSUPP);
	bool has[TPEVENT_NR_KINDS] = { false };
	hsource_kinds(src, has);
	assert_true(has[TPEVENT_SCHED_SWITCH] && has[TPEVENT_SCHED_WAKING]);
	assert_false(has[TPEVENT_HRTIMER_START]);
	/* the kernel's text through the parser into the source's set */
	char *t = slurp(HISTTRIG_TEST_DATA "/histtrig/rt61.hist");
	put(Y "hist", t);
	free(t);
	assert_int_equal(hsource_sync(src, &why), 0);
	hsource_stats(src, &st);
	assert_int_equal(st.seen, 2437);
	assert_null(st.ring);
	assert_false(st.kernel_time_known);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.track->wake_ignored, 0);
	assert_true(st.any_cpu);
	assert_int_equal(st.max_cpu, 1);
	char line1[160];
	hsource_describe(src, line1, sizeof(line1));
	assert_string_equal(line1, "kernel backend (hist triggers), 2437 samples filed");
	const struct hset *set = hsource_set(src);
	uint64_t total = 0;
	for (uint32_t cpu = 0; cpu < hset_nr_cpus(set); cpu++)
		total += hset_hist(set, HSET_WAKEUP, cpu)->total;
	assert_true(total > 0);
	/* the end: paused, read once more, every change undone; the set stays */
	assert_int_equal(hsource_finish(src, &why), 0);
	assert_string_equal(why.note, "");
	assert_undone();
	hsource_stats(src, &st);
	assert_int_equal(st.seen, 2437);
	/* its own counts, backend-neutral: the document's input block, text */
	struct json_object *in = json_object_new_object(), *ht, *v;
	hsource_input_json(src, in);
	assert_true(json_object_object_get_ex(in, "hist_triggers", &ht));
	assert_true(json_object_object_get_ex(ht, "hits", &v));
	assert_int_equal(json_object_get_int64(v), 2437);
	json_object_object_get_ex(ht, "on_lo_ns", &v);
	uint64_t on_lo = (uint64_t)json_object_get_int64(v);
	json_object_object_get_ex(ht, "off_hi_ns", &v);
	assert_true(on_lo <= (uint64_t)json_object_get_int64(v));
	json_object_put(in);
	char text[256] = "";
	assert_true(hsource_text(src, keep_line, text));
	assert_string_equal(text, "events: counted in the kernel by hist triggers (2437 samples filed, 0 "
				  "dropped by a full map, 0 on CPUs not asked, 0 unreadable lines)");
	hsource_loss_text(src, text, sizeof(text));
	assert_string_equal(text, "");
	assert_ptr_equal(hsource_set(src), set);
	hsource_close(src, &why);
	assert_string_equal(why.note, "");

	/* refused (another run's synthetic event): why, nothing left */
	fake_tree();
	put("synthetic_events", HISTTRIG_SYNTH "\tpid_t pid; u64 lat\n");
	assert_int_equal(hsource_open(&src, &hsource_kernel, &cfg, &why), -EBUSY);
	assert_null(src);
	assert_non_null(strstr(why.reason, "exists already"));

	/* a run that stops before finish (a failed setup): close undoes it */
	fake_tree();
	assert_int_equal(hsource_open(&src, &hsource_kernel, &cfg, &why), 0);
	hsource_close(src, &why);
	assert_undone();
	hsource_close(NULL, &why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rt61),
		cmocka_unit_test(test_parse_generic61),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_start_stop),
		cmocka_unit_test(test_emergency),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hsource_kernel),
		cmocka_unit_test(test_backend_seam),
	};
	return cmocka_run_group_tests(tests, setup_fake, teardown_fake);
}
