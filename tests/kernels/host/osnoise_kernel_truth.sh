#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest's runs of the kernel osnoise path (tests/kernels/guest/
# osnoise_kernel_truth.sh) against the truth instance's trace:
#  trace  every per-period record latscope printed is the kernel's record,
#         value for value (runtime, noise, % available, max single, HW, NMI,
#         IRQ, SIRQ, THREAD), in one unbroken run of the truth's records (none
#         missing, none added), at least 10 of them; every truth record inside
#         latscope's window (its markers, less 10 ms at each end for the copies'
#         timestamp skew) is among them; the event lines likewise are one
#         unbroken run of the truth's events; the interference table equals
#         the truth's events of that run summed per contributor.
#  rtla   `rtla osnoise top`'s totals are the sums over an unbroken run of the
#         truth's records, inside latscope's run: so over the same periods,
#         rtla, the kernel and latscope agree.
#  load   the same at -T 2 (thousands of samples a second under TCG)
#         with the default buffer: exact as trace, or, where the load outran
#         the reader, every record and event shown is the kernel's and the
#         loss is named.
#  top, hist  the JSON totals are the sums over an unbroken run of the truth's
#         records, and every truth record inside their window is in that run.
#  lost   a 4 KiB ring at -T 1, the reader stopped for 2 s: the loss is
#         named on stderr, the trace shows the kernel's [LOST N EVENTS]
#         lines, --strict exits 1.
# Copies of one record in two instances carry different timestamps (the
# kernel writes them one after the other; under TCG up to milliseconds
# apart), so records are matched by CPU and values, never by time.
. "$TESTS_DIR/lib.sh"
A=$ART
for f in trace top hist rtla load; do
	[ "$(cat "$A/$f.rc")" = 0 ] || die "$f: exit $(cat "$A/$f.rc"): $(tail -3 "$A/$f.err")"
done
ov=$(awk -F': *' '$1 ~ /overrun|dropped events/ { s += $2 } END { print s + 0 }' "$A/truth.stats")
[ "$ov" = 0 ] || die "the truth instance lost $ov events: it cannot serve as the truth (raise its buffer_size_kb)"

# records FILE: "ts v1 ... v9" for every per-period record of CPU 0 (the
# tracer's layout: TASK-PID [CPU] FLAGS TS: RUNTIME NOISE PCT MAX HW NMI IRQ SIRQ THREAD)
records() {
	awk '{
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i >= NF || $i != "[000]") next
		for (j = i + 1; j <= NF && $j !~ /^[0-9]+\.[0-9]+:$/; j++) ;
		if (j + 9 != NF || $(j + 1) !~ /^[0-9]+$/) next
		ts = substr($j, 1, length($j) - 1)
		printf "%s", ts; for (k = j + 1; k <= NF; k++) printf " %s", $k; print ""
	}' "$1"
}
# events FILE: the osnoise event lines of CPU 0, from the event's name on,
# blanks squeezed
events() {
	awk '{
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i >= NF || $i != "[000]") next
		for (j = i + 1; j <= NF && $j !~ /^[0-9]+\.[0-9]+:$/; j++) ;
		if ($(j + 1) !~ /^(sample_threshold|nmi_noise|irq_noise|softirq_noise|thread_noise):$/) next
		s = $(j + 1); for (k = j + 2; k <= NF; k++) s = s " " $k; print s
	}' "$1"
}
records "$A/truth.txt" > "$TMP/truth.rec"
events "$A/truth.txt" > "$TMP/truth.ev"
[ -s "$TMP/truth.rec" ] || die "no per-period record of CPU 0 in the truth"

