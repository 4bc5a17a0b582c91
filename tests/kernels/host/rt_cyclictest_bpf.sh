#!/bin/sh
# SPDX-License-Identifier: MIT
# cyclictest vs the bpf backend on the guest's run
# (tests/kernels/guest/rt_cyclictest_bpf.sh), CPU 1, latscope tracking only
# cyclictest's thread (--pid).  The BPF backend keeps histograms: the bound
# docs/hist.md derives per wakeup (cyclictest - timerandwakeup >= 0, and
# wakeup <= timerandwakeup for a timer's wakeup) is checked on what it
# keeps:
# 1. the worst cases of timerandwakeup and wakeup on CPU 1 name the thread
#    (tid T, SCHED_FIFO 95 = kernel prio 4, comm cyclictest);
# 2. timerandwakeup max <= cyclictest's max, in ns, no tolerance;
# 3. wakeup max <= cyclictest's max when every wakeup sample of the thread
#    is a cycle's (wakeup total = timerandwakeup total); otherwise (a wakeup
#    outside the cycles: the thread's start) reported, not bounded;
# 4. counts: one timerandwakeup sample per cycle at most; every time the
#    thread went to sleep (its switches out in TASK_INTERRUPTIBLE, counted
#    by a hist trigger apart from latscope) ended in a wakeup latscope filed
#    (wakeup, or wakeup/sharedprio when a task of its priority ran) or
#    counted as not filed: a higher-priority task switched in first
#    (dropped_prio), the thread switched out before its switch-in
#    (dropped_running), another wakeup took its place (replaced).  So
#    sleeps <= wakeup + sharedprio + dropped_prio + dropped_running +
#    replaced.  A cycle without a sleep has nothing to file: its timer woke
#    the thread while it ran (wake_ignored) or fired before it got to sleep.
#    The wakeups without the timer part (wakeup - timerandwakeup) are the
#    timer's expiry unseen (an expiry entry the kernel's recursion guard
#    skipped: a hard interrupt's timer inside a softirq timer's program on
#    PREEMPT_RT) or a timer that fired while a task of higher or equal
#    priority ran (latency_hist files no timerandwakeup then): said, not
#    bounded.
. "$TESTS_DIR/lib.sh"
HC=$(dirname "$LATSCOPE")/tests/tools/histcmp
[ -x "$HC" ] || die "no $HC: build it with make (make check-kernels does)"
J=$ART/bpf.json
T=$(cat "$ART/tid")
loops=$(cat "$ART/loops")
get() { "$HC" --get "$J" "$1"; }
cyc=$(awk '/^ *0: *[0-9]+: *[0-9]+$/ { split($0, f, ":"); v = f[3] + 0; n++; if (v > m) m = v }
	END { print n + 0, m + 0 }' "$ART/cyclictest.txt")
ncyc=${cyc% *} cycmax=${cyc#* }
[ "$ncyc" -eq "$loops" ] || die "cyclictest printed $ncyc cycles, not $loops"
# CPU 1's entry of each kind (the only CPU traced)
for k in timerandwakeup wakeup missed_timer_offsets; do
	[ "$(get histograms.$k.cpus.0.cpu)" = 1 ] || die "$k: no samples on CPU 1"
	[ -z "$(get histograms.$k.cpus.1.cpu 2>/dev/null)" ] || die "$k: samples on another CPU than 1"
done
for k in timerandwakeup wakeup; do
	v=$(get histograms.$k.cpus.0.max_latency.pid)
	p=$(get histograms.$k.cpus.0.max_latency.prio)
	[ "$v" = "$T" ] && [ "$p" = 95 ] || die "$k: the worst case's victim is $v prio $p, not cyclictest's thread $T prio 95 (as the text shows it)"
	tr -d ' \n' < "$J" | grep -q "\"$k\":{\"cpus\":\[{[^]]*\"pid\":$T,\"prio\":95,\"comm\":\"cyclictest\"" ||
		die "$k: the worst case's victim is not named cyclictest"
done
tn=$(get histograms.timerandwakeup.cpus.0.total)
tmax=$(get histograms.timerandwakeup.cpus.0.max_ns)
wn=$(get histograms.wakeup.cpus.0.total)
wmax=$(get histograms.wakeup.cpus.0.max_ns)
[ "$tmax" -le "$cycmax" ] || die "timerandwakeup max $tmax ns > cyclictest's max $cycmax ns"
if [ "$wn" -eq "$tn" ]; then
	[ "$wmax" -le "$cycmax" ] || die "wakeup max $wmax ns > cyclictest's max $cycmax ns"
	wnote="wakeup max $wmax ns <= it"
else
	wnote="wakeup max $wmax ns over $wn samples, $((wn - tn)) of them not a timer's (not bounded)"
	[ "$wn" -gt "$tn" ] || die "fewer wakeup samples ($wn) than timerandwakeup ($tn)"
fi
wi=$(get stats.wake_ignored)
dp=$(get stats.dropped_prio)
dr=$(get stats.dropped_running)
rp=$(get stats.replaced)
sh=$(get histograms.wakeup/sharedprio.cpus.0.total 2>/dev/null || echo 0)
rm_=$(get input.bpf_recursion_misses)
[ "$tn" -le "$ncyc" ] || die "$tn timerandwakeup samples for $ncyc cycles"
[ -s "$ART/switches" ] || die "no hist trigger output (switches)"
sleeps=$(sed -n 's/^{ *prev_state: *1 *} *hitcount: *\([0-9]*\).*/\1/p' "$ART/switches")
[ -n "$sleeps" ] || die "the hist trigger counted no sleep of the thread: $(cat "$ART/switches")"
[ "$sleeps" -le "$ncyc" ] || die "the thread slept $sleeps times in $ncyc cycles"
filed=$((wn + sh + dp + dr + rp))
[ "$sleeps" -le "$filed" ] ||
	die "the thread slept $sleeps times, latscope filed or counted $filed wakeups (wakeup $wn, sharedprio $sh, dropped_prio $dp, dropped_running $dr, replaced $rp)"
echo "$KERNEL: $ncyc cycles of cyclictest (tid $T); bpf: timerandwakeup $tn samples, max $tmax ns <= cyclictest max $cycmax ns; $wnote"
echo "    the thread slept $sleeps times (hist trigger); latscope filed or counted $filed wakeups (wakeup $wn, sharedprio $sh, dropped_prio $dp, dropped_running $dr, replaced $rp); $((ncyc - sleeps)) cycles without a sleep (wake_ignored $wi)"
echo "    wakeups without the timer part: $((wn - tn)); bpf program runs the recursion guard skipped: $rm_"
