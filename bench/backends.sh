#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/backends.sh - the cost of `latscope hist record` per traced event,
# its event rate without loss, and its peak RSS, for each backend side by
# side in one run (issue 19's acceptance; docs/hist.md, "Backends").
#
#   LATSCOPE=build/latscope sh bench/backends.sh [ROUNDS]
#
# 1. Cost per event.  A fixed amount of scheduling work, `perf bench sched
#    pipe -l $L` (two tasks waking each other, about 4 traced events a
#    loop), pinned to CPU 1, runs ROUNDS times (default 5) with tracing off
#    and under each backend (`hist record -c 1 --no-keep-busy`, once as is
#    (RT tasks only: the bpf programs drop the ping-pong's non-RT wakeups
#    early) and once with `--all-tasks` (every wakeup tracked),
#    latscope pinned to CPU 0, ended by SIGINT after the work), the order
#    rotated each round.  On one CPU the work is CPU-bound and repeatable,
#    so what the tracepoints cost in the kernel shows as its extra CPU time.
#    Per run: the work's wall and CPU time (/usr/bin/time: user + sys),
#    latscope's own CPU time and peak RSS (/usr/bin/time), and the events
#    the backend handled (perf: decoded records; bpf: program runs but the
#    local-timer counter's; kernel: hist trigger hits).  The added CPU per
#    event is
#        (work CPU traced - median work CPU untraced + latscope's CPU) / E
#    with one E for every backend: the median of the bpf runs' program runs
#    (every tracepoint hit of the traced events in the window, counted
#    exactly), or where bpf does not run the backend's own count.  The
#    table gives medians, and the ratios to perf.
# 2. Event rate without loss.  `perf bench sched pipe` ping-pongs (each
#    ~1M sched events/s), one more at each step, each step 5 s under the
#    perf backend, until it loses events; then the bpf backend at that load
#    and at twice as many ping-pongs.  Events/s and losses per run.
# Environment: BENCH_LOOPS (the work's loops, 1000000), BENCH_TIME (GNU
# time, /usr/bin/time), BENCH_SETTLE (s between latscope's start and the
# work, 2), BENCH_RATE=0 (part 1 only; bench/guest/backends.sh).
# The machine's load before the run and what else ran are printed first:
# run it on an otherwise idle machine (`make bench` does not check).
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
R=${1:-5}
L=${BENCH_LOOPS:-1000000}
[ "$(nproc)" -ge 2 ] || { echo "bench/backends: needs 2 CPUs (the work on CPU 1, latscope on CPU 0)"; exit 0; }
T=$(mktemp -d)
. "$(dirname "$0")/loadgen.sh.inc"	# load, unload: the load generators
cleanup() {
	unload_kill
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
J=${HISTCMP:-$(dirname "$LATSCOPE")/tests/tools/histcmp}
[ -x "$J" ] || { echo "bench/backends: $J missing (make builds it)"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "bench/backends: perf is not installed (the work is perf bench)"; exit 0; }
TIME=${BENCH_TIME:-/usr/bin/time}	# GNU time (-f, -o)
SETTLE=${BENCH_SETTLE:-2}		# s from latscope's start to the work
[ -x "$TIME" ] || { echo "bench/backends: $TIME missing (Debian package time)"; exit 1; }

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "other processes using CPU now (ps, top 3):"
{ ps -eo pcpu,comm --sort=-pcpu 2>/dev/null || top -b -n 1 2>/dev/null | sed -n '4,$p'; } |
	sed -n '2,4p' | sed 's/^/  /'

# which backends run here: each one tried for 0.2 s
BACKENDS=""
for b in perf bpf kernel; do
	if "$LATSCOPE" hist record --backend $b --all-tasks --no-keep-busy -d 0.2 --json \
		>"$T/probe.json" 2>"$T/probe.err"; then
		BACKENDS="$BACKENDS $b"
	else
		echo "backend $b: not available here: $(head -1 "$T/probe.err")"
	fi
done

# the backend that ran (a string: histcmp --get reads numbers)
backend_of() { tr -d ' \n' <"$1" | grep -o '"backend":"[a-z]*"' | head -1 | cut -d'"' -f4; }
# events: the backend's count of handled events in JSON $1
events() {
	case $(backend_of "$1") in
	bpf)
		_r=$("$J" --get "$1" input.bpf_program_runs)
		_i=0
		while _e=$("$J" --get "$1" input.local_timer.cpus.$_i.entries 2>/dev/null); do
			_r=$((_r - _e)); _i=$((_i + 1))
		done
		echo "$_r" ;;
	kernel) "$J" --get "$1" input.hist_triggers.hits ;;
	*) "$J" --get "$1" input.decoded ;;
	esac
}
lost() {
	case $(backend_of "$1") in
	bpf) "$J" --get "$1" input.bpf_recursion_misses ;;
	kernel) "$J" --get "$1" input.hist_triggers.dropped ;;
	*) echo $(($("$J" --get "$1" input.lost_events) + $("$J" --get "$1" input.lost_samples))) ;;
	esac
}

