#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope script vs perf script, side by side in one run.
#
# For each case the two commands run alternately (perf, latscope, perf, ...)
# RUNS times (default 7, at least 5) and the medians are compared: wall time,
# CPU time (user + sys) and peak RSS, each as measured by /usr/bin/time; the
# ratios are perf / latscope (higher is better for latscope; for RSS,
# latscope / perf).  Cases:
#   - the shared recording (46 MB, 433,658 samples), output to /dev/null;
#     the same into a pipe read by another process (`| cat > /dev/null`,
#     cat's time included on both sides);
#   - recordings made here with perf record the way the end-to-end tests make
#     them: sched+irq+irq_vectors+timer; the same with -z; the same in pipe
#     mode (read from stdin); and a ~45 KB one (sched_switch + hrtimer_start,
#     so that a symbol is printed).  These run too fast for
#     /usr/bin/time's 10 ms resolution, so each measurement is a loop of
#     REPS invocations (default 10) and the figures are per invocation.
# Then the time cat takes to move the same bytes (the input, the output to
# /dev/null and through a pipe): the limit for any formatter.
# It first prints what else is running (load average, top processes): the
# figures are only meaningful on an otherwise idle machine.
#
# Usage: LATSCOPE=build/latscope bench/script.sh [SHARED_RECORDING [RUNS [REPS]]]
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
here=$(cd "$(dirname "$0")" && pwd)
rec=${1:-}
runs=${2:-7}
reps=${3:-10}
[ "$runs" -ge 5 ] || runs=5
command -v perf >/dev/null || { echo "perf not installed: nothing to compare with"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is needed"; exit 1; }
if [ -z "$rec" ]; then
	cache=${LATSCOPE_CACHE:-${TMPDIR:-/tmp}/latscope-cache}
	mkdir -p "$cache"
	rec=$cache/sched-load.perf.data
	[ -s "$rec" ] || zstd -q -d -f "$here/../../shared/data/sched-load.perf.data.zst" -o "$rec" || exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latscope-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== machine: $(nproc) CPUs, $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== busiest processes (%CPU since start, then command):"
ps -eo pcpu=,etime=,comm= --sort=-pcpu | head -5 | sed 's/^/   /'

# measure "LOOPED_COMMAND" -> "wall cpu rss_kb" for one timed run of it
measure() {
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" sh -c "$1" > /dev/null 2> /dev/null
	read -r w u s m < "$tmp/t"
	echo "$w $(echo "$u + $s" | bc -l) $m"
}
median() {	# numbers on stdin -> the median
	sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
loop() {	# command, count -> a shell loop running it count times
	if [ "$2" -eq 1 ]; then echo "$1"; else echo "i=0; while [ \$i -lt $2 ]; do $1; i=\$((i + 1)); done"; fi
}

printf '\n%-34s %9s %9s %7s  %9s %9s %7s  %8s %8s %6s\n' "case (medians of $runs, alternating)" \
	"perf wall" "ls wall" "ratio" "perf cpu" "ls cpu" "ratio" "perf MB" "ls MB" "rss"
# compare NAME REPS PERF_CMD LATSCOPE_CMD
compare() {
	name=$1 n=$2 pc=$3 lc=$4
	: > "$tmp/p"; : > "$tmp/l"
	i=0
	while [ $i -lt "$runs" ]; do
		measure "$(loop "$pc" "$n")" >> "$tmp/p"
		measure "$(loop "$lc" "$n")" >> "$tmp/l"
		i=$((i + 1))
	done
	pw=$(cut -d' ' -f1 "$tmp/p" | median); lw=$(cut -d' ' -f1 "$tmp/l" | median)
	pu=$(cut -d' ' -f2 "$tmp/p" | median); lu=$(cut -d' ' -f2 "$tmp/l" | median)
	pm=$(cut -d' ' -f3 "$tmp/p" | median); lm=$(cut -d' ' -f3 "$tmp/l" | median)
	printf '%-34s %8.3fs %8.3fs %6.1fx  %8.3fs %8.3fs %6.1fx  %8.1f %8.1f %5.2fx\n' "$name" \
		"$(echo "$pw / $n" | bc -l)" "$(echo "$lw / $n" | bc -l)" "$(echo "$pw / $lw" | bc -l)" \
		"$(echo "$pu / $n" | bc -l)" "$(echo "$lu / $n" | bc -l)" \
		"$(echo "if ($lu > 0) $pu / $lu else 0" | bc -l)" \
		"$(echo "$pm / 1024" | bc -l)" "$(echo "$lm / 1024" | bc -l)" "$(echo "$lm / $pm" | bc -l)"
}

cat "$rec" > /dev/null	# page cache warm for both
L=$LATSCOPE
# (latscope script runs on one thread: -j1 is the same as the default)
compare "shared, > /dev/null" 1 "perf script -i '$rec'" "'$L' script -q -i '$rec'"
compare "shared, | cat > /dev/null" 1 "perf script -i '$rec' | cat" "'$L' script -q -i '$rec' | cat"

# The limit: moving the same bytes without formatting them.
"$L" script -q -i "$rec" > "$tmp/out.txt"
for c in "cat '$rec' > /dev/null" "cat '$tmp/out.txt' > /dev/null" "cat '$tmp/out.txt' | cat > /dev/null"; do
	: > "$tmp/c"
	i=0
	while [ $i -lt "$runs" ]; do measure "$c" >> "$tmp/c"; i=$((i + 1)); done
	printf '%-34s %8.3fs wall %8.3fs cpu  (reference: %s)\n' "$(echo "$c" | sed "s|$tmp/||; s|'||g; s|$rec|input|")" \
		"$(cut -d' ' -f1 "$tmp/c" | median)" "$(cut -d' ' -f2 "$tmp/c" | median)" \
		"$(( $(wc -c < "$tmp/out.txt") / 1048576 )) MB of output, $(( $(wc -c < "$rec") / 1048576 )) MB of input"
done
rm -f "$tmp/out.txt"

# Small recordings, made as tests/e2e/script_perf_parity.sh makes them.
ev='sched:sched_switch,sched:sched_wakeup,sched:sched_waking,irq:*,irq_vectors:local_timer*,irq_vectors:reschedule*,irq_vectors:call_function*,timer:*'
work='for i in 1 2 3 4 5 6 7 8 9 10; do ls /proc >/dev/null; sleep 0.02; done'
if ! perf record -q -e "$ev" -a -o "$tmp/fresh.data" -- sh -c "$work" 2> "$tmp/rec.err"; then
	echo "perf record cannot trace here ($(tail -1 "$tmp/rec.err")): no small recordings"
	exit 0
fi
perf record -q -z -e "$ev" -a -o "$tmp/z.data" -- sleep 0.3 2>/dev/null
perf record -q -e "$ev" -a -o - -- sleep 0.3 > "$tmp/p.data" 2>/dev/null
perf record -q -e 'sched:sched_switch,timer:hrtimer_start' -a -o "$tmp/tiny.data" -- sleep 0.001 2>/dev/null
for f in fresh z p tiny; do
	[ -s "$tmp/$f.data" ] || continue
	size=$(( $(wc -c < "$tmp/$f.data") / 1024 ))
	if [ $f = p ]; then
		lines=$(perf script -i - < "$tmp/$f.data" 2>/dev/null | wc -l)
	else
		lines=$(perf script -i "$tmp/$f.data" 2>/dev/null | wc -l)
	fi
	case $f in
	fresh) name="e2e sched+irq+timer" ;;
	z) name="e2e -z" ;;
	p) name="e2e pipe mode" ;;
	tiny) name="small sched+hrtimer" ;;
	esac
	name="$name ${size}K ${lines}l"
	if [ $f = p ]; then
		compare "$name" "$reps" "perf script -i - < '$tmp/p.data'" "'$L' script -q -i - < '$tmp/p.data'"
	else
		compare "$name" "$reps" "perf script -i '$tmp/$f.data'" "'$L' script -q -i '$tmp/$f.data'"
	fi
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
