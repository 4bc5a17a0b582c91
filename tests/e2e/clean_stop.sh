#!/bin/sh
# SPDX-License-Identifier: MIT
# Clean stops of every live command (osnoise top|hist|trace|record, hist
# record|top, dtl record against a fake debugfs tree):
#  - SIGINT, and SIGTERM, during the measurement: the summary, exit 0;
#  - a second SIGINT while it stops: the abort, gone within 3 s, killed by
#    SIGINT (exit status 130), its temporary output file removed, its
#    workload (dtl record -- CMD, even one that ignores SIGTERM) killed;
#    a second signal of another kind: the same, killed by that one;
#  - every other signal whose default action ends the process (the stop
#    signals, src/cmdio.h) sent to every live command: as SIGINT; one that
#    latscope was started with ignored (nohup's SIGHUP) stays ignored;
#  - a reader of standard output that leaves after 1 s without reading
#    (osnoise --json and hist write nothing before the end): every live
#    command is over within 1 s of that;
#  - | head -1: over within a few seconds, stderr at most the one line
#    "standard output was closed";
#  - after every run nothing is left behind: tracefs (enabled events, tracer,
#    tracing_on, set_event, instances, options, buffer size, thresh), the
#    /proc/sys/kernel knobs, the DTL event mask, this shell's affinity, nice
#    and policy are as before; no process of ours (the binary, anything
#    naming $TMP) is alive or holds a perf event or /dev/cpu_dma_latency
#    (its constraint lives as long as a descriptor); no ".*.tmp" file.  The
#    workload of dtl record inherits no descriptor, signal mask, ignored
#    signal, affinity or priority of latscope's (compared with the same
#    workload run directly).
. "$TESTS_DIR/lib.sh"
# whatever happens, no process of ours outlives the test (a failed check
# can leave the workload that ignores SIGTERM behind)
trap 'for q in $(pgrep -f -- "$TMP"); do kill -KILL "$q"; done 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints)"
[ -x "$TOOLS/mkdtl" ] || skip "mkdtl tool not built"
BIN=$(readlink -f "$LATSCOPE")
TR=/sys/kernel/tracing
[ -d $TR/events ] || TR=/sys/kernel/debug/tracing
cpu=$(( $(getconf _NPROCESSORS_ONLN) > 1 ? 1 : 0 ))

# the fake DTL (see dtl_record_debugfs.sh); the mask is a system setting
D=$TMP/dtl
mkdir -p "$D/sys/devices/system/cpu" "$D/dbg/powerpc/dtl" "$D/proc" || die "mkdir"
echo 0-1 > "$D/sys/devices/system/cpu/online"
printf 'processor\t: 0\ncpu\t\t: POWER10 (architected)\ntimebase\t: 512000000\nplatform\t: pSeries\n' > "$D/proc/cpuinfo"
echo 0x07 > "$D/dbg/powerpc/dtl/dtl_event_mask"
"$TOOLS/mkdtl" --raw 7 --tb0 2000000 --cpu 0 -o "$D/dbg/powerpc/dtl/cpu-0" || die mkdtl
"$TOOLS/mkdtl" --raw 5 --tb0 2002560 --cpu 1 -o "$D/dbg/powerpc/dtl/cpu-1" || die mkdtl
DTL="dtl record --sysfs $D/sys --debugfs $D/dbg --procfs $D/proc --boot-tb 1488000 -e dtl_preempt"
# the stop signals, "NAME NUMBER" (the numbers are the architecture's)
"$TOOLS/stopsigs" > "$TMP/sigs" && [ "$(wc -l < "$TMP/sigs")" -ge 50 ] || die "stopsigs: $(cat "$TMP/sigs")"
signum() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/sigs"; }
ulimit -c 0	# (the aborts by SIGQUIT or SIGSEGV dump no core here)

# The workload of dtl record: what it inherited, then sleep (ignoring
# SIGTERM when $1 = stubborn).  Descriptors 0-2 are the caller's.
cat > "$TMP/probe.sh" <<'EOF'
ls -l /proc/$$/fd > "$2.fds"	# (the redirection is ls's, not ours)
awk 'NR > 1 { print "fd", $9, ($9 <= 2 ? "" : $11) }' "$2.fds" > "$2.part"
# the shell's own mask, read by the shell itself: a grep child would race with
# dash, which blocks every signal for a moment around its wait for that child
while IFS= read -r l; do
	case $l in SigBlk:*|SigIgn:*|Cpus_allowed_list:*) echo "$l" ;; esac
