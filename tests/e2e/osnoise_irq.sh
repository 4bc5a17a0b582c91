#!/bin/sh
# Ground truth: a burst of timer interrupts (a CPU-wide cpu-clock perf event at
# 2 kHz on the measured CPU, no task woken) must show up as IRQ noise:
# local_timer:236 entries grow by at least 90 % of what the kernel took over
# a baseline run, and the IRQ counter and the IRQ share grow with them.
# What the kernel took is its own count (/proc/interrupts LOC of the CPU)
# over noisegen's run, less its count over as long a quiet stretch of the
# baseline run: on a loaded machine the perf hrtimer often expires together
# with another timer and one interrupt serves both, so fewer than 2000/s
# arrive; that is not latscope's loss.  Both stretches lie inside their
# measurements (started once the measuring thread exists, ended before it).
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, perf cpu-clock)"
J=$TOOLS/osnjson
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
CPU=1
loc() { awk -v c=$((CPU + 2)) '$1 == "LOC:" { print $c }' /proc/interrupts; }
now_ms() { date +%s%3N; }
# run NAME CMD...: latscope for 6 s; CMD runs inside the measurement; sets
# took (LOC over CMD) and ms (CMD's wall time)
run() {
	name=$1; shift
	"$LATSCOPE" osnoise top -c $CPU -H 0 -d 6 --top 256 --json > "$TMP/$name.json" 2> "$TMP/$name.err" &
	pid=$!
	n=0
	until grep -qx "osnoise/$CPU" /proc/$pid/task/*/comm 2>/dev/null; do
		kill -0 $pid 2>/dev/null || die "latscope ended before measuring: $(cat "$TMP/$name.err")"
		n=$((n + 1)); [ $n -lt 300 ] || die "no osnoise/$CPU thread after 30 s"
		sleep 0.1
	done
	sleep 0.2	# past the first period's set-up
	l0=$(loc); t0=$(now_ms)
	"$@" || { kill $pid; wait $pid; return 1; }
	l1=$(loc); t1=$(now_ms)
	kill -0 $pid 2>/dev/null || die "$name: the measurement ended before the injection did"
	wait $pid || die "$name: latscope failed: $(cat "$TMP/$name.err")"
	took=$((l1 - l0)); ms=$((t1 - t0))
}
run base sleep 3
base_took=$took base_ms=$ms
[ "$($J "$TMP/base.json" attribution)" = true ] || skip "no tracepoints: $($J "$TMP/base.json" attribution_off)"
run irq "$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 > "$TMP/ng" || skip "cannot create a cpu-clock event"
exp=$(sed -n 's/timer_irqs_expected=//p' "$TMP/ng")
# the kernel's count: the injected stretch less the baseline's rate over as long
took=$((took - base_took * ms / base_ms))
echo "the kernel took $took more local timer interrupts ($base_took in $base_ms ms -> $((took + base_took * ms / base_ms)) in $ms ms)"
[ "$took" -lt "$exp" ] && exp=$took
[ "$exp" -gt 1500 ] || die "the kernel took only $exp of the injected interrupts"
b=$($J "$TMP/base.json" "cpus.0.top[name=local_timer].count") || b=0
i=$($J "$TMP/irq.json" "cpus.0.top[name=local_timer].count") || die "no local_timer interference at all"
cls=$($J "$TMP/irq.json" "cpus.0.top[name=local_timer].class")
bi=$($J "$TMP/base.json" cpus.0.irq); ii=$($J "$TMP/irq.json" cpus.0.irq)
bu=$($J "$TMP/base.json" cpus.0.irq_us); iu=$($J "$TMP/irq.json" cpus.0.irq_us)
echo "injected $exp timer interrupts; local_timer entries $b -> $i, IRQ counter $bi -> $ii, IRQ us $bu -> $iu;" \
	"switches with no event: $($J "$TMP/base.json" anomalies.unseen_switch_in), $($J "$TMP/irq.json" anomalies.unseen_switch_in)"
[ "$cls" = irq ] || die "local_timer attributed to $cls"
[ $((i - b)) -ge $((exp * 90 / 100)) ] || die "only $((i - b)) more local_timer entries for $exp injected"
# the IRQ counter counts every interrupt entry of the periods, each
# local_timer entry found in a gap among them
[ "$ii" -ge "$i" ] || die "IRQ counter $ii below the $i local_timer entries"
[ "$bi" -ge "$b" ] || die "baseline IRQ counter $bi below the $b local_timer entries"
[ "$iu" -gt "$bu" ] || die "IRQ noise did not grow"
exit 0
