#!/bin/sh
# SPDX-License-Identifier: MIT
# DTL golden test on a hand-built recording (tests/tools/mkdtl.c): split and
# partly consumed buffers, a payload not a multiple of 48, out-of-range
# reasons, a timebase going backwards, entries after the last record, an AUX
# TRUNCATED flag, a LOST record and a hole in the AUX offsets; file and pipe
# mode, both byte orders.  `dtl script` (perf, wide, csv, json), `dtl dump` and
# `dtl report` (text, json) must match the expected files, and every variant
# must print the same timeline.
. "$TESTS_DIR/lib.sh"
G=$TESTS_DIR/golden/dtl
F=$TESTS_DIR/data/formats
[ -x "$TOOLS/mkdtl" ] || skip "mkdtl tool not built"
cd "$TMP" || die "no tmp"
"$TOOLS/mkdtl" -o edge.data --formats "$F" || die "mkdtl LE"
"$TOOLS/mkdtl" -o edge-be.data --big-endian --formats "$F" || die "mkdtl BE"
"$TOOLS/mkdtl" -o edge-pipe.data --pipe --formats "$F" || die "mkdtl pipe"
"$TOOLS/mkdtl" -o edge-pipe-be.data --pipe --big-endian --formats "$F" || die "mkdtl pipe BE"

check() { # name command...
	n=$1; shift
	"$@" > "$n.out" 2> "$n.err" || die "$n: exit $? ($(cat "$n.err"))"
	diff -u "$G/$n.out" "$n.out" || die "$n: output differs from $G/$n.out"
}
check edge-script "$LATSCOPE" dtl script edge.data
diff -u "$G/edge-script.err" edge-script.err || die "edge-script: summary/gap report differs"
check edge-wide "$LATSCOPE" dtl script --wide edge.data
check edge-csv "$LATSCOPE" dtl script --csv edge.data
check edge-json "$LATSCOPE" dtl script --json edge.data
check edge-dump "$LATSCOPE" dtl dump edge.data
check edge-report "$LATSCOPE" dtl report edge.data
check edge-report-json "$LATSCOPE" dtl report --json edge.data

# the same timeline from every variant (BE = LE twin, pipe = file)
for v in edge-be edge-pipe edge-pipe-be; do
	if [ "${v#edge-pipe}" != "$v" ]; then
		"$LATSCOPE" dtl script - < $v.data > $v.out 2> $v.err || die "$v: script failed"
	else
		"$LATSCOPE" dtl script $v.data > $v.out 2> $v.err || die "$v: script failed"
	fi
	diff -u edge-script.out $v.out || die "$v: timeline differs from the LE file"
	grep -q 'gaps: aux_truncated 1 lost 1 timebase_backwards 1 buffer_discontinuity 1 odd_payload_size 1' $v.err ||
		die "$v: gaps not reported: $(cat $v.err)"
done
# a tiny pipe budget: entries print early (reported), none is lost
"$LATSCOPE" dtl script --pipe-budget 100 - < edge-pipe.data > budget.out 2> budget.err || die "budget run"
[ "$(grep -c 'vpa-dtl:' budget.out)" = 13 ] || die "pipe budget lost entries"
grep -q 'forced_flush' budget.err || die "forced flush not reported: $(cat budget.err)"
"$LATSCOPE" dtl report --json edge-be.data > be-report.json || die "BE report"
diff -u edge-report-json.out be-report.json | grep '^[-+] ' | grep -v '"file"' && die "BE report differs"
"$LATSCOPE" dtl dump --no-raw edge.data > le.dump && "$LATSCOPE" dtl dump --no-raw edge-be.data > be.dump ||
	die "dump --no-raw"
sed 's/@[^ ]*/@F/' le.dump > a && sed 's/@[^ ]*/@F/' be.dump > b && diff -u a b || die "BE dump differs"

# merged order: times never go back except the entry flagged late (the CPU
# whose timebase went backwards); ties print the perf record first
awk '{ t = $1 + 0; late = ($NF == "late"); if (!late && t < prev) { print "out of order: " $0; bad = 1 }
       if (!late) { if (t == prev && lastdtl && $4 != "proc") { print "tie: dtl before record: " $0; bad = 1 }
                    prev = t; lastdtl = ($4 == "proc") } }
     END { exit bad }' edge-wide.out || die "merged order wrong"
[ "$(grep -c ' late$' edge-wide.out)" = 1 ] || die "expected exactly one late entry"
# entries after the last record (500 and 600 us) are flushed at the end
tail -1 edge-wide.out | grep -q '1000.000600000 cpu 1' || die "entries after the last record not flushed"

# timestamps equal perf's double formula to the ns
if command -v python3 >/dev/null; then
	python3 - edge-csv.out <<'PY' || die "time_ns differs from perf's formula"
import sys, csv
boot, freq = 21349649546353231, 512000000
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 13, len(rows)
for r in rows:
    want = int((float(int(r["timebase"]) - boot) / float(freq)) * 1e9)
    assert int(r["time_ns"]) == want, (r, want)
PY
fi
exit 0
