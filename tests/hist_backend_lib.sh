# The bpf and perf backends of `hist record --timer-workload --json` compared
# (tests/e2e/hist_backend.sh on this machine, tests/kernels/host/bpf_hist.sh
# on the kernel tier's guests): . "$TESTS_DIR/hist_backend_lib.sh", then
# backend_agree BPF_JSON PERF_JSON TREE (TREE: the bpf run's -O tree).  Needs
# HC (tests/tools/histcmp) and die (tests/lib.sh); prints one line a CPU.
#
# The tolerance, derived: --timer-workload runs one SCHED_FIFO thread per
# CPU that its hrtimer wakes once per cycle; each cycle is one RT wakeup
# filed in missed_timer_offsets, timerandwakeup and wakeup of its CPU by
# either backend.  A backend misses only (a) the cycles outside its window
# (the workload's first cycles start after the tracing, its last run after
# the tracing stopped: a few ms, so a few cycles), (b) cycles lost (perf:
# counted ring losses, none at this rate; bpf: two CPUs racing on one CPU's
# tracking slot, rare), (c) cycles whose wakeup a higher-priority task took
# first (none here), (d) cycles whose thread was still running when its
# timer fired (the previous cycle ran past this one's expiry: rare at the
# intervals used).  So per CPU each backend files timerandwakeup for its
# run's own cycle count (timer_workload[i].cycles) within max(20, 5 %), and
# the two backends are within the sum of both.  The runs are one after the
# other (one workload at a time), so their latency values differ by the
# machine's noise: they are not compared across backends.  Within each run
# the values must keep the order every sample keeps: timerandwakeup = timer
# lateness + wakeup latency, and the workload's own latency (read in user
# space after the switch-in) is at least its cycle's timerandwakeup, so at
# the medians (bucket ends, 1 us buckets): wakeup <= timerandwakeup,
# missed_timer <= timerandwakeup <= own + 1 us.

# backend_agree BPF_JSON PERF_JSON TREE
backend_agree() {
	ba_i=0
	while ba_w=$("$HC" --get "$1" timer_workload.$ba_i.cpu 2>/dev/null) && [ -n "$ba_w" ]; do
		for ba_f in "$1" "$2"; do
			ba_b=bpf
			[ "$ba_f" = "$1" ] || ba_b=perf
			ba_cyc=$("$HC" --get "$ba_f" timer_workload.$ba_i.cycles)
			for ba_k in timerandwakeup missed_timer_offsets; do
				ba_n=$("$HC" --get "$ba_f" histograms.$ba_k.cpus.$ba_w.total) ||
					die "$ba_b: no $ba_k on CPU$ba_w"
				ba_within "$ba_n" "$ba_cyc" "$(ba_tol "$ba_cyc")" ||
					die "$ba_b: CPU$ba_w $ba_k has $ba_n samples for $ba_cyc cycles (tolerance $(ba_tol "$ba_cyc"))"
			done
			ba_tw=$("$HC" --get "$ba_f" histograms.timerandwakeup.cpus.$ba_w.p50_ns)
			ba_wk=$("$HC" --get "$ba_f" histograms.wakeup.cpus.$ba_w.p50_ns)
			ba_mt=$("$HC" --get "$ba_f" histograms.missed_timer_offsets.cpus.$ba_w.p50_ns)
			ba_own=$("$HC" --get "$ba_f" timer_workload.$ba_i.p50_ns)
			[ "$ba_wk" -le "$ba_tw" ] && [ "$ba_mt" -le "$ba_tw" ] && [ "$ba_tw" -le $((ba_own + 1000)) ] ||
				die "$ba_b: CPU$ba_w medians out of order: wakeup $ba_wk, missed_timer $ba_mt, timerandwakeup $ba_tw, own $ba_own"
			eval "ba_n_$ba_b=\$(\"\$HC\" --get \"\$ba_f\" histograms.timerandwakeup.cpus.$ba_w.total)"
			eval "ba_c_$ba_b=\$ba_cyc"
		done
		ba_t=$(($(ba_tol "$ba_c_bpf") + $(ba_tol "$ba_c_perf")))
		ba_within "$ba_n_bpf" "$ba_n_perf" "$ba_t" ||
			die "CPU$ba_w timerandwakeup: bpf $ba_n_bpf, perf $ba_n_perf (tolerance $ba_t)"
		echo "CPU$ba_w timerandwakeup samples: bpf $ba_n_bpf of $ba_c_bpf cycles, perf $ba_n_perf of $ba_c_perf (tolerance $ba_t)"
		# the bpf worst case (latency_hist's max_latency line): a timer
		# thread (SCHED_FIFO 95) as the victim, the task it replaced as the
		# culprit
		grep -Eq '^[0-9]+ 95 [0-9]+ \([0-9]+\) latscope <- [0-9]+ -?[0-9]+ [^ ]+ [0-9]+\.[0-9]+$' \
			"$3/timerandwakeup/max_latency-CPU$ba_w" ||
			die "bpf CPU$ba_w worst case: $(cat "$3/timerandwakeup/max_latency-CPU$ba_w")"
		ba_i=$((ba_i + 1))
	done
	BACKEND_CPUS=$ba_i
}
ba_tol() { ba_x=$(($1 / 20)); [ $ba_x -ge 20 ] || ba_x=20; echo $ba_x; }
ba_within() { ba_d=$(($1 - $2)); [ $ba_d -ge 0 ] || ba_d=$((-ba_d)); [ $ba_d -le "$3" ]; }
