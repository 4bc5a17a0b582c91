#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML pages (docs/html.md): dtl report --html, hist report --html,
# osnoise hist --html, dtl why --html and `latscope html`.  Structure and content are checked
# with python3 (tests/html_check.py: every SVG well-formed XML, the page
# self-contained; the DTL timeline's preempted/ceded/delay time equal to what
# `dtl script --json` says of the same entries, one lane group per vCPU, the
# worst delays marked at their times; the osnoise bars in proportion).  Then
# a real browser: Debian's chromium, headless, screenshots each page (not
# blank: colours and ink counted by decoding the PNG) and must log no console
# error; a page with a script error and a broken SVG path must make it log
# one (the detector can fail).  A large DTL recording gives a page under
# 5 MB.  Skips the browser part only where chromium is not installed
# (scripts/deps.sh installs it with the test packages); HTML_SHOTS=DIR keeps
# the screenshots.
. "$TESTS_DIR/lib.sh"
PY=/usr/bin/python3
C=$TESTS_DIR/html_check.py
[ -x $PY ] || skip "no /usr/bin/python3"
cd "$TMP" || die "no tmp"
R=$TESTS_DIR/data/rec

# 1. DTL: a synthetic LPAR with sched samples (the merged timeline)
"$LATSCOPE" dtl synth -q -o s.data --cpus 4 --duration 2 --seed 5 --load 0.7 --preempt-hz 200 \
	|| die "synth"
"$LATSCOPE" dtl report --json=rep.json --html dtl.html --kallsyms "$TESTS_DIR/data/kallsyms-lpar" \
	s.data > rep.txt 2> rep.err || die "dtl report --html: $(cat rep.err)"
grep -q "^DTL report: s.data" rep.txt || die "dtl report --html: the text is not on stdout"
"$LATSCOPE" dtl script --json s.data > script.jsonl 2> /dev/null || die "dtl script --json"
$PY "$C" dtl dtl.html rep.json script.jsonl || die "dtl page"
$PY "$C" svg dtl.html > /dev/null || die "dtl page"
# the same page from the saved document
"$LATSCOPE" html -i rep.json -o again.html || die "latscope html"
cmp -s dtl.html again.html || die "latscope html draws another page than dtl report --html"
# without sched samples: the fast path feeds the timeline too
"$LATSCOPE" dtl synth -q -o ns.data --cpus 2 --duration 1 --seed 6 --no-sched || die "synth --no-sched"
"$LATSCOPE" dtl report --json=nrep.json --html nodtl.html ns.data > /dev/null 2>&1 || die "report --no-sched"
"$LATSCOPE" dtl script --json ns.data > ns.jsonl 2> /dev/null || die "dtl script ns"
$PY "$C" dtl nodtl.html nrep.json ns.jsonl || die "dtl page without sched samples"

# 2. hist report: the shipped recording
"$LATSCOPE" hist report -i "$R/sched-irq-timer.perf.data" --html hist.html > /dev/null 2>&1 \
	|| die "hist report --html"
$PY "$C" kinds hist.html wakeup || die "hist page"

# 3. osnoise hist: a short recording made here
if "$LATSCOPE" osnoise record -c 0 -H 1 -d 1 -p 200000 -o o.data > /dev/null 2> orec.err; then
	"$LATSCOPE" osnoise hist -i o.data --json=o.json --html osnoise.html > /dev/null 2>&1 \
		|| die "osnoise hist --html"
	$PY "$C" osnoise osnoise.html o.json || die "osnoise page"
else
	echo "note: osnoise record refused here ($(head -1 orec.err)): no osnoise page" >&2
fi

# 3b. dtl why: the worst wakeup latencies with the hypervisor's lane
"$LATSCOPE" dtl synth -q -o why.data --cpus 2 --duration 1 --seed 9 --wakeup-preempts 400 || die "synth why"
"$LATSCOPE" dtl why -n 10 --json=why.json --html why.html why.data > /dev/null 2> why.err ||
	die "dtl why --html: $(cat why.err)"
$PY "$C" why why.html why.json || die "why page"
"$LATSCOPE" html -i why.json -o why2.html && cmp -s why.html why2.html || die "latscope html draws another why page"

