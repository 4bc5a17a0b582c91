#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope monitor --dtl against files built by the test, as
# dtl_record_debugfs.sh: a fake sysfs/debugfs/procfs tree (no vpa_dtl PMU;
# powerpc/dtl/{dtl_event_mask,cpu-0,cpu-1}, a stray partial entry on cpu-1;
# cpuinfo's timebase).  The truth is `latscope dtl record` of the same files
# read back by `dtl script --csv` (that path is dtl_record_debugfs.sh's).
#  - per CPU, latscope_dtl_entries_total, the dispatches and preemptions by
#    reason, and latscope_dtl_hypervisor_seconds_total (the sum of
#    enqueue_to_dispatch + ready_to_enqueue over tb_freq) equal the truth's;
#  - the mask is written while it runs and written back after SIGTERM;
#  - SIGHUP: no DTL entry left (the files are read to their end);
#  - without a DTL source --dtl is an error that says why (exit 2);
#  - the Grafana dashboard in contrib/ names only metrics the monitor exports
#    (their families, in this exposition: --dtl and --noise, every family).
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (the histogram backend beside the DTL)"
[ -x "$TOOLS/mkdtl" ] || skip "mkdtl tool not built"
command -v curl >/dev/null || skip "needs curl"
mpid=""
trap 'kill $mpid 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
cd "$TMP" || die "no tmp"
fake_dtl_tree
ROOTS="--sysfs sys --debugfs dbg --procfs proc"

# the truth
"$LATSCOPE" dtl record $ROOTS -T none -o truth.data -- sleep 0.1 2> rec.err || die "dtl record: $(cat rec.err)"
"$LATSCOPE" dtl script --csv truth.data > truth.csv 2>/dev/null || die "dtl script"
# "cpu entries stolen_ticks" and "cpu d|p reason count"
awk -F, 'NR > 1 { n[$1]++; t[$1] += $6 + $7; d[$1 " d " $4]++; p[$1 " p " $5]++ }
	END { for (c in n) print c, "e", n[c], t[c]; for (k in d) print k, d[k]; for (k in p) print k, p[k] }' truth.csv |
	sort > truth.sum
[ "$(grep -c ' e ' truth.sum)" = 2 ] || die "the truth has not 2 CPUs: $(cat truth.sum)"

monitor_start mon --listen 127.0.0.1:0 --refresh 200ms -c 0-1 --dtl $ROOTS --noise 1ms/1s
n=0
until grep -q 'DTL counters: 2 CPUs via debugfs' mon.err; do
	if ! kill -0 $mpid 2>/dev/null; then
		grep -q 'need the osnoise bpf backend' mon.err && skip "$(tail -1 mon.err)"
		die "the monitor ended: $(cat mon.err)"
	fi
	n=$((n + 1)); [ $n -lt 100 ] || die "no DTL counters after 10 s: $(cat mon.err)"
	sleep 0.1
done
sleep 1
mask_during=$(cat dbg/powerpc/dtl/dtl_event_mask)
curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" > m1 || die "scrape"
command -v promtool >/dev/null && { promtool check metrics < m1 > pc 2>&1 || die "promtool: $(head -3 pc)"; }
# the monitor's counters in the truth's form
awk '
	/^latscope_dtl_entries_total\{/ { split($1, a, "\""); e[a[2]] = $2 }
	/^latscope_dtl_hypervisor_seconds_total\{/ { split($1, a, "\""); h[a[2]] = $2 }
	/^latscope_dtl_dispatches_total\{/ { split($1, a, "\""); print a[2], "d", a[4], $2 }
	/^latscope_dtl_preemptions_total\{/ { split($1, a, "\""); print a[2], "p", a[4], $2 }
	END { for (c in e) printf "%s e %s %.0f\n", c, e[c], h[c] * 512000000 }' m1 | sort > mon.sum
if ! cmp -s truth.sum mon.sum; then
	diff truth.sum mon.sum | head -10
	die "the monitor's DTL counters differ from dtl record's (< truth, > monitor)"
fi
echo "DTL: $(grep ' e ' mon.sum | awk '{ printf "CPU %s %s entries, %s ticks; ", $1, $3, $4 }')$(grep -c ' [dp] ' mon.sum) reason counts = dtl record's"
[ "$mask_during" != 0x00 ] || die "the mask was not written while the monitor ran"

kill -HUP $mpid
sleep 0.5
curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" > m2 || die "scrape after SIGHUP"
[ "$(prom_val m2 'latscope_dtl_entries_total{cpu="0"}')" = none ] || die "DTL entries left after SIGHUP: $(grep '^latscope_dtl_entries' m2)"
kill -TERM $mpid
wait $mpid
rc=$?
mpid=""
[ $rc = 0 ] || die "exit $rc after SIGTERM: $(tail -3 mon.err)"
[ "$(cat dbg/powerpc/dtl/dtl_event_mask)" = 0x00 ] || die "the mask is not back: $(cat dbg/powerpc/dtl/dtl_event_mask)"
echo "mask $mask_during while running, 0x00 after SIGTERM; SIGHUP left no entry"

"$LATSCOPE" monitor --listen 127.0.0.1:0 --dtl --sysfs sys --debugfs empty --procfs proc -d 2 > e.out 2> e.err && die "--dtl without a source ran"
[ $? = 2 ] || die "--dtl without a source: exit not 2"
grep -q 'no powerpc/ there: not POWER' e.err || die "--dtl without a source: $(cat e.err)"
echo "no DTL source: exit 2, $(grep -o 'no DTL source[^(]*' e.err | head -1)"

dash=$(dirname "$TESTS_DIR")/contrib/grafana/latscope-dashboard.json
sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' m1 > families
grep -o 'latscope_[a-z_]*' "$dash" | sort -u > dash
[ -s dash ] || die "the dashboard names no latscope metric"
while read -r m; do
	f=$(echo "$m" | sed 's/_\(bucket\|sum\|count\)$//')
	grep -qx "$f" families || die "the dashboard's $m is not a metric the monitor exports"
done < dash
echo "dashboard: its $(wc -l < dash) metrics are all exported"
