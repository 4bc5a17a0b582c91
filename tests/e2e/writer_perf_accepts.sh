#!/bin/sh
# perf itself must read what lib/pdwrite writes: a little-endian file, its
# big-endian twin and a little-endian pipe stream, each through
# `perf report -D` and `perf script`, without any warning or error, with the
# expected samples; the big-endian and pipe outputs must equal the LE one.
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null 2>&1 || skip "perf is not installed"
MK=${TOOLS:?TOOLS must name the test tools dir}/mkfixture
[ -x "$MK" ] || die "$MK not built"

N=137
SEED=7
FORMATS="$TESTS_DIR/data/formats"
export HOME="$TMP"	# keep perf's caches out of the user's home

gen() {	# gen OUT [options]: live formats, stored copies when tracefs is unreadable
	out=$1; shift
	"$MK" -o "$out" -n $N --seed $SEED --formats "$FORMATS" "$@" || die "mkfixture $* failed"
}

check_clean() {	# check_clean WHAT STDERR_FILE
	if grep -Eiq 'warning|error|unsupported|failed|can.t' "$2"; then
		sed 's/^/    /' "$2" >&2
		die "$1 complained on stderr"
	fi
}

run_perf() {	# run_perf NAME INPUT_SPEC (file path, or "pipe:FILE" to feed stdin)
	name=$1; in=$2
	case $in in
	pipe:*)
		f=${in#pipe:}
		cat "$f" | perf report -D -i - >"$TMP/$name.dump" 2>"$TMP/$name.rep.err" ||
			die "$name: perf report -D failed"
		cat "$f" | perf script -i - >"$TMP/$name.script" 2>"$TMP/$name.scr.err" ||
			die "$name: perf script failed"
		;;
	*)
		perf report -D -i "$in" >"$TMP/$name.dump" 2>"$TMP/$name.rep.err" ||
			die "$name: perf report -D failed"
		perf script -i "$in" >"$TMP/$name.script" 2>"$TMP/$name.scr.err" ||
			die "$name: perf script failed"
		;;
	esac
	check_clean "$name: perf report -D" "$TMP/$name.rep.err"
	check_clean "$name: perf script" "$TMP/$name.scr.err"

	n=$(wc -l <"$TMP/$name.script")
	[ "$n" -eq $N ] || die "$name: perf script printed $n lines, expected $N"
	bad=$(grep -Ecv ' sched:sched_(switch|wakeup): ' "$TMP/$name.script")
	[ "$bad" -eq 0 ] || die "$name: $bad lines without a sched_switch/sched_wakeup event name"
	sw=$(grep -c ' sched:sched_switch: prev_comm=task-' "$TMP/$name.script")
	wk=$(grep -c ' sched:sched_wakeup: comm=task-' "$TMP/$name.script")
	[ "$sw" -gt 0 ] && [ "$wk" -gt 0 ] && [ $((sw + wk)) -eq $N ] ||
		die "$name: $sw switch + $wk wakeup lines (expected both, summing to $N)"
	grep -q 'unknown\|\[FAILED' "$TMP/$name.script" && die "$name: undecoded fields in perf script"
	ns=$(grep -c 'PERF_RECORD_SAMPLE' "$TMP/$name.dump")
	[ "$ns" -eq $N ] || die "$name: perf report -D shows $ns samples, expected $N"
	grep -q 'PERF_RECORD_COMM: task-0:1000/1000' "$TMP/$name.dump" ||
		die "$name: the COMM records are not decoded"
	echo "ok $name: $N samples ($sw switch, $wk wakeup)"
}

gen "$TMP/le.data"
gen "$TMP/be.data" --big-endian
gen "$TMP/pipe.data" --pipe

# The byte orders must really differ (magic "PERFILE2" vs "2ELIFREP").
[ "$(head -c 8 "$TMP/le.data")" = "PERFILE2" ] || die "LE magic"
[ "$(head -c 8 "$TMP/be.data")" = "2ELIFREP" ] || die "BE magic"
[ "$(head -c 8 "$TMP/pipe.data")" = "PERFILE2" ] || die "pipe magic"

run_perf le "$TMP/le.data"
run_perf be "$TMP/be.data"
run_perf pipe "pipe:$TMP/pipe.data"

cmp -s "$TMP/le.script" "$TMP/be.script" || {
	diff "$TMP/le.script" "$TMP/be.script" | head -10 >&2
	die "perf script output of the big-endian file differs from its LE twin"
}
cmp -s "$TMP/le.script" "$TMP/pipe.script" || {
	diff "$TMP/le.script" "$TMP/pipe.script" | head -10 >&2
	die "perf script output of the pipe stream differs from the file"
}

# The writer streaming into a real pipe (stdout cannot seek).
"$MK" -o - --pipe -n $N --seed $SEED --formats "$FORMATS" 2>"$TMP/mk.err" |
	perf script -i - >"$TMP/stream.script" 2>"$TMP/stream.err"
check_clean "streamed pipe" "$TMP/stream.err"
check_clean "mkfixture -o -" "$TMP/mk.err"
cmp -s "$TMP/le.script" "$TMP/stream.script" || die "perf script of the streamed pipe differs"

# perf 6.1 cannot read a byte-swapped pipe stream at all (it swaps neither the
# HEADER_FEATURE id nor sets needs_swap on pipe-mode evsels), so the BE pipe
# is checked with latscope's own reader when the binary has `script`.
if [ -n "${LATSCOPE:-}" ] && "$LATSCOPE" script --help >/dev/null 2>&1; then
	gen "$TMP/bepipe.data" --pipe --big-endian
	"$LATSCOPE" script -q -i - <"$TMP/bepipe.data" >"$TMP/bepipe.script" 2>"$TMP/bepipe.err" ||
		die "latscope script failed on the BE pipe: $(cat "$TMP/bepipe.err")"
	cmp -s "$TMP/le.script" "$TMP/bepipe.script" || {
		diff "$TMP/le.script" "$TMP/bepipe.script" | head -10 >&2
		die "latscope script of the BE pipe differs from perf script of the LE file"
	}
	echo "ok: BE pipe (latscope script) matches"
fi

# The header features perf decodes from the big-endian file.
perf report --header-only -i "$TMP/be.data" >"$TMP/be.hdr" 2>"$TMP/be.hdr.err" ||
	die "perf report --header-only failed on the BE file"
check_clean "BE header" "$TMP/be.hdr.err"
for want in '# hostname : fixture' '# nrcpus online : 2' '# arch : x86_64' \
	'# event : name = sched:sched_switch, , id = { 101, 102 }' \
	'# event : name = sched:sched_wakeup, , id = { 103, 104 }' \
	'sample_id_all = 1, exclude_guest = 1' '# time of first sample : 1000.'; do
	grep -qF "$want" "$TMP/be.hdr" || die "BE header lacks: $want"
done
echo "ok: LE, BE and pipe outputs identical"
