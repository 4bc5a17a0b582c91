#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`latscope dtl why` against the test hypervisor's own log.

  whycheck.py HVLOG WHY_JSON REPORT_JSON CSV

HVLOG: every entry the hypervisor wrote ("dtl VCPU IDX HEX") and every
forced hold ("hold VCPU TB_FROM TB_TO", before the entry that ends it).
WHY_JSON: dtl why --json of the recording; REPORT_JSON: dtl report --json
of it (the timebase at boot and its frequency); CSV: dtl script --csv of it
(which entries the recording holds).

For every sample dtl why lists:
  - its parts add up to its latency;
  - its hypervisor time is the measure of the union, inside the sample, of
    the windows [dispatch - (enqueue_to_dispatch + ready_to_enqueue),
    dispatch] of the hypervisor's logged entries of that vCPU that the
    recording holds, converted to perf time as perf does (the double
    formula for the dispatch, the time away floored to ns): equal to the
    ns (the bound: the same arithmetic on the same ticks; 0); a sample that
    says its window outlived the hypervisor's spans kept
    (hypervisor_short) has at most that;
  - so no hypervisor time where the log has no entry;
  - every forced hold inside the sample is covered: the sample's hypervisor
    time is at least the hold, and one time_slice span covers it, longer
    than the hold by at most BOUND_NS.
At least three holds must fall inside the samples (where the log has
holds: the realistic mode; in the stress mode, at least three samples with
hypervisor time).  Exit 0, else 1.
"""
import csv
import json

# A hold's span may outlast the hold by the time from the hypervisor's read
# of the timebase after its sleep to the vCPU's dispatch (the same hook, a
# few instructions under TCG) plus the ns conversion's floor at each edge:
# microseconds; 1 ms is the bound that fails a span from another preemption.
BOUND_NS = 1000000
import struct
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    hvlog, whyf, repf, csvf = sys.argv[1:]
    why = json.load(open(whyf))
    rep = json.load(open(repf))
    boot, freq = int(rep["boot_ticks"]), int(rep["tb_freq_hz"])
    have = {(int(r["cpu"]), int(r["timebase"])) for r in csv.DictReader(open(csvf))}

    def ns(tb):
        return int(((tb - boot) / freq) * 1e9)

    spans, holds = {}, []
    for line in open(hvlog):
        f = line.split()
        if not f:
            continue
        if f[0] == "hold":
            holds.append((int(f[1]), ns(int(f[2])), ns(int(f[3]))))
        elif f[0] == "dtl":
            v = int(f[1])
            _, _, _, e2d, r2e, _, tb = struct.unpack_from(">BBHIIIQ", bytes.fromhex(f[3]), 0)
            if (v, tb) not in have:
                continue
            d = ns(tb)
            spans.setdefault(v, []).append((d - (e2d + r2e) * 10**9 // freq, d))
    checked = covered = with_hv = short = 0
    excess = []
    for s in why["worst"]:
        cpu, a, b = int(s["cpu"]), int(s["from_ns"]), int(s["to_ns"])
        tot = sum(int(p["ns"]) for p in s["parts"]) + int(s["other_ns"])
        if tot != int(s["latency_ns"]):
            sys.exit("FAIL: CPU %d sample at %d: parts %d != latency %s" % (cpu, a, tot, s["latency_ns"]))
        cut = sorted((max(x, a), min(y, b)) for x, y in spans.get(cpu, []) if y > a and x < b)
        want, end = 0, a
        for x, y in cut:
            x = max(x, end)
            if y > x:
                want += y - x
                end = y
        got = int(s["hypervisor_ns"])
        if s["hypervisor_short"]:
            # the window outlived the spans kept: said, and then a floor
            if got > want:
                sys.exit("FAIL: CPU %d sample %d..%d: hypervisor %d ns (short) above the log's %d ns"
                         % (cpu, a, b, got, want))
            short += 1
        elif got != want:
            sys.exit("FAIL: CPU %d sample %d..%d (%s ns): hypervisor %d ns, the hypervisor's log %d ns"
                     % (cpu, a, b, s["latency_ns"], got, want))
        checked += 1
        with_hv += got > 0
        for v, x, y in holds:
            if v != cpu or x < a or y > b:
                continue
            covered += 1
            hs = [h for h in s["hypervisor"] if int(h["start_ns"]) <= x and int(h["end_ns"]) >= y]
            if got < y - x or not hs or hs[0]["preempt_reason"] != "time_slice":
                sys.exit("FAIL: CPU %d sample %d..%d holds the forced hold %d..%d (%d ns) but has %d ns, spans %s"
                         % (cpu, a, b, x, y, y - x, got, s["hypervisor"]))
            # the span against the hold: it starts where the hold did (the
            # vCPU's last exit) and ends at the dispatch that follows it
            excess.append(int(hs[0]["end_ns"]) - int(hs[0]["start_ns"]) - (y - x))
    if not holds:
        # (the stress mode: no forced hold, an entry at every exit)
        if with_hv < 3:
            sys.exit("FAIL: only %d of dtl why's %d samples have hypervisor time" % (with_hv, checked))
        print("dtl why: %d samples, %d with hypervisor time, each equal to the hypervisor's log to the ns "
              "but %d said to be short of spans (no forced holds in this mode)" % (checked, with_hv, short))
        return
    if covered < 3:
        sys.exit("FAIL: only %d forced holds inside dtl why's %d samples" % (covered, checked))
    if max(excess) > BOUND_NS or min(excess) < -2:
        sys.exit("FAIL: a hold's span exceeds the hold by %d..%d ns (bound 0..%d)" % (min(excess), max(excess), BOUND_NS))
    print("dtl why: %d samples, %d with hypervisor time, each equal to the hypervisor's log to the ns "
          "(%d said to be short of spans: a floor); "
          "%d forced holds inside them, each covered by one time_slice span %d..%d ns longer than the hold"
          % (checked, with_hv, short, covered, min(excess), max(excess)))


main()
