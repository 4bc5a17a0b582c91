#!/bin/sh
# SPDX-License-Identifier: MIT
# osnoise --backend: the same known noise measured under --backend perf and
# --backend bpf, auto's fallback line when BPF is refused
# (LATSCOPE_NO_BPF=1), bpf's refusals, and nothing of ours left in the kernel
# after a bpf run, one stopped by Ctrl-C or aborted by a second one (bpftool
# prog/map list: names osnbpf_*; a link holds its program).
#
# The known noise (as in osnoise_thread.sh and osnoise_irq.sh, both at once):
# during an 8 s measurement of CPU 1, for 3 s, `noisegen thread` (SCHED_FIFO
# 50, wakes every 10 ms, spins 200 us) and `noisegen timer` (a cpu-clock perf
# event at 2 kHz on CPU 1: local timer interrupts, no task woken).
#
# The two runs are sequential, so the machine's other load differs between
# them: each backend is checked against its own run's ground truth, and the
# agreement between them is stated on values normalised by that truth.
# Per run b:
#   t_b = noisegen's THREAD net time / its own spin time (noisegen's clock).
#         Truth: at least 0.9 (the net time leaves out the interrupts nested
#         in the spin, which the 2 kHz timer makes ~2-3 % of it here; 10 %
#         is osnoise_thread.sh's allowance), at most the kernel's run time of
#         the thread (schedstat, from before its move onto CPU 1 to after its
#         move away) / spin, + 1 %, + noisegen's hidden_ns / spin: the wall
#         time of its spins that its CPU time does not count (the
#         hypervisor's steal: in the thread's noise, not in the kernel's run
#         time; a loaded run had 74.8 ms of noise for 72.1 ms run).
#   r_b = the same net time / (the kernel's run time + hidden): what the
#         thread took from the CPU, by the kernel's account and noisegen's,
#         measured in the same run.  The spin alone differs from run to run
#         by more than the backends do (60.1 vs 66.7 ms spun for 300
#         wake-ups: a stop of the vCPU at a spin's end stretches it; the
#         switch and system-call paths grow with the load), so the two
#         sequential runs are compared on r.
#         Agreement: |r_bpf - r_perf| <= 0.10.  Both backends time the same
#         two sched_switch tracepoints of each wake-up with the same clock
#         (CLOCK_MONOTONIC: perf's sample stamps, bpf_ktime_get_ns); what
#         differs is only what each takes out as nested interrupt time (perf
#         makes every interrupt longer by the samples it writes), at most the
#         0.10 the lower bound allows.  Seen (2026-11-29, 8 runs idle, beside
#         two busy loops or a compile loop): r perf 0.824-0.945, bpf
#         0.875-0.931, |r_bpf - r_perf| 0.001-0.059, while |t_bpf - t_perf|
#         reached 0.178 (a perf run whose thread ran 94 ms for 66 ms spun)
#         and failed the old check on t twice (0.105, 0.138).
#   d_b = noisegen's THREAD entries - the kernel's switch-ins of it over its
#         loop (schedstat).  Truth: 1..3 (its arrival on CPU 1, and up to 2
#         preemptions around its arrival and departure; osnoise_thread.sh).
#         Agreement: |d_bpf - d_perf| <= 2, the width of that range.  Seen:
#         d = 1 under both, every run.
#   f_b = local_timer entries / the kernel's LOC count of CPU 1 from before
#         latscope starts to after it exits.  Truth: at most 1 (the window
#         holds the measurement), at least 0.9 x LOC over the 3 s injection
#         (which lies inside the measurement) / that count.  Agreement:
#         |f_bpf - f_perf| <= the larger of the two runs' interval widths
#         (1 - that lower bound): two runs both right by the kernel's count
#         can differ by as much.  Seen: perf 0.908-0.969 (its set-up, the
#         rings, takes longer: more of latscope's life is outside the
#         measurement), bpf 0.995-0.998; |f_bpf - f_perf| 0.028-0.087, the
#         tolerance 0.270-0.428.
# A bpf run that skipped program runs (recursion_misses) must name them on
# stderr; its programs' own run count must equal the kernel's run_cnt.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (BPF, tracepoints, SCHED_FIFO, perf cpu-clock)"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs (one measured, one for the collector)"
J=$TOOLS/osnjson
CPU=1
ours() { bpf_ours osnbpf_; }
our_links() { bpf_our_links osnbpf_; }
loc() { awk -v c=$((CPU + 2)) '$1 == "LOC:" { print $c }' /proc/interrupts; }
gone() { bpf_gone osnbpf_; }
[ -x "$BPFTOOL" ] || skip "no bpftool to list the kernel's programs"
gone || skip "osnbpf programs already loaded (another latscope running?)"

