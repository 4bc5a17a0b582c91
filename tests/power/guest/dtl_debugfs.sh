#!/bin/sh
# SPDX-License-Identifier: MIT
# The debugfs DTL (the "dtl" boot: sid's source built with CONFIG_DTL, the
# hypervisor's stress mode): latscope dtl record --debugfs-only -d 2 beside
# a busy loop per CPU; its file, dtl report's JSON, --strict's exit and dtl
# script --csv come back, and tests/power/host/dtl_debugfs.sh compares them
# with the hypervisor's log.  Then the refusals between the two DTL users
# (the kernel's dtl_access_lock): while a debugfs recording holds the DTL, a
# PMU recording exits 2 with one line that says it is in use, and the
# reverse.
# needs: pmu:vpa_dtl file:/sys/kernel/debug/powerpc/dtl
# boots: dtl
# timeout: 180
. "$KTEST_DIR/guest/lib.sh"
for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
latscope dtl record --debugfs-only -T none -d 2 -o "$ART/d.data" > "$ART/d.rec" 2>&1 ||
	die "dtl record --debugfs-only failed: $(cat "$ART/d.rec")"
dtl_outputs d
echo "debugfs: $(tail -1 "$ART/d.rec")"
kill $(jobs -p) 2>/dev/null
# the second user of the DTL (PMU after debugfs, debugfs after the PMU)
# says it is in use in one line, exit 2
for first in debugfs-only pmu; do
	case $first in debugfs-only) second=pmu;; pmu) second=debugfs-only;; esac
	latscope dtl record --$first -T none -d 4 -o /tmp/first.data > /dev/null 2> "$ART/first.err" &
	hp=$!
	sleep 1
	kill -0 $hp 2>/dev/null || die "the --$first recording ended early: $(cat "$ART/first.err")"
	latscope dtl record --$second -T none -d 1 -o /tmp/second.data > /dev/null 2> "$ART/$second.busy"
	rc=$?
	wait $hp || die "the --$first recording failed: $(cat "$ART/first.err")"
	[ $rc = 2 ] || die "--$second while --$first records: exit $rc: $(cat "$ART/$second.busy")"
	grep -q 'in use' "$ART/$second.busy" && [ "$(grep -c . "$ART/$second.busy")" = 1 ] ||
		die "--$second while --$first records: $(cat "$ART/$second.busy")"
	echo "--$second while --$first records: exit 2: $(cat "$ART/$second.busy")"
done
