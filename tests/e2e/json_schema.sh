#!/bin/sh
# SPDX-License-Identifier: MIT
# The JSON output contract (docs/json.md): every command's --json document
# validates against its schema in docs/schema (additionalProperties false:
# an undocumented key fails), every key of docs/json.md's tables is in a
# schema and the other way round, --json=FILE writes the text to stdout and
# the JSON to FILE, and the monitor's metric names follow the Prometheus
# naming rule.  The offline commands read made recordings (tests/tools/mkdtl,
# dtl synth, the shipped perf recordings, an osnoise recording made here);
# the live ones run for a second; dtl why on a synth recording with
# preempted wakeups.  Needs Debian's python3-jsonschema
# (scripts/deps.sh): skips without it.
. "$TESTS_DIR/lib.sh"
PY=/usr/bin/python3
V=$TESTS_DIR/json_validate.py
SD=$TESTS_DIR/../docs/schema
MD=$TESTS_DIR/../docs/json.md
[ -x $PY ] || skip "no /usr/bin/python3"
$PY -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema (apt-get install python3-jsonschema)"
cd "$TMP" || die "no tmp"
n=0
# check NAME FILE: FILE holds documents of its "schema" kind, all valid
check() {
	[ -s "$2" ] || die "$1: no output"
	$PY "$V" "$SD" "$2" > "$2.v" 2>&1 || die "$1: $(head -5 "$2.v")"
	n=$((n + 1))
}
# run NAME CMD...: CMD's stdout checked (its stderr kept for the message)
run() {
	name=$1; shift
	"$@" > "$name.json" 2> "$name.err"; rc=$?
	[ $rc -le 1 ] || die "$name: exit $rc: $(tail -3 "$name.err")"
	check "$name" "$name.json"
}
# tofile NAME ARGS...: latscope ARGS --json=NAME.file: text on stdout, JSON in the file
tofile() {
	name=$1; shift
	"$LATSCOPE" "$@" --json="$name.file" > "$name.txt" 2> "$name.ferr"; rc=$?
	[ $rc -le 1 ] || die "$name --json=FILE: exit $rc: $(tail -3 "$name.ferr")"
	[ -s "$name.txt" ] || die "$name --json=FILE: no text on stdout"
	$PY -c 'import json,sys; json.loads(sys.stdin.readline())' < "$name.txt" 2>/dev/null &&
		die "$name --json=FILE: stdout is JSON, not the text"
	check "$name --json=FILE" "$name.file"
}

# 1. docs and schemas in step; the validator can fail
$PY "$V" --keys "$MD" "$SD" > keys.out || die "docs/json.md and docs/schema differ: $(cat keys.out)"
printf '{"schema":"latscope.hist/1","bucket_ns":1,"p99.9_ns":5}\n' > wrong.json
$PY "$V" "$SD" wrong.json > wrong.v 2>&1 && die "a document with an undocumented key passed"
grep -q "p99.9_ns" wrong.v || die "the validator does not name the wrong key: $(cat wrong.v)"

