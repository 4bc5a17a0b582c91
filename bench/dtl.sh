#!/bin/sh
# bench/dtl.sh - throughput and memory of `latscope dtl`.
#
#   LATSCOPE=build/latscope sh bench/dtl.sh [GB]
#
# 1. `dtl report` on a generated multi-GB DTL-only recording (default 3 GB):
#    entries/s by wall clock and by CPU time (user+sys), and the ratio to a
#    plain read of the same file (cat > /dev/null, page cache warm).
# 2. `dtl script` lines/s against `perf script` on the shared recording
#    (../shared/data/sched-load.perf.data.zst, no DTL: the sched printer path)
#    and on a synthetic recording with DTL (perf 6.1 cannot decode vpa-dtl, so
#    only latscope there).
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

# -- 2. script speed vs perf script -----------------------------------------
shared=""
for f in "$HERE/../../shared/data/sched-load.perf.data.zst" "$HERE/../shared/data/sched-load.perf.data.zst"; do
	[ -f "$f" ] && shared=$f && break
done
if [ -n "$shared" ] && command -v zstd >/dev/null; then
	zstd -q -d -f "$shared" -o "$DIR/shared.data" || exit 1
	lines=$("$LATSCOPE" dtl script "$DIR/shared.data" 2>/dev/null | wc -l)
	time_cmd ls "$LATSCOPE" dtl script "$DIR/shared.data"
	echo "shared recording: $lines lines"
	echo "latscope dtl script: ${ls_wall} s wall, $(rate "$lines" "$ls_wall") M lines/s, peak RSS ${ls_rss} KB"
	if command -v perf >/dev/null; then
		export HOME=$DIR
		plines=$(perf script -i "$DIR/shared.data" 2>/dev/null | wc -l)
		time_cmd ps perf script -i "$DIR/shared.data"
		echo "perf script:         ${ps_wall} s wall, $(rate "$plines" "$ps_wall") M lines/s, peak RSS ${ps_rss} KB ($plines lines)"
	fi
else
	echo "shared recording not found (or no zstd): skipping the perf script comparison"
fi
"$LATSCOPE" dtl synth -q -o "$DIR/synth.data" --cpus 8 --duration 60s --seed 3 --formats "$FORMATS" || exit 1
slines=$("$LATSCOPE" dtl script "$DIR/synth.data" 2>/dev/null | wc -l)
time_cmd ss "$LATSCOPE" dtl script "$DIR/synth.data"
echo "dtl script on a DTL+sched synth ($slines lines): ${ss_wall} s wall, $(rate "$slines" "$ss_wall") M lines/s, peak RSS ${ss_rss} KB"

# -- 3. memory does not grow with the file -------------------------------------
"$LATSCOPE" dtl synth -q -o "$DIR/small.data" --no-sched --cpus 64 --duration 60s --ring 0 \
	-c 1000000000 --load 0.5 --seed 1 --formats "$FORMATS" || exit 1
time_cmd rs "$LATSCOPE" dtl report "$DIR/small.data"
"$LATSCOPE" dtl synth -q -o "$DIR/synth-small.data" --cpus 8 --duration 6s --seed 3 --formats "$FORMATS" || exit 1
time_cmd sss "$LATSCOPE" dtl script "$DIR/synth-small.data"
echo "peak RSS, report:  $(stat -c %s "$DIR/small.data") bytes -> ${rs_rss} KB;  $size bytes -> ${rep_rss} KB"
echo "peak RSS, script:  $(stat -c %s "$DIR/synth-small.data") bytes -> ${sss_rss} KB;  $(stat -c %s "$DIR/synth.data") bytes -> ${ss_rss} KB"
