#!/bin/sh
# SPDX-License-Identifier: MIT
# The AUX buffer's wrap (docs/dtl.md, "The AUX buffer wrap"): latscope dtl
# record --pmu -d 2 with a busy loop on each CPU, with a small AUX buffer
# (8K: its end is 32 bytes the driver never writes), 16K (64 bytes), perf's
# default (128K) and a large one (4M).  The files, dtl report's JSON, its
# --strict exit and dtl script's CSV come back as artefacts;
# tests/power/host/dtl_wrap.sh compares them with the hypervisor's log.
# needs: pmu:vpa_dtl
# timeout: 300
. "$KTEST_DIR/guest/lib.sh"
for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
for a in 8K 16K 128K 4M; do
	latscope dtl record --pmu -d 2 --aux-size $a -o "$ART/aux$a.data" > "$ART/aux$a.rec" 2>&1 ||
		die "aux $a: dtl record failed: $(cat "$ART/aux$a.rec")"
	latscope dtl report --json="$ART/aux$a.json" "$ART/aux$a.data" > "$ART/aux$a.report" 2>&1 ||
		die "aux $a: dtl report failed: $(tail -3 "$ART/aux$a.report")"
	latscope dtl report --strict "$ART/aux$a.data" > /dev/null 2>&1
	echo $? > "$ART/aux$a.strict"
	latscope dtl script --csv -i "$ART/aux$a.data" > "$ART/aux$a.csv" 2> "$ART/aux$a.csv.err" ||
		die "aux $a: dtl script --csv failed: $(cat "$ART/aux$a.csv.err")"
	echo "aux $a: $(tail -1 "$ART/aux$a.rec")"
	sleep 0.5
done
