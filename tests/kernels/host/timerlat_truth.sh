#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest's runs of `latscope timerlat` (tests/kernels/guest/
# timerlat_truth.sh) against the truth instance's trace:
#  hist, top  latscope's window is the text between its marks in its own
#         trace (-t): every timerlat record there is the kernel's (the same
#         CPU, context, activation number and latency in the truth); every
#         truth record inside the window (less 5 ms at each end: the copies
#         of one record in two instances carry different timestamps) is
#         among them; the JSON's count, min and max per CPU and context are
#         those of the window's records, its missed count 0, and the window's
#         activation numbers run without a gap.
#  stop   -T 1: exit 1; the stop is a thread sample >= 1 us, the trace's
#         first (in the window, or just before its mark when the kernel
#         stopped after the mark: before_window); the kernel stopped
#         tracing; -s 1: the stack is in the JSON.
#  auto   -a 300: exit 1; the analysis is of the stop sample, its parts add
#         up to its latency, its IRQ latency is the trace's.
#  warm   --warm-up 1 -T 1: exit 1; the warm-up's thread samples did not
#         stop the kernel; the stop is the window's first thread sample.
#  lost   a 4 KiB ring, the reader stopped 2 s: the JSON names missed
#         activations and the ring's overrun, stderr says so, --strict exits 1.
#  settings  as they were before the runs.
. "$TESTS_DIR/lib.sh"
A=$ART
for f in hist top; do
	[ "$(cat "$A/$f.rc")" = 0 ] || die "$f: exit $(cat "$A/$f.rc"): $(tail -3 "$A/$f.err")"
done
ov=$(awk -F': *' '$1 ~ /^overrun|dropped events/ { s += $2 } END { print s + 0 }' "$A/truth.stats")
[ "$ov" = 0 ] || die "the truth instance lost $ov events: it cannot serve as the truth"
diff "$A/before.txt" "$A/after.txt" > "$TMP/settings.diff" ||
	die "settings not restored: $(cat "$TMP/settings.diff")"
echo "settings restored: $(tr '\n' ';' < "$A/after.txt" | cut -c1-160)"

python3 - "$A" <<'PY' || exit 1
import json, re, sys
A = sys.argv[1]
REC = re.compile(r'\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+#(\d+)\s+context\s+(\S+)\s+timer_latency\s+(\d+)\s+ns')
MARK = re.compile(r'(\d+\.\d+):\s+tracing_mark_write:\s+latscope window (start|end)')
CTX = {'irq': 'irq', 'thread': 'thread', 'user-ret': 'user'}

def records(path):
    out = []
    for line in open(path, errors='replace'):
        m = REC.search(line)
        if m:
            out.append((float(m.group(2)), int(m.group(1)), CTX[m.group(4)], int(m.group(3)), int(m.group(5))))
    return out

def window(path):
    start = end = None
    recs = []
    for line in open(path, errors='replace'):
        m = MARK.search(line)
        if m:
            if m.group(2) == 'start':
                start = float(m.group(1))
            else:
                end = float(m.group(1))
            continue
        m = REC.search(line)
        if m and start is not None and end is None:
            recs.append((float(m.group(2)), int(m.group(1)), CTX[m.group(4)], int(m.group(3)), int(m.group(5))))
    if start is None or end is None:
        sys.exit('FAIL: %s: no window marks' % path)
    return start, end, recs

truth = records(A + '/truth.txt')
tkeys = {(c, x, s, l) for (_, c, x, s, l) in truth}

