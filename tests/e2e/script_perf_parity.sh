#!/bin/sh
# Parity with perf script: the shared recording (>= 99.9 % identical lines,
# in practice all), and fresh recordings made on this machine: sched, irq,
# irq_vectors and timer tracepoints; one with -z; one in pipe mode.
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
compare() {	# name, latscope output, perf output
	total=$(wc -l < "$3")
	[ "$total" -gt 0 ] || die "$1: perf printed nothing"
	diffl=$(diff "$2" "$3" | grep -c '^>')
	echo "$1: $total lines, $diffl differ"
	# at least 99.9 % identical
	[ $((diffl * 1000)) -le "$total" ] || { diff "$2" "$3" | head -10; die "$1: too many differences"; }
}
if rec=$(shared_recording); then
	"$LATSCOPE" script -q -i "$rec" > "$TMP/ls.txt" || die "latscope script failed on the shared recording"
	perf script -i "$rec" > "$TMP/perf.txt" 2>/dev/null
	compare shared "$TMP/ls.txt" "$TMP/perf.txt"
	"$LATSCOPE" script -q --ns -i "$rec" > "$TMP/ls.txt"
	perf script --ns -i "$rec" > "$TMP/perf.txt" 2>/dev/null
	compare shared-ns "$TMP/ls.txt" "$TMP/perf.txt"
	rm -f "$TMP/ls.txt" "$TMP/perf.txt"
else
	echo "shared recording not found; fresh recordings only"
fi
# (irq_vectors:irq_work_exit is refused on these machines, so the vectors are named)
ev='sched:sched_switch,sched:sched_wakeup,sched:sched_waking,irq:*,irq_vectors:local_timer*,irq_vectors:reschedule*,irq_vectors:call_function*,timer:*'
if ! perf record -q -e "$ev" -a -o "$TMP/fresh.data" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do ls /proc >/dev/null; sleep 0.02; done' 2> "$TMP/rec.err"; then
	skip "perf record cannot trace here: $(tail -1 "$TMP/rec.err")"
fi
"$LATSCOPE" script -q -i "$TMP/fresh.data" > "$TMP/a" || die "fresh: latscope failed"
perf script -i "$TMP/fresh.data" > "$TMP/b" 2>/dev/null
compare fresh "$TMP/a" "$TMP/b"
perf record -q -z -e "$ev" -a -o "$TMP/z.data" -- sleep 0.3 2>/dev/null || die "perf record -z failed"
"$LATSCOPE" script -q -i "$TMP/z.data" > "$TMP/a" || die "zstd: latscope failed"
perf script -i "$TMP/z.data" > "$TMP/b" 2>/dev/null
compare zstd "$TMP/a" "$TMP/b"
perf record -q -e "$ev" -a -o - -- sleep 0.3 2>/dev/null > "$TMP/p.data" || die "perf record -o - failed"
"$LATSCOPE" script -q -i - < "$TMP/p.data" > "$TMP/a" || die "pipe: latscope failed"
perf script -i - < "$TMP/p.data" > "$TMP/b" 2>/dev/null
compare pipe "$TMP/a" "$TMP/b"
exit 0
