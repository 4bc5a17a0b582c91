#!/bin/sh
# SPDX-License-Identifier: MIT
# What contrib/ ships for the monitor (docs/monitor.md):
#  - the systemd unit passes `systemd-analyze verify` (its ExecStart pointed
#    at the binary under test: verify wants the command to exist) and keeps
#    its capability set to the five docs/monitor.md explains (that they are
#    enough: tests/e2e/monitor_caps.sh);
#  - the Grafana dashboard is valid JSON with panels, each with a query, and
#    every query names latscope metrics only (that the monitor exports them
#    is tests/e2e/monitor.sh's check, against a live exposition);
#  - the Prometheus files are valid YAML to promtool (check config).
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
C=$SRC/contrib
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
ran=""

if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=/usr/bin/latscope |ExecStart=$LATSCOPE |" "$C/systemd/latscope-monitor.service" \
		> "$TMP/latscope-monitor.service"
	grep -q "^ExecStart=$LATSCOPE monitor" "$TMP/latscope-monitor.service" || die "the unit's ExecStart is not /usr/bin/latscope monitor"
	systemd-analyze verify --man=no "$TMP/latscope-monitor.service" > "$TMP/verify" 2>&1 ||
		die "systemd-analyze verify: $(cat "$TMP/verify")"
	[ -s "$TMP/verify" ] && die "systemd-analyze verify has something to say: $(cat "$TMP/verify")"
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$C/systemd/latscope-monitor.service")
	[ "$caps" = "CAP_BPF CAP_PERFMON CAP_IPC_LOCK CAP_SYS_RESOURCE CAP_SYS_NICE" ] ||
		die "the unit's capabilities changed ($caps): update docs/monitor.md, then this test"
	ran="$ran systemd-analyze"
fi

command -v python3 >/dev/null || skip "needs python3 (the dashboard's JSON)"
python3 - "$C/grafana/latscope-dashboard.json" > "$TMP/dash" <<'PY' || die "dashboard: $(cat "$TMP/dash")"
import json, re, sys
d = json.load(open(sys.argv[1]))
panels = d.get("panels") or []
if not panels:
    print("no panels"); sys.exit(1)
for p in panels:
    if p.get("type") == "row":
        continue
    exprs = [t.get("expr", "") for t in p.get("targets", [])]
    if not exprs or not all(exprs):
        print("panel %r has no query" % p.get("title")); sys.exit(1)
    for e in exprs:
        # every metric name in the query (words followed by { or ( or a space
        # that are not PromQL's) is latscope's
        for m in re.findall(r"\b([a-z_][a-z0-9_]*)\s*\{", e):
            if not m.startswith("latscope_"):
                print("panel %r queries %s" % (p.get("title"), m)); sys.exit(1)
print(len([p for p in panels if p.get("type") != "row"]))
PY
ran="$ran dashboard($(cat "$TMP/dash") panels)"

if command -v promtool >/dev/null; then
	sed "s|/etc/prometheus/latscope-targets.yml|$C/prometheus/latscope-targets.yml|" "$C/prometheus/latscope.yml" > "$TMP/p.yml"
	promtool check config "$TMP/p.yml" > "$TMP/pc" 2>&1 || die "promtool check config: $(cat "$TMP/pc")"
	ran="$ran promtool"
fi
echo "contrib: checked with$ran"
