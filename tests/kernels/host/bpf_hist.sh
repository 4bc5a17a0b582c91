#!/bin/sh
# The bpf and perf backends on the same workload in one boot of a 6.1
# kernel (tests/kernels/guest/bpf_hist.sh): per CPU each files
# timerandwakeup and missed_timer_offsets for its own run's cycles, and the
# two agree, within the tolerance tests/e2e/hist_backend.sh derives
# (tests/hist_backend_lib.sh); the bpf worst case names a timer thread.
. "$TESTS_DIR/lib.sh"
. "$TESTS_DIR/hist_backend_lib.sh"
HC=$(dirname "$LATSCOPE")/tests/tools/histcmp
[ -x "$HC" ] || die "no $HC: build it with make (make check-kernels does)"
backend_agree "$ART/bpf.json" "$ART/perf.json" "$ART/bpf.tree"
[ "$BACKEND_CPUS" -eq 2 ] || die "timer workload on $BACKEND_CPUS CPUs of the guest's 2"
echo "$KERNEL: bpf (CO-RE, built on $(uname -r)) and perf agree on $BACKEND_CPUS CPUs"
