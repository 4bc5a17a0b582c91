#!/bin/sh
# The bpf and perf backends on the same workload in one boot of a 6.1
# kernel (tests/kernels/guest/bpf_hist.sh): per CPU each files
# timerandwakeup and missed_timer_offsets for its own run's cycles, and the
# two agree, within the tolerance tests/e2e/hist_backend.sh derives
# (tests/hist_backend_lib.sh); the bpf worst case names a timer thread.
# On PREEMPT_RT they do not agree yet (a known defect, open): see below.
. "$TESTS_DIR/lib.sh"
. "$TESTS_DIR/hist_backend_lib.sh"
HC=$(dirname "$LATSCOPE")/tests/tools/histcmp
[ -x "$HC" ] || die "no $HC: build it with make (make check-kernels does)"
if [ "$(cat "$ART/realtime" 2>/dev/null)" = 1 ]; then
	# A known defect, open in issue 19: on PREEMPT_RT the bpf programs track
	# wakeups the userspace trackers do not (replaced, wake_ignored and
	# missed_timer_offsets differ; on the generic kernel they agree).  Its
	# figures are shown and the check is a SKIP that says so, every run,
	# until it is root-caused; the clean stops above still pass or fail.
	if ! (backend_agree "$ART/bpf.json" "$ART/perf.json" "$ART/bpf.tree") > "$TMP/agree" 2>&1; then
		cat "$TMP/agree"
		skip "KNOWN DEFECT (issue 19, open): on PREEMPT_RT bpf and perf disagree: $(grep FAIL "$TMP/agree" | head -1)"
	fi
fi
backend_agree "$ART/bpf.json" "$ART/perf.json" "$ART/bpf.tree"
[ "$BACKEND_CPUS" -eq 2 ] || die "timer workload on $BACKEND_CPUS CPUs of the guest's 2"
echo "$KERNEL: bpf (CO-RE, built on $(uname -r)) and perf agree on $BACKEND_CPUS CPUs"
