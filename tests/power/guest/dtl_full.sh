#!/bin/sh
# SPDX-License-Identifier: MIT
# A reader that falls behind (docs/dtl.md, "Losses"): latscope dtl record
# --pmu with a 64K AUX buffer and a busy loop on each CPU is stopped
# (SIGSTOP) for 2 s once it has written data, then let go.  The driver
# writes over the unread AUX data, then finds the buffer full, and the
# kernel disables the event for good.  The recorder must copy only bytes
# the driver has not written over (no garbage: the host checks every entry
# against the hypervisor's log), leave a hole in the AUX stream where it
# lost bytes, and say both in the file (AUXTRACE_ERROR) and on stderr;
# dtl report must name them and exit 1 under --strict.  The artefacts go
# to tests/power/host/dtl_full.sh.
# needs: pmu:vpa_dtl
# timeout: 200
. "$KTEST_DIR/guest/lib.sh"
for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
f=$ART/full.data
latscope dtl record --pmu -d 6 --aux-size 64K -o "$f" > "$ART/full.rec" 2>&1 &
rec=$!
# stopped once it has copied something: the events are enabled by then
i=0
until [ -f "$f" ] && [ "$(wc -c < "$f")" -gt 200000 ]; do
	kill -0 $rec 2>/dev/null || die "dtl record ended early: $(cat "$ART/full.rec")"
	i=$((i + 1)); [ $i -lt 300 ] || die "dtl record wrote no DTL data in 30 s"
	sleep 0.1
done
kill -STOP $rec
sleep 2
kill -CONT $rec
wait $rec || die "dtl record failed: $(cat "$ART/full.rec")"
latscope dtl report --json="$ART/full.json" "$f" > "$ART/full.report" 2> "$ART/full.report.err" ||
	die "dtl report failed: $(cat "$ART/full.report.err")"
latscope dtl report --strict "$f" > /dev/null 2>&1
echo $? > "$ART/full.strict"
latscope dtl script --csv -i "$f" > "$ART/full.csv" 2> "$ART/full.csv.err" ||
	die "dtl script --csv failed: $(cat "$ART/full.csv.err")"
latscope dtl dump "$f" | grep -A1 AUXTRACE_ERROR > "$ART/full.errors"
echo "record: $(tr '\n' ' ' < "$ART/full.rec")"
echo "report: $(tr '\n' ' ' < "$ART/full.report.err")"
