#!/bin/sh
# Ground truth: a burst of timer interrupts (a CPU-wide cpu-clock perf event at
# 2 kHz on the measured CPU, no task woken) must show up as IRQ noise:
# local_timer:236 entries grow by at least 75 % of the injected count over a
# baseline run, and the IRQ counter and the IRQ share grow with them.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, perf cpu-clock)"
J=$TOOLS/osnjson
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
CPU=1
"$LATSCOPE" osnoise top -c $CPU -H 0 -d 4 --top 256 --json > "$TMP/base.json" || die "baseline run failed"
[ "$($J "$TMP/base.json" attribution)" = true ] || skip "no tracepoints: $($J "$TMP/base.json" attribution_off)"
"$LATSCOPE" osnoise top -c $CPU -H 0 -d 4 --top 256 --json > "$TMP/irq.json" &
pid=$!
sleep 0.5
"$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 > "$TMP/ng" || skip "cannot create a cpu-clock event"
wait $pid || die "latscope failed"
exp=$(sed -n 's/timer_irqs_expected=//p' "$TMP/ng")
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
