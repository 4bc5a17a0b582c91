#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope's main job on a machine without a POWER LPAR: synthesise a
# shared-processor LPAR recording (vpa_dtl AUX stream + sched events), then
# show the hypervisor's share and the merged hypervisor/OS timeline.
set -eu
bin=${LATSCOPE:-build/latscope}
out=${TMPDIR:-/tmp}/latscope-demo.perf.data
# polled once a second like the kernel documentation's example: perf record's
# layout puts each second of DTL entries after the sched samples they belong
# between, and latscope merges them back in order
ksyms=tests/data/kallsyms-lpar	# stands in for the LPAR's /proc/kallsyms
"$bin" dtl synth -o "$out" --cpus 8 --duration 3 --seed 1 -c 1000000000
echo
echo "== latscope dtl report --kallsyms $ksyms $out  (the total, where the vCPUs were, who was hurt)"
"$bin" dtl report --no-hist --total-only --top 8 --kallsyms "$ksyms" "$out" | sed -n '1,200p'
echo
echo "== latscope dtl script --wide $out  (hypervisor dispatches merged with scheduler events)"
"$bin" dtl script --wide --kallsyms "$ksyms" "$out" 2>&1 | sed -n "1,25p"
echo
echo "== latscope script on a shipped real recording (perf script's layout)"
"$bin" script -i tests/data/rec/sched-irq-timer.perf.data | sed -n '1,10p'
