#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat` beside `rtla timerlat hist` (the kernel's own rtla: sid's
# 7.2 in the 7.x guest) on the same tracer run: latscope's trace path runs
# the whole time with -t (until SIGINT after rtla), rtla joins it for 6 s with its trace saved at the
# end (--on-end trace: 7.x), with kernel threads (-k: 7.x would take user
# threads, whose timerlat_fd a kernel-thread run holds) and a trace buffer
# of 16 MB per CPU (the default filled in 6 s on the pirq kernel, 2026-12-07:
# the oldest of CPU0's activations overwritten before the save); the host (tests/kernels/host/timerlat_rtla.sh)
# compares rtla's histogram with latscope's records of the same activations.
# needs: cmd:rtla event:osnoise/timerlat_sample
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
latscope timerlat hist -c 0-1 -p 1000 --json="$ART/lt.json" -t"$ART/lt.trace" \
	> "$ART/lt.out" 2> "$ART/lt.err" &
lpid=$!
sleep 3
rtla timerlat hist -k -c 0-1 -p 1000 -d 6 --no-aa --trace-buffer-size 16384 --on-end trace,file="$ART/rtla.trace" \
	> "$ART/rtla.out" 2> "$ART/rtla.err"
echo $? > "$ART/rtla.rc"
# latscope outlives rtla (which takes seconds to start under TCG), then
# stops on SIGINT as a user's Ctrl-C
sleep 1
kill -INT $lpid
wait $lpid
echo $? > "$ART/lt.rc"
echo "latscope: exit $(cat "$ART/lt.rc"); rtla timerlat hist: exit $(cat "$ART/rtla.rc")"
tail -3 "$ART/lt.err" "$ART/rtla.err"
sed -n '/^count:/,/^max:/p' "$ART/rtla.out"
exit 0
