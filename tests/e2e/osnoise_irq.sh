#!/bin/sh
# SPDX-License-Identifier: MIT
# Ground truth: a burst of timer interrupts (a CPU-wide cpu-clock perf event at
# 2 kHz on the measured CPU, no task woken) must show up as IRQ noise, one
# irq_noise local_timer event per local timer interrupt the kernel took.
# noisegen reports the CPU's LOC count of /proc/interrupts over its event's
# life, read by itself at both ends, and two windows of CLOCK_MONOTONIC (the
# clock of latscope's event lines) around the reads: the outer one, from
# before the first read to after the last, holds every interrupt LOC
# counted; every interrupt of the inner one, after the first read and before
# the last, was counted.  The test counts latscope's `irq_noise:
# local_timer` events whose start lies in each window: inner <= LOC <=
# outer, but for an interrupt within microseconds of an end (its LOC
# increment and its gap's start on different sides of the edge): 2 allowed.
# Every local timer interrupt taken while the busy loop runs, or inside
# another task's noise, is reported (nested, net).
# (The first version compared the whole runs' local_timer totals with a
# baseline run's, assuming the rest of both runs alike: CI failed when the
# machine was busier in one than in the other.  The second had one window,
# read before the first LOC read and after the last: on a loaded machine
# noisegen was preempted between a LOC read and its clock read and LOC came
# out 7 to 16 above the events (`6756 local_timer events in the window, the
# kernel took 6772`, reproduced with two busy loops beside it).  Seen now,
# with the same load: inner/LOC/outer 6743/6748/6757.)
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, perf cpu-clock)"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
grep -q '^ *LOC:' /proc/interrupts || skip "no LOC line in /proc/interrupts (not x86)"
CPU=1
"$LATSCOPE" osnoise trace -c $CPU -H 0 -d 60 --events >"$TMP/irq.out" 2>"$TMP/irq.err" &
pid=$!
n=0
until grep -qx "ls-osnoise/$CPU" /proc/$pid/task/*/comm 2>/dev/null; do
	kill -0 $pid 2>/dev/null || die "latscope ended before measuring: $(cat "$TMP/irq.err")"
	n=$((n + 1)); [ $n -lt 300 ] || die "no ls-osnoise/$CPU thread after 30 s"
	sleep 0.1
done
sleep 0.2	# past the first period's set-up
# perf records the same tracepoint beside latscope, as a second reader
if command -v perf >/dev/null 2>&1 &&
	perf record -q -k CLOCK_MONOTONIC -e irq_vectors:local_timer_entry -C $CPU -o "$TMP/p.data" -- \
		"$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 >"$TMP/ng" 2>"$TMP/perf.err"; then
	perf script -i "$TMP/p.data" -F time --ns 2>/dev/null | tr -d ' :' >"$TMP/perf.times"
else
	rm -f "$TMP/perf.times"
	"$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 >"$TMP/ng" || { kill $pid; wait $pid; skip "cannot create a cpu-clock event"; }
fi
kill -0 $pid 2>/dev/null || die "the measurement ended before the injection did"
kill -INT $pid	# -d 60 is a safety net: the injection ends the measurement
wait $pid || die "latscope failed: $(cat "$TMP/irq.err")"
grep -q 'irq_noise:' "$TMP/irq.out" || skip "no attribution (tracepoints refused?): $(cat "$TMP/irq.err")"
a=$(sed -n 's/window_start_ns=//p' "$TMP/ng"); b=$(sed -n 's/window_end_ns=//p' "$TMP/ng")
ia=$(sed -n 's/inner_start_ns=//p' "$TMP/ng"); ib=$(sed -n 's/inner_end_ns=//p' "$TMP/ng")
loc=$(sed -n 's/loc_delta=//p' "$TMP/ng")
[ -n "$loc" ] || die "noisegen could not read LOC: $(cat "$TMP/ng")"
[ -n "$ia" ] && [ -n "$ib" ] || die "noisegen printed no inner window: $(cat "$TMP/ng")"
[ "$loc" -gt 1500 ] || die "the kernel took only $loc local timer interrupts in 3 s of a 2 kHz cpu-clock event"
# events in each window, by kind of line that names local_timer
awk -v a="$a" -v b="$b" -v ia="$ia" -v ib="$ib" '
	/ local_timer:/ {
		for (i = 1; i <= NF; i++) if ($i == "start") { split($(i + 1), t, "."); ns = t[1] * 1000000000 + t[2] }
		if (ns >= a && ns <= b) n[$5]++
		if (ns >= ia && ns <= ib) inner[$5]++
	}
	END { for (k in n) print k, n[k], inner[k] + 0 }' "$TMP/irq.out" >"$TMP/kinds"
ev=$(awk '$1 == "irq_noise:" { print $2 }' "$TMP/kinds"); ev=${ev:-0}
evin=$(awk '$1 == "irq_noise:" { print $3 }' "$TMP/kinds"); evin=${evin:-0}
other=$(awk '$1 != "irq_noise:"' "$TMP/kinds")
[ -z "$other" ] || die "local_timer attributed to another class: $other"
lost=$(grep -o '^[0-9]* events lost' "$TMP/irq.err" | cut -d' ' -f1)
tpd=$(sed -n 's/tracepoint_delta=//p' "$TMP/ng")
echo "CPU$CPU: irq_noise local_timer events in noisegen's inner/outer windows of $(((ib - ia) / 1000000))/$(((b - a) / 1000000)) ms: $evin/$ev, LOC +$loc over the event's life, the tracepoint fired ${tpd:-?} times (${lost:-?} events lost)"
# perf's samples of the tracepoint in the same windows
if [ -s "$TMP/perf.times" ]; then
	pc=$(awk -v a="$a" -v b="$b" -v ia="$ia" -v ib="$ib" '{ split($1, t, "."); ns = t[1] * 1000000000 + t[2]
		if (ns >= a && ns <= b) n++; if (ns >= ia && ns <= ib) m++ } END { print m + 0, n + 0 }' "$TMP/perf.times")
	pin=${pc% *} pout=${pc#* }
	echo "CPU$CPU: perf's samples of irq_vectors:local_timer_entry in the same windows: $pin/$pout"
	[ $((evin - 2)) -le "$pout" ] && [ "$pin" -le $((ev + 2)) ] ||
		die "latscope has $evin/$ev local_timer events in the inner/outer window, perf $pin/$pout samples of the tracepoint"
fi
[ $((evin - 2)) -le "$loc" ] && [ "$loc" -le $((ev + 2)) ] && exit 0
# fewer events than interrupts: the kernel delivered fewer samples than the
# tracepoint fired (a busy VM, or a loaded machine); the counting event and
# LOC agree, up to the interrupts between the inner and the outer window
# (both were read there: perf's count between them, + 2); then perf, the
# second reader, misses the same ones, and latscope names them (its counting
# twin: "fired ... never delivered" on stderr, with local_timer_entry's
# count over its whole run, at least the ones missing here)
edge=$(( ${pout:-0} - ${pin:-0} + 2 ))
d=$(( ${tpd:-0} - loc )); [ $d -ge 0 ] || d=$((-d))
[ -s "$TMP/perf.times" ] && [ -n "$tpd" ] && [ $d -le $edge ] &&
	[ "$pout" -lt "$loc" ] && [ $((evin - 2)) -le "$pout" ] && [ "$pin" -le $((ev + 2)) ] && {
	echo "CPU$CPU: the kernel fired the tracepoint $tpd times and delivered $pout samples to perf and $ev to latscope: $((loc - ev)) interrupts of LOC in no sample stream"
	named=$(sed -n "s/.*never delivered.* CPU$CPU [0-9]* of [0-9]* ([^)]*irq_vectors:local_timer_entry \([0-9]*\) of.*/\1/p" "$TMP/irq.err" | head -1)
	[ -n "$named" ] && [ "$named" -ge $((loc - ev - edge)) ] ||
		die "latscope missed $((loc - ev)) local timer interrupts and names ${named:-no} undelivered local_timer_entry samples: $(cat "$TMP/irq.err")"
	echo "CPU$CPU: latscope names $named undelivered local_timer_entry samples"
	exit 0
}
die "local_timer events: $evin in the inner window, $ev in the outer one; the kernel took $loc (allowed: inner - 2 <= LOC <= outer + 2)"
