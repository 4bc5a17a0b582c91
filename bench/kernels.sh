#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/kernels.sh - bench/backends.sh inside Debian's 6.1 PREEMPT_RT kernel
# under QEMU (the kernel tier, tests/kernels/run.sh, with bench/guest as its
# tests): the only place the kernel backend (hist triggers) runs, as this
# machine's kernel has none.  Prints the guest's tables.  Under TCG the
# absolute times mean nothing; the ratios between backends of one run are
# the figure (docs/hist.md, "Benchmark: the backends").
#
#   LATSCOPE=build/latscope sh bench/kernels.sh
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
here=$(cd "$(dirname "$0")" && pwd)
KERNELS=${KERNELS:-rt} KTESTS=${KTESTS:-backends} KERNEL_GUEST_DIR="$here/guest" KERNEL_SHOW_LOGS=1 \
	sh "$here/../tests/kernels/run.sh"
