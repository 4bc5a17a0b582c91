#!/bin/sh
# SPDX-License-Identifier: MIT
# The bpf backend of `latscope hist` on Debian's 6.1 kernels (issue 19).
#
# The BPF object is built on the host (6.18) against a vmlinux.h dumped
# from the host's BTF; here libbpf's CO-RE relocates it against the 6.1
# kernel's /sys/kernel/btf/vmlinux.
#
# 1. `hist record --backend bpf --timer-workload` loads every program (the
#    timer ones included: stderr must not say a program was refused) and
#    fills wakeup, missed_timer_offsets and timerandwakeup; then the same
#    workload under `--backend perf` in the same boot.  The host check
#    (tests/kernels/host/bpf_hist.sh) compares the two JSONs with the
#    tolerance tests/e2e/hist_backend.sh derives (tests/hist_backend_lib.sh).
# 2. Clean stops: bpftool's lists of programs, maps and links and every
#    event's trigger file are as before the run after a normal end, after
#    SIGINT and after SIGTERM of the bpf backend, and after SIGINT of the
#    perf backend (the kernel frees closed programs and maps after an RCU
#    grace period: up to 10 s are allowed); while the bpf backend of those
#    runs measures, its programs (bpfhist_*) are listed, and no keep-busy
#    spinner runs.  (Not watched during step 1's runs: see there.)
# needs: file:/sys/kernel/btf/vmlinux cmd:bpftool
# timeout: 300
. "$KTEST_DIR/guest/lib.sh"
# --interval 4ms: under TCG a 1 ms cycle often overruns the next expiry
# (the thread still running when its timer fires: no wakeup to file)
WL="--timer-workload --interval 4ms -d 8"

# state: what of BPF and triggers the kernel holds (ids are never reused)
state() {
	for o in prog map link; do
		bpftool $o list 2>&1 | grep -E '^[0-9]+:' | sed "s/^/$o /"
	done
	grep -H -v '^#' "$TRACEFS"/events/*/*/trigger 2>/dev/null
}
# back_to_before WHAT: the state returns to $ART/state.0 within 10 s
back_to_before() {
	n=0
	while state > "$ART/state.now"; ! cmp -s "$ART/state.0" "$ART/state.now"; do
		n=$((n + 1))
		[ $n -lt 50 ] || die "after $1, left behind: $(diff "$ART/state.0" "$ART/state.now" | grep '^[+-][a-z/]')"
		sleep 0.2
	done
	echo "after $1: no program, map, link or trigger left"
}
# rtsw: "PID CPU NVCSW" for every SCHED_FIFO/RR task but latscope's own
# (policy 1 or 2 in /proc/PID/stat; CPU = the one CPU it may run on, or
# "any"; NVCSW = its voluntary context switches so far)
rtsw() {
	for d in /proc/[0-9]*; do
		st=$(cat $d/stat 2>/dev/null) || continue
		set -- ${st##*) }
		[ "${39}" = 1 ] || [ "${39}" = 2 ] || continue
		case $(cat $d/comm 2>/dev/null) in latscope*) continue;; esac
		c=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' $d/status 2>/dev/null)
		case $c in *[-,]*|"") c=any;; esac
		echo "${d#/proc/} $c $(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' $d/status)"
	done
}
# others NAME: "CPU N" a line: the sleeps (voluntary switches) of the other
# RT tasks since rtsw > $ART/rtsw.0, those free to run on any CPU counted
# on every CPU.  Each wakeup of such a task during the run follows one of
# them, so it bounds the samples of other victims a CPU can file.
others() {
	rtsw > "$ART/rtsw.1"
	awk 'NR == FNR { a[$1] = $3; next }
	     { d = $3 - ($1 in a ? a[$1] : 0); if (d < 0) d = 0
	       if ($2 == "any") any += d; else n[$2] += d }
	     END { for (c = 0; c < '"$(nproc)"'; c++) print c, n[c] + any }' "$ART/rtsw.0" "$ART/rtsw.1" > "$ART/others.$1"
}
# spinners PID: the keep-busy threads of process PID
spinners() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^latscope-busy$'; }

