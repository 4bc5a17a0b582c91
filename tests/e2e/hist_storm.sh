#!/bin/sh
# SPDX-License-Identifier: MIT
# The histogram backends on a wakeup storm at a fixed rate (issue 19's
# agreement test beside the timer workload's, tests/e2e/hist_backend.sh):
# tests/tools/wakestorm wakes a SCHED_FIFO sleeper on CPU 1 from a SCHED_FIFO
# waker on CPU 0, RATE times a second for DUR seconds, and measures each
# wakeup itself.  Each backend in turn measures the sleeper (--pid) while
# the storm runs inside its window (the storm waits for SIGUSR1, sent once
# latscope says it measures).
#
# What each backend must show, derived from the workload:
# - Count.  The sleeper's wakeups from a sleep inside the window are its
#   voluntary context switches over the storm (`wakeups`: getrusage; one
#   more than the periods that found it asleep, for the wake that stops
#   it); each is one sched_wakeup and one switch-in.  The wakeup histogram
#   of CPU 1 holds one sample for each, less those the trackers name as not
#   filed: ignored by the priority rules (a higher-priority task on the
#   CPU; also a wake that found the sleeper still on its CPU on its way
#   into FUTEX_WAIT, which is no sleep and not in `wakeups`), dropped (a
#   higher priority first, already running), replaced, and events lost or
#   program runs skipped.  Exactly: wakeups - unfiled <= samples <=
#   wakeups.  (--pid: no other task's samples.)
# - Values.  The storm's own latency of a wakeup runs from its clock read
#   before FUTEX_WAKE to its clock read after FUTEX_WAIT returns; the
#   kernel-side latency (waking/wakeup to switch-in) lies inside it.  The
#   storm files an own sample only for a wake that ended a sleep in
#   FUTEX_WAIT; a kernel sample has an own sample unless its sleep was
#   elsewhere (`other_sleeps`: a page fault, say).  So at least samples -
#   other_sleeps own samples have their kernel one, and for every latency L
#   the kernel's samples at or below L are at least the storm's own at or
#   below L less own_samples - (samples - other_sleeps): per 1 us bucket
#   (both count bucket k for [k, k+1) us).  The max likewise (kernel max <=
#   own max) when every sleep was in FUTEX_WAIT; the sleeper its victim.
# - The backends against each other: their runs are one after the other,
#   so their latencies differ by the machine's noise and are compared each
#   with its own run's truth, above; their counts are each against their
#   run's wakeups, which the fixed rate makes RATE x DUR less the periods
#   that found the sleeper not asleep (one in a hundred at most here,
#   STORM_MIN_PCT; one in ten in the TCG guests).
#
# A SCHED_IDLE spinner keeps CPU 1 busy in both runs, as in
# hist_cyclictest.sh: on these guests, when the sleeper's CPU idles, the
# kernel makes the wakeup there in an interrupt (the wake list), and the
# perf backend never gets the samples of events in an interrupt taken
# while idle (docs/hist.md, "The idle-drop quirk"); with the spinner both
# backends see the same kind of wakeup.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, BPF, SCHED_FIFO)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (waker and sleeper)"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs (sched events)"
RATE=${STORM_RATE:-5000}
MIN_PCT=${STORM_MIN_PCT:-99}	# of the periods that must find the sleeper asleep
DUR=${STORM_DUR:-2}
W=0 S=1
spin=""
trap 'kill $spin ${sp:-} 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
taskset -c $S chrt -i 0 sh -c 'while :; do :; done' &
spin=$!
sleep 0.2
kill -0 $spin 2>/dev/null || die "cannot start the SCHED_IDLE spinner on CPU $S (taskset, chrt -i)"

# field FILE KEY: KEY=VALUE in FILE's first line that has it
field() { sed -n "s/.* $2=\([0-9]*\).*/\1/p; s/^$2=\([0-9]*\).*/\1/p" "$1" | head -1; }
# hist_cum TREEFILE: "US CUMULATIVE" lines of a latency_hist file
hist_cum() { awk '!/^#/ && NF == 2 { c += $2; print $1, c }' "$1"; }

