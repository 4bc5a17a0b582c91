#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every benchmark in bench/ (each prints its own side-by-side table);
# `make bench` runs this.  LATSCOPE names the binary.  Run on an otherwise
# idle machine: the header says what the machine is and what else is
# running, and each bench says how long it took.
#
# Every speed figure in README.md, docs/*.md and docs/man/*.1 comes from one
# run of this script: the lines to copy start with "figure" or are the
# benches' tables (docs/benchmarks.md lists which line gives which figure).
#
# Durations under `make bench` (about 35 minutes in all; bench/timerlat.sh
# about 8 of them):
#   MONITOR_SOAK (default here 300 s; bench/monitor.sh alone: 600 s) and
#   MONITOR_CMP (default here 30 s; alone: 60 s): the monitor's soak and its
#   comparison with the perf backend.
#   BENCH_DTL_GB (default 3): the size of bench/dtl.sh's DTL-only recording.
#   BENCH_ONLY="dtl script": only these benches (names without .sh).
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
export LATSCOPE
: "${MONITOR_SOAK:=300}" "${MONITOR_CMP:=30}" "${BENCH_DTL_GB:=3}"
export MONITOR_SOAK MONITOR_CMP
here=$(dirname "$0")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
[ -n "$cpu" ] || cpu=$(sed -n 's/^cpu[[:space:]]*: //p' /proc/cpuinfo | head -1)	# ppc64
echo "== make bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
echo "== kernel $(uname -r), $(nproc) CPUs: ${cpu:-unknown model}"
echo "== load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== busiest processes (%CPU since start, elapsed, command):"
ps -eo pcpu=,etime=,comm= --sort=-pcpu | head -5 | sed 's/^/   /'
echo "== durations: MONITOR_SOAK=${MONITOR_SOAK}s MONITOR_CMP=${MONITOR_CMP}s BENCH_DTL_GB=$BENCH_DTL_GB"
rc=0
t_all=$(date +%s)
for b in "$here"/*.sh; do
	name=$(basename "$b" .sh)
	[ "$name" = run ] && continue
	if [ -n "${BENCH_ONLY:-}" ]; then
		case " $BENCH_ONLY " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "=== $name ($(date -u '+%H:%M:%S UTC'), load $(cut -d' ' -f1 /proc/loadavg))"
	t0=$(date +%s)
	if [ "$name" = dtl ]; then
		sh "$b" "$BENCH_DTL_GB" || rc=1
	else
		sh "$b" || rc=1
	fi
	echo "=== $name took $(( $(date +%s) - t0 )) s"
done
echo "== all benches: $(( $(date +%s) - t_all )) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
