/* SPDX-License-Identifier: MIT */
/*
 * histsamples - every sample the latency trackers file from a recording, one
 * line each, for tests that pair them with another tool's own samples.
 *
 *   histsamples FILE.perf.data
 *
 * The recording is read and fed exactly as `latscope hist report -i FILE`
 * does (pdread order, the default trackers: RT tasks, no pid filter), and
 * every filed sample is printed through latency_set_observer():
 *
 *   sample TYPE CPU TIME_NS LATENCY_NS TIMER_OFFSET_NS PID PRIO CULPRIT_PID EXPIRES_NS
 *
 * TYPE is the histogram's directory name (wakeup, missed_timer_offsets,
 * timerandwakeup, ...).  EXPIRES_NS is the time the waking timer was
 * programmed for (hrtimer_start's expires), for the timer types: the
 * expire_entry's `now` less the offset; "-" for the others.  Every
 * hrtimer_start is printed too, so that a test can tell which arming a
 * sample's expiry belongs to:
 *
 *   start CPU TIME_NS TID COMMON_FLAGS EXPIRES_NS FUNCTION
 *
 * (FUNCTION: the timer's callback, its kernel address in hex, as the
 * recording has it: tells a task's sleep, hrtimer_wakeup, from a timer the
 * kernel started in its context, e.g. the scheduler's hrtick)
 *
 * and every wakeup of a task that is running on the CPU it is woken on
 * (the trackers file no latency for it: it never slept, e.g. its timer
 * expired before it could):
 *
 *   running-wake CPU TIME_NS PID
 *
 * and, so that a test can tell what ran on a CPU while a task waited for it,
 * every sched_waking (or sched_wakeup[_new] in a stream without wakings) and
 * every sched_switch:
 *
 *   wake CPU TIME_NS PID PRIO TARGET_CPU
 *   switch CPU TIME_NS PREV_PID NEXT_PID NEXT_PRIO
 *
 * The last line is `end samples=N lost_events=N lost_samples=N undecoded=N`.
 * Exit 0, or 2 when the file cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hset.h"
#include "engine/latency.h"
#include "format/pdread.h"
#include "format/tpevent.h"

#define HS_MAX_CPUS 1024
#define HS_PIDS 4096

/* What the observer needs beyond the sample: each CPU's running hrtimer
 * expiry (expire_entry's now) and the expiry of each task's waking timer. */
struct hs_state {
	int64_t expire_now_ns[HS_MAX_CPUS];
	int32_t running[HS_MAX_CPUS];		/* next_pid of the CPU's last switch */
	struct { int32_t pid; int64_t expires_ns; } woken[HS_PIDS];
	uint64_t samples;
	bool has_waking;			/* the stream has sched_waking */
};

static int64_t *woken_slot(struct hs_state *s, int32_t pid)
{
	unsigned i = (unsigned)pid % HS_PIDS;
	s->woken[i].pid = pid;
	return &s->woken[i].expires_ns;
}

static void on_sample(void *arg, const struct latency_sample *x)
{
	struct hs_state *s = arg;
	char exp[32] = "-";

	s->samples++;
	if (x->type == HSET_MISSED_TIMER && x->cpu < HS_MAX_CPUS) {
		/* filed at the wakeup, inside the expire window of its timer */
		int64_t e = s->expire_now_ns[x->cpu] - x->timer_offset_ns;
		*woken_slot(s, x->pid) = e;
		snprintf(exp, sizeof(exp), "%" PRId64, e);
	} else if (x->type == HSET_TIMERANDWAKEUP && s->woken[(unsigned)x->pid % HS_PIDS].pid == x->pid) {
		snprintf(exp, sizeof(exp), "%" PRId64, s->woken[(unsigned)x->pid % HS_PIDS].expires_ns);
	}
	printf("sample %s %" PRIu32 " %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId32 " %" PRId32 " %" PRId32
	       " %s\n", hset_kind_name(x->type) ? hset_kind_name(x->type) : "?", x->cpu, x->time_ns, x->latency_ns, x->timer_offset_ns, x->pid,
	       x->prio, x->culprit_pid, exp);
}

