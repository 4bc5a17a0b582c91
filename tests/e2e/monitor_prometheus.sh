#!/bin/sh
# SPDX-License-Identifier: MIT
# A real Prometheus (Debian's prometheus) scrapes latscope monitor with the
# shipped scrape configuration (contrib/prometheus/latscope.yml, its targets
# file pointed at the monitor and its interval at 1 s), and answers through
# its HTTP API:
#  - the target is up, and was scraped several times without an error;
#  - the series carry the cpu label (api/v1/series);
#  - histogram_quantile(0.99, sum by (le) (rate(latscope_latency_seconds_bucket
#    {kind="wakeup"}[1m]))) is a number, between the smallest and the largest
#    bound that holds a sample, while a wakeup storm runs;
#  - the monitor's own metrics (latscope_monitor_info, cpu seconds) are there;
#  - every query of the Grafana dashboard (contrib/grafana), its variables
#    set ($instance, $cpu: .*, $kind: wakeup, $__rate_interval: 1m), is
#    accepted by this Prometheus, and the histogram ones return data.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (tracepoints, BPF, SCHED_FIFO)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
command -v prometheus >/dev/null || skip "needs prometheus (Debian package prometheus; scripts/deps.sh installs it)"
command -v curl >/dev/null || skip "needs curl"
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
SRC=$(dirname "$TESTS_DIR")
mpid="" ppid="" spid=""
trap 'kill $mpid $ppid $spid 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM

monitor_start "$TMP/mon" --listen 127.0.0.1:0 --refresh 1s
# the load: RT wakeups on both CPUs for the whole test
"$TOOLS/wakestorm" -w 0 -s 1 -r 1000 -d 120 > "$TMP/storm" 2>&1 &
spid=$!

# Prometheus on a free port of its own, the shipped job
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf -- '- targets: ["127.0.0.1:%s"]\n  labels:\n    site: test\n' "$port" > "$TMP/targets.yml"
sed -e "s|/etc/prometheus/latscope-targets.yml|$TMP/targets.yml|" \
    -e 's/scrape_interval: 15s/scrape_interval: 1s/' -e 's/scrape_timeout: 5s/scrape_timeout: 1s/' \
    "$SRC/contrib/prometheus/latscope.yml" > "$TMP/prometheus.yml"
grep -q "$TMP/targets.yml" "$TMP/prometheus.yml" || die "the shipped config has no targets file to point at the monitor"
promtool check config "$TMP/prometheus.yml" > "$TMP/check.out" 2>&1 || die "promtool check config: $(cat "$TMP/check.out")"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" > "$TMP/prom.log" 2>&1 &
ppid=$!

api() { curl -sfG --max-time 5 "http://127.0.0.1:$pport/api/v1/$1" --data-urlencode "$2"; }
# wait: the target up with at least 5 scrapes behind it
n=0
while :; do
	kill -0 $ppid 2>/dev/null || die "prometheus ended: $(tail -5 "$TMP/prom.log")"
	kill -0 $mpid 2>/dev/null || die "the monitor ended: $(tail -3 "$TMP/mon.err")"
	s=$(api query 'query=count_over_time(up{job="latscope"}[1m])' 2>/dev/null | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
	[ "${s:-0}" -ge 5 ] && break
	n=$((n + 1)); [ $n -lt 120 ] || die "prometheus has not scraped the monitor 5 times in 60 s: $(api targets 'state=active')"
	sleep 0.5
done
up=$(api query 'query=min_over_time(up{job="latscope"}[1m])' | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
[ "$up" = 1 ] || die "a scrape of the monitor failed (up went to $up): $(api targets 'state=active')"
api targets 'state=active' | grep -q '"lastError":""' || die "the target has an error: $(api targets 'state=active')"

# the series and their cpu label
api series 'match[]=latscope_latency_seconds_count' > "$TMP/series" || die "api/v1/series failed"
cpus=$(grep -o '"cpu":"[0-9]*"' "$TMP/series" | sort -u | tr '\n' ' ')
[ -n "$cpus" ] || die "no latscope_latency_seconds_count series with a cpu label: $(cat "$TMP/series")"
grep -q '"site":"test"' "$TMP/series" || die "the targets file's labels are not on the series"

# the quantile, once rate() has two points of the storm's samples
q='histogram_quantile(0.99, sum by (le) (rate(latscope_latency_seconds_bucket{kind="wakeup"}[1m])))'
n=0
while :; do
	v=$(api query "query=$q" | sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p')
	case $v in
	[0-9]*) break;;
	esac
	n=$((n + 1)); [ $n -lt 40 ] || die "$q is not a number after 20 s: $(api query "query=$q")"
	sleep 0.5
done
awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 0.01) }' ||
	die "p99 $v s is outside the exposition's bounds (0, 10 ms]"
api query 'query=latscope_monitor_info' | grep -q '"backend":"' || die "no latscope_monitor_info in Prometheus"
cpu=$(api query 'query=latscope_cpu_seconds_total' | sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p')
[ -n "$cpu" ] || die "no latscope_cpu_seconds_total in Prometheus"
echo "prometheus $(prometheus --version 2>&1 | head -1 | awk '{print $3}'): target up over $s scrapes, cpu labels $cpus, $q = $v s, monitor CPU $cpu s"

# the dashboard's queries through this Prometheus
dash=$SRC/contrib/grafana/latscope-dashboard.json
python3 - "$dash" > "$TMP/queries" <<'PYQ' || die "cannot read the dashboard's queries"
import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("$instance", ".*").replace("$cpu", ".*").replace("$kind", "wakeup")
        print(e.replace("$__rate_interval", "1m").replace("\n", " "))
PYQ
nq=0 ndata=0
while IFS= read -r q; do
	r=$(api query "query=$q") || die "Prometheus refused the dashboard's query: $q"
	echo "$r" | grep -q '"status":"success"' || die "the dashboard's query failed: $q: $r"
	nq=$((nq + 1))
	echo "$r" | grep -q '"result":\[\]' || ndata=$((ndata + 1))
	case $q in *latscope_latency_seconds_bucket*)
		echo "$r" | grep -q '"result":\[\]' && die "the dashboard's histogram query has no data: $q";;
	esac
done < "$TMP/queries"
[ $nq -gt 0 ] || die "no query in the dashboard"
echo "dashboard: $nq queries accepted by Prometheus, $ndata with data (the noise and DTL panels are empty without --noise and --dtl)"