# -- the fallback: BPF refused -> the kernel tracer where there is one, else perf; one line
LATSCOPE_NO_BPF=1 "$LATSCOPE" osnoise top --backend auto -c $CPU -H 0 -d 1 --json >"$TMP/fb.json" 2>"$TMP/fb.err" ||
	die "auto with LATSCOPE_NO_BPF=1 failed: $(cat "$TMP/fb.err")"
[ "$(grep -c '^latscope osnoise top: backend ' "$TMP/fb.err")" -eq 1 ] || die "not one backend line: $(cat "$TMP/fb.err")"
if [ -d /sys/kernel/tracing/osnoise ]; then
	grep -q '^latscope osnoise top: backend kernel (bpf refused: LATSCOPE_NO_BPF=1; ' "$TMP/fb.err" ||
		die "fallback line: $(grep backend "$TMP/fb.err")"
	[ "$($J "$TMP/fb.json" backend)" = kernel ] || die "the fallback run is not kernel"
else
	grep -qx 'latscope osnoise top: backend perf (bpf refused: LATSCOPE_NO_BPF=1; kernel osnoise tracer refused: the kernel has no osnoise tracer (no osnoise/ in tracefs; CONFIG_OSNOISE_TRACER))' \
		"$TMP/fb.err" || die "fallback line: $(grep backend "$TMP/fb.err")"
	[ "$($J "$TMP/fb.json" backend)" = perf ] || die "the fallback run is not perf"
fi
echo "fallback: $(grep backend "$TMP/fb.err")"
# -- refusals: an explicit bpf that cannot run is an error (2), naming who can
LATSCOPE_NO_BPF=1 "$LATSCOPE" osnoise top --backend bpf -c $CPU -d 1 >/dev/null 2>"$TMP/nb.err"
[ $? -eq 2 ] || die "--backend bpf ran although LATSCOPE_NO_BPF=1"
grep -qx 'latscope osnoise top: --backend bpf refused: LATSCOPE_NO_BPF=1' "$TMP/nb.err" || die "bpf refusal: $(cat "$TMP/nb.err")"
"$LATSCOPE" osnoise trace --events --backend bpf -c $CPU -d 1 >/dev/null 2>"$TMP/ev.err"
[ $? -eq 2 ] || die "trace --events --backend bpf ran"
grep -q 'cannot print each noise event (trace --events).*; use --backend perf or kernel$' "$TMP/ev.err" ||
	die "--events refusal: $(cat "$TMP/ev.err")"
"$LATSCOPE" osnoise record --backend bpf -c $CPU -d 1 -o "$TMP/x.data" >/dev/null 2>"$TMP/rec.err"
[ $? -eq 2 ] || die "record --backend bpf ran"
grep -q 'cannot record (osnoise record).*; use --backend perf$' "$TMP/rec.err" || die "record refusal: $(cat "$TMP/rec.err")"
[ ! -e "$TMP/x.data" ] || die "record --backend bpf wrote a file"

