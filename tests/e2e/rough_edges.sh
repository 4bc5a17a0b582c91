#!/bin/sh
# SPDX-License-Identifier: MIT
# The rough edges a new user hit (issue "one output contract"), one named
# case each; every case failed before its fix.  Runs the real binary against
# this machine's kernel (root: tracepoints, the busy loop, nice).
. "$TESTS_DIR/lib.sh"
REC=$TESTS_DIR/data/rec/sched-irq-timer.perf.data
ok() { echo "ok: $*"; }
thread_nice() {	# thread_nice PID COMM: the nice value of PID's thread named COMM
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { awk '{ print $19 }' "$t/stat"; return 0; }
	done
	return 1
}
wait_thread() {	# wait_thread PID COMM: up to 10 s for the thread to exist
	i=0
	until thread_nice "$1" "$2" >/dev/null; do
		i=$((i + 1)); [ $i -lt 200 ] || return 1; sleep 0.05
	done
}

# --- pipe_quiet: a reader that leaves ends the run quietly, as perf does -----
edge_pipe_quiet() {
	"$LATSCOPE" dtl synth -q -o "$TMP/big.data" --cpus 8 -d 5s || die "pipe_quiet: dtl synth"
	for c in "script -i $TMP/big.data" "dtl script $TMP/big.data" "dtl script --csv $TMP/big.data"; do
		{ "$LATSCOPE" $c 2>"$TMP/err"; echo $? > "$TMP/rc"; } | head -1 >/dev/null
		[ "$(cat "$TMP/rc")" = 141 ] && [ ! -s "$TMP/err" ] ||
			die "pipe_quiet: $c | head -1: exit $(cat "$TMP/rc"), stderr: $(cat "$TMP/err")"
	done
	# no data lost before the reader left: the lines it read are perf's first lines
	"$LATSCOPE" script -i "$TMP/big.data" 2>/dev/null | head -50 > "$TMP/h50"
	"$LATSCOPE" script -i "$TMP/big.data" > "$TMP/all" 2>/dev/null
	head -50 "$TMP/all" | cmp -s - "$TMP/h50" || die "pipe_quiet: the first 50 lines differ"
	ok "pipe_quiet: script, dtl script | head -1: exit 141, nothing on stderr"
}

# --- dtl_report_no_dtl: the DTL check comes before the report ----------------
edge_dtl_report_no_dtl() {
	for j in "" --json; do
		"$LATSCOPE" dtl report $j "$REC" > "$TMP/out" 2> "$TMP/err"; rc=$?
		[ $rc -eq 2 ] || die "dtl_report_no_dtl: exit $rc"
		[ ! -s "$TMP/out" ] || die "dtl_report_no_dtl: $j printed a report before refusing: $(head -3 "$TMP/out")"
		grep -q "has no DTL entries" "$TMP/err" || die "dtl_report_no_dtl: $(cat "$TMP/err")"
	done
	ok "dtl_report_no_dtl: exit 2, nothing on stdout, the refusal on stderr"
}

# --- path_once: a file that cannot be opened is named once -------------------
edge_path_once() {
	f=$TMP/nonexistent.data
	for c in "dtl dump|$f" "dtl script|$f" "dtl report|$f" "script|-i $f" "hist report|-i $f" \
		 "osnoise top|-i $f"; do
		cmd=${c%%|*} arg=${c#*|}
		"$LATSCOPE" $cmd $arg >/dev/null 2>"$TMP/err"; rc=$?
		prog="latscope $cmd"
		case $cmd in osnoise*) prog="latscope osnoise";; esac
		[ $rc -eq 2 ] && [ "$(head -1 "$TMP/err")" = "$prog: $f: No such file or directory" ] ||
			die "path_once: $cmd: exit $rc: $(cat "$TMP/err")"
	done
	ok "path_once: six readers say '<command>: FILE: No such file or directory'"
}

