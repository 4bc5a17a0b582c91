#!/bin/sh
# SPDX-License-Identifier: MIT
# rtla's field-work options on this machine's kernel (docs/osnoise.md and
# docs/hist.md, "Field work"):
#  - osnoise top -a US with a busy competitor on the measured CPU: stops
#    long before -d, exit 1; its analysis names the parts of the gap, and
#    they add up to it (ns, exactly); the trace it kept is printed by perf
#    script and latscope script byte for byte alike; an
#    --on-threshold shell command ran with the event in its environment,
#    and --on-end's after it;
#  - osnoise --on-threshold continue: the run goes on to -d, the action ran
#    at least once;
#  - hist record -a DUR (a SCHED_FIFO burst delays the timer workload):
#    stops at once, exit 1, the analysis' parts add up to the sample, the
#    trace read alike by both; hist record -T alone stops at once too;
#  - -P d:100us:1ms: the workload threads are SCHED_DEADLINE, or the kernel
#    refused (pinned deadline threads need an exclusive cpuset partition)
#    and latscope said so and exited 2;
#  - malformed actions: exit 2 with one line naming the problem.
. "$TESTS_DIR/lib.sh"
trap 'for q in $(pgrep -f -- "$TMP"); do kill -KILL "$q"; done 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || skip "needs root"
command -v perf >/dev/null || skip "no perf"
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || skip "needs 2 CPUs"
CPU=1
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# a competitor on CPU that ends by itself after $2 s (never outlives a test)
spin() { taskset -c "$1" sh -c "end=\$((\$(date +%s) + $2)); while [ \$(date +%s) -lt \$end ]; do :; done; : $TMP" & }
# the analysis rows (class id who [count] NNN ns share %): the parts, minus an
# excess, must add up to the total row, which must be the gap/sample
sum_check() {	# FILE WHAT
	awk -v what="$2" '
		/auto-analysis/ { on = 1; next }
		on && / ns +-?[0-9.]+ %$/ {
			for (i = 1; i <= NF; i++) if ($i == "ns") v = $(i - 1)
			if ($1 == "total") { total = v; done = 1; exit }
			sum += v; n++
		}
		END {
			if (!done) { print what ": no total row"; exit 1 }
			if (n == 0) { print what ": no part rows"; exit 1 }
			if (sum != total) { print what ": parts add up to " sum " ns, total " total " ns"; exit 1 }
		}' "$1"
}

# ---- osnoise top -a --------------------------------------------------------------
cd "$TMP" || die "cd"
spin $CPU 6
t0=$(now)
"$LATSCOPE" osnoise top -c $CPU -d 20 -q -a 5 -t"$TMP/os.data" \
	--on-threshold "shell,command=env | grep '^LATSCOPE_' | sort > $TMP/env.txt" \
	--on-end "shell,command=echo end:\$LATSCOPE_EVENT >> $TMP/env.txt" >"$TMP/os.out" 2>"$TMP/os.err"
