#!/bin/sh
# SPDX-License-Identifier: MIT
# The status line of long live runs (hist record, osnoise hist): on stderr
# under a terminal (a pseudo-terminal made by python3's pty module), one
# line redrawn in place with elapsed/duration, events and lost counts that
# grow, erased before the report; never a byte of it when stderr is a pipe
# (stderr byte-identical to --no-progress, no escape code anywhere), and
# --progress forces it, --no-progress suppresses it on a terminal.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v python3 >/dev/null || skip "no python3"

# ptyrun OUT ERR CMD...: CMD with stdout to OUT and stderr on a terminal,
# what the terminal got in ERR (bytes as they came)
ptyrun() {
	python3 - "$@" <<'PY' || die "ptyrun $*"
import os, pty, select, subprocess, sys
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
m, s = pty.openpty()
with open(out, "wb") as fo:
    p = subprocess.Popen(cmd, stdout=fo, stderr=s, stdin=subprocess.DEVNULL)
os.close(s)
buf = b""
while True:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        try:
            d = os.read(m, 65536)
        except OSError:
            break
        if not d:
            break
        buf += d
    elif p.poll() is not None:
        break
p.wait()
open(err, "wb").write(buf)
sys.exit(0 if p.returncode in (0, 1) else 3)
PY
}

# check ERR DUR WHAT: the line came at least twice, numbers sane and growing,
# erased at the end
check_lines() {
	python3 - "$@" <<'PY' || die "status line of $1: $(od -c "$1" | head -20)"
import re, sys
data = open(sys.argv[1], "rb").read().decode()
dur, what = int(sys.argv[2]), sys.argv[3]
pat = re.compile(r"\r\x1b\[K(\d+) s of (\d+) s, (\d+) %s, (\d+) lost" % what)
seen = pat.findall(data)
assert len(seen) >= 2, seen
el = [int(a) for a, _, _, _ in seen]
ev = [int(c) for _, _, c, _ in seen]
assert all(int(b) == dur for _, b, _, _ in seen), seen
assert el == sorted(el) and el[-1] >= 1 and el[-1] <= dur, el
assert ev == sorted(ev) and ev[-1] > 0, ev
assert data.endswith("\r\x1b[K") or "\r\x1b[K" in data[data.rfind("lost"):], "not erased"
PY
}

H="$LATSCOPE hist record -d 3 -c 0 --types wakeup --backend perf"
ptyrun "$TMP/o1" "$TMP/e1" $H
check_lines "$TMP/e1" 3 events
grep -q "$(printf '\033')" "$TMP/o1" && die "hist record stdout has escape codes"
grep -q '^wakeup (us)' "$TMP/o1" || die "hist record report: $(head -3 "$TMP/o1")"
# the terminal got nothing but the line and its erasure (and the losses a
# run names: samples the kernel fired and never delivered, docs/hist.md)
python3 -c 'import re,sys; d=open(sys.argv[1],"rb").read().decode(); r=re.sub(r"\r\x1b\[K([^\r\x1b]*)", "", d); r=re.sub(r"(?m)^latscope hist record: (warning: (the kernel fired \d+ samples it never delivered|CPU\d+: \d+ of \d+ timer-workload cycles|the kernel throttled)|this kernel drops perf samples).*$", "", r); sys.exit(1 if r.strip() else 0)' "$TMP/e1" ||
	die "hist record: more than the status line on the terminal: $(od -c "$TMP/e1" | tail -5)"

# piped: not a byte of it, the same stderr as --no-progress
$H >"$TMP/o2" 2>"$TMP/e2" || die "hist record piped: $(cat "$TMP/e2")"
$H --no-progress >"$TMP/o3" 2>"$TMP/e3" || die "hist record --no-progress: $(cat "$TMP/e3")"
# (the losses each run names, and its self-test's verdict, are its own:
# left out of the comparison)
noloss() { grep -Ev '^latscope hist record: (warning: (the kernel fired [0-9]+ samples it never delivered|CPU[0-9]+: [0-9]+ of [0-9]+ timer-workload cycles|the kernel throttled)|this kernel drops perf samples)' "$1" > "$1.nl"; }
noloss "$TMP/e2"; noloss "$TMP/e3"
cmp -s "$TMP/e2.nl" "$TMP/e3.nl" || die "piped stderr differs from --no-progress: $(od -c "$TMP/e2" | head)"
grep -q "$(printf '\033')\|$(printf '\r')" "$TMP/e2" "$TMP/o2" && die "escape codes in a piped run"
# --no-progress on a terminal: none; --progress into a pipe: there
ptyrun "$TMP/o4" "$TMP/e4" $H --no-progress
grep -q "lost" "$TMP/e4" && die "--no-progress drew the line"
$H --progress >/dev/null 2>"$TMP/e5" || die "hist record --progress: $(cat "$TMP/e5")"
check_lines "$TMP/e5" 3 events
# -q: no line by default, but --progress -q asks for it
$H -q >/dev/null 2>"$TMP/e6"
ptyrun "$TMP/o6" "$TMP/e6" $H -q
grep -q "lost" "$TMP/e6" && die "-q drew the line"

# osnoise hist: gaps
O="$LATSCOPE osnoise hist -c 0 -d 3 -T 1 -p 100ms -r 50ms"
ptyrun "$TMP/o7" "$TMP/e7" $O
check_lines "$TMP/e7" 3 gaps
grep -q "$(printf '\033')" "$TMP/o7" && die "osnoise hist stdout has escape codes"
grep -q "^# latscope osnoise histogram" "$TMP/o7" || die "osnoise hist report: $(head -3 "$TMP/o7")"
$O >/dev/null 2>"$TMP/e8" || die "osnoise hist piped: $(cat "$TMP/e8")"
grep -q "$(printf '\033')\|$(printf '\r')" "$TMP/e8" && die "escape codes in a piped osnoise hist"
echo "ok: progress"
