#!/bin/sh
# SPDX-License-Identifier: MIT
# The rtla in the guest is the running kernel's: the kernel tier gives a
# kernel of another suite that suite's rtla (tests/kernels/run.sh,
# suite_cmds: sid's rtla 7.2, its own libraries and C library, for sid's
# 7.2 kernel), the others the host's (bookworm's 6.1).  rtla is built from
# the kernel's source and drives the tracers' files of that version, so the
# version `rtla --help` names must be the kernel's (major.minor of uname -r).
# Where the kernel has the timerlat tracer, `rtla timerlat top -d 2 -q` must
# exit 0 and print a CPU's row with samples (rtla 6.1 left out CPU 1 once,
# its row without samples, with three guests sharing two host CPUs).
# needs: cmd:rtla
# timeout: 60
. "$KTEST_DIR/guest/lib.sh"
# (rtla has no --version: its usage, on stderr, starts with "rtla version X")
rtla --help > "$ART/help" 2>&1
rv=$(sed -n 's/^ *rtla version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' "$ART/help" | head -1)
[ -n "$rv" ] || die "no 'rtla version X.Y' in rtla --help: $(head -3 "$ART/help")"
kv=$(uname -r)
echo "rtla $rv ($(command -v rtla)) on kernel $kv"
case $kv in
"$rv".*|"$rv"-*|"$rv") ;;
*) die "rtla $rv is not the running kernel's version ($kv)";;
esac
if why=$(kt_has tracer:timerlat); then
	rtla timerlat top -d 2 -q > "$ART/timerlat" 2>&1
	rc=$?
	cat "$ART/timerlat"
	[ $rc = 0 ] || die "rtla timerlat top -d 2 -q: exit $rc"
	# a row a CPU: "  N #COUNT | ...", after its colour codes
	rows=$(sed 's/\x1b\[[0-9;]*m//g' "$ART/timerlat" |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^#[0-9]+$/ && substr($2, 2) > 0 { n++ } END { print n + 0 }')
	[ "$rows" -ge 1 ] || die "rtla timerlat top: no CPU row with samples"
	echo "rtla timerlat top -d 2 -q: exit 0, $rows CPU rows with samples"
else
	echo "no timerlat run: $why"
fi
