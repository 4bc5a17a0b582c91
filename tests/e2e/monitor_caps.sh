#!/bin/sh
# SPDX-License-Identifier: MIT
# The systemd unit's capabilities are enough (contrib/systemd/
# latscope-monitor.service; tests/static/contrib.sh checks the unit itself):
# root with only its CapabilityBoundingSet (setpriv), as systemd runs it,
# runs the monitor on the bpf and on the perf backend (keep-busy self-test
# included), serves, and stops with exit 0; the same without CAP_BPF is
# refused the bpf backend, so the boundary is the one applied.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
SRC=$(dirname "$TESTS_DIR")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$SRC/contrib/systemd/latscope-monitor.service")
[ -n "$caps" ] || die "the unit has no CapabilityBoundingSet"
# "CAP_BPF CAP_PERFMON" -> "-all,+bpf,+perfmon"
set_of() { echo "-all$(for c in $1; do printf ',+%s' "$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"; done)"; }
for b in bpf perf; do
	setpriv --bounding-set "$(set_of "$caps")" "$LATSCOPE" monitor --backend $b --listen 127.0.0.1:0 -d 2 \
		> "$TMP/$b.out" 2> "$TMP/$b.err"
	rc=$?
	[ $b = bpf ] && bpf_skip_if_refused "$TMP/$b.err"
	[ $rc = 0 ] || die "$b with the unit's capabilities ($caps): exit $rc: $(cat "$TMP/$b.err")"
	grep -q 'stopped after .* [1-9][0-9]* snapshots' "$TMP/$b.err" || die "$b: no snapshot: $(cat "$TMP/$b.err")"
	echo "$b: runs with $caps"
done
setpriv --bounding-set "$(set_of "$(echo "$caps" | sed 's/CAP_BPF //')")" "$LATSCOPE" monitor --backend bpf \
	--listen 127.0.0.1:0 -d 1 > "$TMP/nobpf.out" 2> "$TMP/nobpf.err" && die "bpf ran without CAP_BPF: the boundary was not applied"
grep -q 'backend bpf refused' "$TMP/nobpf.err" || die "without CAP_BPF: $(cat "$TMP/nobpf.err")"
echo "without CAP_BPF the bpf backend is refused"
