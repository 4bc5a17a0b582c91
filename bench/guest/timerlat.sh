#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/timerlat.sh in the 7.2 PREEMPT_RT guest of the kernel tier (4 CPUs):
# latscope timerlat's two paths, and latscope against rtla 7.2, in one guest
# boot, alternating, BENCH_ROUNDS rounds of BENCH_SECONDS each.
#   loss    at a 100 us period on every CPU, `timerlat hist --backend trace`
#           (the tracer's ring read as text, its default 8 MiB per CPU), the
#           same with the kernel's default ring of a new instance (what rtla
#           reads unless told otherwise) and `--backend bpf` (histograms
#           kept in the kernel): the activations
#           each counted, and each one's losses (ring overrun, [LOST] lines,
#           activations missed, samples its program never saw);
#   cost    at 1 ms on every CPU with the kernel's threads, `latscope
#           timerlat hist --backend bpf` and `--backend trace` against `rtla
#           timerlat hist -k` (sid's rtla 7.2: Debian builds it without its
#           BPF program, so it reads the trace: "Could not enable BPF" under
#           --debug, and no process holds a BPF program during its runs,
#           checked): each collector's CPU time (user + system,
#           from time(1)) per activation it counted, and its BPF programs' run time
#           per run, one run per sample (kernel.bpf_stats_enabled, the
#           programs' fdinfo, sampled every 0.5 s: the last runs of a run
#           are not in it, the same for both).
# Under TCG absolute times mean little: the ratios of one run are the figure.
# needs: cmd:rtla cmd:time tool:histcmp event:osnoise/timerlat_sample
# timeout: 1200
. "$KTEST_DIR/guest/lib.sh"
R=${BENCH_ROUNDS:-3}
# (bench/guest/timerlat_rtlabpf.sh runs the cost part only, against rtla-bpf)
PARTS=${BENCH_PARTS:-loss cost}
TOOLS=${BENCH_TOOLS:-latscope-bpf latscope-trace rtla}
D=${BENCH_SECONDS:-10}
G() { histcmp --get "$1" "$2" 2>/dev/null || echo 0; }
ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "guest: $(uname -r), $ncpu CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); rounds $R of $D s"
echo 1 > /proc/sys/kernel/bpf_stats_enabled || die "cannot enable kernel.bpf_stats_enabled"

# The BPF programs' run time and runs over every process that holds a
# program (the collector: nothing else in the guest loads one; rtla runs
# under sid's loader, so not by its name), as "ns runs" into $ART/progstats,
# sampled every 0.5 s until $ART/done exists; the last sample kept.
progstats() {
	echo "0 0" > "$ART/progstats"
	until [ -e "$ART/done" ]; do
		s=0 n=0
		for fd in /proc/[0-9]*/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in
			anon_inode:bpf-prog)
				i=${fd%/fd/*}/fdinfo/${fd##*/}
				a=$(sed -n 's/^run_time_ns:[[:space:]]*//p' "$i" 2>/dev/null)
				b=$(sed -n 's/^run_cnt:[[:space:]]*//p' "$i" 2>/dev/null)
				s=$((s + ${a:-0})) n=$((n + ${b:-0}));;
			esac
		done
		[ "$n" -gt 0 ] && echo "$s $n" > "$ART/progstats"
		sleep 0.5
	done
}

case " $PARTS " in *" loss "*)
echo "== loss: 100 us on all $ncpu CPUs, $D s a run"
echo "run   backend    activations(irq) expected  overrun  lost_lines  missed(irq+thread)  bpf_misses  wall_s  cpu_s"
# (trace-kdef: the trace path with the kernel's default ring of a new
# instance, what rtla reads unless --trace-buffer-size: the pressure a
# tracefs reader is under without latscope's 8 MiB)
kdef=$(sed -n 's/^[^0-9]*\([0-9][0-9]*\).*/\1/p' "$TRACEFS/buffer_size_kb" | head -1)
case $(cat "$TRACEFS/buffer_size_kb") in *expanded:*) kdef=$(sed -n 's/.*expanded: *\([0-9]*\).*/\1/p' "$TRACEFS/buffer_size_kb");; esac
echo "the kernel's default ring of a new instance: ${kdef:-?} KiB per CPU"
for r in $(seq 1 "$R"); do
	for b in trace trace-kdef bpf; do
		j=$ART/loss_$b.$r.json
		case $b in
		trace-kdef) set -- --backend trace --trace-buffer-size "${kdef:-1408}K";;
		*) set -- --backend "$b";;
		esac
		/bin/time -f "%e %U %S" -o "$ART/time" latscope timerlat hist -p 100 -d "$D" "$@" \
			--json="$j" > /dev/null 2> "$ART/loss_$b.$r.err"
		rc=$?
		[ $rc -le 1 ] || die "latscope timerlat hist $*: exit $rc: $(tail -3 "$ART/loss_$b.$r.err")"
		set -- $(tail -1 "$ART/time")
		w=$1 cpu=$(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }')
		n=$(G "$j" all.irq.count)
		mi=$(( $(G "$j" input.missed.irq) + $(G "$j" input.missed.thread) ))
		printf "%-5s %-10s %16s %9s %8s %11s %19s %11s %7s %6s\n" "$r" "$b" "$n" $((D * 10000 * ncpu)) \
			"$(G "$j" input.overrun)" "$(G "$j" input.lost_lines)" "$mi" "$(G "$j" input.bpf_misses)" "$w" "$cpu"
	done
