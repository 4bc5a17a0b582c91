# SPDX-License-Identifier: MIT
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
# counted ring losses, none at this rate, and the samples the kernel fired
# and never delivered, which the run names per CPU in input.fired: each
# unfiled cycle beyond the tolerance must be one of those, so the lower
# bound drops by the CPU's undelivered count, never more; bpf: two CPUs racing on one CPU's
# tracking slot, rare), (c) cycles whose wakeup a higher-priority task took
# first (none here), (d) cycles whose thread was still running when its
# timer fired (the previous cycle ran past this one's expiry: rare at the
# intervals used).  So per CPU each backend files timerandwakeup for its
# run's own cycle count (timer_workload[i].cycles) within max(20, 5 %), and
# the two backends' excesses over their own cycles are within the sum of
# both.  The runs are one after the
# other (one workload at a time), so their latency values differ by the
# machine's noise: they are not compared across backends.  Within each run
# the values must keep the order every sample keeps: timerandwakeup = timer
# lateness + wakeup latency, and the workload's own latency (read in user
# space after the switch-in) is at least its cycle's timerandwakeup, so at
# the medians (bucket ends, 1 us buckets): wakeup <= timerandwakeup,
# missed_timer <= timerandwakeup <= own + 1 us.
#
# Other RT victims: where the kernel has SCHED_FIFO threads of its own that
# its timer callbacks wake (PREEMPT_RT: ktimers/N and rcuc/N, woken from the
# tick), each backend also files those wakeups in the CPU's histograms; it
# must (they are RT wakeups), and they are not cycles.  BA_OTHERS_BPF and
# BA_OTHERS_PERF, when set, name a file of "CPU N" lines per run: N bounds
# those samples on the CPU (the guest counts the other RT tasks' sleeps over
# the run: each wakeup follows one).  A CPU's count may then exceed its
# cycles by N more, and the backends differ by both runs' N more.  Unset:
# none (this machine's kernel has no such threads).

# ba_undelivered JSON CPU: the samples the run says the kernel fired on CPU
# and never delivered (input.fired.cpus[].undelivered; 0 when not counted)
ba_undelivered() {
	ba_j=0
	while ba_c=$("$HC" --get "$1" input.fired.cpus.$ba_j.cpu 2>/dev/null) && [ -n "$ba_c" ]; do
		if [ "$ba_c" -eq "$2" ]; then
			"$HC" --get "$1" input.fired.cpus.$ba_j.undelivered
			return
		fi
		ba_j=$((ba_j + 1))
	done
	echo 0
}

# backend_agree BPF_JSON PERF_JSON TREE
backend_agree() {
	ba_i=0
	while ba_w=$("$HC" --get "$1" timer_workload.$ba_i.cpu 2>/dev/null) && [ -n "$ba_w" ]; do
		for ba_f in "$1" "$2"; do
			ba_b=bpf ba_of=${BA_OTHERS_BPF:-}
			[ "$ba_f" = "$1" ] || ba_b=perf ba_of=${BA_OTHERS_PERF:-}
			ba_o=0
			[ -z "$ba_of" ] || ba_o=$(awk -v c="$ba_w" '$1 == c { print $2 }' "$ba_of")
			[ -n "$ba_o" ] || die "$ba_b: no CPU$ba_w line in $ba_of"
			ba_cyc=$("$HC" --get "$ba_f" timer_workload.$ba_i.cycles)
			ba_u=$(ba_undelivered "$ba_f" "$ba_w")
			for ba_k in timerandwakeup missed_timer_offsets; do
				ba_n=$("$HC" --get "$ba_f" histograms.$ba_k.cpus.$ba_w.total) ||
					die "$ba_b: no $ba_k on CPU$ba_w"
				ba_x=$(ba_tol "$ba_cyc")
				[ "$ba_n" -ge $((ba_cyc - ba_x - ba_u)) ] && [ "$ba_n" -le $((ba_cyc + ba_x + ba_o)) ] ||
					die "$ba_b: CPU$ba_w $ba_k has $ba_n samples for $ba_cyc cycles (tolerance $ba_x, named never delivered $ba_u, other RT victims up to $ba_o)"
			done
			ba_tw=$("$HC" --get "$ba_f" histograms.timerandwakeup.cpus.$ba_w.p50_ns)
			ba_wk=$("$HC" --get "$ba_f" histograms.wakeup.cpus.$ba_w.p50_ns)
			ba_mt=$("$HC" --get "$ba_f" histograms.missed_timer_offsets.cpus.$ba_w.p50_ns)
			ba_own=$("$HC" --get "$ba_f" timer_workload.$ba_i.p50_ns)
			[ "$ba_wk" -le "$ba_tw" ] && [ "$ba_mt" -le "$ba_tw" ] && [ "$ba_tw" -le $((ba_own + 1000)) ] ||
				die "$ba_b: CPU$ba_w medians out of order: wakeup $ba_wk, missed_timer $ba_mt, timerandwakeup $ba_tw, own $ba_own"
			eval "ba_n_$ba_b=\$(\"\$HC\" --get \"\$ba_f\" histograms.timerandwakeup.cpus.$ba_w.total)"
			eval "ba_c_$ba_b=\$ba_cyc"
			eval "ba_o_$ba_b=\$ba_o"
			eval "ba_u_$ba_b=\$ba_u"
		done
		ba_t=$(($(ba_tol "$ba_c_bpf") + $(ba_tol "$ba_c_perf") + ba_o_bpf + ba_o_perf + ba_u_bpf + ba_u_perf))
		# each against its own run's cycles: the runs are sequential, and under
		# TCG one may run 10 % fewer cycles than the other (1776 vs 1993)
		ba_within $((ba_n_bpf - ba_c_bpf)) $((ba_n_perf - ba_c_perf)) "$ba_t" ||
			die "CPU$ba_w timerandwakeup: bpf $ba_n_bpf of $ba_c_bpf cycles, perf $ba_n_perf of $ba_c_perf (tolerance $ba_t)"
		echo "CPU$ba_w timerandwakeup samples: bpf $ba_n_bpf of $ba_c_bpf cycles, perf $ba_n_perf of $ba_c_perf (tolerance $ba_t, perf named $ba_u_perf never delivered)"
		# the bpf worst case (latency_hist's max_latency line): a timer
		# thread (SCHED_FIFO 95) as the victim, the task it replaced as the
		# culprit
		# (where other RT tasks slept on the CPU, ktimers/N on PREEMPT_RT, the
		# worst may be one of their wakeups: an RT victim, prio 1-99)
		ba_vp='95 [0-9]+ \([0-9]+\) ls-timer/[0-9]+'
		[ "$ba_o_bpf" -eq 0 ] || ba_vp='[0-9]{1,2} [0-9]+ \([0-9]+\) [^ ]+'
		grep -Eq "^[0-9]+ $ba_vp <- [0-9]+ -?[0-9]+ [^ ]+ [0-9]+\.[0-9]+\$" \
			"$3/timerandwakeup/max_latency-CPU$ba_w" ||
			die "bpf CPU$ba_w worst case: $(cat "$3/timerandwakeup/max_latency-CPU$ba_w")"
		ba_i=$((ba_i + 1))
	done
	BACKEND_CPUS=$ba_i
}
ba_tol() { ba_x=$(($1 / 20)); [ $ba_x -ge 20 ] || ba_x=20; echo $ba_x; }
ba_within() { ba_d=$(($1 - $2)); [ $ba_d -ge 0 ] || ba_d=$((-ba_d)); [ $ba_d -le "$3" ]; }
