#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/hist.sh - latscope hist's timer workload side by side with cyclictest
# (same CPUs, priority, interval and duration, one after the other in one
# run), and the live event-processing rate under a heavy sched event load.
#
#   LATSCOPE=build/latscope sh bench/hist.sh [SECONDS]
#
# Latency (all online CPUs, SCHED_FIFO 95, 1000 us absolute timers, mlocked,
# /dev/cpu_dma_latency held at 0 by both):
#   cyclictest -m -t -a -p95 -i1000 -D S -q -h 10000
#   latscope hist record --timer-workload -P 95 --interval 1000us -d S
# each once as is and once with the CPUs kept out of idle (SCHED_IDLE
# spinners: latscope's --keep-busy, which its self-test turns on by itself on
# kernels that drop idle-entry samples; plain `chrt -i 0` spinners for
# cyclictest), since leaving idle is part of the wakeup latency.
# Median and p99 per CPU, in us.
#
# Throughput: `latscope hist record -d S` with its default ring while
#   A: one, then two `perf bench sched pipe` ping-pongs (each ~1M sched
#      events/s), B: `perf bench sched messaging -g 20` (800 tasks)
# run in a loop; events/s processed (decoded / first..last event) and lost;
# with two loads per CPU also with --collector-prio 1 (a SCHED_OTHER collector
# gets only its fair share of the CPU and can fall behind at ~2M events/s).
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
D=${1:-10}
T=$(mktemp -d)
PIDS=""	# spinners
. "$(dirname "$0")/loadgen.sh.inc"	# load, unload: the load generators
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	unload_kill
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
J=${HISTCMP:-$(dirname "$LATSCOPE")/tests/tools/histcmp}
[ -x "$J" ] || { echo "bench/hist: $J missing (make builds it)"; exit 1; }
NCPU=$(nproc)

spin_on() {
	for c in $(seq 0 $((NCPU - 1))); do
		taskset -c "$c" chrt -i 0 sh -c 'while :; do :; done' &
		PIDS="$PIDS $!"
	done
}
spin_off() { for p in $PIDS; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; PIDS=""; }

cyc() {	# name: cyclictest histogram -> "cpu p50 p99 max" lines
	cyclictest -m -t -a -p95 -i1000 -D "$D" -q -h 10000 >"$T/$1.cyc" 2>"$T/$1.err" ||
		{ echo "cyclictest failed: $(tail -1 "$T/$1.err")"; return 1; }
	awk -v n="$NCPU" '
		/^[0-9]/ { b = $1 + 0; for (i = 0; i < n; i++) { c[i, b] = $(i + 2); t[i] += $(i + 2) }
			   if (b > mb) mb = b }
		/^# Max Latencies/ { for (i = 0; i < n; i++) mx[i] = $(i + 4) + 0 }
		END {
			for (i = 0; i < n; i++) {
				s = 0; p50 = -1; p99 = -1
				for (b = 0; b <= mb; b++) {
					s += c[i, b]
					if (p50 < 0 && s * 100 >= t[i] * 50) p50 = b
					if (p99 < 0 && s * 100 >= t[i] * 99) p99 = b
				}
				printf "%d %d %d %d %d\n", i, t[i], p50, p99, mx[i]
			}
		}' "$T/$1.cyc" >"$T/$1.rows"
}
ours() {	# name, options
	name=$1; shift
	"$LATSCOPE" hist record --timer-workload -P 95 --interval 1000us -d "$D" --json "$@" \
		>"$T/$name.json" 2>"$T/$name.err" || { echo "latscope failed: $(cat "$T/$name.err")"; return 1; }
	: >"$T/$name.rows"
	i=0
	while cpu=$("$J" --get "$T/$name.json" timer_workload.$i.cpu 2>/dev/null); do
		echo "$cpu $("$J" --get "$T/$name.json" timer_workload.$i.cycles) \
$(($("$J" --get "$T/$name.json" timer_workload.$i.p50_ns) / 1000)) \
$(($("$J" --get "$T/$name.json" timer_workload.$i.p99_ns) / 1000)) \
$(($("$J" --get "$T/$name.json" timer_workload.$i.max_ns) / 1000)) \
$(($("$J" --get "$T/$name.json" timer_workload.$i.kernel.timerandwakeup.p50_ns) / 1000)) \
$(($("$J" --get "$T/$name.json" timer_workload.$i.kernel.timerandwakeup.p99_ns) / 1000))" >>"$T/$name.rows"
		i=$((i + 1))
	done
}

