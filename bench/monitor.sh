#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/monitor.sh - latscope monitor left on under a wakeup storm (issue
# 20's acceptance; docs/monitor.md, "What it costs"):
#
#   LATSCOPE=build/latscope sh bench/monitor.sh
#
# 1. Soak.  tests/tools/wakestorm wakes a SCHED_FIFO sleeper on CPU 1 from a
#    waker on CPU 0, MONITOR_RATE times a second (default 5000), for
#    MONITOR_SOAK seconds (default 600), while `latscope monitor` (default
#    backend and refresh, --listen on loopback) keeps the histograms and a
#    scraper asks for /metrics every second (curl, its time_total).  Every
#    second: the monitor's RSS (VmRSS) and CPU time (/proc/PID/stat).
#    Printed: RSS over the first and the last minute (mean, max, and the
#    change of the mean: the acceptance is 5 %), the slowest scrape and the
#    99th percentile (the acceptance is 50 ms), and the monitor's CPU time
#    as a share of one CPU, with the kernel's time in the BPF programs
#    (LATSCOPE_BPF_STATS=1, latscope_bpf_run_seconds_total) beside it: the
#    programs run in the woken and switching tasks' context, not in the
#    monitor's.
# 2. Against `hist record --backend perf`.  The same storm for
#    MONITOR_CMP seconds (default 60) untraced, under the monitor and under
#    hist record --backend perf, alternated twice: latscope's own CPU time
#    as a share of one CPU (GNU time: user + sys), and the storm's CPU time
#    over the untraced run's (the tracing's cost in the kernel, paid in the
#    traced tasks' context), medians.
# Run it on an otherwise idle machine; the load before the run is printed.
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
RATE=${MONITOR_RATE:-5000}
SOAK=${MONITOR_SOAK:-600}
CMP=${MONITOR_CMP:-60}
TOOLS=${TOOLS:-$(dirname "$LATSCOPE")/tests/tools}
TIME=${BENCH_TIME:-/usr/bin/time}
[ "$(id -u)" = 0 ] || { echo "bench/monitor: needs root"; exit 0; }
[ "$(nproc)" -ge 2 ] || { echo "bench/monitor: needs 2 CPUs"; exit 0; }
command -v curl >/dev/null || { echo "bench/monitor: needs curl"; exit 0; }
[ -x "$TOOLS/wakestorm" ] || { echo "bench/monitor: no $TOOLS/wakestorm (make builds it)"; exit 0; }
W=$(mktemp -d) || exit 1
mpid="" spid=""
trap 'kill $mpid $spid 2>/dev/null; rm -rf "$W"' EXIT INT TERM
echo "bench/monitor: $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench/monitor: other processes using CPU now: $(ps -eo pcpu=,comm= --sort=-pcpu | awk '$1 > 1 { printf "%s %s%%; ", $2, $1 }' | head -c 300)"

