#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/dtl.sh - throughput and memory of `latscope dtl`.
#
#   LATSCOPE=build/latscope sh bench/dtl.sh [GB]
#
# All recordings come from `dtl synth` in perf record's layout (rounds every
# ~4 ms, vpa_dtl polled once a second, AUXTRACE written at the next drain).
# 1. `dtl report` on a generated multi-GB DTL-only recording (default 3 GB,
#    `perf record -e vpa_dtl/dtl_all/` alone, so no merge is needed):
#    entries/s by wall clock and by CPU time (user+sys), and the ratio to a
#    plain read of the same file (cat > /dev/null, page cache warm); then on
#    a recording with sched_switch samples, where every entry goes through
#    the merged timeline and the per-task attribution.
# 2. `dtl script` against `latscope script` on the same file, per output line
#    (wall and CPU, alternating, medians of RUNS measurements, default 5, of
#    REPS runs each, default 5; callgrind
#    instruction counts with BENCH_CALLGRIND=1, the default when valgrind is
#    installed): on the shared recording (../shared/data/sched-load.perf.data.zst,
#    no DTL) and on a DTL+sched synth.  Then against BASELINE (an older
#    latscope binary, if given) and `perf script` on the shared recording
#    (perf 6.1 cannot decode vpa-dtl, so only latscope on the synth).
# 3. Peak RSS of report and script on a small and a large file: it must not
#    grow with the file.
# Files go to $BENCH_DIR (default /tmp/latscope-bench-dtl), removed at the end
# unless KEEP=1.
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
GB=${1:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${BENCH_DIR:-/tmp/latscope-bench-dtl}
FORMATS=$HERE/../tests/data/formats
mkdir -p "$DIR" || exit 2
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT INT TERM

# time_cmd OUTVAR_PREFIX cmd...: sets ${p}_wall ${p}_cpu ${p}_rss (KB)
time_cmd() {
	p=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$DIR/time.txt" "$@" > /dev/null 2> "$DIR/err.txt" ||
		{ echo "FAILED: $*"; cat "$DIR/err.txt"; exit 1; }
	read -r w u s m < "$DIR/time.txt"
	eval "${p}_wall=$w ${p}_cpu=$(echo "$u + $s" | bc -l) ${p}_rss=$m"
}
rate() { echo "scale=1; $1 / $2 / 1000000" | bc -l; }

command -v bc >/dev/null || { echo "bench/dtl.sh needs bc"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/dtl.sh needs /usr/bin/time (apt-get install time)"; exit 2; }

echo "== latscope dtl benchmark ($(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"

# -- 1. report throughput ------------------------------------------------------
# 64 vCPUs at ~180 dispatches/s each, polled once a second, no ring loss:
# 48 bytes per entry, ~11.5 M entries per 0.55 GB.
dur=$(echo "$GB * 1700 / 1" | bc)
big=$DIR/big.data
echo "-- generating ${GB} GB of DTL data (64 vCPUs, ${dur} s) ..."
"$LATSCOPE" dtl synth -q -o "$big" --no-sched --cpus 64 --duration "${dur}s" --ring 0 \
	-c 1000000000 --load 0.5 --seed 1 --formats "$FORMATS" || exit 1
size=$(stat -c %s "$big")
entries=$("$LATSCOPE" dtl report --json --total-only "$big" | sed -n 's/^ *"entries": \([0-9]*\),*$/\1/p' | head -1)
cat "$big" > /dev/null
time_cmd cat cat "$big"
time_cmd rep "$LATSCOPE" dtl report "$big"
time_cmd rep2 "$LATSCOPE" dtl report "$big"
# best of two
if [ "$(echo "$rep2_wall < $rep_wall" | bc)" = 1 ]; then rep_wall=$rep2_wall; rep_cpu=$rep2_cpu; fi
echo "file: $size bytes, $entries entries"
echo "cat > /dev/null:  ${cat_wall} s wall"
echo "dtl report:       ${rep_wall} s wall, ${rep_cpu} s CPU, peak RSS ${rep_rss} KB"
echo "  entries/s (wall): $(rate "$entries" "$rep_wall") M"
echo "  entries/s (CPU):  $(rate "$entries" "$rep_cpu") M"
echo "  wall ratio to cat: $(echo "scale=2; $rep_wall / $cat_wall" | bc -l)"

# -- 1b. report through the merged timeline (sched_switch present) -----------
# every entry merged with every sched sample and charged to a task: a
# recording as large as the DTL-only one, mostly sched samples
tdur=$(echo "$GB * 150 / 1" | bc)
"$LATSCOPE" dtl synth -q -o "$DIR/tl.data" --cpus 64 --duration "${tdur}s" --seed 3 -c 1000000000 \
	--load 0.5 --formats "$FORMATS" || exit 1
tl_entries=$("$LATSCOPE" dtl report --json --total-only "$DIR/tl.data" | sed -n 's/^ *"entries": \([0-9]*\),*$/\1/p' | head -1)
time_cmd tl "$LATSCOPE" dtl report "$DIR/tl.data"
echo "dtl report, timeline + per-task path ($(stat -c %s "$DIR/tl.data") bytes, $tl_entries entries + sched samples):"
tl_records=$(( $(stat -c %s "$DIR/tl.data") / 100 ))
echo "  ${tl_wall} s wall, ${tl_cpu} s CPU, peak RSS ${tl_rss} KB, $(rate "$tl_entries" "$tl_cpu") M entries/s (CPU)"
echo "  (the merge is bound by the sched samples: about $(rate "$tl_records" "$tl_cpu") M records/s of ~100 bytes)"

# -- 2. dtl script against latscope script, per line ---------------------------
# The same file through both, alternating, RUNS times (default 5): wall and
# CPU (user+sys) medians, per output line, and the ratio of dtl script's
# per-line CPU to latscope script's (the target: at most 1.3).  On the shared
# recording (no DTL) both print the same lines; on a DTL+sched synth
# (8 vCPUs, 60 s, 1 ms poll, --preempt-hz 2000: ~0.43 M entries of two lines
# each beside ~0.24 M sched samples) dtl script prints the entries too.
# With valgrind (BENCH_CALLGRIND=1, the default when it is installed) the
# same ratio from callgrind's instruction counts, which the machine's load
# does not change.
RUNS=${RUNS:-5}
# each measurement times REPS runs in a row (default 5): /usr/bin/time
# counts in 10 ms steps, a run on the shared recording takes ~0.1 s
REPS=${REPS:-5}
reploop='i=0; while [ $i -lt '"$REPS"' ]; do "$@" > /dev/null 2>&1 || exit 1; i=$((i + 1)); done'
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Instructions (callgrind, every thread) of one run of "$@"
irs() {
	valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$@" > /dev/null 2> "$DIR/cg.err" ||
		{ echo 0; return; }
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$DIR/cg.err" | awk '{ s += $1 } END { print s + 0 }'
}
vs_script() {
	name=$1 f=$2
	sl=$("$LATSCOPE" script -q -i "$f" 2>/dev/null | wc -l)
	dl=$("$LATSCOPE" dtl script -q "$f" 2>/dev/null | wc -l)
	# items: a sample is one line, a DTL entry two
	di=$(( sl + (dl - sl) / 2 ))
	: > "$DIR/s.w"; : > "$DIR/s.c"; : > "$DIR/d.w"; : > "$DIR/d.c"
	for i in $(seq "$RUNS"); do
		time_cmd s sh -c "$reploop" sh "$LATSCOPE" script -q -i "$f"
		echo "$s_wall / $REPS" | bc -l >> "$DIR/s.w"; echo "$s_cpu / $REPS" | bc -l >> "$DIR/s.c"
		time_cmd d sh -c "$reploop" sh "$LATSCOPE" dtl script -q "$f"
		echo "$d_wall / $REPS" | bc -l >> "$DIR/d.w"; echo "$d_cpu / $REPS" | bc -l >> "$DIR/d.c"
	done
	sw=$(median < "$DIR/s.w"); sc=$(median < "$DIR/s.c"); dw=$(median < "$DIR/d.w"); dc=$(median < "$DIR/d.c")
	echo "dtl script vs latscope script, $name ($(stat -c %s "$f") bytes), medians of $RUNS alternating" \
		"measurements of $REPS runs each (per run):"
	awk -v n="$name" -v sl="$sl" -v dl="$dl" -v di="$di" -v sw="$sw" -v sc="$sc" -v dw="$dw" -v dc="$dc" 'BEGIN {
		printf "  latscope script: %d lines, %.3f s wall, %.3f s CPU: %.3f us CPU/line\n", sl, sw, sc, sc * 1e6 / sl
		printf "  dtl script:      %d lines (%d samples + %d DTL entries of 2 lines), %.3f s wall, %.3f s CPU: %.3f us CPU/line\n",
			dl, sl, di - sl, dw, dc, dc * 1e6 / dl
		if (sc > 0 && sw > 0)
			printf "  figure dtl-script-ratio-%s: per-line CPU %.2fx, per-line wall %.2fx latscope script'"'"'s; per item (an entry counted once) CPU %.2fx (target <= 1.3)\n",
				n, (dc / dl) / (sc / sl), (dw / dl) / (sw / sl), (dc / di) / (sc / sl)
	}'
	if [ "${BENCH_CALLGRIND:-1}" = 1 ] && command -v valgrind > /dev/null; then
		si=$(irs "$LATSCOPE" script -q -i "$f"); dI=$(irs "$LATSCOPE" dtl script -q "$f")
		awk -v n="$name" -v sl="$sl" -v dl="$dl" -v di="$di" -v si="$si" -v dI="$dI" 'BEGIN {
			printf "  figure dtl-script-callgrind-%s: latscope script %d instructions/line, dtl script %d/line: %.2fx; per item %.2fx\n",
				n, si / sl, dI / dl, (dI / dl) / (si / sl), (dI / di) / (si / sl)
		}'
	fi
}
"$LATSCOPE" dtl synth -q -o "$DIR/synth.data" --cpus 8 --duration 60s --seed 3 --preempt-hz 2000 \
	--formats "$FORMATS" || exit 1
