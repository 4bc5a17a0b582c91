# SPDX-License-Identifier: MIT
# Helpers for the guest tests (busybox sh): . "$KTEST_DIR/guest/lib.sh".
#
# A guest test is tests/kernels/guest/NAME.sh, run by the guest's /init
# (tests/kernels/init.sh) in /tmp with LATSCOPE, TRACEFS, KERNEL (the
# kernel's name in kernels.list) and ART (a directory the host gets back as
# the test's artefacts; tests/kernels/host/NAME.sh checks them there).
# Exit 0 = pass, 77 = skip (last line: why), anything else = fail.
#
# Header lines, read by the host and by /init:
#   # needs: WORD...     what the test needs: config:X (CONFIG_X=y or m),
#                        tracer:X (in available_tracers), event:SYS/NAME,
#                        file:PATH, pmu:NAME (a perf PMU), cmd:NAME (the host copies the command
#                        and the libraries ldd names into the guest);
#                        tool:NAME (the host copies tests/tools/NAME from
#                        beside LATSCOPE), e2e:NAME (the host copies
#                        tests/e2e/NAME.sh to /ktest/e2e/ and tests/lib.sh to
#                        /ktest/lib.sh: run it with TESTS_DIR=/ktest),
#                        bench:NAME (bench/NAME.sh and bench/*.inc to
#                        /ktest/bench/);
#                        a kernel without one skips the test with the reason
#   # timeout: SECONDS   the guest kills the test after that (default 60)
set -u
skip() { echo "skip: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

# kt_header FILE KEY: the words of FILE's "# KEY:" line.
kt_header() {
	sed -n "s/^# $2: *//p" "$1" | head -1
}

# kt_has WORD: true when the running kernel has WORD (a `needs` word);
# otherwise prints why not.
kt_has() {
	case $1 in
	config:*)
		grep -q "^CONFIG_${1#config:}=[ym]" /ktest/kconfig && return 0
		echo "the kernel has no CONFIG_${1#config:}";;
	tracer:*)
		grep -qw "${1#tracer:}" "$TRACEFS/available_tracers" && return 0
		echo "no ${1#tracer:} tracer (the kernel has: $(cat "$TRACEFS/available_tracers"))";;
	event:*)
		[ -d "$TRACEFS/events/${1#event:}" ] && return 0
		echo "no ${1#event:} event";;
	file:*)
		[ -e "${1#file:}" ] && return 0
		echo "no ${1#file:}";;
	pmu:*)	# a perf PMU (tests/power: vpa_dtl)
		[ -d "/sys/bus/event_source/devices/${1#pmu:}" ] && return 0
		echo "no ${1#pmu:} PMU (the kernel has: $(ls /sys/bus/event_source/devices | tr '\n' ' '))";;
	cmd:*|tool:*)
		command -v "${1#*:}" >/dev/null && return 0
		echo "no ${1#*:} in the guest";;
	e2e:*|bench:*)	# /ktest/e2e/NAME.sh, /ktest/bench/NAME.sh
		[ -f "/ktest/${1%%:*}/${1#*:}.sh" ] && return 0
		echo "no /ktest/${1%%:*}/${1#*:}.sh in the guest";;
	*)
		echo "unknown need '$1'";;
	esac
	return 1
}

# dtl_outputs NAME: of the DTL recording $ART/NAME.data, dtl report's text
# (NAME.report) and JSON (NAME.json), --strict's exit (NAME.strict) and dtl
# script --csv (NAME.csv), as the POWER tier's host checks read them
dtl_outputs() {
	latscope dtl report --json="$ART/$1.json" "$ART/$1.data" > "$ART/$1.report" 2>&1 ||
		die "$1: dtl report failed: $(tail -3 "$ART/$1.report")"
	latscope dtl report --strict "$ART/$1.data" > /dev/null 2>&1
	echo $? > "$ART/$1.strict"
	latscope dtl script --csv -i "$ART/$1.data" > "$ART/$1.csv" 2> "$ART/$1.csv.err" ||
		die "$1: dtl script --csv failed: $(cat "$ART/$1.csv.err")"
}

# kt_measuring PID OUT ERR WHAT SECONDS: wait until the latscope hist record
# of PID says on its standard output (the file OUT) that it measures; die
# naming WHAT, with ERR's tail, when it ends first or after SECONDS
kt_measuring() {
	km_i=0
	until grep -qs '^# latscope hist record: measuring' "$2"; do
		kill -0 "$1" 2>/dev/null || die "$4 stopped before measuring: $(tail -3 "$3")"
		km_i=$((km_i + 1))
		[ $km_i -lt $(($5 * 5)) ] || die "$4 did not start measuring in $5 s"
		sleep 0.2
	done
}

# refused NAME PATTERN LINES CMD...: CMD must exit 2 with PATTERN on its
# stderr ($ART/NAME.err), in one line when LINES is 1 (the refusal tests)
refused() {
	n=$1 pat=$2 lines=$3
	shift 3
	"$@" > "$ART/$n.out" 2> "$ART/$n.err"
	rc=$?
	[ $rc = 2 ] || die "$n: exit $rc, not 2: $(cat "$ART/$n.err")"
	grep -q "$pat" "$ART/$n.err" || die "$n: no '$pat' in: $(cat "$ART/$n.err")"
	[ "$lines" != 1 ] || [ "$(grep -c . "$ART/$n.err")" = 1 ] ||
		die "$n: more than one line: $(cat "$ART/$n.err")"
	echo "$n: exit 2: $(grep -m1 "$pat" "$ART/$n.err")"
}

# stall_reader PID TRACER: once latscope's instance (latscope_osnoise) runs
# TRACER, stop the reader PID for 2 s (SIGSTOP) so that its small ring
# overruns, then let it go on and wait for it; its exit status is returned
stall_reader() {
	i=0
	until [ "$(cat "$TRACEFS/instances/latscope_osnoise/current_tracer" 2>/dev/null)" = "$2" ] ||
		[ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 100 ] || echo "latscope's instance never ran $2 (10 s)"
	sleep 1
	kill -STOP "$1"
	sleep 2
	kill -CONT "$1"
	wait "$1"
}

# truth_start: the instance $T (set by the test) running timerlat as the
# truth, 16 MiB a CPU (the whole test's records fit, nothing is read until
# the end); a truth a failed test left behind goes first
truth_start() {
	[ ! -d "$T" ] || { echo nop > "$T/current_tracer"; rmdir "$T"; }
	mkdir "$T" || die "cannot create the truth instance"
	echo 16384 > "$T/buffer_size_kb" || die "cannot size the truth's buffer"
	echo timerlat > "$T/current_tracer" || die "cannot start the timerlat tracer in the truth"
	sleep 1
}
# truth_stop: its ring stopped, its stats and trace into $ART/truth.stats and
# $ART/truth.txt, the instance removed
truth_stop() {
	echo 0 > "$T/tracing_on"
	cat "$T"/per_cpu/cpu*/stats > "$ART/truth.stats"
	cat "$T/trace" > "$ART/truth.txt"
	echo nop > "$T/current_tracer"
	rmdir "$T"
	echo "truth: $(grep -c 'timer_latency' "$ART/truth.txt") records"
}
