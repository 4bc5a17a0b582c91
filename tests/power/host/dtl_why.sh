#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_why.sh: the recording against the
# hypervisor's log first (tests/power/host/truth.inc: every entry the
# hypervisor's, what is missing said), then dtl why's samples against the
# entries as the hypervisor logged them (tests/power/whycheck.py).
set -u
die() { echo "FAIL: $*"; exit 1; }
. "$PDIR/host/truth.inc"
truth_losses w ring_full_polls aux_wraps
python3 "$PDIR/whycheck.py" "$HVLOG" "$ART/w.why.json" "$ART/w.json" "$ART/w.csv" || exit 1
