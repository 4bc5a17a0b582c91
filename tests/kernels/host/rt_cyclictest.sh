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
#    while it ran is also stamped with its pid) of a sleep timer (callback
#    hrtimer_wakeup, its address from the guest's kallsyms: 7.2's scheduler
#    starts its hrtick timer in the thread's context too, while the thread
#    is still SCHED_OTHER): there must be exactly one per cycle, the k-th
#    arming being cycle k (latscope measured before cyclictest started,
#    and after it ended).
# 3. Every timerandwakeup sample of the thread names the expiry of one
#    arming k (one sample per arming at most), and its latency is <=
#    cyclictest's value of cycle k, in ns, with no tolerance.
# 4. A cycle with no sample is one whose thread was running when its timer
#    woke it (a running-wake of the thread between its arming and the next):
#    it never slept, there is no wakeup latency to file; or one in which
#    the thread was neither switched out nor woken between its arming and
#    the next: its timer had expired by the time it was queued (cyclictest
#    ran late), which 7.2 does not queue (hrtimer_start_range_ns_user: the
#    event hrtimer_start_expired, not recorded), the sleep returning at once
#    (6.1 queued it and its expiry woke the running thread: a running-wake);
#    or one in which a
#    task of higher or equal priority had the thread's CPU between the
#    thread's wakeup and its switch-in: running at the wakeup (the tracker
#    ignores a wakeup of lower priority than the running task's, and a
#    timer that fires under a task of equal or higher priority did not cause
#    the switch: no timer part), or switched in first (the tracker follows
#    the highest-priority woken task a CPU and drops the thread's pending
#    wakeup; equal priority: wakeup/sharedprio), as latency_hist did.  Such a
#    task is seen from the CPU's sched_switch events, not from its wakeup:
#    a wakeup from another CPU is not in a recording of this one (-c 1).
#    Any other unfiled cycle fails, and the CPU's events from its arming to
#    the next are printed.
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
wfn=0x$(sed 's/^0*//' "$ART/hrtimer_wakeup")
[ "$wfn" != 0x ] || die "no hrtimer_wakeup address from the guest"

# 3. and 4.: one awk over cyclictest's values and the list (in time order)
awk -v tid="$tid" -v loops="$loops" -v tmp="$TMP" -v minbehind="${MIN_BEHIND:-0}" -v wfn="$wfn" '
function fail(m) { print "FAIL: " m; bad = 1; exit 1 }
FNR == NR {	# cyclictest -N -v: "thread:cycle:latency_ns", cycle from 0
	if ($0 ~ /^ *0: *[0-9]+: *[0-9]+$/) { split($0, f, ":"); cyc[f[2] + 1] = f[3] + 0; ncyc++ }
	next
}
# what runs on each CPU, and at which kernel priority
$1 == "switch" {
	cur[$2] = $5; curprio[$2] = $6
	if (k && $4 == tid) out[k] = 1	# switched out after arming k: it slept (or was preempted)
	if (k && $5 == tid && (k in woke) && !(k in back)) back[k] = $3
	# a task of higher or equal priority switched in while the thread waited
	if (k && $2 == tcpu && $5 != tid && $6 <= 4 && (k in woke) && !(k in back) && !(k in beh))
		beh[k] = "pid " $5 " (prio " $6 ") switched in first"
	next
}
$1 == "start" && $4 == tid && int($5 / 8) % 4 == 0 && $7 != wfn { other++; next }
$1 == "start" && $4 == tid && int($5 / 8) % 4 == 0 { k++; arm[$6] = k; armed_at[k] = $3; tcpu = $2; next }
$1 == "running-wake" && $4 == tid { rw[++nrw] = $3; next }
# the thread woken: was a task of higher or equal priority on its CPU?
$1 == "wake" && $4 == tid && k && !(k in woke) {
	woke[k] = $3
	c = $6
	if ((c in cur) && cur[c] != tid && curprio[c] <= 4)
		beh[k] = "pid " cur[c] " (prio " curprio[c] ") running at the wakeup"
	next
}
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
		if (!(c in out) && !(c in woke)) { nosleep++; continue }
		if (c in beh) { behind++; if (!(beh[c] in nwhy)) whys[++nw] = beh[c]; nwhy[beh[c]]++; continue }
		printf "%.0f %.0f\n", armed_at[c], hi < 1e30 ? hi : armed_at[c] + 1e8 > tmp "/window"
		fail("cycle " c " (" cyc[c] " ns) has no timerandwakeup sample: " \
			(c in woke ? "its thread was woken at " woke[c] " ns, not running, and no task of higher or equal priority ran on its CPU before it" \
				   : "no wakeup of its thread on its CPU in the recording"))
	}
	if (n < loops / 2) fail("only " n " of " loops " cycles filed")
	if (behind < minbehind) fail("no cycle behind a task of higher or equal priority (wanted " minbehind ")")
	printf "%s: %d cycles of cyclictest (tid %d), %d paired with a timerandwakeup sample, %d woken while running, " \
		"%d never switched out nor woken, %d behind a task of higher or equal priority; " \
		"cyclictest - timerandwakeup %d..%d ns per wakeup; max %d ns <= cyclictest max %d ns\n",
		ENVIRON["KERNEL"], loops, tid, n, unfiled, nosleep, behind, dmin, dmax, tawmax, cycmax
	for (j = 1; j <= nw; j++) printf "    behind: %s (%d cycles)\n", whys[j], nwhy[whys[j]]
	if (other) printf "    %d other timers started in its context (not hrtimer_wakeup %s): not armings\n", other, wfn
}' "$ART/cyclictest.txt" "$TMP/samples" && exit 0
# what the CPU did from the cycle's arming to the next one, for the record
if [ -s "$TMP/window" ]; then
	read -r a b < "$TMP/window"
	w=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d.%09d,%d.%09d", a / 1e9, a % 1e9, b / 1e9, b % 1e9 }')
	echo "    the events of the CPU from that arming to the next (latscope script --time $w):"
	"$LATSCOPE" script -i "$ART/hist.data" --ns -q --time "$w" | head -80 | sed 's/^/    /'
fi
die "per-wakeup comparison failed (above)"
