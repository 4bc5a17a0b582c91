#!/bin/sh
# The histogram backends on a wakeup storm at a fixed rate, on this kernel:
# tests/e2e/hist_storm.sh (what each backend must show, and why) run in the
# guest, with every backend the kernel has: perf, bpf (CO-RE relocated for
# this kernel) and kernel (hist triggers).  Under TCG the guest runs about
# ten times slower than the host: 500 wakeups a second for 2 s (the host
# test's 5000 found the sleeper not asleep too often here).
# needs: tool:wakestorm e2e:hist_storm config:HIST_TRIGGERS file:/sys/kernel/btf/vmlinux
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
TESTS_DIR=/ktest TOOLS=/bin STORM_RATE=500 STORM_DUR=2 STORM_BACKENDS="perf bpf kernel" \
	sh /ktest/e2e/hist_storm.sh
