#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope's userspace paths on PREEMPT_RT (issue 18).
#
# 1. `latscope osnoise top -c 1 -d 5 --json` (the userspace loop) while
#    threaded interrupts fire on CPU 1: a shell on CPU 1 reads /dev/vda with
#    dd and O_DIRECT (its completions come on the virtio request queue whose
#    managed affinity is CPU 1; the handler thread irq/N-virtio0-req.1
#    follows the IRQ there) and sleeps 0.2 s, in a loop (a SCHED_OTHER
#    task's sleep is a soft hrtimer on PREEMPT_RT: ktimers/1 runs it; the
#    forks and exits make RCU callbacks for rcuc/1).  Checked: exit 0, CPU 1's periods, every loss named; each
#    IRQ the run made busy has its handler thread irq/N-... in the
#    contributors as THREAD with the pid /proc gives it, and its hard top half
#    (irq_handler_entry, named after the action) as IRQ; ktimers/1 and rcuc/1
#    are THREAD; no irq/, ktimers/, rcuc/ or ksoftirqd/ task is anything but
#    THREAD; softirqs are thread time (softirq_in_threads, no SOFTIRQ
#    contributor or count, no entry dropped), as the kernel tracer has them.  (docs/osnoise.md, "PREEMPT_RT": why a threaded handler is
#    THREAD noise, as rtla counts it.)
# 2. `latscope hist record --timer-workload -c 1 -d 5 --json -O DIR`: exit 0,
#    the workload's cycles, the wakeup, missed_timer_offsets and
#    timerandwakeup histograms of CPU 1 with samples, the relations between
#    them (a timerandwakeup sample is filed with a wakeup sample and after a
#    missed_timer_offsets sample of the same task: never more of them), the
#    -O tree's totals equal to the JSON's, and every loss named.  (The
#    workload's own latency is compared with timerandwakeup per wakeup in
#    rt_cyclictest, with cyclictest: a minimum or maximum over all cycles
#    cannot be, as a cycle whose timer expired before the thread slept has an
#    own latency but no kernel-side sample, and other RT tasks woken by
#    timers, ktimers/1 and rcuc/1, have kernel-side samples.)
# needs: config:PREEMPT_RT
# timeout: 150
. "$KTEST_DIR/guest/lib.sh"
CPU=1
tops=""

# jnum FILE KEY: the first number of "KEY": in FILE (latscope's JSON has one
# key a line).
jnum() { sed -n "s/^ *\"$2\": *\(-\{0,1\}[0-9.]*\),\{0,1\}\$/\1/p" "$1" | head -1; }
# pid_of COMM: the pid of the task named COMM.
pid_of() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && { basename "$p"; return 0; }
	done
	return 1
}
# irq_cpu1 FILE IRQ: the IRQ's count on CPU 1 in a copy of /proc/interrupts.
irq_cpu1() { awk -v n="$2:" '$1 == n { print $3 }' "$1"; }

# ---- the interrupts whose threads will run on CPU 1 -----------------------
# (Not the console's: a shell writing lines to /dev/ttyS0 all through the
# measurement, with its IRQ pinned to CPU 1, hung this guest's serial port
# for good: no console line, no result, after 1.5 s.)
vq_irq=""; vq_name=""
for d in /proc/irq/*/virtio*-req*; do
	[ -d "$d" ] || continue
	n=$(basename "$(dirname "$d")")
	if [ "$(cat "/proc/irq/$n/effective_affinity_list")" = "$CPU" ]; then
		vq_irq=$n; vq_name=$(basename "$d")
	fi
done
[ -n "$vq_irq" ] || die "no virtio request queue IRQ with CPU $CPU as its affinity: $(grep virtio /proc/interrupts)"
ktimers=$(pid_of ktimers/$CPU) || die "no ktimers/$CPU thread: not a PREEMPT_RT kernel?"
rcuc=$(pid_of rcuc/$CPU) || die "no rcuc/$CPU thread"
# the kernel names a handler thread irq/N-ACTION (/proc shows a kernel
# thread's whole name; its comm in the events is cut to 15 characters)
vq_pid=$(pid_of "irq/$vq_irq-$vq_name") || die "no irq/$vq_irq-$vq_name thread"
irqs="$vq_irq:$vq_name:$vq_pid"
echo "IRQs on CPU $CPU (irq:action:thread pid): $irqs; ktimers/$CPU $ktimers, rcuc/$CPU $rcuc"
grep -E "irq/|ktimers|rcuc" /proc/[0-9]*/comm > "$ART/threads" 2>/dev/null

