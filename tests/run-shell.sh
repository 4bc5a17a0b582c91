#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the static checks, golden and end-to-end tests (tests/static/*.sh,
# tests/golden/*.sh, tests/e2e/*.sh).
# Each script exits 0 (pass), 77 (skip: the machine lacks a feature) or
# anything else (fail).  LATSCOPE names the binary under test; RUN_SETS
# the folders run (default "static golden e2e").
# Each test runs in a session (and process group) of its own, stdin
# /dev/null, under a time limit: LATSCOPE_TEST_TIMEOUT seconds (default 600;
# on a 2-CPU machine under burstload, a gzip loop and a niced busy loop per
# CPU the slowest took 176 s, clean_stop, and 146 s, doc_examples).
# A test past its limit gets its processes' state printed (ps, the kernel
# stack and wchan of each, the threads of the multi-threaded ones), then its
# whole group and every descendant SIGTERM, SIGKILL 5 s later, and fails as
# "FAIL NAME (timeout after N s)".  What a test leaves running when it ends
# is killed the same way and named under its result line.
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
export LATSCOPE
TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
export TESTS_DIR
LIMIT=${LATSCOPE_TEST_TIMEOUT:-600}
case $LIMIT in ''|*[!0-9]*|0) echo "LATSCOPE_TEST_TIMEOUT=$LIMIT: want seconds > 0"; exit 2;; esac
command -v setsid >/dev/null 2>&1 || { echo "run-shell: no setsid (util-linux)"; exit 2; }
# a command this shell runs in the background starts with SIGINT and SIGQUIT
# ignored, and a harness started under nohup hands SIGHUP down ignored; latscope
# leaves a signal it was started with ignored ignored: the tests get every
# signal back at its default (a test's Ctrl-C or SIGHUP reaches what it runs)
dfl="env --default-signal"
$dfl true 2>/dev/null || { echo "run-shell: env has no --default-signal (coreutils < 8.31): the tests start with the signals this shell ignores ignored"; dfl=""; }
RS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/latscope-shell.XXXXXX") || exit 2
tp="" wd=""
trap 'rm -rf "$RS_TMP"' EXIT
# interrupted: the running test is in a session of its own (no ^C reaches
# it), so end it here, and its watchdog
trap '[ -z "$wd" ] || kill -TERM $wd 2>/dev/null; [ -z "$tp" ] || reap "$tp" >/dev/null 2>&1; exit 130' INT TERM HUP

# procs PGID: the processes of the group and their descendants (one may have
# left the group), one pid a line; not the zombies (nothing to kill: an
# orphan's stays where init does not reap)
procs() {
	ps -e -o pid=,ppid=,pgid=,stat= | awk -v g="$1" '
		$4 ~ /^Z/ { next }
		{ pid[NR] = $1; pp[NR] = $2; if ($3 == g) keep[$1] = 1 }
		END {
			do {	# the descendants of what is kept, to a fixed point
				more = 0
				for (i = 1; i <= NR; i++)
					if ((pp[i] in keep) && !(pid[i] in keep)) { keep[pid[i]] = 1; more = 1 }
			} while (more)
			for (p in keep) print p
		}' | sort -n
}
# state PGID: what each process of the test is doing
state() {
	ps_l=$(procs "$1" | tr '\n' ',' | sed 's/,$//')
	[ -n "$ps_l" ] || { echo "(no process left)"; return; }
	ps -o pid,ppid,pgid,stat,wchan:20,etime,args -p "$ps_l" | cut -c1-200
	for p in $(echo "$ps_l" | tr ',' ' '); do
		[ -d "/proc/$p" ] || continue
		echo "--- pid $p ($(cat "/proc/$p/comm" 2>/dev/null)): $(grep '^State:' "/proc/$p/status" 2>/dev/null | tr '\t' ' '), wchan $(cat "/proc/$p/wchan" 2>/dev/null; echo)"
		sed 's/^/  /' "/proc/$p/stack" 2>/dev/null
		nt=$(ls "/proc/$p/task" 2>/dev/null | wc -l)
		case "$(cat "/proc/$p/comm" 2>/dev/null)" in latscope*|perf*) ;; *) [ "$nt" -gt 1 ] || continue;; esac
		echo "  $nt threads:"
		for d in "/proc/$p/task"/*; do
			st=$(sed 's/^[0-9]* (\(.*\)) \([A-Za-z]\) .*/\2 \1/' "$d/stat" 2>/dev/null)
			echo "  tid ${d##*/} state $st, wchan $(cat "$d/wchan" 2>/dev/null)"
			[ "$d" = "/proc/$p/task/$p" ] || sed 's/^/    /' "$d/stack" 2>/dev/null
		done
	done
}
# reap PGID: SIGTERM the group and its descendants, SIGKILL 5 s later; names
# what it killed (and what not even SIGKILL ended: D state)
reap() {
	rp_l=$(procs "$1")
	[ -n "$rp_l" ] || return 0
	ps -o pid=,stat=,args= -p "$(echo $rp_l | tr ' ' ',')" | cut -c1-160
	kill -TERM -"$1" $rp_l 2>/dev/null
	rp_n=0
	while [ -n "$(procs "$1")" ] && [ $rp_n -lt 50 ]; do sleep 0.1; rp_n=$((rp_n + 1)); done
	rp_l=$(procs "$1")
	[ -n "$rp_l" ] || return 0
	echo "SIGKILL after 5 s: $(echo $rp_l)"
	kill -KILL -"$1" $rp_l 2>/dev/null
	rp_n=0
	while [ -n "$(procs "$1")" ] && [ $rp_n -lt 50 ]; do sleep 0.1; rp_n=$((rp_n + 1)); done
	rp_l=$(procs "$1")
	[ -z "$rp_l" ] || echo "still there 5 s after SIGKILL: $(ps -o pid=,stat=,wchan:20=,args= -p "$(echo $rp_l | tr ' ' ',')")"
}

