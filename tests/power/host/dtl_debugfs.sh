#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_debugfs.sh: the debugfs recording
# against the hypervisor's log (tests/power/host/truth.inc): every entry
# latscope decoded is the hypervisor's, byte for byte, once, in its order
# (the reader lapped by the hypervisor must not put one out of order); what
# is missing inside the recording must be said (dtl report's aux_errors,
# --strict exit 1).
set -u
die() { echo "FAIL: $*"; exit 1; }
. "$PDIR/host/truth.inc"
truth_losses d aux_errors
echo "ok: the debugfs recording holds only the hypervisor's entries, in order; losses said"
