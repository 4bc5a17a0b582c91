#!/bin/sh
# SPDX-License-Identifier: MIT
# Ctrl-C at 0.1 s (during setup) and at 3 s: osnoise top and hist record exit
# cleanly (setup: exit 2 and one line, no partial -o file; running: the
# report, exit 0), nothing of theirs left running.  A reader that goes away
# (| head -1) ends a streaming run within about a second.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints)"
"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy >/dev/null 2>&1 || skip "no tracepoints here"
int_at() {	# int_at DELAY OUT ERR cmd...: SIGINT after DELAY, the exit status in $rc
	d=$1 o=$2 e=$3; shift 3
	"$@" >"$o" 2>"$e" &
	p=$!
	sleep "$d"
	kill -INT $p
	wait $p; rc=$?
	sleep 0.2
	kill -0 $p 2>/dev/null && die "$*: still running after SIGINT"
	return 0
}
for cmd in "osnoise top -c 1 -d 10" "hist record -d 10 --timer-workload -c 1 -o $TMP/r.data"; do
	int_at 0.1 "$TMP/o" "$TMP/e" "$LATSCOPE" $cmd
	[ $rc -eq 2 ] || die "$cmd: Ctrl-C at 0.1 s: exit $rc ($(cat "$TMP/e"))"
	grep -q "interrupted before the measurement started" "$TMP/e" || die "$cmd @0.1: $(cat "$TMP/e")"
	[ ! -e "$TMP/r.data" ] || die "$cmd @0.1: left a partial recording"
	[ -z "$(find "$TMP" -name '.*.tmp')" ] || die "$cmd @0.1: temporary file left"
	int_at 3 "$TMP/o" "$TMP/e" "$LATSCOPE" $cmd
	[ $rc -eq 0 ] || die "$cmd: Ctrl-C at 3 s: exit $rc ($(cat "$TMP/e"))"
	[ -s "$TMP/o" ] || die "$cmd @3: no report"
done
[ -s "$TMP/r.data" ] || die "hist record @3 s wrote no recording"
"$LATSCOPE" hist report -i "$TMP/r.data" >/dev/null 2>&1 || die "the interrupted recording does not read back"
# the process restored what it changed: no latscope process holds
# /dev/cpu_dma_latency (another program on the machine may, e.g. tuned)
for fd in /proc/[0-9]*/fd/*; do
	[ "$(readlink "$fd" 2>/dev/null)" = /dev/cpu_dma_latency ] || continue
	p=${fd#/proc/}; p=${p%%/*}
	[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$LATSCOPE")" ] &&
		die "/dev/cpu_dma_latency still held by latscope (pid $p)"
done

# | head -1: over within ~1 s of the first line (the runs ask for 20 s)
for cmd in "osnoise top -c 1 -d 20 -p 500000" "hist top -d 20 --no-keep-busy"; do
	t0=$(date +%s)
	"$LATSCOPE" $cmd 2>"$TMP/e" | head -1 >/dev/null
	t=$(( $(date +%s) - t0 ))
	[ $t -le 5 ] || die "$cmd | head -1 took $t s"
	[ ! -s "$TMP/e" ] || die "$cmd | head -1: not quiet: $(cat "$TMP/e")"
done
# hist record prints its first line when the measurement starts
t0=$(date +%s)
"$LATSCOPE" hist record -d 20 --no-keep-busy 2>"$TMP/e" | head -1 > "$TMP/first"
t=$(( $(date +%s) - t0 ))
[ $t -le 5 ] || die "hist record | head -1 took $t s"
grep -q '^# latscope hist record: measuring' "$TMP/first" || die "hist record's first line: $(cat "$TMP/first")"
[ ! -s "$TMP/e" ] || die "hist record | head -1: not quiet: $(cat "$TMP/e")"
t0=$(date +%s)
"$LATSCOPE" hist record -d 20 --no-keep-busy 2>"$TMP/e" | true
t=$(( $(date +%s) - t0 ))
[ $t -le 3 ] || die "hist record | true took $t s"
echo "ok: Ctrl-C at 0.1 s and 3 s, closed pipes (osnoise top, hist top/record)"
