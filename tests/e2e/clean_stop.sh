#!/bin/sh
# Clean stops of every live command (osnoise top|hist|trace|record, hist
# record|top, dtl record against a fake debugfs tree):
#  - SIGINT, and SIGTERM, during the measurement: the summary, exit 0;
#  - a second SIGINT while it stops: the abort, gone within 3 s, killed by
#    SIGINT (exit status 130), its temporary output file removed, its
#    workload (dtl record -- CMD, even one that ignores SIGTERM) killed;
#  - | head -1: over within a few seconds, stderr at most the one line
#    "standard output was closed";
#  - after every run nothing is left behind: tracefs (enabled events, tracer,
#    tracing_on, set_event, instances, options, buffer size, thresh), the
#    /proc/sys/kernel knobs, the DTL event mask, this shell's affinity, nice
#    and policy are as before; no process of ours (the binary, anything
#    naming $TMP) is alive or holds a perf event or /dev/cpu_dma_latency; no
#    ".*.tmp" file.  The workload of dtl record inherits no descriptor, signal
#    mask, affinity or priority of latscope's (compared with the same
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

# The workload of dtl record: what it inherited, then sleep (ignoring
# SIGTERM when $1 = stubborn).  Descriptors 0-2 are the caller's.
cat > "$TMP/probe.sh" <<'EOF'
ls -l /proc/$$/fd > "$2.fds"	# (the redirection is ls's, not ours)
awk 'NR > 1 { print "fd", $9, ($9 <= 2 ? "" : $11) }' "$2.fds" > "$2.part"
# the shell's own mask, read by the shell itself: a grep child would race with
# dash, which blocks every signal for a moment around its wait for that child
while IFS= read -r l; do
	case $l in SigBlk:*|Cpus_allowed_list:*) echo "$l" ;; esac
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
	wait $p; rc=$?
}
sig_pending() {	# is signal number $2 pending for process $1 (not yet taken)
	m=$(awk '/^ShdPnd/ { print substr($2, length($2) - 3) }' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && [ $(( 0x$m & (1 << ($2 - 1)) )) -ne 0 ]
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
# abort CMD-LABEL cmd...: SIGINT, then a second one 0.3 s after the first was
# taken: gone within 3 s, killed by SIGINT (status 130)
abort() {
	what=$1; shift
	case "$*" in *probe.sh*) OUT=$TMP/o;; *) OUT=$TMP/full;; esac
	start "$@"
	OUT=$TMP/o
	kill -INT $p
	i=0
	while sig_pending $p 2 && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.3
	kill -INT $p
	gone 3000 || die "$what: second SIGINT: still running $dt ms later"
	[ $rc -eq 130 ] || die "$what: second SIGINT: exit $rc, not 130 ($(head -c 500 "$TMP/e"))"
	check_clean "$what: the second SIGINT"
}

# closed CMD-LABEL LIMIT-S ALSO cmd...: | head -1 is over within LIMIT-S
# seconds, quietly: on stderr the one line at most, besides lines matching
# ALSO (the command's own news, e.g. the file it wrote)
closed() {
	what=$1 lim=$2 also=$3; shift 3
	hold0=$(holders)
	t0=$(now_ms)
	timeout -s KILL $((lim + 20)) "$@" 2>"$TMP/e" | head -1 >/dev/null
	dt=$(( $(now_ms) - t0 ))
	[ $dt -le $((lim * 1000)) ] || die "$what | head -1: took $dt ms"
	grep -v -e "$also" "$TMP/e" > "$TMP/e2"
	[ "$(grep -vc "standard output was closed" "$TMP/e2")" -eq 0 ] && [ "$(wc -l < "$TMP/e2")" -le 1 ] ||
		die "$what | head -1: $(head -c 500 "$TMP/e")"
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
check_probe() {	# the workload inherited nothing of latscope's
	diff "$TMP/probe.base" "$TMP/probe.out" >"$TMP/probe.diff" ||
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
echo "ok: SIGINT, SIGTERM, a second SIGINT and | head -1 end every live command cleanly, nothing left behind"
