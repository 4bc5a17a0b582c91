#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope script on a recording made on POWER: hist record --backend perf
# -o writes the sched and timer tracepoints of a 2 s timer workload on both
# CPUs to a perf.data file (ppc64el, this kernel's formats); the guest prints
# it with latscope script, and tests/power/host/script.sh compares the
# host's perf script of the same file with it, line by line.
# needs: event:sched/sched_switch
# boots: sid bookworm
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
latscope hist record --backend perf --timer-workload -c 0,1 -d 2 --no-keep-busy -o "$ART/rec.data" \
	> "$ART/rec.out" 2> "$ART/rec.err" || die "hist record -o failed: $(tail -3 "$ART/rec.err")"
latscope script -q -i "$ART/rec.data" > "$ART/script.txt" 2> "$ART/script.err" ||
	die "latscope script failed: $(tail -3 "$ART/script.err")"
n=$(grep -c . "$ART/script.txt")
[ "$n" -gt 100 ] || die "latscope script printed $n lines"
echo "script: $n lines"
