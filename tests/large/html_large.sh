#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-html-large: the DTL page of a recording of tens of millions of
# entries stays under 5 MB, keeps its worst events, and costs bounded memory.
# (Separate from make check: the recording is about 3 GB and the run takes
# minutes.)  A synthetic LPAR of 64 vCPUs (`dtl synth --no-sched`, a high
# preempt rate) over LARGE_SECONDS (default 400 s of recorded time) must hold
# at least 20 million DTL entries; `dtl report --json=J --html=P` on it must
# write a page under 5 000 000 bytes whose timeline has one lane group per
# vCPU and one numbered mark per worst delay the JSON lists, with a maximum
# resident set under 512 MB (the timeline is binned per pixel column, nothing
# is kept per entry).  LARGE_DIR (default /var/tmp) holds the recording,
# deleted at the end.
. "$TESTS_DIR/lib.sh"
command -v python3 >/dev/null || skip "needs python3"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
secs=${LARGE_SECONDS:-400}
dir=$(mktemp -d "${LARGE_DIR:-/var/tmp}/latscope-large.XXXXXX")
trap 'rm -rf "$dir" "$TMP"' EXIT INT TERM
f=$dir/big.data
t0=$(date +%s)
"$LATSCOPE" dtl synth -q -o "$f" --cpus 64 --duration "${secs}s" --no-sched --load 0.9 \
	--preempt-hz 5000 --seed 11 || die "dtl synth"
t1=$(date +%s)
/usr/bin/time -f '%M %e' -o "$TMP/time" "$LATSCOPE" dtl report --json="$TMP/big.json" \
	--html "$TMP/big.html" "$f" > /dev/null 2> "$TMP/err" || die "dtl report --html: $(tail -2 "$TMP/err")"
read -r rss_kb wall < "$TMP/time"
python3 - "$TMP/big.json" "$TMP/big.html" "$rss_kb" <<'PY' || die "the page of the large recording (above)"
import json, sys, os, xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[1]))
page, rss_kb = sys.argv[2], int(sys.argv[3])
n = doc["data"]["entries"]
size = os.path.getsize(page)
def fail(m):
    print("FAIL: " + m)
    sys.exit(1)
if n < 20000000:
    fail("only %d DTL entries in the recording (want >= 20 million)" % n)
if size >= 5000000:
    fail("the page is %d bytes for %d entries" % (size, n))
if rss_kb >= 512 * 1024:
    fail("dtl report --html used %d kB" % rss_kb)
text = open(page, encoding="utf-8").read()
svgs = []
i = 0
while True:
    a = text.find("<svg", i)
    if a < 0:
        break
    b = text.find("</svg>", a) + len("</svg>")
    svgs.append(ET.fromstring(text[a:b]))
    i = b
NS = "{http://www.w3.org/2000/svg}"
marks = sum(1 for s in svgs for g in s.iter(NS + "g") if g.get("class") == "worst-mark")
want = len(doc.get("worst", []))
if want == 0 or marks != want:
    fail("%d worst marks in the page, the document lists %d" % (marks, want))
lanes = len(doc.get("vcpu_timeline", {}).get("cpus", []))
print("ok: %d DTL entries (64 vCPUs), page %d bytes (< 5 MB), %d timeline lane groups, %d worst marks, max RSS %d MB"
      % (n, size, lanes, marks, rss_kb // 1024))
PY
echo "times: dtl synth $((t1 - t0)) s, dtl report --json --html ${wall} s; recording $(($(stat -c %s "$f") / 1048576)) MB"
