#!/bin/sh
# SPDX-License-Identifier: MIT
# The DTL timeline on recordings laid out the way `perf record` writes them
# (`dtl synth`'s default layout: rounds every ~4 ms, AUXTRACE written at the
# next drain after each poll, so a 1 s poll puts a second of entries hundreds
# of rounds after the sched samples they belong between).  8 CPUs, polls of
# 1 ms and 1 s, file and pipe mode, both byte orders:
#  - `dtl script` never prints a DTL entry after a record newer than it, says
#    0 late, prints every entry the file holds (those after the last record at
#    the end), and every variant prints the same bytes;
#  - without the index, or with a damaged one, the output is the same and
#    stderr says the data section was scanned;
#  - the timeline does not depend on the layout (--layout poll, no ring loss);
#  - the per-task report equals what the model knows, to the nanosecond;
#  - the outputs match the expected files.
. "$TESTS_DIR/lib.sh"
G=$TESTS_DIR/golden/dtl
F=$TESTS_DIR/data/formats
[ -x "$TOOLS/dtldamage" ] && [ -x "$TOOLS/truthcmp" ] || skip "test tools not built"
cd "$TMP" || die "no tmp"

# order: no line's time is older than a line before it (wide view: ns first)
ordered() { # file
	awk '{ t = $1 + 0; if (t < last) { print "out of order: " $0; exit 1 } last = t }' "$1"
}
entries_of() { # synth stderr -> the number of DTL entries it wrote
	sed -n 's/.*: \([0-9][0-9]*\) DTL entries.*/\1/p' "$1"
}

for poll in 1000000 1000000000; do
	if [ $poll = 1000000 ]; then dur=150ms; else dur=2500ms; fi
	S="$LATSCOPE dtl synth --formats $F --cpus 8 --duration $dur --seed 21 -c $poll --load 0.5"
	$S -o le.data --truth truth.json 2> synth.err || die "synth $poll: $(cat synth.err)"
	n=$(entries_of synth.err)
	[ "${n:-0}" -gt 100 ] || die "synth $poll wrote only ${n:-0} entries"
	$S -o be.data --big-endian 2>/dev/null || die "synth BE"
	$S -o - --pipe > pipe.data 2>/dev/null || die "synth pipe"
	$S -o - --pipe --big-endian > pipe-be.data 2>/dev/null || die "synth pipe BE"

	"$LATSCOPE" dtl script le.data > le.out 2> le.err || die "script: $(cat le.err)"
	grep -q ', 0 late' le.err || die "poll $poll: late entries in file mode: $(cat le.err)"
	[ "$(grep -c 'vpa-dtl:' le.out)" -eq "$n" ] || die "poll $poll: $(grep -c 'vpa-dtl:' le.out) of $n entries printed"
	"$LATSCOPE" dtl script --wide le.data > wide.out 2>/dev/null || die "script --wide"
	ordered wide.out || die "poll $poll: file mode timeline out of order"
	for v in be; do
		"$LATSCOPE" dtl script $v.data > $v.out 2> $v.err || die "script $v"
		cmp -s le.out $v.out || die "poll $poll: $v prints another timeline"
	done
	for v in pipe pipe-be; do
		"$LATSCOPE" dtl script - < $v.data > $v.out 2> $v.err || die "script $v: $(cat $v.err)"
		grep -q ', 0 late' $v.err || die "poll $poll: late entries in pipe mode: $(cat $v.err)"
		cmp -s le.out $v.out || die "poll $poll: $v prints another timeline"
	done
	"$LATSCOPE" dtl script --wide - < pipe.data > wide-pipe.out 2>/dev/null || die "script --wide pipe"
	ordered wide-pipe.out || die "poll $poll: pipe mode timeline out of order"

	# a missing or damaged index: the same output, and stderr says why
	for m in --drop "--shift 8" --swap --truncate; do
		# shellcheck disable=SC2086
		"$TOOLS/dtldamage" $m le.data bad.data || die "dtldamage $m"
		"$LATSCOPE" dtl script bad.data > bad.out 2> bad.err || die "script with index $m: $(cat bad.err)"
		grep -q 'by scanning the data section' bad.err || die "index $m: no word about the scan"
		cmp -s le.out bad.out || die "index $m: another timeline"
	done
	"$TOOLS/dtldamage" --drop be.data bad-be.data || die "dtldamage BE"
	"$LATSCOPE" dtl script bad-be.data > bad.out 2>/dev/null || die "script BE without index"
	cmp -s le.out bad.out || die "BE without index: another timeline"

	# perf record -z: the ring records compressed, the AUX data not
	$S -z -o z.data 2>/dev/null || die "synth -z"
	"$LATSCOPE" dtl script z.data > z.out 2> z.err || die "script -z: $(cat z.err)"
	cmp -s le.out z.out || die "poll $poll: the compressed file prints another timeline"
	"$TOOLS/dtldamage" --drop z.data bad.data || die "dtldamage -z"
	"$LATSCOPE" dtl script bad.data > bad.out 2>/dev/null || die "script -z without index"
	cmp -s le.out bad.out || die "poll $poll: compressed without index: another timeline"

	# who was hurt: the report equals the model's truth
	"$LATSCOPE" dtl report --json --kallsyms "$TESTS_DIR/data/kallsyms-lpar" le.data > report.json || die "report"
	"$TOOLS/truthcmp" truth.json report.json || die "poll $poll: per-task report differs from the truth"
	"$LATSCOPE" dtl report --json - < pipe-be.data > report-pipe.json || die "report pipe"
	"$TOOLS/truthcmp" truth.json report-pipe.json || die "poll $poll: pipe per-task report differs"

	# expected files
	if [ $poll = 1000000 ]; then
		"$LATSCOPE" dtl script --kallsyms "$TESTS_DIR/data/kallsyms-lpar" le.data > sym.out 2>/dev/null ||
			die "script --kallsyms"
		diff -u "$G/timeline-1ms-script.out" sym.out || die "differs from timeline-1ms-script.out"
		grep -q 'c0000000000f8094 plpar_hcall_norets_notrace+0x18 (\[kernel.kallsyms\])$' sym.out ||
			die "the cede address is not resolved as perf would"
		"$LATSCOPE" dtl script --csv --kallsyms "$TESTS_DIR/data/kallsyms-lpar" le.data > sym.csv 2>/dev/null ||
			die "script --csv --kallsyms"
		head -1 sym.csv | grep -q ',srr1,symbol$' || die "no symbol column in the CSV"
		grep -q ',0x1[0-9a-f]*,0x8000000000001033,$' sym.csv || die "a user srr0 must have an empty symbol"
	fi
	grep -v '"file"' report.json > report.cmp
	diff -u "$G/timeline-$poll-report.json" report.cmp || die "report differs from timeline-$poll-report.json"
done

# the layout does not change the timeline (no ring loss, so the same entries)
S="$LATSCOPE dtl synth -q --formats $F --cpus 8 --duration 300ms --seed 5 --ring 0 -c 10000000"
$S -o perf.data || die "synth perf layout"
$S -o poll.data --layout poll || die "synth poll layout"
$S -o round.data --round 37ms || die "synth 37 ms rounds"
"$LATSCOPE" dtl script perf.data > perf.out 2>/dev/null || die "script perf layout"
for v in poll round; do
	"$LATSCOPE" dtl script $v.data > $v.out 2>/dev/null || die "script $v"
	cmp -s perf.out $v.out || die "layout $v gives another timeline"
done
exit 0
