#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope dtl why` against what the model knows.  `dtl synth
# --wakeup-preempts` writes a recording laid out as perf record writes one
# (rounds, the AUX data drained late, the hypervisor's 85-entry ring) in
# which the hypervisor takes the vCPU between some wakeups and their
# switch-in, and its truth: each such sample (CPU, pid, wakeup, switch),
# the DTL entry's timebase, its enqueue_to_dispatch + ready_to_enqueue in ns
# as written, and whether the entry reached the file.  Then, over the worst
# samples latscope lists:
#   - every part list adds up to the latency;
#   - a sample whose preemption's entry is in the file has exactly that
#     much hypervisor time (the span [dispatch - time away, dispatch] lies
#     inside the sample: no rounding at its edges), with its reasons;
#   - no other sample has any (no false attribution), and one whose entry
#     the ring lost has none;
#   - the same from a pipe (`dtl synth --pipe -o - | dtl why -`);
#   - a 1 s poll, where the 85-entry ring loses entries: the ones lost
#     give no hypervisor time, the others still exact.
. "$TESTS_DIR/lib.sh"
L=$LATSCOPE
F=$TESTS_DIR/data/formats
command -v python3 > /dev/null || skip "no python3"
cd "$TMP" || die "no tmp"

# check NAME TRUTH JSON: the rules above; prints one line
check() {
	python3 - "$@" <<'PY' || die "$1: $(cat "$1.py.err" 2>/dev/null)"
import json, sys
name, tpath, wpath = sys.argv[1:4]
truth = json.load(open(tpath))
doc = json.load(open(wpath))
U = lambda v: int(v)
pre = {(h['cpu'], h['pid'], U(h['switch_ns'])): h for h in truth['wakeup_preempts']}
worst = doc['worst']
found = exact = lost = clean = 0
for s in worst:
    tot = sum(U(p['ns']) for p in s['parts']) + U(s['other_ns'])
    if tot != U(s['latency_ns']) or U(s['sum_ns']) != tot:
        sys.exit('%s: parts %d != latency %s: %s' % (name, tot, s['latency_ns'], s))
    hv = sum(U(p['ns']) for p in s['parts'] if p['class'] == 'hypervisor')
    if hv != U(s['hypervisor_ns']):
        sys.exit('%s: hypervisor parts %d != hypervisor_ns %s' % (name, hv, s['hypervisor_ns']))
    h = pre.get((s['cpu'], s['pid'], U(s['to_ns'])))
    if h is None:
        if hv:
            sys.exit('%s: %d ns of hypervisor time where the model put none: %s' % (name, hv, s))
        clean += 1
        continue
    found += 1
    if U(h['wake_ns']) != U(s['from_ns']):
        sys.exit('%s: the sample %s is not the model\'s wakeup %s' % (name, s, h))
    if not h['written']:
        if hv:
            sys.exit('%s: the entry was lost, yet %d ns: %s' % (name, hv, s))
        lost += 1
        continue
    if hv != U(h['hypervisor_ns']):
        sys.exit('%s: CPU %d pid %d: hypervisor %d ns, the model %s ns' % (name, s['cpu'], s['pid'], hv,
                 h['hypervisor_ns']))
    hs = s['hypervisor']
    if len(hs) != 1 or hs[0]['preempt_reason'] != 'time_slice' or hs[0]['dispatch_reason'] != 'time_slice':
        sys.exit('%s: the hypervisor span is not the time_slice preempt: %s' % (name, hs))
    exact += 1
need = min(len(pre), len(worst))
if found < need * 9 // 10 or exact < 20:
    sys.exit('%s: only %d of the model\'s %d samples among latscope\'s %d worst (%d exact)'
             % (name, found, len(pre), len(worst), exact))
print('%s: %d worst samples, %d of them hold a preemption: %d with exactly its hypervisor time, '
      '%d whose entry was lost with none; %d others with none' % (name, len(worst), found, exact, lost, clean))
PY
}

"$L" dtl synth -q --formats "$F" --cpus 4 -d 2s --seed 7 --wakeup-preempts 300 --truth t.json -o w.data ||
	die "dtl synth --wakeup-preempts failed"