done
;; esac

echo "== cost: 1 ms on all $ncpu CPUs, $D s a run, collector CPU per activation, BPF program time per run"
echo "run   tool           activations  wall_s  cpu_s  cpu_us/act  bpf_runs  bpf_ns/run"
: > "$ART/cost"
for r in $(seq 1 "$R"); do
	for t in $TOOLS; do
		rm -f "$ART/done"
		progstats &
		sp=$!
		case $t in latscope-*)
			/bin/time -f "%e %U %S" -o "$ART/time" latscope timerlat hist --backend ${t#latscope-} -p 1000 \
				-d "$D" --json="$ART/cost_$t.$r.json" > /dev/null 2> "$ART/cost_$t.$r.err"
			rc=$?
			n=$(G "$ART/cost_$t.$r.json" all.irq.count);;
		*)
			/bin/time -f "%e %U %S" -o "$ART/time" $t timerlat hist -k -p 1000 -d "$D" --no-aa \
				> "$ART/cost_$t.$r.out" 2> "$ART/cost_$t.$r.err"
			rc=$?
			# its first count: row, the IRQ-nnn columns summed
			n=$(awk '$1 == "Index" && !h { for (i = 2; i <= NF; i++) irq[i] = ($i ~ /^IRQ-/); h = 1 }
				$1 == "count:" && !c { for (i = 2; i <= NF; i++) if (irq[i]) s += $i; c = 1 }
				END { print s + 0 }' "$ART/cost_$t.$r.out");;
		esac
		touch "$ART/done"
		wait $sp
		[ $rc -le 1 ] || die "$t: exit $rc: $(tail -3 "$ART/cost_$t.$r.err")"
		[ "$n" -gt 0 ] || die "$t counted no activation"
		set -- $(tail -1 "$ART/time")
		w=$1
		cpu=$(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }')
		set -- $(cat "$ART/progstats")
		bns=$1 bn=$2
		if [ $t = latscope-bpf ] || [ $t = rtla-bpf ]; then
			[ "$bn" -gt 0 ] || die "$t: no BPF program runs seen"
		else
			[ "$bn" -eq 0 ] || die "$t: BPF program runs seen ($bn) on a path without one"
			bn=1	# (0 ns a run: none)
		fi
		printf "%-5s %-14s %11s %7s %6s %11s %9s %11s\n" "$r" "$t" "$n" "$w" "$cpu" \
			"$(echo "$cpu $n" | awk '{ printf "%.2f", $1 * 1e6 / $2 }')" "$bn" $((bns / bn))
		echo "$t $n $cpu $bns $bn" >> "$ART/cost"
	done
done
echo 0 > /proc/sys/kernel/bpf_stats_enabled
# medians over the rounds, and the ratios
awk '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
{ k = $1; m[k]++; c[k, m[k]] = $3 * 1e6 / $2; if ($5 > 1) { b[k, m[k]] = $4 / $5; nb[k]++ } }
END {
	for (k in m) { for (i = 1; i <= m[k]; i++) v[i] = c[k, i]; md[k] = med(v, m[k]) }
	for (k in nb) { for (i = 1; i <= nb[k]; i++) v[i] = b[k, i]; printf "%s: median BPF program time per run %.0f ns\n", k, med(v, nb[k]) }
	if ("rtla" in md)
		printf "figure timerlat-collector-cpu: median collector CPU per activation: latscope bpf %.2f us, latscope trace %.2f us, rtla (trace) %.2f us; rtla / latscope bpf %.2fx, rtla / latscope trace %.2fx\n", md["latscope-bpf"], md["latscope-trace"], md["rtla"], md["rtla"] / md["latscope-bpf"], md["rtla"] / md["latscope-trace"]
	if ("rtla-bpf" in md)
		printf "figure timerlat-collector-cpu-bpf: median collector CPU per activation, both on BPF: latscope %.2f us, rtla %.2f us; rtla / latscope %.2fx\n", md["latscope-bpf"], md["rtla-bpf"], md["rtla-bpf"] / md["latscope-bpf"]
}' "$ART/cost"
exit 0
