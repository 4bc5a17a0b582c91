#!/bin/sh
# SPDX-License-Identifier: MIT
# The samples the kernel fires and never delivers (docs/hist.md, "Samples
# the kernel never delivers"), named by the perf path's counting twins.
#
# Under a bursty load the test starts itself (tests/tools/burstload: spin
# 2 ms, sleep 3 ms; and a gzip loop; neither pinned: the CPUs enter and
# leave idle hundreds of times a second, which makes this VM's kernel drop
# samples without a LOST record), `hist record --backend perf
# --timer-workload -c 0,1 --no-keep-busy -o FILE --json` must:
# - count: input.fired.counted, and each CPU's timer:hrtimer_expire_entry
#   fired at least as often as the workload's cycles there (each cycle is
#   one expiry on its CPU) less the window's edges: without the twins
#   nothing is counted and this fails;
# - add up: per CPU fired = samples + lost + undelivered, every event's
#   delivered <= fired, and the events' delivered sum to the samples;
# - agree with the recording: the samples of each event on each CPU in
#   FILE (latscope script) are the delivered count the JSON gives;
# - name the missing cycles: a CPU whose workload filed fewer
#   timerandwakeup samples than its cycles by more than max(20, 5 %) has at
#   least that many undelivered samples (each unfiled cycle lost its
#   expiry, its wakeup or both), and timer_workload[].unfiled says how many;
# - make --strict's verdict: exit 1 when anything was undelivered, 0 when
#   nothing was lost at all;
# - carry it: `hist report` on FILE gives the same input.fired.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, SCHED_FIFO)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/timer/hrtimer_expire_entry/format ] ||
	skip "no readable tracefs with timer events"
command -v python3 >/dev/null || skip "no python3 (reads the JSON)"
[ -x "$TOOLS/burstload" ] || die "no $TOOLS/burstload (make all builds it)"

loads=""
stop_loads() {
	# (the gzip loop's pipeline first: it would finish its round after the loop)
	for p in $loads; do pkill -P "$p" 2>/dev/null; done
	[ -n "$loads" ] && kill $loads 2>/dev/null
	for p in $loads; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	loads=""
}
trap 'stop_loads; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
"$TOOLS/burstload" -d 120 &
loads="$!"
# (the gzip loop ends itself too: no runaway if the trap is skipped)
sh -c 'end=$(($(date +%s) + 120)); while [ "$(date +%s)" -lt $end ]; do
	head -c 20000000 /dev/urandom | gzip -c >/dev/null; done' &
loads="$loads $!"
sleep 0.5

run=1
rc=0
"$LATSCOPE" hist record --backend perf --timer-workload -c 0,1 -d 3 --no-keep-busy --strict \
	-o "$TMP/h.data" --json="$TMP/h.json" >"$TMP/h.out" 2>"$TMP/h.err" || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || die "hist record exited $rc: $(cat "$TMP/h.err")"
"$LATSCOPE" script -i "$TMP/h.data" >"$TMP/h.script" 2>"$TMP/s.err" ||
	die "latscope script on the recording: $(cat "$TMP/s.err")"
"$LATSCOPE" hist report -i "$TMP/h.data" --json >"$TMP/r.json" 2>"$TMP/r.err" ||
	die "hist report on the recording: $(cat "$TMP/r.err")"
stop_loads

python3 - "$TMP/h.json" "$TMP/h.script" "$TMP/r.json" "$rc" "$TMP/h.err" <<'EOF' || exit 1
import json, re, sys
from collections import Counter
doc = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[3]))
rc = int(sys.argv[4])
err = open(sys.argv[5]).read()
def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)
f = doc["input"].get("fired")
if not f or not f.get("counted"):
    fail("input.fired not counted: %r" % (f,))
# the recording's samples per (cpu, event)
rec = Counter()
for line in open(sys.argv[2]):
    m = re.search(r"\[(\d+)\]\s+[\d.]+:\s+(\S+):\s", line)
    if m:
        rec[(int(m.group(1)), m.group(2))] += 1
cycles = {w["cpu"]: w for w in doc["timer_workload"]}
und_total = 0
for c in f["cpus"]:
    cpu = c["cpu"]
    if c["fired"] != c["samples"] + c["lost"] + c["undelivered"]:
        fail("CPU%d: fired %d != samples %d + lost %d + undelivered %d" %
             (cpu, c["fired"], c["samples"], c["lost"], c["undelivered"]))
    ev = {e["event"]: e for e in c["events"]}
    if sum(e["delivered"] for e in c["events"]) != c["samples"]:
        fail("CPU%d: the events' delivered add up to %d, samples %d" %
             (cpu, sum(e["delivered"] for e in c["events"]), c["samples"]))
    for name, e in ev.items():
        if e["delivered"] > e["fired"]:
            fail("CPU%d %s: delivered %d > fired %d" % (cpu, name, e["delivered"], e["fired"]))
        if rec[(cpu, name)] != e["delivered"]:
            fail("CPU%d %s: the recording holds %d samples, the JSON says %d delivered" %
                 (cpu, name, rec[(cpu, name)], e["delivered"]))
    w = cycles.get(cpu)
    if not w:
        fail("CPU%d: no timer_workload entry" % cpu)
    exp = ev.get("timer:hrtimer_expire_entry", {"fired": 0})["fired"]
    tol = max(20, w["cycles"] // 20)
    if exp < w["cycles"] - tol:
        fail("CPU%d: timer:hrtimer_expire_entry fired %d times for %d workload cycles: the "
             "counting twins do not count" % (cpu, exp, w["cycles"]))
    filed = w["kernel"]["timerandwakeup"]["samples"]
    unfiled = w.get("unfiled")
    if unfiled != max(0, w["cycles"] - filed):
        fail("CPU%d: timer_workload unfiled %r, cycles %d, filed %d" % (cpu, unfiled, w["cycles"], filed))
    if unfiled > tol and c["undelivered"] < unfiled - tol:
        fail("CPU%d: %d of %d cycles not filed, but only %d samples named undelivered" %
             (cpu, unfiled, w["cycles"], c["undelivered"]))
    if unfiled > tol and "CPU%d: %d of %d timer-workload cycles" % (cpu, unfiled, w["cycles"]) not in err:
        fail("CPU%d: %d unfiled cycles not said on stderr: %s" % (cpu, unfiled, err))
    und_total += c["undelivered"]
    print("CPU%d: %d cycles, %d filed, %d unfiled; fired %d, samples %d, lost %d, undelivered %d" %
          (cpu, w["cycles"], filed, unfiled, c["fired"], c["samples"], c["lost"], c["undelivered"]))
if und_total != f["undelivered"]:
    fail("input.fired.undelivered %d, its CPUs %d" % (f["undelivered"], und_total))
dropped = doc["input"]["dropped"]
if und_total and (rc != 1 or "never delivered" not in err):
    fail("%d undelivered: exit %d under --strict, stderr: %s" % (und_total, rc, err))
if not dropped and rc != 0:
    fail("nothing lost, but exit %d" % rc)
rf = rep["input"].get("fired")
strip = lambda x: {k: v for k, v in x.items()}
if not rf or rf["undelivered"] != f["undelivered"] or rf["fired"] != f["fired"] or \
   [c["undelivered"] for c in rf["cpus"]] != [c["undelivered"] for c in f["cpus"]]:
    fail("hist report reads another fired block from the recording: %r" % (rf,))
print("ok: %d undelivered named (exit %d), the recording agrees, hist report reads them back" %
      (und_total, rc))
EOF
