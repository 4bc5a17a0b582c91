#!/bin/sh
# SPDX-License-Identifier: MIT
# A recorder killed with SIGKILL keeps what it recorded: hist record -o,
# osnoise record -o and dtl record -o checkpoint their file every 0.2 s
# (pdwrite_checkpoint: the feature table appended as a record perf skips,
# then the header rewritten to end the data there), so a file killed after
# 3 s reads back with the events of the measured time (hist: at least 2.2 s
# of them), under the user's name, with its formats and settings, and the
# reader says the recording was cut short.  perf reads it too, up to the
# last checkpoint (hist and osnoise): exit 0, at least 2.2 s of events, the
# task names, the decoded fields, perf report's samples; latscope script
# prints the same tracepoint lines for that range; and perf reads the file
# as the writer left it at earlier moments (tests/tools/ckptcut).  A
# recording that ends normally is a plain perf.data that perf reads.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints)"
"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy >/dev/null 2>&1 || skip "no tracepoints here"
cd "$TMP" || die "no tmp"
have_perf=false
command -v perf >/dev/null 2>&1 && have_perf=true
export HOME="$TMP"	# keep perf's caches out of the user's home

# proc_state PID...: what each process (and its children) is doing, for a
# wait that does not end: ps, State, the kernel stack and wchan of each, and
# of each of its threads
proc_state() {
	for q in $*; do
		for c in $q $(ps -o pid= --ppid "$q" 2>/dev/null); do
			[ -d "/proc/$c" ] || continue
			ps -o pid,ppid,stat,wchan:20,etime,args -p "$c" | cut -c1-160
			grep -E '^(State|Threads|SigPnd|ShdPnd|SigBlk)' "/proc/$c/status"
			for d in "/proc/$c/task"/*; do
				echo "  tid ${d##*/} $(sed 's/^[0-9]* (\(.*\)) \([A-Za-z]\) .*/\2 \1/' "$d/stat" 2>/dev/null), wchan $(cat "$d/wchan" 2>/dev/null)"
				sed 's/^/    /' "$d/stack" 2>/dev/null
			done
		done
	done
}
# wait_end PID SECONDS WHAT: the exit status of the background PID, which
# should end within SECONDS; one that does not (a process in D state, or a
# thread of it, survives even SIGKILL; the leader stays a zombie until its
# last thread is gone) has its state printed, is killed, and the test fails
# instead of hanging in `wait`
wait_end() {
	we_n=0
	while [ -d "/proc/$1" ] && [ $we_n -lt $(($2 * 10)) ]; do
		# a zombie whose threads are all gone: wait returns at once
		[ "$(sed 's/.*) \(.\) .*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ] &&
			[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ] && break
		sleep 0.1; we_n=$((we_n + 1))
	done
	if [ $we_n -ge $(($2 * 10)) ]; then
		{ echo "$3: pid $1 still there after $2 s:"; proc_state "$1"; } >&2
		kill -KILL "$1" $(ps -o pid= --ppid "$1" 2>/dev/null) 2>/dev/null
		die "$3: pid $1 did not end within $2 s (its state above)"
	fi
	[ $we_n -lt 50 ] || echo "$3: pid $1 took $((we_n / 10)) s to end" >&2
	wait "$1"
}

# kill_after FILE SECONDS cmd...: SIGKILL SECONDS after FILE appears (the
# first checkpoint puts it under its name, 0.2 s into the recording), so the
# set-up, which takes seconds on a loaded machine, is not in the 3 s; kids
# names the recorder's children then (they outlive it).  The recorder has
# 120 s to be gone after SIGKILL (wait_end): its exit closes each tracepoint
# event (an RCU-tasks-trace and an RCU grace period each) and unmaps its
# rings in whichever thread exits last, with hist's keep-busy that is the
# SCHED_IDLE spinner on CPU 1, which any load there starves: 0.4 s alone,
# 7 s with two busy loops on CPU 1, 25 s with four
kill_after() {
	f=$1 d=$2; shift 2
	what="$(basename "$1") $2"
	"$@" > run.out 2> run.err < /dev/null &
	p=$!
	n=0
	while [ ! -e "$f" ] && kill -0 $p 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1; n=$((n + 1))
	done
	if [ ! -e "$f" ]; then
		kill -KILL $p 2>/dev/null
		wait_end $p 120 "$what"
		die "$what: no $f after $((n / 10)) s: $(cat run.err)"
	fi
	sleep "$d"
	kids=$(ps -o pid= --ppid $p | tr -d ' ')
	kill_s=$(cut -d' ' -f1 /proc/uptime)	# CLOCK_BOOTTIME: the recorders' MONOTONIC, no suspend here
	kill -KILL $p
	wait_end $p 120 "$what (SIGKILL)"
	return 0
}
times_s() {	# the first and the last sample time of `latscope script` output
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (!n++) a = t; b = t; break } }
	     END { if (n) printf "%.3f %.3f\n", a, b; else print "0 0" }' "$1"
}
# task names: the recorder writes a COMM per thread alive at its start
# and the kernel reports the later ones on the measured CPUs, so perf
# names every task that existed before the recording; only a task forked
# meanwhile on an unmeasured CPU may stay ":PID" (as with perf record -C).
# "Existed before" is the set of thread ids alive just before the recorder
# starts, not a PID below the last one given: pid_max is 32768 on many
# machines, and a busy machine (a make check beside a loop of gzip runs)
# wraps it in minutes, so a task forked during the recording can have a
# PID lower than one given before it (CI once listed 60 such tasks).
alive_tids() {	# FILE: the thread ids alive now, one per line, sorted
	for t in /proc/[0-9]*/task/[0-9]*; do echo "${t##*/}"; done | sort -u > "$1"
}
unnamed_old() {	# FILE ALIVE -> the unnamed tasks among the thread ids in ALIVE
	perf script -i "$1" 2>/dev/null | awk '$1 ~ /^:[0-9]+$/ { print substr($1, 2) + 0 }' | sort -u |
		comm -12 - "$2" | tr '\n' ' '
}
u64_at() {	# FILE OFFSET -> the u64 there (host order: the recorders write it)
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}
tp_lines() {	# the tracepoint lines (latscope's own osnoise_workload samples are
		# no tracepoint: perf prints them its own way, and one of them
		# has time 0)
	grep -v 'latscope:osnoise_workload:' "$1"
}