"$L" dtl why -n 1000 --json w.data > w.json 2> w.err || die "dtl why: $(cat w.err)"
check file t.json w.json
# the text: the same worst sample, its parts adding up
"$L" dtl why -n 1 w.data > w.txt 2> w.err || die "dtl why (text): $(cat w.err)"
grep -q '^   hypervisor time_slice' w.txt && grep -q '(the parts add up to the latency)' w.txt &&
	grep -q '^   hypervisor: .* preempted (time_slice) at srr0 0x' w.txt || die "dtl why text: $(cat w.txt)"

# from a pipe: the same recording in pipe mode (AUXTRACE inline, no index)
"$L" dtl synth -q --formats "$F" --cpus 4 -d 2s --seed 7 --wakeup-preempts 300 --pipe -o - |
	"$L" dtl why -n 1000 --json - > p.json 2> p.err || die "dtl why - (pipe): $(cat p.err)"
check pipe t.json p.json

# a 1 s poll: the hypervisor's 85-entry ring overflows between polls
"$L" dtl synth -q --formats "$F" --cpus 2 -d 3s --seed 3 --wakeup-preempts 500 -c 1s --load 0.9 \
	--truth t1.json -o r.data || die "dtl synth -c 1s failed"
python3 -c "import json,sys; w=json.load(open('t1.json'))['wakeup_preempts']; \
sys.exit(0 if any(not h['written'] for h in w) else 'the ring lost none of the preempts')" ||
	die "the 1 s poll lost no entry of a preempted wakeup: no check of the losses"
"$L" dtl why -n 1000 --json r.data > r.json 2> r.err || die "dtl why (ring loss): $(cat r.err)"
check ring-loss t1.json r.json
grep -q 'polls copied a full hypervisor ring' r.err || die "the ring's loss is not named: $(cat r.err)"
python3 -c "import json,sys; sys.exit(0 if int(json.load(open('r.json'))['input']['ring_full']) > 0 else 1)" ||
	die "input.ring_full is 0 under ring loss"

# refusals: no wakeups in the recording; no DTL in it
"$L" dtl synth -q --formats "$F" --cpus 1 -d 100ms --no-sched -o nos.data || die "synth --no-sched"
"$L" dtl why nos.data > /dev/null 2> nos.err && die "dtl why without sched events: exit 0"
grep -q 'no tracepoint samples' nos.err || die "dtl why without sched events: $(cat nos.err)"
"$L" dtl synth -q --formats "$F" --cpus 1 -d 200ms --no-dtl -o nodtl.data || die "synth --no-dtl"
"$L" dtl why nodtl.data > nodtl.txt 2> nodtl.err || die "dtl why --no-dtl recording: $(cat nodtl.err)"
grep -q 'holds no DTL entries' nodtl.err && grep -q 'its hypervisor time is unknown' nodtl.txt ||
	die "dtl why, no DTL: $(cat nodtl.err nodtl.txt)"
# every kind hist report files: a perf recording with timer and irq events
# (no DTL): timerandwakeup samples too, each split adding up, no hypervisor
"$L" dtl why -n 30 --json "$TESTS_DIR/data/rec/sched-irq-timer.perf.data" > k.json 2> k.err ||
	die "dtl why on a perf recording: $(cat k.err)"
python3 - k.json <<'PY' || die "dtl why's kinds: $(cat k.err)"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = set(d['kinds'])
if 'wakeup' not in kinds or 'timerandwakeup' not in kinds:
    sys.exit('kinds %s' % sorted(kinds))
for s in d['worst']:
    if sum(int(p['ns']) for p in s['parts']) + int(s['other_ns']) != int(s['latency_ns']) or int(s['hypervisor_ns']) or s['dtl']:
        sys.exit('sample %s' % s)
print('kinds: %s; %d samples split, each adding up, none with hypervisor time' % (
      ', '.join('%s %s' % (k, d['kinds'][k]) for k in sorted(kinds)), len(d['worst'])))
PY
echo "ok: dtl why: hypervisor time exact where the model put it, none elsewhere, in file and pipe mode and under ring loss"
