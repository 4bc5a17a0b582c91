#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat` beside `rtla timerlat hist` (the kernel's own rtla: sid's
# 7.2 in the 7.x guest) on the same tracer run: latscope's trace path runs
# the whole time with -t, rtla joins it for 6 s with its trace saved at the
# end (--on-end trace: 7.x); the host (tests/kernels/host/timerlat_rtla.sh)
# compares rtla's histogram with latscope's records of the same activations.
# needs: cmd:rtla event:osnoise/timerlat_sample
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
latscope timerlat hist -c 0-1 -p 1000 -d 16 --json="$ART/lt.json" -t"$ART/lt.trace" \
	> "$ART/lt.out" 2> "$ART/lt.err" &
lpid=$!
sleep 4
rtla timerlat hist -c 0-1 -p 1000 -d 6 --no-aa --on-end trace,file="$ART/rtla.trace" \
	> "$ART/rtla.out" 2> "$ART/rtla.err"
echo $? > "$ART/rtla.rc"
wait $lpid
echo $? > "$ART/lt.rc"
echo "latscope: exit $(cat "$ART/lt.rc"); rtla timerlat hist: exit $(cat "$ART/rtla.rc")"
tail -3 "$ART/lt.err" "$ART/rtla.err"
sed -n '/^count:/,/^max:/p' "$ART/rtla.out"
exit 0
