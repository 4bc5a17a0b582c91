#!/bin/sh
# SPDX-License-Identifier: MIT
# hist top's screen: one line per CPU and an "all" line (count, min, p50,
# p99, max per kind) by default, cut to the terminal (a pseudo-terminal of a
# set size, python3's pty module): no line wider than its columns, no more
# lines per screen than its rows, the kinds and CPUs that did not fit named;
# piped, a whole snapshot per refresh, line-based, no escape code; --full
# the whole histograms as before.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v python3 >/dev/null || skip "no python3"
T="$LATSCOPE hist top -c 0,1 -d 2 --refresh 500ms --all-tasks --backend perf"

# ptytop ROWS COLS OUT CMD...: CMD with stdout on a ROWSxCOLS terminal, what it drew in OUT
ptytop() {
	python3 - "$@" <<'PY' || die "ptytop $*"
import fcntl, os, pty, select, struct, subprocess, sys, termios
rows, cols, out, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
attr = termios.tcgetattr(s)
attr[1] &= ~termios.ONLCR	# the bytes as written
termios.tcsetattr(s, termios.TCSANOW, attr)
p = subprocess.Popen(cmd, stdout=s, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
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
open(out, "wb").write(buf)
sys.exit(0 if p.returncode in (0, 1) else 3)
PY
}

# screens ROWS COLS FILE WANT...: every refreshed screen fits, each has every WANT
screens() {
	python3 - "$@" <<'PY' || die "screens $*: $(od -c "$3" | head -30)"
import sys
rows, cols, f, want = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
d = open(f, "rb").read().decode()
parts = d.split("\x1b[H\x1b[2J")
tops = [p for p in parts if p.startswith("latscope hist top:")]
assert len(tops) >= 2, "%d screens" % len(tops)
for p in tops[:-1] if len(tops) > 2 else tops[:1]:
    lines = p.rstrip("\n").split("\n")
    assert len(lines) <= rows - 1, ("%d lines" % len(lines), lines)
    for l in lines:
        assert len(l) <= cols, ("too wide", l)
    for w in want:
        assert any(w in l for l in lines), ("missing", w, lines)
PY
}

ptytop 24 60 "$TMP/s1" $T
screens 24 60 "$TMP/s1" "wakeup (us)" " CPU   count" "   0 " "   1 " " all " "not shown (--full, or a wider terminal): timerandwakeup"
ptytop 6 200 "$TMP/s2" $T
# 6 rows: 5 lines (the cursor's stays free), 3 of headings, "all": no room for a CPU
ptytop 6 200 "$TMP/s2" $T
screens 6 200 "$TMP/s2" " all " "... 2 more CPUs (a taller terminal, or -c)"
# one row more: both CPUs fit exactly
ptytop 7 200 "$TMP/s3" $T
screens 7 200 "$TMP/s3" "   0 " "   1 " " all "
grep -q "more CPUs" "$TMP/s3" && die "7 rows: CPUs cut that fit"

# piped: a whole snapshot per refresh, numbers that add up, no escape code
$T >"$TMP/p" 2>"$TMP/err" || die "hist top piped: $(cat "$TMP/err")"
grep -q "$(printf '\033')" "$TMP/p" && die "escape codes in piped hist top"
[ "$(grep -c '^latscope hist top: ' "$TMP/p")" -ge 2 ] || die "piped: not a snapshot per refresh: $(cat "$TMP/p")"
awk '/^latscope hist top: / { s++ } s == 1 && /^ *[01] / { n += $2 } s == 1 && /^ *all / { a = $2 }
     END { if (n != a || a == "") { print "CPU counts " n " != all " a; exit 1 } }' "$TMP/p" ||
	die "piped: the CPU lines do not add up to all: $(sed -n 1,8p "$TMP/p")"
grep -q '^   0 ' "$TMP/p" && grep -q '^   1 ' "$TMP/p" || die "piped: no CPU lines"
# --full: the histograms on each screen
$T --full >"$TMP/f" 2>"$TMP/err" || die "hist top --full: $(cat "$TMP/err")"
[ "$(grep -c '^        latency      CPU0      CPU1       all' "$TMP/f")" -ge 2 ] || die "--full: no histograms per screen"
# --per-task: the worst tasks under the CPU lines, N of them piped, cut to the rows on a terminal
$T --per-task=3 --types wakeup >"$TMP/t" 2>"$TMP/err" || die "hist top --per-task: $(cat "$TMP/err")"
awk '/^latscope hist top: / { if (s && (h != 1 || n < 1 || n > 3)) bad = 1; s++; h = 0; n = 0; on = 0; next }
     /\(tasks, wakeup us, worst max first\)$/ { h++; on = 1; next }
     on && NF == 0 { on = 0 } on && NF >= 6 { n++ }
     /^wakeup \(us\)$/ { exit }
     END { if (bad || s < 2) exit 1 }' "$TMP/t" || die "--per-task screens: $(sed -n 1,20p "$TMP/t")"
ptytop 10 100 "$TMP/s4" $T --per-task --types wakeup
screens 10 100 "$TMP/s4" "(tasks, wakeup us, worst max first)"
# --json: the JSON alone on stdout, however many refreshes passed
$T --json >"$TMP/j" 2>"$TMP/err" || die "hist top --json: $(cat "$TMP/err")"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema"] == "latscope.hist/1"' "$TMP/j" ||
	die "hist top --json: not JSON alone: $(head -3 "$TMP/j")"
echo "ok: hist_top_view"
