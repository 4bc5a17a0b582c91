#!/bin/sh
# The shared recording cut at 1,000 offsets (as is, and with its data size
# shortened to the cut) and with random bytes flipped: every run ends cleanly
# or with a one-line error naming an offset; no crash, no hang.
. "$TESTS_DIR/lib.sh"
rec=$(shared_recording) || skip "shared recording not available"
out=$(timeout 900 "$TOOLS/torture" "$rec" 1000 300) || die "torture failed (exit $?): $out"
echo "$out"
echo "$out" | grep -q "bad_messages 0" || die "bad error messages"
# the latscope binary itself on a few cut files: exit 2 with one line
for cut in 5000 300000 20000000; do
	head -c $cut "$rec" > "$TMP/cut"
	"$LATSCOPE" script -i "$TMP/cut" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc -eq 2 ] || die "cut at $cut: exit $rc"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || die "cut at $cut: $(cat "$TMP/err")"
done
exit 0
