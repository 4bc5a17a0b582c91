#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/guest/timerlat.sh's cost part against rtla with its BPF program
# (rtla-bpf: tests/kernels/rtlabpf.sh builds it; bench/timerlat.sh runs
# this when it is built): latscope's bpf path and rtla's, both keeping the
# histograms in the kernel.
# needs: cmd:rtla-bpf cmd:time tool:histcmp event:osnoise/timerlat_sample
# timeout: 600
BENCH_PARTS=cost BENCH_TOOLS="latscope-bpf rtla-bpf" . "$KTEST_DIR/guest/timerlat.sh"