def check(name):
    doc = json.load(open('%s/%s.json' % (A, name)))
    start, end, recs = window('%s/%s.trace' % (A, name))
    if len(recs) < 100:
        sys.exit('FAIL: %s: only %d records in the window' % (name, len(recs)))
    keys = {(c, x, s, l) for (_, c, x, s, l) in recs}
    notk = [k for k in keys if k not in tkeys]
    if notk:
        sys.exit('FAIL: %s: %d records are not the kernel\'s, e.g. %s' % (name, len(notk), notk[:3]))
    inside = [(c, x, s, l) for (ts, c, x, s, l) in truth if start + 0.005 < ts < end - 0.005]
    miss = [k for k in inside if k not in keys]
    if miss:
        sys.exit('FAIL: %s: %d of the truth\'s %d records inside the window are not latscope\'s, e.g. %s'
                 % (name, len(miss), len(inside), miss[:3]))
    by = {}
    for (_, c, x, s, l) in recs:
        by.setdefault((c, x), []).append((s, l))
    for cpu in doc['cpus']:
        for x in ('irq', 'thread'):
            got = cpu[x]
            want = by.get((cpu['cpu'], x), [])
            lats = [l for (_, l) in want]
            seqs = [s for (s, _) in want]
            if got['count'] != len(lats) or got['max_ns'] != max(lats) or got['min_ns'] != min(lats):
                sys.exit('FAIL: %s: CPU%d %s: JSON count %s min %s max %s, window %d %d %d'
                         % (name, cpu['cpu'], x, got['count'], got['min_ns'], got['max_ns'],
                            len(lats), min(lats), max(lats)))
            gaps = sum(b - a - 1 for a, b in zip(seqs, seqs[1:]) if b > a)
            if got['missed'] != gaps or gaps:
                sys.exit('FAIL: %s: CPU%d %s: missed %d, activation numbers skip %d'
                         % (name, cpu['cpu'], x, got['missed'], gaps))
    print('%s: %d records in the window, all the kernel\'s; the truth\'s %d inside it all there; '
          'per CPU and context count/min/max equal, no activation missed' % (name, len(recs), len(inside)))
    for cpu in doc['cpus']:
        print('  CPU%d irq %d max %d ns, thread %d max %d ns' % (cpu['cpu'], cpu['irq']['count'],
              cpu['irq']['max_ns'], cpu['thread']['count'], cpu['thread']['max_ns']))

check('hist')
check('top')

# the stop
rc = int(open(A + '/stop.rc').read())
doc = json.load(open(A + '/stop.json'))
st = doc['stop']
if rc != 1 or not st:
    sys.exit('FAIL: stop: exit %d, stop %s' % (rc, st))
# (the kernel's stop turned tracing off: no end mark follows.)  Every thread
# sample stops the kernel at -T 1, so the stop is the trace's first thread
# record: inside the window, or just before its mark when the kernel stopped
# after the mark was written (before_window)
recs = records(A + '/stop.trace')
thr = [r for r in recs if r[2] == 'thread']
if st['context'] != 'thread' or st['latency_ns'] < 1000 or not thr or st['seq'] != thr[0][3] \
        or st['latency_ns'] != thr[0][4] or not st['kernel_stopped']:
    sys.exit('FAIL: stop: %s; the trace\'s first thread record %s' % (st, thr[:1]))
where = 'just before the window\'s mark' if st['before_window'] else 'in the window'
stack = doc['stack']
if not stack or not stack['frames']:
    sys.exit('FAIL: stop: -s 1 gave no stack: %s' % stack)
print('stop: exit 1 at CPU%d thread #%d %d ns (the trace\'s first thread record, %s), kernel stopped; '
      'stack of %d frames: %s' % (st['cpu'], st['seq'], st['latency_ns'], where, len(stack['frames']),
                                 ' < '.join(stack['frames'][:4])))

# the automatic analysis (-a 300): the stop sample split into parts that add
# up to it, the IRQ latency split at the timer's handler
rc = int(open(A + '/auto.rc').read())
doc = json.load(open(A + '/auto.json'))
au, st = doc['auto'], doc['stop']
if rc != 1 or not au or not st:
    sys.exit('FAIL: auto: exit %d, stop %s, auto %s' % (rc, st, au))
# (the whole trace: the stop sample can be just before the window's mark)
recs = records(A + '/auto.trace')
irq = [r for r in recs if r[1] == st['cpu'] and r[2] == 'irq' and r[3] == st['seq']]
if au['latency_ns'] != st['latency_ns'] or au['seq'] != st['seq']:
    sys.exit('FAIL: auto: not the stop sample: %s, stop %s' % (au, st))
