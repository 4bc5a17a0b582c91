#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest's `timerlat --backend bpf` runs (tests/kernels/guest/
# timerlat_bpf.sh) against the truth instance's trace:
#  bpf, stop  per CPU and context, the truth's records of the run (between
#         the guest's marks, in the activation-number generation that holds
#         the run's seq_first to seq_last) are
#         exactly as many as the JSON counts, with the same min, max and
#         sum (avg x count, avg truncated); nothing missed, no program miss;
#         the stop is a thread sample >= 1 us, exit 1.
#  auto   stderr says "backend bpf".
#  fast   at 100 us: the bpf path misses no activation; the trace path's
#         losses (overrun, missed) are printed beside it.
#  user   the return-to-user latency has samples, and the -t file's window
#         records of context user-ret equal the JSON's per CPU.
. "$TESTS_DIR/lib.sh"
A=$ART
for f in bpf auto fast_trace fast_bpf user; do
	[ "$(cat "$A/$f.rc")" = 0 ] || die "$f: exit $(cat "$A/$f.rc"): $(tail -3 "$A/$f.err")"
done
grep -q 'backend bpf' "$A/auto.err" || die "auto: no 'backend bpf' line: $(cat "$A/auto.err")"
ov=$(awk -F': *' '$1 ~ /^overrun|dropped events/ { s += $2 } END { print s + 0 }' "$A/truth.stats")
[ "$ov" = 0 ] || die "the truth instance lost $ov events: it cannot serve as the truth"
python3 - "$A" <<'PY' || exit 1
import json, re, sys
A = sys.argv[1]
REC = re.compile(r'\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+#(\d+)\s+context\s+(\S+)\s+timer_latency\s+(\d+)\s+ns')
MARK = re.compile(r'tracing_mark_write:\s+latscope run (\S+) (begins|ends)')
CTX = {'irq': 'irq', 'thread': 'thread', 'user-ret': 'user'}

def runs(path):
    """name -> the truth's records between its marks, in order"""
    out, cur = {}, None
    for line in open(path, errors='replace'):
        m = MARK.search(line)
        if m:
            cur = m.group(1) if m.group(2) == 'begins' else None
            if cur:
                out[cur] = []
            continue
        m = REC.search(line)
        if m and cur:
            out[cur].append((int(m.group(1)), CTX[m.group(4)], int(m.group(3)), int(m.group(5))))
    return out

def generations(recs):
    """the records cut where the activation numbers begin again (the
    tracer's threads restarted)"""
    out, last = [[]], None
    for r in recs:
        if last is not None and r[2] < last:
            out.append([])
        last = r[2]
        out[-1].append(r)
    return out

R = runs(A + '/truth.txt')

def check(name, stopped=False):
    doc = json.load(open('%s/%s.json' % (A, name)))
    if doc['source']['ran'] != 'bpf':
        sys.exit('FAIL: %s: ran %s, not bpf' % (name, doc['source']['ran']))
    if doc['input']['bpf_misses']:
        sys.exit('FAIL: %s: the program missed %d samples' % (name, doc['input']['bpf_misses']))
    total = 0
    for cpu in doc['cpus']:
        c = cpu['cpu']
        for x in ('irq', 'thread'):
            got = cpu[x]
            if not got['count']:
                if stopped:
                    continue
                sys.exit('FAIL: %s: CPU%d %s: no samples' % (name, c, x))
            # the generation of the run's activations: the one holding
            # seq_first..seq_last (whether latscope's start restarted the
            # threads depends on the kernel: 7.2 joins a running tracer)
            cands = []
            for g in generations([r for r in R[name] if r[0] == c and r[1] == x]):
                sel = [(s, l) for (_, _, s, l) in g if got['seq_first'] <= s <= got['seq_last']]
                if sel and sel[0][0] == got['seq_first'] and sel[-1][0] == got['seq_last']:
                    cands.append(sel)
            if not cands:
                sys.exit('FAIL: %s: CPU%d %s: no run of the truth\'s records from #%d to #%d'
                         % (name, c, x, got['seq_first'], got['seq_last']))
            sel = cands[-1]
            want = [l for (_, l) in sel]
            seqs = [s for (s, _) in sel]
            if len(want) != got['count'] or min(want) != got['min_ns'] or max(want) != got['max_ns'] \
                    or sum(want) // len(want) != got['avg_ns']:
                sys.exit('FAIL: %s: CPU%d %s: JSON count %d min %d max %d avg %d; the truth\'s #%d..#%d: '
                         '%d min %d max %d avg %d' % (name, c, x, got['count'], got['min_ns'], got['max_ns'],
                         got['avg_ns'], got['seq_first'], got['seq_last'], len(want),
                         min(want or [0]), max(want or [0]), sum(want) // max(len(want), 1)))
            if got['missed'] or len(seqs) != seqs[-1] - seqs[0] + 1:
                sys.exit('FAIL: %s: CPU%d %s: missed %d' % (name, c, x, got['missed']))
            total += len(want)
    print('%s: the bpf counts equal the kernel\'s records of the run (%d samples, per CPU and context count, '
          'min, max, avg), none missed' % (name, total))
    return doc

check('bpf')
doc = check('stop', True)
st = doc['stop']
if int(open(A + '/stop.rc').read()) != 1 or not st or st['context'] != 'thread' or st['latency_ns'] < 1000:
    sys.exit('FAIL: stop: exit %s, stop %s' % (open(A + '/stop.rc').read().strip(), st))
print('stop: exit 1 at CPU%d thread #%d %d ns' % (st['cpu'], st['seq'], st['latency_ns']))

fb = json.load(open(A + '/fast_bpf.json'))
ft = json.load(open(A + '/fast_trace.json'))
mb = sum(fb['input']['missed'].values())
mt = sum(ft['input']['missed'].values())
if mb or fb['input']['bpf_misses']:
    sys.exit('FAIL: fast: the bpf path at 100 us missed %d activations' % mb)
print('fast (100 us, every CPU): bpf %d samples, 0 missed; trace %d samples, %d missed, overrun %d'
      % (fb['input']['records'], ft['input']['records'], mt, ft['input']['overrun']))

u = json.load(open(A + '/user.json'))
MK = re.compile(r'(\d+\.\d+):\s+tracing_mark_write:\s+latscope window (start|end)')
inside, n = False, {}
for line in open(A + '/user.trace', errors='replace'):
    m = MK.search(line)
    if m:
        inside = m.group(2) == 'start'
        continue
    m = REC.search(line)
    if m and inside and m.group(4) == 'user-ret':
        n[int(m.group(1))] = n.get(int(m.group(1)), 0) + 1
for cpu in u['cpus']:
    if 'user' not in cpu or not cpu['user']['count'] or cpu['user']['count'] != n.get(cpu['cpu'], 0):
        sys.exit('FAIL: user: CPU%d: JSON %s, the window\'s user-ret records %d'
                 % (cpu['cpu'], cpu.get('user', {}).get('count'), n.get(cpu['cpu'], 0)))
print('user (-u): return-to-user samples per CPU %s, as the window\'s user-ret records; max %s ns'
      % ([c['user']['count'] for c in u['cpus']], [c['user']['max_ns'] for c in u['cpus']]))
PY
