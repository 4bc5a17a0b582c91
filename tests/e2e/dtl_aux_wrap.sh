#!/bin/sh
# SPDX-License-Identifier: MIT
# The vpa_dtl driver's AUX buffer wrap offline (docs/dtl.md, "The AUX buffer
# wrap"; the POWER tier checks the same against the real driver): dtl synth
# --aux-size copies the entries through the driver's buffer as its source
# does, so each lap ends in the 32 (8K) or 64 (4K) bytes it never writes and
# payloads span laps' ends.  Every entry synth wrote must come out of dtl
# report and dtl script, in file and pipe mode, little- and big-endian; the
# wraps must be counted (report's aux_wraps = synth's), listed by script,
# and --strict must exit 1.  With --aux-size 0 (no wrap) nothing is lost.
. "$TESTS_DIR/lib.sh"
cd "$TMP" || die "no tmp"
F=$TESTS_DIR/data/formats
for a in 4K 8K; do
	for v in le be pipe; do
		case $v in le) o="";; be) o="--big-endian";; pipe) o="--pipe";; esac
		# shellcheck disable=SC2086
		"$LATSCOPE" dtl synth --formats "$F" --cpus 2 -d 3s --aux-size $a $o -o s.data 2> syn.err ||
			die "synth --aux-size $a $v: $(cat syn.err)"
		n=$(sed -n 's/.*: \([0-9]*\) DTL entries.*/\1/p' syn.err)
		w=$(sed -n 's/.* \([0-9]*\) at \([0-9]*\) AUX buffer wraps.*/\2/p' syn.err)
		lost=$(sed -n 's/.* \([0-9]*\) at \([0-9]*\) AUX buffer wraps.*/\1/p' syn.err)
		[ -n "$n" ] && [ -n "$w" ] || die "synth's summary: $(cat syn.err)"
		[ "$w" -gt 0 ] || die "$a $v: synth made no wrap: $(cat syn.err)"
		in=s.data
		[ $v = pipe ] && in=-
		"$LATSCOPE" dtl report --json "$in" < s.data > r.json 2> r.err || die "$a $v: report failed: $(cat r.err)"
		re=$("$TOOLS/histcmp" --get r.json data.entries) || die "no data.entries"
		rw=$("$TOOLS/histcmp" --get r.json data.aux_wraps) || die "no data.aux_wraps"
		[ "$re" = "$n" ] || die "$a $v: synth wrote $n entries, dtl report has $re"
		[ "$rw" = "$w" ] || die "$a $v: synth made $w wraps, dtl report counts $rw"
		"$LATSCOPE" dtl report --strict "$in" < s.data > /dev/null 2> strict.err && die "$a $v: --strict exit 0 with $w wraps"
		grep -q "AUX buffer wrapped $w times" strict.err || die "$a $v: --strict does not say the wraps: $(tail -1 strict.err)"
		"$LATSCOPE" dtl script --csv -i "$in" < s.data > s.csv 2> s.err || die "$a $v: script failed: $(cat s.err)"
		sn=$(($(grep -c . s.csv) - 1))
		[ "$sn" = "$n" ] || die "$a $v: synth wrote $n entries, dtl script printed $sn"
		grep -q "gaps:.*aux_wrap $w" s.err || die "$a $v: script lists no $w aux_wrap gaps: $(grep gaps s.err)"
		echo "ok: --aux-size $a $v: $n entries through $w wraps ($lost lost there), all decoded, the wraps said"
	done
done
"$LATSCOPE" dtl synth --formats "$F" --cpus 2 -d 3s --aux-size 0 -o s.data 2> syn.err || die "synth --aux-size 0"
"$LATSCOPE" dtl report --strict s.data > /dev/null 2> strict.err || die "--aux-size 0: --strict exit 1: $(cat strict.err)"
echo "ok: --aux-size 0: no wrap, --strict exit 0"
