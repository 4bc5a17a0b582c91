#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat` against the kernel's own records.  A second tracefs
# instance, "truth", runs the timerlat tracer the whole time: the tracer
# writes every activation's records into every instance that runs it, so its
# trace is the truth the host compares latscope's output with
# (tests/kernels/host/timerlat_truth.sh).  The runs:
#   hist   `timerlat hist --json=FILE -t FILE` on CPUs 0-1 at 1 ms;
#   top    `timerlat top -q --json` at 500 us;
#   stop   -T 1 -s 1: the first thread latency stops the run (exit 1), the
#          kernel stops tracing and prints the stack of that activation;
#   auto   -a 300 -i 1000000: the first thread latency at or above 300 us
#          (the IRQ threshold out of reach: TCG's IRQ latencies reach it first)
#          is split into parts;
#   warm   --warm-up 1 -T 1: the warm-up's samples do not stop the kernel;
#          the window's first thread sample does;
#   lost   a 4 KiB ring and the reader stopped for 2 s (SIGSTOP): the loss
#          is named and --strict exits 1;
#   the tracer's settings (osnoise/*, tracing_thresh, the top-level tracer,
#   the instances) read before and after: each must be as it was.
# The guest only runs and collects; the host checks.
# needs: tracer:timerlat
# timeout: 240
. "$KTEST_DIR/guest/lib.sh"
O=$TRACEFS/osnoise
T=$TRACEFS/instances/truth

settings() {
	for f in cpus period_us runtime_us stop_tracing_us stop_tracing_total_us timerlat_period_us \
		print_stack options; do
		[ -e "$O/$f" ] && echo "osnoise/$f: $(cat "$O/$f")"
	done
	echo "tracing_thresh: $(cat "$TRACEFS/tracing_thresh")"
	echo "current_tracer: $(cat "$TRACEFS/current_tracer")"
	echo "instances: $(ls "$TRACEFS/instances" | tr '\n' ' ')"
}
# values that are not the kernel's defaults, so that a run that writes the
# defaults back instead of what was there is seen
echo 0-1 > "$O/cpus" && echo 2000 > "$O/timerlat_period_us" && echo 0 > "$O/print_stack" ||
	die "cannot set the timerlat settings"
settings > "$ART/before.txt"

truth_start

# run NAME ARGS...: latscope timerlat ARGS > NAME.out 2> NAME.err, status in NAME.rc
run() {
	n=$1
	shift
	latscope timerlat "$@" > "$ART/$n.out" 2> "$ART/$n.err"
	echo $? > "$ART/$n.rc"
	echo "latscope timerlat $*: exit $(cat "$ART/$n.rc")"
	tail -3 "$ART/$n.err"
}
run hist hist -c 0-1 -p 1000 -d 5 --json="$ART/hist.json" -t"$ART/hist.trace"
run top top -q -c 0-1 -p 500 -d 3 --json -t"$ART/top.trace"
mv "$ART/top.out" "$ART/top.json"
run stop hist -c 1 -p 1000 -d 20 -T 1 -s 1 --json="$ART/stop.json" -t"$ART/stop.trace"
run auto hist -c 1 -p 1000 -d 30 -a 300 -i 1000000 --json="$ART/auto.json" -t"$ART/auto.trace"
run warm hist -c 1 -p 1000 -d 20 --warm-up 1 -T 1 --json="$ART/warm.json" -t"$ART/warm.trace"

truth_stop

# a ring of one page a CPU and a reader that falls behind: at 100 us the
# tracer writes 20 records a millisecond on two CPUs; the reader is stopped
# for 2 s once its instance runs
latscope timerlat hist --strict --trace-buffer-size 4 -c 0-1 -p 100 -d 6 --json="$ART/lost.json" \
	> "$ART/lost.out" 2> "$ART/lost.err" &
stall_reader $! timerlat
echo $? > "$ART/lost.rc"
echo "latscope timerlat hist --strict --trace-buffer-size 4 -p 100 (stopped 2 s): exit $(cat "$ART/lost.rc")"
tail -3 "$ART/lost.err"

# --deepest-idle-state 0: while the run measures, the idle states past
# state0 of the measured CPUs are disabled; after it, each is as before
idle=/sys/devices/system/cpu
if [ -d $idle/cpu0/cpuidle/state1 ]; then
	ib=$(cat $idle/cpu*/cpuidle/state*/disable | tr '\n' ' ')
	latscope timerlat top -q -c 0 -d 4 --deepest-idle-state 0 > "$ART/idle.out" 2> "$ART/idle.err" &
	ipid=$!
	i=0
	until [ "$(cat "$TRACEFS/instances/latscope_osnoise/current_tracer" 2>/dev/null)" = timerlat ] ||
		[ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	during=$(cat $idle/cpu0/cpuidle/state1/disable)
	wait $ipid
	echo "--deepest-idle-state 0: exit $?; cpu0 state1 disable during the run: $during"
	ia=$(cat $idle/cpu*/cpuidle/state*/disable | tr '\n' ' ')
	[ "$during" = 1 ] || die "--deepest-idle-state 0: cpu0's state1 was not disabled during the run"
	[ "$ib" = "$ia" ] || die "--deepest-idle-state: not restored: '$ib' -> '$ia'"
	echo "--deepest-idle-state: restored ($ia)"
else
	echo "no cpuidle state1 on cpu0: --deepest-idle-state not tried"
fi
settings > "$ART/after.txt"
exit 0
