#!/bin/sh
# SPDX-License-Identifier: MIT
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

# NMIs and steal around the run: an outlier below is accepted as a hypervisor
# gap only when no NMI could have run between the two writes of one hit
nmis() { awk '$1 == "NMI:" { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts; }
steal() { awk '$1 == "cpu" { print $9 }' /proc/stat; }
nmi0=$(nmis); steal0=$(steal)
# perf's clock must be the live source's (CLOCK_MONOTONIC) for the window to match
perf record -q -k CLOCK_MONOTONIC -m 4096 -e 'sched:*,timer:*' -a -o "$TMP/perf.data" -- \
	"$LATSCOPE" hist record --timer-workload -d 3 --keep-busy -o "$TMP/ours.data" \
	--buckets-json >"$TMP/live.json" 2>"$TMP/err"
rc=$?
nmi1=$(nmis); steal1=$(steal)
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

# our own -o file must give the live result exactly (no window needed)
"$LATSCOPE" hist report -i "$TMP/ours.data" --buckets-json >"$TMP/ours.json" 2>/dev/null ||
	die "hist report on our -o file failed"
"$HC" "$TMP/live.json" "$TMP/ours.json" >"$TMP/cmp0" || die "live vs own -o file differ: $(cat "$TMP/cmp0")"
n=$("$HC" --get "$TMP/live.json" histograms.timerandwakeup.all.total)
[ "${n:-0}" -gt 1000 ] || die "only ${n:-0} timerandwakeup samples live in 3 s of 1 ms timers"

# Sample by sample (tests/tools/histpair): the same tracepoint hits are in
# both files, each copy stamped when it was written (perf's copy some
# 100-900 ns after ours).  Over the live window, moved inwards to quiet
# points so that both copies of every hit are on the same side of the edges,
# every sample must pair: counts, victim, culprit and timer offsets equal,
# latencies made of the same two hits and within 1 us of each other.  A
# larger difference is accepted only when one hit's two copies are further
# apart than that with interrupts off and no NMI in the run: the vCPU was
# stopped by the hypervisor between the two writes (docs/hist.md).
hv=; [ "$nmi0" = "$nmi1" ] && hv=--hv-ok
"$TOOLS/histpair" $hv --bound 1000 "$TMP/ours.data" "$TMP/perf.data" "$first" "$last" >"$TMP/pair"
prc=$?
echo "NMIs during the run: $((nmi1 - nmi0)); steal (/proc/stat, ticks): $((steal1 - steal0))" >>"$TMP/pair"
[ $prc -eq 0 ] || { cat "$TMP/pair" >&2; die "perf's recording and the live run do not pair sample by sample over $first..$last (histpair exit $prc)"; }
set -- $(sed -n 's/^window: //p' "$TMP/pair")
[ $# -eq 2 ] || die "histpair printed no window"
win="$(ns2s "$1"),$(ns2s "$2")"

# the product on both files over that window: `hist report --time` on perf's
# file gives the live run's histograms: missed_timer_offsets (from the
# payloads) bucket for bucket, the wakeup types the same sample counts (their
# values were compared one by one above)
"$LATSCOPE" hist report -i "$TMP/perf.data" --time "$win" --buckets-json >"$TMP/off.json" 2>"$TMP/err2" ||
	die "hist report on perf's file failed: $(cat "$TMP/err2")"
"$LATSCOPE" hist report -i "$TMP/ours.data" --time "$win" --buckets-json >"$TMP/livewin.json" 2>"$TMP/err3" ||
	die "hist report on our -o file failed: $(cat "$TMP/err3")"
plost=$("$HC" --get "$TMP/off.json" input.lost_events)
psl=$("$HC" --get "$TMP/off.json" input.lost_samples)
[ "$plost" -eq 0 ] && [ "$psl" -eq 0 ] || skip "perf lost $plost events / $psl samples; cannot compare"
"$HC" "$TMP/livewin.json" "$TMP/off.json" missed_timer_offsets >"$TMP/cmp" || {
	cat "$TMP/cmp" >&2
	die "perf's recording over the live window ($win) gives other timer histograms than the live run"
}
"$HC" --counts "$TMP/livewin.json" "$TMP/off.json" wakeup wakeup/sharedprio timerandwakeup \
	>>"$TMP/cmp" || {
	cat "$TMP/cmp" >&2
	die "perf's recording over the live window ($win) gives other wakeup sample counts than the live run"
}
sed 's/^/  /' "$TMP/pair" "$TMP/cmp"
echo "ok: perf record -e 'sched:*,timer:*' over $win gives the live histograms ($n timerandwakeup samples)"