# start_monitor ARGS...: the monitor in the background, its port in $port
start_monitor() {
	"$@" > "$W/mon.out" 2> "$W/mon.err" &
	mpid=$!
	n=0
	until port=$(sed -n 's/.*serving \/metrics on port \([0-9]*\) .*/\1/p' "$W/mon.err") && [ -n "$port" ]; do
		kill -0 $mpid 2>/dev/null || { echo "bench/monitor: the monitor ended: $(cat "$W/mon.err")"; exit 1; }
		n=$((n + 1)); [ $n -lt 150 ] || { echo "bench/monitor: no port after 15 s"; exit 1; }
		sleep 0.1
	done
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
HZ=$(getconf CLK_TCK)

# ---- 1. soak ----
LATSCOPE_BPF_STATS=1 start_monitor "$LATSCOPE" monitor --listen 127.0.0.1:0
sleep 2
"$TOOLS/wakestorm" -w 0 -s 1 -r "$RATE" -d "$SOAK" > "$W/storm" 2>&1 &
spid=$!
t0=$(cpu_ticks $mpid)
i=0
s0=$(date +%s)
: > "$W/samples"
while [ $(($(date +%s) - s0)) -lt "$SOAK" ] && kill -0 $spid 2>/dev/null; do
	st=$(curl -s -o "$W/last" -w '%{http_code} %{time_total}' --max-time 5 "http://127.0.0.1:$port/metrics")
	echo "$i $(rss_kb $mpid) $(cpu_ticks $mpid) $st" >> "$W/samples"
	i=$((i + 1))
	sleep 1
done
t1=$(cpu_ticks $mpid)
bpfs=$(awk '$1 == "latscope_bpf_run_seconds_total" { print $2 }' "$W/last")
backend=$(sed -n 's/^latscope_monitor_info{backend="\([a-z]*\)".*/\1/p' "$W/last")
wake=$(awk '/^latscope_latency_seconds_count\{kind="wakeup",cpu="1"\}/ { print $2 }' "$W/last")
kill -TERM $mpid; wait $mpid; mpid=""
wait $spid; spid=""
p99=$(awk '{ print $5 * 1000 }' "$W/samples" | sort -n | awk '{ v[NR] = $1 } END { k = int(NR * 0.99); if (k < 1) k = 1; print v[k] }')
el=$(($(date +%s) - s0))
awk -v hz="$HZ" -v n="$el" -v t0="$t0" -v t1="$t1" -v bpfs="${bpfs:-}" -v be="$backend" -v wake="${wake:-0}" -v p99="$p99" '
{ rss[NR] = $2; code[NR] = $4; tt[NR] = $5 * 1000 }
END {
	for (k = 1; k <= NR; k++) {
		if (code[k] != 200) bad++
		if (k <= 60) { f += rss[k]; fn++; if (rss[k] > fmax) fmax = rss[k] }
		if (k > NR - 60) { l += rss[k]; ln++; if (rss[k] > lmax) lmax = rss[k] }
		if (tt[k] > worst) worst = tt[k]
	}
	fm = f / fn; lm = l / ln
	printf "soak: %d s, backend %s, %d wakeups/s of one SCHED_FIFO task (%d filed on CPU 1), %d scrapes\n", n, be, '"$RATE"', wake, NR
	printf "  RSS: first minute mean %.0f KiB (max %d), last minute mean %.0f KiB (max %d): %+.2f %%\n", fm, fmax, lm, lmax, (lm - fm) * 100 / fm
	printf "  scrapes: %d, %d not 200; slowest %.1f ms, p99 %.1f ms\n", NR, bad, worst, p99
	cpu = (t1 - t0) / hz
	printf "  monitor CPU: %.2f s over %d s = %.3f %% of one CPU", cpu, n, cpu * 100 / n
	if (bpfs != "") printf "; the BPF programs in the kernel: %.2f s = %.3f %% of one CPU (with the kernel'"'"'s run statistics on)", bpfs, bpfs * 100 / n
	printf "\n"
}' "$W/samples"

# ---- 2. against hist record --backend perf ----
# run_one NAME: the storm for CMP s under NAME (none: untraced), "NAME
# latscope_cpu_s storm_cpu_s"
run_one() {
	if [ $1 = none ]; then
		$TIME -f '%U %S' -o "$W/ts" "$TOOLS/wakestorm" -w 0 -s 1 -r "$RATE" -d "$CMP" > /dev/null 2>&1
		echo "none 0 $(awk '{ print $1 + $2 }' "$W/ts")"
		return
	fi
	case $1 in
	monitor) $TIME -f '%U %S' -o "$W/t" "$LATSCOPE" monitor --listen 127.0.0.1:0 > /dev/null 2> "$W/err" & ;;
	perf) $TIME -f '%U %S' -o "$W/t" "$LATSCOPE" hist record --backend perf --no-keep-busy -q -d 1h > /dev/null 2> "$W/err" & ;;
	esac
	lp=$!
	sleep 3
	$TIME -f '%U %S' -o "$W/ts" "$TOOLS/wakestorm" -w 0 -s 1 -r "$RATE" -d "$CMP" > /dev/null 2>&1
	# the latscope process is GNU time's child
	kill -INT $(pgrep -P $lp) 2>/dev/null
	wait $lp
	echo "$1 $(awk '{ print $1 + $2 }' "$W/t") $(awk '{ print $1 + $2 }' "$W/ts")"
}
: > "$W/cmp"
for r in 1 2; do
	run_one none >> "$W/cmp"
	run_one monitor >> "$W/cmp"
	run_one perf >> "$W/cmp"
done
# med NAME COLUMN: the median of COLUMN over NAME's runs
med() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$W/cmp" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "against hist record --backend perf, $CMP s of the same storm each, untraced / monitor / perf alternated twice (medians):"
base=$(med none 3)
for n in monitor perf; do
	awk -v n=$n -v c="$(med $n 2)" -v s="$(med $n 3)" -v b="$base" -v d="$CMP" \
		'BEGIN { printf "  %-8s latscope CPU %.2f s (%.2f %% of one CPU); the storm'"'"'s CPU %.2f s, %+.2f s over untraced (%.2f s): the tracing in the kernel, %.2f %% of one CPU\n", n, c, c * 100 / d, s, s - b, b, (s - b) * 100 / d }'
done
awk -v m="$(med monitor 2)" -v p="$(med perf 2)" -v ms="$(med monitor 3)" -v ps="$(med perf 3)" -v b="$base" \
	'BEGIN { if (m > 0) printf "  perf / monitor: latscope CPU %.1fx; latscope + the kernel'"'"'s tracing %.1fx\n", p / m, (p + ps - b) / (m + ms - b) }'
