#!/bin/sh
# Ground truth: a burst of timer interrupts (a CPU-wide cpu-clock perf event at
# 2 kHz on the measured CPU, no task woken) must show up as IRQ noise:
# local_timer:236 entries grow by at least 75 % of the injected count over a
# baseline run, and the IRQ counter and the IRQ share grow with them.  The
# injected count is what the kernel itself took (/proc/interrupts LOC of the
# CPU, injected run minus baseline run): on a loaded machine the perf hrtimer
# often expires together with another timer and one interrupt serves both, so
# fewer than 2000/s arrive; that is not latscope's loss.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, perf cpu-clock)"
J=$TOOLS/osnjson
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
CPU=1
loc() { awk -v c=$((CPU + 2)) '$1 == "LOC:" { print $c }' /proc/interrupts; }
l0=$(loc)
"$LATSCOPE" osnoise top -c $CPU -H 0 -d 4 --top 256 --json > "$TMP/base.json" || die "baseline run failed"
l1=$(loc)
[ "$($J "$TMP/base.json" attribution)" = true ] || skip "no tracepoints: $($J "$TMP/base.json" attribution_off)"
"$LATSCOPE" osnoise top -c $CPU -H 0 -d 4 --top 256 --json > "$TMP/irq.json" &
pid=$!
sleep 0.5
"$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 > "$TMP/ng" || skip "cannot create a cpu-clock event"
wait $pid || die "latscope failed"
l2=$(loc)
exp=$(sed -n 's/timer_irqs_expected=//p' "$TMP/ng")
if [ -n "$l0" ] && [ -n "$l2" ]; then
	took=$(( (l2 - l1) - (l1 - l0) ))	# the kernel's count: injected run minus baseline
	echo "the kernel took $took more local timer interrupts ($((l1 - l0)) -> $((l2 - l1)))"
	[ "$took" -lt "$exp" ] && exp=$took
	[ "$exp" -gt 1500 ] || die "the kernel took only $exp of the injected interrupts"
fi
b=$($J "$TMP/base.json" "cpus.0.top[name=local_timer].count") || b=0
i=$($J "$TMP/irq.json" "cpus.0.top[name=local_timer].count") || die "no local_timer interference at all"
cls=$($J "$TMP/irq.json" "cpus.0.top[name=local_timer].class")
bi=$($J "$TMP/base.json" cpus.0.irq); ii=$($J "$TMP/irq.json" cpus.0.irq)
bu=$($J "$TMP/base.json" cpus.0.irq_us); iu=$($J "$TMP/irq.json" cpus.0.irq_us)
echo "injected $exp timer interrupts; local_timer entries $b -> $i, IRQ counter $bi -> $ii, IRQ us $bu -> $iu"
[ "$cls" = irq ] || die "local_timer attributed to $cls"
[ $((i - b)) -ge $((exp * 75 / 100)) ] || die "only $((i - b)) more local_timer entries for $exp injected"
[ $((ii - bi)) -ge $((exp * 75 / 100)) ] || die "IRQ counter grew by $((ii - bi)) only"
[ "$iu" -gt "$bu" ] || die "IRQ noise did not grow"
exit 0