# ---- osnoise top with threaded IRQs on CPU 1 ------------------------------
cat /proc/interrupts > "$ART/interrupts.before"
# 64 reads, then a 0.2 s sleep, in a loop (an unthrottled dd, 15 000-26 000
# interrupts in the run, hung the guest twice in five boots: no console
# line, no result, nothing from the guest's own timeout)
taskset -c $CPU sh -c 'while :; do dd if=/dev/vda of=/dev/null bs=4096 count=64 iflag=direct 2>/dev/null; sleep 0.2; done' &
stim=$!
$LATSCOPE osnoise top -c $CPU -d 5 --top 256 --json > "$ART/osnoise.json" 2> "$ART/osnoise.err"
rc=$?
kill $stim 2>/dev/null
wait $stim 2>/dev/null
cat /proc/interrupts > "$ART/interrupts.after"
cat "$ART/osnoise.err"
[ $rc -eq 0 ] || die "osnoise top exited $rc: $(tail -3 "$ART/osnoise.err")"
J=$ART/osnoise.json
for kv in '"mode":"top"' '"workload":true' '"attribution":true' "\"cpu\":$CPU,"; do
	grep -q "^ *$kv" "$J" || die "osnoise JSON has no $kv"
done
# (the entries of the top-level cpus array, 6 spaces in: fired.cpus[] is
# deeper)
[ "$(grep -c '^      "cpu":' "$J")" -eq 1 ] || die "osnoise JSON has more than CPU $CPU: $(grep -c '^      "cpu":' "$J") entries in cpus[]"
periods=$(jnum "$J" periods)
# at least one: under TCG the set-up before the first period takes seconds
# and varies (3 periods of 5 s seen), so no count tied to the duration
[ "${periods:-0}" -ge 1 ] || die "CPU $CPU ran no period"
[ "$(jnum "$J" runtime_ns)" -gt 0 ] || die "CPU $CPU has no runtime"
[ "$(jnum "$J" gaps)" -gt 0 ] || die "CPU $CPU has no noise gaps"
# every loss is named on stderr (docs/osnoise.md)
named() {	# KEY PATTERN: a non-zero KEY must have a line matching PATTERN on stderr
	v=$(jnum "$J" "$1")
	[ "${v:-0}" -eq 0 ] || grep -q "$2" "$ART/osnoise.err" || die "$1 = $v in the JSON but not named on stderr"
}
named events_lost 'events lost'
named workload_records_lost 'lost'
named unseen_switch_in 'came with no event'
named dropped_open 'dropped'
# a full contributor table would hide contributors: the run must not fill it
[ "$(jnum "$J" contrib_overflow)" -eq 0 ] || die "contributor table overflowed ($(jnum "$J" contrib_overflow) windows): the check below would be incomplete"

# contributors as "class|name|id|count" lines
awk -F'"' '/"class":/ { c = $4 } /"name":/ { n = $4 }
	/"id":/ { i = $3; gsub(/[:,]/, "", i) }
	/"count":/ && c != "" { k = $3; gsub(/[:,]/, "", k); print c "|" n "|" i "|" k; c = "" }' "$J" > "$ART/contributors"