rc=$?
dt=$(elapsed "$t0")
[ $rc -eq 1 ] || die "osnoise -a: exit $rc (want 1): $(cat "$TMP/os.err")"
awk -v d="$dt" 'BEGIN { exit !(d < 15) }' || die "osnoise -a did not stop early: ${dt}s of -d 20"
grep -q "hit stop tracing: cpu $CPU single noise" "$TMP/os.out" || die "osnoise -a: no stop line"
gap=$(sed -n "s/^latscope osnoise auto-analysis: cpu $CPU: gap of \([0-9]*\) ns .*/\1/p" "$TMP/os.out")
[ -n "$gap" ] && [ "$gap" -gt 5000 ] || die "osnoise -a: no analysis of a gap above 5 us: $(cat "$TMP/os.out")"
msg=$(sum_check "$TMP/os.out" "osnoise -a") || die "$msg"
total=$(awk '$1 == "total" && / ns / { for (i = 1; i <= NF; i++) if ($i == "ns") print $(i - 1) }' "$TMP/os.out")
[ "$total" = "$gap" ] || die "osnoise -a: total $total ns is not the gap $gap ns"
grep -q "wrote '$TMP/os.data'" "$TMP/os.err" || die "osnoise -a: no trace written: $(cat "$TMP/os.err")"
perf script -i "$TMP/os.data" >"$TMP/os.perf" 2>/dev/null
"$LATSCOPE" script -i "$TMP/os.data" >"$TMP/os.ls" 2>/dev/null
np=$(wc -l < "$TMP/os.perf"); nl=$(wc -l < "$TMP/os.ls")
[ "$np" -gt 0 ] && [ "$np" -eq "$nl" ] || die "osnoise trace: perf script $np lines, latscope script $nl"
cmp -s "$TMP/os.perf" "$TMP/os.ls" || die "osnoise trace: perf script and latscope script differ: $(diff "$TMP/os.perf" "$TMP/os.ls" | head -4)"
perf script -i "$TMP/os.data" 2>/dev/null | grep -q "latscope:osnoise_workload" || die "osnoise trace: no workload records"
grep -q "^LATSCOPE_EVENT=threshold$" "$TMP/env.txt" || die "on-threshold: no LATSCOPE_EVENT: $(cat "$TMP/env.txt")"
grep -q "^LATSCOPE_CPU=$CPU$" "$TMP/env.txt" || die "on-threshold: LATSCOPE_CPU: $(cat "$TMP/env.txt")"
grep -q "^LATSCOPE_COMMAND=osnoise$" "$TMP/env.txt" || die "on-threshold: LATSCOPE_COMMAND"
grep -q "^LATSCOPE_TRACE_FILE=$TMP/os.data$" "$TMP/env.txt" || die "on-threshold: LATSCOPE_TRACE_FILE"
lat=$(sed -n 's/^LATSCOPE_LATENCY_NS=//p' "$TMP/env.txt")
[ "$lat" = "$gap" ] || die "on-threshold: LATSCOPE_LATENCY_NS=$lat, the gap was $gap"
[ "$(tail -1 "$TMP/env.txt")" = "end:end" ] || die "on-end did not run after on-threshold: $(cat "$TMP/env.txt")"
echo "ok osnoise -a: stopped after ${dt}s, gap $gap ns = its parts, trace $np lines identical in both, actions ran"

# ---- osnoise --on-threshold continue ----------------------------------------------
spin $CPU 4
t0=$(now)
"$LATSCOPE" osnoise top -c $CPU -d 2 -q -s 5 --on-threshold "shell,command=echo hit >> $TMP/hits" \
	--on-threshold continue >/dev/null 2>"$TMP/c.err"
rc=$?
dt=$(elapsed "$t0")
[ $rc -eq 1 ] || die "continue: exit $rc: $(cat "$TMP/c.err")"
awk -v d="$dt" 'BEGIN { exit !(d >= 2) }' || die "continue: stopped after ${dt}s, before -d 2"
[ -s "$TMP/hits" ] || die "continue: the action never ran"
[ ! -e osnoise_trace.data ] || die "continue: a trace nobody asked for"
echo "ok osnoise continue: ran ${dt}s, $(wc -l < "$TMP/hits") hits acted on"

# ---- hist record -a and -T --------------------------------------------------------
# a SCHED_FIFO 95 busy burst of 20 ms on CPU 0.5 s into the run, ends by itself: the
# timer threads (f:95 too) wait for it (a higher priority would drop the
# sample, by latency_hist's rules: wakeup/sharedprio files it)
# (once the run measures: its timer thread ls-timer/CPU exists; a loaded
# machine's set-up took more than the 1.5 s this waited before, and the
# burst came before the window: no hit, a 20 s run)
# Then again every 2 s until the run ends (at most 6 more): a fresh make
# check once saw the one burst miss the window (exit 0 after the whole
# 20 s, the set-up still going 0.5 s after ls-timer existed); the first
# burst inside the window stops the run, whichever it is.
burst() {
	rm -f "$TMP/burst.stop"
	(i=0; while ! ps -eLo comm= | grep -qx "ls-timer/$CPU" && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1)); done
	 sleep 0.5
	 n=0
	 while [ ! -e "$TMP/burst.stop" ] && [ $n -lt 7 ]; do
		chrt -f 95 taskset -c $CPU python3 -c "
