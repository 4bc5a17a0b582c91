#!/bin/sh
# SPDX-License-Identifier: MIT
# rtla timerlat hist against latscope on the same activations (tests/kernels/
# guest/timerlat_rtla.sh).  rtla's window is its saved trace's activations
# per CPU and context (one generation of activation numbers); latscope's -t
# file must hold every one of them with the same latency (two instances, one
# kernel sample each); rtla's count is at most their number and at least 90 %
# of it (its histogram runs from its program's attach to its detach, its
# trace from its tracer's start to the save), and rtla's max (us, truncated)
# is the truncated latency of one of them.
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
def gens(path):
    """(cpu, ctx) -> its generations (the activation numbers begin again
    when the tracer's threads restart, as rtla's start may make them), each
    a dict seq -> latency"""
    out = {}
    for line in open(path, errors='replace'):
        m = REC.search(line)
        if not m:
            continue
        g = out.setdefault((int(m.group(1)), CTX[m.group(4)]), [{}])
        seq = int(m.group(3))
        if g[-1] and seq <= max(g[-1]):
            g.append({})
        g[-1][seq] = int(m.group(5))
    return out
LG, RG = gens(A + '/lt.trace'), gens(A + '/rtla.trace')
# rtla's summary: the first count:/max: rows are per CPU (IRQ-000 Thr-000
# [Usr-000] IRQ-001 ...), a second set sums the CPUs
names, rows = None, {}
for line in open(A + '/rtla.out', errors='replace'):
    f = line.split()
    if f and f[0] == 'Index' and names is None:
        names = f[1:]
    elif f and f[0] in ('count:', 'max:') and names and f[0] not in rows:
        rows[f[0]] = dict(zip(names, f[1:]))
cols = {'IRQ-000': (0, 'irq'), 'Thr-000': (0, 'thread'), 'IRQ-001': (1, 'irq'), 'Thr-001': (1, 'thread')}
if any(c not in rows.get('count:', {}) or c not in rows.get('max:', {}) for c in cols):
    sys.exit('FAIL: rtla\'s summary: header %s rows %s' % (names, rows))
for col, key in cols.items():
    rg = RG.get(key, [])
    if len(rg) != 1:
        sys.exit('FAIL: CPU%d %s: rtla\'s trace has %d generations of activation numbers, not 1'
                 % (key[0], key[1], len(rg)))
    r = rg[0]
    # latscope's generation that holds them: every one, the same latency
    l = max(LG.get(key, [{}]), key=lambda g: sum(1 for s in r if g.get(s) == r[s]))
    bad = [s for s in r if l.get(s) != r[s]]
    if bad:
        sys.exit('FAIL: CPU%d %s: %d of rtla\'s %d activations are not latscope\'s with the same latency, e.g. '
                 '#%d: rtla %s, latscope %s' % (key[0], key[1], len(bad), len(r), bad[0], r[bad[0]], l.get(bad[0])))
    rc, rm = int(rows['count:'][col]), int(rows['max:'][col])
    # rtla's histogram counts from its program's attach to its detach; its
    # trace, saved after, runs from its tracer's start to the save
    if rc > len(r):
        sys.exit('FAIL: CPU%d %s: rtla counted %d; its trace has %d activations (#%d..#%d): its ring overwrote '
                 'the oldest (the guest test sets its size)' % (key[0], key[1], rc, len(r), min(r), max(r)))
    if not (0.9 * len(r) <= rc <= len(r)):
        sys.exit('FAIL: CPU%d %s: rtla counted %d; its trace has %d activations' % (key[0], key[1], rc, len(r)))
    if rm not in {v // 1000 for v in r.values()}:
        sys.exit('FAIL: CPU%d %s: rtla\'s max %d us is no latency of its trace' % (key[0], key[1], rm))
    print('CPU%d %s: rtla count %d, max %d us; its %d traced activations (#%d..#%d) all latscope\'s, '
          'latencies equal (latscope\'s max over them %d us)' % (key[0], key[1], rc, rm, len(r), min(r), max(r),
          max(r.values()) // 1000))
PY
