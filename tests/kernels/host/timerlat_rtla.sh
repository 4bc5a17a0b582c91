#!/bin/sh
# SPDX-License-Identifier: MIT
# rtla timerlat hist against latscope on the same activations (tests/kernels/
# guest/timerlat_rtla.sh).  rtla's window is its saved trace's activation
# numbers per CPU and context (its record instance runs a little longer than
# its histogram: up to 3 activations at each edge); latscope's -t file must
# hold every one of those activations with the same latency (two instances,
# one kernel sample each); rtla's count is the number of them within 3 at
# each edge, and rtla's max (us, truncated) is the truncated latency of one
# of them.
. "$TESTS_DIR/lib.sh"
A=$ART
[ "$(cat "$A/lt.rc")" = 0 ] || die "latscope: exit $(cat "$A/lt.rc"): $(tail -3 "$A/lt.err")"
[ "$(cat "$A/rtla.rc")" = 0 ] || die "rtla: exit $(cat "$A/rtla.rc"): $(tail -3 "$A/rtla.err")"
[ -s "$A/rtla.trace" ] || die "rtla saved no trace"
python3 - "$A" <<'PY' || exit 1
import re, sys
A = sys.argv[1]
REC = re.compile(r'\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+#(\d+)\s+context\s+(\S+)\s+timer_latency\s+(\d+)\s+ns')
CTX = {'irq': 'irq', 'thread': 'thread', 'user-ret': 'user'}
def recs(path):
    out = {}
    for line in open(path, errors='replace'):
        m = REC.search(line)
        if m:
            out.setdefault((int(m.group(1)), CTX[m.group(4)]), {})[int(m.group(3))] = int(m.group(5))
    return out
L, R = recs(A + '/lt.trace'), recs(A + '/rtla.trace')
# rtla's summary rows: columns IRQ-000 Thr-000 IRQ-001 Thr-001
rows = {}
for line in open(A + '/rtla.out', errors='replace'):
    f = line.split()
    if f and f[0] in ('count:', 'max:'):
        rows[f[0]] = [int(x) for x in f[1:]]
cols = [(0, 'irq'), (0, 'thread'), (1, 'irq'), (1, 'thread')]
if len(rows.get('count:', [])) != 4 or len(rows.get('max:', [])) != 4:
    sys.exit('FAIL: rtla\'s summary: %s' % rows)
for i, key in enumerate(cols):
    r = R.get(key, {})
    if not r:
        sys.exit('FAIL: rtla\'s trace has no %s records' % (key,))
    lo, hi = min(r), max(r)
    l = L.get(key, {})
    missing = [s for s in range(lo, hi + 1) if s not in l]
    if missing:
        sys.exit('FAIL: CPU%d %s: latscope lacks activations %s of rtla\'s window #%d..#%d'
                 % (key[0], key[1], missing[:5], lo, hi))
    diff = [s for s in r if r[s] != l[s]]
    if diff:
        sys.exit('FAIL: CPU%d %s: latencies differ at %s' % (key[0], key[1], diff[:5]))
    n, rc, rm = hi - lo + 1, rows['count:'][i], rows['max:'][i]
    if not (n - 6 <= rc <= n):
        sys.exit('FAIL: CPU%d %s: rtla counted %d, its window has %d activations' % (key[0], key[1], rc, n))
    if rm not in {l[s] // 1000 for s in range(lo, hi + 1)}:
        sys.exit('FAIL: CPU%d %s: rtla\'s max %d us is no latency of the window' % (key[0], key[1], rm))
    top = max(l[s] for s in range(lo, hi + 1)) // 1000
    print('CPU%d %s: rtla count %d max %d us; latscope, the same %d activations (#%d..#%d), latencies equal, max %d us'
          % (key[0], key[1], rc, rm, n, lo, hi, top))
PY
