#!/bin/sh
# SPDX-License-Identifier: MIT
# Nothing silently wrong: a pipe-mode recording with one sample whose id no
# event declares and one sample too short for its sample_type.  hist report
# and script say so on stderr, hist report puts the counts in its JSON, and
# --threshold/--strict turn the loss into exit 1.  osnoise -i refuses a file
# that has no osnoise data (exit 2, one line saying what it lacks).
. "$TESTS_DIR/lib.sh"
FIX=$TOOLS/histfix
"$FIX" -o "$TMP/pipe.data" --formats "$TESTS_DIR/data/formats" --pipe \
	<"$TESTS_DIR/golden/hist/scenario.txt" || die "histfix"
# little-endian bytes of $1, $2 wide
le() { v=$1; n=$2; while [ "$n" -gt 0 ]; do printf "\\$(printf %03o $((v & 255)))"; v=$((v >> 8)); n=$((n - 1)); done; }
[ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ] || skip "big-endian host"
{
	cat "$TMP/pipe.data"
	le 9 4; le 2 2; le 56 2; le 999999 8; le 0 40	# SAMPLE, unknown id
	le 9 4; le 2 2; le 16 2; le 1000 8		# SAMPLE, id only: too short
} >"$TMP/bad.data"

# dtl script (the same reader through the DTL timeline's pipe path)
"$LATSCOPE" dtl script - <"$TMP/bad.data" >"$TMP/out" 2>"$TMP/err" || die "dtl script: $(cat "$TMP/err")"
grep -q "1 samples with an unknown id and 1 too short for their sample_type were skipped" "$TMP/err" ||
	die "dtl script stderr: $(cat "$TMP/err")"
grep -q '\[unknown\]' "$TMP/out" && die "dtl script printed a skipped sample"
"$LATSCOPE" dtl script --json - <"$TMP/bad.data" 2>/dev/null | tail -1 |
	grep -q '"unknown_id_samples":1,"short_samples":1' || die "dtl script JSON summary"
"$LATSCOPE" dtl script --strict - <"$TMP/bad.data" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || die "dtl script --strict: exit $rc"

"$LATSCOPE" hist report -i - <"$TMP/bad.data" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 0 ] || die "hist report: exit $rc without a verdict asked"
grep -q "1 samples with an id no event declares, 1 samples too short" "$TMP/err" ||
	die "hist report stderr: $(cat "$TMP/err")"
grep -q "^events: .* 2 malformed (.*1 too short for their sample_type, 1 with an unknown id)" "$TMP/out" ||
	die "hist report table: $(grep events: "$TMP/out")"
"$LATSCOPE" hist report -i - --json <"$TMP/bad.data" >"$TMP/j" 2>/dev/null || die "json"
[ "$("$TOOLS/osnjson" "$TMP/j" input.unknown_id)" = 1 ] || die "JSON unknown_id"
[ "$("$TOOLS/osnjson" "$TMP/j" input.bad_samples)" = 1 ] || die "JSON bad_samples"
[ "$("$TOOLS/osnjson" "$TMP/j" input.dropped)" = 2 ] || die "JSON dropped"
"$LATSCOPE" hist report -i - --threshold 1s <"$TMP/bad.data" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 1 ] || die "hist report --threshold with dropped samples: exit $rc"
grep -q "cannot pass the threshold: exit 1" "$TMP/err" || die "no verdict line: $(cat "$TMP/err")"
"$LATSCOPE" hist report -i - --strict <"$TMP/bad.data" >/dev/null 2>/dev/null; rc=$?
[ $rc -eq 1 ] || die "hist report --strict: exit $rc"
# the clean file passes the same gates
"$LATSCOPE" hist report -i - --strict --threshold 1s <"$TMP/pipe.data" >/dev/null 2>&1 ||
	die "clean file fails --strict"

"$LATSCOPE" script -i - <"$TMP/bad.data" >/dev/null 2>"$TMP/err" || die "script: exit $?"
grep -q "1 samples too short" "$TMP/err" && grep -q "1 records with an id no event declares" "$TMP/err" ||
	die "script summary: $(cat "$TMP/err")"
"$LATSCOPE" script -i - --strict <"$TMP/bad.data" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || die "script --strict: exit $rc"

# osnoise -i on a file without osnoise data
"$LATSCOPE" osnoise top -i "$TESTS_DIR/data/rec/sched-irq-timer.perf.data" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] || die "osnoise -i on sched data: exit $rc"
[ ! -s "$TMP/out" ] || die "osnoise -i printed a table: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "has no osnoise data" "$TMP/err" || die "osnoise: $(cat "$TMP/err")"
"$LATSCOPE" osnoise top -i - <"$TMP/pipe.data" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "has no osnoise data" "$TMP/err" || die "osnoise -i - (pipe): exit $rc $(cat "$TMP/err")"
echo "ok: unknown id and short samples counted, shown, in JSON, exit 1 under --threshold/--strict; osnoise -i refuses foreign data"
