#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/backends.sh in a guest of the kernel tier (bench/kernels.sh): the
# kernel backend (hist triggers) exists only in Debian's 6.1 kernels, which
# run here under QEMU.  Under TCG everything runs emulated, several times
# slower and not uniformly so: only the ratios of one guest run mean
# anything, never its absolute times.  Fewer loops, three rounds, no rate
# part (TCG's event rate says nothing of a real machine's).
# needs: bench:backends cmd:perf cmd:time tool:histcmp config:HIST_TRIGGERS
# timeout: 900
. "$KTEST_DIR/guest/lib.sh"
HISTCMP=/bin/histcmp BENCH_TIME=/bin/time BENCH_LOOPS=${BENCH_LOOPS:-20000} BENCH_SETTLE=3 \
	BENCH_RATE=0 sh /ktest/bench/backends.sh 3
