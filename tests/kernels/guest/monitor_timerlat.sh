#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor --timerlat on a kernel with osnoise:timerlat_sample: the
# kernel's timerlat tracer kept running, its latencies in the exposition
# (latscope_timerlat_latency_seconds{cpu, context}) and growing between two
# scrapes, each series consistent (+Inf = _count, the buckets cumulative,
# the max within the last finite bound or past it), nothing missed; after
# SIGTERM the tracer's settings are as before and latscope's instance gone.
# needs: event:osnoise/timerlat_sample cmd:curl
# timeout: 120
. "$KTEST_DIR/guest/lib.sh"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
O=$TRACEFS/osnoise
before=$(cat "$O/cpus" "$O/timerlat_period_us" "$TRACEFS/current_tracer")
latscope monitor --timerlat 1ms -c 0-1 --listen 127.0.0.1:9798 --refresh 1s > "$ART/mon.out" 2> "$ART/mon.err" &
mpid=$!
sleep 8
curl -s http://127.0.0.1:9798/metrics > "$ART/scrape1.prom" || die "no first scrape: $(cat "$ART/mon.err")"
sleep 3
curl -s http://127.0.0.1:9798/metrics > "$ART/scrape2.prom" || die "no second scrape"
kill -TERM $mpid
wait $mpid
echo "monitor: exit $?"
cat "$ART/mon.err"
after=$(cat "$O/cpus" "$O/timerlat_period_us" "$TRACEFS/current_tracer")
[ "$before" = "$after" ] || die "settings not restored: '$before' -> '$after'"
[ ! -d "$TRACEFS/instances/latscope_osnoise" ] || die "latscope's instance is left"
for s in 1 2; do
	awk -v s=$s '
	/^latscope_timerlat_latency_seconds_bucket/ {
		match($0, /cpu="[0-9]+",context="[a-z]+"/); k = substr($0, RSTART, RLENGTH)
		if ($1 ~ /le="\+Inf"/) inf[k] = $2
		else { if ($2 < last[k]) { print "FAIL: scrape " s ": " k ": buckets not cumulative"; bad = 1 } last[k] = $2 }
	}
	/^latscope_timerlat_latency_seconds_count/ { match($0, /cpu="[0-9]+",context="[a-z]+"/); cnt[substr($0, RSTART, RLENGTH)] = $2 }
	/^latscope_timerlat_missed_total/ && $2 != 0 { print "FAIL: scrape " s ": " $0; bad = 1 }
	END {
		n = 0
		for (k in cnt) { n++; if (cnt[k] != inf[k] || cnt[k] < 100) { print "FAIL: scrape " s ": " k ": count " cnt[k] " +Inf " inf[k]; bad = 1 } }
		if (n != 4) { print "FAIL: scrape " s ": " n " series, not 4 (2 CPUs x irq, thread)"; bad = 1 }
		exit bad
	}' "$ART/scrape$s.prom" || die "scrape $s inconsistent"
done
c1=$(awk '/^latscope_timerlat_latency_seconds_count\{cpu="0",context="thread"\}/ { print $2 }' "$ART/scrape1.prom")
c2=$(awk '/^latscope_timerlat_latency_seconds_count\{cpu="0",context="thread"\}/ { print $2 }' "$ART/scrape2.prom")
[ "$c2" -gt "$c1" ] || die "CPU 0's thread count did not grow: $c1 -> $c2"
echo "ok: CPU0 thread samples $c1 -> $c2 between scrapes; 4 consistent series, none missed; settings restored"
grep '^latscope_timerlat_latency_max_seconds' "$ART/scrape2.prom"
