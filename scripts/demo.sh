#!/bin/sh
# latscope's main job on a machine without a POWER LPAR: synthesise a
# shared-processor LPAR recording (vpa_dtl AUX stream + sched events), then
# show the hypervisor's share and the merged hypervisor/OS timeline.
set -eu
bin=${LATSCOPE:-build/latscope}
out=${TMPDIR:-/tmp}/latscope-demo.perf.data
"$bin" dtl synth -o "$out" --cpus 4 --duration 2 --seed 1
echo
echo "== latscope dtl report $out  (first lines; --json for all numbers)"
"$bin" dtl report "$out" | sed -n '1,40p'
echo
echo "== latscope dtl script $out  (hypervisor dispatches merged with scheduler events)"
"$bin" dtl script --wide "$out" 2>&1 | sed -n "1,25p"
echo
echo "== latscope script on a shipped real recording (perf script's layout)"
"$bin" script -i tests/data/rec/sched-irq-timer.perf.data | sed -n '1,10p'
