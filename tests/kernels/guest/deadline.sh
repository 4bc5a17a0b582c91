#!/bin/sh
# SPDX-License-Identifier: MIT
# -P d:RUNTIME:PERIOD on a real kernel: SCHED_DEADLINE threads pinned to one
# CPU are admitted only when that CPU is a root domain of its own, an
# exclusive cpuset partition (cgroup v2: cpuset.cpus.partition=root).  The
# test makes CPU 1 one, moves itself into it, and runs `latscope osnoise top
# -c 1 -H 1 -P d:200us:1ms` and `latscope hist record -c 1
# --timer-workload -P d:200us:1ms`: while each runs, their measuring
# threads (ls-osnoise/1, ls-timer/1) must be SCHED_DEADLINE (policy 6 in
# /proc/PID/task/TID/sched; the file shows the budget left, not the
# runtime and period set).
# needs: file:/sys/fs/cgroup
# timeout: 90
. "$KTEST_DIR/guest/lib.sh"
CG=/sys/fs/cgroup
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none $CG 2>/dev/null || skip "cannot mount cgroup2"
grep -qw cpuset $CG/cgroup.controllers || skip "no cpuset controller in cgroup2"
echo +cpuset > $CG/cgroup.subtree_control || die "cannot enable cpuset"
# the tests after this one need CPU 1 back in the root domain
undo() {
	[ -d $CG/ls-dl ] || return 0
	echo $$ > $CG/cgroup.procs
	echo member > $CG/ls-dl/cpuset.cpus.partition
	rmdir $CG/ls-dl
}
trap undo EXIT
mkdir -p $CG/ls-dl
echo 1 > $CG/ls-dl/cpuset.cpus && echo 0 > $CG/ls-dl/cpuset.mems || die "cannot set the cpuset"
echo root > $CG/ls-dl/cpuset.cpus.partition || die "cannot make CPU 1 a partition"
p=$(cat $CG/ls-dl/cpuset.cpus.partition)
[ "$p" = root ] || die "cpuset.cpus.partition: $p"
echo $$ > $CG/ls-dl/cgroup.procs || die "cannot move into the partition"
# check NAME CMD...: run CMD, find NAME's thread, read its policy
check() {
	name=$1; shift
	out=$ART/${name%/*}
	"$@" > "$out.out" 2> "$out.err" &
	lp=$!
	i=0 tid=
	while [ $i -lt 100 ] && [ -z "$tid" ]; do
		for t in /proc/$lp/task/*; do
			[ "$(cat $t/comm 2>/dev/null)" = "$name" ] && tid=${t##*/}
		done
		[ -n "$tid" ] || { kill -0 $lp 2>/dev/null || break; sleep 0.1; i=$((i + 1)); }
	done
	[ -n "$tid" ] || { wait $lp; die "$name: no such thread (exit $?): $(tail -2 "$out.err")"; }
	sleep 0.5
	pol=$(sed -n 's/^policy *: *//p' /proc/$lp/task/$tid/sched)
	rt=$(sed -n 's/^dl.runtime *: *//p' /proc/$lp/task/$tid/sched)
	wait $lp
	rc=$?
	[ $rc -eq 0 ] || die "$name: exit $rc: $(tail -2 "$out.err")"
	[ "$pol" = 6 ] || die "$name: policy $pol, not 6 (SCHED_DEADLINE)"
	# dl.runtime is the budget left at the read (negative: overrun, throttled)
	echo "$name: SCHED_DEADLINE (budget left at the read: $rt ns); exit 0"
}
check ls-osnoise/1 $LATSCOPE osnoise top -c 1 -H 1 -d 2 -q -P d:200us:1ms
check ls-timer/1 $LATSCOPE hist record -c 1 -d 2 -o hist.data --timer-workload -P d:200us:1ms
undo
[ ! -d $CG/ls-dl ] || die "the partition could not be removed"
echo "CPU 1 is back in the root domain: $(cat $CG/cpuset.cpus.effective)"