done < /proc/$$/status >> "$2.part"
awk '{ print "nice", $19, "policy", $41, "rtprio", $40 }' /proc/$$/stat >> "$2.part"
mv "$2.part" "$2"
[ "$1" = once ] && exit 0
[ "$1" = stubborn ] && trap '' TERM
exec "${0%/*}/probe-sleep" 30	# (a name with $TMP in it: pgrep finds it)
EOF
ln -s "$(command -v sleep)" "$TMP/probe-sleep" || die "ln"

# (forks are slow on a loaded machine: few of them per check)
snap() {	# the state a run must leave as it found it
	# set_event lists every enabled event (events/*/enable included);
	# perf_event_max_sample_rate is left out: the kernel lowers it by itself
	grep -s -H . "$TR/current_tracer" "$TR/tracing_on" "$TR/set_event" "$TR/set_event_pid" \
		"$TR/buffer_size_kb" "$TR/tracing_thresh" "$TR/trace_clock" "$TR/tracing_cpumask" \
		"$TR/trace_options" /proc/sys/kernel/sched_rt_runtime_us \
		/proc/sys/kernel/sched_rt_period_us /proc/sys/kernel/timer_migration \
		/proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/perf_event_mlock_kb \
		"$D/dbg/powerpc/dtl/dtl_event_mask"
	[ -d "$TR/osnoise" ] && grep -s -r . "$TR/osnoise"
	ls "$TR/instances" 2>/dev/null
	# this shell, the commands' parent: affinity, nice, policy, RT priority
	awk '/^Cpus_allowed_list/ { print } FILENAME ~ /stat$/ { print "nice", $19, "policy", $41, "rtprio", $40 }' \
		/proc/$$/status /proc/$$/stat
}
holders() {	# "pid link" of every perf event and /dev/cpu_dma_latency descriptor
	find /proc/[0-9]*/fd \( -lname 'anon_inode:\[perf_event\]' -o -lname /dev/cpu_dma_latency \) \
		-printf '%h %l\n' 2>/dev/null | awk '{ split($1, a, "/"); print a[3], $2 }' | sort -u
}
ours() {	# is process $1 ours: the binary under test, or naming $TMP
	[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$BIN" ] ||
		{ tr '\0' ' ' < "/proc/$1/cmdline"; } 2>/dev/null | grep -qF "$TMP"
}
before=$(snap)	# before any run, the first one included
hold0=
check_clean() {	# check_clean WHAT: nothing of the run left behind
	sleep 0.1	# the kernel reaps a killed workload
	after=$(snap)
	[ "$before" = "$after" ] || die "$1: state changed: $(printf '%s\n' "$before" > "$TMP/s0";
		printf '%s\n' "$after" | diff "$TMP/s0" - | grep '^[<>]' | head -5)"
	# descriptors that appeared since the run started: none may be ours
	printf '%s\n' "$hold0" > "$TMP/h0"
	holders | comm -13 "$TMP/h0" - | while read -r hp hl; do
		ours "$hp" && echo "$hl held by $hp"
	done > "$TMP/h1"
	[ ! -s "$TMP/h1" ] || die "$1: $(cat "$TMP/h1")"
	# processes of ours: the binary under test, or a workload naming $TMP
	# (not a caller whose command line merely mentions the binary's path)
	left=$(pgrep -f -- "$BIN|$TMP" | while read -r p; do
		[ "$p" = $$ ] || ! ours "$p" || echo "$p $({ tr '\0' ' ' < "/proc/$p/cmdline"; } 2>/dev/null)"
	done)
	[ -z "$left" ] || die "$1: left running: $left"
	t=$(find "$TMP" -name '.*.tmp')
	[ -z "$t" ] || die "$1: temporary file left: $t"
	if [ -e "$TMP/probe.out" ]; then
		check_probe
		rm -f "$TMP/probe.out"
	fi
}