have_cyc=1
command -v cyclictest >/dev/null 2>&1 || have_cyc=0
traced() {	# latscope tracing the same events (no workload) while cyclictest runs
	"$LATSCOPE" hist record -d $((D + 2)) "$@" >/dev/null 2>&1 &
	tp=$!
	sleep 1
}
[ $have_cyc = 1 ] && cyc cyc_idle
if [ $have_cyc = 1 ]; then traced --no-keep-busy; cyc cyc_idle_tr; wait $tp; fi
ours ours_idle --no-keep-busy
spin_on
[ $have_cyc = 1 ] && cyc cyc_busy
if [ $have_cyc = 1 ]; then traced --no-keep-busy; cyc cyc_busy_tr; wait $tp; fi
spin_off
ours ours_busy --keep-busy

echo "latency of a SCHED_FIFO 95 thread per CPU on 1000 us absolute timers, $D s each (us; the"
echo "timer workload's own measurement; kernel = its timerandwakeup histogram)"
printf '%-34s %4s %8s %6s %6s %6s %10s %10s\n' run CPU cycles p50 p99 max kernel-p50 kernel-p99
show() {	# label file
	[ -s "$2" ] || { printf '%-34s (not run)\n' "$1"; return; }
	while read -r cpu n p50 p99 mx k50 k99; do
		printf '%-34s %4s %8s %6s %6s %6s %10s %10s\n' "$1" "$cpu" "$n" "$p50" "$p99" "$mx" \
			"${k50:--}" "${k99:--}"
	done <"$2"
}
show "cyclictest (CPUs may idle)" "$T/cyc_idle.rows"
show "cyclictest, traced by latscope" "$T/cyc_idle_tr.rows"
show "latscope hist --no-keep-busy" "$T/ours_idle.rows"
show "cyclictest + SCHED_IDLE spinners" "$T/cyc_busy.rows"
show "  same, traced by latscope" "$T/cyc_busy_tr.rows"
show "latscope hist --keep-busy" "$T/ours_busy.rows"
echo "(\"traced\": latscope hist record runs on the same CPUs without its workload, so"
echo " cyclictest pays the same tracepoint overhead as the timer workload)"

# ---- event processing rate ----
rate() {	# label [options]
	f=$T/rate.json
	l=$1; shift
	"$LATSCOPE" hist record -d "$D" --json "$@" >"$f" 2>"$T/rate.err" || { echo "latscope failed: $(cat "$T/rate.err")"; return; }
	n=$("$J" --get "$f" input.decoded); a=$("$J" --get "$f" input.first_event_ns); b=$("$J" --get "$f" input.last_event_ns)
	lost=$("$J" --get "$f" input.lost_events)
	awk -v l="$l" -v n="$n" -v a="$a" -v b="$b" -v lost="$lost" 'BEGIN {
		s = (b - a) / 1e9; printf "%-44s %12d %8.2f %12.0f %10d\n", l, n, s, n / s, lost }'
}
echo
echo "live event processing, default ring (16 MiB per CPU), $D s, all CPUs"
printf '%-44s %12s %8s %12s %10s\n' load events seconds events/s lost
if command -v perf >/dev/null 2>&1; then
	load perf bench sched pipe -l 5000000
	sleep 1
	rate "1 x perf bench sched pipe"
	load perf bench sched pipe -l 5000000
	sleep 1
	rate "2 x perf bench sched pipe"
	rate "  same, --collector-prio 1" --collector-prio 1
	unload
	load perf bench sched messaging -g 20 -l 10000
	sleep 1
	rate "perf bench sched messaging -g 20 (800 tasks)"
	rate "  same, --collector-prio 1" --collector-prio 1
	unload
else
	echo "(perf is not installed: no load generator)"
fi