state > "$ART/state.0"
# for the host check: PREEMPT_RT or not (the kernel's config: 7.2's
# mainline PREEMPT_RT has no /sys/kernel/realtime)
if kt_has config:PREEMPT_RT > /dev/null; then echo 1; else echo 0; fi > "$ART/realtime"
echo "before: $(grep -c '^prog' "$ART/state.0") programs, $(grep -c '^map' "$ART/state.0") maps, $(grep -c '^link' "$ART/state.0") links, $(grep -vc '^[a-z]* [0-9]' "$ART/state.0") trigger lines"

# ---- 1. bpf, then perf, same workload ---------------------------------------
# Nothing else runs during these two measured runs: an observer polling
# bpftool, cat and grep every 0.5 s during one of them only (as this test
# did) makes the kernel wake its SCHED_FIFO threads (rcuc/N, ktimers/N on
# PREEMPT_RT) from timer callbacks hundreds of times more in that run, and
# both backends file those wakeups (issue 19; docs/hist.md, "Backends").
# What was watched here (our programs listed, no spinner) is watched in the
# runs stopped by a signal (section 2).
rtsw > "$ART/rtsw.0"
$LATSCOPE hist record --backend bpf $WL --json -O "$ART/bpf.tree" > "$ART/bpf.json" 2> "$ART/bpf.err"
rc=$?
others bpf
cat "$ART/bpf.err"
[ $rc -eq 0 ] || die "--backend bpf exited $rc: $(tail -3 "$ART/bpf.err")"
grep -Eq 'refused|not measured' "$ART/bpf.err" && die "a BPF program was refused: $(cat "$ART/bpf.err")"
grep -q '"backend":"bpf"' "$ART/bpf.json" || die "the bpf run's input.backend is not bpf"
back_to_before "the bpf run's end"

rtsw > "$ART/rtsw.0"
$LATSCOPE hist record --backend perf $WL --json > "$ART/perf.json" 2> "$ART/perf.err"
rc=$?
others perf
cat "$ART/perf.err"
[ $rc -eq 0 ] || die "--backend perf exited $rc: $(tail -3 "$ART/perf.err")"
grep -q '"backend":"perf"' "$ART/perf.json" || die "the perf run's input.backend is not perf"

# ---- 2. stopped by a signal -------------------------------------------------
# stop BACKEND SIG: a run stopped by SIG once it measures; exit 0, the summary
stop() {
	$LATSCOPE hist record --backend $1 --timer-workload -d 120 > "$ART/stop.$1.$2.txt" 2> "$ART/stop.$1.$2.err" &
	sp=$!
	kt_measuring $sp "$ART/stop.$1.$2.txt" "$ART/stop.$1.$2.err" "$1" 60
	if [ "$1" = bpf ]; then
		seen=$(bpftool prog list | grep -c 'name bpfhist_')
		[ "$seen" -gt 0 ] || die "$1: no bpfhist_ program loaded while it measured"
		b=$(spinners $sp)
		[ "$b" -eq 0 ] || die "--backend bpf started $b keep-busy spinners"
		echo "bpf (SIG$2 run): $seen programs listed while it measured, no spinner"
	fi
	sleep 1
	kill -$2 $sp
	wait $sp
	rc=$?
	[ $rc -eq 0 ] || die "$1 stopped by SIG$2 exited $rc: $(tail -3 "$ART/stop.$1.$2.err")"
	grep -q '^tracking:' "$ART/stop.$1.$2.txt" || die "$1 stopped by SIG$2 printed no summary"
	back_to_before "SIG$2 of --backend $1"
}
stop bpf INT
stop bpf TERM
stop perf INT
echo "$KERNEL: bpf and perf runs done, every stop clean"