# --- conflicting_modes: contradictory options are refused with one line ------
edge_conflicting_modes() {
	for o in "--wide --csv" "--json --csv" "--csv --wide"; do
		"$LATSCOPE" dtl script $o "$REC" >"$TMP/out" 2>"$TMP/err"; rc=$?
		[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
			grep -q "cannot be used together" "$TMP/err" || die "conflicting_modes: dtl script $o: exit $rc: $(cat "$TMP/err")"
	done
	for c in "hist record --keep-busy --no-keep-busy -d 1" "dtl script --dtl-only --samples-only $REC" \
		 "hist report -i $REC --all-tasks --pid 5" "hist record --pid 5 --all-tasks -d 1" \
		 "osnoise top --no-workload --tsc -c 0 -d 1" "script -i $REC --json -F comm" \
		 "monitor --all-tasks --pid 3"; do
		"$LATSCOPE" $c >"$TMP/out" 2>"$TMP/err"; rc=$?
		[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
			grep -q "cannot be used together" "$TMP/err" || die "conflicting_modes: $c: exit $rc: $(cat "$TMP/err")"
	done
	# a recording on the standard output that carries the report
	for c in "hist record -d 1 -o -" "hist top -d 1 -o -" "hist record -d 1 --trace=-" "osnoise record -d 1 -o -" \
		 "osnoise top -d 1 --trace=-"; do
		"$LATSCOPE" $c >"$TMP/out" 2>"$TMP/err"; rc=$?
		[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
			grep -q "standard output carries the report" "$TMP/err" || die "conflicting_modes: $c: exit $rc: $(cat "$TMP/err")"
	done
	ok "conflicting_modes: --wide/--csv/--json, --keep-busy/--no-keep-busy, --dtl-only/--samples-only, --all-tasks/--pid, --no-workload/--tsc, --json/-F, -o - beside the report refused"
}

# --- nice_zero and thread_names: -P o:0 sets nice 0; the workloads' names ----
edge_nice_zero() {
	[ "$(id -u)" = 0 ] || { echo "skip: nice_zero: not root"; return 0; }
	for p in "o:0|0" "|7"; do
		P=${p%|*} want=${p#*|}
		nice -n 7 "$LATSCOPE" osnoise top -c 0 -d 3 -p 200000 ${P:+-P $P} >/dev/null 2>&1 &
		pid=$!
		wait_thread $pid ls-osnoise/0 || die "thread_names: no ls-osnoise/0 thread"
		n=$(thread_nice $pid ls-osnoise/0)
		wait $pid
		[ "$n" = "$want" ] || die "nice_zero: osnoise ${P:+-P $P} under nice 7: the loop's nice is $n, not $want"
	done
	nice -n 7 "$LATSCOPE" hist record --timer-workload -c 0 -d 3 -P o:0 --no-keep-busy >/dev/null 2>&1 &
	pid=$!
	wait_thread $pid ls-timer/0 || die "thread_names: no ls-timer/0 thread"
	n=$(thread_nice $pid ls-timer/0)
	wait $pid
	[ "$n" = 0 ] || die "nice_zero: hist -P o:0 under nice 7: the timer thread's nice is $n"
	ok "nice_zero: -P o:0 gives nice 0 under nice 7 (none given: 7); threads ls-osnoise/0, ls-timer/0"
}

# --- clipped_percentiles: a percentile past -E is a bound, and says so -------
edge_clipped_percentiles() {
	[ "$(id -u)" = 0 ] || { echo "skip: clipped_percentiles: not root"; return 0; }
	# 200 us of noise every 10 ms on CPU 1: over 1 % of the gaps lie past 10 us
	"$TOOLS/noisegen" thread -c 1 -i 10000 -s 200 -d 4 >/dev/null &
	ng=$!
	"$LATSCOPE" osnoise hist -c 1 -d 2 -p 200000 -E 10 -T 5 > "$TMP/h" 2>/dev/null || die "clipped_percentiles: osnoise hist"
	wait $ng
	over=$(awk '$1 == "over:" { print $2 }' "$TMP/h")
	[ "${over:-0}" -gt 0 ] || die "clipped_percentiles: no gap past 10 us: $(cat "$TMP/h")"
	[ "$(awk '$1 == "p99:" { print $2 }' "$TMP/h")" = ">10" ] ||
		die "clipped_percentiles: p99 not shown as >10: $(grep '^p99' "$TMP/h")"
	grep -q "^# a percentile shown as >10 lies past the last bucket" "$TMP/h" ||
		die "clipped_percentiles: no note: $(tail -5 "$TMP/h")"
	# the JSON of the same recording names the clipped percentiles
	"$TOOLS/noisegen" thread -c 1 -i 10000 -s 200 -d 3 >/dev/null &
	ng=$!
	"$LATSCOPE" osnoise record -c 1 -d 2 -p 200000 -T 5 -o "$TMP/n.data" >/dev/null 2>&1 || die "clipped_percentiles: record"
	wait $ng
	"$LATSCOPE" osnoise hist -i "$TMP/n.data" -E 10 --json > "$TMP/h.json" 2>/dev/null || die "clipped_percentiles: hist --json"
	cl=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["cpus"][0]["hist"]["clipped"]))' "$TMP/h.json")
	case " $cl " in *" p99_ns "*) ;; *) die "clipped_percentiles: JSON clipped = '$cl'";; esac
	ok "clipped_percentiles: p99 >10 with the note ($over gaps over 10 us); JSON clipped: $cl"
}