hold0=$(holders)
"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy >/dev/null 2>&1 || skip "no tracepoints here"
check_clean "hist record -d 1"

start() {	# start cmd...: in the background ($p), stdout to $OUT; waits until it measures
	hold0=$(holders)
	"$@" >"$OUT" 2>"$TMP/e" &
	p=$!
	case "$*" in
	*probe.sh*)	# its workload starts after the DTL is enabled
		i=0
		while [ ! -e "$TMP/probe.out" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done;;
	*dtl\ record*) ;;
	*)	# the osnoise workload or the hist timer threads: setup is over
		i=0
		while [ "$(ls "/proc/$p/task" 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 300 ]; do
			sleep 0.1; i=$((i + 1))
		done;;
	esac
	sleep 1	# (the signals come 2-3 s after the start: setup takes about 1 s)
}
OUT=$TMP/o
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
gone() {	# gone MS: $p ends within MS ms (else it is killed: no hanging test); $rc, $dt
	t0=$(now_ms)
	while kill -0 $p 2>/dev/null && [ "$(awk '/^State/ { print $2 }' "/proc/$p/status" 2>/dev/null)" != Z ]; do
		[ $(( $(now_ms) - t0 )) -le "$1" ] || break
		sleep 0.05
	done
	dt=$(( $(now_ms) - t0 ))
	if [ $dt -gt "$1" ]; then
		kill -KILL $p 2>/dev/null
		wait $p
		return 1
	fi
	wait $p 2>/dev/null; rc=$?	# (quiet: no "Quit" from the shell)
}
sig_pending() {	# is signal number $2 pending for process $1 (not yet taken)
	m=$(awk -v n="$2" '/^ShdPnd/ { print substr($2, length($2) - int((n - 1) / 4), 1) }' \
		"/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && [ $(( 0x$m & (1 << (($2 - 1) % 4)) )) -ne 0 ]
}

# stop CMD-LABEL SIG SUMMARY-REGEX cmd...: one signal, the summary, exit 0
stop() {
	what=$1 s=$2 re=$3; shift 3
	start "$@"
	kill -"$s" $p
	gone 10000 || die "$what: SIG$s: still running $dt ms later"
	[ $rc -eq 0 ] || die "$what: SIG$s: exit $rc ($(head -c 500 "$TMP/e"))"
	cat "$TMP/o" "$TMP/e" | grep -qE "$re" || die "$what: SIG$s: no summary ($(head -c 500 "$TMP/e"))"
	check_clean "$what SIG$s"
}

# The abort: stdout is a pipe that is full and never read, so the first
# stop cannot finish (its report blocks) and the second SIGINT always finds
# the command stopping.  (dtl record writes no report: its workload ignores
# SIGTERM instead, so the stop waits for it.)
mkfifo "$TMP/full" || die "mkfifo"
exec 3<>"$TMP/full"
dd if=/dev/zero of="$TMP/full" bs=4096 count=1024 oflag=nonblock 2>/dev/null
[ "$(dd if=/dev/zero of="$TMP/full" bs=1 count=1 oflag=nonblock 2>&1 >/dev/null | grep -c 'unavailable')" = 1 ] ||
	die "could not fill the pipe"
# abort CMD-LABEL cmd...: SIG$A1, then SIG$A2 0.3 s after the first was
# taken (both SIGINT unless said): gone within 3 s, killed by the second
# (status 128 + its number: 130 for SIGINT)
A1=INT A2=INT
abort() {
	what="$1: SIG$A2 after SIG$A1" n1=$(signum $A1) n2=$(signum $A2); shift
	case "$*" in *probe.sh*) OUT=$TMP/o;; *) OUT=$TMP/full;; esac
	start "$@"
	OUT=$TMP/o
	kill -$n1 $p
	i=0
	while sig_pending $p $n1 && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.3
	kill -$n2 $p
	gone 3000 || die "$what: still running $dt ms later"
	[ $rc -eq $((128 + n2)) ] || die "$what: exit $rc, not $((128 + n2)) ($(head -c 500 "$TMP/e"))"
	check_clean "$what"
}