# run_of WANT: where the lines of file WANT (values only) are one unbroken run
# of the truth's records: "FIRST LAST" (line numbers in truth.rec), or a
# reason on stderr and status 1
run_of() {
	awk -v want="$1" '
	FNR == NR { t[NR] = $0; sub(/^[^ ]* /, "", t[NR]); n = NR; next }
	{ w[++m] = $0; sub(/^[^ ]* /, "", w[m]) }
	END {
		if (!m) { print "latscope printed no record" > "/dev/stderr"; exit 1 }
		best = 0; at = 0
		for (i = 1; i + m - 1 <= n; i++) {
			for (k = 1; k <= m && t[i + k - 1] == w[k]; k++) ;
			if (k - 1 > best) { best = k - 1; at = i }
			if (k > m) { print i, i + m - 1; exit 0 }
		}
		if (!best) printf "its first record (%s) is not among the %d of the truth\n", w[1], n > "/dev/stderr"
		else printf "only its first %d of %d records match the truth from its record %d on: latscope %s, the truth %s\n", best, m, at, w[best + 1], (at + best <= n ? t[at + best] : "nothing") > "/dev/stderr"
		exit 1
	}' "$TMP/truth.rec" "$1"
}
# inside FIRST LAST START END NAME: every truth record with a time inside
# [START + 10 ms, END - 10 ms] lies in FIRST..LAST
inside() {
	awk -v a="$1" -v b="$2" -v s="$3" -v e="$4" -v name="$5" '
	(NR < a || NR > b) && $1 > s + 0.010 && $1 < e - 0.010 {
		printf "%s: the kernel record at %s (%s) is inside the window %s-%s and missing\n", name, $1, $0, s, e; bad = 1; exit
	} END { exit bad }' "$TMP/truth.rec"
}

# sums_run P RUNTIME NOISE MAX_NOISE MAX_SINGLE HW NMI IRQ SIRQ THREAD: the
# first unbroken run of P truth records whose sums (maxima for the two max
# columns) are these: "FIRST LAST", or status 1
sums_run() {
	awk -v P="$1" -v R="$2" -v N="$3" -v MN="$4" -v MS="$5" -v HW="$6" -v NMI="$7" -v IRQ="$8" -v SI="$9" -v TH="${10}" '
	{ for (k = 2; k <= 10; k++) v[NR, k] = $k; n = NR }
	END {
		for (i = 1; i + P - 1 <= n; i++) {
			r = 0; z = 0; mn = 0; ms = 0; hw = 0; nmi = 0; irq = 0; si = 0; th = 0
			for (j = i; j < i + P; j++) {
				r += v[j, 2]; z += v[j, 3]; if (v[j, 3] > mn) mn = v[j, 3]; if (v[j, 5] > ms) ms = v[j, 5]
				hw += v[j, 6]; nmi += v[j, 7]; irq += v[j, 8]; si += v[j, 9]; th += v[j, 10]
			}
			if (r == R && z == N && mn == MN && ms == MS && hw == HW && nmi == NMI && irq == IRQ && si == SI && th == TH) {
				print i, i + P - 1; exit 0
			}
		}
		exit 1
	}' "$TMP/truth.rec"
}

