#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/timerlat.sh - latscope timerlat's trace and bpf paths at 100 us on
# every CPU, and latscope against rtla 7.2 (collector CPU and BPF program
# time per activation), in sid's 7.2 PREEMPT_RT kernel under QEMU with 4
# CPUs (the kernel tier, tests/kernels/run.sh, with bench/guest/timerlat.sh
# as its one test).  Under TCG the absolute times mean nothing; the ratios of
# one run are the figure (docs/timerlat.md, "Benchmark").
#
#   LATSCOPE=build/latscope sh bench/timerlat.sh
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
here=$(cd "$(dirname "$0")" && pwd)
# rtla with its BPF program, where tests/kernels/rtlabpf.sh built it
kt=timerlat
if d=$(sh "$here/../tests/kernels/rtlabpf.sh" path 2>&1); then
	PATH=$d:$PATH kt="timerlat timerlat_rtlabpf"
else
	echo "timerlat: $d: the comparison with rtla's BPF program is left out"
fi
KERNELS=${KERNELS:-rt7} KTESTS=$kt KERNEL_SMP=${KERNEL_SMP:-4} KERNEL_GUEST_DIR="$here/guest" \
	KERNEL_SHOW_LOGS=1 sh "$here/../tests/kernels/run.sh"