cat "$ART/contributors" | head -40
contrib() { grep "^$1|$2|$3|" "$ART/contributors"; }	# CLASS NAME ID
bad=$(grep -E '^[a-z]*\|(irq/[0-9]+-|ktimers/|rcuc/|ksoftirqd/)' "$ART/contributors" | grep -v '^thread|')
[ -z "$bad" ] || die "kernel threads not classified as THREAD: $bad"
for x in $irqs; do
	n=${x%%:*}; rest=${x#*:}; action=${rest%%:*}; tpid=${rest#*:}
	before=$(irq_cpu1 "$ART/interrupts.before" "$n"); after=$(irq_cpu1 "$ART/interrupts.after" "$n")
	[ "$after" -gt "$before" ] || die "IRQ $n ($action) did not fire on CPU $CPU during the run ($before -> $after)"
	thread=$(echo "irq/$n-$action" | cut -c1-15)
	contrib thread "$thread" "$tpid" > /dev/null ||
		die "IRQ $n ($action) fired $((after - before)) times on CPU $CPU, but its thread $thread ($tpid) is not a THREAD contributor: $(grep "irq/$n-\|$action" "$ART/contributors" | tr '\n' ' '); measured $(jnum "$J" runtime_ns) ns in $(jnum "$J" periods) periods; the thread's CPUs: $(grep Cpus_allowed_list "/proc/$tpid/status" 2>/dev/null); latscope said: $(grep -i 'lost\|deliver\|warning\|unseen' "$ART/osnoise.err" | head -4 | tr '\n' ' ')"
	grep "|$thread|" "$ART/contributors" | grep -qv "^thread|$thread|$tpid|" &&
		die "$thread is in the contributors as something other than THREAD $tpid"
	# the hard top half, where perf saw it, is IRQ noise under the action's name
	top=$(grep "|$action|$n|" "$ART/contributors")
	[ -z "$top" ] || [ "${top%%|*}" = irq ] || die "the top half of IRQ $n is not IRQ: $top"
	[ -n "$top" ] && tops="$tops $action"
	echo "IRQ $n ($action): $((after - before)) on CPU $CPU; thread $(contrib thread "$thread" "$tpid"); top half: ${top:-not inside a noise gap}"
done
[ -n "$tops" ] || die "no hard-IRQ top half of $irqs among the IRQ contributors"
contrib thread "ktimers/$CPU" "$ktimers" || die "ktimers/$CPU ($ktimers) is not a THREAD contributor"
contrib thread "rcuc/$CPU" "$rcuc" || die "rcuc/$CPU ($rcuc) is not a THREAD contributor"
# softirqs are thread time here, as the kernel tracer counts them: no SOFTIRQ
# window, no softirq count, none dropped for a preemption inside one
grep -q '^ *"softirq_in_threads":true' "$J" || die "the JSON does not say softirq_in_threads on PREEMPT_RT"
! grep -q '^softirq|' "$ART/contributors" || die "softirq contributors on PREEMPT_RT: $(grep '^softirq|' "$ART/contributors" | tr '\n' ' ')"
[ "$(jnum "$J" softirq)" -eq 0 ] || die "a softirq count of $(jnum "$J" softirq) on PREEMPT_RT"
[ "$(jnum "$J" dropped_open)" -eq 0 ] || die "$(jnum "$J" dropped_open) nested entries dropped on PREEMPT_RT"

# ---- hist record --timer-workload -----------------------------------------
$LATSCOPE hist record --timer-workload -c $CPU -d 5 --json -O "$ART/lh" > "$ART/hist.json" 2> "$ART/hist.err"
rc=$?
cat "$ART/hist.err"
[ $rc -eq 0 ] || die "hist record --timer-workload exited $rc: $(tail -3 "$ART/hist.err")"
H=$ART/hist.json
# one number of the histogram TYPE's "all" object
hall() { awk -v t="\"$1\":{" -v k="\"$2\":" '$1 == t { in_t = 1 } in_t && /"all":/ { in_a = 1 }
	in_a && $1 ~ "^" k { v = $1; sub(k, "", v); sub(",", "", v); print v; exit }' "$H"; }
cycles=$(jnum "$H" cycles)
[ "${cycles:-0}" -gt 0 ] || die "the timer workload ran no cycles"
grep -q '"sched_fifo":true' "$H" || die "the timer workload is not SCHED_FIFO"
wk=$(hall wakeup total); mto=$(hall missed_timer_offsets total); taw=$(hall timerandwakeup total)
echo "timer workload: $cycles cycles; wakeup $wk, missed_timer_offsets $mto, timerandwakeup $taw samples"
for v in wk mto taw; do
	eval "x=\${$v:-0}"
	[ "$x" -gt 0 ] || die "histogram $v of CPU $CPU has no samples ($cycles cycles)"
done
[ "$taw" -le "$wk" ] || die "timerandwakeup $taw > wakeup $wk: each is filed with a wakeup sample"
[ "$taw" -le "$mto" ] || die "timerandwakeup $taw > missed_timer_offsets $mto: each follows a timer sample of its task"
for t in wakeup missed_timer_offsets timerandwakeup; do
	f=$ART/lh/$t/CPU$CPU
	[ -f "$f" ] || die "no $f in the -O tree"
	n=$(sed -n 's/^#Total samples: //p' "$f")
	[ "$n" = "$(hall "$t" total)" ] || die "$t/CPU$CPU says $n samples, the JSON $(hall "$t" total)"
done
for k in lost_events lost_samples undecoded bad_raw dropped corrupt_ring_bytes; do
	v=$(jnum "$H" $k)
	[ "${v:-0}" -eq 0 ] || grep -qi "lost\|skipped\|dropped\|corrupt" "$ART/hist.err" || die "hist: $k = $v but stderr names no loss"
done
echo "ok"
