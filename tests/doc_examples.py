#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every example command in README.md, docs/*.md and docs/man/*.1, extracted
from the files themselves (a new example is tested by default).

  doc_examples.py list ROOT          one line per example: FILE:LINE<TAB>COMMAND
  doc_examples.py run ROOT DIR       run every example (below); exit 1 if one failed

What counts as an example:
  - markdown: a fenced block whose language is sh, shell, bash, console or
    none, and an indented (4 spaces) block: its lines that start with "$ "
    (the prompt is dropped), and in sh/shell/bash blocks every line that starts
    with a command (not a comment, not output);
  - man pages: the lines of the .nf/.fi blocks under .SH EXAMPLES (roff
    escapes undone);
  - a line ending in a backslash goes on with the next one; a trailing
    "# comment" is kept (the runner reads its tags).
"""
import glob
import os
import re
import sys

CMD = re.compile(r"^(sudo\s+)?(latscope|perf|make|curl|promtool|nice|chrt|taskset|LATSCOPE=\S+|[./a-z-]+\s*&&)\b")


def roff(s):
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'").replace("\\&", "")
    return re.sub(r"\\f[BIRP]", "", s)


def joined(lines):
    """(lineno, text) pairs with backslash continuations joined."""
    out, cur, start = [], "", None
    for no, t in lines:
        if start is None:
            start = no
        if t.rstrip().endswith("\\"):
            cur += t.rstrip()[:-1].rstrip() + " "
            continue
        cur += t.strip()
        out.append((start, cur.strip()))
        cur, start = "", None
    if cur:
        out.append((start, cur.strip()))
    return out


def markdown(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i, res = 0, []
    prev_blank = True
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)\s*$", lines[i])
        if m:
            lang, block = m.group(1), []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                block.append((i + 1, lines[i]))
                i += 1
            i += 1
            if lang not in ("", "sh", "shell", "bash", "console"):
                continue
            res += pick(block, shell=lang in ("sh", "shell", "bash"))
            prev_blank = True
            continue
        if prev_blank and lines[i].startswith("    ") and lines[i].strip():
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                if lines[i].strip():
                    block.append((i + 1, lines[i][4:]))
                i += 1
            res += pick(block, shell=False)
            prev_blank = False
            continue
        prev_blank = not lines[i].strip()
        i += 1
    return res


def pick(block, shell):
    res, cont = [], []
    for no, t in block:
        s = t.strip()
        if cont:
            cont.append((no, s))
            if not s.endswith("\\"):
                res += joined(cont)
                cont = []
            continue
        if s.startswith("$ "):
            s = s[2:]
        elif not (shell and CMD.match(s)):
            continue
        if s.endswith("\\"):
            cont = [(no, s)]
        else:
            res.append((no, s))
    return res


def man(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    res, sect, nf, block = [], "", False, []
    for no, t in enumerate(lines, 1):
        if t.startswith(".SH "):
            sect = t[4:].strip().strip('"')
            continue
        if sect != "EXAMPLES":
            continue
        if t.startswith(".nf"):
            nf, block = True, []
        elif t.startswith(".fi"):
            nf = False
            res += joined([(n, roff(x)) for n, x in block if x.strip() and not x.startswith(".")])
        elif nf:
            block.append((no, t))
    return res


def examples(root):
    files = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)) + \
        sorted(glob.glob("docs/man/*.1", root_dir=root))
    for f in files:
        p = os.path.join(root, f)
        for no, cmd in (man(p) if f.endswith(".1") else markdown(p)):
            yield f, no, cmd


# ---- running them ---------------------------------------------------------------
#
# Each document's examples run in order in a directory of its own (a later
# example reads the file an earlier one wrote), with `latscope` on PATH being
# the binary under test.  What the runner changes, and only that:
#   - live runs last 1 s: "-d X"/"--duration X" of osnoise, hist and dtl record
#     become "-d 1", "sleep N" becomes "sleep 1";
#   - a command that runs until stopped (monitor, top without -d, a trace
#     waiting for its threshold) gets Ctrl-C (SIGINT) after 2 s, as a user
#     stops it (hist top: after 2 s and its first table, up to 60 s more):
#     exit 0 expected, as after any clean stop;
#   - standard output is a file (a pipe would make perf record write to it);
#   - paths under /var/ are made under the directory;
#   - the inputs an example names without making them are made first:
#     lpar.data (dtl synth), lpar-kallsyms.txt, sched-load.perf.data (the
#     shared recording when SHARED_DATA names it, else a perf record of
#     sched:*), ./workload and ./app (a 1 s task);
#   - "make demo" runs scripts/demo.sh (what it runs after building);
#     "make check" is the suite running this test, and "make cross-ppc64el"
#     runs in it (tests/cross/run.sh): not run again;
#   - "curl ... localhost:9798" runs against a monitor started for it;
#   - "latscope dtl record" without a POWER DTL source: exit 2 and a line
#     naming the missing DTL source is the expected answer; so is a live
#     "latscope timerlat" (or "monitor --timerlat") on a kernel without the timerlat tracer (the kernel
#     tier runs timerlat where it exists: tests/kernels/guest/timerlat_truth.sh);
#   - timerlat.txt is a 6.1-rt guest's timerlat trace (tests/data/timerlat).
# Every other example must exit 0, or 1 where it sets a stop threshold
# (-T, -s, -a/--auto: exit 1 says the threshold was hit).

LIVE = re.compile(r"\blatscope (osnoise (top|hist|trace|record)|hist (record|top)|dtl record|timerlat (top|hist|trace))\b")
UNTIL_STOPPED = re.compile(r"\blatscope (monitor|hist top|osnoise (top|hist|trace)|timerlat (top|hist|trace))\b(?!.*\s(-i|--parse-kernel)\s)")


def adapt(cmd, work):
    c = cmd
    c = re.sub(r"(\bsleep) +[0-9.]+[a-z]*", r"\1 1", c)
    if LIVE.search(c):
        c = re.sub(r"(^|\s)(-d|--duration)(\s+|=)\S+", r"\1-d 1", c)
    c = re.sub(r"(\s)/var/(\S+)", lambda m: m.group(1) + os.path.join(work, "var", m.group(2)), c)
    for m in re.finditer(r"\s" + re.escape(work) + r"/var/(\S+)", c):
        os.makedirs(os.path.join(work, "var", m.group(1)), exist_ok=True)
    return c


def sh(cmd, cwd, env, timeout, sigint_after=None):
    import signal
    import subprocess
    import time
    t0 = time.monotonic()
    if sigint_after and not re.search(r"[|&;<>`$()]", cmd):
        cmd = "exec " + cmd  # Ctrl-C reaches the command, not a shell around it
    out_f = open(os.path.join(cwd, ".stdout"), "w+b")
    p = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, env=env, stdout=out_f,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=sigint_after or timeout)
    except subprocess.TimeoutExpired:
        # `hist top` prints its first table once it measures; its set-up
        # (the keep-busy self-test) can take longer than 2 s on a loaded
        # machine, and a Ctrl-C before it is not the stop the example shows
        if sigint_after is not None and re.search(r"\blatscope hist top\b", cmd):
            t1 = time.monotonic()
            while p.poll() is None and os.path.getsize(out_f.name) == 0 and time.monotonic() - t1 < 60:
                time.sleep(0.2)
        if sigint_after is None:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return -9, out, err, time.monotonic() - t0
        os.killpg(p.pid, signal.SIGINT)	# Ctrl-C: the whole command line
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return -9, out, err, time.monotonic() - t0
    return p.returncode, out, err, time.monotonic() - t0


def has_timerlat():
    try:
        return "timerlat" in open("/sys/kernel/tracing/available_tracers").read().split()
    except OSError:
        return False


def has_dtl_source():
    return os.path.exists("/sys/bus/event_source/devices/vpa_dtl") or \
        os.path.exists("/sys/kernel/debug/powerpc/dtl")


def prepare(work, root, env):
    os.makedirs(work, exist_ok=True)
    for name in ("workload", "app"):
        with open(os.path.join(work, name), "w") as f:
            f.write("#!/bin/sh\nsleep 1\n")
        os.chmod(os.path.join(work, name), 0o755)
    steps = [
        ("lpar.data", "latscope dtl synth -q -o lpar.data --cpus 8 -d 1s"),
        ("lpar-kallsyms.txt", "cp '%s' lpar-kallsyms.txt" % os.path.join(root, "tests/data/kallsyms-lpar")),
        ("timerlat.txt", "cp '%s' timerlat.txt" % os.path.join(root, "tests/data/timerlat/truth-rt61.txt")),
    ]
    shared = env.get("SHARED_DATA", "")
    if shared and os.path.exists(shared):
        steps.append(("sched-load.perf.data", "zstd -q -d -f '%s' -o sched-load.perf.data" % shared))
    else:
        steps.append(("sched-load.perf.data",
                      "perf record -q -e 'sched:*' -a -o sched-load.perf.data -- sleep 1"))
    for name, cmd in steps:
        rc, out, err, _ = sh(cmd, work, env, 60)
        if rc != 0 or not os.path.exists(os.path.join(work, name)):
            sys.exit("doc_examples: cannot make %s: %s" % (name, err.decode(errors="replace")))


def run(root, base):
    env = dict(os.environ)
    binary = os.path.abspath(env["LATSCOPE"])
    bindir = os.path.join(base, "bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.exists(os.path.join(bindir, "latscope")):
        os.symlink(binary, os.path.join(bindir, "latscope"))
    env["PATH"] = bindir + ":" + env.get("PATH", "/usr/bin:/bin")
    failed, n, monitor = 0, 0, None
    for f, no, cmd in examples(root):
        work = os.path.join(base, re.sub(r"[^A-Za-z0-9]", "_", f))
        if not os.path.isdir(work):
            prepare(work, root, env)
        n += 1
        where = "%s:%d" % (f, no)
        if re.match(r"make (check|cross-ppc64el)\b", cmd):
            print("ok   %s: %s (this suite: not run again)" % (where, cmd))
            continue
        c = adapt(cmd, work)
        if re.match(r"make demo\b", c):
            c = "sh '%s'" % os.path.join(root, "scripts/demo.sh")
            env["LATSCOPE"] = binary
        expect = {0}
        if re.search(r"\s(-(T|s|a)|--auto)[\s=]", c):
            expect = {0, 1}
        dtl_rec = re.search(r"\blatscope dtl record\b", c) and not has_dtl_source()
        if dtl_rec:
            expect = {2}
        tl_live = re.search(r"\blatscope (timerlat\b|monitor\b.*--timerlat)", c) and "--parse-kernel" not in c \
            and not has_timerlat()
        if tl_live:
            expect = {2}
        if re.match(r"curl\b.*localhost:9798", c) and monitor is None:
            monitor = __import__("subprocess").Popen(["latscope", "monitor", "--listen", "127.0.0.1:9798"],
                                                     cwd=work, env=env, start_new_session=True,
                                                     stdout=open(os.devnull, "w"),
                                                     stderr=open(os.devnull, "w"))
            __import__("time").sleep(2)
        stop = 2 if UNTIL_STOPPED.search(c) and not re.search(r"(^|\s)-d ", c) else None
        rc, out, err, dt = sh(c, work, env, 120, stop)
        e = err.decode(errors="replace").strip()
        ok = rc in expect
        if ok and dtl_rec:
            ok = "DTL" in e or "dtl" in e
        if ok and tl_live:
            ok = "no timerlat tracer" in e
        shown = c if c == cmd else "%s  [run as: %s]" % (cmd, c)
        if ok:
            print("ok   %s: %s (exit %d, %.1f s%s)" % (where, shown, rc, dt, ", Ctrl-C at 2 s" if stop else ""))
        else:
            failed += 1
            print("FAIL %s: %s: exit %d (expected %s), %.1f s\n     stderr: %s" %
                  (where, shown, rc, "/".join(map(str, sorted(expect))), dt, e[-600:]))
    if monitor:
        import signal
        os.killpg(monitor.pid, signal.SIGINT)
        monitor.wait(10)
    print("%d examples, %d failed" % (n, failed))
    return 1 if failed else 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("list", "run"):
        sys.exit("usage: doc_examples.py list ROOT | run ROOT DIR")
    root = sys.argv[2]
    if sys.argv[1] == "list":
        for f, no, cmd in examples(root):
            print(f"{f}:{no}\t{cmd}")
        return 0
    return run(root, os.path.abspath(sys.argv[3]))


if __name__ == "__main__":
    sys.exit(main())
