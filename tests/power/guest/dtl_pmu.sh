#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope dtl record --pmu in a pseries guest whose hypervisor (the test
# QEMU, tests/power/qemu) writes a DTL entry on every dispatch and logs it:
# two recordings, one after the other (each one registers the DTL afresh,
# so the hypervisor's log restarts at index 0 for each):
#   pmu       -d 2, the driver's default 1 ms poll, a busy loop on each CPU
#   overflow  -d 2 -c 500ms: a poll every 500 ms, the 85-entry ring overflows
# Their files, dtl report's JSON and --strict's exit come back as artefacts;
# tests/power/host/dtl_pmu.sh compares them with the hypervisor's log.
# needs: pmu:vpa_dtl
# timeout: 240
. "$KTEST_DIR/guest/lib.sh"
for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
for r in pmu overflow; do
	case $r in pmu) o="";; overflow) o="-c 500ms";; esac
	# shellcheck disable=SC2086
	latscope dtl record --pmu -d 2 $o -o "$ART/$r.data" > "$ART/$r.rec" 2>&1 ||
		die "$r: dtl record failed: $(cat "$ART/$r.rec")"
	dtl_outputs $r
	echo "$r: $(cat "$ART/$r.rec" | tail -1)"
	sleep 0.5
done
