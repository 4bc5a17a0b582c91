#!/bin/sh
# SPDX-License-Identifier: MIT
# The idle-drop self-test and --keep-busy / --no-keep-busy: the default run
# reports a self-test verdict per traced CPU, turns keep-busy on exactly when
# a CPU drops (with one line on stderr naming --no-keep-busy), and the
# options override it.  When the kernel drops idle-entry samples, keep-busy
# must bring the idle CPU's timer-workload wakeups to (nearly) one per cycle.
. "$TESTS_DIR/lib.sh"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
[ -r /sys/kernel/tracing/events/irq_vectors/local_timer_entry/id ] ||
	skip "no irq_vectors:local_timer_entry (not x86): the self-test cannot run"
HC="$TOOLS/histcmp"
"$LATSCOPE" hist record -d 1 --timer-workload --buckets-json >"$TMP/auto.json" 2>"$TMP/auto.err"
rc=$?
if [ $rc -ne 0 ]; then
	grep -qi 'permission\|paranoid' "$TMP/auto.err" && skip "no permission for perf_event_open"
	die "hist record failed ($rc): $(cat "$TMP/auto.err")"
fi
tr -d ' \n' <"$TMP/auto.json" >"$TMP/auto.c"
grep -q '"keep_busy":{' "$TMP/auto.c" || die "no input.keep_busy in the JSON"
nv=$(grep -o '"verdict":"[a-z]*"' "$TMP/auto.c" | wc -l)
[ "$nv" -eq "$(nproc)" ] || die "$nv self-test verdicts for $(nproc) CPUs"
en=$("$HC" --get "$TMP/auto.json" input.keep_busy.enabled)
# the verdict is the rule of docs/hist.md, from the counts it reports:
# drops exactly when samples + lost < fired (the event's counter), unknown
# below 10 firings (the old rule, half of LOC, called 141 of 194 ok)
i=0
while v=$("$HC" --get "$TMP/auto.json" input.keep_busy.self_test.$i.fired 2>/dev/null) && [ -n "$v" ]; do
	s=$("$HC" --get "$TMP/auto.json" input.keep_busy.self_test.$i.samples)
	l=$("$HC" --get "$TMP/auto.json" input.keep_busy.self_test.$i.lost)
	want=ok
	[ $((s + l)) -lt "$v" ] && want=drops
	[ "$v" -lt 10 ] && want=unknown
	got=$(tr -d ' \n' <"$TMP/auto.json" | grep -o '"verdict":"[a-z]*"' | sed -n "$((i + 1))p" | cut -d'"' -f4)
	[ "$got" = "$want" ] || die "self-test CPU entry $i: fired $v, samples $s, lost $l: verdict $got, the rule says $want"
	i=$((i + 1))
done
[ $i -eq "$(nproc)" ] || die "input.keep_busy.self_test[].fired on $i CPUs of $(nproc)"
if grep -q '"verdict":"drops"' "$TMP/auto.c"; then
	[ "$en" = 1 ] || die "the self-test saw drops but keep-busy stayed off"
	grep -q 'no-keep-busy' "$TMP/auto.err" || die "no stderr line saying how to turn keep-busy off"
	drops=1
else
	[ "$en" = 0 ] || die "keep-busy on without drops and without --keep-busy"
	drops=0
fi
"$LATSCOPE" hist record -d 1 --no-keep-busy --json >"$TMP/off.json" 2>"$TMP/off.err" || die "--no-keep-busy run failed"
[ "$("$HC" --get "$TMP/off.json" input.keep_busy.enabled)" = 0 ] || die "--no-keep-busy left it on"
# the live source's reorder counters reach the JSON (they were counted and never shown)
for k in out_of_order forced_flushes lost_events unknown_id bad_samples dropped; do
	v=$("$HC" --get "$TMP/off.json" input.$k) || die "live JSON lacks input.$k"
	[ -n "$v" ] || die "live JSON lacks input.$k"
done
grep -q '"self_test"' "$TMP/off.json" && die "--no-keep-busy still ran the self-test"
grep -q 'no-keep-busy' "$TMP/off.err" && die "--no-keep-busy still printed the note"
"$LATSCOPE" hist record -d 1 --keep-busy --json >"$TMP/on.json" 2>/dev/null || die "--keep-busy run failed"
[ "$("$HC" --get "$TMP/on.json" input.keep_busy.enabled)" = 1 ] || die "--keep-busy did not turn it on"
if [ $drops = 1 ]; then
	# 1 s of 1 ms timers: every CPU should have close to 1000 timerandwakeup samples
	i=0
	while c=$("$HC" --get "$TMP/auto.json" histograms.timerandwakeup.cpus.$i.total 2>/dev/null); do
		[ "$c" -gt 800 ] || die "keep-busy on, but only $c timer wakeups on one CPU in 1 s of 1 ms timers"
		i=$((i + 1))
	done
	[ $i -eq "$(nproc)" ] || die "timerandwakeup on $i CPUs of $(nproc)"
fi
echo "ok: self-test verdicts $(grep -o '"verdict":"[a-z]*"' "$TMP/auto.c" | tr '\n' ' ')keep-busy=$en"
