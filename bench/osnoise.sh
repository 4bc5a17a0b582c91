#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/osnoise.sh - latscope osnoise's time-read loop and the cost of its
# attribution, side by side with oslat on the same CPU in the same run.
#
#   LATSCOPE=build/latscope sh bench/osnoise.sh [CPU] [SECONDS]
#
# Runs, one after the other on CPU (default 1, collector on the others):
#   1. latscope osnoise, CLOCK_MONOTONIC, no tracepoints
#   2. latscope osnoise, CLOCK_MONOTONIC, with the tracepoints (attribution)
#   3. latscope osnoise, TSC, no tracepoints
#   4. oslat (rt-tests), same CPU and duration
# and prints ns per loop iteration (wall, and "clean": without the noise),
# the smallest gap, gaps >= 2 us per second,
# noise %, max single gap, and the with/without-tracepoints ratios.
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
CPU=${1:-1}
D=${2:-10}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
J=${OSNJSON:-$(dirname "$LATSCOPE")/tests/tools/osnjson}
[ -x "$J" ] || { echo "bench/osnoise: $J missing (make builds it)"; exit 1; }
HK=0; [ "$CPU" = 0 ] && HK=1

run() {	# name, extra options
	name=$1; shift
	"$LATSCOPE" osnoise top -c "$CPU" -H "$HK" -d "$D" -T 2 --json "$@" > "$T/$name.json" 2> "$T/$name.err" ||
		{ echo "latscope $name failed: $(cat "$T/$name.err")"; exit 1; }
}
run mono --no-attribution
run attr
run tsc --no-attribution --tsc
have_oslat=0
if command -v oslat >/dev/null 2>&1; then
	oslat -c "$CPU" -C "$HK" -D "$D" -q --json="$T/oslat.json" > /dev/null 2>&1 && have_oslat=1
fi

row() {	# run, label
	f=$T/$1.json
	it=$($J "$f" cpus.0.loop_ns_per_iteration); mg=$($J "$f" cpus.0.smallest_gap_ns)
	gaps=$($J "$f" cpus.0.gaps); rt=$($J "$f" cpus.0.runtime_ns); nz=$($J "$f" cpus.0.noise_ns)
	ms=$(($($J "$f" cpus.0.max_single_ns) / 1000))	# the JSON's times are ns (docs/json.md)
	awk -v n="$2" -v it="$it" -v mg="$mg" -v g="$gaps" -v rt="$rt" -v nz="$nz" -v ms="$ms" 'BEGIN {
		printf "%-26s %10.1f %10.1f %10s %12.0f %9.3f %10s\n", n, it, it * (rt - nz) / rt, mg,
		       g / (rt / 1e9), 100 * nz / rt, ms }'
}
echo "CPU $CPU, $D s per run, threshold 2 us (oslat's histogram has 1 us buckets)"
printf "%-26s %10s %10s %10s %12s %9s %10s\n" tool "ns/iter" "clean" "min gap ns" "gaps>=2us/s" "noise %" "max us"
row mono "latscope (monotonic)"
row attr "latscope (+tracepoints)"
row tsc "latscope (tsc)"
if [ $have_oslat = 1 ]; then
	# oslat: iterations = histogram total; gaps >= 2 us = buckets 2..; noise is a
	# lower bound from the bucket bounds (its last bucket, 32 us, holds all longer gaps).
	awk '
	/"duration"/ { gsub(/[^0-9.]/, "", $2); dur = $2 }
	/"min"/ { gsub(/[^0-9]/, "", $2); mn = $2 }
	/"max"/ { gsub(/[^0-9]/, "", $2); mx = $2 }
	/"histogram"/ { h = 1; next }
	h && /}/ { h = 0 }
	h { k = $1; gsub(/[^0-9]/, "", k); v = $2; gsub(/[^0-9]/, "", v); tot += v;
	    if (k + 0 >= 2) { g += v; nz += v * k } }
	END { printf "%-26s %10.1f %10.1f %10s %12.0f %9.3f %10s\n", "oslat", dur * 1e9 / tot,
	      (dur * 1e9 - nz * 1000) / (tot - g), mn * 1000, g / dur, 100 * nz / (dur * 1e6), mx }' "$T/oslat.json"
else
	echo "oslat                      (not installed: apt-get install rt-tests)"
fi
a=$($J "$T/attr.json" cpus.0.loop_ns_per_iteration); m=$($J "$T/mono.json" cpus.0.loop_ns_per_iteration)
an=$($J "$T/attr.json" cpus.0.noise_ns); mn=$($J "$T/mono.json" cpus.0.noise_ns)
ag=$($J "$T/attr.json" cpus.0.gaps); mgp=$($J "$T/mono.json" cpus.0.gaps)
al=$($J "$T/attr.json" events_lost)
ac=$($J "$T/attr.json" collector_cpu_ns); mc=$($J "$T/mono.json" collector_cpu_ns)
awk -v a="$a" -v m="$m" -v an="$an" -v mn="$mn" -v ag="$ag" -v mg="$mgp" -v al="$al" -v ac="$ac" -v mc="$mc" -v d="$D" 'BEGIN {
	printf "attribution overhead (with / without tracepoints): ns/iter x%.3f, noise x%.2f, gaps x%.2f; events lost %s\n",
	       a / m, (mn ? an / mn : 0), (mg ? ag / mg : 0), al
	printf "collector CPU time: %.2f%% of one CPU with tracepoints, %.2f%% without (x%.1f)\n",
	       ac / (d * 1e7), mc / (d * 1e7), (mc ? ac / mc : 0) }'
top=$(($($J "$T/attr.json" cpus.0.hw_ns) / 1000)); tot=$(($($J "$T/attr.json" cpus.0.noise_ns) / 1000))
echo "with attribution: HW (hypervisor on a VM) $top us of $tot us noise"
