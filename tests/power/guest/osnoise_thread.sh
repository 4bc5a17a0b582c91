#!/bin/sh
# SPDX-License-Identifier: MIT
# osnoise in userspace on POWER: tests/e2e/osnoise_thread.sh run in the
# guest (a SCHED_FIFO noisegen thread waking every 10 ms on CPU 1 and
# spinning 200 us; latscope must charge that noise to THREAD with
# noisegen's comm:pid, one entry per wake-up, its total between noisegen's
# spin time and the kernel's account of the thread's run time).
# needs: e2e:osnoise_thread tool:noisegen tool:osnjson cmd:chrt
# boots: sid bookworm
# timeout: 200
. "$KTEST_DIR/guest/lib.sh"
# busybox has no getconf: the one question the test asks of it
mkdir -p /tmp/shim
printf '#!/bin/sh\n[ "$1" = _NPROCESSORS_ONLN ] && exec nproc\nexit 1\n' > /tmp/shim/getconf
chmod 755 /tmp/shim/getconf
PATH=/tmp/shim:$PATH TESTS_DIR=/ktest TOOLS=/bin sh /ktest/e2e/osnoise_thread.sh
