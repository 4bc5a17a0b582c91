#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest's perf.data (tests/kernels/guest/perf_record.sh) on the host:
# latscope script prints what perf script prints, line for line, on the host
# (kernel addresses unresolved) and in the guest (resolved by the guest's
# /proc/kallsyms).
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null || skip "perf is not installed on the host"
same() {	# where latscope-output perf-output
	n=$(wc -l < "$3")
	[ "$n" -gt 0 ] || die "$1: perf script printed nothing"
	grep -q 'sched_switch:' "$3" || die "$1: no sched_switch in the recording"
	if ! cmp -s "$2" "$3"; then
		diff "$2" "$3" | head -20
		die "$1: latscope script and perf script differ on the guest's recording ($KERNEL): $(diff "$2" "$3" | grep -c '^>') of $n lines"
	fi
	echo "$KERNEL, $1: $n lines, identical"
}
"$LATSCOPE" script -q -i "$ART/perf.data" > "$TMP/ls.txt" || die "latscope script failed on the guest's perf.data"
perf script -i "$ART/perf.data" > "$TMP/perf.txt" 2> "$TMP/perf.err" || die "perf script failed: $(tail -1 "$TMP/perf.err")"
same host "$TMP/ls.txt" "$TMP/perf.txt"
same guest "$ART/latscope-guest.txt" "$ART/perf-guest.txt"
