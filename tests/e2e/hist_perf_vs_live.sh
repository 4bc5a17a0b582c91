#!/bin/sh
# The acceptance test "a perf.data recorded with perf record -e sched:*,timer:*
# gives the same histograms offline as the live run over the same window":
# perf records system-wide around a live `latscope hist record
# --timer-workload -o ours.data`.  The live result is exactly its own event
# stream replayed (checked first); over the window where the live run traced
# every CPU, `hist report --time` on perf's file must give the same histograms
# (totals, below/above, min/max and buckets, per CPU) as on ours.data, when
# neither side lost events.  --keep-busy keeps the CPUs out of idle so the
# kernel's idle-entry sample drop (see docs/hist.md) does not hit either side.
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null 2>&1 || skip "perf is not installed"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
export HOME="$TMP"
HC="$TOOLS/histcmp"

# perf's clock must be the live source's (CLOCK_MONOTONIC) for the window to match
perf record -q -k CLOCK_MONOTONIC -m 4096 -e 'sched:*,timer:*' -a -o "$TMP/perf.data" -- \
	"$LATSCOPE" hist record --timer-workload -d 3 --keep-busy -o "$TMP/ours.data" \
	--buckets-json >"$TMP/live.json" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ]; then
	if grep -q 'latscope hist record' "$TMP/err"; then
		grep -qi 'permission\|paranoid' "$TMP/err" && skip "no permission for perf_event_open"
		die "hist record failed ($rc): $(cat "$TMP/err")"
	fi
	skip "perf record cannot record here: $(tail -1 "$TMP/err")"
fi
[ -s "$TMP/perf.data" ] || skip "perf wrote no data: $(tail -1 "$TMP/err")"

# The live run's window: from when every CPU was enabled to the start of the
# disable (input.traced_from/until_ns; first/last_event_ns include the edges
# where only some CPUs were traced).
first=$("$HC" --get "$TMP/live.json" input.traced_from_ns) || die "no input.traced_from_ns in the live JSON"
last=$("$HC" --get "$TMP/live.json" input.traced_until_ns) || die "no input.traced_until_ns in the live JSON"
"$HC" --get "$TMP/live.json" input.first_event_ns >/dev/null || die "no input.first_event_ns in the live JSON"
lost=$("$HC" --get "$TMP/live.json" input.lost_events)
[ "$lost" -eq 0 ] || skip "the live run lost $lost events (machine too busy); cannot compare"
ns2s() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
win="$(ns2s "$first"),$(ns2s "$last")"

"$LATSCOPE" hist report -i "$TMP/perf.data" --time "$win" --buckets-json >"$TMP/off.json" 2>"$TMP/err2" ||
	die "hist report on perf's file failed: $(cat "$TMP/err2")"
# the live run over that window: its own event stream (-o), shown below to
# give exactly the live histograms, cut to the window
"$LATSCOPE" hist report -i "$TMP/ours.data" --time "$win" --buckets-json >"$TMP/livewin.json" 2>"$TMP/err3" ||
	die "hist report on our -o file failed: $(cat "$TMP/err3")"
plost=$("$HC" --get "$TMP/off.json" input.lost_events)
psl=$("$HC" --get "$TMP/off.json" input.lost_samples)
[ "$plost" -eq 0 ] && [ "$psl" -eq 0 ] || skip "perf lost $plost events / $psl samples; cannot compare"

# our own -o file must give the live result too (no window needed)
"$LATSCOPE" hist report -i "$TMP/ours.data" --buckets-json >"$TMP/ours.json" 2>/dev/null ||
	die "hist report on our -o file failed"
"$HC" "$TMP/live.json" "$TMP/ours.json" >"$TMP/cmp0" || die "live vs own -o file differ: $(cat "$TMP/cmp0")"

n=$("$HC" --get "$TMP/live.json" histograms.timerandwakeup.all.total)
[ "${n:-0}" -gt 1000 ] || die "only ${n:-0} timerandwakeup samples live in 3 s of 1 ms timers"
# missed_timer_offsets comes from the events' payloads (expires, now): exact.
# The wakeup latencies are differences of sample times, and every perf event
# attached to a tracepoint reads the clock itself when the tracepoint fires
# (perf's copy of an event is stamped some 10-300 ns from ours): same samples
# (totals, below, above equal), each within 1 us (one bucket).
"$HC" "$TMP/livewin.json" "$TMP/off.json" missed_timer_offsets >"$TMP/cmp" || {
	cat "$TMP/cmp" >&2
	die "perf's recording over the live window ($win) gives other timer histograms than the live run"
}
"$HC" --tolerance 1000 "$TMP/livewin.json" "$TMP/off.json" wakeup wakeup/sharedprio timerandwakeup \
	>>"$TMP/cmp" || {
	cat "$TMP/cmp" >&2
	die "perf's recording over the live window ($win) gives other wakeup histograms than the live run"
}
sed 's/^/  /' "$TMP/cmp"
echo "ok: perf record -e 'sched:*,timer:*' over $win gives the live histograms ($n timerandwakeup samples)"