# perf_killed NAME FILE ALIVE: perf reads the killed recording FILE up
# to its last checkpoint, and as it was at earlier moments of its writing
perf_killed() {
	name=$1 f=$2 alive=$3
	perf script -i "$f" > "$f.perf" 2> "$f.perr" || die "$name: perf script on the killed file: $(head -3 "$f.perr")"
	if grep -Eiq 'trace data|incompatible|broken|error|fail|invalid|unsupported|unexpected' "$f.perr"; then
		die "$name: perf script complained: $(head -3 "$f.perr")"
	fi
	tp_lines "$f.perf" > "$f.perf.tp"
	read -r first_s last_s <<EOF
$(times_s "$f.perf.tp")
EOF
	span=$(echo "$last_s - $first_s" | bc)
	echo "$name killed at 3 s: perf script reads $(wc -l < "$f.perf") events, tracepoints over $span s"
	[ "$(echo "$span >= 2.2" | bc)" = 1 ] || die "$name: perf script reads only $span s of events"
	grep -q 'sched:sched_switch: prev_comm=.* next_comm=' "$f.perf" || die "$name: perf decodes no sched_switch fields"
	old=$(unnamed_old "$f" "$alive")
	[ -z "$old" ] || die "$name: perf names none of these tasks older than the recording: $old"
	perf report -i "$f" --stdio > "$f.rep" 2> "$f.reperr" || die "$name: perf report: $(head -3 "$f.reperr")"
	grep -q '^# Samples: [0-9]' "$f.rep" || die "$name: perf report shows no samples: $(head -20 "$f.rep")"
	# latscope reads on past the last checkpoint: cut the file where the
	# checkpoint's table record ends, and both read exactly that range
	off=$(u64_at "$f" 40) size=$(u64_at "$f" 48)
	tsz=$(od -An -t u2 -j $((off + size + 6)) -N 2 "$f" | tr -d ' ')
	head -c $((off + size + tsz)) "$f" > "$f.cut"
	perf script -i "$f.cut" 2>/dev/null | cmp -s - "$f.perf" || die "$name: perf reads the file cut at its checkpoint otherwise"
	"$LATSCOPE" script -i "$f.cut" > "$f.ls" 2> "$f.lserr" || die "$name: latscope script on the cut file: $(cat "$f.lserr")"
	tp_lines "$f.ls" > "$f.ls.tp"
	cmp -s "$f.perf.tp" "$f.ls.tp" ||
		die "$name: latscope script and perf script differ up to the last checkpoint: $(diff "$f.perf.tp" "$f.ls.tp" | head -5)"
	echo "$name: latscope script prints perf script's $(wc -l < "$f.ls.tp") tracepoint lines up to the last checkpoint"
	# earlier moments: the file as the writer left it when it had written
	# X bytes, for X the end of the first checkpoint's table, four offsets
	# at random and the end (ckptcut puts back the header of the checkpoint
	# on disk then)
	first=$("$TOOLS/ckptcut" --list "$f" | awk 'NR == 1 { print $2 }')
	[ -n "$first" ] || die "$name: no checkpoint table record in the file"
	fs=$(stat -c %s "$f")
	prev=0
	for x in $first $(awk -v a="$first" -v b="$fs" 'BEGIN { srand(); for (i = 0; i < 4; i++) print a + int(rand() * (b - a)) }' | sort -n) $fs; do
		"$TOOLS/ckptcut" "$f" "$x" m.data || die "$name: ckptcut at $x"
		perf script -i m.data > m.perf 2> m.err || die "$name: perf script on the file at byte $x: $(head -3 m.err)"
		n=$(wc -l < m.perf)
		[ "$n" -ge "$prev" ] || die "$name: perf reads $n events at byte $x, $prev before"
		[ "$n" -gt 0 ] || [ "$x" = "$first" ] || die "$name: perf reads nothing at byte $x"
		"$LATSCOPE" script -i m.data > /dev/null 2> m.lerr || die "$name: latscope script on the file at byte $x: $(cat m.lerr)"
		prev=$n
		echo "$name: as the writer left it at byte $x of $fs, perf script reads $n events"
	done
}

