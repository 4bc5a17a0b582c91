#!/bin/sh
# SPDX-License-Identifier: MIT
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
# cyclictest starts (the guest forks nothing else meanwhile; the host check
# checks that T, comm cyclictest, is the victim of both worst cases).
#
# The host check (tests/kernels/host/rt_cyclictest_bpf.sh) checks the
# bound docs/hist.md derives per wakeup, cyclictest - timerandwakeup >= 0,
# on the maxima (latscope's max for the thread <= cyclictest's max), the
# same for wakeup (wakeup <= timerandwakeup per timer wakeup), and the
# counts against the cycles.  The cycles the thread slept in are counted
# apart from latscope, by a hist trigger in a tracefs instance of its own:
# its switches out per prev_state (1 = TASK_INTERRUPTIBLE, clock_nanosleep);
# a cycle whose timer fired before the thread got to sleep has no switch
# out and no wakeup to measure (rt_cyclictest sees these in its trace as
# "never switched out nor woken").
# needs: config:PREEMPT_RT config:HIST_TRIGGERS cmd:cyclictest file:/proc/sys/kernel/ns_last_pid
# timeout: 300
. "$KTEST_DIR/guest/lib.sh"
CPU=1
LOOPS=1000
# a tid no task has: 1000 past the last one given
T=$(($(cat /proc/sys/kernel/ns_last_pid) + 1000))
INST=$TRACEFS/instances/cyc_sleeps
TRIG="hist:keys=prev_state:vals=hitcount if prev_pid == $T"
mkdir "$INST" || die "cannot make the tracefs instance $INST"
echo "$TRIG" > "$INST/events/sched/sched_switch/trigger" || die "cannot set the hist trigger $TRIG"
$LATSCOPE hist record --backend bpf -c $CPU --pid $T -d 120 --json > "$ART/bpf.json" 2> "$ART/bpf.err" &
lp=$!
# the JSON comes at the end: its BPF links say it measures (bpftool link
# list, the check until 2026-11-29, can take minutes in a TCG guest when it
# is the boot's first BPF user: this test alone, KTESTS=rt_cyclictest_bpf,
# saw no link in 120 s of a run that measured)
i=0
until ls -l /proc/$lp/fd 2>/dev/null | grep -q 'anon_inode:bpf_link'; do
	kill -0 $lp 2>/dev/null || die "hist record stopped before measuring: $(tail -3 "$ART/bpf.err")"
	i=$((i + 1))
	[ $i -lt 750 ] || die "hist record did not attach its programs in 150 s"
	sleep 0.2
done
sleep 1
# Where cyclictest's thread lands past the last pid given: a dry run
# started right after ns_last_pid is set prints its thread's tid (on the
# host, pid + 2: cyclictest makes one short-lived task first).  Between the
# write to ns_last_pid and cyclictest's start the shell forks nothing (echo
# is a builtin; no polling until cyclictest has ended).
base=$(($(cat /proc/sys/kernel/ns_last_pid) + 100))
echo $base > /proc/sys/kernel/ns_last_pid
cyclictest -m -p95 -a $CPU -t 1 -i 2000 -l 5 -q > "$ART/dry.txt" 2>&1
off=$(($(sed -n 's/^T: 0 ( *\([0-9]*\)).*/\1/p' "$ART/dry.txt") - base))
[ $off -gt 0 ] && [ $off -lt 10 ] || die "the dry run's thread is not near the pid set: $(cat "$ART/dry.txt")"
echo $((T - off)) > /proc/sys/kernel/ns_last_pid
cyclictest -N -v -m -p95 -a $CPU -t 1 -i 2000 -l $LOOPS > "$ART/cyclictest.txt" 2> "$ART/cyclictest.err"
[ $? -eq 0 ] || die "cyclictest failed: $(tail -3 "$ART/cyclictest.err")"
# the last cycle's wakeup is filed at its switch-in: stop a little later
sleep 0.5
cat "$INST/events/sched/sched_switch/hist" > "$ART/switches"
echo "!$TRIG" > "$INST/events/sched/sched_switch/trigger"
rmdir "$INST"
kill -INT $lp
wait $lp || die "hist record stopped by SIGINT failed: $(tail -3 "$ART/bpf.err")"
cat "$ART/bpf.err"
grep -Eq 'refused|not measured' "$ART/bpf.err" && die "a BPF program was refused: $(cat "$ART/bpf.err")"
n=$(grep -c '^ *0: *[0-9]*: *[0-9]*$' "$ART/cyclictest.txt")
[ "$n" -eq $LOOPS ] || die "cyclictest -v printed $n cycles, not $LOOPS"
echo "$T" > "$ART/tid"
echo "$LOOPS" > "$ART/loops"
echo "cyclictest: its thread started $off pids after the last one given (dry run), so tid $T; $n cycles on CPU $CPU; latscope --backend bpf --pid $T stopped by SIGINT"
