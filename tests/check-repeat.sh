#!/bin/sh
# SPDX-License-Identifier: MIT
# Stress the golden + end-to-end tier: run tests/run-shell.sh N times, then
# once more with a niced busy loop on every CPU (the hog is killed on any
# exit), and print each test's pass rate.  Exits 1 when any test failed in
# any run.  usage: LATSCOPE=... TOOLS=... tests/check-repeat.sh N
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
N=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/latscope-repeat.XXXXXX")
hogs=""
stop_hogs() {
	[ -n "$hogs" ] || return 0
	kill $hogs 2>/dev/null
	for p in $hogs; do
		# wait until each hog is gone (they ignore nothing, but be sure)
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	hogs=""
}
trap 'stop_hogs; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

run() {	# label
	echo "== run $1"
	sh "$here/run-shell.sh" > "$work/$1.log" 2>&1
	grep -E '^(PASS|FAIL|SKIP) ' "$work/$1.log" | sed 's/^/  /'
	grep -A30 '^FAIL ' "$work/$1.log" | grep '^    ' | head -60
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
	nice -n 19 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	c=$((c + 1))
done
echo "hog: $ncpu niced busy loops (pids$hogs)"
run hog
stop_hogs
for p in $(echo "$hogs"); do kill -0 "$p" 2>/dev/null && { echo "hog $p still running"; exit 1; }; done

echo "== pass rates ($N runs + 1 under a CPU hog on every CPU)"
printf '%-32s %5s %5s %5s %5s  %s\n' test runs pass fail skip rate
cat "$work"/*.log | awk '
	/^(PASS|FAIL|SKIP) / {
		name = $2; sub(/:$/, "", name)
		if (!(name in runs)) order[n++] = name
		runs[name]++
		if ($1 == "PASS") p[name]++
		else if ($1 == "FAIL") f[name]++
		else s[name]++
	}
	END {
		bad = 0
		for (i = 0; i < n; i++) {
			t = order[i]; r = p[t] + f[t]
			rate = r ? sprintf("%.0f %%", 100 * p[t] / r) : "skipped"
			printf "%-32s %5d %5d %5d %5d  %s\n", t, runs[t], p[t], f[t], s[t], rate
			if (f[t]) bad = 1
		}
		exit bad
	}'