# the work under backend $1 (or "off"), round $2: appends a row to $T/rows
run_work() {
	b=$1
	if [ "$b" != off ]; then
		# (its pid through the exec chain sh -> taskset -> latscope, for the
		# SIGINT below: busybox's pkill has no -x)
		"$TIME" -f '%U %S %M' -o "$T/tr.time" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh \
			"$T/tr.pid" taskset -c 0 "$LATSCOPE" hist record \
			--backend "$b" -c 1 $MODE --no-keep-busy -d 10m --json >"$T/tr.json" 2>"$T/tr.err" &
		tp=$!
		sleep "$SETTLE"	# loaded and attached (bpf: ~0.3 s; perf: rings mapped)
	fi
	"$TIME" -f '%e %U %S' -o "$T/st.time" taskset -c 1 perf bench sched pipe -l "$L" \
		>/dev/null 2>&1
	read -r sw su ss <"$T/st.time"
	if [ "$b" = off ]; then
		echo "off $2 $sw $su $ss 0 0 0 0" >>"$T/rows"
		return
	fi
	kill -INT "$(cat "$T/tr.pid")" 2>/dev/null
	wait "$tp" || { echo "latscope ($b) failed: $(tail -2 "$T/tr.err")"; return; }
	read -r tu ts rss <"$T/tr.time"
	echo "$b $2 $sw $su $ss $tu $ts $rss $(events "$T/tr.json") $(lost "$T/tr.json")" >>"$T/rows"
}