# storm B: one backend's run; leaves $TMP/B.out (latscope's text), $TMP/B
# (its -O tree), $TMP/B.storm (the storm's line and buckets)
storm() {
	b=$1
	"$TOOLS/wakestorm" -w $W -s $S -r "$RATE" -d "$DUR" -g >"$TMP/$b.storm" 2>"$TMP/$b.serr" &
	sp=$!
	n=0
	until grep -qs '^ready ' "$TMP/$b.storm"; do
		kill -0 $sp 2>/dev/null || skip "wakestorm cannot run here: $(cat "$TMP/$b.serr")"
		n=$((n + 1)); [ $n -lt 100 ] || die "wakestorm not ready after 10 s"
		sleep 0.1
	done
	tid=$(field "$TMP/$b.storm" sleeper_tid)
	# (65536 buckets of 1 us: the bpf backend's most; the latency_hist
	# files list only the buckets, and a TCG guest's wakeups reach 20 ms,
	# past the default 10240 us)
	"$LATSCOPE" hist record --backend "$b" --no-keep-busy --pid "$tid" --types wakeup -d 60 --buckets 65536 \
		-O "$TMP/$b" >"$TMP/$b.out" 2>"$TMP/$b.err" &
	lp=$!
	n=0
	until grep -qs '^# latscope hist record: measuring' "$TMP/$b.out"; do
		if ! kill -0 $lp 2>/dev/null; then
			kill $sp
			bpf_skip_if_refused "$TMP/$b.err"
			die "$b: latscope ended before measuring: $(cat "$TMP/$b.err")"
		fi
		n=$((n + 1)); [ $n -lt 300 ] || die "$b: not measuring after 30 s"
		sleep 0.1
	done
	kill -USR1 $sp
	wait $sp || die "wakestorm failed: $(cat "$TMP/$b.serr")"
	kill -INT $lp
	wait $lp || die "$b: latscope failed ($?): $(cat "$TMP/$b.err")"
}

