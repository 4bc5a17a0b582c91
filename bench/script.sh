#!/bin/sh
# latscope script vs perf script on the shared recording, side by side in one
# run: wall time (best of N, output to /dev/null) and peak RSS; the ratio is
# perf/latscope.  Usage: bench/script.sh [FILE] [RUNS]
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
here=$(cd "$(dirname "$0")" && pwd)
rec=${1:-}
runs=${2:-7}
if [ -z "$rec" ]; then
	cache=${LATSCOPE_CACHE:-${TMPDIR:-/tmp}/latscope-cache}
	mkdir -p "$cache"
	rec=$cache/sched-load.perf.data
	[ -s "$rec" ] || zstd -q -d -f "$here/../../shared/data/sched-load.perf.data.zst" -o "$rec" || exit 1
fi
command -v perf >/dev/null || { echo "perf not installed: nothing to compare with"; exit 1; }
cat "$rec" > /dev/null	# warm the page cache for both
best() {	# command... -> "seconds maxrss_kb" (best wall, its RSS)
	b=""; brss=0
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %M" -o /tmp/latscope-bench.$$ "$@" > /dev/null 2>/dev/null
		read -r t m < /tmp/latscope-bench.$$
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; brss=$m; fi
		[ "$m" -gt "$brss" ] && brss=$m
		i=$((i + 1))
	done
	rm -f /tmp/latscope-bench.$$
	echo "$b $brss"
}
lines=$("$LATSCOPE" script -q -i "$rec" | wc -l)
set -- $(best perf script -i "$rec"); pt=$1; pm=$2
set -- $(best "$LATSCOPE" script -q -i "$rec"); lt=$1; lm=$2
set -- $(best "$LATSCOPE" script -q -j1 -i "$rec"); l1=$1; l1m=$2
printf '%-28s %10s %12s %14s\n' "command" "wall (s)" "peak RSS" "lines/s"
printf '%-28s %10s %9s KB %14.0f\n' "perf script" "$pt" "$pm" "$(echo "$lines / $pt" | bc -l)"
printf '%-28s %10s %9s KB %14.0f\n' "latscope script" "$lt" "$lm" "$(echo "$lines / $lt" | bc -l)"
printf '%-28s %10s %9s KB %14.0f\n' "latscope script -j1" "$l1" "$l1m" "$(echo "$lines / $l1" | bc -l)"
printf 'speed-up vs perf: %.2fx (two threads), %.2fx (one thread); peak RSS %.2fx of perf\n' \
	"$(echo "$pt / $lt" | bc -l)" "$(echo "$pt / $l1" | bc -l)" "$(echo "$lm / $pm" | bc -l)"