# closed CMD-LABEL LIMIT-S ALSO cmd...: | head -1 is over within LIMIT-S
# seconds, quietly as perf: nothing on stderr besides lines matching ALSO
# (the command's own news, e.g. the file it wrote), ended by SIGPIPE (141)
LOSS='^latscope osnoise: .*\(events lost\|came with no event\|workload records lost\|skipped:\|corrupt ring data\|never delivered\|throttled sampling\)'
closed() {
	what=$1 lim=$2 also=$3; shift 3
	hold0=$(holders)
	t0=$(now_ms)
	{ timeout -s KILL $((lim + 20)) "$@" 2>"$TMP/e"; echo $? > "$TMP/closed.rc"; } | head -1 >/dev/null
	dt=$(( $(now_ms) - t0 ))
	rc=$(cat "$TMP/closed.rc")
	[ "$rc" = 141 ] || [ "$rc" = 0 ] || die "$what | head -1: exit $rc, not 141 (SIGPIPE) ($(head -c 300 "$TMP/e"))"
	[ $dt -le $((lim * 1000)) ] || die "$what | head -1: took $dt ms"
	# a run that ended before its reader's leaving was seen (the reader
	# took the first line of a complete report) names its losses, as any run
	grep -v -e "$also" -e "$LOSS" "$TMP/e" > "$TMP/e2"
	[ ! -s "$TMP/e2" ] || die "$what | head -1: not quiet: $(head -c 500 "$TMP/e")"
	check_clean "$what | head -1"
}

O="-c $cpu -p 200000 -r 100000"
OSN="Time-read loop:"
H="-c $cpu -t --no-keep-busy --types wakeup,timer"
HSUM="^events: [0-9]+ decoded"
for m in top hist trace record; do
	cmd="$LATSCOPE osnoise $m $O -d 30 -o $TMP/os.data"
	[ $m = record ] || cmd="$LATSCOPE osnoise $m $O -d 30"
	stop "osnoise $m" INT "$OSN" $cmd
	stop "osnoise $m" TERM "$OSN" $cmd
	abort "osnoise $m" $cmd
done
[ -s "$TMP/os.data" ] || die "osnoise record: no recording"
for m in record top; do
	cmd="$LATSCOPE hist $m $H -d 30 -o $TMP/h.data"
	stop "hist $m" INT "$HSUM" $cmd
	stop "hist $m" TERM "$HSUM" $cmd
	abort "hist $m" $cmd
done
"$LATSCOPE" hist report -i "$TMP/h.data" >/dev/null 2>&1 || die "the interrupted hist recording does not read back"

# dtl record: on its own, and with a workload (plain, then one that ignores
# SIGTERM so that only the abort ends it)
stop "dtl record" INT "CPUs via debugfs" $LATSCOPE $DTL -d 30 -o "$TMP/d.data"
stop "dtl record" TERM "CPUs via debugfs" $LATSCOPE $DTL -d 30 -o "$TMP/d.data"
"$LATSCOPE" dtl script --csv "$TMP/d.data" >/dev/null 2>&1 || die "the interrupted DTL recording does not read back"
sh "$TMP/probe.sh" once "$TMP/probe.base" </dev/null >"$TMP/o" 2>&1 &
wait $!
[ -s "$TMP/probe.base" ] || die "the probe did not run"
pbase=$TMP/probe.base	# what the workload run directly got
check_probe() {	# the workload inherited nothing of latscope's
	diff "$pbase" "$TMP/probe.out" >"$TMP/probe.diff" ||
		die "the workload inherited from latscope: $(grep '^[<>]' "$TMP/probe.diff" | head -5)"
}
stop "dtl record -- workload" INT "CPUs via debugfs" \
	$LATSCOPE $DTL -o "$TMP/d.data" -- sh "$TMP/probe.sh" plain "$TMP/probe.out" </dev/null
abort "dtl record -- stubborn workload" \
	$LATSCOPE $DTL -o "$TMP/d.data" -- sh "$TMP/probe.sh" stubborn "$TMP/probe.out" </dev/null

