#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor --noise: the OS-noise counters at a duty cycle
# (lib/engine/noisemon.c; docs/monitor.md).
#  1. The duty cycle: --noise 20ms/100ms on CPU 1 for a few seconds: the
#     periods counted are those that ended (about 10 a second), each with
#     its 20 ms of busy loop (runtime_seconds_total / periods within 10 % of
#     20 ms, above it by up to the periods' noise more: a loop preempted
#     near its end ends late), and the process's CPU time is about a fifth of one CPU
#     (the loop's share; at most 30 %).
#  2. Ground truth, as tests/e2e/osnoise_thread.sh: a SCHED_FIFO thread
#     (tests/tools/noisegen) wakes every 10 ms on CPU 1 and spins 200 us,
#     inside a run at --noise 1s/1s (the loop always on): the thread class
#     counts at least its wake-ups (less 2: one at a period's boundary is in
#     neither period) and at least 95 % of its spin time (other threads may
#     add theirs), never more time than the loop ran.
#  3. SIGHUP puts the noise counters back to zero too.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (BPF, SCHED_FIFO)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
command -v curl >/dev/null || skip "needs curl"
mpid=""
trap 'kill $mpid 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
scrape() { curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" > "$1" || die "scrape failed"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# noise_start ARGS...: the monitor with --noise ARGS on CPU 1; skips where
# the osnoise bpf backend cannot run
noise_start() {
	monitor_start "$TMP/mon" --listen 127.0.0.1:0 --refresh 200ms -c 1 --noise "$@"
	n=0
	until grep -q 'noise counters: a busy loop' "$TMP/mon.err"; do
		if ! kill -0 $mpid 2>/dev/null; then
			grep -q 'need the osnoise bpf backend' "$TMP/mon.err" && skip "$(tail -1 "$TMP/mon.err")"
			die "the monitor ended: $(cat "$TMP/mon.err")"
		fi
		n=$((n + 1)); [ $n -lt 100 ] || die "no noise counters after 10 s: $(cat "$TMP/mon.err")"
		sleep 0.1
	done
}
stop() {
	kill -TERM $mpid; wait $mpid; rc=$?; mpid=""
	[ $rc = 0 ] || die "exit $rc after SIGTERM: $(tail -3 "$TMP/mon.err")"
}

# ---- 1. the duty cycle ----
noise_start 20ms/100ms
sleep 1
scrape "$TMP/a"
t0=$(cpu_ticks $mpid)
p0=$(prom_val "$TMP/a" 'latscope_noise_periods_total{cpu="1"}')
sleep 4
scrape "$TMP/b"
t1=$(cpu_ticks $mpid)
stop
grep -q '^# TYPE latscope_noise_class_seconds_total counter' "$TMP/b" || die "no noise families: $(grep noise "$TMP/b" | head -3)"
per=$(prom_val "$TMP/b" 'latscope_noise_periods_total{cpu="1"}')
rt=$(prom_val "$TMP/b" 'latscope_noise_runtime_seconds_total{cpu="1"}')
[ "$per" != none ] && [ "$per" -gt 0 ] || die "no finished period on CPU 1: $(grep '^latscope_noise' "$TMP/b" | head -5)"
# the noise the periods measured (every class): a loop taken off its CPU
# near its 20 ms ends late by that much (other work on CPU 1 is noise, and
# the test must pass beside it), so the bound above 20 ms adds the noise
nz=$(awk '/^latscope_noise_class_seconds_total\{cpu="1",/ { s += $2 } END { print s + 0 }' "$TMP/b")
awk -v p="$per" -v p0="$p0" -v r="$rt" -v t0="$t0" -v t1="$t1" -v nz="$nz" -v hz="$(getconf CLK_TCK)" 'BEGIN {
	each = r / p; rate = (p - p0) / 4; share = (t1 - t0) / hz / 4
	printf "duty 20ms/100ms: %d periods (%.1f a second), %.2f ms of loop each (%.2f ms of it noise), the process %.1f %% of a CPU\n", p, rate, each * 1000, nz / p * 1000, share * 100
	if (each < 0.018 || each > 0.022 + nz / p) { print "FAIL: runtime per period is not 20 ms (plus its noise)"; exit 1 }
	if (rate < 8 || rate > 11) { print "FAIL: not about 10 periods a second"; exit 1 }
	if (share > 0.30) { print "FAIL: the loop took more than its duty"; exit 1 }
}' > "$TMP/duty" || die "$(cat "$TMP/duty")"
cat "$TMP/duty"

# ---- 2. ground truth, 3. SIGHUP ----
noise_start 1s/1s
# one whole period before noisegen, one after: its run lies in finished periods
sleep 1.5
# (started on CPU 0: its exec and start-up are not the noise measured)
taskset -c 0 "$TOOLS/noisegen" thread -c 1 -i 10000 -s 200 -d 3 > "$TMP/ng" || die "noisegen failed"
sleep 2.5
scrape "$TMP/c"
wakes=$(sed -n 's/.*wakes=\([0-9]*\).*/\1/p' "$TMP/ng")
inj=$(sed -n 's/.*spin_total_ns=\([0-9]*\).*/\1/p' "$TMP/ng")
[ -n "$wakes" ] && [ "$wakes" -gt 200 ] || die "noisegen did not run: $(cat "$TMP/ng")"
ev=$(prom_val "$TMP/c" 'latscope_noise_class_events_total{cpu="1",class="thread"}')
ts=$(prom_val "$TMP/c" 'latscope_noise_class_seconds_total{cpu="1",class="thread"}')
rt=$(prom_val "$TMP/c" 'latscope_noise_runtime_seconds_total{cpu="1"}')
echo "noisegen: $wakes wake-ups, $inj ns spun; monitor: thread $ev entries, $ts s, loop $rt s"
# a wake-up in the instant between two periods (the loop files one and
# starts the next) belongs to neither: 2 of them allowed
[ "$ev" != none ] && [ "$ev" -ge $((wakes - 2)) ] || die "thread entries $ev < noisegen's $wakes wake-ups (less 2)"
awk -v t="$ts" -v i="$inj" -v r="$rt" 'BEGIN { exit !(t * 1e9 >= 0.95 * i && t <= r) }' ||
	die "thread time $ts s is not between 95 % of noisegen's $inj ns and the loop's $rt s"
kill -HUP $mpid
sleep 0.5
scrape "$TMP/d"
[ "$(prom_val "$TMP/d" latscope_resets_total)" = 1 ] || die "no reset"
after=$(prom_val "$TMP/d" 'latscope_noise_class_events_total{cpu="1",class="thread"}')
[ "$after" -lt "$wakes" ] || die "SIGHUP left $after thread entries (of $ev)"
stop
echo "SIGHUP: thread entries back to $after"

