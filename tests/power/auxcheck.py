#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What reached the AUX buffer, against the hypervisor's log and latscope's
decoding of a vpa_dtl recording (tests/power).

  auxcheck.py PERFDATA HVLOG CSV AUX_BYTES

Reads the file's PERF_RECORD_AUX records (what the driver committed, per
CPU) and its AUXTRACE payloads (what the recorder copied out of the AUX
buffer), and finds every entry of the hypervisor's log (HVLOG, tests/power/
qemu) in those bytes, at any offset.  Checks, per CPU:
  - latscope's CSV (`dtl script --csv`) has every entry whose 48 bytes are in
    the file (none may be missing from latscope's output);
  - the layout docs/dtl.md ("The AUX buffer wrap") gives the driver's copy:
    every commit is whole entries but those that reach a lap's end (a
    multiple of AUX_BYTES), and the bytes from (AUX_BYTES - 32) // 48 * 48
    to a lap's end are zeros (a 64-byte end may come as a commit of 48,
    then one of 16);
  - each run of the hypervisor's indexes missing between two entries in the
    file lies across a hole of the CPU's AUX stream (bytes the recorder never
    copied: an overrun, said in the file), across a lap's end (the wrap's
    loss) or neither (the hypervisor's ring overflowed before a poll).
Prints one line per CPU, then "wraps=N stream_holes=N stream_hole_bytes=N
holes_at_overrun=N lost_at_overrun=N holes_at_wraps=N lost_at_wraps=N
other_holes=N lost_other=N not_decoded=N bad_layout=N".  Exit 1 when an entry
in the file is not in the CSV or the layout is not the documented one.
"""
import csv
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dtltruth import read_runs  # noqa: E402

ENTRY = 48


def records(data):
    """(type, body, payload, endian, attrs) of each record of the data section"""
    if data[:8] == b"PERFILE2":
        end = "<"
    elif data[:8] == b"2ELIFREP":
        end = ">"
    else:
        sys.exit("not a perf.data file")
    attr_size = struct.unpack_from(end + "Q", data, 16)[0]
    a_off, a_size, d_off, d_size = struct.unpack_from(end + "QQQQ", data, 24)
    attrs = []
    for o in range(a_off, a_off + a_size, attr_size):
        typ, _size, _config, _period, stype = struct.unpack_from(end + "IIQQQ", data, o)
        attrs.append((typ, stype))
    pos, stop = d_off, d_off + d_size
    while pos + 8 <= stop:
        typ, _misc, size = struct.unpack_from(end + "IHH", data, pos)
        if size < 8:
            sys.exit("a record of size %d at %#x" % (size, pos))
        body = data[pos + 8:pos + size]
        payload = b""
        if typ == 71:	# PERF_RECORD_AUXTRACE: its payload follows the record
            psize = struct.unpack_from(end + "Q", body, 0)[0]
            payload = data[pos + size:pos + size + psize]
            pos += psize
        yield typ, body, payload, end, attrs
        pos += size


def trailer_cpu(body, nfixed, stype, end):
    """the cpu of the sample_id trailer after nfixed bytes of a record's body"""
    o = nfixed
    for bit in (1 << 1, 1 << 2, 1 << 6, 1 << 9):	# TID TIME ID STREAM_ID
        if stype & bit:
            o += 8
    if not stype & (1 << 7):	# CPU
        return None
    return struct.unpack_from(end + "I", body, o)[0]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    pd, hvlog, csvf, aux = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    lap_data = (aux - 32) // ENTRY * ENTRY	# where a lap's unwritten end starts
    pays, commits = {}, {}
    for typ, body, payload, end, attrs in records(open(pd, "rb").read()):
        if typ == 71:
            _size, off, _ref, _idx, _tid, cpu = struct.unpack_from(end + "QQQIII", body, 0)
            pays.setdefault(cpu, []).append((off, payload))
        elif typ == 11:	# PERF_RECORD_AUX
            off, size, flags = struct.unpack_from(end + "QQQ", body, 0)
            st = [a[1] for a in attrs if a[0] not in (1, 2)]	# the vpa_dtl event's
            cpu = trailer_cpu(body, 24, st[0], end) if st else None
            commits.setdefault(cpu, []).append((off, size, flags))
    where = {}
    for v, segs in read_runs(hvlog).items():
        for seg, ents in segs.items():
            for idx, raw in enumerate(ents):
                where[raw] = (v, seg, idx)
    mine = set()
    for row in csv.DictReader(open(csvf)):
        mine.add((int(row["cpu"]), int(row["timebase"])))
    tot = dict(wraps=0, stream_holes=0, stream_hole_bytes=0, holes_at_overrun=0, lost_at_overrun=0,
               holes_at_wraps=0, lost_at_wraps=0, other_holes=0, lost_other=0,
               not_decoded=0, bad_layout=0)
    for cpu in sorted(pays):
        found = []	# (stream offset, (vcpu, segment, index), timebase)
        for off, p in pays[cpu]:
            for o in range(0, len(p) - ENTRY + 1, 16):	# commits are 16-byte aligned
                w = where.get(p[o:o + ENTRY])
                if w and w[0] == cpu:
                    found.append((off + o, w, struct.unpack(">Q", p[o + 16:o + 24])[0]))
        segs = {}
        for _, w, _ in found:
            segs[w[1]] = segs.get(w[1], 0) + 1
        seg = max(segs, key=segs.get) if segs else None
        found = sorted(x for x in found if x[1][1] == seg)
        missing = [x for x in found if (cpu, x[2]) not in mine]
        tot["not_decoded"] += len(missing)
        notes = []
        # the layout: commits whole entries, but those ending at a lap's end
        c = commits.get(cpu, [])
        wraps = 0
        for off, size, _ in c:
            e = off + size
            if e % aux == 0:
                wraps += 1
            elif (off % aux == lap_data and size == ENTRY and aux - lap_data == 64):
                pass	# the first 48 of a 64-byte lap end: the next commit has the last 16
            elif size % ENTRY or (off % aux) % ENTRY or e % aux > lap_data:
                tot["bad_layout"] += 1
                notes.append("commit at %#x of %d bytes: not whole entries before a lap's end"
                             % (off, size))
        for off, p in pays[cpu]:
            for lap in range((off // aux + 1) * aux, off + len(p) + 1, aux):
                z = p[max(lap - aux + lap_data - off, 0):lap - off]
                if z.strip(b"\0"):
                    tot["bad_layout"] += 1
                    notes.append("bytes before the lap's end at %#x are not zeros" % lap)
        tot["wraps"] += wraps
        # the stream's holes: [from, to) of the AUX stream in no payload
        gaps, at = [], 0
        for off, p in sorted(pays[cpu], key=lambda x: x[0]):
            if off > at:
                gaps.append((at, off))
            at = max(at, off + len(p))
        tot["stream_holes"] += len(gaps)
        tot["stream_hole_bytes"] += sum(b - a for a, b in gaps)
        # the missing indexes between entries in the file, by place
        holes_w = holes_o = lost_w = lost_o = holes_v = lost_v = 0
        for (o1, w1, _), (o2, w2, _) in zip(found, found[1:]):
            if w2[2] == w1[2] + 1:
                continue
            n = w2[2] - w1[2] - 1
            if n < 0:
                notes.append("index %d after %d in the file" % (w2[2], w1[2]))
                continue
            if any(o1 < b and a <= o2 for a, b in gaps):
                holes_v += 1
                lost_v += n
            elif o2 // aux != o1 // aux:
                holes_w += 1
                lost_w += n
            else:
                holes_o += 1
                lost_o += n
        tot["holes_at_overrun"] += holes_v
        tot["lost_at_overrun"] += lost_v
        tot["holes_at_wraps"] += holes_w
        tot["lost_at_wraps"] += lost_w
        tot["other_holes"] += holes_o
        tot["lost_other"] += lost_o
        idx = [w[2] for _, w, _ in found]
        print("cpu %d: %d commits, %d wraps; %d of the hypervisor's entries in the file "
              "(indexes %s..%s of segment %s), %d not decoded by latscope; missing between them: "
              "%d in %d holes of the stream, %d in %d holes across a lap's end, %d in %d holes inside a lap"
              % (cpu, len(c), wraps, len(found), idx[0] if idx else "-", idx[-1] if idx else "-",
                 seg, len(missing), lost_v, holes_v, lost_w, holes_w, lost_o, holes_o))
        for n in notes[:5] + ["not decoded: index %d" % x[1][2] for x in missing[:3]]:
            print("  " + n)
    print(" ".join("%s=%d" % kv for kv in tot.items()))
    return 1 if tot["not_decoded"] or tot["bad_layout"] else 0


if __name__ == "__main__":
    sys.exit(main())
