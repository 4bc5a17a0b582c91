#!/bin/sh
# SPDX-License-Identifier: MIT
# A full device on stdout: every printing command ends with one line naming
# the error and exit 2 (never a silent 0).  A closed pipe likewise.
. "$TESTS_DIR/lib.sh"
[ -w /dev/full ] || skip "no /dev/full"
FIX=$TOOLS/histfix
"$FIX" -o "$TMP/fix.data" --formats "$TESTS_DIR/data/formats" <"$TESTS_DIR/golden/hist/scenario.txt" || die "histfix"
REC=$TESTS_DIR/data/rec/sched-irq-timer.perf.data
full() {
	"$LATSCOPE" "$@" >/dev/full 2>"$TMP/err"; rc=$?
	[ $rc -eq 2 ] || die "$*: exit $rc on /dev/full ($(cat "$TMP/err"))"
	grep -q "error writing standard output: No space left on device" "$TMP/err" ||
		die "$*: no write error line: $(cat "$TMP/err")"
	[ "$(grep -c 'error writing' "$TMP/err")" -eq 1 ] || die "$*: the error said twice: $(cat "$TMP/err")"
}
full --help
full help hist
full script -i "$REC" -j 1
full script -i "$REC" -j 2
full script -i "$REC" --json
full hist report -i "$TMP/fix.data"
full hist report -i "$TMP/fix.data" --json
full hist report --help
printf '       osnoise/1-16555   [001] .....    807.051924: 400000          0 100.00000       0      0      0      0      0      0\n' >"$TMP/k.txt"
full osnoise top --parse-kernel "$TMP/k.txt"
if [ "$(id -u)" = 0 ] && "$LATSCOPE" osnoise record -c 0 -d 1 -p 200000 -o "$TMP/o.data" >/dev/null 2>&1; then
	full osnoise top -i "$TMP/o.data"
	full osnoise hist -i "$TMP/o.data"
	full osnoise trace -i "$TMP/o.data"
	full osnoise top -i "$TMP/o.data" --json
	full osnoise top -c 0 -d 1 -p 200000
	full hist record -d 1 -c 0 --no-keep-busy
fi
# a closed pipe: the quiet end perf and coreutils have: no message, killed
# by SIGPIPE (141), for every offline command that writes much
# (an LPAR of 8 vCPUs for 5 s: megabytes of lines, more than a pipe holds)
big=$TMP/big.data
"$LATSCOPE" dtl synth -q -o "$big" --cpus 8 -d 5s ||
	die "dtl synth failed"
for c in "script -i $big" "dtl script $big" "script -i $big --json"; do
	{ "$LATSCOPE" $c 2>"$TMP/err"; echo $? > "$TMP/rc"; } | head -1 >/dev/null
	[ "$(cat "$TMP/rc")" = 141 ] && [ ! -s "$TMP/err" ] ||
		die "$c | head -1: exit $(cat "$TMP/rc"), stderr: $(cat "$TMP/err")"
done
echo "ok: /dev/full gives exit 2 and one line for script, hist, osnoise and help"
