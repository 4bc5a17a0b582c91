#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope timerlat` with rtla's -e/--filter/--trigger and -C:
#   events  -e sched:sched_switch with a filter (the switches to a timerlat
#           thread only), -e irq (a whole system), -e sched:sched_wakeup with
#           a hist trigger: the -t file holds the filtered switches (every
#           one to timerlat/N, one at least per CPU) and irq events, the
#           trigger is in latscope's instance while it runs, and `timerlat
#           trace` prints the events among the records; every setting and
#           the instances are as before;
#   refuse  an event the kernel lacks and a filter it refuses: one line
#           naming it, exit 2, nothing left behind;
#   cgroup  -C NAME: the kernel's timerlat threads into the cgroup while the
#           tracer runs (or, where the kernel keeps its CPU-bound threads out
#           of cgroups, a one-line refusal saying so, exit 2); -u -C NAME:
#           latscope's measuring threads there during the run.
# needs: tracer:timerlat file:/sys/fs/cgroup
# timeout: 180
. "$KTEST_DIR/guest/lib.sh"
I=$TRACEFS/instances/latscope_osnoise
settings() {
	for f in cpus period_us runtime_us stop_tracing_us stop_tracing_total_us timerlat_period_us print_stack; do
		echo "osnoise/$f: $(cat "$TRACEFS/osnoise/$f")"
	done
	echo "current_tracer: $(cat "$TRACEFS/current_tracer")"
	echo "instances: $(ls "$TRACEFS/instances" | tr '\n' ' ')"
	echo "top-level sched_switch: enable $(cat "$TRACEFS/events/sched/sched_switch/enable"), filter $(cat "$TRACEFS/events/sched/sched_switch/filter")"
	echo "top-level sched_wakeup trigger: $(grep -v '^#' "$TRACEFS/events/sched/sched_wakeup/trigger")"
}
settings > "$ART/before.txt"

# events
$LATSCOPE timerlat hist -c 0-1 -d 4 -t"$ART/ev.trace" -e sched:sched_switch --filter 'next_comm ~ "timerlat/*"' \
	-e irq -e sched:sched_wakeup --trigger 'hist:keys=pid' > "$ART/ev.out" 2> "$ART/ev.err" &
lp=$!
i=0
until [ -e "$I/events/sched/sched_wakeup/trigger" ] && grep -q '^hist:keys=pid' "$I/events/sched/sched_wakeup/trigger"; do
	i=$((i + 1))
	[ $i -lt 100 ] || die "no hist trigger on sched_wakeup in latscope's instance after 10 s: $(cat "$ART/ev.err")"
	sleep 0.1
done
grep '^hist' "$I/events/sched/sched_wakeup/trigger" > "$ART/ev.trigger"
# the timerlat threads' flags (/proc/PID/stat's 9th field): PF_NO_SETAFFINITY
# (0x04000000) says whether the kernel lets -C move them
# (the threads come once the tracer starts, after the instance's events)
i=0
until [ -s "$ART/ev.flags" ] || [ $i -ge 50 ]; do
	for p in $(grep -l '^timerlat/' /proc/[0-9]*/comm 2>/dev/null); do
		echo "$(cat "$p") $(cut -d' ' -f9 "${p%/comm}/stat")"
	done > "$ART/ev.flags"
	i=$((i + 1))
	sleep 0.1
done
wait $lp
echo $? > "$ART/ev.rc"
settings > "$ART/after_ev.txt"
$LATSCOPE timerlat trace -c 1 -d 2 -e sched:sched_switch --filter 'next_comm ~ "timerlat/*"' \
	> "$ART/tr.out" 2> "$ART/tr.err"
echo $? > "$ART/tr.rc"

# refusals
$LATSCOPE timerlat hist -d 1 -t"$ART/x.trace" -e nosuch:event > /dev/null 2> "$ART/nosuch.err"
echo $? > "$ART/nosuch.rc"
$LATSCOPE timerlat hist -d 1 -t"$ART/x.trace" -e sched:sched_switch --filter 'no_field == 1' > /dev/null \
	2> "$ART/badfilter.err"
echo $? > "$ART/badfilter.rc"
settings > "$ART/after_refuse.txt"

# cgroup
grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup || die "cannot mount cgroup2"
mkdir -p /sys/fs/cgroup/tl
$LATSCOPE timerlat hist -c 0-1 -d 3 -Ctl > "$ART/cg.out" 2> "$ART/cg.err" &
lp=$!
: > "$ART/cg.threads"
i=0
while kill -0 $lp 2>/dev/null && [ $i -lt 40 ]; do
	for p in $(grep -l '^timerlat/' /proc/[0-9]*/comm 2>/dev/null); do
		d=${p%/comm}
		echo "$(cat "$d/comm") $(cat "$d/cgroup")" >> "$ART/cg.threads"
	done
	[ -s "$ART/cg.threads" ] && sleep 1 && break
	i=$((i + 1))
	sleep 0.1
done
wait $lp
echo $? > "$ART/cg.rc"
$LATSCOPE timerlat hist -c 0-1 -d 3 -u --cgroup=tl > "$ART/cgu.out" 2> "$ART/cgu.err" &
lp=$!
sleep 1.5
cat /proc/$lp/cgroup > "$ART/cgu.self" 2>/dev/null
for t in /proc/$lp/task/*; do
	echo "$(cat "$t/comm") $(cat "$t/cgroup")"
done > "$ART/cgu.threads" 2>/dev/null
wait $lp
echo $? > "$ART/cgu.rc"
settings > "$ART/after.txt"
for f in ev tr nosuch badfilter cg cgu; do
	echo "$f: exit $(cat "$ART/$f.rc"); $(tail -2 "$ART/$f.err" | tr '\n' ' ')"
done
echo "cg threads: $(sort -u "$ART/cg.threads" | tr '\n' ';')"
echo "cgu: $(cat "$ART/cgu.self"); threads: $(sort -u "$ART/cgu.threads" | tr '\n' ';')"
exit 0