import time
t = time.monotonic()
while time.monotonic() - t < 0.02: pass
print('burst %d at %.3f after %.1f s of waiting for ls-timer' % ($n, t, $i / 10))" >> "$TMP/bursts" 2>&1
		n=$((n + 1))
		sleep 2
	 done) &
}
command -v python3 >/dev/null && command -v chrt >/dev/null || skip "no python3 or chrt for the burst"
burst
t0=$(now)
"$LATSCOPE" hist record -c $CPU -d 20 --timer-workload -a 5ms --trace="$TMP/h.data" \
	--types wakeup,sharedprio,timer,timerandwakeup >"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
dt=$(elapsed "$t0")
: > "$TMP/burst.stop"
wait
[ $rc -eq 1 ] || die "hist -a: exit $rc after ${dt}s: $(tail -3 "$TMP/h.err" | tr "\n" " "); bursts: $(tr "\n" ";" < "$TMP/bursts")"
awk -v d="$dt" 'BEGIN { exit !(d < 15) }' || die "hist -a did not stop at once: ${dt}s ($(tail -1 "$TMP/bursts"); latscope said: $(tail -3 "$TMP/h.err" | tr '\n' ' '))"
grep -q "exceeds the threshold 5000 us: stopping now" "$TMP/h.err" || die "hist -a: no stop line: $(cat "$TMP/h.err")"
lat=$(sed -n "s/^latscope hist auto-analysis: [a-z/]* latency of \([0-9]*\) ns .*/\1/p" "$TMP/h.out")
[ -n "$lat" ] && [ "$lat" -gt 5000000 ] || die "hist -a: no analysis above 5 ms: $(tail -20 "$TMP/h.out")"
msg=$(sum_check "$TMP/h.out" "hist -a") || die "$msg"
total=$(awk '$1 == "total" && / ns / { for (i = 1; i <= NF; i++) if ($i == "ns") print $(i - 1) }' "$TMP/h.out")
[ "$total" = "$lat" ] || die "hist -a: total $total ns is not the sample $lat ns"
perf script -i "$TMP/h.data" >"$TMP/h.perf" 2>/dev/null
"$LATSCOPE" script -i "$TMP/h.data" >"$TMP/h.ls" 2>/dev/null
np=$(wc -l < "$TMP/h.perf"); nl=$(wc -l < "$TMP/h.ls")
[ "$np" -gt 0 ] && [ "$np" -eq "$nl" ] || die "hist trace: perf script $np lines, latscope script $nl"
cmp -s "$TMP/h.perf" "$TMP/h.ls" || die "hist trace: perf script and latscope script differ: $(diff "$TMP/h.perf" "$TMP/h.ls" | head -4)"
echo "ok hist -a: stopped after ${dt}s at $lat ns = its parts, trace $np lines identical in both"

burst
t0=$(now)
"$LATSCOPE" hist record -c $CPU -d 20 --timer-workload -T 5ms -q --types wakeup,sharedprio \
	--on-threshold "shell,command=echo \$LATSCOPE_LATENCY_NS > $TMP/hlat" >/dev/null 2>"$TMP/t.err"
rc=$?
dt=$(elapsed "$t0")
: > "$TMP/burst.stop"
wait
[ $rc -eq 1 ] || die "hist -T: exit $rc: $(cat "$TMP/t.err")"
awk -v d="$dt" 'BEGIN { exit !(d < 15) }' || die "hist -T did not stop at once: ${dt}s ($(tail -1 "$TMP/bursts"); latscope said: $(tail -3 "$TMP/t.err" | tr '\n' ' '))"
[ "$(cat "$TMP/hlat")" -gt 5000000 ] || die "hist -T: the action saw LATSCOPE_LATENCY_NS=$(cat "$TMP/hlat")"
echo "ok hist -T: stopped after ${dt}s, the action saw $(cat "$TMP/hlat") ns"

