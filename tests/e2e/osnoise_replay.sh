#!/bin/sh
# SPDX-License-Identifier: MIT
# `osnoise record` writes the tracepoints and the workload's gaps to a
# perf.data file; replaying it must give the same numbers as the live run,
# and the text views (top table, histogram) must agree with --json on every
# number they show.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints)"
J=$TOOLS/osnjson
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 CPUs"
"$LATSCOPE" osnoise record -c 1 -H 0 -d 3 -p 500000 -o "$TMP/r.data" --json --top 50 \
	> "$TMP/live.json" 2> "$TMP/err" || die "record failed: $(cat "$TMP/err")"
[ "$($J "$TMP/live.json" attribution)" = true ] || skip "no tracepoints: $($J "$TMP/live.json" attribution_off)"
"$LATSCOPE" osnoise top -i "$TMP/r.data" --json --top 50 > "$TMP/rep.json" || die "replay failed"
F="cpu periods runtime_ns noise_ns cpu_available_pct max_noise_ns max_single_ns hw nmi irq softirq
   thread gaps hw_ns nmi_ns irq_ns softirq_ns thread_ns below_threshold_count below_threshold_ns
   floor_ns smallest_gap_ns hist.count hist.over hist.min_ns hist.max_ns hist.p99_ns"
for f in $F; do
	a=$($J "$TMP/live.json" "cpus.0.$f"); b=$($J "$TMP/rep.json" "cpus.0.$f")
	[ "$a" = "$b" ] || die "live $f=$a, replay $f=$b"
done
n=$($J "$TMP/live.json" cpus.0.top.length)
[ "$n" = "$($J "$TMP/rep.json" cpus.0.top.length)" ] || die "contributor lists differ in length"
i=0
while [ $i -lt "$n" ]; do
	for f in class name id count total_ns; do
		a=$($J "$TMP/live.json" "cpus.0.top.$i.$f"); b=$($J "$TMP/rep.json" "cpus.0.top.$i.$f")
		[ "$a" = "$b" ] || die "contributor $i: live $f=$a, replay $f=$b"
	done
	i=$((i + 1))
done
[ "$($J "$TMP/rep.json" cpus.0.gaps)" -gt 0 ] || die "no gaps at all"

# a sample whose id no event declares: skipped, and said on stderr in text
# mode as in JSON
"$TOOLS/dtldamage" --bad-id "$TMP/r.data" "$TMP/bad.data" || die "dtldamage --bad-id"
for m in "" --json "hist --json"; do
	case $m in hist*) sub=hist; m=${m#hist };; *) sub=top;; esac
	"$LATSCOPE" osnoise $sub -i "$TMP/bad.data" $m > "$TMP/o" 2> "$TMP/e" || die "replay $sub $m: $(cat "$TMP/e")"
	grep -q "skipped: 1 samples with an id no event declares" "$TMP/e" ||
		die "osnoise $sub $m: the skipped sample is not named on stderr: $(cat "$TMP/e")"
done

# text top == JSON (the text in us, truncated; the JSON in ns, docs/json.md)
us() { echo $(($($J "$TMP/rep.json" "cpus.0.$1") / 1000)); }
"$LATSCOPE" osnoise top -i "$TMP/r.data" > "$TMP/top.txt" || die "text replay failed"
row=$(awk '$1 == "1" && $2 ~ /^#/ { print; exit }' "$TMP/top.txt")
[ -n "$row" ] || die "no CPU 1 row in: $(cat "$TMP/top.txt")"
set -- $row
exp="1 #$($J "$TMP/rep.json" cpus.0.periods) $(us runtime_ns) $(us noise_ns) $($J "$TMP/rep.json" cpus.0.cpu_available_pct) $(us max_noise_ns) $(us max_single_ns) $($J "$TMP/rep.json" cpus.0.hw) $($J "$TMP/rep.json" cpus.0.nmi) $($J "$TMP/rep.json" cpus.0.irq) $($J "$TMP/rep.json" cpus.0.softirq) $($J "$TMP/rep.json" cpus.0.thread)"
[ "$*" = "$exp" ] || die "text row '$*' != JSON '$exp'"
# the breakdown line
brk=$(awk '/^Noise breakdown/ { f = 1; next } f && $1 == "1" { print $2, $3, $4, $5, $6, $7; exit }' "$TMP/top.txt")
bexp="$(us noise_ns) $(us hw_ns) $(us nmi_ns) $(us irq_ns) $(us softirq_ns) $(us thread_ns)"
[ "$brk" = "$bexp" ] || die "breakdown '$brk' != JSON '$bexp'"

# text hist == JSON hist
"$LATSCOPE" osnoise hist -i "$TMP/r.data" -b 2 -E 50 > "$TMP/h.txt" || die "hist failed"
"$LATSCOPE" osnoise hist -i "$TMP/r.data" -b 2 -E 50 --json > "$TMP/h.json" || die "hist --json failed"
for k in over count min max avg p99 p99.9 p99.99; do
	t=$(awk -v k="$k:" '$1 == k { print $2; exit }' "$TMP/h.txt")
	case $k in over|count) jk=$k;; p99.9) jk=p99_9_ns;; p99.99) jk=p99_99_ns;; *) jk=${k}_ns;; esac
	j=$($J "$TMP/h.json" "cpus.0.hist.$jk")
	case $k in
	over|count) ;;
	avg)	# the text's two decimals of us against the JSON's whole ns
		j=$(awk -v t="$t" -v j="$j" 'BEGIN { d = t * 1000 - j; print (d < 10 && d > -10) ? t : j / 1000 }');;
	*) j=$((j / 1000));;
	esac
	# a percentile past the last bucket prints as >TOP: the JSON value lies above
	case $t in
	">"*) [ "$j" -ge "${t#>}" ] || die "hist $k: text $t, JSON $j";;
	*) [ "$t" = "$j" ] || die "hist $k: text $t, JSON $j";;
	esac
done
# every histogram row equals the JSON bucket
nb=$($J "$TMP/h.json" cpus.0.hist.buckets.length)
rows=$(awk '/^Index/ { f = 1; next } /^over:/ { f = 0 } f && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$TMP/h.txt")
[ "$nb" = "$rows" ] || die "$rows histogram rows, $nb JSON buckets"
i=0; sum=0
while [ $i -lt "$nb" ]; do
	lb=$(($($J "$TMP/h.json" "cpus.0.hist.buckets.$i.0") / 1000)); c=$($J "$TMP/h.json" "cpus.0.hist.buckets.$i.1")
	t=$(awk -v lb="$lb" '/^Index/ { f = 1; next } /^over:/ { f = 0 } f && $1 == lb { print $2; exit }' "$TMP/h.txt")
	[ "$t" = "$c" ] || die "bucket $lb: text $t, JSON $c"
	sum=$((sum + c)); i=$((i + 1))
done
[ $((sum + $($J "$TMP/h.json" cpus.0.hist.over))) -eq "$($J "$TMP/h.json" cpus.0.hist.count)" ] || die "buckets + over != count"
exit 0
