#!/bin/sh
# SPDX-License-Identifier: MIT
# The CPUs of a live run are decided in one place for every command
# (tool_cpus): -c naming a CPU that is not online is refused the same way
# by hist record, hist top, monitor, osnoise top and osnoise hist, with one
# line naming it and the online CPUs, exit 2, before anything is measured.
# (hist used to fail later in perf_event_open with "Invalid argument".)
. "$TESTS_DIR/lib.sh"
online=$(cat /sys/devices/system/cpu/online 2>/dev/null) || skip "no /sys/devices/system/cpu/online"
# a CPU past the last one this machine has
off=$(( $(getconf _NPROCESSORS_CONF) + 3 ))
n=0
for cmd in "hist record" "hist top" "monitor --listen 127.0.0.1:0" "osnoise top" "osnoise hist"; do
	# shellcheck disable=SC2086
	"$LATSCOPE" $cmd -c $off -d 1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || die "$cmd -c $off: exit $rc, not 2: $(cat "$TMP/err")"
	grep -q ": CPU $off is not online (online: $online)\$" "$TMP/err" ||
		die "$cmd -c $off: no line naming CPU $off and the online CPUs ($online): $(cat "$TMP/err")"
	n=$((n + 1))
done
echo "ok: $n live commands refuse -c $off the same way (online: $online)"
