#!/bin/sh
# SPDX-License-Identifier: MIT
# `dtl synth`: a small synthetic LPAR recording (fixed seed, formats from
# tests/data/formats).  The timeline must match the expected file, be the
# same from the big-endian and pipe-mode twins, the sched samples must be the
# same with --no-dtl, and the model must be consistent: between a vCPU's
# undispatch (dispatch time - waiting - ready - enqueue) and its dispatch no
# sched event happens on that CPU, and a vCPU that ceded had switched to idle.
. "$TESTS_DIR/lib.sh"
G=$TESTS_DIR/golden/dtl
F=$TESTS_DIR/data/formats
cd "$TMP" || die "no tmp"
S="$LATSCOPE dtl synth -q --formats $F --cpus 2 --duration 80ms --seed 7 --fault-hz 40 --confer-hz 40"
$S -o le.data || die "synth LE"
$S -o be.data --big-endian || die "synth BE"
$S -o - --pipe > pipe.data || die "synth pipe"
$S -o nodtl.data --no-dtl || die "synth --no-dtl"
"$LATSCOPE" dtl script le.data > le.out 2> le.err || die "script LE: $(cat le.err)"
diff -u "$G/synth-script.out" le.out || die "timeline differs from $G/synth-script.out"
"$LATSCOPE" dtl report --json le.data > report.json || die "report"
diff -u "$G/synth-report.json" report.json | grep '^[-+] ' | grep -v '"file"' && die "report differs"
"$LATSCOPE" dtl script be.data > be.out 2>/dev/null || die "script BE"
diff -u le.out be.out || die "BE twin prints a different timeline"
"$LATSCOPE" dtl script - < pipe.data > pipe.out 2>/dev/null || die "script pipe"
diff -u le.out pipe.out || die "pipe mode prints a different timeline"
grep -q 'gaps' le.err && die "unexpected gaps: $(cat le.err)"
# the same sched samples without DTL
"$LATSCOPE" dtl script nodtl.data > nodtl.out 2>/dev/null || die "script --no-dtl"
grep -v 'vpa-dtl:\|^enqueue_to_dispatch' le.out > le-sched.out
diff -u le-sched.out nodtl.out || die "--no-dtl changed the sched samples"
[ "$(grep -c 'vpa-dtl:' le.out)" -gt 20 ] || die "too few DTL entries"
grep -q 'preempt_reason:time_slice' le.out || die "no hypervisor preemption in the sample"
grep -q 'preempt_reason:H_CEDE' le.out || die "no cede in the sample"

# model consistency on the wide view (512 ticks per us)
"$LATSCOPE" dtl script --wide le.data > wide.out 2>/dev/null || die "script --wide"
awk '
	function tick(s) { sub(/^[a-z_]*=/, "", s); return s + 0 }
	$4 == "proc" {
		cpu = $3; t = $1 + 0
		e = tick($9); r = tick($12); w = tick($15)
		start = t - (w + r + e) / 512e6
		if (cpu in last && last[cpu] > start + 1e-9) { print "sched event inside the undispatched time: " $0; bad = 1 }
		if ($8 == "preempt=H_CEDE" && cpu in idle && !idle[cpu]) { print "ceded while running a task: " $0; bad = 1 }
		n++; next
	}
	{ cpu = $3; last[cpu] = $1 + 0
	  if ($0 ~ /sched_switch:/) idle[cpu] = ($0 ~ /next_pid=0 /) }
	END { if (n < 20) { print "only " n " entries"; bad = 1 } exit bad }' wide.out || die "synthetic model inconsistent"
exit 0
