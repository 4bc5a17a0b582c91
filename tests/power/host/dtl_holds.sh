#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_holds.sh: the realistic-mode
# recording against the hypervisor's log (tests/power/dtltruth.py: every
# entry latscope decoded is the hypervisor's, byte for byte, once, in order;
# what is missing inside the recording said by dtl report), then the forced
# holds (tests/power/holdcheck.py): each one inside the recording is
# latscope's entry, a time_slice preempt at least as long as the hold, and
# dtl report's worst dispatch delay is at least the longest of them.
set -u
die() { echo "FAIL: $*"; exit 1; }
. "$PDIR/host/truth.inc"
truth_losses h ring_full_polls aux_wraps
tbf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tb_freq_hz"])' "$ART/h.json") ||
	die "no tb_freq_hz in h.json"
python3 "$PDIR/holdcheck.py" "$HVLOG" "$ART/h.csv" "$tbf" 100 || exit 1
# dtl report's worst dispatch delay covers the longest hold
python3 - "$HVLOG" "$ART/h.json" "$ART/h.csv" <<'PY' || exit 1
import csv, json, sys
hv, js, cf = sys.argv[1:]
tbs = {int(r["timebase"]) for r in csv.DictReader(open(cf)) if r["cpu"] == "1"}
lo, hi = (min(tbs), max(tbs)) if tbs else (0, -1)
holds = [int(f[3]) - int(f[2]) for f in (l.split() for l in open(hv)) if f and f[0] == "hold"
         and f[1] == "1" and lo <= int(f[3]) <= hi]
worst = max((w["delay_ticks"] for w in json.load(open(js))["worst"]), default=0)
if holds and worst < max(holds):
    sys.exit(f"FAIL: dtl report's worst delay {worst} ticks < the longest hold {max(holds)}")
print(f"dtl report: worst delay {worst} ticks >= the longest hold inside, {max(holds) if holds else 0}")
PY