# --- early_stop_figures: no 0.0 ns/iteration for a run stopped at once ------
edge_early_stop_figures() {
	[ "$(id -u)" = 0 ] || { echo "skip: early_stop_figures: not root"; return 0; }
	"$LATSCOPE" osnoise trace -c 0 -s 1 -d 5 -p 1000000 > "$TMP/t" 2>&1
	grep -q "hit stop tracing" "$TMP/t" || die "early_stop_figures: no stop: $(tail -3 "$TMP/t")"
	grep "^Time-read loop" "$TMP/t" > "$TMP/tl"
	! grep -q "0.0 ns/iteration\|smallest gap 0 ns" "$TMP/tl" || die "early_stop_figures: $(cat "$TMP/tl")"
	ok "early_stop_figures: $(cat "$TMP/tl")"
}

# --- one_percentile_format: hist -t prints a percentile one way --------------
edge_one_percentile_format() {
	[ "$(id -u)" = 0 ] || { echo "skip: one_percentile_format: not root"; return 0; }
	"$LATSCOPE" hist record -t -c 1 -d 2 > "$TMP/t" 2>/dev/null || die "one_percentile_format: hist record -t"
	# the own table's p99 = the workload row's p99; the timerandwakeup table's
	# p50/p99 (CPU1 column) = the kernel timerandwakeup row's
	own=$(awk '/^timer workload/ { f = 1; next } f && $1 == "1" { print $6; exit }' "$TMP/t")
	row=$(awk '$2 == "workload" && $3 == "(own)" { print $8; exit }' "$TMP/t")
	[ -n "$own" ] && [ "$own" = "$row" ] || die "one_percentile_format: own p99 '$own' vs '$row'"
	tw=$(awk '/^timerandwakeup \(us\)/ { f = 1; next } f && $1 == "p50" { a = $2 } f && $1 == "p99" { print a, $2; exit }' "$TMP/t")
	kr=$(awk '$2 == "kernel" && $3 == "timerandwakeup" { print $7, $8; exit }' "$TMP/t")
	[ -n "$tw" ] && [ "$tw" = "$kr" ] || die "one_percentile_format: timerandwakeup p50 p99 '$tw' vs '$kr'"
	ok "one_percentile_format: p99 $own both tables; timerandwakeup p50/p99 $tw both tables"
}

# --- one_line_preemptirq: the three preemptirq kinds share one line ----------
edge_one_line_preemptirq() {
	"$LATSCOPE" hist report -i "$REC" > /dev/null 2> "$TMP/err" || die "one_line_preemptirq: hist report"
	n=$(grep -c "not reported: needs preemptirq" "$TMP/err")
	[ "$n" -eq 1 ] && grep -q "irqsoff, preemptoff and preemptirqsoff not reported" "$TMP/err" ||
		die "one_line_preemptirq: $n lines: $(cat "$TMP/err")"
	ok "one_line_preemptirq: one line for irqsoff, preemptoff and preemptirqsoff"
}

