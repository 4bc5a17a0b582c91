#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor on this kernel: tests/e2e/monitor.sh (the exposition
# against a wakeup storm, SIGHUP, SIGTERM, the textfile) run in the guest
# with every backend the kernel has, the kernel backend (hist triggers:
# the SIGHUP is the kernel's "clear" on its hists) among them where the
# kernel has hist triggers, bpf where it has BTF.  After the runs nothing of
# the kernel backend is left in tracefs.  Rates as hist_storm.sh (TCG).
# needs: tool:wakestorm e2e:monitor cmd:chrt cmd:curl
# timeout: 150
. "$KTEST_DIR/guest/lib.sh"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
b="perf"
[ -e /sys/kernel/btf/vmlinux ] && b="$b bpf"
[ -e "$TRACEFS/synthetic_events" ] && b="$b kernel"
echo "backends: $b"
TESTS_DIR=/ktest TOOLS=/bin STORM_RATE=250 STORM_DUR=2 STORM_MIN_PCT=90 MONITOR_BACKENDS="$b" \
	sh /ktest/e2e/monitor.sh || exit $?
if [ -e "$TRACEFS/synthetic_events" ]; then
	grep -q '^latscope_wakeup_lat' "$TRACEFS/synthetic_events" && die "kernel: the synthetic event is left"
	[ ! -d "$TRACEFS/instances/latscope_histtrig" ] || die "kernel: the instance latscope_histtrig is left"
	echo "kernel: no synthetic event, no instance left"
fi
exit 0
