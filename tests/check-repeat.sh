#!/bin/sh
# SPDX-License-Identifier: MIT
# Stress the golden + end-to-end tier: run tests/run-shell.sh N times, then
# once more with a niced busy loop on every CPU ("hog"), then once more
# under a bursty load ("burst": tests/tools/burstload, unpinned, which spins
# 2 ms and sleeps 3 ms so the CPUs enter and leave idle all the time, beside
# a loop gzipping /dev/urandom).  Each load runs in a session of its own and
# is killed with its children on any exit.  Prints each test's pass rate and
# its result in each loaded run.  Exits 1 when any test failed in any run.
# usage: LATSCOPE=... TOOLS=... tests/check-repeat.sh N
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
: "${TOOLS:?TOOLS must name the test tools directory (build/tests/tools)}"
N=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$TOOLS/burstload" ] || { echo "check-repeat: no $TOOLS/burstload (make builds it)"; exit 2; }
command -v setsid >/dev/null 2>&1 || { echo "check-repeat: no setsid (util-linux)"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/latscope-repeat.XXXXXX")
loads=""
# load CMD...: CMD in a session (and process group) of its own: a background
# job of this shell leads no group, so setsid does not fork and $! is the
# group's id
load() {
	setsid "$@" < /dev/null > /dev/null 2>&1 &
	loads="$loads $!"
}
# alive PGID: a process of the group runs (a zombie does not count: an
# orphan's stays where init does not reap)
alive() { ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }
# stop_loads: SIGTERM each load's group (the gzip loop's head and gzip too),
# SIGKILL what is left after 5 s
stop_loads() {
	[ -n "$loads" ] || return 0
	for p in $loads; do kill -TERM -"$p" 2>/dev/null; done
	for p in $loads; do
		i=0
		while alive "$p" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL -"$p" 2>/dev/null
	done
	sleep 0.2
	left=""
	for p in $loads; do alive "$p" && left="$left $p"; done
	loads=""
	[ -z "$left" ] || { echo "load groups still running:$left"; return 1; }
}
rs=""
# interrupted: run-shell.sh (in the background, so that the trap runs at
# once) ends its test first
trap '[ -z "$rs" ] || { kill -TERM $rs; wait $rs; }; stop_loads; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

run() {	# label
	echo "== run $1"
	# REPEAT_ART=DIR: what a failing test keeps (its ART files) under DIR/label
	if [ -n "${REPEAT_ART:-}" ]; then
		mkdir -p "$REPEAT_ART/$1"
		export ART="$REPEAT_ART/$1"
	fi
	sh "$here/run-shell.sh" > "$work/$1.log" 2>&1 &
	rs=$!
	wait $rs
	rs=""
	# each result, under a failure what it said (a timeout: the state of
	# the test's processes too), under any what it left running (at most
	# 600 such lines a run)
	awk '/^(PASS|FAIL|SKIP) / { print "  " $0; f = /^FAIL /; next }
	     /^    left running/ { f = 1 }
	     /^    / && f && n++ < 600 { print "  " $0 }' "$work/$1.log"
	grep '^shell:' "$work/$1.log"
}
i=1
while [ $i -le "$N" ]; do
	run "$i"
	i=$((i + 1))
done

ncpu=$(getconf _NPROCESSORS_ONLN)
c=0
while [ $c -lt "$ncpu" ]; do
	load nice -n 19 sh -c 'while :; do :; done'
	c=$((c + 1))
done
echo "hog: $ncpu niced busy loops (pids$loads)"
run hog
stop_loads || exit 1

load "$TOOLS/burstload"
load sh -c 'while :; do head -c 30000000 /dev/urandom | gzip -c > /dev/null; done'
echo "burst: burstload (spin 2 ms, sleep 3 ms, unpinned) and a gzip loop (pids$loads)"
run burst
stop_loads || exit 1

echo "== pass rates ($N runs, 1 under a CPU hog on every CPU (hog), 1 under a bursty load (burst))"
printf '%-32s %5s %5s %5s %5s  %-7s  %-7s  %s\n' test runs pass fail skip rate hog burst
awk '
	/^(PASS|FAIL|SKIP) / {
		name = $2; sub(/:$/, "", name)
		if (!(name in runs)) order[n++] = name
		runs[name]++
		if ($1 == "PASS") p[name]++
		else if ($1 == "FAIL") f[name]++
		else s[name]++
		run = FILENAME; sub(/.*\//, "", run); sub(/\.log$/, "", run)
		if (run == "hog" || run == "burst")
			res[run, name] = /\(timeout after/ ? "TIMEOUT" : $1
	}
	END {
		bad = 0
		for (i = 0; i < n; i++) {
			t = order[i]; r = p[t] + f[t]
			rate = r ? sprintf("%.0f %%", 100 * p[t] / r) : "skipped"
			h = (("hog", t) in res) ? res["hog", t] : "-"
			b = (("burst", t) in res) ? res["burst", t] : "-"
			printf "%-32s %5d %5d %5d %5d  %-7s  %-7s  %s\n", t, runs[t], p[t], f[t], s[t], rate, h, b
			if (f[t]) bad = 1
		}
		exit bad
	}' "$work"/*.log
