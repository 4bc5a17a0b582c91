#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope hist report on a real recording of sched_switch/waking/wakeup (no
# timer or preemptirq events): the RT wakeup histogram with its victims, the
# --all-tasks histogram (its maximum against perf sched latency's on the shared
# recording), and the
# types the file cannot feed named on stderr.  The recording is made here:
# perf record around `chrt -f 50 perf bench sched pipe` (two SCHED_FIFO 50
# tasks waking each other 2 x 20000 times).  With SHARED_DATA (opt-in, see
# tests/lib.sh) the same checks also run on the shared recording, plus its
# LOST records and its migration/N RT wakeups.
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null 2>&1 || skip "perf is not installed"
command -v chrt >/dev/null 2>&1 || skip "chrt is not installed"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
export HOME="$TMP"
if ! perf record -q -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task \
	-a -o "$TMP/gen.data" -- chrt -f 50 perf bench sched pipe -l 20000 >/dev/null 2>"$TMP/rec.err"; then
	grep -qi 'operation not permitted' "$TMP/rec.err" && die "chrt -f 50 refused: $(tail -1 "$TMP/rec.err")"
	skip "perf record cannot record sched tracepoints here: $(tail -1 "$TMP/rec.err")"
fi

check() {	# recording, RT victim regex, minimum RT samples, minimum all-task samples
DATA=$1; rm -rf "$TMP/rt"
"$LATSCOPE" hist report -i "$DATA" -O "$TMP/rt" --nonzero >"$TMP/rt.out" 2>"$TMP/rt.err" ||
	die "hist report failed: $(cat "$TMP/rt.err")"
grep -q 'irqsoff not reported' "$TMP/rt.err" || die "irqsoff not flagged as unavailable"
grep -q 'missed_timer_offsets not reported' "$TMP/rt.err" || die "timers not flagged"
# every CPU's histogram and max files; the RT samples and the victims named
rt=0
for c in $(seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1))); do
	[ -f "$TMP/rt/wakeup/max_latency-CPU$c" ] || die "wakeup/max_latency-CPU$c missing"
	[ -f "$TMP/rt/wakeup/sharedprio/max_latency-CPU$c" ] || die "sharedprio max file CPU$c missing"
	for f in "$TMP/rt/wakeup/CPU$c" "$TMP/rt/wakeup/sharedprio/CPU$c"; do
		[ -f "$f" ] || continue
		rt=$((rt + $(awk '!/^#/ { s += $2 } END { print s + 0 }' "$f")))
	done
done
[ "$rt" -ge "$3" ] || die "only $rt RT wakeup samples in $(basename "$DATA") (expected >= $3; ${STATS:-})"
cat "$TMP/rt/wakeup/max_latency-CPU"* "$TMP/rt/wakeup/sharedprio/max_latency-CPU"* | grep -Eq "$2" ||
	die "no max_latency record names the RT victim ($2): $(cat "$TMP/rt/wakeup/max_latency-CPU"*)"

"$LATSCOPE" hist report -i "$DATA" --all-tasks --types wakeup,sharedprio --json >"$TMP/all.json" \
	2>/dev/null || die "--all-tasks failed"
ours=$(tr -d ' \n' <"$TMP/all.json" | grep -o '"all":{[^}]*' | head -1 | sed 's/.*"max_ns":\([0-9]*\).*/\1/')
[ -n "$ours" ] || die "no max_ns in the JSON"
total=$(tr -d ' \n' <"$TMP/all.json" | grep -o '"all":{"total":[0-9]*' | head -1 | grep -o '[0-9]*$')
[ "$total" -ge "$4" ] || die "only $total wakeup samples with --all-tasks (expected >= $4; stats: $(tr -d " \n" <"$TMP/all.json" | grep -o "\"stats\":{[^}]*")"

if [ "${5:-}" != perf ]; then
	echo "ok: $(basename "$DATA"): $rt RT samples, $total with --all-tasks"
	return 0
fi
perf sched latency -i "$DATA" >"$TMP/perf.lat" 2>/dev/null || die "perf sched latency failed on $DATA"
# largest "max: X ms" of perf, in us; ours is stamped at sched_waking, perf at
# sched_wakeup, so ours may be a few us larger but never smaller
perfmax=$(grep -o 'max: *[0-9.]* ms' "$TMP/perf.lat" | awk '{ v = $2 * 1000; if (v > m) m = v } END { printf "%d", m }')
ours_us=$((ours / 1000))
[ "$ours_us" -ge "$perfmax" ] && [ "$ours_us" -le $((perfmax + 50)) ] ||
	die "max wakeup latency $ours_us us, perf sched latency says $perfmax us"
echo "ok: $(basename "$DATA"): $rt RT samples, $total with --all-tasks; max $ours_us us (perf: $perfmax us)"
}