int main(int argc, char **argv)
{
	struct pdread *r = NULL;
	struct tpdecode *d = NULL;
	struct latency *l = NULL;
	struct tpdecode_losses loss = { 0 };
	struct pdread_event ev;
	static struct hs_state st;

	if (argc != 2) {
		fprintf(stderr, "usage: histsamples FILE.perf.data\n");
		return 2;
	}
	int rc = pdread_open(&r, argv[1], NULL);
	if (rc < 0) {
		fprintf(stderr, "histsamples: %s: %s\n", argv[1], r ? pdread_strerror(r) : strerror(-rc));
		pdread_close(r);
		return 2;
	}
	while ((rc = pdread_next(r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.evsel || !ev.has_sample ||
		    ev.evsel->attr.type != PDFORMAT_TYPE_TRACEPOINT)
			continue;
		if (!d) {
			struct latency_cfg cfg;
			const struct pdread_info *in = pdread_info(r);
			uint32_t n = in->nr_cpus_avail ? in->nr_cpus_avail : in->nr_cpus_online;
			latency_cfg_default(&cfg, n && n <= HS_MAX_CPUS ? n : HS_MAX_CPUS);
			if (!pdread_tep(r) || !(d = tpdecode_new(pdread_tep(r))) || latency_new(&l, &cfg)) {
				fprintf(stderr, "histsamples: %s: no tracing data, or out of memory\n", argv[1]);
				rc = -1;
				break;
			}
			latency_set_observer(l, on_sample, &st);
		}
		struct tpevent t;
		if (tpdecode_decode_sample(d, &ev, &t, &loss) < 0)
			continue;
		if (t.kind == TPEVENT_HRTIMER_EXPIRE_ENTRY && t.cpu < HS_MAX_CPUS)
			st.expire_now_ns[t.cpu] = t.hrtimer.now_ns;
		if (t.kind == TPEVENT_SCHED_SWITCH && t.cpu < HS_MAX_CPUS)
			st.running[t.cpu] = t.sw.next_pid;
		if (t.kind == TPEVENT_SCHED_WAKING && t.wake.target_cpu >= 0 &&
		    t.wake.target_cpu < HS_MAX_CPUS && t.wake.pid > 0 && st.running[t.wake.target_cpu] == t.wake.pid)
			printf("running-wake %" PRId32 " %" PRIu64 " %" PRId32 "\n", t.wake.target_cpu, t.time_ns,
			       t.wake.pid);
		if (t.kind == TPEVENT_SCHED_WAKING)
			st.has_waking = true;
		if (t.kind == TPEVENT_SCHED_WAKING ||
		    (!st.has_waking && (t.kind == TPEVENT_SCHED_WAKEUP || t.kind == TPEVENT_SCHED_WAKEUP_NEW)))
			printf("wake %" PRIu32 " %" PRIu64 " %" PRId32 " %" PRId32 " %" PRId32 "\n", t.cpu, t.time_ns,
			       t.wake.pid, t.wake.prio, t.wake.target_cpu);
		if (t.kind == TPEVENT_SCHED_SWITCH)
			printf("switch %" PRIu32 " %" PRIu64 " %" PRId32 " %" PRId32 " %" PRId32 "\n", t.cpu, t.time_ns,
			       t.sw.prev_pid, t.sw.next_pid, t.sw.next_prio);
		if (t.kind == TPEVENT_HRTIMER_START)
			printf("start %" PRIu32 " %" PRIu64 " %" PRId32 " %u %" PRId64 " 0x%" PRIx64 "\n", t.cpu,
			       t.time_ns, t.tid, t.common_flags, t.hrtimer_start.expires_ns,
			       t.hrtimer_start.function);
		latency_feed(l, &t);
	}
	if (rc < 0 && *pdread_strerror(r))
		fprintf(stderr, "histsamples: %s: %s\n", argv[1], pdread_strerror(r));
	if (rc == 0)
		printf("end samples=%" PRIu64 " lost_events=%" PRIu64 " lost_samples=%" PRIu64
		       " undecoded=%" PRIu64 "\n", st.samples, pdread_stats(r)->lost_events,
		       pdread_stats(r)->lost_samples, loss.unknown + loss.bad_raw + loss.no_raw);
	latency_free(l);
	tpdecode_free(d);
	pdread_close(r);
	return rc == 0 ? 0 : 2;
}
