#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope's main job on a machine without a POWER LPAR: synthesise a
# shared-processor LPAR recording (vpa_dtl AUX stream + sched events), then
# show the hypervisor's share and the merged hypervisor/OS timeline, and draw
# it as an HTML page.  Where tracing is allowed (root, or
# perf_event_paranoid -1) it also measures this machine for a few seconds:
# a short osnoise top and a short hist record, each with its page.
set -eu
bin=${LATSCOPE:-build/latscope}
dir=${TMPDIR:-/tmp}
out=$dir/latscope-demo.perf.data
# polled once a second like the kernel documentation's example: perf record's
# layout puts each second of DTL entries after the sched samples they belong
# between, and latscope merges them back in order
ksyms=tests/data/kallsyms-lpar	# stands in for the LPAR's /proc/kallsyms
pages=
"$bin" dtl synth -o "$out" --cpus 8 --duration 3 --seed 1 -c 1000000000
echo
echo "== latscope dtl report --kallsyms $ksyms --html $dir/latscope-demo-dtl.html $out  (the total, where the vCPUs were, who was hurt)"
"$bin" dtl report --no-hist --total-only --top 8 --kallsyms "$ksyms" --force \
	--html "$dir/latscope-demo-dtl.html" "$out" | sed -n '1,200p'
pages="$pages $dir/latscope-demo-dtl.html"
echo
echo "== latscope dtl script --wide $out  (hypervisor dispatches merged with scheduler events)"
"$bin" dtl script --wide --kallsyms "$ksyms" "$out" 2>&1 | sed -n "1,25p"
echo
echo "== latscope script on a shipped real recording (perf script's layout)"
"$bin" script -i tests/data/rec/sched-irq-timer.perf.data | sed -n '1,10p'

# This machine, live: only where tracing is allowed
why=
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt -1 ]; then
	why="not root and /proc/sys/kernel/perf_event_paranoid is $paranoid (tracepoints need -1)"
fi
echo
if [ -n "$why" ]; then
	echo "== live osnoise top and hist record skipped: $why"
else
	echo "== latscope osnoise top -c 0 -d 2 -q --html $dir/latscope-demo-osnoise.html  (this machine's OS noise on CPU 0)"
	if "$bin" osnoise top -c 0 -d 2 -q --force --html "$dir/latscope-demo-osnoise.html" \
		> "$dir/latscope-demo-osnoise.txt" 2> "$dir/latscope-demo-osnoise.err"; then
		sed -n '1,12p' "$dir/latscope-demo-osnoise.txt"
		pages="$pages $dir/latscope-demo-osnoise.html"
	else
		echo "osnoise top skipped: $(head -1 "$dir/latscope-demo-osnoise.err")"
	fi
	echo
	echo "== latscope hist record --timer-workload -d 2 --html $dir/latscope-demo-hist.html  (wakeup and timer latency histograms)"
	if "$bin" hist record --timer-workload -d 2 --force --html "$dir/latscope-demo-hist.html" \
		> "$dir/latscope-demo-hist.txt" 2> "$dir/latscope-demo-hist.err"; then
		sed -n '1,14p' "$dir/latscope-demo-hist.txt"
		pages="$pages $dir/latscope-demo-hist.html"
	else
		echo "hist record skipped: $(head -1 "$dir/latscope-demo-hist.err")"
	fi
fi
echo
echo "== the reports as HTML pages (open in a browser; docs/html.md):"
for p in $pages; do
	echo "   file://$p"
done
