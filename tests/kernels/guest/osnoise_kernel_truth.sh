#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel osnoise path against the kernel's own records.  A second tracefs
# instance, "truth", runs the same osnoise tracer with its events the whole
# time (since 5.17 the tracer's threads write every record and event into
# every instance that runs it); its trace is the truth the host compares
# latscope's output with (tests/kernels/host/osnoise_kernel_truth.sh):
#   trace   `osnoise trace --kernel --events` while `rtla osnoise top` runs
#           beside it over some of the same periods;
#   top     `osnoise top --kernel --json`;
#   hist    `osnoise hist --kernel --json`;
#   load    `osnoise trace --kernel --events` at -T 2 (hundreds to
#           thousands of samples a second under TCG), default buffer;
#   lost    after the truth stops: a 4 KiB ring at -T 1 and the reader
#           stopped for 2 s, so the ring overruns; the loss is shown and
#           --strict exits 1.
# The guest only runs and collects; the host checks (its awk is faster than
# this guest's under TCG).  Settings shared by every run: CPU 0, period 200 ms,
# runtime 100 ms, threshold 10 us (one loop turn takes 1-2 us under TCG: at
# 1 us many turns are samples).
# needs: tracer:osnoise cmd:rtla
# timeout: 300
. "$KTEST_DIR/guest/lib.sh"
O=$TRACEFS/osnoise
T=$TRACEFS/instances/truth
P=200000 R=100000 TH=10
ARGS="-c 0 -p $P -r $R -T $TH"

# the settings every run uses, so that no run changes them for the others
# (runtime first: the kernel keeps runtime <= period at each write)
echo $R > $O/runtime_us && echo $P > $O/period_us && echo 0 > $O/cpus &&
	echo $TH > $TRACEFS/tracing_thresh || die "cannot set the osnoise settings"

mkdir "$T" || die "cannot create the truth instance"
# 32 MiB a CPU: the whole test's records and events fit, nothing is read
# until the end
echo 32768 > "$T/buffer_size_kb" || die "cannot size the truth's buffer"
echo 1 > "$T/events/osnoise/enable" || die "cannot enable the osnoise events in the truth"
echo osnoise > "$T/current_tracer" || die "cannot start the osnoise tracer in the truth"
sleep 1

# run NAME ARGS...: latscope osnoise ARGS > NAME.out 2> NAME.err, status in NAME.rc
run() {
	n=$1
	shift
	latscope osnoise "$@" > "$ART/$n.out" 2> "$ART/$n.err"
	echo $? > "$ART/$n.rc"
	echo "latscope osnoise $*: exit $(cat "$ART/$n.rc")"
	tail -3 "$ART/$n.err"
}

# trace, with rtla beside it: latscope runs until rtla is done (rtla takes
# seconds to start under TCG), then stops on SIGINT like a user's Ctrl-C
latscope osnoise trace --kernel --events --top 256 $ARGS > "$ART/trace.out" 2> "$ART/trace.err" &
lpid=$!
sleep 2
rtla osnoise top -q $ARGS -d 6 > "$ART/rtla.out" 2> "$ART/rtla.err"
echo $? > "$ART/rtla.rc"
echo "rtla osnoise top -q $ARGS -d 6: exit $(cat "$ART/rtla.rc")"
cat "$ART/rtla.out"
sleep 1
kill -INT $lpid
wait $lpid
echo $? > "$ART/trace.rc"
echo "latscope osnoise trace --kernel --events: exit $(cat "$ART/trace.rc")"
tail -3 "$ART/trace.err"

run top top --kernel --json --top 256 $ARGS -d 5
run hist hist --kernel --json $ARGS -d 5
# a heavier load with latscope's default buffer: at -T 2 under TCG the
# tracer writes hundreds to thousands of samples a second
run load trace --kernel --events --top 256 -c 0 -p $P -r $R -T 2 -d 3

echo 0 > "$T/tracing_on"
cat "$T/per_cpu/cpu0/stats" > "$ART/truth.stats"
cat "$T/trace" > "$ART/truth.txt"
echo nop > "$T/current_tracer"
rmdir "$T"
echo "truth: $(grep -c . "$ART/truth.txt") lines; $(grep overrun "$ART/truth.stats" | tr '\n' ' ')"

# a ring too small, and a reader that falls behind: the loss is named,
# --strict fails the run.  The reader is stopped (SIGSTOP) for 2 s once its
# instance traces: at -T 1 the tick alone (250 Hz, one irq_noise event and
# one sample each) writes ~25 KB a second into a ring of a few pages.  Without
# the stop the loss depended on the reader's pace: at -T 1 under TCG the
# tracer writes some hundreds of samples a second, not one per loop turn,
# and a reader polling every 100 ms kept up with them in 1 run of 3.
latscope osnoise trace --kernel --events --strict --ring-size 4 -c 0 -p $P -r $R -T 1 -d 6 \
	> "$ART/lost.out" 2> "$ART/lost.err" &
stall_reader $! osnoise
echo $? > "$ART/lost.rc"
echo "latscope osnoise trace --kernel --events --strict --ring-size 4 -T 1 -d 6 (stopped 2 s): exit $(cat "$ART/lost.rc")"
tail -3 "$ART/lost.err"
exit 0
