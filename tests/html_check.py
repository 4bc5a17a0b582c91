#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks latscope's HTML pages (docs/html.md) for tests/e2e/html_pages.sh.

  html_check.py png FILE MIN_COLOURS MIN_INK
      the PNG (a screenshot) is not blank: at least MIN_COLOURS distinct
      colours and a share MIN_INK (0..1) of pixels that are not the
      background (the top-left pixel's colour); decoded here with zlib
  html_check.py svg FILE.html
      the page is self-contained (no http(s) reference, no <script>) and
      every <svg>...</svg> in it is well-formed XML
  html_check.py dtl FILE.html REPORT.json SCRIPT.jsonl
      the DTL page against its document and against `dtl script --json`:
      one lane group per vCPU of vcpu_timeline, the timeline's preempted,
      ceded and delay time equal to what the entries say (computed here
      from dtl script's lines, another code path), one numbered mark per
      worst delay at its time's x
  html_check.py kinds FILE.html KIND...
      the page has an <h2> per histogram KIND and a class="hist" SVG with bars
  html_check.py osnoise FILE.html DOC.json
      one stacked bar group per CPU, each class's bar width in proportion
      to its share of the runtime
  html_check.py why FILE.html DOC.json
      one time line per sample of `dtl why`: the hypervisor lane's spans
      are the document's (their ns summed: its hypervisor_ns), each drawn
      at its times' x inside the sample's axis; the stacked bar's parts sum
      to the latency and fill the axis in proportion
Prints one line and exits 1 on the first failure, 0 when all holds.
"""
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("html_check: " + msg)
    sys.exit(1)


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat, w = 8, b"", None
    while pos + 8 <= len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or inter:
                fail("%s: PNG kind not handled (depth %d colour type %d interlace %d)"
                     % (path, depth, ctype, inter))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    if w is None:
        fail("%s: no IHDR" % path)
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, off = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path, min_colours, min_ink):
    w, h, bpp, rows = png_pixels(path)
    bg = rows[0][:3]
    colours, ink = set(), 0
    for r in rows:
        for x in range(0, w * bpp, bpp):
            px = r[x:x + 3]
            if px != bg:
                ink += 1
                if len(colours) < 100000:
                    colours.add(px)
    share = ink / float(w * h)
    if len(colours) < min_colours or share < min_ink:
        fail("%s looks blank: %d colours, %.4f of the pixels not background (want >= %d, >= %.4f)"
             % (path, len(colours), share, min_colours, min_ink))
    print("%s: %dx%d, %d colours, %.3f ink" % (path, w, h, len(colours), share))


def svgs(path):
    text = open(path, encoding="utf-8").read()
    if re.search(r"(src|href)\s*=\s*\"?(https?:)?//", text) or "<script" in text.lower():
        fail("%s: not self-contained (a network reference or a script)" % path)
    out = []
    for m in re.finditer(r"<svg\b.*?</svg>", text, re.S):
        try:
            out.append(ET.fromstring(m.group(0)))
        except ET.ParseError as e:
            fail("%s: an SVG is not well-formed: %s" % (path, e))
    if not out:
        fail("%s: no SVG" % path)
    return text, out


def by_id(svg_list, ident):
    for s in svg_list:
        if s.get("id") == ident:
            return s
    fail("no <svg id=%s>" % ident)


def path_rects(d):
    """(x, width, height) of each M x y h w v h h -w z rectangle of a path."""
    return [(float(a), float(b), float(c)) for a, b, c in
            re.findall(r"M([-0-9.]+) [-0-9.]+h([-0-9.]+)v([-0-9.]+)h[-0-9.]+z", d or "")]


def check_dtl(html, rep, script):
    _, sv = svgs(html)
    doc = json.load(open(rep))
    tl = doc["vcpu_timeline"]
    tsvg = by_id(sv, "timeline")
    groups = [g for g in tsvg.iter(NS + "g") if g.get("class") == "vcpu"]
    if len(groups) != min(len(tl["cpus"]), 64):
        fail("%d vCPU lane groups, the document has %d vCPUs" % (len(groups), len(tl["cpus"])))
    # the entries, from dtl script's lines: ns as the report converts them
    f = doc["tb_freq_hz"]
    vol = {"H_CEDE", "H_CONFER", "H_CONFER_ADJUNCT"}
    want = {"pre": 0, "ced": 0, "del": 0, "n": 0}
    for line in open(script):
        e = json.loads(line)
        if e.get("type") != "entry":
            continue
        d = (e["enqueue_to_dispatch_ticks"] + e["ready_to_enqueue_ticks"]) * 10**9 // f
        w = e["waiting_to_ready_ticks"] * 10**9 // f
        if e["preempt_reason"] in vol:
            want["ced"] += w
            want["del"] += d
        else:
            want["pre"] += d + w
        want["n"] += 1
    got = {"pre": sum(sum(c["preempted_ns"]) for c in tl["cpus"]),
           "ced": sum(sum(c["ceded_ns"]) for c in tl["cpus"]),
           "del": sum(sum(c["delay_ns"]) for c in tl["cpus"]),
           "n": sum(sum(c["entries"]) for c in tl["cpus"])}
    for k in want:
        # ticks -> ns rounding differs by < 1 ns an entry; entries before the
        # recording's start are clipped at time 0 only in pathological files
        if abs(want[k] - got[k]) > want["n"] + 1:
            fail("timeline %s: %d, the entries say %d" % (k, got[k], want[k]))
    if want["pre"] == 0:
        fail("the input has no preempted time: the check would prove nothing")
    # the red (preempted) path of each lane is drawn where the document has time
    reds = 0
    for g in groups:
        for p in g.iter(NS + "path"):
            if p.get("fill") == "#d62728":
                reds += len(path_rects(p.get("d")))
    nonzero = sum(1 for c in tl["cpus"][:64] for v in c["preempted_ns"] if v)
    if reds != nonzero:
        fail("%d preempted rectangles drawn, the document has %d non-zero bins" % (reds, nonzero))
    # the worst delays: one numbered mark each, at its time
    marks = [g for g in tsvg.iter(NS + "g") if g.get("class") == "worst-mark"]
    if len(marks) != len(doc["worst"]):
        fail("%d worst marks, the document lists %d" % (len(marks), len(doc["worst"])))
    span = tl["bin_ns"] * tl["bins"]
    for k, (g, w) in enumerate(zip(marks, doc["worst"])):
        x = float(re.match(r"M([-0-9.]+)", g.find(NS + "path").get("d")).group(1))
        want_x = 86 + (w["time_ns"] - tl["start_ns"]) / span * (1300 - 86 - 16)
        if abs(x - want_x) > 1.0 or g.find(NS + "text").text != str(k + 1):
            fail("worst mark %d at x %.1f, its time says %.1f" % (k + 1, x, want_x))
    print("%s: %d lanes, preempted %d ns in %d rectangles, %d worst marks: as the entries say"
          % (html, len(groups), got["pre"], reds, len(marks)))


def check_kinds(html, kinds):
    text, sv = svgs(html)
    for k in kinds:
        if "<h2>%s</h2>" % k not in text:
            fail("%s: no section for %s" % (html, k))
    bars = sum(1 for s in sv if s.get("class") == "hist" for _ in s.iter(NS + "rect"))
    if not bars:
        fail("%s: no histogram bars" % html)
    print("%s: sections %s, %d bars" % (html, " ".join(kinds), bars))


def check_osnoise(html, djson):
    _, sv = svgs(html)
    doc = json.load(open(djson))
    n = by_id(sv, "noise")
    groups = [g for g in n.iter(NS + "g") if g.get("class") == "cpu-noise"]
    if len(groups) != len(doc["cpus"]):
        fail("%d CPU bars, the document has %d CPUs" % (len(groups), len(doc["cpus"])))
    for g, c in zip(groups, doc["cpus"]):
        rects = {r.get("class"): float(r.get("width")) for r in g.iter(NS + "rect")}
        scale = None
        for cls, key in (("HW", "hw_ns"), ("NMI", "nmi_ns"), ("IRQ", "irq_ns"),
                         ("SIRQ", "softirq_ns"), ("THREAD", "thread_ns")):
            if not c[key]:
                if cls in rects:
                    fail("CPU %d: a %s bar for no time" % (c["cpu"], cls))
                continue
            if rects.get(cls) is None:
                fail("CPU %d: no %s bar for %d ns" % (c["cpu"], cls, c[key]))
            if rects[cls] <= 0.5:
                continue
            s = rects[cls] / (c[key] / c["runtime_ns"])
            scale = scale or s
            if abs(s - scale) > scale * 0.02 + 0.5 / (c[key] / c["runtime_ns"]) * 0.01:
                fail("CPU %d: %s bar out of proportion" % (c["cpu"], cls))
    print("%s: %d CPU bars in proportion" % (html, len(groups)))


def check_why(html, djson):
    _, sv = svgs(html)
    doc = json.load(open(djson))
    lines = [x for x in sv if x.get("class") == "why"]
    if len(lines) != len(doc["worst"]):
        fail("%d time lines, the document has %d samples" % (len(lines), len(doc["worst"])))
    spans = 0
    for svg, s in zip(lines, doc["worst"]):
        a, b = int(s["from_ns"]), int(s["to_ns"])
        x0, w = float(svg.get("data-x0")), float(svg.get("data-w"))
        if int(svg.get("data-from")) != a or int(svg.get("data-to")) != b:
            fail("a time line's range is not its sample's")
        hv = [r for r in svg.iter(NS + "rect") if r.get("class") == "hv"]
        if len(hv) != len(s["hypervisor"]):
            fail("CPU %s: %d hypervisor spans drawn, the document has %d" % (s["cpu"], len(hv), len(s["hypervisor"])))
        tot = 0
        for r, h in zip(hv, s["hypervisor"]):
            ns = int(r.get("data-ns"))
            tot += ns
            lo = max(int(h["start_ns"]), a)
            want = x0 + (lo - a) * w / (b - a) if b > a else x0
            if ns != int(h["ns"]) or abs(float(r.get("x")) - want) > 0.51:
                fail("CPU %s: a hypervisor span drawn at x %s for %d ns, the document: x %.2f, %s ns"
                     % (s["cpu"], r.get("x"), ns, want, h["ns"]))
            spans += 1
        if not s["hypervisor_more"] and tot != int(s["hypervisor_ns"]):
            fail("CPU %s: the hypervisor lane holds %d ns, the sample %s" % (s["cpu"], tot, s["hypervisor_ns"]))
        parts = [r for r in svg.iter(NS + "rect") if r.get("class") == "part"]
        pns = sum(int(r.get("data-ns")) for r in parts)
        pw = sum(float(r.get("width")) for r in parts)
        if pns + int(s["other_ns"]) != int(s["latency_ns"]) or \
                abs(pw - w * pns / max(int(s["latency_ns"]), 1)) > 0.5:
            fail("CPU %s: the parts' bar holds %d ns in %.1f px of %.1f, latency %s"
                 % (s["cpu"], pns, pw, w, s["latency_ns"]))
    print("%s: %d time lines, %d hypervisor spans at their times, the parts in proportion"
          % (html, len(lines), spans))


def main(a):
    if len(a) == 4 and a[0] == "png":
        check_png(a[1], int(a[2]), float(a[3]))
    elif len(a) == 2 and a[0] == "svg":
        _, sv = svgs(a[1])
        print("%s: %d SVGs, well-formed, self-contained" % (a[1], len(sv)))
    elif len(a) == 4 and a[0] == "dtl":
        check_dtl(a[1], a[2], a[3])
    elif len(a) >= 3 and a[0] == "kinds":
        check_kinds(a[1], a[2:])
    elif len(a) == 3 and a[0] == "osnoise":
        check_osnoise(a[1], a[2])
    elif len(a) == 3 and a[0] == "why":
        check_why(a[1], a[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
