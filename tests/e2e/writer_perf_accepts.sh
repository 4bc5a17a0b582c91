#!/bin/sh
# SPDX-License-Identifier: MIT
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

run_perf() {	# run_perf NAME INPUT_SPEC [SAMPLES] (file path, or "pipe:FILE" to feed stdin)
	name=$1; in=$2; want=${3:-$N}
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
	[ "$n" -eq $want ] || die "$name: perf script printed $n lines, expected $want"
	bad=$(grep -Ecv ' sched:sched_(switch|wakeup): ' "$TMP/$name.script")
	[ "$bad" -eq 0 ] || die "$name: $bad lines without a sched_switch/sched_wakeup event name"
	sw=$(grep -c ' sched:sched_switch: prev_comm=task-' "$TMP/$name.script")
	wk=$(grep -c ' sched:sched_wakeup: comm=task-' "$TMP/$name.script")
	[ "$sw" -gt 0 ] && [ "$wk" -gt 0 ] && [ $((sw + wk)) -eq $want ] ||
		die "$name: $sw switch + $wk wakeup lines (expected both, summing to $want)"
	grep -q 'unknown\|\[FAILED' "$TMP/$name.script" && die "$name: undecoded fields in perf script"
	ns=$(grep -c 'PERF_RECORD_SAMPLE' "$TMP/$name.dump")
	[ "$ns" -eq $want ] || die "$name: perf report -D shows $ns samples, expected $want"
	grep -q 'PERF_RECORD_COMM: task-0:1000/1000' "$TMP/$name.dump" ||
		die "$name: the COMM records are not decoded"
	echo "ok $name: $want samples ($sw switch, $wk wakeup)"
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

# Checkpointed recordings (pdwrite_checkpoint, a checkpoint every 40
# samples): finished, perf reads what it reads in the plain file (the
# checkpoints' feature tables are records in the data that perf skips,
# PERF_RECORD_EVENT_TYPE); killed after the third checkpoint (the 17
# samples written since are lost with the writer's buffer), little- and
# big-endian, perf reads the first 120 samples, and latscope the same.
gen "$TMP/ck.data" --checkpoint 40
gen "$TMP/ckle.data" --checkpoint 40 --kill
gen "$TMP/ckbe.data" --checkpoint 40 --kill --big-endian
[ "$(head -c 8 "$TMP/ckbe.data")" = "2ELIFREP" ] || die "killed BE magic"
run_perf ck "$TMP/ck.data"
cmp -s "$TMP/le.script" "$TMP/ck.script" || die "perf script of the checkpointed file differs from the plain one"
[ "$(grep -c 'PERF_RECORD_EVENT_TYPE' "$TMP/ck.dump")" = 3 ] ||
	die "perf report -D: $(grep -c 'PERF_RECORD_EVENT_TYPE' "$TMP/ck.dump") checkpoint table records in the finished file, expected 3"
for o in le be; do
	run_perf "ck$o-killed" "$TMP/ck$o.data" 120
	head -120 "$TMP/le.script" | cmp -s - "$TMP/ck$o-killed.script" ||
		die "perf script of the killed $o file is not the first 120 samples of the plain file"
	perf report --header-only -i "$TMP/ck$o.data" >"$TMP/ck$o.hdr" 2>"$TMP/ck$o.hdr.err" ||
		die "perf report --header-only failed on the killed $o file"
	check_clean "killed $o header" "$TMP/ck$o.hdr.err"
	for want in '# hostname : fixture' '# arch : x86_64' '# event : name = sched:sched_wakeup, , id = { 103, 104 }' \
		'# time of last sample : 1000.'; do
		grep -qF "$want" "$TMP/ck$o.hdr" || die "killed $o header lacks: $want"
	done
	if [ -n "${LATSCOPE:-}" ] && "$LATSCOPE" script --help >/dev/null 2>&1; then
		"$LATSCOPE" script -i "$TMP/ck$o.data" >"$TMP/ck$o.ls" 2>"$TMP/ck$o.lserr" ||
			die "latscope script on the killed $o file: $(cat "$TMP/ck$o.lserr")"
		grep -q 'the header is a checkpoint (data size [0-9]*): the recording was not properly terminated' "$TMP/ck$o.lserr" ||
			die "latscope script: no cut-short warning on the killed $o file: $(cat "$TMP/ck$o.lserr")"
		cmp -s "$TMP/ck$o-killed.script" "$TMP/ck$o.ls" || die "latscope and perf disagree on the killed $o file"
	fi
done
echo "ok: checkpointed files, finished and killed (LE, BE)"

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