# -- the known noise under one backend: run NAME BACKEND
run() {
	name=$1 b=$2
	life0=$(loc)
	# (LATSCOPE_BPF_STATS=1: the kernel counts the programs' runs, off by
	# default, for the run_cnt cross-check below)
	LATSCOPE_BPF_STATS=1 "$LATSCOPE" osnoise top --backend "$b" -c $CPU -H 0 -d 8 --top 256 --json >"$TMP/$name.json" 2>"$TMP/$name.err" &
	pid=$!
	n=0
	until grep -qx "ls-osnoise/$CPU" /proc/$pid/task/*/comm 2>/dev/null; do
		if ! kill -0 $pid 2>/dev/null; then
			bpf_skip_if_refused "$TMP/$name.err"
			die "$name: latscope ended before measuring: $(cat "$TMP/$name.err")"
		fi
		n=$((n + 1)); [ $n -lt 300 ] || die "$name: no ls-osnoise/$CPU thread after 30 s"
		sleep 0.1
	done
	sleep 0.2	# past the first period's set-up
	[ "$b" = bpf ] && { loaded=$(ours); links=$(our_links); }
	l0=$(loc)
	"$TOOLS/noisegen" timer -c $CPU -f 2000 -d 3 >"$TMP/$name.timer" &
	tp=$!
	# (started on CPU 0: its exec and start-up off the measured CPU, where
	# they would be entries of its tid outside the switch-ins counted)
	taskset -c 0 "$TOOLS/noisegen" thread -c $CPU -i 10000 -s 200 -d 3 >"$TMP/$name.ng" || die "$name: noisegen thread failed"
	wait $tp || skip "cannot create a cpu-clock event: $(cat "$TMP/$name.timer")"
	l1=$(loc)
	kill -0 $pid 2>/dev/null || die "$name: the measurement ended before the injection did"
	wait $pid || die "$name: latscope failed: $(cat "$TMP/$name.err")"
	life1=$(loc)
	[ "$($J "$TMP/$name.json" backend)" = "$b" ] || die "$name: JSON backend is not $b"
	[ "$($J "$TMP/$name.json" attribution)" = true ] || skip "no attribution under $b: $($J "$TMP/$name.json" attribution_off)"
	ng=$(cat "$TMP/$name.ng")
	tid=$(echo "$ng" | sed -n 's/.*tid=\([0-9]*\).*/\1/p')
	inj=$(echo "$ng" | sed -n 's/.*spin_total_ns=\([0-9]*\).*/\1/p')
	wakes=$(echo "$ng" | sed -n 's/.*wakes=\([0-9]*\).*/\1/p')
	srun=$(echo "$ng" | sed -n 's/.*stay_run_ns=\([0-9]*\).*/\1/p')
	hid=$(echo "$ng" | sed -n 's/.*hidden_ns=\([0-9]*\).*/\1/p')
	sw=$(echo "$ng" | sed -n 's/.* switched_in=\([0-9]*\).*/\1/p')
	[ "${sw:-0}" -gt 0 ] || sw=$wakes
	[ "${srun:-0}" -gt 0 ] || srun=$((inj * 110 / 100))
	[ -n "$tid" ] && [ "$wakes" -gt 200 ] || die "$name: noisegen did not run: $ng"
	cls=$($J "$TMP/$name.json" "cpus.0.top[id=$tid].class") || {
		[ -z "${ART:-}" ] || cp "$TMP/$name.json" "$TMP/$name.err" "$TMP/$name.ng" "$ART/"
		# what the run saw instead (seen once in a make check on a loaded
		# machine, never idle: the next failure says why)
		echo "noisegen: $ng"
		echo "latscope's stderr: $(tail -5 "$TMP/$name.err")"
		python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
c = d["cpus"][0]
print("CPU%s: noise %s ns, thread %s ns, events_lost %s, dropped %s, anomalies %s" % (c.get("cpu"), c.get("noise_ns"),
      c.get("thread_ns"), d.get("events_lost"), d.get("dropped"), d.get("anomalies")))
for t in c.get("top", [])[:8]:
    print("  top: %s %s:%s count %s total %s ns" % (t["class"], t["name"], t["id"], t["count"], t["total_ns"]))' \
			"$TMP/$name.json" 2>&1 | head -12
		die "$name: noisegen ($tid) not among the contributors (table: $($J "$TMP/$name.json" anomalies.contrib_overflow) entries not kept, $($J "$TMP/$name.json" anomalies.contrib_evicted) contributors evicted)"
	}
	[ "$cls" = thread ] || die "$name: noisegen attributed to $cls"
	tot=$($J "$TMP/$name.json" "cpus.0.top[id=$tid].total_ns")
	cnt=$($J "$TMP/$name.json" "cpus.0.top[id=$tid].count")
	uns=$($J "$TMP/$name.json" "cpus.0.top[id=$tid].unseen_starts")
	lt=$($J "$TMP/$name.json" "cpus.0.top[name=local_timer].count") || die "$name: no local_timer contributor"
	irq=$($J "$TMP/$name.json" cpus.0.irq)
	inj_loc=$((l1 - l0)) life_loc=$((life1 - life0))
	# the normalised values, in thousandths
	t=$((tot * 1000 / inj)) d=$((cnt - sw)) f=$((lt * 1000 / life_loc))
	# (the hypervisor's time in the thread's windows is in its noise, not in
	# the kernel's run time of it: noisegen's hidden_ns, spin by spin)
	t_lo=$(( (inj - uns * (inj / wakes)) * 900 / inj )) t_hi=$(( (srun * 1010 / 1000 + ${hid:-0}) * 1000 / inj ))
	# the noise against what the thread took from the CPU by the kernel's
	# account and noisegen's: run time + hidden (for the agreement)
	r=$((tot * 1000 / (srun + ${hid:-0})))
	f_lo=$((inj_loc * 900 / life_loc))
	echo "$b: noisegen $tot ns in $cnt entries ($uns untimed) for $inj ns spun in $wakes wake-ups," \
		"$sw switch-ins, kernel run time $srun ns, hidden ${hid:-0} ns -> t=$t/1000 [$t_lo, $t_hi], r=$r/1000, d=$d [1, 3];" \
		"local_timer $lt, LOC $inj_loc over the injection, $life_loc over latscope's life -> f=$f/1000 [$f_lo, 1000];" \
		"IRQ $irq, thread $($J "$TMP/$name.json" cpus.0.thread), HW $($J "$TMP/$name.json" cpus.0.hw) of $($J "$TMP/$name.json" cpus.0.gaps) gaps"
	[ "$t" -ge "$t_lo" ] && [ "$t" -le "$t_hi" ] || die "$b: thread time $t/1000 of the spin outside [$t_lo, $t_hi]"
	[ "$d" -ge 1 ] && [ "$d" -le 3 ] || die "$b: $cnt entries for $sw switch-ins (+1..3 expected)"
	[ "$f" -le 1000 ] && [ "$f" -ge "$f_lo" ] || die "$b: $lt local_timer entries: $f/1000 of LOC, outside [$f_lo, 1000]"
	[ "$irq" -ge "$lt" ] || die "$b: IRQ counter $irq below the $lt local_timer entries"
	eval "t_$b=$t r_$b=$r d_$b=$d f_$b=$f w_$b=$((1000 - f_lo))"
}
run perf perf
run bpf bpf
[ "${loaded:-0}" -gt 0 ] || die "no osnbpf program or map seen loaded during the bpf run"
[ -n "${links:-}" ] || die "no link to an osnbpf program seen during the bpf run"
# the programs' losses are named; their own run count is the kernel's
miss=$($J "$TMP/bpf.json" bpf.recursion_misses) || die "no bpf.recursion_misses in the JSON"
if [ "$miss" -gt 0 ]; then
	grep -q "$miss bpf program runs skipped by the kernel's recursion guard (osnbpf_" "$TMP/bpf.err" ||
		die "$miss recursion misses not named on stderr: $(cat "$TMP/bpf.err")"
	[ "$($J "$TMP/bpf.json" events_lost)" -eq "$miss" ] || die "events_lost is not the recursion misses"