shared=""
for f in "$HERE/../../shared/data/sched-load.perf.data.zst" "$HERE/../shared/data/sched-load.perf.data.zst"; do
	[ -f "$f" ] && shared=$f && break
done
if [ -n "$shared" ] && command -v zstd >/dev/null; then
	zstd -q -d -f "$shared" -o "$DIR/shared.data" || exit 1
	vs_script shared "$DIR/shared.data"
else
	echo "no shared recording (../shared/data/sched-load.perf.data.zst): only the synth"
fi
vs_script synth "$DIR/synth.data"

# -- 2b. dtl script against BASELINE (an older latscope), and against perf ------
if [ -n "${BASELINE:-}" ]; then
	: > "$DIR/new.w"; : > "$DIR/new.c"; : > "$DIR/old.w"; : > "$DIR/old.c"
	for i in $(seq "$RUNS"); do
		time_cmd n "$LATSCOPE" dtl script "$DIR/synth.data"
		echo "$n_wall" >> "$DIR/new.w"; echo "$n_cpu" >> "$DIR/new.c"
		time_cmd o "$BASELINE" dtl script "$DIR/synth.data"
		echo "$o_wall" >> "$DIR/old.w"; echo "$o_cpu" >> "$DIR/old.c"
	done
	nw=$(median < "$DIR/new.w"); nc=$(median < "$DIR/new.c")
	ow=$(median < "$DIR/old.w"); oc=$(median < "$DIR/old.c")
	echo "dtl script on the synth, this against BASELINE ($BASELINE), medians of $RUNS:"
	echo "  this ${nw} s wall, ${nc} s CPU; baseline ${ow} s wall, ${oc} s CPU;" \
		"ratio baseline/this: wall $(echo "scale=2; $ow / $nw" | bc -l), CPU $(echo "scale=2; $oc / $nc" | bc -l)"
