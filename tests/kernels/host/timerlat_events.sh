#!/bin/sh
# SPDX-License-Identifier: MIT
# The checks of tests/kernels/guest/timerlat_events.sh: -e/--filter/--trigger
# in the -t file and in `timerlat trace`, the refusals said, -C as the
# kernel allows it (its threads' PF_NO_SETAFFINITY decides), the settings as
# before.
. "$TESTS_DIR/lib.sh"
A=$ART
rc() { cat "$A/$1.rc"; }
[ "$(rc ev)" = 0 ] || die "-e run: exit $(rc ev): $(tail -3 "$A/ev.err")"
for cpu in 000 001; do
	grep -q "\[$cpu\].* sched_switch: .*next_comm=timerlat/" "$A/ev.trace" ||
		die "no filtered sched_switch to a timerlat thread on CPU $cpu in the -t file"
done
n=$(grep -c ' sched_switch: ' "$A/ev.trace")
bad=$(grep ' sched_switch: ' "$A/ev.trace" | grep -vc 'next_comm=timerlat/')
[ "$bad" -eq 0 ] || die "$bad of $n sched_switch lines are not to a timerlat thread: the filter did not take"
ni=$(grep -Ec ' (irq_handler_entry|softirq_entry|softirq_raise|irq_handler_exit): ' "$A/ev.trace")
[ "$ni" -gt 0 ] || die "no irq event line in the -t file (-e irq)"
nw=$(grep -c ' sched_wakeup: ' "$A/ev.trace")
grep -q '^hist:keys=pid:' "$A/ev.trigger" || die "no hist trigger in latscope's instance: $(cat "$A/ev.trigger")"
nt=$(grep -c 'timer_latency' "$A/ev.trace")
[ "$nt" -gt 1000 ] || die "only $nt timerlat records beside the events"
echo "events: $n sched_switch lines, all to timerlat/N (filter), $ni irq lines, $nw sched_wakeup, $nt timerlat records; trigger $(cut -d' ' -f1 "$A/ev.trigger")"
[ "$(rc tr)" = 0 ] || die "timerlat trace -e: exit $(rc tr): $(tail -3 "$A/tr.err")"
ts=$(grep -c ' sched_switch: .*next_comm=timerlat/1' "$A/tr.out")
tt=$(grep -c 'context *thread timer_latency' "$A/tr.out")
[ "$ts" -gt 0 ] && [ "$tt" -gt 0 ] || die "timerlat trace printed $ts switches and $tt thread records"
echo "trace: $ts sched_switch lines among $tt thread records"
[ "$(rc nosuch)" = 2 ] && grep -q 'no event nosuch:event' "$A/nosuch.err" ||
	die "-e nosuch:event: exit $(rc nosuch): $(cat "$A/nosuch.err")"
[ "$(rc badfilter)" = 2 ] && grep -q "refused the filter 'no_field == 1' of sched:sched_switch" "$A/badfilter.err" ||
	die "a bad filter: exit $(rc badfilter): $(cat "$A/badfilter.err")"
[ "$(wc -l < "$A/nosuch.err")" -eq 1 ] && [ "$(wc -l < "$A/badfilter.err")" -eq 1 ] ||
	die "the refusals take more than one line"
echo "refusals: $(cat "$A/nosuch.err"); $(cat "$A/badfilter.err")"
for f in after_ev after_refuse after; do
	diff "$A/before.txt" "$A/$f.txt" > /dev/null || die "settings changed ($f): $(diff "$A/before.txt" "$A/$f.txt")"
done
echo "settings, instances and the top-level events as before after each run"
[ -s "$A/ev.flags" ] || die "the timerlat threads' flags were not read"
bound=$(awk '{ if (int($2) % 134217728 >= 67108864) b++ } END { print b + 0 }' "$A/ev.flags")
if [ "$bound" -gt 0 ]; then
	[ "$(rc cg)" = 2 ] && grep -q 'keeps its CPU-bound threads out of cgroups' "$A/cg.err" ||
		die "-C on CPU-bound threads (PF_NO_SETAFFINITY): exit $(rc cg): $(cat "$A/cg.err")"
	echo "-C: the kernel's threads are CPU-bound (PF_NO_SETAFFINITY): refused in one line: $(cat "$A/cg.err")"
else
	[ "$(rc cg)" = 0 ] || die "-Ctl: exit $(rc cg): $(tail -3 "$A/cg.err")"
	n=$(sort -u "$A/cg.threads" | grep -c '^timerlat/[01] 0::/tl$')
	[ "$n" -eq 2 ] || die "-Ctl: the timerlat threads are not both in /tl: $(sort -u "$A/cg.threads" | tr '\n' ';')"
	echo "-C: timerlat/0 and timerlat/1 in 0::/tl during the run"
fi
if grep -q 'needs tracefs osnoise/per_cpu/cpuN/timerlat_fd' "$A/cgu.err"; then
	[ "$(rc cgu)" = 2 ] || die "-u refused with exit $(rc cgu)"
	echo "-u -C: no -u on this kernel"
else
	[ "$(rc cgu)" = 0 ] || die "-u --cgroup=tl: exit $(rc cgu): $(tail -3 "$A/cgu.err")"
	[ "$(cat "$A/cgu.self")" = "0::/tl" ] || die "-u --cgroup=tl: latscope in $(cat "$A/cgu.self")"
	o=$(grep -vc ' 0::/tl$' "$A/cgu.threads")
	[ "$o" -eq 0 ] || die "-u --cgroup=tl: $o of latscope's threads elsewhere: $(cat "$A/cgu.threads")"
	echo "-u -C: latscope and its $(wc -l < "$A/cgu.threads") threads in 0::/tl during the run"
fi
