#!/bin/sh
# Ground truth: a SCHED_FIFO thread (tests/tools/noisegen) wakes every 10 ms on
# the measured CPU and spins 200 us.  latscope must attribute that noise to
# THREAD with noisegen's comm:pid, its total within 10 % of what noisegen
# measured itself, and count one thread entry per wake-up.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (SCHED_FIFO, tracepoints)"
J=$TOOLS/osnjson
ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs (one measured, one for the collector)"
CPU=1
"$LATSCOPE" osnoise top -c $CPU -H 0 -d 6 --top 256 --json > "$TMP/run.json" 2> "$TMP/err" &
pid=$!
sleep 1
"$TOOLS/noisegen" thread -c $CPU -i 10000 -s 200 -d 4 > "$TMP/ng" || die "noisegen failed"
wait $pid; rc=$?
[ $rc -eq 0 ] || die "latscope exit $rc: $(cat "$TMP/err")"
[ "$($J "$TMP/run.json" attribution)" = true ] || skip "no tracepoints: $($J "$TMP/run.json" attribution_off)"
tid=$(sed -n 's/.*tid=\([0-9]*\).*/\1/p' "$TMP/ng")
wakes=$(sed -n 's/.*wakes=\([0-9]*\).*/\1/p' "$TMP/ng")
inj=$(sed -n 's/.*spin_total_ns=\([0-9]*\).*/\1/p' "$TMP/ng")
[ -n "$tid" ] && [ "$wakes" -gt 300 ] || die "noisegen did not run: $(cat "$TMP/ng")"
ent=$($J "$TMP/run.json" "cpus.0.top[name=noisegen]") || die "noisegen not among the contributors: $(cat "$TMP/run.json")"
cls=$($J "$TMP/run.json" "cpus.0.top[name=noisegen].class")
id=$($J "$TMP/run.json" "cpus.0.top[name=noisegen].id")
tot=$($J "$TMP/run.json" "cpus.0.top[name=noisegen].total_ns")
cnt=$($J "$TMP/run.json" "cpus.0.top[name=noisegen].count")
echo "injected $inj ns in $wakes wake-ups by tid $tid; measured $cls $id: $tot ns in $cnt entries"
[ "$cls" = thread ] || die "class is $cls, not thread"
[ "$id" = "$tid" ] || die "pid $id is not noisegen's tid $tid"
# within 10 %
lo=$((inj * 90 / 100)); hi=$((inj * 110 / 100))
[ "$tot" -ge $lo ] && [ "$tot" -le $hi ] || die "thread noise $tot ns not within 10% of $inj ns"
# one entry per wake-up (plus the start of the process on that CPU)
[ "$cnt" -ge "$wakes" ] && [ "$cnt" -le $((wakes + 3)) ] || die "$cnt entries for $wakes wake-ups"
# the table's thread counter counts them too, and the thread share of the noise is there
th=$($J "$TMP/run.json" cpus.0.thread)
[ "$th" -ge "$wakes" ] || die "thread counter $th < $wakes"
tus=$($J "$TMP/run.json" cpus.0.thread_us)
[ "$tus" -ge $((inj / 1000 * 90 / 100)) ] || die "thread_us $tus below the injected noise"
exit 0
