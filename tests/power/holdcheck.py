#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The forced holds of the test hypervisor against latscope's recording.

  holdcheck.py HVLOG CSV TB_FREQ MIN_OFF_US

HVLOG: the hypervisor's log; a "hold VCPU TB_FROM TB_TO" line comes before
the "dtl VCPU IDX HEX" line of the entry that ends the hold (the vCPU's next
dispatch).  CSV: `latscope dtl script --csv` of a recording made in the
realistic mode.  For every hold whose entry falls inside the recording's
window on its vCPU (between latscope's first and last entry there): latscope
has that entry, a time_slice preempt whose enqueue_to_dispatch_time is at
least the hold (TB_TO - TB_FROM ticks).  The realistic mode: every preempt
latscope has that is not a cede is at least MIN_OFF_US long, and the idle
vCPU 0 ceded.  At least three holds must fall inside.  Exit 0 when all holds, 1 otherwise.
"""
import csv
import struct
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    hvlog, csvf, tb_freq, min_off_us = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    mine = {}
    for row in csv.DictReader(open(csvf)):
        mine.setdefault(int(row["cpu"]), {})[int(row["timebase"])] = row
    pending, held = {}, []
    for line in open(hvlog):
        f = line.split()
        if not f:
            continue
        if f[0] == "hold":
            pending[int(f[1])] = (int(f[2]), int(f[3]))
        elif f[0] == "dtl" and int(f[1]) in pending:
            v = int(f[1])
            a, b = pending.pop(v)
            _, p, _, e2d, _, _, tb = struct.unpack_from(">BBHIIIQ", bytes.fromhex(f[3]), 0)
            held.append((v, a, b, tb, p, e2d))
    inside = []
    for v, a, b, tb, p, e2d in held:
        m = mine.get(v)
        if m and min(m) <= tb <= max(m):
            inside.append((v, a, b, tb, p, e2d))
    bad = []
    for v, a, b, tb, p, e2d in inside:
        row = mine[v].get(tb)
        if row is None:
            bad.append(f"vCPU {v}: the entry ending the hold {a}..{b} (timebase {tb}) is not in latscope's file")
        elif row["preempt_reason"] != "time_slice" or int(row["enqueue_to_dispatch_time"]) < b - a:
            bad.append(f"vCPU {v}: the hold {a}..{b} ({b - a} ticks) ends in {row['preempt_reason']} with "
                       f"enqueue_to_dispatch_time {row['enqueue_to_dispatch_time']}")
    min_off = min_off_us * tb_freq // 1000000
    short = [(v, tb, r["enqueue_to_dispatch_time"]) for v, m in mine.items() for tb, r in m.items()
             if r["preempt_reason"] == "time_slice" and int(r["enqueue_to_dispatch_time"]) < min_off]
    if short:
        bad.append(f"{len(short)} preempts shorter than {min_off_us} us ({min_off} ticks) in the realistic "
                   f"mode, e.g. vCPU {short[0][0]} timebase {short[0][1]}: {short[0][2]} ticks")
    if not any(r["preempt_reason"] == "H_CEDE" for r in mine.get(0, {}).values()):
        bad.append("no cede of the idle vCPU 0 in latscope's file")
    if len(inside) < 3:
        bad.append(f"only {len(inside)} holds inside the recording ({len(held)} in the log)")
    ms = [(b - a) * 1000 / tb_freq for _, a, b, _, _, _ in inside]
    print(f"holds: {len(held)} in the log, {len(inside)} inside the recording"
          + (f", {min(ms):.1f}-{max(ms):.1f} ms each" if ms else "")
          + f"; preempts in latscope's file: "
          f"{sum(1 for m in mine.values() for r in m.values() if r['preempt_reason'] == 'time_slice')}, "
          f"cedes {sum(1 for m in mine.values() for r in m.values() if r['preempt_reason'] == 'H_CEDE')}")
    if bad:
        print("FAIL: " + "\n  ".join(bad[:6]))
        sys.exit(1)
    print("ok: every hold inside the recording is latscope's entry, a time_slice preempt at least as long")


if __name__ == "__main__":
    main()