check() {
	b=$1 f=$TMP/$1.storm
	wakeups=$(field "$f" wakeups)
	own=$(field "$f" own_samples)
	periods=$(field "$f" periods)
	[ "$periods" -eq "$(awk -v r="$RATE" -v d="$DUR" 'BEGIN { printf "%d", r * d }')" ] ||
		die "$b: the storm made $periods periods for $RATE Hz x $DUR s"
	# (not a tolerance: the counts below are exact whatever it is; a run
	# where many periods found the sleeper awake measured a loaded machine
	# (another job on the waker's or the sleeper's CPU): said, and checked
	# all the same; under half, the storm was no storm of wakeups: skipped)
	[ "$wakeups" -ge $((RATE * DUR / 2)) ] ||
		skip "$b: only $wakeups of $((RATE * DUR)) periods found the sleeper asleep: the machine is too loaded for a wakeup storm ($(head -1 "$f"))"
	[ "$wakeups" -ge $((RATE * DUR * MIN_PCT / 100)) ] ||
		echo "$b: note: $wakeups of $((RATE * DUR)) periods found the sleeper asleep (under $MIN_PCT %: the machine is loaded)"
	tr=$(grep '^tracking: ' "$TMP/$b.out") || die "$b: no tracking line: $(cat "$TMP/$b.out")"
	unfiled=0
	case $tr in
	"tracking: none"*) ;;	# the kernel backend: every wakeup to its switch-in
	*)
		set -- $(echo "$tr" | sed 's/^tracking: \([0-9]*\) wakeups ignored[^,]*, \([0-9]*\) dropped[^,]*, \([0-9]*\) dropped[^,]*, \([0-9]*\) replaced.*/\1 \2 \3 \4/')
		[ $# -eq 4 ] || die "$b: cannot read the tracking line: $tr"
		unfiled=$(($1 + $2 + $3 + $4));;
	esac
	# (perf: wakeups the kernel wrote to its ring after later switches of
	# their CPU were read, a vCPU stalled between the two: not measured)
	late=$(echo "$tr" | sed -n 's/.* \([0-9]*\) wakeups written late.*/\1/p')
	[ -n "$late" ] && unfiled=$((unfiled + late))
	lost=$(sed -n 's/.* lost \([0-9]*\) events, \([0-9]*\) samples.*/\1 \2/p' "$TMP/$b.out")
	[ -n "$lost" ] && unfiled=$((unfiled + ${lost% *} + ${lost#* }))
	# (perf: the samples the kernel fired and never delivered, named)
	und=$(sed -n 's/^fired: .* \([0-9]*\) never delivered.*/\1/p' "$TMP/$b.out")
	[ -n "$und" ] && unfiled=$((unfiled + und))
	# (bpf: the runs the kernel's recursion guard skipped; kernel: samples a
	# full map dropped)
	rec=$(sed -n 's/.* \([0-9]*\) skipped by the kernel.s recursion guard.*/\1/p; s/.* \([0-9]*\) dropped by a full map.*/\1/p' "$TMP/$b.out")
	[ -n "$rec" ] && unfiled=$((unfiled + rec))
	h=$TMP/$b/wakeup/CPU$S
	[ -f "$h" ] || die "$b: no $h"
	n=$(sed -n 's/^#Total samples: //p' "$h")
	pre=$(field "$f" preempted)
	[ "$n" -ge $((wakeups - unfiled)) ] && [ "$n" -le $((wakeups + pre)) ] ||
		die "$b: CPU$S wakeup has $n samples for $wakeups wakeups of the sleeper ($unfiled not filed: $tr${lost:+, lost $lost}; $(grep -E '^(fired|events|input|self-test)' "$TMP/$b.out" | tr '\n' ' ')storm: $(head -1 "$f"))"
	# K(L) >= O(L) - (own - matched) at every bucket, where matched >= n -
	# other - preempted: kernel samples of sleeps outside FUTEX_WAIT have no
	# own sample (CI once had n = own + 1 in a TCG guest), nor those of a
	# wake that found the sleeper preempted on its way into FUTEX_WAIT
	other=$(($(field "$f" other_sleeps) + $(field "$f" preempted)))
	hist_cum "$h" >"$TMP/$b.k"
	awk '$1 == "bucket" { c += $3; print $2, c }' "$f" >"$TMP/$b.o"
	# (the file's buckets end at 65536 us: its samples above, counted in its
	# "greater or equal" line, are in no bucket, so L stops there; the max
	# below covers them)
	bad=$(awk -v u=$((own - n + other)) 'NR == FNR { k[$1] = $2; next }
		$1 < 65536 { while (i <= $1) { if (i in k) kc = k[i]; i++ }
		  if (kc < $2 - u) { print $1 " us: kernel " kc ", own " $2 " (less " u ")"; exit } }' "$TMP/$b.k" "$TMP/$b.o")
	[ -z "$bad" ] || die "$b: fewer kernel-side samples than the storm's own at or below $bad ($(grep own_max_ns "$f"); kernel: $n samples, $(grep '^#Maximum latency' "$h"))"
	kmax=$(sed -n 's/^#Maximum latency: \([0-9]*\) .*/\1/p' "$h")
	omax=$(field "$f" own_max_ns)
	# (unless a sleep outside FUTEX_WAIT, with no own sample, was among them)
	[ "$other" -gt 0 ] || [ "$kmax" -le $((omax / 1000)) ] ||
		die "$b: kernel max $kmax us > the storm's own max $omax ns"
	grep -Eq '^[0-9]+ [0-9]+ [0-9]+ \([0-9]+\) wakestorm <- ' "$TMP/$b/wakeup/max_latency-CPU$S" ||
		die "$b: the worst case is not the sleeper: $(cat "$TMP/$b/wakeup/max_latency-CPU$S")"
	kp50=$(awk -v t="$n" '{ if ($2 * 2 >= t) { print ($1 + 1) * 1000; exit } }' "$TMP/$b.k")
	ooo=$(sed -n 's/^events: .*; \([0-9]*\) out of order\(.*\)/\1 out of order\2/p' "$TMP/$b.out")
	echo "$b: CPU$S $n wakeup samples for $wakeups wakeups from a sleep ($unfiled named not filed${late:+, $late of them written late}${ooo:+; events $ooo}; $(field "$f" not_waiting) periods found it running); p50 $kp50 ns (own $(field "$f" own_p50_ns)), max $kmax us (own $omax ns)"
}

BACKENDS=${STORM_BACKENDS:-perf bpf}
for b in $BACKENDS; do
	storm $b
	check $b
done
echo "ok: $BACKENDS filed every wakeup of the storm ($RATE Hz, $DUR s) they did not name as unfiled, each inside the storm's own latency"
