#!/bin/sh
# SPDX-License-Identifier: MIT
# The refusals on a POWER kernel with no DTL source and no BTF: bookworm's
# 6.1 (64K pages, no vpa_dtl PMU, built without CONFIG_DTL, no BTF).  Each
# command exits 2 with one line that says why:
#   dtl record --pmu          no vpa_dtl PMU
#   dtl record                no DTL source: the kernel has debugfs's
#                             powerpc/ but no dtl in it (no CONFIG_DTL)
#   dtl record --debugfs-only the same
#   monitor --dtl             the same, then it stops
#   hist record --backend bpf the kernel has no BTF
# boots: bookworm
# timeout: 90
. "$KTEST_DIR/guest/lib.sh"
ps=$(sed -n 's/^KernelPageSize: *//p' /proc/self/smaps | head -1)
[ "$ps" = "64 kB" ] || die "the kernel's page size is $ps, not 64 kB"
echo "page size $ps"
refused pmu 'no vpa_dtl PMU' 1 latscope dtl record --pmu -d 1 -o pmu.data
refused auto 'built without CONFIG_DTL' 1 latscope dtl record -d 1 -o auto.data
refused debugfs 'built without CONFIG_DTL' 1 latscope dtl record --debugfs-only -d 1 -o debugfs.data
refused monitor 'built without CONFIG_DTL' n latscope monitor --dtl --listen 127.0.0.1:0 --backend perf -d 2
refused bpf 'no BTF' 1 latscope hist record --backend bpf -c 0 -d 1
for f in pmu.data auto.data debugfs.data; do [ ! -e "$f" ] || die "a refused dtl record left $f"; done
echo "ok: every refusal one line and exit 2, no file left"
