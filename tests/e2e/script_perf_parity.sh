#!/bin/sh
# SPDX-License-Identifier: MIT
# Parity with perf script: the shared recording (>= 99.9 % identical lines,
# in practice all), and fresh recordings made on this machine: sched, irq,
# irq_vectors and timer tracepoints; one with -z; one in pipe mode.  Then
# sampling events, each required to match line for line (0 differ): cpu-clock
# -g -a, cpu-clock -a, a per-task task-clock -g, tracepoints with -g, and the
# osnoise_workload lines of an osnoise recording; a dwarf callchain recording
# is refused with its line.  Both read the same symbol sources (kallsyms,
# perf's build-id cache ~/.debug, /usr/lib/debug, the files), right after
# recording, so nothing changes in between.
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
exact() {	# name, latscope output, perf output: every line the same
	total=$(wc -l < "$3")
	[ "$total" -gt 0 ] || die "$1: perf printed nothing"
	diffl=$(diff "$2" "$3" | grep -c '^>')
	echo "$1: $total lines, $diffl differ"
	[ "$diffl" -eq 0 ] || { diff "$2" "$3" | head -10; die "$1: lines differ"; }
}
# A system-wide recording may catch code latscope does not name as perf
# does (C++ or Rust names, BPF programs, JIT code: docs/script.md): then
# latscope stops with its line, and what it printed before must be perf's
# first lines, to the letter.
sampled() {	# name, perf record arguments...
	n=$1
	shift
	perf record -q -o "$TMP/$n.data" "$@" > /dev/null 2> "$TMP/rec.err" || die "$n: perf record $*: $(tail -1 "$TMP/rec.err")"
	perf script -i "$TMP/$n.data" > "$TMP/b" 2>/dev/null
	if "$LATSCOPE" script -q -i "$TMP/$n.data" > "$TMP/a" 2> "$TMP/e"; then
		exact "$n" "$TMP/a" "$TMP/b"
	else
		grep -q "stopped after [0-9]* samples: not printed as perf script prints them: " "$TMP/e" ||
			die "$n: latscope failed: $(cat "$TMP/e")"
		lines=$(wc -l < "$TMP/a")
		head -n "$lines" "$TMP/b" > "$TMP/b.head"
		cmp -s "$TMP/a" "$TMP/b.head" || { diff "$TMP/a" "$TMP/b.head" | head -10; die "$n: lines differ before the refusal"; }
		echo "$n: refused after $lines identical lines of $(wc -l < "$TMP/b"): $(sed 's/.*prints them: //' "$TMP/e")"
	fi
	rm -f "$TMP/$n.data"
}
work='for i in 1 2 3; do ls -R /usr/share/doc > /dev/null; done'
sampled cpu-clock-g -e cpu-clock -g -a -- sleep 0.3
sampled cpu-clock -e cpu-clock -a -- sleep 0.3
sampled task-clock-g -e task-clock -g -- sh -c "$work"
sampled page-faults-g -e page-faults -g -- sh -c "$work"
sampled sched-g -e sched:sched_switch,sched:sched_wakeup -g -a -- sleep 0.2
# C++: names demangled as perf prints them (no parameters, thunks in full,
# clone suffixes dropped); templates, sorting and streams from libstdc++
if command -v g++ > /dev/null; then
	cat > "$TMP/cxx.cpp" <<'EOF'
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
int main()
{
	std::map<std::string, std::vector<int>> m;
	for (int i = 0; i < 300000; i++) {
		std::ostringstream o;
		o << "k" << (i % 1000);
		m[o.str()].push_back((i % 7919) * 13 % 10007);
	}
	size_t s = 0;
	for (auto &kv : m) {
		std::sort(kv.second.begin(), kv.second.end());
		s += kv.second.size();
	}
	std::cout << s << "\n";
}
EOF
	g++ -O2 -g -o "$TMP/cxx" "$TMP/cxx.cpp" || die "g++ failed"
	sampled cxx-g -e cpu-clock -g -F 4000 -- "$TMP/cxx"
	sampled g++-g -e cpu-clock -g -F 2000 -- g++ -O2 -c "$TMP/cxx.cpp" -o "$TMP/cxx.o"
else
	echo "g++ not installed: no C++ recording"
fi
# dwarf unwinding (user regs and stack) is not done: refused, with its line
perf record -q -e cpu-clock --call-graph dwarf -o "$TMP/dw.data" -- sh -c "$work" 2>/dev/null ||
	die "perf record --call-graph dwarf failed"
if "$LATSCOPE" script -q -i "$TMP/dw.data" > "$TMP/a" 2> "$TMP/e"; then
	die "dwarf: latscope printed it"
fi
grep -q "stopped after 0 samples: not printed as perf script prints them: event 'cpu-clock' records .*stack_user" "$TMP/e" ||
	die "dwarf: refusal not said: $(cat "$TMP/e")"
[ ! -s "$TMP/a" ] || die "dwarf: output before the refusal"
echo "dwarf: refused: $(cat "$TMP/e")"
rm -f "$TMP/dw.data"
# latscope's own recordings: the osnoise_workload lines (a software event
# with no period in its samples) and the rest
if "$LATSCOPE" osnoise record -q -c 0 -H 1 -d 1 -p 200000 -o "$TMP/osn.data" > /dev/null 2> "$TMP/e"; then
	"$LATSCOPE" script -q -i "$TMP/osn.data" > "$TMP/a" || die "osnoise: latscope failed"
	perf script -i "$TMP/osn.data" > "$TMP/b" 2>/dev/null
	grep -q osnoise_workload "$TMP/b" || die "osnoise: no osnoise_workload lines"
	exact osnoise "$TMP/a" "$TMP/b"
	grep osnoise_workload "$TMP/a" > "$TMP/a.w"
	grep osnoise_workload "$TMP/b" > "$TMP/b.w"
	exact osnoise_workload "$TMP/a.w" "$TMP/b.w"
else
	echo "osnoise record not possible here: $(tail -1 "$TMP/e")"
fi
exit 0