# check_trace NAME MIN: the records, window, events and table of a trace
# run (NAME.out, NAME.err), at least MIN records.  Without a [LOST] line:
# the records are one unbroken run of the truth's (t1..t2 set), none inside
# the window missing, and the events likewise; with one (the load outran
# the reader): every record and event shown is still the kernel's, and the
# loss is named on stderr.  The interference table is the truth's copies of
# the events shown, summed.
check_trace() {
	m=$1 min=$2
	records "$A/$m.out" > "$TMP/$m.rec"
	events "$A/$m.out" > "$TMP/$m.ev"
	lost=$(grep -c '^CPU:[0-9]* \[LOST' "$A/$m.out")
	if [ "$lost" -gt 0 ]; then
		grep -q 'buffer lost [0-9]* events' "$A/$m.err" || die "$m: [LOST] lines in the trace, no loss named on stderr"
		n=$(wc -l < "$TMP/$m.rec")
		awk 'FNR == NR { sub(/^[^ ]* /, ""); t[$0] = 1; next } { sub(/^[^ ]* /, "") } !($0 in t) { print; bad = 1; exit } END { exit bad }' \
			"$TMP/truth.rec" "$TMP/$m.rec" > "$TMP/why" || die "$m: its record $(cat "$TMP/why") is not the kernel's"
		how="$n records, all the kernel's ($lost [LOST] lines, the loss named)"
	else
		r=$(run_of "$TMP/$m.rec" 2>"$TMP/why") || die "$m: $(cat "$TMP/why")"
		set -- $r
		t1=$1 t2=$2
		n=$((t2 - t1 + 1))
		ws=$(sed -n 's/^# latscope window start: \([0-9.]*\) .*/\1/p' "$A/$m.out")
		we=$(sed -n 's/^# latscope window end: \([0-9.]*\) .*/\1/p' "$A/$m.out")
		[ -n "$ws" ] && [ -n "$we" ] || die "$m: no window markers in the output"
		inside "$t1" "$t2" "$ws" "$we" "$m" || die "$(inside "$t1" "$t2" "$ws" "$we" "$m")"
		how="$n/$n kernel records, 0 not in the kernel's trace, window $ws-$we"
	fi
	[ "$n" -ge "$min" ] || die "$m: only $n records (want $min)"
	# the events: each one latscope printed is the kernel's, line for line,
	# and (without loss) every event the truth has between the first and
	# the last of them (by the truth's order) is among them.  The two
	# instances may hold one event pair in either order (an interrupt's
	# event written between a task-context event's two copies), and a run's
	# first and last events may miss the instance for the same reason: so
	# order is not compared, and an event missing within 2 places of either
	# end is allowed.
	[ -s "$TMP/$m.ev" ] || die "$m: --events printed no event"
	awk -v lost="$lost" '
	FNR == NR { seen[$0]++; nl++; next }
	{ t[FNR] = $0; n = FNR; if ($0 in seen) { if (!lo) lo = FNR; hi = FNR; got[$0]++ } }
	END {
		for (l in seen) if (got[l] != seen[l]) { printf "its event \"%s\" is not in the truth\n", l; exit 1 }
		miss = 0
		for (i = lo; i <= hi; i++) {
			if (t[i] in seen) continue
			miss++
			if (!lost && i - lo > 2 && hi - i > 2) {
				printf "the kernel event \"%s\" (truth event %d of %d-%d) is missing\n", t[i], i, lo, hi; exit 1
			}
		}
		print lo, hi, miss
	}' "$TMP/$m.ev" "$TMP/truth.ev" > "$TMP/evrun" || die "$m: $(cat "$TMP/evrun")"
	set -- $(cat "$TMP/evrun")
	ne=$(wc -l < "$TMP/$m.ev")
	# the truth's copies of the events latscope printed, for the table below
	awk 'FNR == NR { seen[$0] = 1; next } $0 in seen' "$TMP/$m.ev" "$TMP/truth.ev" > "$TMP/truth.run"
	[ "$(wc -l < "$TMP/truth.run")" = "$ne" ] || die "$m: an event printed twice"
	evmiss=$3
	# the interference table (stderr): class name:id count total_us max_us
	awk '/^Top interference/ { on = 1; next } on && $1 == "0" && $4 == "count" { print $2, $3, $5, $7, $9 }' \
		"$A/$m.err" | sort > "$TMP/table.ls"
	awk '{
		if ($1 == "sample_threshold:") next
		cls = $1; sub(/_noise:$/, "", cls)
		for (i = 2; i <= NF && $i != "start"; i++) ;
		name = (cls == "nmi") ? "nmi" : $(i - 1)
		d = $(i + 3); k = cls " " name
		c[k]++; s[k] += d; if (d > m[k]) m[k] = d
	} END { for (k in c) printf "%s %d %d %d\n", k, c[k], int(s[k] / 1000), int(m[k] / 1000) }' \
		"$TMP/truth.run" | sort > "$TMP/table.truth"
	[ -s "$TMP/table.truth" ] || die "$m: no interference event in the run"
	if ! cmp -s "$TMP/table.ls" "$TMP/table.truth"; then
		diff "$TMP/table.truth" "$TMP/table.ls" | head -8
		die "$m: the interference table differs from the truth's events of the same run (- truth, + latscope)"
	fi
	echo "$m: $how; $ne events, all the kernel's, $evmiss of the truth's between them not shown; table of $(wc -l < "$TMP/table.ls") contributors = the truth's"
}

# ---- trace (at the test's load latscope loses nothing) and load ----
grep -q 'LOST' "$A/trace.out" && die "trace: latscope's ring lost events at the test's load: $(grep -m1 LOST "$A/trace.out")"
check_trace trace 10
tr1=$t1 tr2=$t2
check_trace load 3
t1=$tr1 t2=$tr2

