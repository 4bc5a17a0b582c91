/* SPDX-License-Identifier: MIT */
/* tool.c - the live loop, its clock arithmetic, the exit status (see tool.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdio.h"
#include "commands.h"
#include "tool.h"
#include "base/parse.h"
#include "base/sysinfo.h"

#define TOOL_WAIT_MS 100
/* the longest wait: a stop flag set by another thread, or a reader of
 * watch_fd that left, is seen within it */
#define TOOL_WAIT_MAX_MS 250

void tool_sched_init(struct tool_sched *s, uint64_t start_ns, uint64_t duration_ns,
		     uint64_t refresh_ns)
{
	s->deadline_ns = duration_ns && duration_ns <= UINT64_MAX - start_ns ? start_ns + duration_ns
									     : UINT64_MAX;
	s->refresh_ns = refresh_ns;
	s->next_refresh_ns = !refresh_ns ? UINT64_MAX :
			     refresh_ns <= UINT64_MAX - start_ns ? start_ns + refresh_ns : UINT64_MAX;
}

bool tool_sched_expired(const struct tool_sched *s, uint64_t now_ns)
{
	return s->deadline_ns != UINT64_MAX && now_ns >= s->deadline_ns;
}

int tool_sched_wait_ms(const struct tool_sched *s, uint64_t now_ns, int max_ms)
{
	if (max_ms <= 0 || s->deadline_ns == UINT64_MAX)
		return max_ms < 0 ? 0 : max_ms;
	if (now_ns >= s->deadline_ns)
		return 0;
	uint64_t left = s->deadline_ns - now_ns, ms = (left + 999999) / 1000000;
	return ms < (uint64_t)max_ms ? (int)ms : max_ms;
}

bool tool_sched_refresh_due(struct tool_sched *s, uint64_t now_ns)
{
	if (!s->refresh_ns || now_ns < s->next_refresh_ns)
		return false;
	s->next_refresh_ns = s->refresh_ns <= UINT64_MAX - now_ns ? now_ns + s->refresh_ns : UINT64_MAX;
	return true;
}

uint64_t tool_until(uint64_t now_ns, uint64_t slack_ns)
{
	return now_ns > slack_ns ? now_ns - slack_ns : 0;
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void tool_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);	/* a signal ends it early: the loop then sees the stop */
}

int tool_run(const struct tool_loop *l)
{
	struct tool_sched s;
	uint64_t now = tool_now_ns();
	int max_ms = l->wait_ms > 0 ? l->wait_ms : TOOL_WAIT_MS, err;
	if (max_ms > TOOL_WAIT_MAX_MS)
		max_ms = TOOL_WAIT_MAX_MS;

	tool_sched_init(&s, l->start_ns ? l->start_ns : now, l->duration_ns, l->refresh_ns);
	for (;;) {
		if (cmdio_watch(l->watch_fd))
			return TOOL_END_STOP;
		if (l->done && l->done(l->arg))
			return TOOL_END_DONE;
		now = tool_now_ns();
		if (tool_sched_expired(&s, now))
			return TOOL_END_DEADLINE;
		int ms = tool_sched_wait_ms(&s, now, max_ms);
		if (l->wait) {
			err = l->wait(l->arg, ms);
			if (err < 0)
				return err;
		} else {
			tool_sleep_ms(ms);
		}
		now = tool_now_ns();
		if (tool_sched_expired(&s, now))
			return TOOL_END_DEADLINE;
		if (l->process && (err = l->process(l->arg, tool_until(now, l->slack_ns))) < 0)
			return err;
		if (l->checkpoint)
			l->checkpoint(l->arg);
		if (l->refresh && tool_sched_refresh_due(&s, now))
			l->refresh(l->arg, now);
	}
}

int tool_cpus(struct parse_cpuset *cpus, bool given, struct parse_cpuset *online, const char *prog)
{
	struct parse_cpuset on;
	if (sysinfo_online_cpus(&on) < 0) {
		fprintf(stderr, "%s: cannot find the online CPUs (/sys/devices/system/cpu/online)\n", prog);
		return EXIT_ERR;
	}
	if (online)
		*online = on;
	if (!given) {
		*cpus = on;
		return 0;
	}
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(cpus, cpu) && !parse_cpuset_has(&on, cpu)) {
			char list[256];
			parse_cpulist_format(&on, list, sizeof(list));
			fprintf(stderr, "%s: CPU %u is not online (online: %s)\n", prog, cpu, list);
			return EXIT_ERR;
		}
	return 0;
}

void tool_housekeeping(struct parse_cpuset *out, const struct parse_cpuset *hk, bool given,
		       const struct parse_cpuset *online, const struct parse_cpuset *measured)
{
	if (given) {
		*out = *hk;
		return;
	}
	memset(out, 0, sizeof(*out));
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(online, cpu) && !parse_cpuset_has(measured, cpu))
			parse_cpuset_add(out, cpu);
}

bool tool_setup_interrupted(const char *prog)
{
	if (!cmdio_stopped() && !cmdio_watch(STDOUT_FILENO))
		return false;
	if (cmdio_broken_pipe())
		return true;	/* the quiet end (cmdio_reader_left()) */
	fprintf(stderr, "%s: interrupted before the measurement started; nothing to report\n", prog);
	return true;
}

bool tool_bpf_stats(void)
{
	const char *v = getenv("LATSCOPE_BPF_STATS");

	return v && !strcmp(v, "1");
}

int tool_status(bool failed, bool threshold)
{
	return failed ? EXIT_ERR : threshold ? EXIT_THRESHOLD : 0;
}

int tool_status_worst(int a, int b)
{
	return a > b ? a : b;
}

int tool_end_status(int rc)
{
	return cmdio_broken_pipe() ? EXIT_ERR : rc;
}
