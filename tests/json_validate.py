#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks latscope's JSON output against docs/schema (docs/json.md).

  json_validate.py SCHEMA_DIR FILE...   every document in FILE (one JSON
      document, or one object per line) against the schema its "schema" key
      names ("latscope.osnoise/1" -> SCHEMA_DIR/osnoise.json, whose "schema"
      const must be the same name and version); prints one line per error
  json_validate.py --keys DOCS_MD SCHEMA_DIR   every key path in DOCS_MD's
      tables (under a heading naming `latscope.X/N`) is in that schema and
      every key of the schema is in the table
  json_validate.py --prom FILE   every metric of a Prometheus exposition
      follows docs/json.md's naming rule
Exit 0 all good, 1 a check failed, 3 no python3-jsonschema (the caller skips).
"""
import json
import os
import re
import sys


def load_docs(path):
    text = open(path, encoding="utf-8").read()
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                docs.append(json.loads(line))
            except ValueError as e:
                raise SystemExit("%s:%d: not JSON: %s" % (path, n, e))
    return docs


def schema_file(sdir, name):
    m = re.fullmatch(r"latscope\.([a-z-]+)/([0-9]+)", name or "")
    return os.path.join(sdir, m.group(1) + ".json") if m else None


def validate(sdir, files):
    try:
        import jsonschema
    except ImportError:
        print("no python3-jsonschema")
        return 3
    bad = 0
    cache = {}
    for f in files:
        docs = load_docs(f)
        if not docs:
            print("%s: no document" % f)
            bad += 1
        for i, d in enumerate(docs):
            name = d.get("schema") if isinstance(d, dict) else None
            sf = schema_file(sdir, name)
            if not sf or not os.path.exists(sf):
                print("%s: document %d: no schema for %r" % (f, i + 1, name))
                bad += 1
                continue
            if sf not in cache:
                s = json.load(open(sf, encoding="utf-8"))
                cls = jsonschema.validators.validator_for(s)
                cls.check_schema(s)
                cache[sf] = cls(s)
            errs = sorted(cache[sf].iter_errors(d), key=lambda e: list(e.absolute_path))
            for e in errs[:10]:
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print("%s: document %d (%s): %s: %s" % (f, i + 1, name, where, e.message[:300]))
            bad += len(errs)
    return 1 if bad else 0


def schema_paths(node, prefix, out):
    """Key paths as docs/json.md writes them: a.b, list[].x, map.*.y"""
    for k, v in node.get("properties", {}).items():
        p = prefix + k
        out.add(p)
        sub(v, p, out)


def sub(v, p, out):
    for alt in v.get("anyOf", []):
        sub(alt, p, out)
    if v.get("type") == "array" and isinstance(v.get("items"), dict):
        items = v["items"]
        out.discard(p)
        out.add(p + "[]")
        sub_items = dict(items)
        schema_paths(sub_items, p + "[].", out)
        for alt in items.get("anyOf", []):
            schema_paths(alt, p + "[].", out)
    ap = v.get("additionalProperties")
    if isinstance(ap, dict) and "properties" in ap:
        schema_paths(ap, p + ".*.", out)
    if "properties" in v:
        schema_paths(v, p + ".", out)


def check_keys(md, sdir):
    sections = {}
    cur = None
    for line in open(md, encoding="utf-8"):
        h = re.match(r"^#+ .*`(latscope\.[a-z-]+/[0-9]+)`", line)
        if h:
            cur = sections.setdefault(h.group(1), set())
            continue
        if line.startswith("#"):
            cur = None
            continue
        r = re.match(r"^\| `([^`]+)` \|", line)
        if r and cur is not None:
            cur.add(r.group(1))
    bad = 0
    names = set()
    for fn in sorted(os.listdir(sdir)):
        if not fn.endswith(".json"):
            continue
        s = json.load(open(os.path.join(sdir, fn), encoding="utf-8"))
        name = s["properties"]["schema"].get("const")
        names.add(name)
        have = set()
        schema_paths(s, "", have)
        doc = sections.get(name)
        if doc is None:
            print("%s: %s has no table in %s" % (fn, name, md))
            bad += 1
            continue
        for k in sorted(have - doc):
            print("%s: key %s is not in %s" % (name, k, md))
            bad += 1
        for k in sorted(doc - have):
            print("%s: key %s of %s is in no schema" % (name, k, md))
            bad += 1
    for name in sorted(set(sections) - names):
        print("%s: %s documents it, no schema file" % (md, name))
        bad += 1
    if not bad:
        print("ok: %d documents, every key in both %s and %s" % (len(names), md, sdir))
    return 1 if bad else 0


PROM_UNITS = ("seconds", "bytes", "ratio", "total", "info")
BAD_UNITS = re.compile(r"_(ns|us|ms|nanoseconds|microseconds|milliseconds|minutes|hours|percent|kb|kib|mb)(_|$)")


def check_prom(path):
    """docs/json.md's rule: snake_case with the latscope_ prefix, base units
    (seconds, bytes) named by their suffix, counters end in _total and only
    they, histograms in _seconds; no ns/us/ms or percent anywhere."""
    types = {}
    names = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^# TYPE (\S+) (\S+)", line)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        if line.startswith("#") or not line.strip():
            continue
        names.add(re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)", line).group(1))
    bad = 0
    for fam, t in sorted(types.items()):
        why = []
        if not re.fullmatch(r"latscope_[a-z0-9_]+", fam):
            why.append("not latscope_ snake_case")
        if BAD_UNITS.search(fam):
            why.append("a unit that is not a base unit")
        if t == "counter" and not fam.endswith("_total"):
            why.append("a counter without _total")
        if t != "counter" and fam.endswith("_total"):
            why.append("_total on a " + t)
        if t == "histogram" and not fam.endswith("_seconds"):
            why.append("a histogram not in _seconds")
        if why:
            print("%s (%s): %s" % (fam, t, "; ".join(why)))
            bad += 1
    for n in sorted(names):
        base = re.sub(r"_(bucket|sum|count)$", "", n)
        if n not in types and base not in types:
            print("%s: a sample without # TYPE" % n)
            bad += 1
    if not bad:
        print("ok: %d metric families follow the naming rule" % len(types))
    return 1 if bad or not types else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "--keys":
        return check_keys(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == "--prom":
        return check_prom(argv[2])
    if len(argv) >= 3:
        return validate(argv[1], argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