# | head -1: the streaming commands stop on their own; the others print at
# the end (osnoise hist writes more than a pipe holds)
closed "osnoise top" 10 "^$" $LATSCOPE osnoise top $O -d 30
closed "osnoise trace" 10 "^$" $LATSCOPE osnoise trace $O -d 30
closed "osnoise hist" 12 "^$" $LATSCOPE osnoise hist $O -d 1 -E 20000 --with-zeros
closed "osnoise record" 12 "^latscope osnoise record: wrote '$TMP/os.data'$" $LATSCOPE osnoise record $O -d 1 -o "$TMP/os.data"
closed "hist record" 10 "^$" $LATSCOPE hist record $H -d 30
closed "hist top" 10 "^$" $LATSCOPE hist top $H -d 30 --refresh 200ms
closed "dtl record" 10 "^$" $LATSCOPE $DTL -o "$TMP/d.data" -d 30 -- sh -c "echo started; exec $TMP/probe-sleep 30"

# ---- every stop signal -------------------------------------------------------
# Each stop signal (tests/tools/stopsigs: 22 named, SIGRTMIN..SIGRTMAX) sent
# to each live command would be ~50 x 7 runs of 1-2 s.  Instead: every
# command meets the trio SIGHUP, SIGQUIT, SIGUSR1 (each osnoise and hist
# mode), every other signal meets two commands: dtl record and an osnoise
# mode, every fifth one a hist mode instead of osnoise (hist runs are the
# slow ones); three runs go at a time, one per lane: an osnoise mode
# measuring CPU $cpu, a hist mode the other CPU, dtl record (one at a time:
# the DTL mask is one file).  After each batch: nothing left behind.
# osnoise runs with --no-attribution but for top's SIGHUP: this kernel
# takes ~40 ms a tracepoint to open or close a perf event (one after the
# other), ~2 s an osnoise run; the stop does not depend on them (SIGINT,
# SIGTERM, the aborts and | head -1 above run osnoise with them).
oc=0	# the other CPU (CPU 0 alone on a single CPU)
H2="-c $oc -t --no-keep-busy --types wakeup,timer"
OM="top hist trace record" HM="record top"
nth() {	# nth I WORD...: word I (from 0), round the list
	i=$1; shift; shift $(( i % $# )); echo "$1"
}
osnl= histl= dtll= no=0 nh=0 nd=0
add() {	# add LANE SIGNAL: the lane's next run, in its next mode
	case $1 in
	osn) osnl="$osnl $(nth $no $OM):$2"; no=$((no + 1));;
	hist) histl="$histl $(nth $nh $HM):$2"; nh=$((nh + 1));;
	dtl) dtll="$dtll record:$2"; nd=$((nd + 1));;
	esac
}
for s in HUP QUIT USR1; do
	for m in $OM; do add osn $s; done
	for m in $HM; do add hist $s; done
	add dtl $s
done
i=0
for s in $(awk '$1 != "HUP" && $1 != "QUIT" && $1 != "USR1" { print $1 }' "$TMP/sigs"); do
	if [ $((i % 5)) = 4 ]; then add hist $s; else add osn $s; fi
	add dtl $s
	i=$((i + 1))
