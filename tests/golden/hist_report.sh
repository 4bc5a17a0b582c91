#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope hist report on a scripted fixture (tests/golden/hist/scenario.txt,
# written to perf.data by tests/tools/histfix from the stored formats):
# the latency_hist tree, the max_latency lines and the table must equal the
# files under tests/golden/hist/expected, for a little-endian file, its
# big-endian twin and a pipe stream; options change the results as documented.
. "$TESTS_DIR/lib.sh"
FIX=${TOOLS:?TOOLS must name the test tools dir}/histfix
[ -x "$FIX" ] || die "$FIX not built"
G="$TESTS_DIR/golden/hist"
FORMATS="$TESTS_DIR/data/formats"

"$FIX" -o "$TMP/le.data" --formats "$FORMATS" <"$G/scenario.txt" || die "histfix LE"
"$FIX" -o "$TMP/be.data" --formats "$FORMATS" --big-endian <"$G/scenario.txt" || die "histfix BE"
"$FIX" -o "$TMP/pipe.data" --formats "$FORMATS" --pipe <"$G/scenario.txt" || die "histfix pipe"

for v in le be; do
	"$LATSCOPE" hist report -i "$TMP/$v.data" -O "$TMP/$v" --nonzero >"$TMP/$v.out" 2>"$TMP/$v.err" ||
		die "$v: hist report failed: $(cat "$TMP/$v.err")"
	diff -r "$G/expected/tree" "$TMP/$v" >&2 || die "$v: latency_hist tree differs from the golden one"
	"$LATSCOPE" hist report -i "$TMP/$v.data" >"$TMP/$v.table" 2>/dev/null || die "$v: table"
	diff "$G/expected/report.txt" "$TMP/$v.table" >&2 || die "$v: table differs from the golden one"
done
"$LATSCOPE" hist report -i - -O "$TMP/pipe" --nonzero <"$TMP/pipe.data" >/dev/null 2>&1 ||
	die "pipe: hist report failed"
diff -r "$G/expected/tree" "$TMP/pipe" >&2 || die "pipe: tree differs"

# full files: 7 header lines and all 10240 rows, zero rows included
"$LATSCOPE" hist report -i "$TMP/le.data" -O "$TMP/full" --types wakeup >/dev/null 2>&1 || die "full"
n=$(wc -l <"$TMP/full/wakeup/CPU0")
[ "$n" -eq 10247 ] || die "wakeup/CPU0 has $n lines, expected 10247"
grep -q "^    27	               1$" "$TMP/full/wakeup/CPU0" || die "row 27 missing"
grep -q "^ 10239	               0$" "$TMP/full/wakeup/CPU0" || die "last row missing"
[ ! -e "$TMP/full/irqsoff" ] || die "--types wakeup wrote irqsoff"

# --pid: only mig (pid 204) is measured
"$LATSCOPE" hist report -i "$TMP/le.data" -O "$TMP/pid" --pid 204 --nonzero >/dev/null 2>&1 || die "pid"
grep -q '^#Total samples: 1$' "$TMP/pid/wakeup/CPU1" || die "--pid 204: CPU1 should have 1 sample"
grep -q '^#Total samples: 0$' "$TMP/pid/wakeup/CPU0" || die "--pid 204: CPU0 should be empty"
grep -q '^(none)$' "$TMP/pid/missed_timer_offsets/max_latency-CPU0" || die "--pid 204: timer"

# --all-tasks: CFS tasks are measured too; the RT samples (19 ms maximum) stay
"$LATSCOPE" hist report -i "$TMP/le.data" --all-tasks --json >"$TMP/all.json" 2>/dev/null || die "all-tasks"
grep -q '"max_ns":19000000' "$TMP/all.json" || grep -q '"max_ns": *19000000' "$TMP/all.json" ||
	die "--all-tasks JSON lacks the 19 ms maximum"

# --both-off: the combined window is the 3.5 us with both off
"$LATSCOPE" hist report -i "$TMP/le.data" -O "$TMP/both" --both-off --types preemptirqsoff >/dev/null 2>&1 ||
	die "both-off"
grep -q '^#Maximum latency: 3 microseconds$' "$TMP/both/preemptirqsoff/CPU0" || die "--both-off window"

# JSON: parsable numbers in ns, the max record with its culprit
"$LATSCOPE" hist report -i "$TMP/le.data" --json >"$TMP/j" 2>"$TMP/j.err" || die "json"
tr -d ' \n' <"$TMP/j" >"$TMP/jc"
for want in '"timer_offset_ns":12000' '"culprit_comm":"rtpeer"' '"missed_timer_offsets":{"cpus":[{"total":1' \
	'"unavailable":[]' '"p99_ns":19000000'; do
	grep -qF "$want" "$TMP/jc" || die "JSON lacks $want"
done
[ ! -s "$TMP/j.err" ] || die "JSON run wrote to stderr: $(cat "$TMP/j.err")"

# thresholds: exit 1 above, 0 below
"$LATSCOPE" hist report -i "$TMP/le.data" --threshold 50us >/dev/null 2>&1
[ $? -eq 1 ] || die "--threshold 50us should exit 1"
"$LATSCOPE" hist report -i "$TMP/le.data" --threshold 20ms >/dev/null 2>&1 || die "--threshold 20ms should exit 0"

# a sched-only file: the missing types are named, not silently empty
grep -v 'preemptirq\|timer:' "$G/scenario.txt" >"$TMP/sched.txt"
"$FIX" -o "$TMP/sched.data" --formats "$FORMATS" <"$TMP/sched.txt" || die "histfix sched"
"$LATSCOPE" hist report -i "$TMP/sched.data" -O "$TMP/sched" >/dev/null 2>"$TMP/sched.err" || die "sched-only"
grep -q 'irqsoff not reported: needs preemptirq' "$TMP/sched.err" || die "irqsoff not flagged"
grep -q 'missed_timer_offsets not reported' "$TMP/sched.err" || die "timer not flagged"
[ ! -e "$TMP/sched/irqsoff" ] || die "irqsoff files written without events"
[ -f "$TMP/sched/wakeup/CPU0" ] || die "wakeup files missing"

# errors say what to do
"$LATSCOPE" hist report -i "$TMP/nonexistent.data" >/dev/null 2>"$TMP/e"; [ $? -eq 2 ] || die "missing file: exit"
[ "$(head -1 "$TMP/e")" = "latscope hist report: $TMP/nonexistent.data: No such file or directory" ] || die "missing file: message: $(cat "$TMP/e")"
"$LATSCOPE" hist report --resolution 0 >/dev/null 2>&1; [ $? -eq 2 ] || die "bad resolution accepted"
echo "ok: golden tree, table, pid/all-tasks/both-off/json/threshold options"
