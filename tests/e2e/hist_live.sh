#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope hist record on the running kernel with the timer workload: the
# timer threads' wakeups fill wakeup / missed_timer_offsets / timerandwakeup,
# the workload reports its own latency, and `hist report` on the raw events
# written with -o gives exactly the same latency_hist tree.
. "$TESTS_DIR/lib.sh"
[ -d /sys/kernel/tracing/events/sched ] || [ -d /sys/kernel/debug/tracing/events/sched ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
"$LATSCOPE" hist record -d 2 -t --interval 1ms -P 90 -O "$TMP/live" -o "$TMP/live.data" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ]; then
	grep -qi 'permission\|paranoid\|EACCES\|not permitted' "$TMP/err" &&
		skip "no permission for perf_event_open on tracepoints"
	die "hist record failed ($rc): $(cat "$TMP/err")"
fi
grep -q '^timer workload (own measurement' "$TMP/out" || die "no timer workload table"
for t in wakeup missed_timer_offsets timerandwakeup; do
	s=0
	for f in "$TMP/live/$t"/CPU*; do
		n=$(sed -n 's/^#Total samples: //p' "$f")
		s=$((s + n))
	done
	[ "$s" -gt 100 ] || die "$t: only $s samples in 2 s of 1 ms timers"
done
grep -Eq '^[0-9]+ 90 [0-9]+ \([0-9]+\) ls-timer/0 <- ' "$TMP/live/timerandwakeup/max_latency-CPU0" ||
	die "timerandwakeup max is not a timer thread: $(cat "$TMP/live/timerandwakeup/max_latency-CPU0")"
"$LATSCOPE" hist report -i "$TMP/live.data" -O "$TMP/off" >/dev/null 2>&1 || die "report on -o file"
diff -r "$TMP/live" "$TMP/off" >/dev/null || die "offline report differs from the live histograms"
echo "ok: live histograms, timer workload, offline replay identical"
