#!/bin/sh
# Truth for the bpf backend on PREEMPT_RT (issue 19): cyclictest's own
# latencies against the histograms the BPF programs keep.
#
# `latscope hist record --backend bpf -c 1 --pid T --json` runs; once it
# measures, `cyclictest -N -v -m -p95 -a 1 -t 1 -i 2000 -l 1000` runs on
# CPU 1 and its measuring thread gets the tid T; then latscope is stopped
# with SIGINT.  The BPF backend keeps histograms, not samples: per CPU a
# count and the worst case with its victim.  CPU 1's worst case may be
# another RT task's (ktimers/1 and rcuc/1 are woken from the tick's
# hrtimer, migration/1 from the watchdog's), so latscope tracks only the
# thread (--pid, latency_hist's pid file): the thread's tid is made known
# before it exists by setting /proc/sys/kernel/ns_last_pid just before
# cyclictest starts (the guest forks nothing else meanwhile; checked: the
# thread's tid is T, and T is the victim of both worst cases).
#
# The host check (tests/kernels/host/rt_cyclictest_bpf.sh) checks the
# bound docs/hist.md derives per wakeup, cyclictest - timerandwakeup >= 0,
# on the maxima (latscope's max for the thread <= cyclictest's max), the
# same for wakeup (wakeup <= timerandwakeup per timer wakeup), and the
# counts against the cycles.
# needs: config:PREEMPT_RT cmd:cyclictest file:/proc/sys/kernel/ns_last_pid
# timeout: 150
. "$KTEST_DIR/guest/lib.sh"
CPU=1
LOOPS=1000
# a tid no task has: 1000 past the last one given
T=$(($(cat /proc/sys/kernel/ns_last_pid) + 1000))
$LATSCOPE hist record --backend bpf -c $CPU --pid $T -d 120 --json > "$ART/bpf.json" 2> "$ART/bpf.err" &
lp=$!
# the JSON comes at the end: the programs listed by bpftool say it measures
i=0
until bpftool link list 2>/dev/null | grep -q "tp 'sched_switch'"; do
	kill -0 $lp 2>/dev/null || die "hist record stopped before measuring: $(tail -3 "$ART/bpf.err")"
	i=$((i + 1))
	[ $i -lt 300 ] || die "hist record did not attach its programs in 60 s"
	sleep 0.2
done
sleep 1
# cyclictest gets the pid T - 1, its one measuring thread T
echo $((T - 2)) > /proc/sys/kernel/ns_last_pid
cyclictest -N -v -m -p95 -a $CPU -t 1 -i 2000 -l $LOOPS > "$ART/cyclictest.txt" 2> "$ART/cyclictest.err" &
cp=$!
i=0
until [ -d /proc/$cp/task/$T ] || ! kill -0 $cp 2>/dev/null || [ $i -ge 50 ]; do i=$((i + 1)); sleep 0.1; done
tasks=$(ls /proc/$cp/task 2>/dev/null | tr '\n' ' ')
wait $cp
crc=$?
sleep 0.5
kill -INT $lp
wait $lp
rc=$?
cat "$ART/bpf.err"
[ $crc -eq 0 ] || die "cyclictest exited $crc: $(tail -3 "$ART/cyclictest.err")"
[ $rc -eq 0 ] || die "hist record exited $rc: $(tail -3 "$ART/bpf.err")"
grep -Eq 'refused|not measured' "$ART/bpf.err" && die "a BPF program was refused: $(cat "$ART/bpf.err")"
[ $cp -eq $((T - 1)) ] || die "cyclictest got pid $cp, not $((T - 1)): something forked meanwhile"
case " $tasks " in *" $T "*) ;; *) die "cyclictest's threads are $tasks, none is $T";; esac
n=$(grep -c '^ *0: *[0-9]*: *[0-9]*$' "$ART/cyclictest.txt")
[ "$n" -eq $LOOPS ] || die "cyclictest -v printed $n cycles, not $LOOPS"
echo "$T" > "$ART/tid"
echo "$LOOPS" > "$ART/loops"
echo "cyclictest: pid $cp, threads $tasks, $n cycles on CPU $CPU; latscope --backend bpf --pid $T stopped by SIGINT"
