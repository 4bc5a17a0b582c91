#!/bin/sh
# SPDX-License-Identifier: MIT
# hist report --per-task against a reference computed independently: a
# perf record of sched_switch/sched_wakeup on this machine (a sleep loop and
# a SCHED_FIFO one), and an awk pass over `perf script --ns` applying the
# --all-tasks rule for non-RT tasks (docs/hist.md: each task on its own,
# from its first wakeup while it does not run to its switch-in; a switch-out
# forgets a pending wakeup).  Every non-RT task's count and max must match
# latscope's to the ns; without --all-tasks only real-time tasks are listed,
# each adding up exactly the samples the trackers filed for it
# (tests/tools/histsamples);
# the text table shows N rows and counts the rest; --backend bpf refuses.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v perf >/dev/null || skip "no perf"
command -v python3 >/dev/null || skip "no python3"
cd "$TMP" || die "cd"
perf record -q -e sched:sched_switch,sched:sched_wakeup -a -o rec.data -- \
	sh -c 'for i in $(seq 40); do sleep 0.005; done & chrt -f 10 sh -c "for i in \$(seq 40); do sleep 0.005; done"; wait' \
	>/dev/null 2>perf.err || skip "perf record: $(tail -1 perf.err)"
perf script -i rec.data --ns -F cpu,time,event,trace >script.txt 2>/dev/null || die "perf script"
awk '
function kv(i, n) {
	split("", f)
	for (i = 4; i <= NF; i++) { n = index($i, "="); if (n) f[substr($i, 1, n - 1)] = substr($i, n + 1) }
}
{
	cpu = substr($1, 2, length($1) - 2) + 0
	split($2, t, "."); sub(":", "", t[2]); now = t[1] * 1000000000 + t[2]
	kv()
	if ($3 == "sched:sched_wakeup:") {
		pid = f["pid"] + 0; prio = f["prio"] + 0; tgt = f["target_cpu"] + 0
		if (pid <= 0) next
		if (prio < 100) { rt[pid] = 1; next }
		if ((tgt in cur) && cur[tgt] == pid) next	# already running
		if (!(pid in stamp)) stamp[pid] = now
	} else if ($3 == "sched:sched_switch:") {
		pp = f["prev_pid"] + 0; np = f["next_pid"] + 0
		if (pp > 0 && pp != np) delete stamp[pp]
		if (np > 0 && (np in stamp)) {
			l = now - stamp[np]
			if (l >= 0) { cnt[np]++; if (!(np in mx) || l > mx[np]) mx[np] = l }
			delete stamp[np]
		}
		cur[cpu] = np
	}
}
END {
	for (p in cnt) if (!(p in rt)) printf "%d %d %.0f\n", p, cnt[p], mx[p]
	for (p in rt) printf "rt %d\n", p
}' script.txt | sort >ref.txt
grep -qv '^rt ' ref.txt || die "the reference found no non-RT wakeup"
grep -q '^rt ' ref.txt || die "the reference found no RT task"

"$LATSCOPE" hist report -i rec.data --all-tasks --per-task --json >all.json 2>err.txt ||
	die "hist report: $(cat err.txt)"
"$LATSCOPE" hist report -i rec.data --per-task --json >rt.json 2>err.txt || die "hist report (RT): $(cat err.txt)"
# RT tasks (the trackers' per-CPU rules, no simple reference): the table
# must add up the samples the trackers file, pid by pid (histsamples prints
# each through the same observer)
"$TOOLS/histsamples" rec.data >samples.txt || die "histsamples"
python3 - ref.txt all.json rt.json <<'PY' || die "per-task rows differ from the reference"
import json, sys
ref, rt = {}, set()
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "rt":
        rt.add(int(w[1]))
    else:
        ref[int(w[0])] = (int(w[1]), int(w[2]))
j = json.load(open(sys.argv[2]))
t = j["tasks"]
assert t["evicted"] == 0 and t["dropped"] == 0, t
assert j["stats"]["pid_evictions"] == 0, j["stats"]
got = {r["pid"]: (r["count"], r["max_ns"]) for r in t["rows"] if r["pid"] not in rt}
bad = [(p, ref.get(p), got.get(p)) for p in set(ref) | set(got) if ref.get(p) != got.get(p)]
assert not bad, bad[:10]
for r in t["rows"]:
    assert r["p50_ns"] <= r["p99_ns"] <= r["max_ns"], r
maxes = [r["max_ns"] for r in t["rows"]]
assert maxes == sorted(maxes, reverse=True), "not worst first"
print("ok: %d non-RT tasks match the reference (count, max)" % len(got))
r = json.load(open(sys.argv[3]))["tasks"]["rows"]
assert r and all(x["pid"] in rt for x in r), ("not RT only", r[:3], rt)
filed = {}
for line in open("samples.txt"):
    w = line.split()
    if w[0] == "sample" and w[1] in ("wakeup", "wakeup/sharedprio"):
        c, m = filed.get(int(w[6]), (0, 0))
        filed[int(w[6])] = (c + 1, max(m, int(w[4])))
got = {x["pid"]: (x["count"], x["max_ns"]) for x in r}
assert got == filed, (got, filed)
print("ok: %d RT tasks add up the trackers' samples" % len(got))
PY

# the text: 2 rows and the rest counted
"$LATSCOPE" hist report -i rec.data --all-tasks --per-task=2 --types wakeup >txt 2>err.txt || die "text: $(cat err.txt)"
n=$(awk '/^tasks that waited longest/ { on = 1; getline; next } on && /^  \.\.\. / { print; exit }' txt)
echo "$n" | grep -q '^  \.\.\. [0-9]* more tasks' || die "text: no '... more tasks' line: $(cat txt)"
rows=$(awk '/^tasks that waited longest/ { on = 1; getline; next } on && /^  \.\.\. / { exit } on { n++ } END { print n + 0 }' txt)
[ "$rows" = 2 ] || die "text: $rows rows, not 2"
grep -q "tasks in 1024 slots" txt || die "text: no table summary"
"$LATSCOPE" hist report -i rec.data --per-task=x >/dev/null 2>err.txt && die "--per-task=x accepted"
grep -q "per-task" err.txt || die "--per-task=x: $(cat err.txt)"
"$LATSCOPE" hist record --backend bpf --per-task -d 1 >/dev/null 2>err.txt && die "--backend bpf --per-task ran"
grep -q "keeps no latency per task" err.txt || die "bpf refusal: $(cat err.txt)"
echo "ok: hist_per_task"