# ---- rtla: its totals over an unbroken run of the truth, inside latscope's ----
rl=$(sed 's/\x1b\[[0-9;]*m//g' "$A/rtla.out" | awk '$1 == "0" && $2 ~ /^#[0-9]+$/ { l = $0 } END { print l }')
[ -n "$rl" ] || die "rtla: no line for CPU 0 in its output: $(cat "$A/rtla.out")"
set -- $rl
rp=${2#\#}
rr=$(sums_run "$rp" "$3" "$4" "$6" "$7" "$8" "$9" "${10}" "${11}" "${12}") || die "rtla: its totals ($rl) are the sums of no run of $rp kernel records"
set -- $rr
[ "$1" -ge "$t1" ] && [ "$2" -le "$t2" ] ||
	die "rtla: its periods (truth records $1-$2) are not all inside latscope's (records $t1-$t2)"
echo "rtla: its totals over $rp periods = the kernel's records $1-$2 = latscope's records over the same periods ($rl)"

# ---- top and hist: JSON totals over an unbroken run, window ----
# jus FILE KEY: jcpu's value of a _ns KEY in us, truncated as the kernel's are
jus() { echo $(($(jcpu "$1" "$2") / 1000)); }
# jcpu FILE KEY: KEY of the first CPU object (after "cpus")
jcpu() {
	awk -v k="\"$2\":" '/"cpus":/ { on = 1 } on && index($0, k) { v = $0; sub(/.*:/, "", v); sub(/,$/, "", v); print v; exit }' "$1"
}
jroot() {
	awk -v k="\"$2\":" 'index($0, k) { v = $0; sub(/.*:/, "", v); sub(/,$/, "", v); print v; exit }' "$1"
}
for m in top hist; do
	f=$A/$m.out
	p=$(jcpu "$f" periods)
	[ "${p:-0}" -ge 10 ] || die "$m: ${p:-no} periods"
	[ "$(jroot "$f" events_lost)" = 0 ] || die "$m: $(jroot "$f" events_lost) events lost"
	s=$(jroot "$f" start_ns) e=$(jroot "$f" end_ns)
	[ -n "$s" ] && [ "$s" != null ] && [ -n "$e" ] && [ "$e" != null ] || die "$m: no kernel_window in the JSON"
	rr=$(sums_run "$p" "$(jus "$f" runtime_ns)" "$(jus "$f" noise_ns)" "$(jus "$f" max_noise_ns)" \
		"$(jus "$f" max_single_ns)" "$(jcpu "$f" hw)" "$(jcpu "$f" nmi)" "$(jcpu "$f" irq)" \
		"$(jcpu "$f" softirq)" "$(jcpu "$f" thread)") || die "$m: its totals over $p periods are the sums of no run of the kernel's records"
	set -- $rr
	ss=$(awk -v x="$s" 'BEGIN { printf "%.6f", x / 1e9 }') ee=$(awk -v x="$e" 'BEGIN { printf "%.6f", x / 1e9 }')
	inside "$1" "$2" "$ss" "$ee" "$m" || die "$(inside "$1" "$2" "$ss" "$ee" "$m")"
	echo "$m: totals over $p periods = the sums of the kernel's records $1-$2, none missing in its window $ss-$ee"
done

# ---- lost: named, shown, --strict fails ----
[ "$(cat "$A/lost.rc")" = 1 ] || die "lost: exit $(cat "$A/lost.rc") under --strict with a 4 KiB ring (want 1): $(tail -2 "$A/lost.err")"
nl=$(sed -n 's/.*buffer lost \([0-9]*\) events (overrun).*/\1/p' "$A/lost.err")
[ "${nl:-0}" -gt 0 ] || die "lost: stderr does not name the loss: $(cat "$A/lost.err")"
grep -q '^CPU:0 \[LOST [0-9]* EVENTS\]$' "$A/lost.out" || die "lost: no [LOST N EVENTS] line in the trace"
said=$(awk '/^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/ { s += $3 } END { print s + 0 }' "$A/lost.out")
[ "$nl" -ge "$said" ] || die "lost: stderr's $nl events lost is below the trace's [LOST] lines' $said"
grep -q 'cannot pass --strict: exit 1' "$A/lost.err" || die "lost: --strict's verdict not said"
echo "lost: $nl events lost named, $(grep -c 'LOST' "$A/lost.out") [LOST] lines ($said events), exit 1 under --strict"