fi
if [ -n "$shared" ] && command -v perf >/dev/null; then
	export HOME=$DIR
	: > "$DIR/ls.w"; : > "$DIR/ls.c"; : > "$DIR/ps.w"; : > "$DIR/ps.c"
	for i in $(seq "$RUNS"); do
		time_cmd ls "$LATSCOPE" dtl script "$DIR/shared.data"; echo "$ls_wall" >> "$DIR/ls.w"; echo "$ls_cpu" >> "$DIR/ls.c"
		time_cmd ps perf script -i "$DIR/shared.data"; echo "$ps_wall" >> "$DIR/ps.w"; echo "$ps_cpu" >> "$DIR/ps.c"
	done
	lw=$(median < "$DIR/ls.w"); pw=$(median < "$DIR/ps.w"); lc=$(median < "$DIR/ls.c"); pc=$(median < "$DIR/ps.c")
	echo "figure dtl-script-vs-perf: shared recording (no DTL, 433,658 samples), medians of $RUNS:" \
		"latscope dtl script ${lw} s wall ${lc} s CPU, perf script ${pw} s wall ${pc} s CPU:" \
		"$(awk -v a="$pw" -v b="$lw" 'BEGIN { printf "%.1f", a / b }')x (wall)," \
		"$(awk -v a="$pc" -v b="$lc" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x (CPU)"
fi

# -- 3. memory does not grow with the file -------------------------------------
"$LATSCOPE" dtl synth -q -o "$DIR/small.data" --no-sched --cpus 64 --duration 18s --ring 0 \
	-c 1000000000 --load 0.5 --seed 1 --formats "$FORMATS" || exit 1
time_cmd rs "$LATSCOPE" dtl report "$DIR/small.data"
"$LATSCOPE" dtl synth -q -o "$DIR/tl-small.data" --cpus 64 --duration 1s --seed 3 -c 1000000000 \
	--load 0.5 --formats "$FORMATS" || exit 1
time_cmd tls "$LATSCOPE" dtl report "$DIR/tl-small.data"
time_cmd sss "$LATSCOPE" dtl script "$DIR/tl-small.data"
time_cmd ssb "$LATSCOPE" dtl script "$DIR/tl.data"
echo "peak RSS, report:          $(stat -c %s "$DIR/small.data") bytes -> ${rs_rss} KB;  $size bytes -> ${rep_rss} KB"
echo "peak RSS, report timeline: $(stat -c %s "$DIR/tl-small.data") bytes -> ${tls_rss} KB;  $(stat -c %s "$DIR/tl.data") bytes -> ${tl_rss} KB"
echo "peak RSS, script:          $(stat -c %s "$DIR/tl-small.data") bytes -> ${sss_rss} KB;  $(stat -c %s "$DIR/tl.data") bytes -> ${ssb_rss} KB"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
