#!/bin/sh
# SPDX-License-Identifier: MIT
# cyclictest and latscope's timerandwakeup on the same wakeups (issue 18).
#
# `latscope hist record -c 1 -o hist.data` runs, and once it measures,
# `cyclictest -N -v -m -p95 -a 1 -t 1 -l 1000` runs on CPU 1 (every cycle's
# latency in ns); then latscope is stopped with SIGINT.  The host check
# (tests/kernels/host/rt_cyclictest.sh) pairs the two per wakeup.  The bound,
# derived in docs/hist.md ("cyclictest and timerandwakeup, per wakeup"):
# for every cycle latscope files,
#   cyclictest = timerandwakeup + (clock read in user space - switch-in)
#                               + (waking - the timer interrupt's now) >= timerandwakeup,
# exactly, in ns (no upper bound: the return to user space is unbounded
# under TCG); a cycle latscope files nothing for is one whose thread was
# running when its timer woke it (it never slept: no wakeup latency).
# needs: config:PREEMPT_RT cmd:cyclictest
# timeout: 150
. "$KTEST_DIR/guest/lib.sh"
CPU=1
LOOPS=1000
$LATSCOPE hist record -c $CPU -d 120 --types wakeup,sharedprio,timer,timerandwakeup \
	-o "$ART/hist.data" > "$ART/live.txt" 2> "$ART/live.err" &
lp=$!
kt_measuring $lp "$ART/live.txt" "$ART/live.err" "hist record" 60
# rt_cyclictest_migrate.sh sets MIGRATE=1: a busy loop on the CPU is moved
# off it and back, over and over, from CPU 0, so that migration/1 (FIFO 99)
# is woken from CPU 0 and runs on the CPU while the thread waits
pert=
if [ "${MIGRATE:-0}" = 1 ]; then
	busybox taskset -c $CPU sh -c 'while :; do :; done' &
	spin=$!
	busybox taskset -c 0 sh -c "while :; do busybox taskset -p -c 0 $spin;
		busybox taskset -p -c $CPU $spin; done" > /dev/null 2>&1 &
	pert="$! $spin"
fi
cyclictest -N -v -m -p95 -a $CPU -t 1 -i 2000 -l $LOOPS > "$ART/cyclictest.txt" 2> "$ART/cyclictest.err"
crc=$?
[ -z "$pert" ] || kill $pert
kill -INT $lp
wait $lp
rc=$?
cat "$ART/live.err"
[ $crc -eq 0 ] || die "cyclictest exited $crc: $(tail -3 "$ART/cyclictest.err")"
[ $rc -eq 0 ] || die "hist record exited $rc: $(tail -3 "$ART/live.err")"
[ -s "$ART/hist.data" ] || die "hist record wrote no $ART/hist.data"
n=$(grep -c '^ *0: *[0-9]*: *[0-9]*$' "$ART/cyclictest.txt")
[ "$n" -eq $LOOPS ] || die "cyclictest -v printed $n cycles, not $LOOPS"
echo "$LOOPS" > "$ART/loops"
# the sleep timer's callback, which tells the thread's armings from other
# timers started in its context (the host check)
awk '$3 == "hrtimer_wakeup" { print $1; exit }' /proc/kallsyms > "$ART/hrtimer_wakeup"
[ -s "$ART/hrtimer_wakeup" ] || die "no hrtimer_wakeup in /proc/kallsyms"
echo "cyclictest: $n cycles on CPU $CPU; latscope: $(grep -c . "$ART/live.txt") lines, $(wc -c < "$ART/hist.data") bytes recorded"
