#!/bin/sh
# SPDX-License-Identifier: MIT
# The bpf backend of `latscope osnoise` on Debian's 6.1 kernels (issue 19):
# the object built on the host (6.18 BTF) relocated by CO-RE against the
# guest's /sys/kernel/btf/vmlinux.
#
# `latscope osnoise top --backend bpf -c 1 -d 5 --json`: exit 0, the JSON's
# backend is bpf and no program was refused (stderr), the programs
# (osnbpf_*) are loaded while it measures, CPU 1's periods are there with
# local timer interrupts attributed as IRQ noise (the tick fires on a busy
# CPU: at least one a period), every loss is named, and on PREEMPT_RT the
# softirqs are thread time (softirq_in_threads, no SOFTIRQ count) as the
# perf backend and the kernel tracer have them.  Afterwards no program, map
# or link of ours is left (the kernel frees them after an RCU grace period:
# up to 10 s).  Under TCG no time is compared.
# needs: file:/sys/kernel/btf/vmlinux cmd:bpftool
# timeout: 200
. "$KTEST_DIR/guest/lib.sh"
CPU=1
jnum() { sed -n "s/^ *\"$2\": *\(-\{0,1\}[0-9.]*\),\{0,1\}\$/\1/p" "$1" | head -1; }
ours() { { bpftool prog list; bpftool map list; } 2>/dev/null | grep -c 'name osnbpf_'; }
[ "$(ours)" -eq 0 ] || die "osnbpf programs loaded before the run"

$LATSCOPE osnoise top --backend bpf -c $CPU -d 5 --json > "$ART/bpf.json" 2> "$ART/bpf.err" &
pid=$!
seen=0 n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 300 ]; do
	s=$(ours)
	[ "$s" -gt "$seen" ] && seen=$s
	[ "$seen" -gt 0 ] && break
	sleep 0.2
	n=$((n + 1))
done
wait $pid
rc=$?
cat "$ART/bpf.err"
[ $rc -eq 0 ] || die "osnoise top --backend bpf exited $rc: $(tail -3 "$ART/bpf.err")"
grep -q '"backend": *"bpf"' "$ART/bpf.json" || die "the JSON's backend is not bpf"
grep -qi 'refused\|left out' "$ART/bpf.err" && echo "(stderr names programs left out: $(grep -i 'refused\|left out' "$ART/bpf.err"))"
[ "$seen" -gt 0 ] || die "no osnbpf_ program or map seen loaded while it measured"
periods=$(jnum "$ART/bpf.json" periods)
irq=$(jnum "$ART/bpf.json" irq)
# under TCG the collector may fall behind the loop (CI: "337087 workload
# records lost (collector too slow)", 2 periods): then the loss must be named
[ "${periods:-0}" -ge 1 ] || die "CPU$CPU: no period in 5 s"
[ "$periods" -ge 3 ] || grep -q 'workload records lost' "$ART/bpf.err" ||
	die "CPU$CPU: $periods periods in 5 s and no loss named"
[ "${irq:-0}" -ge "$periods" ] || die "CPU$CPU: ${irq:-0} IRQ noise entries for $periods periods (the tick fires every period on a busy CPU)"
tr -d ' \n' < "$ART/bpf.json" | grep -q '"class":"irq","name":"local_timer"' ||
	die "no local_timer IRQ contributor: $(tr -d ' \n' < "$ART/bpf.json" | grep -o '"top":\[[^]]*' | head -c 400)"
lost=$(jnum "$ART/bpf.json" events_lost)
if [ "${lost:-0}" -gt 0 ]; then
	grep -q 'lost' "$ART/bpf.err" || die "$lost events lost and not named on stderr"
fi
# (PREEMPT_RT from the kernel's config: 7.2's mainline PREEMPT_RT has no
# /sys/kernel/realtime)
if kt_has config:PREEMPT_RT > /dev/null; then
	grep -q '"softirq_in_threads": *true' "$ART/bpf.json" || die "PREEMPT_RT: softirq_in_threads is not true"
	[ "$(jnum "$ART/bpf.json" softirq)" = 0 ] || die "PREEMPT_RT: a SOFTIRQ count under bpf"
fi
n=0
while [ "$(ours)" -gt 0 ]; do
	n=$((n + 1))
	[ $n -lt 50 ] || die "osnbpf programs or maps left: $({ bpftool prog list; bpftool map list; } | grep osnbpf_)"
	sleep 0.2
done
echo "ok: $KERNEL: osnoise --backend bpf: $seen programs and maps loaded, $periods periods, $irq IRQ entries on CPU$CPU, ${lost:-0} events lost; nothing left"