done
lane_cmd() {	# lane_cmd LANE MODE SIGNAL: the command
	case $1 in
	osn) na=--no-attribution
	     [ $2$3 != topHUP ] || na=
	     if [ $2 = record ]; then echo "$LATSCOPE osnoise record $O $na -d 30 -o $TMP/os.data"
	     else echo "$LATSCOPE osnoise $2 $O $na -d 30"; fi;;
	hist) echo "$LATSCOPE hist $2 $H2 -d 30 -o $TMP/h.data";;
	dtl) echo "$LATSCOPE $DTL -d 30 -o $TMP/d.data";;
	esac
}
ready() {	# ready PID LANE: until it measures (osnoise locked its memory right
	# before its loop, hist started its timer threads, dtl record set the mask)
	i=0
	while kill -0 $1 2>/dev/null && [ $i -lt 600 ]; do
		case $2 in
		osn) awk 'BEGIN { r = 1 } /^VmLck/ { r = !($2 > 0) } END { exit r }' "/proc/$1/status" && break;;
		hist) [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -ge 2 ] && break;;
		dtl) [ "$(cat "$D/dbg/powerpc/dtl/dtl_event_mask")" = 0x02 ] && break;;
		esac
		sleep 0.05; i=$((i + 1))
	done
}
word() {	# word I WORD...: word I (from 1), "-" past the end
	i=$1; shift
	if [ $i -le $# ]; then shift $((i - 1)); echo "$1"; else echo -; fi
}
batch() {	# batch OSN HIST DTL (MODE:SIGNAL or -): one run per lane at a time
	hold0=$(holders)
	label=
	for l in osn hist dtl; do
		case $l in osn) r=$1;; hist) r=$2;; dtl) r=$3;; esac
		eval "p_$l= r_$l=$r"
		[ "$r" = - ] && continue
		$(lane_cmd $l ${r%%:*} ${r#*:}) >"$TMP/o.$l" 2>"$TMP/e.$l" &
		eval "p_$l=\$!"
		label="$label, $l ${r%%:*} SIG${r#*:}"
	done
	for l in osn hist dtl; do
		eval "p=\$p_$l"
		[ -z "$p" ] || ready $p $l
	done
	sleep 0.2
	for l in osn hist dtl; do
		eval "p=\$p_$l r=\$r_$l"
		[ -z "$p" ] || kill -$(signum ${r#*:}) $p
	done
	for l in osn hist dtl; do
		eval "p=\$p_$l r=\$r_$l"
		[ -n "$p" ] || continue
		what="$l ${r%%:*} SIG${r#*:}"
		gone 10000 || die "$what: still running $dt ms later"
		[ $rc -eq 0 ] || die "$what: exit $rc ($(head -c 500 "$TMP/e.$l"))"
		case $l in osn) re=$OSN;; hist) re=$HSUM;; dtl) re="CPUs via debugfs";; esac
		cat "$TMP/o.$l" "$TMP/e.$l" | grep -qE "$re" || die "$what: no summary ($(head -c 500 "$TMP/e.$l"))"
	done
	check_clean "${label#, }"
}
b=1
while :; do
	a=$(word $b $osnl) h=$(word $b $histl) d=$(word $b $dtll)
	[ "$a$h$d" != --- ] || break
	batch $a $h $d
	b=$((b + 1))
done
[ $((no + nh + nd)) -ge $(( 2 * $(wc -l < "$TMP/sigs") + 15 )) ] || die "only $((no + nh + nd)) runs"

# A second signal of another kind aborts, killed by that one; a fault
# signal sent by another process counts as any other (SIGSEGV below).
A1=HUP A2=RTMIN+1
abort "osnoise trace" $LATSCOPE osnoise trace $O -d 30
A1=USR2 A2=QUIT
abort "hist top" $LATSCOPE hist top $H -d 30 -o "$TMP/h.data"
A1=PWR A2=SEGV
abort "dtl record -- stubborn workload" \
	$LATSCOPE $DTL -o "$TMP/d.data" -- sh "$TMP/probe.sh" stubborn "$TMP/probe.out" </dev/null
A1=INT A2=INT

# Started with SIGHUP ignored (nohup): it stays ignored, in the workload too.
sh -c 'trap "" HUP; exec sh "$0" once "$1"' "$TMP/probe.sh" "$TMP/probe.base.hup" </dev/null >"$TMP/o" 2>&1 &
wait $!
pbase=$TMP/probe.base.hup
start sh -c 'trap "" HUP; exec "$0" "$@"' $LATSCOPE $DTL -o "$TMP/d.data" -- \
	sh "$TMP/probe.sh" plain "$TMP/probe.out" </dev/null
kill -HUP $p
sleep 0.5
kill -0 $p 2>/dev/null && [ "$(awk '/^State/ { print $2 }' "/proc/$p/status")" != Z ] ||
	die "dtl record started with SIGHUP ignored: SIGHUP ended it"
kill -USR1 $p
gone 10000 || die "dtl record (SIGHUP ignored): SIGUSR1: still running $dt ms later"
[ $rc -eq 0 ] && grep -q "CPUs via debugfs" "$TMP/e" || die "dtl record (SIGHUP ignored): SIGUSR1: exit $rc ($(head -c 500 "$TMP/e"))"
check_clean "dtl record (SIGHUP ignored) -- workload"
pbase=$TMP/probe.base

