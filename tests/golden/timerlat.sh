#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat` on saved traces of a real kernel (tests/data/timerlat:
# a Debian 6.1-rt guest's timerlat trace, and latscope's own -t files of a run
# that -T 1 -s 1 stopped, with the kernel's stack, and of a -a run, with the
# osnoise events): the text of hist, top, trace and -a's analysis, and the
# Markdown summary, equal the golden files under
# tests/golden/timerlat/; --strict fails on missed activations; the HTML
# page is self-contained with one histogram per CPU and context; the window
# of a -t file is its marks.
. "$TESTS_DIR/lib.sh"
G=$TESTS_DIR/golden/timerlat
D=$TESTS_DIR/data/timerlat
cd "$TMP" || die "no tmp"
cp "$D/truth-rt61.txt" "$D/stop-rt61.txt" "$D/auto-rt61.txt" . || die "cannot copy the fixtures"	# (their names are in the text)
D=.
# same NAME ARGS...: latscope timerlat ARGS's stdout equals $G/NAME, exit as expected in $G/NAME.rc
same() {
	n=$1
	shift
	"$LATSCOPE" timerlat "$@" > "$n" 2> "$n.err"
	echo $? > "$n.rc"
	diff -u "$G/$n" "$n" || die "$n differs from $G/$n"
	diff -u "$G/$n.rc" "$n.rc" || die "$n: exit $(cat "$n.rc") (stderr: $(cat "$n.err"))"
}
same truth-hist hist --parse-kernel "$D/truth-rt61.txt"
same truth-hist-zeros hist --parse-kernel "$D/truth-rt61.txt" -b 500 -E 12 --with-zeros --no-irq
same truth-top top --parse-kernel "$D/truth-rt61.txt"
same stop-top top --parse-kernel "$D/stop-rt61.txt" -T 1
same stop-trace trace --parse-kernel "$D/stop-rt61.txt"
# -a on a -a run's -t file (the osnoise events in it): the split adds up
same auto-top top --parse-kernel "$D/auto-rt61.txt" -a 300 -i 1000000
"$LATSCOPE" timerlat hist --parse-kernel "$D/truth-rt61.txt" --json=t.json --render md=t.md --html t.html \
	> /dev/null 2>&1 || die "--json/--render/--html failed"
diff -u "$G/truth.md" t.md || die "truth.md differs from $G/truth.md"
"$LATSCOPE" render -f md -i t.json -o again.md && cmp -s t.md again.md || die "--render md and latscope render differ"
if command -v python3 > /dev/null; then
	python3 "$TESTS_DIR/html_check.py" svg t.html > svg.out || die "$(cat svg.out)"
	[ "$(grep -c 'class="hist"' t.html)" -ge 4 ] || die "t.html: fewer than 4 histograms"
fi
# a record missing in a context: named, and --strict exits 1
grep -v '#3 .*context thread' "$D/truth-rt61.txt" > gap.txt
"$LATSCOPE" timerlat hist --parse-kernel gap.txt --strict > /dev/null 2> gap.err
[ $? = 1 ] || die "--strict with a missed activation: not exit 1"
grep -q 'missed.*irq 0, thread 2 (by CPU: CPU0 1, CPU1 1)' gap.err || die "the missed activation is not named: $(cat gap.err)"
# the window of a -t file: records before its start mark are not counted
grep -q 'window start' "$D/stop-rt61.txt" || die "no start mark in the fixture"
"$LATSCOPE" timerlat hist --parse-kernel "$D/stop-rt61.txt" --json=s.json > /dev/null 2>&1
grep -q '"records":2,' s.json || die "the -t file's window: $(grep -o '"records":[0-9]*' s.json)"
# the stop sample recorded a moment before the start mark: the ring is on
# before latscope writes its mark, and the thread dumps its stack between its
# record and the kernel's stop.  With the kernel's note in the window (7.x
# writes "stop tracing hit on cpu N" there; a live run on 6.1 sees its ring
# turned off), the stop is that sample, said to be before the window, not in
# the histograms; -a splits it as it splits it inside the window
# premark IN OUT: IN with its start mark moved after the first thread record
# at or above 1 ms, and the kernel's note of the stop at its end
premark() {
	awk '/window start/ { m = $0; next } { print } !done && / context thread / && $(NF - 1) >= 1000000 { print m; done = 1 }' \
		"$1" > "$2"
	echo '      timerlat/1-230     [001] d..1.    16.467100: osnoise_stop_tracing: stop tracing hit on cpu 1' >> "$2"
	[ "$(grep -n 'window start' "$2" | cut -d: -f1)" -gt 2 ] || die "$2: the mark did not move"
}
premark "$D/stop-rt61.txt" pre-stop.txt
"$LATSCOPE" timerlat hist --parse-kernel pre-stop.txt -T 1 --json=pre.json > pre.out 2> pre.err
[ $? = 1 ] || die "a stop before the window: not exit 1 ($(cat pre.err))"
grep -q '^stop: CPU1 thread latency 4011.2 us >= 1.0 us (activation #111) (recorded just before the window opened' pre.out ||
	die "a stop before the window: $(grep stop: pre.out)"
tr -d ' \n' < pre.json > pre.flat
grep -q '"records":0,' pre.flat && grep -q '"kernel_stopped":true,"before_window":true,"hits":1' pre.flat ||
	die "a stop before the window: $(grep -o '"stop":{[^}]*}' pre.flat)"
premark "$D/auto-rt61.txt" pre-auto.txt
"$LATSCOPE" timerlat top --parse-kernel pre-auto.txt -a 300 -i 1000000 > pre-auto.out 2> pre-auto.err
[ $? = 1 ] || die "-a, a stop before the window: not exit 1 ($(cat pre-auto.err))"
sed -n '/^auto-analysis/,$p' "$G/auto-top" > want.aa
sed -n '/^auto-analysis/,$p' pre-auto.out > got.aa
[ -s want.aa ] && diff -u want.aa got.aa > aa.diff || die "-a, a stop before the window: $(cat aa.diff)"
echo "ok: hist, hist --with-zeros, top, top -T 1 (stop, stack), trace, md and HTML of a 6.1-rt trace; --strict on a missed activation; a stop recorded before the window, with -a"
