#!/bin/sh
# SPDX-License-Identifier: MIT
# rt_cyclictest with migration/1 woken from the other CPU (issue 21's CI
# failure): while cyclictest runs on CPU 1, CPU 0 moves a busy loop off CPU 1
# and back without pause, and each move wakes migration/1 (SCHED_FIFO 99)
# from CPU 0.  Such a wakeup is not in a recording of CPU 1, but the task
# runs there: cycles whose wakeup it delays get no timerandwakeup sample,
# and the host check (tests/kernels/host/rt_cyclictest_migrate.sh) must
# account for each of them from CPU 1's sched_switch events.
# needs: config:PREEMPT_RT cmd:cyclictest
# timeout: 150
MIGRATE=1
. "$KTEST_DIR/guest/rt_cyclictest.sh"
