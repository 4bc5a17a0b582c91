#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope dtl why` under the test hypervisor: in the stress mode (sid: an
# entry at every exit and re-entry) and with forced holds (the
# sid-realistic boot: vCPU 1 held off 20 ms every 250 ms, each hold logged
# as "hold VCPU TB_FROM TB_TO", every entry as "dtl VCPU IDX HEX").  On vCPU
# 1 a SCHED_FIFO thread spins 300 ms of every 400 (tests/tools/noisegen) and
# a shell sleeps 5 ms at a time: a wakeup of the shell or its sleep during a
# spin waits for the spin's end, long enough for holds to fall inside.
# latscope dtl record --pmu -d 5 (run on CPU 0), then dtl why's worst 50
# samples as JSON; tests/power/host/dtl_why.sh checks them against the
# hypervisor's log.
# needs: pmu:vpa_dtl tool:noisegen
# boots: sid sid-realistic
# timeout: 150
. "$KTEST_DIR/guest/lib.sh"
noisegen thread -c 1 -P 50 -i 400000 -s 300000 -d 8 > "$ART/noisegen.out" 2>&1 &
taskset -c 1 sh -c 'while :; do sleep 0.005; done' &
trap 'kill $(jobs -p) 2>/dev/null' EXIT
sleep 0.5
taskset -c 0 latscope dtl record --pmu -d 5 -o "$ART/w.data" > "$ART/w.rec" 2>&1 ||
	die "dtl record failed: $(cat "$ART/w.rec")"
kill $(jobs -p) 2>/dev/null
taskset -c 0 latscope dtl why -n 50 --json="$ART/w.why.json" "$ART/w.data" > "$ART/w.why" 2> "$ART/w.why.err" ||
	die "dtl why failed: $(cat "$ART/w.why.err")"
dtl_outputs w
echo "$(tail -1 "$ART/w.rec")"
head -12 "$ART/w.why"