pass=0; fail=0; skip=0; failed=""
for t in $(for s in ${RUN_SETS:-static golden e2e}; do echo "$TESTS_DIR/$s"/*.sh; done); do
	[ -f "$t" ] || continue
	name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
	out=$RS_TMP/out; : > "$out"; rm -f "$RS_TMP/timedout" "$RS_TMP/diag"
	# the test leads a session of its own: a background job of this
	# non-interactive shell leads no group, so setsid does not fork and
	# the pid is the group's id
	setsid $dfl sh "$t" < /dev/null > "$out" 2>&1 &
	tp=$!
	# the watchdog: after LIMIT s, the state of the test's processes,
	# then they are killed (it sleeps a second at a time: killed, it
	# leaves no long sleep behind)
	(
		read -r up _ < /proc/uptime; end=$((${up%.*} + LIMIT))
		while [ "${up%.*}" -lt $end ]; do sleep 1; read -r up _ < /proc/uptime; done
		: > "$RS_TMP/timedout"
		{ echo "=== timeout after $LIMIT s: the test's processes"; state "$tp"; echo "=== killing them"; reap "$tp"; } > "$RS_TMP/diag" 2>&1
	) < /dev/null > /dev/null 2>&1 &
	wd=$!
	wait $tp 2>/dev/null; rc=$?
	# timed out: the watchdog ends when all is killed
	[ -e "$RS_TMP/timedout" ] || kill -TERM $wd 2>/dev/null
	wait $wd 2>/dev/null	# (dash says "Terminated" otherwise)
	# a process the test killed at its end may not have died yet (a
	# SCHED_IDLE spinner beside nice-19 loops waits long for a CPU to die
	# on): two seconds for the session to empty before what is left counts
	rp_n=0
	while [ -n "$(procs "$tp")" ] && [ $rp_n -lt 20 ]; do sleep 0.1; rp_n=$((rp_n + 1)); done
	left=$(reap "$tp" 2>&1)
	tp="" wd=""
	[ -e "$RS_TMP/timedout" ] && rc=timeout
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name";;
	77) skip=$((skip + 1)); echo "SKIP $name: $(grep -v '^$' "$out" | tail -1)";;
	timeout) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (timeout after $LIMIT s)"
		tail -30 "$out" | sed 's/^/    /'; head -400 "$RS_TMP/diag" | sed 's/^/    /';;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"; tail -30 "$out" | sed 's/^/    /';;
	esac
	[ -z "$left" ] || echo "$left" | sed '1s/^/    left running at its end, killed: /; 2,$s/^/    /'
done
echo "shell: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failing:$failed"; exit 1; }
