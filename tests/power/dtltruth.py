#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare the DTL entries latscope decoded from a recording with the test
hypervisor's log of every entry it wrote (tests/power/qemu).

  dtltruth.py HVLOG SEGMENT CSV

HVLOG: "dtl VCPU IDX HEX" lines (HEX: the entry's 48 bytes).  Each DTL
registration restarts the index at 0, so the SEGMENT-th run of indexes from
0 (0-based) of a vCPU is what the hypervisor wrote during the SEGMENT-th
recording; SEGMENT "auto" takes, per vCPU, the run that holds most of the
CSV's entries.  CSV: `latscope dtl script --csv` of that recording.

Per vCPU it prints what the hypervisor wrote, what latscope has, and what is
missing, split into the gaps inside the recording (entries overwritten in
the 85-entry ring before a poll copied them) and the tail (written after the
driver's last poll: vpa_dtl copies nothing when the event stops).  Exit 1
when latscope has an entry the hypervisor did not write (or not with these
bytes), has one twice, or out of the hypervisor's order; 0 otherwise.  The
last line is "gaps=N tail=N" summed over the vCPUs.
"""
import csv
import struct
import sys

DISPATCH = ["external_interrupt", "firmware_internal_event", "H_PROD", "decrementer_interrupt",
            "system_reset", "firmware_internal_event", "conferred_cycles", "time_slice",
            "virtual_memory_page_fault", "expropriated_adjunct", "priv_doorbell"]
PREEMPT = ["unused", "firmware_internal_event", "H_CEDE", "H_CONFER", "time_slice",
           "migration_hibernation_page_fault", "virtual_memory_page_fault", "H_CONFER_ADJUNCT",
           "hcall_adjunct", "HDEC_adjunct"]


def read_runs(hvlog):
    """the log's entries as {vcpu: {segment: [48 bytes, ...]}}: a segment is a
    run of indexes from 0 (each DTL registration starts one), in log order"""
    runs, nseg = {}, {}
    for no, line in enumerate(open(hvlog), 1):
        f = line.split()
        if not f or f[0] != "dtl":
            continue
        try:
            v, idx, raw = int(f[1]), int(f[2]), bytes.fromhex(f[3])
        except (IndexError, ValueError) as err:
            sys.exit("%s:%d: %s" % (hvlog, no, err))
        if len(raw) != 48:
            sys.exit("%s:%d: an entry of %d bytes" % (hvlog, no, len(raw)))
        if idx == 0:
            nseg[v] = nseg.get(v, -1) + 1
        runs.setdefault(v, {}).setdefault(nseg.get(v, 0), []).append(raw)
    return runs


def name(table, i):
    return table[i] if i < len(table) else "unknown(%d)" % i


def from_bytes(b):
    d, p, proc, e2d, r2e, w2r, tb, fault, srr0, srr1 = struct.unpack(">BBHIIIQQQQ", b)
    return (tb, name(DISPATCH, d), name(PREEMPT, p), e2d, r2e, w2r, proc, fault, srr0, srr1)


def from_csv(row):
    return (int(row["timebase"]), row["dispatch_reason"], row["preempt_reason"],
            int(row["enqueue_to_dispatch_time"]), int(row["ready_to_enqueue_time"]),
            int(row["waiting_to_ready_time"]), int(row["processor_id"]),
            int(row["fault_addr"], 16), int(row["srr0"], 16), int(row["srr1"], 16))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    hvlog, seg, csvf = sys.argv[1], sys.argv[2], sys.argv[3]
    seg = None if seg == "auto" else int(seg)
    runs = {v: {k: [from_bytes(b) for b in r] for k, r in segs.items()}
            for v, segs in read_runs(hvlog).items()}
    mine = {}
    for row in csv.DictReader(open(csvf)):
        mine.setdefault(int(row["cpu"]), []).append(from_csv(row))
    truth = {}
    for v, r in runs.items():
        if seg is not None:
            if seg in r:
                truth[v] = r[seg]
            continue
        have = set(mine.get(v, []))
        best = max(r, key=lambda k: sum(1 for e in r[k] if e in have))
        if have & set(r[best]):
            truth[v] = r[best]
    bad = 0
    gaps_all = tail_all = 0
    for v in sorted(set(truth) | set(mine)):
        t, m = truth.get(v, []), mine.get(v, [])
        pos = {e: i for i, e in enumerate(t)}
        last, seen, extra, dup, order = -1, set(), 0, 0, 0
        for e in m:
            i = pos.get(e)
            if i is None:
                extra += 1
                if extra <= 3:
                    print("vCPU %d: not the hypervisor's: %s" % (v, e))
                continue
            if i in seen:
                dup += 1
                continue
            if i < last:
                order += 1
            seen.add(i)
            last = max(last, i)
        tail = len(t) - 1 - last if last >= 0 else len(t)
        gaps = len(t) - len(seen) - tail
        runs, i = [], 0
        while i <= last:
            if i not in seen:
                j = i
                while j <= last and j not in seen:
                    j += 1
                runs.append(j - i)
                i = j
            else:
                i += 1
        print("vCPU %d: the hypervisor wrote %d, latscope has %d (%d of them the hypervisor's, "
              "byte for byte); missing: %d in %d gaps inside the recording%s, %d after the "
              "driver's last poll; not the hypervisor's %d, twice %d, out of order %d" %
              (v, len(t), len(m), len(seen), gaps, len(runs),
               " (largest %d)" % max(runs) if runs else "", tail, extra, dup, order))
        bad += extra + dup + order
        gaps_all += gaps
        tail_all += tail
    print("gaps=%d tail=%d" % (gaps_all, tail_all))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