fi
np=$($J "$TMP/bpf.json" bpf.programs.length) i=0 runs=0
while [ $i -lt "$np" ]; do
	c=$($J "$TMP/bpf.json" bpf.programs.$i.run_cnt)
	[ "$c" = null ] && break
	runs=$((runs + c)); i=$((i + 1))
done
[ "$c" != null ] || die "no run_cnt in the JSON although LATSCOPE_BPF_STATS=1"
[ "$runs" -eq "$($J "$TMP/bpf.json" bpf.program_runs)" ] ||
	die "the kernel counted $runs runs, the programs $($J "$TMP/bpf.json" bpf.program_runs)"
# -- agreement
adiff() { [ "$1" -ge "$2" ] && echo $(($1 - $2)) || echo $(($2 - $1)); }
fw=$w_perf; [ "$w_bpf" -gt "$fw" ] && fw=$w_bpf
echo "agreement: |r| $(adiff $r_bpf $r_perf)/1000 (<= 100), |d| $(adiff $d_bpf $d_perf) (<= 2), |f| $(adiff $f_bpf $f_perf)/1000 (<= $fw); |t| $(adiff $t_bpf $t_perf)/1000"
[ "$(adiff $r_bpf $r_perf)" -le 100 ] ||
	die "thread time: bpf $r_bpf/1000, perf $r_perf/1000 of the thread's run time and hidden time (of the spin: bpf $t_bpf/1000, perf $t_perf/1000)"
