#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor --dtl on the vpa_dtl PMU: its counters per vCPU and
# reason, the last --textfile snapshot of a 3 s run (a 4M AUX buffer: no
# wrap in the few thousand entries a second of the stress mode), come back
# as an artefact; tests/power/host/
# dtl_monitor.sh compares them with the hypervisor's log.  Then the
# refusal: while one dtl record holds the PMU, a second one and monitor
# --dtl must each say so in one line and exit 2.
# needs: pmu:vpa_dtl
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
mkdir -p /tmp/tf "$ART/snap"
latscope monitor --dtl --dtl-aux-size 4M --listen none --textfile /tmp/tf --refresh 500ms -d 3 -c 0 \
	--backend perf --no-keep-busy > "$ART/monitor.out" 2> "$ART/monitor.err" &
mon=$!
# every snapshot it publishes, kept (the host follows the counts through them)
i=0
while kill -0 $mon 2>/dev/null; do
	[ -f /tmp/tf/latscope.prom ] && cp /tmp/tf/latscope.prom "$ART/snap/$i.prom" && i=$((i + 1))
	sleep 0.25
done
wait $mon || die "monitor --dtl failed: $(tail -3 "$ART/monitor.err")"
cp /tmp/tf/latscope.prom "$ART/monitor.prom" || die "no textfile: $(tail -3 "$ART/monitor.err")"
grep -q '^latscope_dtl_entries_total{cpu="0"}' "$ART/monitor.prom" ||
	die "no DTL counters in the textfile: $(grep -c . "$ART/monitor.prom") lines; $(tail -3 "$ART/monitor.err")"
echo "monitor: $(grep '^latscope_dtl_entries_total' "$ART/monitor.prom" | tr '\n' ' ')"

# the refusal: the PMU is exclusive per CPU (PERF_PMU_CAP_EXCLUSIVE): while
# one dtl record holds it, a second one and monitor --dtl each say so in
# one line and exit 2.  (vcpudispatch_stats is not used: enabling it after
# a PMU session hung this kernel in cpuhp under the test hypervisor;
# docs/power.md.)
latscope dtl record --pmu -d 60 -o /tmp/first.data > /dev/null 2> "$ART/first.err" &
first=$!
i=0
until [ -s /tmp/first.data ]; do
	kill -0 $first 2>/dev/null || die "the first dtl record ended: $(cat "$ART/first.err")"
	i=$((i + 1)); [ $i -lt 100 ] || die "the first dtl record wrote nothing in 10 s"
	sleep 0.1
done
latscope dtl record --pmu -d 1 -o /tmp/busy.data > /dev/null 2> "$ART/busy.err"; rc=$?
mkdir -p /tmp/tf2
latscope monitor --dtl --listen none --textfile /tmp/tf2 -d 1 -c 0 --backend perf --no-keep-busy \
	> /dev/null 2> "$ART/busymon.err"; mrc=$?
kill -0 $first 2>/dev/null || die "the first dtl record ended before the refusals were done"
kill -INT $first
wait $first || die "the first dtl record failed: $(cat "$ART/first.err")"
echo "refusals: dtl record exit $rc: $(cat "$ART/busy.err"); monitor exit $mrc: $(cat "$ART/busymon.err")"
[ $rc -eq 2 ] || die "a second dtl record --pmu: exit $rc, not 2"
[ "$(grep -c . "$ART/busy.err")" -eq 1 ] || die "dtl record's refusal is not one line: $(cat "$ART/busy.err")"
grep -qi 'busy\|in use' "$ART/busy.err" || die "dtl record's refusal does not say the DTL is in use"
[ $mrc -eq 2 ] || die "monitor --dtl beside dtl record: exit $mrc, not 2"
grep -qi 'busy\|in use' "$ART/busymon.err" || die "monitor's refusal does not say the DTL is in use"
# and once the first lets go, the PMU is free again
latscope dtl record --pmu -d 1 -o /tmp/free.data > /dev/null 2>&1 || die "the PMU is not free after the first recording"
