#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf against latscope on the guest's vpa_dtl recordings (tests/power/guest/dtl_perf.sh).

usage: perfcmp.py ART HVLOG

For each recording F in ART (perf.data, made by sid's perf; ls.data, by
latscope dtl record; syn.data, by latscope dtl synth), four texts came back: F.perf-D (perf report -D),
F.ls-dump (latscope dtl dump), F.perf-script (perf script), F.ls-script
(latscope dtl script).  They must be identical except for these differences,
each named, counted and printed:

  lap_end     At a lap end of the driver's AUX buffer the driver leaves up to
              47 bytes unwritten (docs/dtl.md, "The AUX wrap").  perf steps 48
              bytes from each payload's start and prints the entries after it
              shifted (garbage); latscope dump says the zero bytes and decodes
              the real entries after them, which latscope script prints.
  tail        perf script prints no DTL entry after the file's last other
              record (its flush is a no-op); latscope prints them.
  no_task     A DTL entry belongs to no task: perf script prints the pid/tid
              its decoder leaves (0, "swapper"), latscope "[no task]" and "-".
  tid_width   perf 6.5 and later print the tid 7 wide, latscope script as
              perf 6.1 did (5 wide): compared with the prefix's runs of
              spaces as one.

Then every DTL entry either tool printed as an entry (not shifted garbage)
of the two recordings must be one the hypervisor logged (HVLOG: "dtl VCPU
IDX HEX"), field for field, on the same vCPU.  Exit 0 when all holds, 1 with the first
differences otherwise.
"""
import re
import struct
import sys

SLOT = re.compile(r"^\.  ([0-9a-f]{8}): (.*)$")
VPA = re.compile(r"^\. \.\.\. VPA DTL PMU data: size (\d+) bytes")
LAP = "the end of a lap of the AUX buffer"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def vpa_blocks(path):
    """The VPA DTL payload blocks of a dump, each a list of slot texts."""
    blocks, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if VPA.match(line):
                cur = [line]
                blocks.append(cur)
                continue
            m = SLOT.match(line)
            if m and cur is not None:
                cur.append(line)
            elif line and not line.startswith("."):
                cur = None
    return blocks


def cmp_dump(name, perf_d, ls_dump):
    """perf -D against latscope dump; returns the shifted slot texts perf
    printed after lap ends (their 'dispatch_reason:...' part)."""
    pb, lb = vpa_blocks(perf_d), vpa_blocks(ls_dump)
    if len(pb) != len(lb):
        fail(f"{name}: perf -D has {len(pb)} VPA payloads, latscope dump {len(lb)}")
    if not pb:
        fail(f"{name}: no VPA payload in perf -D")
    laps = shifted_n = same = 0
    shifted = set()
    for i, (p, l) in enumerate(zip(pb, lb)):
        k = next((j for j, t in enumerate(l) if LAP in t), None)
        if k is None:
            if p != l:
                j = next(j for j in range(min(len(p), len(l))) if p[j] != l[j]) if any(
                    a != b for a, b in zip(p, l)) else min(len(p), len(l))
                fail(f"{name}: payload {i}: perf -D and latscope dump differ with no lap end:\n"
                     f"  perf:     {p[j] if j < len(p) else '(nothing)'}\n"
                     f"  latscope: {l[j] if j < len(l) else '(nothing)'}")
            same += len(p) - 1
            continue
        laps += 1
        if p[:k] != l[:k]:
            j = next(j for j in range(k) if p[j] != l[j])
            fail(f"{name}: payload {i}: differ before its lap end:\n  perf:     {p[j]}\n  latscope: {l[j]}")
        same += k - 1
        for t in p[k:]:
            m = SLOT.match(t)
            if m:
                shifted.add(m.group(2))
                shifted_n += 1
    print(f"{name}: dump: {len(pb)} payloads; {same} slot lines identical; lap_end: {laps} payloads "
          f"where perf prints {shifted_n} shifted slots after the lap end")
    return shifted


ENTRY = re.compile(r"^(.*?)\[(\d{3})\]\s+(\S+):\s+vpa-dtl: timebase: (\d+) (dispatch_reason:.*)$")


def script_items(path):
    """(kind, key, text) for each item of a script output: DTL entries
    (two lines joined) and other lines."""
    items = []
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line:
            i += 1
            continue
        m = ENTRY.match(line)
        if m:
            second = lines[i + 1] if i + 1 < len(lines) else ""
            prefix = re.sub(r" +", " ", m.group(1).strip())
            items.append(("dtl", (int(m.group(2)), int(m.group(4))),
                          f"[{m.group(2)}] {m.group(3)}: timebase: {m.group(4)} {m.group(5)}\n{second}", prefix))
            i += 2
            continue
        # the prefix's runs of spaces as one (tid_width)
        items.append(("rec", None, re.sub(r" +", " ", line.strip()), None))
        i += 1
    return items


def hv_entries(path):
    """{(vcpu, timebase): fields text} of every entry the hypervisor logged."""
    out = {}
    disp = {0: "external_interrupt", 1: "firmware_internal_event", 2: "H_PROD", 3: "decrementer_interrupt",
            4: "system_reset", 5: "firmware_internal_event", 6: "conferred_cycles", 7: "time_slice",
            8: "virtual_memory_page_fault", 9: "expropriated_adjunct", 10: "priv_doorbell"}
    pre = {0: "unused", 1: "firmware_internal_event", 2: "H_CEDE", 3: "H_CONFER", 4: "time_slice",
           5: "migration_hibernation_page_fault", 6: "virtual_memory_page_fault", 7: "H_CONFER_ADJUNCT",
           8: "hcall_adjunct", 9: "HDEC_adjunct"}
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith("dtl "):
                continue
            _, vcpu, _, hx = line.split()
            b = bytes.fromhex(hx)
            dr, pr, proc, e2d, r2e, w2r, tb = struct.unpack_from(">BBHIIIQ", b, 0)
            out[(int(vcpu), tb)] = (disp.get(dr, f"unknown({dr})"), pre.get(pr, f"unknown({pr})"),
                                    e2d, r2e, w2r, proc)
    return out


FIELDS = re.compile(r"dispatch_reason:(.*?), preempt_reason:(.*?),\n?enqueue_to_dispatch_time:(-?\d+), "
                    r"ready_to_enqueue_time:(-?\d+),waiting_to_ready_time:(-?\d+), processor_id: (-?\d+)")


def check_hv(name, who, entries, hv):
    bad = []
    for (cpu, tb), text in entries:
        m = FIELDS.search(text)
        got = (m.group(1), m.group(2), int(m.group(3)) & 0xffffffff, int(m.group(4)) & 0xffffffff,
               int(m.group(5)) & 0xffffffff, int(m.group(6))) if m else None
        want = hv.get((cpu, tb))
        if want is None or got != want:
            bad.append(f"cpu {cpu} timebase {tb}: {who} {got}, hypervisor {want}")
    if bad:
        fail(f"{name}: {len(bad)} of {len(entries)} {who} DTL entries are not the hypervisor's:\n  " +
             "\n  ".join(bad[:4]))
    print(f"{name}: {who} script: all {len(entries)} DTL entries are the hypervisor's, field for field")


def cmp_script(name, perf_s, ls_s, shifted, hv):
    p, l = script_items(perf_s), script_items(ls_s)
    # no_task: perf's prefix of a DTL entry
    notask = {it[3] for it in p if it[0] == "dtl"}
    lnotask = {it[3] for it in l if it[0] == "dtl"}
    if lnotask - {"[no task] -"}:
        fail(f"{name}: latscope's DTL prefix is {sorted(lnotask)}, not '[no task] -'")
    # the other records, in order: identical (tid_width aside)
    pr = [it[2] for it in p if it[0] == "rec"]
    lr = [it[2] for it in l if it[0] == "rec"]
    if pr != lr:
        j = next((j for j in range(min(len(pr), len(lr))) if pr[j] != lr[j]), min(len(pr), len(lr)))
        fail(f"{name}: script: the other records differ ({len(pr)} perf, {len(lr)} latscope) at {j}:\n"
             f"  perf:     {pr[j] if j < len(pr) else '(nothing)'}\n  latscope: {lr[j] if j < len(lr) else '(nothing)'}")
    pe = [(it[1], it[2]) for it in p if it[0] == "dtl"]
    le = [(it[1], it[2]) for it in l if it[0] == "dtl"]
    # the last other record's position: what perf prints after it is nothing
    last_rec = max((i for i, it in enumerate(p) if it[0] == "rec"), default=-1)
    # perf's garbage: entries whose slot text is a shifted one
    def slot_text(t):
        m = FIELDS.search(t)
        return None if not m else (f"dispatch_reason:{m.group(1)}, preempt_reason:{m.group(2)}, "
                                   f"enqueue_to_dispatch_time:{m.group(3)}, ready_to_enqueue_time:{m.group(4)}, "
                                   f"waiting_to_ready_time:{m.group(5)}")
    garbage = [e for e in pe if slot_text(e[1]) in shifted]
    pgood = [e for e in pe if slot_text(e[1]) not in shifted]
    lset = {k: t for k, t in le}
    missing = [e for e in pgood if e[0] not in lset or lset[e[0]] != e[1]]
    if missing:
        k, t = missing[0]
        fail(f"{name}: {len(missing)} DTL entries perf script prints (not shifted) that latscope does not, "
             f"or prints otherwise; first cpu {k[0]} timebase {k[1]}:\n  perf:     {t!r}\n  latscope: "
             f"{lset.get(k)!r}")
    # latscope's extra entries: after perf's last record (tail), or the real
    # entries after a lap end that perf printed shifted (lap_end)
    pkeys = {k for k, _ in pgood}
    t_last = None
    if last_rec >= 0:
        m = re.search(r"\] (\d+\.\d+):", " ".join(p[last_rec][2].split(" ")[:6]))
        t_last = float(m.group(1)) if m else None
    tail = lap = 0
    for k, t in le:
        if k in pkeys:
            continue
        tm = re.match(r"\[\d{3}\] (\d+\.\d+):", t)
        if t_last is not None and tm and float(tm.group(1)) >= t_last:
            tail += 1
        else:
            lap += 1
    print(f"{name}: script: {len(pr)} other records identical (tid_width); {len(pgood)} DTL entries of perf's "
          f"in latscope's, identical (no_task: perf's prefix {sorted(notask)}); lap_end: perf prints "
          f"{len(garbage)} shifted entries, latscope {lap} real ones there; tail: latscope prints {tail} "
          f"entries after the last record that perf does not")
    if lap > 0 and not shifted:
        fail(f"{name}: latscope prints {lap} DTL entries perf does not, with no lap end to explain them")
    if hv is not None:
        check_hv(name, "perf", pgood, hv)
        check_hv(name, "latscope", le, hv)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    art, hvlog = sys.argv[1], sys.argv[2]
    hv = hv_entries(hvlog)
    for f, name in (("perf", "perf's recording"), ("ls", "latscope's recording"), ("syn", "dtl synth's file")):
        shifted = cmp_dump(name, f"{art}/{f}.perf-D", f"{art}/{f}.ls-dump")
        cmp_script(name, f"{art}/{f}.perf-script", f"{art}/{f}.ls-script", shifted, hv if f != "syn" else None)
    print("ok: perf and latscope print the same DTL of the two recordings and of dtl synth's file, "
          "but for the named differences")


if __name__ == "__main__":
    main()
