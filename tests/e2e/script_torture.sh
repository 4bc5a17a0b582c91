#!/bin/sh
# SPDX-License-Identifier: MIT
# A recording cut at 1,000 offsets (as is, and with its data size shortened
# to the cut) and with random bytes flipped: every run ends cleanly or with a
# one-line error naming an offset; no crash, no hang.  Runs on the recordings
# shipped in tests/data/rec (file and pipe layout), and also on the shared
# real recording when SHARED_DATA names it (opt-in, see tests/lib.sh).
. "$TESTS_DIR/lib.sh"
torture() {	# recording, cuts, flips
	out=$(timeout 900 "$TOOLS/torture" "$1" "$2" "$3") || die "torture failed on $1 (exit $?): $out"
	echo "$(basename "$1"): $out"
	echo "$out" | grep -q "bad_messages 0" || die "bad error messages on $1"
	# the latscope binary itself on a few cut files: exit 2 with one line
	size=$(wc -c < "$1")
	for cut in 5000 $((size / 2)) $((size - 100)); do
		head -c $cut "$1" > "$TMP/cut"
		"$LATSCOPE" script -i "$TMP/cut" > /dev/null 2> "$TMP/err"; rc=$?
		[ $rc -eq 2 ] || die "$(basename "$1") cut at $cut of $size: exit $rc"
		[ "$(wc -l < "$TMP/err")" -eq 1 ] || die "$(basename "$1") cut at $cut: $(cat "$TMP/err")"
		grep -q offset "$TMP/err" || die "$(basename "$1") cut at $cut: no offset in $(cat "$TMP/err")"
	done
}
for rec in "$TESTS_DIR"/data/rec/sched-irq-timer.perf.data "$TESTS_DIR"/data/rec/sched-timer-pipe.perf.data; do
	torture "$rec" 1000 300
done
if [ -n "$SHARED_DATA" ]; then
	rec=$(shared_recording) || die "SHARED_DATA=$SHARED_DATA could not be decompressed (zstd installed?)"
	torture "$rec" 1000 300
fi
exit 0
