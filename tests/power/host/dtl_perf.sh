#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_perf.sh: perf report -D against
# latscope dtl dump, perf script against latscope dtl script, on perf's
# recording, on latscope's and on one of latscope dtl synth, identical but for the differences
# tests/power/perfcmp.py names; every DTL entry either prints of the guest's
# recordings is one the hypervisor logged (HVLOG).
set -u
command -v python3 > /dev/null || { echo "no python3 on the host"; exit 77; }
for f in perf ls syn; do
	for t in perf-D ls-dump perf-script ls-script; do
		[ -s "$ART/$f.$t" ] || { echo "FAIL: no $f.$t came back"; exit 1; }
	done
done
python3 "$PDIR/perfcmp.py" "$ART" "$HVLOG"
