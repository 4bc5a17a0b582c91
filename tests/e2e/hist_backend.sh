#!/bin/sh
# hist record --backend: the bpf backend (BPF programs keep the histograms in
# the kernel) beside the perf backend on the same workload, auto's fallback
# line when BPF is refused (LATSCOPE_NO_BPF=1), bpf's refusals (-o), no
# keep-busy spinner under bpf, and nothing of ours left in the kernel
# (bpftool prog/link list) after a run.
#
# The tolerance, derived: --timer-workload runs one SCHED_FIFO thread per
# CPU that its hrtimer wakes once per 1 ms cycle; each cycle is one RT
# wakeup filed in missed_timer_offsets, timerandwakeup and wakeup of its CPU
# by either backend.  A backend misses only (a) the cycles outside its
# window (the workload's first cycles start after the tracing, its last run
# after the tracing stopped: a few ms, so a few cycles), (b) cycles lost
# (perf: counted ring losses, none at this rate; bpf: two CPUs racing on one
# CPU's tracking slot, rare), (c) cycles whose wakeup a higher-priority task
# took first (none here).  So per CPU each backend files timerandwakeup for
# its run's own cycle count (timer_workload[i].cycles) within
# max(20, 5 %), and the two backends are within the sum of both.  The runs
# are one after the other (one workload at a time), so their latency values
# differ by the machine's noise (see machine-facts.md): they are not
# compared across backends.  Within each run the values must keep the order
# every sample keeps: timerandwakeup = timer lateness + wakeup latency, and
# the workload's own latency (read in user space after the switch-in) is at
# least its cycle's timerandwakeup, so at the medians (bucket ends, 1 us
# buckets): wakeup <= timerandwakeup, missed_timer <= timerandwakeup <=
# own + 1 us.
. "$TESTS_DIR/lib.sh"
HC="$TOOLS/histcmp"
# a string field of the JSON (histcmp --get reads numbers)
backend() { tr -d ' \n' <"$1" | grep -o '"backend":"[a-z]*"' | cut -d'"' -f4; }
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
# ours: the programs' names all start with bpfhist_
ours() { "$BPFTOOL" prog list 2>/dev/null | grep -c 'name bpfhist_'; }
[ "$(ours)" -eq 0 ] || skip "bpfhist programs already loaded (another latscope running?)"

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

"$LATSCOPE" hist record --backend bpf -t -d 3 --json -O "$TMP/tree" >"$TMP/bpf.json" 2>"$TMP/bpf.err" &
pid=$!
# while it runs: the programs are there, the spinners are not
n=0
while [ "$(ours)" -eq 0 ] && [ $n -lt 50 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
loaded=$(ours)
busy=$(ps -L -o comm= -p $pid 2>/dev/null | grep -c latscope-busy)
wait $pid
rc=$?
if [ $rc -ne 0 ]; then
	grep -q 'built without the bpf backend' "$TMP/bpf.err" && skip "$(cat "$TMP/bpf.err")"
	grep -qi 'refused' "$TMP/bpf.err" && skip "this kernel refuses BPF: $(cat "$TMP/bpf.err")"
	die "--backend bpf failed ($rc): $(cat "$TMP/bpf.err")"
fi
[ "$loaded" -gt 0 ] || die "no bpfhist program seen loaded during the bpf run"
[ "$busy" -eq 0 ] || die "--backend bpf started $busy keep-busy spinners"
[ "$(backend "$TMP/bpf.json")" = bpf ] || die "input.backend is not bpf"
[ "$("$HC" --get "$TMP/bpf.json" input.keep_busy.enabled)" = 0 ] || die "keep-busy on under bpf"
# clean stop: the kernel frees a closed program after an RCU grace period
n=0
while [ "$(ours)" -gt 0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
[ "$(ours)" -eq 0 ] || die "bpfhist programs left after the run: $("$BPFTOOL" prog list | grep bpfhist_)"
"$BPFTOOL" link list 2>/dev/null | grep -q 'bpfhist_' && die "links left: $("$BPFTOOL" link list)"
"$LATSCOPE" hist record --backend perf -t -d 3 --json >"$TMP/perf.json" 2>"$TMP/perf.err" ||
	die "--backend perf failed: $(cat "$TMP/perf.err")"

get() { "$HC" --get "$1" "$2"; }
tol() { t=$(($1 / 20)); [ $t -ge 20 ] || t=20; echo $t; }
within() { d=$(($1 - $2)); [ $d -ge 0 ] || d=$((-d)); [ $d -le "$3" ]; }
i=0
while w=$(get "$TMP/bpf.json" timer_workload.$i.cpu 2>/dev/null) && [ -n "$w" ]; do
	for b in bpf perf; do
		f="$TMP/$b.json"
		cyc=$(get "$f" timer_workload.$i.cycles)
		for k in timerandwakeup missed_timer_offsets; do
			n=$(get "$f" histograms.$k.cpus.$w.total) || die "$b: no $k on CPU$w"
			within "$n" "$cyc" "$(tol "$cyc")" ||
				die "$b: CPU$w $k has $n samples for $cyc cycles (tolerance $(tol "$cyc"))"
		done
		tw=$(get "$f" histograms.timerandwakeup.cpus.$w.p50_ns)
		wk=$(get "$f" histograms.wakeup.cpus.$w.p50_ns)
		mt=$(get "$f" histograms.missed_timer_offsets.cpus.$w.p50_ns)
		own=$(get "$f" timer_workload.$i.p50_ns)
		[ "$wk" -le "$tw" ] && [ "$mt" -le "$tw" ] && [ "$tw" -le $((own + 1000)) ] ||
			die "$b: CPU$w medians out of order: wakeup $wk, missed_timer $mt, timerandwakeup $tw, own $own"
		eval "n_$b=\$(get \"\$f\" histograms.timerandwakeup.cpus.$w.total)"
		eval "c_$b=\$cyc"
	done
	t=$(($(tol "$c_bpf") + $(tol "$c_perf")))
	within "$n_bpf" "$n_perf" "$t" || die "CPU$w timerandwakeup: bpf $n_bpf, perf $n_perf (tolerance $t)"
	echo "CPU$w timerandwakeup samples: bpf $n_bpf of $c_bpf cycles, perf $n_perf of $c_perf"
	# the bpf worst case (latency_hist's max_latency line): a timer thread
	# (SCHED_FIFO 95) as the victim, the task it replaced as the culprit
	grep -Eq '^[0-9]+ 95 [0-9]+ \([0-9]+\) latscope <- [0-9]+ -?[0-9]+ [^ ]+ [0-9]+\.[0-9]+$' \
		"$TMP/tree/timerandwakeup/max_latency-CPU$w" ||
		die "bpf CPU$w worst case: $(cat "$TMP/tree/timerandwakeup/max_latency-CPU$w")"
	i=$((i + 1))
done
[ $i -eq "$(nproc)" ] || die "timer workload on $i CPUs of $(nproc)"
echo "ok: backends agree on $i CPUs; fallback line; nothing left loaded"
