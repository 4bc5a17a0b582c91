#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor --dtl on the vpa_dtl PMU: its counters per vCPU and
# reason, the last --textfile snapshot of a 3 s run with the vCPUs idle (a
# few hundred entries a second: the 85-entry ring does not overflow at the
# driver's 1 ms poll), come back as an artefact; tests/power/host/
# dtl_monitor.sh compares them with the hypervisor's log.  Then the
# refusal: while /proc/powerpc/vcpudispatch_stats holds the DTL, dtl record
# --pmu and monitor --dtl must each say so in one line and exit 2.
# needs: pmu:vpa_dtl
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
mkdir -p /tmp/tf
latscope monitor --dtl --listen none --textfile /tmp/tf --refresh 500ms -d 3 -c 0 --backend perf \
	--no-keep-busy > "$ART/monitor.out" 2> "$ART/monitor.err" ||
	die "monitor --dtl failed: $(tail -3 "$ART/monitor.err")"
cp /tmp/tf/latscope.prom "$ART/monitor.prom" || die "no textfile: $(tail -3 "$ART/monitor.err")"
grep -q '^latscope_dtl_entries_total{cpu="0"}' "$ART/monitor.prom" ||
	die "no DTL counters in the textfile: $(grep -c . "$ART/monitor.prom") lines; $(tail -3 "$ART/monitor.err")"
echo "monitor: $(grep '^latscope_dtl_entries_total' "$ART/monitor.prom" | tr '\n' ' ')"

# the refusal: vcpudispatch_stats takes the DTL (dtl_access_lock)
V=/proc/powerpc/vcpudispatch_stats
[ -w $V ] || { echo "no $V: the refusal is not checked"; exit 0; }
echo 1 > $V || die "cannot enable $V"
latscope dtl record --pmu -d 1 -o /tmp/busy.data > /dev/null 2> "$ART/busy.err"; rc=$?
latscope monitor --dtl --listen none -d 1 -c 0 --backend perf --no-keep-busy > /dev/null 2> "$ART/busymon.err"; mrc=$?
echo 0 > $V
echo "refusals: dtl record exit $rc: $(cat "$ART/busy.err"); monitor exit $mrc: $(grep -i dtl "$ART/busymon.err")"
[ $rc -eq 2 ] || die "dtl record --pmu beside vcpudispatch_stats: exit $rc, not 2"
[ "$(grep -c . "$ART/busy.err")" -eq 1 ] || die "dtl record's refusal is not one line: $(cat "$ART/busy.err")"
grep -qi 'busy\|in use' "$ART/busy.err" || die "dtl record's refusal does not say the DTL is in use"
[ $mrc -eq 2 ] || die "monitor --dtl beside vcpudispatch_stats: exit $mrc, not 2"
grep -qi 'busy\|in use' "$ART/busymon.err" || die "monitor's refusal does not say the DTL is in use"
# and once vcpudispatch_stats lets go, the PMU is free again
latscope dtl record --pmu -d 1 -o /tmp/free.data > /dev/null 2>&1 || die "the PMU is not free after vcpudispatch_stats"