# 2. offline: latscope script, dtl script/report, hist report, osnoise --parse-kernel
R=$TESTS_DIR/data/rec
for f in "$R"/*.perf.data; do
	run "script-$(basename "$f" .perf.data)" "$LATSCOPE" script -q --json --kallsyms '' -i "$f"
done
tofile script-file script -q --kallsyms '' -i "$R/sched-zstd.perf.data"
F=$TESTS_DIR/data/formats
"$TOOLS/mkdtl" -o edge.data --formats "$F" || die "mkdtl"
run dtl-script-edge "$LATSCOPE" dtl script --json edge.data
run dtl-report-edge "$LATSCOPE" dtl report --json edge.data
"$LATSCOPE" dtl synth -q --formats "$F" --cpus 4 --duration 100ms --seed 21 -c 1000000 --load 0.5 \
	-o synth.data 2> synth.err || die "dtl synth: $(cat synth.err)"
run dtl-script-synth "$LATSCOPE" dtl script --json --kallsyms "$TESTS_DIR/data/kallsyms-lpar" synth.data
run dtl-report-synth "$LATSCOPE" dtl report --json --kallsyms "$TESTS_DIR/data/kallsyms-lpar" synth.data
grep -q '"tasks"' dtl-report-synth.json || die "the synth report has no tasks: the timeline keys are untested"
tofile dtl-script-file dtl script synth.data
tofile dtl-report-file dtl report synth.data
"$LATSCOPE" dtl synth -q --formats "$F" --cpus 2 --duration 300ms --seed 5 --wakeup-preempts 500 \
	-o why.data 2> why.err || die "dtl synth --wakeup-preempts: $(cat why.err)"
run dtl-why "$LATSCOPE" dtl why --json -n 20 --kallsyms "$TESTS_DIR/data/kallsyms-lpar" why.data
grep -q '"class": "hypervisor"' dtl-why.json || die "dtl why: no hypervisor part: its keys are untested"
tofile dtl-why-file dtl why why.data
cat > k.txt <<'T'
# tracer: osnoise
     osnoise/0-859     [000] ....    81.637220: 1000000        190  99.98100       9     18      0   1007     18      1
     osnoise/1-860     [001] d.h.    81.900000: irq_noise: local_timer:236 start 81.899998000 duration 1845 ns
     osnoise/1-860     [001] ....    81.900002: sample_threshold: start 81.899997000 duration 3000 ns interference 1
     osnoise/1-860     [001] ....    82.637221: 1000000        100  99.99000       4      5      0    999     21      3
T
run osnoise-parse-kernel "$LATSCOPE" osnoise hist --parse-kernel k.txt --json
# timerlat: a 6.1-rt guest's trace, and its -t file of a stopped run (stop, stack)
TL=$TESTS_DIR/data/timerlat
run timerlat-hist "$LATSCOPE" timerlat hist --parse-kernel "$TL/truth-rt61.txt" --json
run timerlat-top-stop "$LATSCOPE" timerlat top --parse-kernel "$TL/stop-rt61.txt" -T 1 --json
tofile timerlat-file timerlat hist --parse-kernel "$TL/truth-rt61.txt"

# 3. live: a second each
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r /sys/kernel/tracing/events/sched/sched_switch/format ] ||
	skip "no readable tracefs: the live commands cannot run ($n offline documents were valid)"
for m in top hist trace; do
	run "osnoise-$m" "$LATSCOPE" osnoise $m -c 0 -d 1s --json
done
run osnoise-record "$LATSCOPE" osnoise record -c 0 -d 1s -o osn.data --json
run osnoise-replay-top "$LATSCOPE" osnoise top -i osn.data --json
run osnoise-replay-hist "$LATSCOPE" osnoise hist -i osn.data --json
tofile osnoise-file osnoise hist -i osn.data
run hist-record "$LATSCOPE" hist record -c 0 -d 1s --timer-workload -o hist.data --buckets-json
run hist-report "$LATSCOPE" hist report -i hist.data --json
run hist-report-tasks "$LATSCOPE" hist report -i hist.data --json --per-task --all-tasks
tofile hist-report-file hist report -i hist.data --buckets-json
run hist-top "$LATSCOPE" hist top -c 0 -d 1s --json
# the other backends' keys (bpf, input.bpf_*, input.hist_triggers, kernel_window) where
# this kernel has them; a refusal is said, not failed
other=""
for b in bpf kernel; do
	if "$LATSCOPE" hist record -c 0 -d 1s --timer-workload --backend $b --json > hist-$b.json 2> hist-$b.err; then
		check "hist --backend $b" hist-$b.json; other="$other hist/$b"
	else
		echo "hist --backend $b not checked here: $(tail -1 hist-$b.err)"
	fi
	if "$LATSCOPE" osnoise top -c 0 -d 1s --backend $b --json > osnoise-$b.json 2> osnoise-$b.err; then
		check "osnoise --backend $b" osnoise-$b.json; other="$other osnoise/$b"
	else
		echo "osnoise --backend $b not checked here: $(tail -1 osnoise-$b.err)"
	fi
done
grep -q '"prio": *95' hist-record.json ||
	die "the timer workload (SCHED_FIFO 95) is not prio 95 as the text shows it: $(grep '"prio"' hist-record.json | head -2)"

# 4. the monitor's metric names (latency, noise and DTL families)
command -v curl >/dev/null || skip "no curl for the monitor's names ($n documents valid)"
fake_dtl_tree
monitor_start mon --listen 127.0.0.1:0 --refresh 200ms -c 0-1 --dtl --sysfs sys --debugfs dbg --procfs proc \
	--noise 1ms/1s
k=0
until curl -sf "http://127.0.0.1:$port/metrics" > metrics.txt && grep -q '^latscope_dtl_' metrics.txt &&
	grep -q '^latscope_noise_' metrics.txt; do
	k=$((k + 1)); [ $k -lt 100 ] || { kill $mpid; die "no DTL or noise metrics after 10 s"; }
	sleep 0.1
done
kill -TERM $mpid; wait $mpid
$PY "$V" --prom metrics.txt > prom.out || die "metric names: $(cat prom.out)"
sed 's/latscope_resets_total/latscope_resets/g' metrics.txt > wrong.prom
$PY "$V" --prom wrong.prom > /dev/null && die "a counter without _total passed the name check"
echo "ok: $n JSON documents valid (script, dtl script/report, osnoise top/hist/trace/record/replay/parse-kernel, timerlat hist/top, hist record/report/top, other backends:${other:- none}, --json=FILE of 6), docs in step, $(cat prom.out | sed 's/^ok: //')"
