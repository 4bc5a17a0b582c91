#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What reached the AUX buffer, against the hypervisor's log and latscope's
decoding of a vpa_dtl recording (tests/power).

  auxcheck.py PERFDATA HVLOG CSV [AUX_BYTES]

Reads the file's PERF_RECORD_AUX records (what the driver committed, per
CPU) and its AUXTRACE payloads (what the recorder copied out of the AUX
buffer), finds every entry of the hypervisor's log (HVLOG, tests/power/qemu)
in those bytes at any offset, and checks that latscope's CSV (`dtl script
--csv`) has each of them: no entry whose 48 bytes reached the file may be
missing from latscope's output.  With AUX_BYTES (the buffer's size) it also
checks the layout the driver's copy makes at a wrap (docs/dtl.md, "The AUX
buffer wrap"): each commit is whole entries but the one that reaches the
end of the buffer, which ends there with the bytes the driver never writes
(zeros); and it prints where the hypervisor's entries went missing
relative to the wraps.

Prints one line per vCPU and a last line "missing_decoded=N"; exit 1 when an
entry in the file is not in the CSV.
"""
import csv
import struct
import sys

ENTRY = 48


def records(data):
    """(type, misc, body, payload) of each record of the data section"""
    if data[:8] == b"PERFILE2":
        end = "<"
    elif data[:8] == b"2ELIFREP":
        end = ">"
    else:
        sys.exit("not a perf.data file")
    hsize, attr_size = struct.unpack_from(end + "QQ", data, 8)
    a_off, a_size, d_off, d_size = struct.unpack_from(end + "QQQQ", data, 24)
    attrs = []
    for o in range(a_off, a_off + a_size, attr_size):
        typ, size, config, period, stype = struct.unpack_from(end + "IIQQQ", data, o)
        flags = struct.unpack_from(end + "Q", data, o + 40)[0]
        attrs.append((typ, config, stype, bool(flags & (1 << 18))))
    pos, stop = d_off, d_off + d_size
    while pos + 8 <= stop:
        typ, misc, size = struct.unpack_from(end + "IHH", data, pos)
        if size < 8:
            sys.exit("a record of size %d at %#x" % (size, pos))
        body = data[pos + 8:pos + size]
        payload = b""
        if typ == 71:	# AUXTRACE: its payload follows
            psize = struct.unpack_from(end + "Q", body, 0)[0]
            payload = data[pos + size:pos + size + psize]
            pos += psize
        yield typ, body, payload, end, attrs
        pos += size


def trailer_cpu(body, nfixed, stype, end):
    """the cpu of a sample_id trailer after nfixed bytes of body"""
    o = nfixed
    for bit in (1 << 1, 1 << 2, 1 << 6, 1 << 9):	# TID TIME ID STREAM_ID
        if stype & bit:
            o += 8
    if not stype & (1 << 7):	# CPU
        return None
    return struct.unpack_from(end + "I", body, o)[0]


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    pd, hvlog, csvf = sys.argv[1:4]
    aux_bytes = int(sys.argv[4]) if len(sys.argv) == 5 else 0
    data = open(pd, "rb").read()
    pay = {}	# cpu -> [(offset, bytes)]
    commits = {}	# cpu -> [(aux_offset, size, flags)]
    for typ, body, payload, end, attrs in records(data):
        if typ == 71:
            size, off, ref, idx, tid, cpu = struct.unpack_from(end + "QQQIII", body, 0)
            pay.setdefault(cpu, []).append((off, payload))
        elif typ == 11:
            off, size, flags = struct.unpack_from(end + "QQQ", body, 0)
            # the vpa_dtl event's attr: neither tracepoint (2) nor software (1)
            st = [a[2] for a in attrs if a[0] not in (1, 2)]
            cpu = trailer_cpu(body, 24, st[0], end) if st else None
            commits.setdefault(cpu, []).append((off, size, flags))
    # the hypervisor's entries by their bytes: (vcpu, segment, index)
    where, nseg = {}, {}
    for line in open(hvlog):
        f = line.split()
        if not f or f[0] != "dtl":
            continue
        v, idx = int(f[1]), int(f[2])
        if idx == 0:
            nseg[v] = nseg.get(v, -1) + 1
        where[bytes.fromhex(f[3])] = (v, nseg[v], idx)
    mine = set()
    for row in csv.DictReader(open(csvf)):
        mine.add((int(row["cpu"]), int(row["timebase"])))
    bad = 0
    for cpu in sorted(pay):
        stream = b"".join(p for _, p in sorted(pay[cpu], key=lambda x: x[0]))
        found = []
        for o in range(0, len(stream) - ENTRY + 1, 16):	# commits are 16-byte aligned
            w = where.get(stream[o:o + ENTRY])
            if w and w[0] == cpu:
                found.append((o, w))
        segs = {}
        for _, w in found:
            segs[w[1]] = segs.get(w[1], 0) + 1
        seg = max(segs, key=segs.get) if segs else None
        inseg = [(o, w) for o, w in found if w[1] == seg]
        missing = [w for o, w in inseg
                   if (cpu, struct.unpack(">Q", stream[o + 16:o + 24])[0]) not in mine]
        bad += len(missing)
        c = commits.get(cpu, [])
        odd = [(o, s) for o, s, _ in c if s % ENTRY]
        line = ("cpu %d: %d AUXTRACE bytes, %d commits (%d not whole entries), %d of the "
                "hypervisor's entries in them (segment %s), %d of those not decoded by latscope"
                % (cpu, len(stream), len(c), len(odd), len(inseg), seg, len(missing)))
        if aux_bytes and c:
            # each commit that is not whole entries ends at a wrap, with zeros
            wraps = 0
            for o, s in odd:
                e = o + s
                if e % aux_bytes:
                    line += "; commit at %#x of %d bytes does not end at a wrap" % (o, s)
                    bad += 1
                    continue
                wraps += 1
                base = sorted(pay[cpu])[0][0]
                gap = stream[e - base - (aux_bytes - aux_bytes // ENTRY * ENTRY):e - base] \
                    if e - base <= len(stream) else None
                if gap is not None and gap.strip(b"\0"):
                    line += "; the bytes before the wrap at %#x are not zeros" % e
                    bad += 1
            # the hypervisor's indexes missing, by whether a wrap came in between
            idxs = sorted(w[2] for _, w in inseg)
            holes = [(a, b) for a, b in zip(idxs, idxs[1:]) if b != a + 1]
            line += "; %d wraps; %d index gaps (%s)" % (
                wraps, len(holes), ", ".join("%d..%d" % (a + 1, b - 1) for a, b in holes[:8]))
        for w in missing[:3]:
            line += "\n  not decoded: vCPU %d index %d" % (w[0], w[2])
        print(line)
    print("missing_decoded=%d" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