# ---- -P d:100us:1ms -----------------------------------------------------------------
"$LATSCOPE" osnoise top -c $CPU -d 2 -q -P d:100us:1ms >/dev/null 2>"$TMP/d.err" &
pid=$!
sleep 1
policies=$(for f in /proc/$pid/task/*/sched; do
	grep -q "ls-osnoise" "$f" 2>/dev/null && awk '$1 == "policy" { print $3 }' "$f"; done)
wait $pid
rc=$?
if [ $rc -eq 2 ]; then
	grep -q "SCHED_DEADLINE.*exclusive cpuset partition" "$TMP/d.err" || die "-P d: exit 2 without the reason: $(cat "$TMP/d.err")"
	echo "ok -P d:100us:1ms: refused by this kernel for pinned threads, said: exit 2"
else
	[ $rc -eq 0 ] || die "-P d: exit $rc: $(cat "$TMP/d.err")"
	[ -n "$policies" ] && ! echo "$policies" | grep -qv '^6$' || die "-P d: policies '$policies' (want 6)"
	echo "ok -P d:100us:1ms: the workload threads are SCHED_DEADLINE"
fi

# ---- --dma-latency (osnoise as hist) ------------------------------------------------------
# the PM QoS request is held while the run measures (reading
# /dev/cpu_dma_latency gives the current target, 2000000000 us when nobody
# asks) and given back at the end
if [ -r /dev/cpu_dma_latency ] && [ "$(od -An -tu4 /dev/cpu_dma_latency | tr -d ' ')" != 0 ]; then
	before=$(od -An -tu4 /dev/cpu_dma_latency | tr -d ' ')
	"$LATSCOPE" osnoise top -c $CPU -d 3 -q --dma-latency 0 >/dev/null 2>"$TMP/dma.err" &
	dp=$!
	held=
	for i in $(seq 1 30); do
		sleep 0.1
		[ "$(od -An -tu4 /dev/cpu_dma_latency | tr -d ' ')" = 0 ] && { held=1; break; }
	done
	ls -l /proc/$dp/fd 2>/dev/null | grep -q cpu_dma_latency || held=
	wait $dp || die "osnoise --dma-latency 0: exit $?: $(cat "$TMP/dma.err")"
	[ -n "$held" ] || die "osnoise --dma-latency 0: /dev/cpu_dma_latency not held at 0 while it ran"
	after=$(od -An -tu4 /dev/cpu_dma_latency | tr -d ' ')
	[ "$after" = "$before" ] || die "osnoise --dma-latency 0: the target is $after after the run, $before before"
	echo "ok osnoise --dma-latency 0: the target was 0 us while it ran (its fd open), $after us again after"
else
	echo "note: /dev/cpu_dma_latency not readable or already held at 0: --dma-latency not checked"
fi

# ---- malformed actions ----------------------------------------------------------------
bad() {	# WANT-TEXT ARGS...
	want=$1; shift
	"$LATSCOPE" "$@" >/dev/null 2>"$TMP/bad.err"; rc=$?
	[ $rc -eq 2 ] || die "$*: exit $rc"
	[ "$(wc -l < "$TMP/bad.err")" -eq 1 ] || die "$*: not one line: $(cat "$TMP/bad.err")"
	grep -q -- "$want" "$TMP/bad.err" || die "$*: '$(cat "$TMP/bad.err")' lacks '$want'"
}
bad "signal needs pid=P" osnoise top -s 5 --on-threshold signal,num=10
bad "unknown action 'reboot'" osnoise top -s 5 --on-threshold reboot
bad "shell needs command=CMD" hist record -T 1ms --on-end shell
bad "continue is an action of --on-threshold only" hist record --on-end continue
bad "needs a threshold" osnoise top --on-threshold trace
bad "needs a threshold" hist record --on-threshold trace
bad "one trace file per run" osnoise top -s 5 -ta.data --on-threshold trace,file=b.data
bad "record writes every event" osnoise record -t
bad "only the perf backend reads" hist record -a 5ms --backend bpf
bad "d:RUNTIME:PERIOD" osnoise top -P d:1ms:100us
echo "ok malformed actions refused"
