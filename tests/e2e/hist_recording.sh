#!/bin/sh
# latscope hist report on the shared real recording (sched_switch/waking/
# wakeup, no timer or preemptirq events): the RT wakeup histogram, the
# --all-tasks maximum against perf sched latency's, and the types the file
# cannot feed are named on stderr.
. "$TESTS_DIR/lib.sh"
DATA=$(shared_recording) || skip "shared recording (or zstd) not available"

"$LATSCOPE" hist report -i "$DATA" -O "$TMP/rt" --nonzero >"$TMP/rt.out" 2>"$TMP/rt.err" ||
	die "hist report failed: $(cat "$TMP/rt.err")"
grep -q 'irqsoff not reported' "$TMP/rt.err" || die "irqsoff not flagged as unavailable"
grep -q 'missed_timer_offsets not reported' "$TMP/rt.err" || die "timers not flagged"
grep -q 'lost' "$TMP/rt.err" || die "the recording's LOST records are not reported"
for c in 0 1; do
	[ -f "$TMP/rt/wakeup/CPU$c" ] || die "wakeup/CPU$c missing"
	[ -f "$TMP/rt/wakeup/sharedprio/max_latency-CPU$c" ] || die "sharedprio max file CPU$c missing"
done
# RT wakeups in that recording: the migration/N threads (prio 0 = user 99)
grep -Eq '^[0-9]+ 99 [0-9]+ \(0\) migration/[01] <- ' "$TMP/rt/wakeup/max_latency-CPU0" ||
	die "unexpected max_latency-CPU0: $(cat "$TMP/rt/wakeup/max_latency-CPU0")"

"$LATSCOPE" hist report -i "$DATA" --all-tasks --types wakeup,sharedprio --json >"$TMP/all.json" \
	2>/dev/null || die "--all-tasks failed"
ours=$(tr -d ' \n' <"$TMP/all.json" | grep -o '"all":{[^}]*' | head -1 | sed 's/.*"max_ns":\([0-9]*\).*/\1/')
[ -n "$ours" ] || die "no max_ns in the JSON"
total=$(tr -d ' \n' <"$TMP/all.json" | grep -o '"all":{"total":[0-9]*' | head -1 | grep -o '[0-9]*$')
[ "$total" -gt 100000 ] || die "only $total wakeup samples with --all-tasks"

command -v perf >/dev/null 2>&1 || { echo "ok (perf not installed: no cross-check)"; exit 0; }
export HOME="$TMP"
perf sched latency -i "$DATA" >"$TMP/perf.lat" 2>/dev/null || { echo "ok (perf sched latency failed: no cross-check)"; exit 0; }
# largest "max: X ms" of perf, in us; ours is stamped at sched_waking, perf at
# sched_wakeup, so ours may be a few us larger but never smaller
perfmax=$(grep -o 'max: *[0-9.]* ms' "$TMP/perf.lat" | awk '{ v = $2 * 1000; if (v > m) m = v } END { printf "%d", m }')
ours_us=$((ours / 1000))
[ "$ours_us" -ge "$perfmax" ] && [ "$ours_us" -le $((perfmax + 50)) ] ||
	die "max wakeup latency $ours_us us, perf sched latency says $perfmax us"
echo "ok: RT and all-task wakeup histograms; max $ours_us us (perf: $perfmax us)"
