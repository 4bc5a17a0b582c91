#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope osnoise: options, exit statuses, stop thresholds, the trace layout,
# VM/HW reporting, --kernel on a kernel without the tracer, --parse-kernel of
# the tracer's text layout, --no-workload, and a run without root.
. "$TESTS_DIR/lib.sh"
L=$LATSCOPE
J=$TOOLS/osnjson
"$L" osnoise --help | grep -q "usage: latscope osnoise" || die "--help"
"$L" osnoise -p 10 -d 1 2>"$TMP/e"; [ $? -eq 2 ] || die "bad period accepted"
grep -q "^latscope osnoise: --period .10.: expected 100..10000000 us" "$TMP/e" || die "no message for a bad period: $(cat "$TMP/e")"
"$L" osnoise -r 2000 -p 1000 -d 1 2>/dev/null; [ $? -eq 2 ] || die "runtime > period accepted"
"$L" osnoise -P x:1 -d 1 2>/dev/null; [ $? -eq 2 ] || die "bad priority accepted"
"$L" osnoise nosuchmode 2>/dev/null; [ $? -eq 2 ] || die "bad mode accepted"
"$L" osnoise top -i /nonexistent 2>"$TMP/e"; [ $? -eq 2 ] || die "missing replay file"
grep -q "/nonexistent" "$TMP/e" || die "error does not name the file"

# --parse-kernel: the kernel tracer's layout, generated here (2 CPUs, 2 periods each)
cat > "$TMP/k.txt" <<'T'
# tracer: osnoise
     osnoise/0-859     [000] ....    81.637220: 1000000        190  99.98100       9     18      0   1007     18      1
     osnoise/1-860     [001] ....    81.637221: 1000000        500  99.95000      12     10      0   1000     20      2
     osnoise/1-860     [001] d.h.    81.900000: irq_noise: local_timer:236 start 81.899998000 duration 1845 ns
     osnoise/1-860     [001] ....    81.900002: sample_threshold: start 81.899997000 duration 3000 ns interference 1
     osnoise/1-860     [001] d...    81.950000: thread_noise:   kworker/1:1:42 start 81.949990000 duration 10000 ns
     osnoise/0-859     [000] ....    82.637220: 1000000        310  99.96900      20      2      0   1003     17      0
     osnoise/1-860     [001] ....    82.637221: 1000000        100  99.99000       4      5      0    999     21      3
T
"$L" osnoise top --parse-kernel "$TMP/k.txt" -q > "$TMP/k.out" || die "parse-kernel failed"
r0=$(awk '$1 == "0" && $2 ~ /^#/ { print; exit }' "$TMP/k.out"); set -- $r0
[ "$*" = "0 #2 2000000 500 99.97500 310 20 20 0 2010 35 1" ] || die "cpu0 row: $*"
r1=$(awk '$1 == "1" && $2 ~ /^#/ { print; exit }' "$TMP/k.out"); set -- $r1
[ "$*" = "1 #2 2000000 600 99.97000 500 12 15 0 1999 41 5" ] || die "cpu1 row: $*"
grep -q "kworker/1:1:42" "$TMP/k.out" || die "thread_noise contributor missing"
"$L" osnoise top --parse-kernel "$TMP/k.txt" -s 2 > /dev/null; [ $? -eq 1 ] || die "stop in parsed text not reported"
"$L" osnoise hist --parse-kernel "$TMP/k.txt" --json > "$TMP/kh.json" || die "parse-kernel hist"
[ "$($J "$TMP/kh.json" cpus.1.hist.count)" = 1 ] || die "sample_threshold not in the histogram"
[ "$($J "$TMP/kh.json" cpus.1.hist.max_ns)" = 3000 ] || die "histogram max"

# --kernel: a clear failure where the kernel has no osnoise tracer
if [ ! -d /sys/kernel/tracing/osnoise ]; then
	"$L" osnoise top --kernel -d 1 2>"$TMP/e"; [ $? -eq 2 ] || die "--kernel did not fail"
	grep -q "osnoise tracer" "$TMP/e" || die "--kernel message: $(cat "$TMP/e")"
fi