# 2 x 20000 SCHED_FIFO 50 wakings (user prio 50).  About half of them find
# the other task still on its run queue (it has written and not yet blocked
# in read): the kernel emits no sched_wakeup for those, and there is no
# latency to file.  Every real wakeup of a sched-pipe task (a sched_wakeup
# event, counted here with perf script) is filed, but those counted in
# stats (below; they may include other tasks' too) and at most one per task
# at the end of the recording (woken, never switched in before it ends);
# the other RT tasks' wakeups (migration/N) may add samples.
# So  w - counted drops - 2 <= filed <= w + other RT wakeups.
# (The first version asked for >= 20000, half of the wakings: CI filed 19888
# of about 20000 real wakeups.)  No cross-check of the maximum with perf
# sched latency here: its "max" also counts the wait of a preempted task
# (prev_state R), which on this shared, loaded machine exceeds every wakeup
# latency (seen: 209 ms vs our 25 ms).
# perf record 6.1 under load sometimes writes the end of a CPU's ring twice
# (the same records, byte for byte, at the start of the next round): perf
# script prints both, latscope drops the copy and counts it
# (input.duplicates), so a line seen before (CPU, time in ns, event and
# fields) is not counted again.  A new task's first wakeup
# (sched_wakeup_new: perf bench forks the second sched-pipe task) is filed
# as a wakeup too, as latency_hist files it.
perf script --ns -i "$TMP/gen.data" -F cpu,time,event,trace 2>/dev/null | awk '
	seen[$0]++ { next }
	$3 ~ /sched_wakeup(_new)?:$/ {
		if ($0 ~ /comm=sched-pipe /) w++
		else if (match($0, /prio=[0-9]+/) && substr($0, RSTART + 5, RLENGTH - 5) + 0 < 100) o++
	}
	END { print w + 0, o + 0 }' >"$TMP/wakeups" || die "perf script failed on gen.data"
read -r w o <"$TMP/wakeups"
[ "$w" -gt 0 ] || die "perf script shows no sched_wakeup of sched-pipe in gen.data"
"$LATSCOPE" hist report -i "$TMP/gen.data" --json >"$TMP/gen.json" 2>/dev/null || die "hist report --json failed"
# every RT wakeup not filed is counted: still running (dropped_running), a
# higher-priority task switched in first (dropped_prio), woken onto a CPU
# running a higher-priority task (wake_ignored), another wakeup tracked in
# its place (replaced).  (CI once filed 20111 with w - dropped_running - 2 =
# 20118: the other counters were not subtracted.)
dr=0
for k in dropped_running dropped_prio wake_ignored replaced; do
	v=$("$TOOLS/histcmp" --get "$TMP/gen.json" "stats.$k") || die "no stats.$k"
	dr=$((dr + v))
done
STATS=$(tr -d ' \n' <"$TMP/gen.json" | grep -o '"stats":{[^}]*}')
lo=$((w - dr - 2))
# --all-tasks files every task on its own: its own dropped_running, and a
# wakeup replaced by another before its switch-in is not filed (stats.replaced)
"$LATSCOPE" hist report -i "$TMP/gen.data" --all-tasks --json >"$TMP/gen-all.json" 2>/dev/null ||
	die "hist report --all-tasks --json failed"
dra=$("$TOOLS/histcmp" --get "$TMP/gen-all.json" stats.dropped_running) || die "no stats.dropped_running (--all-tasks)"
rpa=$("$TOOLS/histcmp" --get "$TMP/gen-all.json" stats.replaced) || die "no stats.replaced (--all-tasks)"
check "$TMP/gen.data" '^[0-9]+ 50 [0-9]+ \(0\) sched-pipe <- ' "$lo" $((w - dra - rpa - 2))
[ "$rt" -le $((w + o)) ] || die "$rt RT samples filed, more than the $w + $o RT wakeups in gen.data"
echo "  ($w sched_wakeup of sched-pipe, $dr not filed and counted ($dra dropped running with --all-tasks), $o other RT wakeups: $rt filed, bounds $lo..$((w + o)))"
if [ -n "$SHARED_DATA" ]; then
	rec=$(shared_recording) || die "SHARED_DATA=$SHARED_DATA could not be decompressed (zstd installed?)"
	# its RT wakeups are the migration/N threads (prio 0 = user 99)
	check "$rec" '^[0-9]+ 99 [0-9]+ \(0\) migration/[01] <- ' 1 100000 perf
	"$LATSCOPE" hist report -i "$rec" -O "$TMP/sh" >/dev/null 2>"$TMP/sh.err"
	grep -q 'lost' "$TMP/sh.err" || die "the shared recording's LOST records are not reported"
fi