if not au['irq_sample_seen']:
    # the activation's IRQ came before latscope's ring was on (a run
    # joining the truth's: its first thread sample can be the stop under
    # TCG); then its IRQ sample is not in latscope's trace, and no split
    if irq:
        sys.exit('FAIL: auto: the IRQ sample %s is in the trace but the analysis did not see it' % (irq[0],))
    print('auto: exit 1 at CPU%d %s #%d %d ns: its IRQ came before the window (not in the trace): '
          'not split, as the JSON says' % (au['cpu'], au['context'], au['seq'], au['latency_ns']))
    irq = None
elif au['sum_ns'] != au['latency_ns'] or au['handler_delay_ns'] + au['irq_ns'] != au['irq_latency_ns']:
    sys.exit('FAIL: auto: the parts do not add up: %s' % au)
if irq is not None:
    if not irq or irq[0][4] != au['irq_latency_ns']:
        sys.exit('FAIL: auto: IRQ latency %d is not the trace\'s %s' % (au['irq_latency_ns'], irq[:1]))
    af = au['after_irq'] or {'parts': [], 'unexplained_ns': 0, 'duration_ns': 0}
    print('auto: exit 1 at CPU%d %s #%d %d ns%s = handler delay %d%s + IRQ %d + after the IRQ %d (the timer IRQ\'s '
          'rest %d, %s; unexplained %d); parts sum %d' % (au['cpu'], au['context'], au['seq'], au['latency_ns'],
          ' (just before the window\'s mark)' if st['before_window'] else '',
          au['handler_delay_ns'], ' (exit from idle)' if au['from_idle'] else '', au['irq_ns'], af['duration_ns'],
          au.get('timer_irq_rest_ns', 0),
          ', '.join('%s %s %d' % (p['class'], p['name'], p['net_ns']) for p in af['parts'][:4]) or 'no events',
          af['unexplained_ns'], au['sum_ns']))

# --warm-up 1 -T 1: the kernel's stop thresholds are set when the window
# opens: the warm-up's thread samples (every one >= 1 us) leave the kernel
# running, the window's first thread sample is the stop
rc = int(open(A + '/warm.rc').read())
doc = json.load(open(A + '/warm.json'))
st = doc['stop']
pre, post, inwin = [], [], False
for line in open(A + '/warm.trace', errors='replace'):
    if 'latscope warm-up end' in line:
        inwin = True
        continue
    m = REC.search(line)
    if m and CTX[m.group(4)] == 'thread':
        (post if inwin else pre).append((int(m.group(3)), int(m.group(5))))
if rc != 1 or not st or not inwin or len(pre) < 10 or not post or st['context'] != 'thread' \
        or (st['seq'], st['latency_ns']) != post[0] or st['before_window']:
    sys.exit('FAIL: warm: exit %d, stop %s; %d thread samples in the warm-up, the window\'s first %s'
             % (rc, st, len(pre), post[:1]))
print('warm: %d thread samples >= 1 us in the warm-up, the kernel ran on; exit 1 at the window\'s first, '
      'CPU%d #%d %d ns%s' % (len(pre), st['cpu'], st['seq'], st['latency_ns'],
                             ', kernel stopped' if st['kernel_stopped'] else ''))

# the loss
rc = int(open(A + '/lost.rc').read())
doc = json.load(open(A + '/lost.json'))
inp = doc['input']
missed = sum(inp['missed'].values())
err = open(A + '/lost.err').read()
if rc != 1 or not missed or not inp['overrun'] or 'missed' not in err or 'lost records' not in err:
    sys.exit('FAIL: lost: exit %d, input %s, stderr %s' % (rc, inp, err[-300:]))
print('lost: exit 1 (--strict); %d activations missed, overrun %d, [LOST] %d'
      % (missed, inp['overrun'], inp['lost_lines']))
PY