cost_table() {	# MODE: hist record's task filter ("" or --all-tasks)
MODE=$1
echo
echo "1. cost per event: taskset -c 1 perf bench sched pipe -l $L, $R rounds, order rotated; hist record ${MODE:-(RT tasks only, the default)}"
: >"$T/rows"
ORDER="off$BACKENDS"
n=$(echo $ORDER | wc -w)
r=1
while [ $r -le "$R" ]; do
	k=0
	while [ $k -lt "$n" ]; do	# round r starts at the r-th backend
		run_work "$(echo $ORDER | cut -d' ' -f$(((k + r) % n + 1)))" "$r"
		k=$((k + 1))
	done
	r=$((r + 1))
done
awk -v be="off$BACKENDS" '
function med(key, m,   i, j, t, a) {	# median of vals[key, 1..m]
	for (i = 1; i <= m; i++) a[i] = vals[key, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
{	b = $1; c = ++cnt[b]
	vals[b "w", c] = $3; vals[b "c", c] = $4 + $5; vals[b "t", c] = $6 + $7
	vals[b "m", c] = $8; vals[b "e", c] = $9; vals[b "l", c] = $10 }
END {
	nb = split(be, B, " ")
	offc = med("offc", cnt["off"])
	printf "%-8s %5s %9s %9s %10s %9s %12s %8s %12s %7s\n", "backend", "runs", "work s", "work CPU", \
		"latscope", "RSS MiB", "events", "lost", "ns/event", "ratio"
	for (k = 1; k <= nb; k++) {
		b = B[k]; m = cnt[b]
		if (!m) continue
		w = med(b "w", m); c = med(b "c", m)
		if (b == "off") {
			printf "%-8s %5d %9.2f %9.2f %10s %9s %12s %8s %12s %7s\n", b, m, w, c, "-", "-", "-", "-", "-", "-"
			continue
		}
		# one denominator for every backend: the tracepoint hits of the work as the
		# bpf programs count them (every run, exact), else the backend own count
		E = cnt["bpf"] ? med("bpfe", cnt["bpf"]) : med(b "e", m)
		for (i = 1; i <= m; i++)
			vals[b "n", i] = E ? (vals[b "c", i] - offc + vals[b "t", i]) * 1e9 / E : 0
		ne = med(b "n", m); cost[b] = ne; W[b] = w; C[b] = c + med(b "t", m)
		printf "%-8s %5d %9.2f %9.2f %10.2f %9.1f %12d %8d %12.0f %7s\n", b, m, w, c, med(b "t", m), \
			med(b "m", m) / 1024, med(b "e", m), med(b "l", m), ne, \
			(b == "perf" || !cost["perf"]) ? "-" : sprintf("%.1fx", cost["perf"] / ne)
	}
	if (cost["perf"] && cost["bpf"])
		printf "bpf vs perf: work wall time %.2fx, work + latscope CPU time %.2fx, added CPU per event %.1fx cheaper\n", \
			W["perf"] / W["bpf"], C["perf"] / C["bpf"], cost["perf"] / cost["bpf"]
}' "$T/rows"
echo "(work CPU: user + sys of the pinned ping-pong; latscope: its own user + sys; ns/event: median over"
echo " the rounds of (work CPU - untraced median + latscope CPU) / E, E = the bpf runs' median"
echo " program runs, the same for every backend; ratio: perf's ns/event / this)"

}
cost_table ""
cost_table --all-tasks

# ---- 2. event rate without loss ----
[ "${BENCH_RATE:-1}" = 1 ] || exit 0
rate() {	# backend pingpongs
	unload
	i=0
	while [ $i -lt "$2" ]; do load perf bench sched pipe -l 5000000; i=$((i + 1)); done
	sleep 1
	"$LATSCOPE" hist record --backend "$1" --all-tasks --no-keep-busy -d 5 --json >"$T/rate.json" 2>"$T/rate.err" ||
		{ echo "latscope ($1) failed: $(tail -1 "$T/rate.err")"; return 1; }
	a=$("$J" --get "$T/rate.json" input.traced_from_ns); z=$("$J" --get "$T/rate.json" input.traced_until_ns)
	e=$(events "$T/rate.json"); lo=$(lost "$T/rate.json")
	awk -v b="$1" -v p="$2" -v e="$e" -v a="$a" -v z="$z" -v l="$lo" 'BEGIN {
		printf "%-8s %10d %12d %12.0f %10d\n", b, p, e, e / ((z - a) / 1e9), l }'
	LAST_LOST=$lo
}
echo
echo "2. event rate without loss: perf bench sched pipe ping-pongs, 5 s each"
printf '%-8s %10s %12s %12s %10s\n' backend ping-pongs events events/s lost
p=1
LAST_LOST=0
while [ $p -le 8 ]; do
	rate perf $p || break
	[ "$LAST_LOST" -gt 0 ] && break
	p=$((p + 1))
done
unload
if [ "$LAST_LOST" -gt 0 ]; then
	case " $BACKENDS " in *" bpf "*)
		rate bpf $p
		rate bpf $((2 * p)) ;;
	esac
else
	echo "(the perf backend lost nothing up to $((p - 1)) ping-pongs: the machine cannot raise a storm it loses)"
fi
unload