# 4. refusals: one line, exit 2, nothing written
printf '{"schema":"latscope.script/1"}\n' > s.json
"$LATSCOPE" html -i s.json -o x.html 2> e1; [ $? -eq 2 ] || die "a script document was drawn"
grep -q "has no page" e1 && [ ! -e x.html ] || die "refusal: $(cat e1)"
printf '{"schema":"latscope.dtl-report/1", "cpus": [' > cut.json
"$LATSCOPE" html -i cut.json -o x.html 2> e2; [ $? -eq 2 ] || die "a cut document was drawn"
[ "$(wc -l < e2)" -eq 1 ] && [ ! -e x.html ] || die "cut document: $(cat e2)"
# hostile but valid JSON: wrong types everywhere draw an empty page, no crash
printf '{"schema":"latscope.dtl-report/1","cpus":7,"vcpu_timeline":{"bins":"x","cpus":[{"task":[99]}]},"worst":[1]}' \
	> odd.json
"$LATSCOPE" html -i odd.json -o odd.html || die "odd document"
$PY "$C" svg odd.html > /dev/null 2>&1 || true

# byte-flipped and cut documents: exit 0 or 2 with a message, never a crash
$PY - rep.json <<'PYEOF' || die "mutating rep.json"
import random, sys
d = open(sys.argv[1], "rb").read()
r = random.Random(7)
for i in range(40):
    b = bytearray(d)
    if i % 4 == 0:
        b = b[:r.randrange(len(b))]
    else:
        for _ in range(8):
            b[r.randrange(len(b))] = r.randrange(256)
    open("mut%d.json" % i, "wb").write(bytes(b))
PYEOF
i=0
while [ $i -lt 40 ]; do
	"$LATSCOPE" html -i mut$i.json -o mut.html --force > /dev/null 2> mut.err; rc=$?
	case $rc in
	0) ;;
	2) [ -s mut.err ] || die "mut$i.json: exit 2 without a message" ;;
	*) die "latscope html on mut$i.json: exit $rc ($(head -2 mut.err))" ;;
	esac
	i=$((i + 1))
done

# 5. a large recording: the page stays small
"$LATSCOPE" dtl synth -q -o big.data --cpus 64 --duration 20 --no-sched --seed 7 || die "synth big"
"$LATSCOPE" dtl report --html big.html big.data > /dev/null 2>&1 || die "report big"
sz=$(wc -c < big.html)
[ "$sz" -lt 5000000 ] || die "the page of a 64-vCPU recording is $sz bytes"
$PY "$C" svg big.html > /dev/null || die "big page"

# 6. a real browser
B=$(command -v chromium || command -v chromium-browser || true)
[ -n "$B" ] || skip "no chromium (apt-get install chromium); the structure checks above passed"
shot() {	# shot PAGE PNG: screenshot, stderr with the console kept
	timeout 90 "$B" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$TMP/chromium" --no-first-run \
		--hide-scrollbars --screenshot="$2" --window-size=1400,2000 "file://$TMP/$1" \
		> "$2.out" 2> "$2.log" || die "chromium on $1: $(tail -3 "$2.log")"
	[ -s "$2" ] || die "chromium wrote no screenshot of $1"
}
printf '<!DOCTYPE html><html><body><svg width="90" height="90"><path d="M0 0 Lx"/></svg>' > bad.html
printf '<script>no_such_function()</script></body></html>\n' >> bad.html
shot bad.html bad.png
grep -q "CONSOLE" bad.png.log || die "a page with errors logged none: the console check cannot fail"
pages="dtl.html hist.html why.html"
[ -s osnoise.html ] && pages="$pages osnoise.html"
for p in $pages; do
	shot "$p" "$p.png"
	if grep "CONSOLE" "$p.png.log" > console.txt; then
		die "$p logs console errors: $(head -3 console.txt)"
	fi
	$PY "$C" png "$p.png" 12 0.02 || die "$p's screenshot"
	[ -n "${HTML_SHOTS:-}" ] && mkdir -p "$HTML_SHOTS" && cp "$p.png" "$HTML_SHOTS/"
done
echo "ok: html pages ($pages) drawn, checked, rendered by $(basename "$B") without console errors"