[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "the live part needs 2 CPUs"
# A stop threshold ends the run with exit 1 and shows the events before it.
"$L" osnoise top -c 1 -H 0 -d 10 -s 1 -q > "$TMP/stop.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || die "stop threshold: exit $rc"
grep -q "hit stop tracing" "$TMP/stop.txt" || die "no stop line"
grep -q "sample_threshold: start" "$TMP/stop.txt" || die "no events before the stop"

# trace: header and one 9-number record per period
"$L" osnoise trace -c 1 -H 0 -d 2 -p 200000 -r 150000 > "$TMP/tr.txt" 2>/dev/null || die "trace failed"
grep -q "^#.*TASK-PID" "$TMP/tr.txt" || die "no trace header"
n=$(awk '/osnoise\/1-/ && !/_noise:|sample_threshold:/ { if (NF == 13) n++ } END { print n + 0 }' "$TMP/tr.txt")
[ "$n" -ge 5 ] || die "only $n period records: $(cat "$TMP/tr.txt")"
# each record's noise is at most its runtime, and the runtime is the one asked
# (the last period may be cut short by the end of the run)
awk '/osnoise\/1-/ && NF == 13 { if ($6 + 0 > $5 + 0) exit 1; if (short) exit 1; short = ($5 < 150000) }' \
	"$TMP/tr.txt" || die "bad record values: $(cat "$TMP/tr.txt")"

# VM: HW noise is the hypervisor, and steal is shown beside it
if grep -q " hypervisor" /proc/cpuinfo; then
	"$L" osnoise top -c 1 -H 0 -d 2 -q > "$TMP/vm.txt" 2>&1 || die "top failed"
	grep -q "^Virtual machine" "$TMP/vm.txt" || die "no VM line"
	grep -q "steal over the run" "$TMP/vm.txt" || die "no steal line"
	if [ "$(id -u)" = 0 ]; then
		# with attribution, gaps with no interference at all are counted as HW
		grep -q "HW share:" "$TMP/vm.txt" || die "no HW share line"
		hw=$(awk '$1 == "1" && $2 ~ /^#/ { print $8; exit }' "$TMP/vm.txt")
		[ "$hw" != "-" ] && [ "$hw" -gt 0 ] || die "no HW noise on a VM: $(cat "$TMP/vm.txt")"
	fi
fi

# --no-workload: per-task and per-IRQ execution time.  As root with readable
# sched/irq tracepoints, attribution must be on (the product turning it off
# would otherwise pass unnoticed); without them, off with the reason in the JSON.
if [ "$(id -u)" = 0 ]; then
	[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	"$L" osnoise top --no-workload -c 0-1 -d 2 --json > "$TMP/nw.json" || die "--no-workload failed"
	[ "$($J "$TMP/nw.json" workload)" = false ] || die "--no-workload: workload flag not false"
	if [ -r /sys/kernel/tracing/events/sched/sched_switch/format ] &&
		[ -r /sys/kernel/tracing/events/irq/irq_handler_entry/format ]; then
		[ "$($J "$TMP/nw.json" attribution)" = true ] ||
			die "--no-workload: attribution off with tracepoints available: $($J "$TMP/nw.json" attribution_off)"
		for c in 0 1; do
			[ "$($J "$TMP/nw.json" cpus.$c.top.length)" -gt 0 ] || die "--no-workload: no tasks measured on CPU$c"
		done
		# every CPU takes timer interrupts (LOC) in 2 s
		[ "$($J "$TMP/nw.json" cpus.0.irq)" -gt 0 ] || die "--no-workload: no IRQ counted on CPU0"
	else
		[ "$($J "$TMP/nw.json" attribution)" = false ] || die "--no-workload: attribution claimed without tracepoints"
		[ -n "$($J "$TMP/nw.json" attribution_off)" ] || die "--no-workload: no reason for attribution off"
	fi
fi

# without root: the measurement runs, attribution is off with one line saying why
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$L" "$TMP/ls" && chmod 755 "$TMP" "$TMP/ls"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/ls" osnoise top -c 1 -d 1 -q \
		> "$TMP/nr.txt" 2>&1 || die "non-root run failed: $(cat "$TMP/nr.txt")"
	[ "$(grep -c '^attribution off:' "$TMP/nr.txt")" = 1 ] || die "no single attribution-off line: $(cat "$TMP/nr.txt")"
	grep -q "^  1 #" "$TMP/nr.txt" || die "no measurement without root"
fi
exit 0