# hist record -o: killed 3 s after its first checkpoint (3.2 s into the
# recording), it loses at most the last second: >= 2.2 s of events
alive_tids alive_h
kill_after h.data 3 "$LATSCOPE" hist record -d 60 --timer-workload -c 1 -o h.data
[ -s h.data ] || die "hist record: no h.data after SIGKILL at 3 s ($(ls -a))"
[ -z "$(find . -name '.*.tmp')" ] || die "hist record: a temporary file is left: $(find . -name '.*.tmp')"
"$LATSCOPE" script -i h.data > h.txt 2> h.err || die "script on the killed recording: $(cat h.err)"
grep -q "the header is a checkpoint.*not properly terminated" h.err || die "no cut-short warning: $(cat h.err)"
read -r first_s last_s <<EOF
$(times_s h.txt)
EOF
span=$(echo "$last_s - $first_s" | bc)
echo "hist record killed at 3 s: $(wc -l < h.txt) events over $span s"
[ "$(echo "$span >= 2.2" | bc)" = 1 ] || die "hist record killed at 3 s: only $span s of events"
# and what was lost is at most the last second before the kill (+ the 10 ms
# of /proc/uptime)
lag=$(echo "$kill_s - $last_s" | bc)
echo "hist record: the last event kept is $lag s before the SIGKILL"
[ "$(echo "$lag <= 1.01" | bc)" = 1 ] || die "hist record: the last event kept is $lag s before the SIGKILL"
grep -q 'sched:sched_switch: prev_comm=' h.txt || die "events not decoded (formats lost?)"
"$LATSCOPE" hist report -i h.data > hr.txt 2> hr.err || die "hist report: $(cat hr.err)"
grep -q 'not properly terminated' hr.err || die "hist report does not say the file was cut short"
grep -q '^wakeup (us)' hr.txt || die "hist report: no wakeup histogram: $(head -5 hr.txt)"
if $have_perf; then
	perf_killed "hist record" h.data alive_h
fi

