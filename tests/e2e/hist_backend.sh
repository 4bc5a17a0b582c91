#!/bin/sh
# SPDX-License-Identifier: MIT
# hist record --backend: the bpf backend (BPF programs keep the histograms in
# the kernel) beside the perf backend on the same workload, auto's fallback
# line when BPF is refused (LATSCOPE_NO_BPF=1), bpf's refusals (-o), no
# keep-busy spinner under bpf, and nothing of ours left in the kernel
# (bpftool prog/map list; a link holds its program) after a run.
#
# The tolerance and the checks per CPU: tests/hist_backend_lib.sh (shared
# with the kernel tier's bpf_hist host check).
. "$TESTS_DIR/lib.sh"
. "$TESTS_DIR/hist_backend_lib.sh"
HC="$TOOLS/histcmp"
# a string field of the JSON (histcmp --get reads numbers)
backend() { tr -d ' \n' <"$1" | grep -o '"backend":"[a-z]*"' | cut -d'"' -f4; }
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
# ours: the programs' and maps' names all start with bpfhist_
ours() { bpf_ours bpfhist_; }
our_links() { bpf_our_links bpfhist_; }
[ "$(ours)" -eq 0 ] || skip "bpfhist programs already loaded (another latscope running?)"
# foreign RT workloads: user tasks (an exe) with SCHED_FIFO/RR, looked for
# before and after our runs (so none of them is ours).
# Their wakeups are RT wakeups both backends must file, and a higher-priority
# one takes a cycle's wakeup first: the bounds below assume none (a CI
# machine runs nothing else; a shared one may: then the check is skipped,
# naming them)
foreign_rt() {
	for d in /proc/[0-9]*; do
		[ -e "$d/exe" ] || continue
		st=$(cat "$d/stat" 2>/dev/null) || continue
		set -- ${st##*) }
		[ "${39}" = 1 ] || [ "${39}" = 2 ] || continue
		echo "$(cat "$d/comm" 2>/dev/null):${d#/proc/}"
	done | tr '\n' ' '
}

# the fallback: BPF refused -> perf, one line naming why
LATSCOPE_NO_BPF=1 "$LATSCOPE" hist record --backend auto -d 1 --no-keep-busy --json \
	>"$TMP/fb.json" 2>"$TMP/fb.err" || die "auto with LATSCOPE_NO_BPF=1 failed: $(cat "$TMP/fb.err")"
[ "$(grep -c '^latscope hist record: backend ' "$TMP/fb.err")" -eq 1 ] ||
	die "not one backend line: $(cat "$TMP/fb.err")"
# (the next in line is the kernel's hist triggers: perf where the kernel has
# none, as here, with the reason; kernel where it has them)
if [ -e /sys/kernel/tracing/synthetic_events ]; then
	grep -q '^latscope hist record: backend kernel (bpf refused: LATSCOPE_NO_BPF=1; ' "$TMP/fb.err" ||
		die "fallback line: $(grep backend "$TMP/fb.err")"
	[ "$(backend "$TMP/fb.json")" = kernel ] || die "the fallback run is not kernel"
else
	grep -q '^latscope hist record: backend perf (bpf refused: LATSCOPE_NO_BPF=1; kernel hist triggers refused: the kernel has no synthetic events (needs CONFIG_HIST_TRIGGERS; .*))$' \
		"$TMP/fb.err" || die "fallback line: $(grep backend "$TMP/fb.err")"
	[ "$(backend "$TMP/fb.json")" = perf ] || die "the fallback run is not perf"
fi
# explicit bpf refused: an error, not a fallback
LATSCOPE_NO_BPF=1 "$LATSCOPE" hist record --backend bpf -d 1 >/dev/null 2>"$TMP/nb.err" &&
	die "--backend bpf ran although LATSCOPE_NO_BPF=1"
grep -q 'backend bpf refused: LATSCOPE_NO_BPF=1' "$TMP/nb.err" || die "bpf refusal: $(cat "$TMP/nb.err")"
"$LATSCOPE" hist record --backend bpf -o "$TMP/x.data" -d 1 >/dev/null 2>"$TMP/o.err" &&
	die "--backend bpf -o ran"
grep -q 'cannot record the events (-o)' "$TMP/o.err" || die "-o refusal: $(cat "$TMP/o.err")"

f0=$(foreign_rt)
# LATSCOPE_BPF_STATS=1: the kernel counts the programs' runs (run_cnt; off by
# default: two clock reads a run) for the cross-check below
LATSCOPE_BPF_STATS=1 "$LATSCOPE" hist record --backend bpf -t -d 3 --json -O "$TMP/tree" >"$TMP/bpf.json" 2>"$TMP/bpf.err" &
pid=$!
# while it runs: the programs are there, the spinners are not
n=0
while [ -z "$(our_links)" ] && [ $n -lt 50 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
loaded=$(ours)
links=$(our_links)
busy=$(ps -L -o comm= -p $pid 2>/dev/null | grep -c latscope-busy)
wait $pid
rc=$?
if [ $rc -ne 0 ]; then
	grep -q 'built without the bpf backend' "$TMP/bpf.err" && skip "$(cat "$TMP/bpf.err")"
	grep -qi 'refused' "$TMP/bpf.err" && skip "this kernel refuses BPF: $(cat "$TMP/bpf.err")"
	die "--backend bpf failed ($rc): $(cat "$TMP/bpf.err")"
fi
[ "$loaded" -gt 0 ] || die "no bpfhist program seen loaded during the bpf run"
[ -n "$links" ] || die "no link to a bpfhist program seen during the bpf run"
[ "$busy" -eq 0 ] || die "--backend bpf started $busy keep-busy spinners"
[ "$(backend "$TMP/bpf.json")" = bpf ] || die "input.backend is not bpf"
[ "$("$HC" --get "$TMP/bpf.json" input.keep_busy.enabled)" = 0 ] || die "keep-busy on under bpf"
# the kernel's counts of each program (bpf_prog_info): every run the kernel
# skipped (recursion_misses) is a loss, named on stderr; the runs it counted
# (run_cnt, when it could count them) are the programs' own count but the
# local timer counter's (bpfhist_ltimer_entry, not in bpf_program_runs)
miss=$("$HC" --get "$TMP/bpf.json" input.bpf_recursion_misses) || die "no input.bpf_recursion_misses"
if [ "$miss" -gt 0 ]; then
	grep -q "$miss bpf program runs skipped by the kernel's recursion guard (bpfhist_" "$TMP/bpf.err" ||
		die "$miss recursion misses not named on stderr: $(cat "$TMP/bpf.err")"
else
	! grep -q "recursion guard" "$TMP/bpf.err" || die "a miss named on stderr for none: $(cat "$TMP/bpf.err")"
fi
np=0 runs=0 ltimer=0
while r=$("$HC" --get "$TMP/bpf.json" input.bpf_programs.$np.recursion_misses 2>/dev/null) && [ -n "$r" ]; do
	c=$("$HC" --get "$TMP/bpf.json" input.bpf_programs.$np.run_cnt 2>/dev/null) || c=""
	[ -n "$c" ] && runs=$((runs + c))
	np=$((np + 1))
done
ltimer=$(tr -d ' \n' <"$TMP/bpf.json" | grep -o '"name":"bpfhist_ltimer_entry","run_cnt":[0-9]*' | grep -o '[0-9]*$')
ltimer=${ltimer:-0}
[ $np -ge 10 ] || die "input.bpf_programs lists $np programs (the trackers are ten)"
[ -n "$c" ] || die "no run_cnt in the JSON although LATSCOPE_BPF_STATS=1"
if [ -n "$c" ]; then
	ev=$("$HC" --get "$TMP/bpf.json" input.bpf_program_runs)
	[ $((runs - ltimer)) -eq "$ev" ] ||
		die "the kernel counted $runs runs ($ltimer of the local timer counter), the programs $ev"
fi
echo "bpf: $np programs, $miss runs skipped by the kernel's recursion guard, kernel's run_cnt $runs"
# clean stop: the kernel frees a closed program after an RCU grace period
bpf_gone bpfhist_ || die "bpfhist programs or maps left after the run: $({ "$BPFTOOL" prog list; "$BPFTOOL" map list; } | grep bpfhist_)"
"$LATSCOPE" hist record --backend perf -t -d 3 --json >"$TMP/perf.json" 2>"$TMP/perf.err" ||
	die "--backend perf failed: $(cat "$TMP/perf.err")"

f="$f0$(foreign_rt)"
[ -z "$f" ] || skip "another RT workload runs on this machine ($f): the sample bounds assume none"
backend_agree "$TMP/bpf.json" "$TMP/perf.json" "$TMP/tree"
i=$BACKEND_CPUS
[ $i -eq "$(nproc)" ] || die "timer workload on $i CPUs of $(nproc)"
echo "ok: backends agree on $i CPUs; fallback line; nothing left loaded"
