#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile clients never stop latscope monitor from serving (the daemon
# itself, beside test_metricsrv's unit test of the server): on loopback,
# bounded in time, while the clients below hold their connections, a
# scrape is answered (200, a whole exposition, under 1 s), and after them
# the monitor still runs, answers, and exits 0 on SIGTERM:
#   - 300 slowloris connections (a header line, then one byte a second);
#   - 50 half-closed ones (half a request, then shutdown(SHUT_WR));
#   - a 100 KiB request line (refused: 414 or 431, or the connection closed);
#   - binary garbage; a request for another path (404), a POST (405);
#   - then 600 idle connections, more than the server's 512: those beyond
#     the limit wait in the kernel's listen backlog (or are refused when it
#     is full), and once the idle ones time out (10 s) a scrape is answered
#     again: a flood of idle clients delays scrapes by at most the timeout,
#     never stops the monitor.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (the monitor's backend)"
command -v python3 >/dev/null || skip "needs python3 (the clients)"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mpid=""
trap 'kill $mpid 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
ulimit -n 4096 2>/dev/null

monitor_start "$TMP/mon" --listen 127.0.0.1:0 --refresh 200ms

python3 - "$port" > "$TMP/clients.out" 2>&1 <<'PY' || die "$(tail -5 "$TMP/clients.out")"
import socket, sys, time
port = int(sys.argv[1])
addr = ("127.0.0.1", port)

def conn():
    s = socket.create_connection(addr, timeout=5)
    return s

def scrape(path="/metrics", method="GET"):
    t = time.monotonic()
    s = conn()
    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (method, path)).encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    code = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.") else 0
    return code, data, time.monotonic() - t

def try_scrape():
    """(None, seconds) for a whole exposition within 1 s, else (why, 0)"""
    try:
        code, data, dt = scrape()
    except OSError as e:
        return repr(e), 0
    if code != 200 or b"latscope_monitor_info" not in data or dt > 1.0:
        return "answered %d in %.3f s (%d bytes)" % (code, dt, len(data)), 0
    return None, dt

def check_scrape(why):
    err, dt = try_scrape()
    if err:
        print("FAIL: %s: scrape %s" % (why, err))
        sys.exit(1)
    return dt

slow, half = [], []
for i in range(300):
    s = conn()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    slow.append(s)
for i in range(50):
    s = conn()
    s.sendall(b"GET /metr")
    s.shutdown(socket.SHUT_WR)
    half.append(s)
# a 100 KiB request line
s = conn()
try:
    s.sendall(b"GET /" + b"a" * 102400 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    r = s.recv(4096)
except (BrokenPipeError, ConnectionResetError):
    r = b""
if r and not (b" 414 " in r[:20] or b" 431 " in r[:20] or b" 400 " in r[:20]):
    print("FAIL: a 100 KiB request line answered %r" % r[:40]); sys.exit(1)
s.close()
# garbage
s = conn()
s.sendall(bytes(range(256)) * 4 + b"\r\n\r\n")
try:
    s.recv(4096)
except (ConnectionResetError, socket.timeout):
    pass
s.close()
code = scrape("/nothing")[0]
if code != 404:
    print("FAIL: /nothing answered %d" % code); sys.exit(1)
code = scrape("/metrics", "POST")[0]
if code != 405:
    print("FAIL: POST answered %d" % code); sys.exit(1)
worst = 0
for i in range(3):
    for s in slow:
        try:
            s.send(b"X")
        except OSError:
            pass
    worst = max(worst, check_scrape("among 300 slowloris and 50 half-closed connections"))
    time.sleep(1)
for s in slow + half:
    s.close()
print("scrapes among 350 hostile connections: the slowest %.1f ms" % (worst * 1000))
# over the limit: 600 idle connections; the ones beyond 512 are refused
idle, refused = [], 0
for i in range(600):
    try:
        s = socket.create_connection(addr, timeout=2)
        idle.append(s)
    except OSError:
        refused += 1
time.sleep(0.5)
closed = 0
for s in idle:
    s.setblocking(False)
    try:
        if s.recv(1) == b"":
            closed += 1
    except (BlockingIOError, ConnectionResetError):
        pass
print("600 idle connections: %d refused at connect, %d closed by the server at once" % (refused, closed))
t0 = time.monotonic()
# the idle ones time out (10 s): then a scrape is answered again
deadline = time.monotonic() + 20
while True:
    err, dt = try_scrape()
    if not err:
        break
    if time.monotonic() > deadline:
        print("FAIL: no scrape answered 20 s after 600 idle connections: %s" % err); sys.exit(1)
    time.sleep(0.5)
for s in idle:
    s.close()
print("after 600 idle connections a scrape answered %.1f s later (the idle ones time out after 10 s)" % (time.monotonic() - t0))
PY
kill -0 $mpid 2>/dev/null || die "the monitor died: $(tail -3 "$TMP/mon.err")"
kill -TERM $mpid
wait $mpid
rc=$?
mpid=""
[ $rc = 0 ] || die "exit $rc after SIGTERM: $(tail -3 "$TMP/mon.err")"
cat "$TMP/clients.out"