# the same recording ended normally: perf reads it, no warning from latscope
alive_tids alive_f
"$LATSCOPE" hist record -d 2 --timer-workload -c 1 -o f.data > /dev/null 2>&1 < /dev/null &
rec_pid=$!
wait_end $rec_pid 120 "hist record -d 2" || die "hist record -d 2"
"$LATSCOPE" script -i f.data > f.txt 2> f.err || die "script f.data: $(cat f.err)"
grep -q 'not properly terminated\|came again' f.err && die "a finished recording read as cut short: $(cat f.err)"
if $have_perf; then
	perf script -i f.data > p.txt 2> p.err || die "perf script on a finished hist recording: $(head -3 p.err)"
	cmp -s p.txt f.txt || die "perf and latscope disagree on f.data: $(diff p.txt f.txt | head -5)"
	old=$(unnamed_old f.data alive_f)
	[ -z "$old" ] || die "hist record -o: tasks older than the recording without a name: $old"
	# latscope's own threads (the timer workload) are named too: no ":TID"
	# sample whose process is the recorder (other latscope processes on the
	# machine are not its business)
	own=$(perf script -F comm,pid,tid -i f.data 2>/dev/null |
		awk -v rp="$rec_pid" '$1 ~ /^:[0-9]+$/ { split($2, a, "/"); if (a[1] == rp) print substr($1, 2) }' |
		sort -u | tr '\n' ' ')
	[ -z "$own" ] || die "hist record -o: latscope's own threads without a name: $own"
	if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
		alive_tids alive_o
		"$LATSCOPE" osnoise record -c 1 -H 0 -d 2 -o on.data > /dev/null 2>&1 || die "osnoise record -d 2"
		old=$(unnamed_old on.data alive_o)
		[ -z "$old" ] || die "osnoise record: tasks older than the recording without a name: $old"
		perf script -i on.data 2>/dev/null | grep -q '^ *ls-osnoise/1 ' || die "osnoise record: ls-osnoise/1 not named"
		echo "task names: every task older than the recording is named (hist record -o, osnoise record)"
	fi
fi

# osnoise record -o: the settings and gaps survive (periods of 0.5 s)
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	alive_tids alive_o
	kill_after o.data 3 "$LATSCOPE" osnoise record -c 1 -H 0 -d 60 -p 500000 -o o.data
	"$LATSCOPE" osnoise top -i o.data --json > o.json 2> o.err || die "osnoise replay of the killed file: $(cat o.err)"
	grep -q 'not properly terminated' o.err || die "osnoise: no cut-short warning: $(cat o.err)"
	periods=$("$TOOLS/osnjson" o.json cpus.0.periods)
	echo "osnoise record killed at 3 s: $periods periods of 0.5 s"
	[ "$periods" -ge 3 ] || die "osnoise record killed at 3 s: $periods periods"
	[ "$("$TOOLS/osnjson" o.json attribution)" = true ] || die "osnoise: the formats were lost"
	if $have_perf; then
		perf_killed "osnoise record" o.data alive_o
	fi
fi

# dtl record -o (a fake debugfs DTL: 12 entries) with sched tracepoints;
# a checkpoint carries no AUXTRACE index (latscope reads on past it, where
# an index would miss buffers): the reader finds the buffers by scanning
if [ -x "$TOOLS/mkdtl" ] && [ -d /sys/kernel/tracing/events/sched ]; then
	mkdir -p sys/devices/system/cpu dbg/powerpc/dtl proc
	echo 0-1 > sys/devices/system/cpu/online
	printf 'processor\t: 0\ncpu\t\t: POWER10 (architected)\ntimebase\t: 512000000\nplatform\t: pSeries\n' > proc/cpuinfo
	echo 0x00 > dbg/powerpc/dtl/dtl_event_mask
	"$TOOLS/mkdtl" --raw 7 --tb0 2000000 --cpu 0 -o dbg/powerpc/dtl/cpu-0 || die mkdtl
	"$TOOLS/mkdtl" --raw 5 --tb0 2002560 --cpu 1 -o dbg/powerpc/dtl/cpu-1 || die mkdtl
	kill_after d.data 3 "$LATSCOPE" dtl record --sysfs sys --debugfs dbg --procfs proc --boot-tb 1488000 \
		-o d.data -- sleep 60
	[ -z "$kids" ] || kill -KILL $kids 2>/dev/null	# the workload, by its pid
	"$LATSCOPE" dtl script d.data > d.txt 2> d.err || die "dtl script on the killed recording: $(cat d.err)"
	grep -q 'not properly terminated' d.err || die "dtl: no cut-short warning: $(cat d.err)"
	grep -q 'no AUXTRACE index; found 2 AUX buffers by scanning' d.err || die "dtl: $(cat d.err)"
	[ "$(grep -c 'vpa-dtl:' d.txt)" = 12 ] || die "dtl: $(grep -c 'vpa-dtl:' d.txt) DTL entries, want 12"
	grep -q 'sched:sched_switch' d.txt || die "dtl: no sched samples in the killed recording"
	echo "dtl record killed at 3 s: 12 DTL entries and $(grep -c sched: d.txt) sched samples"
fi
exit 0