# ---- the reader of standard output leaves ------------------------------------
# 1 s after the command measures, without having read a byte: over within
# 1 s of that, quietly: nothing on stderr, ended by SIGPIPE (exit 141)
# (osnoise --json, osnoise hist and hist --json write nothing before the
# end: only the watch of stdout can see the reader go).  Four at a time:
# osnoise on each CPU, a hist mode, dtl record.  osnoise without its perf
# events: closing them takes this kernel ~0.8 s (see above), after the stop.
left_go() {	# left_go LANE KIND cmd...: in the background
	l=$1 k=$2; shift 2
	rm -f "$TMP/go.$l" "$TMP/pid.$l"
	{ "$@" 2>"$TMP/e.$l" & echo $! > "$TMP/pid.$l"; wait $!; echo $? > "$TMP/rc.$l"; now_ms > "$TMP/t1.$l"; } |
		{ while [ ! -e "$TMP/go.$l" ]; do sleep 0.05; done; sleep 1; now_ms > "$TMP/t0.$l"; } &
	i=0
	while [ ! -s "$TMP/pid.$l" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	eval "k_$l=$k"
}
left_check() {	# left_check LANE WHAT ALSO (stderr lines matching ALSO are the command's news)
	l=$1 what=$2 also=$3
	dt=$(( $(cat "$TMP/t1.$l") - $(cat "$TMP/t0.$l") ))
	[ $dt -le 1000 ] || die "$what: still running $dt ms after its reader left"
	rc=$(cat "$TMP/rc.$l")
	[ "$rc" = 141 ] || die "$what: its reader left: exit $rc, not 141 ($(head -c 500 "$TMP/e.$l"))"
	grep -v -e "$also" "$TMP/e.$l" > "$TMP/e2"
	[ ! -s "$TMP/e2" ] || die "$what: its reader left: not quiet: $(head -c 500 "$TMP/e.$l")"
}
left() {	# left "LANE KIND cmd" ...: start them all, then let each reader go when its command measures
	hold0=$(holders)
	label=
	for c in "$@"; do
		left_go $c
		x=${c#* * }
		label="$label, ${x#"$LATSCOPE "}"
	done
	for c in "$@"; do
		set -- $c
		ready "$(cat "$TMP/pid.$1")" $2
		touch "$TMP/go.$1"
	done
	wait
	check_clean "the readers of${label#,} left"
}
OSA="$O --no-attribution -d 30" OSB="-c $oc -p 200000 -r 100000 --no-attribution -d 30"
left "a osn $LATSCOPE osnoise top $OSA" "b osn $LATSCOPE osnoise top --json $OSB" \
	"h hist $LATSCOPE hist record $H2 -d 30" "d dtl $LATSCOPE $DTL -o $TMP/d.data -d 30"
left_check a "osnoise top" "^$"
left_check b "osnoise top --json" "^$"
left_check h "hist record" "^$"
left_check d "dtl record" "^$"
left "a osn $LATSCOPE osnoise hist $OSA" "b osn $LATSCOPE osnoise hist --json $OSB" \
	"h hist $LATSCOPE hist record --json $H2 -d 30"
left_check a "osnoise hist" "^$"
left_check b "osnoise hist --json" "^$"
left_check h "hist record --json" "^$"
left "a osn $LATSCOPE osnoise trace $OSA" "b osn $LATSCOPE osnoise trace --json $OSB" \
	"h hist $LATSCOPE hist top $H2 -d 30"
left_check a "osnoise trace" "^$"
left_check b "osnoise trace --json" "^$"
left_check h "hist top" "^$"
# (and with 5 s periods: the stop wakes the workload between two windows)
left "a osn $LATSCOPE osnoise record $OSA -o $TMP/os.data" "h hist $LATSCOPE hist top --json $H2 -d 30" \
	"b osn $LATSCOPE osnoise top -c $oc -p 5000000 -r 100000 --no-attribution -d 30"
left_check a "osnoise record" "^latscope osnoise record: wrote '$TMP/os.data'$"
left_check h "hist top --json" "^$"
left_check b "osnoise top, 5 s periods" "^$"
echo "ok: every stop signal (a second one: the abort), | head -1 and a reader that leaves end every live command cleanly, nothing left behind"
