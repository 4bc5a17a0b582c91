#!/bin/sh
# SPDX-License-Identifier: MIT
# The bpf backend's irqsoff, preemptoff and preemptirqsoff programs (issue
# 19).  No kernel this project boots has the preemptirq tracepoints (this
# machine's 6.18 nor Debian's 6.1 kernels: CONFIG_PREEMPTIRQ_TRACEPOINTS
# off), so the programs cannot be attached anywhere here.  They are proven
# through the kernel's BPF_PROG_TEST_RUN instead: tests/tools/bpfpoff loads
# the same object, runs the four programs as the tracepoints would call them
# (on CPU 0, this process current), and checks each filed section against
# its own clock reads around the runs that open and close it: nested
# disables, an enable with no disable seen (counted, not filed), preemption
# off around an irqs-off section, the combined preemptirqsoff section
# (either off, and --both-off), the idle wait (power:cpu_idle: the
# preemption-off section ends where the CPU enters it and begins again where
# it leaves it; nothing before the CPU's first preempt event).  Then `hist
# record --backend bpf --irqsoff` on this kernel: it runs, says the kernel has no preemptirq tracepoints,
# reports no irqsoff kinds, and leaves no program behind.
. "$TESTS_DIR/lib.sh"
"$TOOLS/bpfpoff" >"$TMP/poff" 2>&1
rc=$?
cat "$TMP/poff"
[ $rc -eq 77 ] && skip "$(cat "$TMP/poff")"
[ $rc -eq 0 ] || die "bpfpoff failed ($rc)"
[ "$(grep -c '^ok:' "$TMP/poff")" -eq 10 ] || die "bpfpoff ran $(grep -c '^ok:' "$TMP/poff") of 10 checks"

"$LATSCOPE" hist record --backend bpf --irqsoff -d 0.5 --json >"$TMP/j" 2>"$TMP/err" ||
	die "hist record --backend bpf --irqsoff failed: $(cat "$TMP/err")"
if [ -d /sys/kernel/tracing/events/preemptirq ]; then
	echo "(this kernel has preemptirq tracepoints: the attached run is not checked here)"
else
	grep -q 'this kernel has no preemptirq tracepoints' "$TMP/err" ||
		die "no 'no preemptirq tracepoints' line: $(cat "$TMP/err")"
	grep -q 'irqsoff not reported' "$TMP/err" || die "irqsoff not named as not reported: $(cat "$TMP/err")"
fi
if command -v bpftool >/dev/null 2>&1; then
	n=0
	while bpftool prog list 2>/dev/null | grep -q 'name bpfhist_'; do
		n=$((n + 1)); [ $n -lt 50 ] || die "bpfhist programs left after the run: $(bpftool prog list | grep bpfhist_)"
		sleep 0.2
	done
fi
echo "ok: --backend bpf --irqsoff runs on a kernel without the tracepoints and says so"
