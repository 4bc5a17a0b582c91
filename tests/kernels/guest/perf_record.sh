#!/bin/sh
# SPDX-License-Identifier: MIT
# perf record of the scheduler, IRQ and timer tracepoints in the guest, for the
# host to decode (tests/kernels/host/perf_record.sh): the kernel's own formats
# (on PREEMPT_RT, sched_switch and the threaded IRQ handlers) brought back.
# needs: cmd:perf event:sched/sched_switch
# timeout: 60
. "$KTEST_DIR/guest/lib.sh"
ev='sched:sched_switch,sched:sched_wakeup,sched:sched_waking,irq:*,timer:hrtimer_*'
perf record -q -e "$ev" -a -o "$ART/perf.data" -- sh -c 'for i in 1 2 3 4 5; do ls /proc > /dev/null; sleep 0.1; done' ||
	die "perf record failed"
[ -s "$ART/perf.data" ] || die "perf record wrote nothing"
# both decoders in the guest too, where /proc/kallsyms names the kernel's
# functions (hrtimer function=...); the host compares the two outputs
latscope script -q -i "$ART/perf.data" > "$ART/latscope-guest.txt" || die "latscope script failed in the guest"
perf script -i "$ART/perf.data" > "$ART/perf-guest.txt" 2> "$ART/perf-guest.err" ||
	die "perf script failed in the guest: $(tail -1 "$ART/perf-guest.err")"
wc -l "$ART/latscope-guest.txt" "$ART/perf-guest.txt"
