#!/bin/sh
# SPDX-License-Identifier: MIT
# The test hypervisor's realistic mode with forced holds (the sid-realistic
# boot: an entry for a cede and for a preempt of 100 us or more; vCPU 1 held
# off 20 ms every 250 ms, each hold logged as "hold VCPU TB_FROM TB_TO"):
# latscope dtl record --pmu -d 2 beside a busy loop on CPU 1, CPU 0 idle.  The file, dtl
# report's JSON, --strict's exit and dtl script --csv come back;
# tests/power/host/dtl_holds.sh checks them against the hypervisor's log.
# needs: pmu:vpa_dtl
# boots: sid-realistic
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
# (vCPU 1 busy: its preempts; vCPU 0 idle: its cedes)
taskset -c 1 sh -c 'while :; do :; done' &
trap 'kill $(jobs -p) 2>/dev/null' EXIT
latscope dtl record --pmu -d 2 -o "$ART/h.data" > "$ART/h.rec" 2>&1 ||
	die "dtl record failed: $(cat "$ART/h.rec")"
dtl_outputs h
echo "$(tail -1 "$ART/h.rec")"
grep -i "worst\|max" "$ART/h.report" | head -5
