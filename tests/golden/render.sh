#!/bin/sh
# SPDX-License-Identifier: MIT
# The report's forms (lib/print/render.h): the Markdown summary of each
# document must equal the golden file under tests/golden/render/, written the
# same by a command's --render md=FILE as by `latscope render -f md` on that
# command's --json document (one model, one renderer).  Documents: hist report
# of the scripted hist fixture, dtl report of the fixed-seed dtl synth LPAR,
# and a real osnoise document (osnoise-power.json: the replay of a POWER
# guest's osnoise_thread run, where one noisegen entry was lost before the
# loop's periods were made contiguous: unmatched_exit 1 is in it).
. "$TESTS_DIR/lib.sh"
G=$TESTS_DIR/golden/render
F=$TESTS_DIR/data/formats
cd "$TMP" || die "no tmp"

"$TOOLS/histfix" -o hist.data --formats "$F" < "$TESTS_DIR/golden/hist/scenario.txt" || die "histfix"
"$LATSCOPE" hist report -i hist.data --json=hist.json --render md=hist.md > /dev/null 2> err ||
	die "hist report --render: $(cat err)"
diff -u "$G/hist.md" hist.md || die "hist.md differs from $G/hist.md"

"$LATSCOPE" dtl synth -q --formats "$F" --cpus 2 --duration 80ms --seed 7 --fault-hz 40 --confer-hz 40 \
	-o dtl.data || die "synth"
"$LATSCOPE" dtl report --json=dtl.json --render md=dtl.md dtl.data > /dev/null 2> err ||
	die "dtl report --render: $(cat err)"
diff -u "$G/dtl.md" dtl.md || die "dtl.md differs from $G/dtl.md"

"$LATSCOPE" render -f md -i "$G/osnoise-power.json" -o osnoise.md || die "render osnoise"
diff -u "$G/osnoise.md" osnoise.md || die "osnoise.md differs from $G/osnoise.md"

# the command's form and the saved document's are the same bytes
for d in hist dtl; do
	"$LATSCOPE" render -f md -i $d.json -o again-$d.md || die "render $d"
	cmp -s $d.md again-$d.md || die "$d: --render md and latscope render -f md differ"
done
# --html is --render html=FILE: the same page as latscope html
"$LATSCOPE" dtl report --html p1.html --render html=p2.html dtl.data > /dev/null || die "dtl report --html"
"$LATSCOPE" html -i dtl.json -o p3.html || die "latscope html"
cmp -s p1.html p2.html && cmp -s p1.html p3.html || die "--html, --render html= and latscope html differ"

# refusals: one line, exit 2, nothing written
"$LATSCOPE" render -f md -i "$TESTS_DIR/golden/script/sched-irq-timer.json" -o x.md 2> e1
[ $? -eq 2 ] && [ ! -e x.md ] && [ "$(wc -l < e1)" -eq 1 ] || die "a script document: $(cat e1)"
grep -q "has no md form" e1 || die "refusal: $(cat e1)"
"$LATSCOPE" render -f pdf -i dtl.json -o x.pdf 2> e2
[ $? -eq 2 ] && [ ! -e x.pdf ] && grep -q "no form 'pdf' (html, md)" e2 || die "unknown form: $(cat e2)"
"$LATSCOPE" dtl report --render pdf=x.pdf dtl.data > /dev/null 2> e3
[ $? -eq 2 ] && [ ! -e x.pdf ] && grep -q "FORMAT one of html, md" e3 || die "--render pdf=: $(cat e3)"
echo "ok: md summaries of hist, dtl report and osnoise as the golden files; --render and latscope render agree"