# --- rt_only_note: hist report says that only RT tasks count -----------------
edge_rt_only_note() {
	"$LATSCOPE" hist report -i "$REC" > "$TMP/r" 2>/dev/null || die "rt_only_note: hist report"
	grep -q "real-time tasks only (as latency_hist): [0-9]* wakeups of other tasks not measured; --all-tasks" "$TMP/r" ||
		die "rt_only_note: no note: $(head -20 "$TMP/r")"
	said=$(grep -o '[0-9]* wakeups of other tasks' "$TMP/r")
	"$LATSCOPE" hist report -i "$REC" --all-tasks > "$TMP/r" 2>/dev/null || die "rt_only_note: --all-tasks"
	! grep -q "real-time tasks only" "$TMP/r" || die "rt_only_note: note with --all-tasks"
	ok "rt_only_note: '$said not measured' said, gone with --all-tasks"
}

# --- dtl_total_labelled: the total's span is the vCPUs' spans added ----------
edge_dtl_total_labelled() {
	"$LATSCOPE" dtl synth -q -o "$TMP/s.data" --cpus 4 -d 3s || die "dtl_total_labelled: synth"
	"$LATSCOPE" dtl report "$TMP/s.data" > "$TMP/r" 2>/dev/null || die "dtl_total_labelled: report"
	grep -q "^Total: [0-9]* dispatches in [0-9.]* vCPU-seconds (4 vCPUs' spans added), [0-9.]* /s per vCPU$" "$TMP/r" ||
		die "dtl_total_labelled: $(grep '^Total' "$TMP/r")"
	grep -q "^CPU 0: [0-9]* dispatches in 2\.[0-9]* s, " "$TMP/r" || die "dtl_total_labelled: $(grep '^CPU 0' "$TMP/r")"
	ok "dtl_total_labelled: $(grep '^Total' "$TMP/r")"
}

# --- osnoise_record_names: no sample at time 0, no :PID -----------------------
edge_osnoise_record_names() {
	[ "$(id -u)" = 0 ] || { echo "skip: osnoise_record_names: not root"; return 0; }
	command -v perf >/dev/null || { echo "skip: osnoise_record_names: no perf"; return 0; }
	"$LATSCOPE" osnoise record -c 0 -d 1 -p 200000 -o "$TMP/o.data" >/dev/null 2>&1 || die "osnoise_record_names: record"
	perf script -i "$TMP/o.data" 2>/dev/null | grep "osnoise_workload" > "$TMP/w"
	[ -s "$TMP/w" ] || die "osnoise_record_names: no workload samples"
	! grep -q " 0\.000000:" "$TMP/w" || die "osnoise_record_names: a sample at time 0: $(grep ' 0\.000000:' "$TMP/w" | head -1)"
	! grep -q "^ *:[0-9]" "$TMP/w" || die "osnoise_record_names: unnamed: $(grep '^ *:[0-9]' "$TMP/w" | head -1)"
	head -1 "$TMP/w" | grep -q "^ *ls-osnoise/0 " || die "osnoise_record_names: first: $(head -1 "$TMP/w")"
	"$LATSCOPE" osnoise top -i "$TMP/o.data" > "$TMP/top" 2>&1 || die "osnoise_record_names: replay: $(cat "$TMP/top")"
	ok "osnoise_record_names: $(wc -l < "$TMP/w") workload samples named ls-osnoise/0, none at time 0; replay reads it"
}

# --- no_workload_replay: --no-workload -i reads any perf.data with switches --
edge_no_workload_replay() {
	"$LATSCOPE" osnoise top --no-workload -i "$REC" > "$TMP/t" 2>"$TMP/err" || die "no_workload_replay: $(cat "$TMP/err")"
	grep -q "Task and IRQ execution time" "$TMP/t" && awk '$2 ~ /^#[0-9]/ { n++ } END { exit n == 0 }' "$TMP/t" ||
		die "no_workload_replay: no periods: $(head "$TMP/t")"
	"$LATSCOPE" osnoise top -i "$REC" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "with --no-workload any recording with sched:sched_switch" "$TMP/err" ||
		die "no_workload_replay: without --no-workload: exit $rc: $(cat "$TMP/err")"
	ok "no_workload_replay: a perf record file replays with --no-workload; without it the refusal names it"
}

edge_pipe_quiet
edge_dtl_report_no_dtl
edge_path_once
edge_conflicting_modes
edge_nice_zero
edge_clipped_percentiles
edge_early_stop_figures
edge_one_percentile_format
edge_one_line_preemptirq
edge_rt_only_note
edge_dtl_total_labelled
edge_osnoise_record_names
edge_no_workload_replay
