#!/bin/sh
# SPDX-License-Identifier: MIT
# The host check of rt_cyclictest (tests/kernels/host/rt_cyclictest.sh) on
# the run with migration/1 woken from CPU 0
# (tests/kernels/guest/rt_cyclictest_migrate.sh); the moves must have put
# migration/1 in front of the thread at least once, or the run proved
# nothing.
MIN_BEHIND=1
. "$(dirname "$0")/rt_cyclictest.sh"
