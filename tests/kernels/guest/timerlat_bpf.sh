#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat --backend bpf` against the kernel's own records, on a
# kernel with the osnoise:timerlat_sample tracepoint (6.15+).  A second
# tracefs instance, "truth", runs timerlat the whole time; the guest marks
# the truth's trace before and after each latscope run, so the host
# (tests/kernels/host/timerlat_bpf.sh) finds that run's activations there:
#   bpf     `timerlat hist --backend bpf --json` on CPUs 0-1 at 1 ms;
#   auto    `--backend auto` picks bpf and says so;
#   fast    at 100 us on every CPU, the trace path (default ring) and the
#           bpf path one after the other: the bpf path misses nothing;
#   stop    `--backend bpf -T 1`: exit 1 at a thread sample;
#   refuse  `--backend bpf -t`: exit 2 in one line;
#   user    with the truth gone (user threads need the tracer without kernel
#           threads), `timerlat hist -u -t`: the return-to-user latency is
#           there; beside a kernel-thread run -u is refused in one line.
# needs: event:osnoise/timerlat_sample
# timeout: 300
. "$KTEST_DIR/guest/lib.sh"
T=$TRACEFS/instances/truth

truth_start

# run NAME ARGS...: latscope timerlat ARGS between two marks in the truth
run() {
	n=$1
	shift
	echo "latscope run $n begins" > "$T/trace_marker"
	latscope timerlat "$@" > "$ART/$n.out" 2> "$ART/$n.err"
	echo $? > "$ART/$n.rc"
	echo "latscope run $n ends" > "$T/trace_marker"
	echo "latscope timerlat $*: exit $(cat "$ART/$n.rc")"
	tail -3 "$ART/$n.err"
}
run bpf hist --backend bpf -c 0-1 -p 1000 -d 5 --json="$ART/bpf.json"
run auto top -q --backend auto -c 0-1 -p 1000 -d 2 --json="$ART/auto.json"
run fast_trace hist -p 100 -d 4 --json="$ART/fast_trace.json"
run fast_bpf hist --backend bpf -p 100 -d 4 --json="$ART/fast_bpf.json"
run stop hist --backend bpf -c 1 -p 1000 -d 20 -T 1 --json="$ART/stop.json"
refused refuse 'bpf keeps no trace (-t)' 1 latscope timerlat hist --backend bpf -t -d 1

truth_stop

# user threads need the tracer without kernel threads: no other instance may
# run it (the truth is gone); latscope's -t file is the record here
latscope timerlat hist -u -c 0-1 -p 1000 -d 3 --json="$ART/user.json" -t"$ART/user.trace" \
	> "$ART/user.out" 2> "$ART/user.err"
echo $? > "$ART/user.rc"
echo "latscope timerlat hist -u: exit $(cat "$ART/user.rc")"
tail -3 "$ART/user.err"
# beside a kernel-thread run, -u is refused in one line that says why
mkdir "$T" && echo timerlat > "$T/current_tracer" || die "cannot start timerlat in a second instance"
busy=$(refused busy 'another timerlat run holds' 1 latscope timerlat hist -u -c 0 -d 1)
rc=$?
echo nop > "$T/current_tracer"
rmdir "$T"
echo "$busy"
exit $rc
