#!/bin/sh
# The histogram backends on a wakeup storm at a fixed rate, on this kernel:
# tests/e2e/hist_storm.sh (what each backend must show, and why) run in the
# guest, with every backend the kernel has: perf, bpf where it has BTF
# (CO-RE relocated for this kernel) and kernel where it has hist triggers.
# Under single-threaded TCG the guest runs tens of times slower than the
# host, and the spinner on CPU 1 takes turns with the waker on one host
# thread: 250 wakeups a second for 4 s, and up to one period in ten may find
# the sleeper still awake (at 500 Hz, 2.2 % did; the host test allows 1 %).
# needs: tool:wakestorm e2e:hist_storm cmd:chrt
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
b="perf"
[ -e /sys/kernel/btf/vmlinux ] && b="$b bpf"
[ -e "$TRACEFS/synthetic_events" ] && b="$b kernel"
echo "backends: $b"
TESTS_DIR=/ktest TOOLS=/bin STORM_RATE=250 STORM_DUR=4 STORM_MIN_PCT=90 STORM_BACKENDS="$b" \
	sh /ktest/e2e/hist_storm.sh