[ "$(adiff $d_bpf $d_perf)" -le 2 ] || die "thread entries: bpf +$d_bpf, perf +$d_perf over the switch-ins"
[ "$(adiff $f_bpf $f_perf)" -le "$fw" ] || die "local_timer: bpf $f_bpf/1000, perf $f_perf/1000 of LOC"
# -- clean stop
gone || die "osnbpf programs or maps left after the run: $({ "$BPFTOOL" prog list; "$BPFTOOL" map list; } | grep osnbpf_)"
# -- a Ctrl-C ends a bpf run cleanly (exit 0), a second one aborts it (130):
# nothing left either way (the kernel drops a dead process's programs)
for sigs in 1 2; do
	"$LATSCOPE" osnoise top --backend bpf -c $CPU -H 0 -d 30 -q >/dev/null 2>"$TMP/int.err" &
	pid=$!
	n=0
	until grep -qx "ls-osnoise/$CPU" /proc/$pid/task/*/comm 2>/dev/null; do
		kill -0 $pid 2>/dev/null || die "bpf run ended before measuring: $(cat "$TMP/int.err")"
		n=$((n + 1)); [ $n -lt 300 ] || die "no ls-osnoise/$CPU thread after 30 s"
		sleep 0.1
	done
	kill -INT $pid
	[ $sigs -eq 2 ] && sleep 0.02 && kill -INT $pid
	wait $pid; rc=$?
	want=0; [ $sigs -eq 2 ] && want=130
	# a second signal may land after the clean stop is done: 0 is fine then
	[ $rc -eq $want ] || [ $rc -eq 0 ] || die "$sigs SIGINT: exit $rc, not $want: $(cat "$TMP/int.err")"
	gone || die "osnbpf programs or maps left after $sigs SIGINT (exit $rc)"
	echo "$sigs SIGINT (20 ms apart): exit $rc, nothing left"
done
# -- auto where BPF loads: bpf, one line
"$LATSCOPE" osnoise top --backend auto -c $CPU -H 0 -d 1 -q >/dev/null 2>"$TMP/auto.err" || die "auto failed: $(cat "$TMP/auto.err")"
grep -qx 'latscope osnoise top: backend bpf (BPF programs count the interference in the kernel; the kernel osnoise tracer and perf rings not needed)' \
	"$TMP/auto.err" || die "auto line: $(cat "$TMP/auto.err")"
gone || die "osnbpf programs or maps left after the auto run"
echo "ok: perf and bpf agree on the injected noise; fallback line; refusals; nothing left loaded ($loaded programs and maps seen during the run)"
