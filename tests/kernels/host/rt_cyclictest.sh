#!/bin/sh
# SPDX-License-Identifier: MIT
# cyclictest vs latscope's timerandwakeup, per wakeup, on the guest's run
# (tests/kernels/guest/rt_cyclictest.sh).  The bound is derived in
# docs/hist.md ("cyclictest and timerandwakeup, per wakeup").
#
# 1. histsamples (tests/tools) lists every sample latscope's trackers file
#    from hist.data, with the programmed expiry of the timer behind each
#    timer sample, every hrtimer_start and every wakeup of a running task;
#    per type its count and maximum must be those of `latscope hist report
#    -i hist.data --json`: the list is latscope's histograms, sample by
#    sample.
# 2. cyclictest's thread is the one victim of priority 4 (SCHED_FIFO 95).
#    Its armings are its hrtimer_starts from task context (common_flags
#    without hardirq/softirq: a tick timer restarted in an interrupt taken
#    while it ran is also stamped with its pid): there must be exactly one
#    per cycle, the k-th arming being cycle k (latscope measured before
#    cyclictest started, and after it ended).
# 3. Every timerandwakeup sample of the thread names the expiry of one
#    arming k (one sample per arming at most), and its latency is <=
#    cyclictest's value of cycle k, in ns, with no tolerance.
# 4. A cycle with no sample is one whose thread was running when its timer
#    woke it (a running-wake of the thread between its arming and the next):
#    it never slept, there is no wakeup latency to file; or one in which a
#    higher-priority task (migration/1, FIFO 99, seen) was woken on the CPU:
#    the tracker follows the highest-priority woken task a CPU, as
#    latency_hist did, and drops the thread's pending wakeup when that task
#    is switched in first.
. "$TESTS_DIR/lib.sh"
HS=$(dirname "$LATSCOPE")/tests/tools/histsamples
[ -x "$HS" ] || die "no $HS: build it with make (make check-kernels does)"
"$HS" "$ART/hist.data" > "$TMP/samples" || die "histsamples failed on the guest's hist.data"
tail -1 "$TMP/samples" | grep -q '^end .*lost_events=0 lost_samples=0 undecoded=0$' ||
	die "the recording lost or could not decode events: $(tail -1 "$TMP/samples")"
"$LATSCOPE" hist report -i "$ART/hist.data" --json > "$TMP/report.json" 2> "$TMP/report.err" ||
	die "hist report failed: $(tail -3 "$TMP/report.err")"

# 1. the list is latscope's histograms
for t in wakeup wakeup/sharedprio missed_timer_offsets timerandwakeup; do
	want=$(awk -v t="\"$t\":{" '$1 == t { in_t = 1 } in_t && /"all":/ { in_a = 1 }
		in_a && /"total":/ { v = $1; gsub(/[^0-9]/, "", v); n = v }
		in_a && /"max_ns":/ { v = $1; gsub(/[^0-9]/, "", v); print n, v; exit }
		in_a && /}/ { print n, 0; exit }' "$TMP/report.json")
	got=$(awk -v t="$t" '$1 == "sample" && $2 == t { n++; if ($5 > m) m = $5 } END { print n + 0, m + 0 }' "$TMP/samples")
	[ "$want" = "$got" ] || die "$t: hist report has (samples, max) $want, histsamples lists $got"
done

# 2. cyclictest's thread and its armings
tid=$(awk '$1 == "sample" && $8 == 4 { print $7 }' "$TMP/samples" | sort -u)
[ "$(echo "$tid" | grep -c .)" -eq 1 ] || die "not one SCHED_FIFO 95 victim in the recording: '$tid'"
loops=$(cat "$ART/loops")

# 3. and 4.: one awk over cyclictest's values and the list
awk -v tid="$tid" -v loops="$loops" '
function fail(m) { print "FAIL: " m; bad = 1; exit 1 }
FNR == NR {	# cyclictest -N -v: "thread:cycle:latency_ns", cycle from 0
	if ($0 ~ /^ *0: *[0-9]+: *[0-9]+$/) { split($0, f, ":"); cyc[f[2] + 1] = f[3] + 0; ncyc++ }
	next
}
$1 == "start" && $4 == tid && int($5 / 8) % 4 == 0 { k++; arm[$6] = k; armed_at[k] = $3; next }
$1 == "running-wake" && $4 == tid { rw[++nrw] = $3; next }
# wakeups of higher-priority tasks (smaller prio) on the CPU of the thread: the
# tracker follows one woken task a CPU, the highest in priority, as
# latency_hist did (lib/engine/latency.c), so such a task switched in first
# drops the pending wakeup of the thread
$1 == "sample" && $2 == "wakeup" && $7 != tid && $8 < 4 { hp[++nhp] = $4 - $5 }
$1 == "sample" && $2 == "timerandwakeup" && $7 == tid {
	if (!($10 in arm)) fail("timerandwakeup sample at " $4 " ns: its expiry " $10 " is no arming of " tid)
	a = arm[$10]
	if (a in filed) fail("two timerandwakeup samples for arming " a)
	filed[a] = $5
	d = cyc[a] - $5
	if (d < 0) fail("cycle " a ": timerandwakeup " $5 " ns > cyclictest " cyc[a] " ns")
	if (n == 0 || d < dmin) dmin = d
	if (d > dmax) dmax = d
	if ($5 > tawmax) tawmax = $5
	n++
}
END {
	if (bad) exit 1
	if (ncyc != loops) fail("cyclictest printed " ncyc " cycles, not " loops)
	if (k != loops) fail(k " armings of " tid " in the recording for " loops " cycles")
	for (c = 1; c <= loops; c++) {
		if (cyc[c] > cycmax) cycmax = cyc[c]
		if (c in filed) continue
		hi = c < k ? armed_at[c + 1] : 1e30
		ok = 0
		for (j = 1; j <= nrw; j++) if (rw[j] >= armed_at[c] && rw[j] < hi) ok = 1
		if (ok) { unfiled++; continue }
		for (j = 1; j <= nhp; j++) if (hp[j] >= armed_at[c] && hp[j] < hi) ok = 1
		if (!ok) fail("cycle " c " (" cyc[c] " ns) has no timerandwakeup sample, its thread was not running when woken, and no higher-priority task was woken on its CPU meanwhile")
		preempted++
	}
	if (n < loops / 2) fail("only " n " of " loops " cycles filed")
	printf "%s: %d cycles of cyclictest (tid %d), %d paired with a timerandwakeup sample, %d woken while running, " \
		"%d behind a higher-priority wakeup; cyclictest - timerandwakeup %d..%d ns per wakeup; max %d ns <= cyclictest max %d ns\n",
		ENVIRON["KERNEL"], loops, tid, n, unfiled, preempted, dmin, dmax, tawmax, cycmax
}' "$ART/cyclictest.txt" "$TMP/samples" || die "per-wakeup comparison failed (above)"
