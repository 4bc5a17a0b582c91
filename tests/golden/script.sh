#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden: latscope script on the shipped recordings (file, zstd, pipe) in the
# default, --ns and --json layouts equals the kept expected output.  The
# expected text was checked equal to perf script's on the recording machine.
. "$TESTS_DIR/lib.sh"
D=$TESTS_DIR/data/rec G=$TESTS_DIR/golden/script
for f in "$D"/*.perf.data; do
	n=$(basename "$f" .perf.data)
	"$LATSCOPE" script -q --kallsyms '' -i "$f" > "$TMP/$n.txt" || die "$n: exit $?"
	cmp -s "$TMP/$n.txt" "$G/$n.txt" || { diff "$G/$n.txt" "$TMP/$n.txt" | head; die "$n differs"; }
	"$LATSCOPE" script -q --ns --kallsyms '' -i "$f" > "$TMP/$n.ns.txt" || die "$n --ns: exit $?"
	cmp -s "$TMP/$n.ns.txt" "$G/$n.ns.txt" || die "$n --ns differs"
	"$LATSCOPE" script -q --json --kallsyms '' -i "$f" > "$TMP/$n.json" || die "$n --json: exit $?"
	cmp -s "$TMP/$n.json" "$G/$n.json" || die "$n --json differs"
	# one thread and two threads print the same
	"$LATSCOPE" script -q -j1 --kallsyms '' -i "$f" | cmp -s - "$G/$n.txt" || die "$n -j1 differs"
done
# the pipe recording read from a real pipe
cat "$D/sched-timer-pipe.perf.data" | "$LATSCOPE" script -q --kallsyms '' -i - | cmp -s - "$G/sched-timer-pipe.txt" || die "pipe from stdin differs"
# filters: every printed line satisfies them, and they select something
f=$D/sched-irq-timer.perf.data
"$LATSCOPE" script -q --kallsyms '' -C 1 -i "$f" > "$TMP/c1" && [ -s "$TMP/c1" ] || die "--cpu 1 printed nothing"
grep -qv '\[001\]' "$TMP/c1" && die "--cpu 1 printed another CPU"
[ "$(wc -l < "$TMP/c1")" -eq "$(grep -c '\[001\]' "$G/sched-irq-timer.txt")" ] || die "--cpu 1 count"
t=$(sed -n 100p "$G/sched-irq-timer.ns.txt" | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {sub(":","",$i); print $i; exit}}')
"$LATSCOPE" script -q --ns --kallsyms '' --time "$t," -i "$f" > "$TMP/tw"
[ "$(head -1 "$TMP/tw")" = "$(grep -m1 -F " $t: " "$G/sched-irq-timer.ns.txt")" ] || die "--time start"
tid=$(awk 'NR==50 {print $2}' "$G/sched-irq-timer.txt")
"$LATSCOPE" script -q --kallsyms '' --tid "$tid" -i "$f" > "$TMP/tid" || die "--tid $tid: exit $?"
[ -s "$TMP/tid" ] || die "--tid $tid printed nothing"
awk -v t="$tid" '$2 != t {exit 1}' "$TMP/tid" || die "--tid $tid printed another thread"
# exactly the golden lines of that thread, in order
awk -v t="$tid" '$2 == t' "$G/sched-irq-timer.txt" | cmp -s - "$TMP/tid" || die "--tid $tid: not the golden lines of that thread"
"$LATSCOPE" script -q --kallsyms '' -F comm,tid,event -i "$f" | head -1 | grep -Eq '^ +[^ ]+ +[0-9]+ +[a-z_]+:[a-z_0-9]+: $' || die "-F comm,tid,event layout"
# errors: clear message, exit 2
"$LATSCOPE" script -i "$TMP/none" 2> "$TMP/e"; [ $? -eq 2 ] || die "missing file exit"
grep -q "No such file" "$TMP/e" || die "missing file message"
head -c 2000 "$f" > "$TMP/trunc"
"$LATSCOPE" script -i "$TMP/trunc" > /dev/null 2> "$TMP/e"; [ $? -eq 2 ] || die "truncated exit"
grep -q "offset" "$TMP/e" || die "truncated message lacks the offset: $(cat "$TMP/e")"
[ "$(wc -l < "$TMP/e")" -eq 1 ] || die "error is more than one line"
exit 0
