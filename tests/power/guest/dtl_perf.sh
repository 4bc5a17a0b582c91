#!/bin/sh
# SPDX-License-Identifier: MIT
# perf beside latscope in the pseries guest: sid's perf for ppc64el
# (tests/power/perfroot.sh, in /perf) records vpa_dtl with sched_switch for
# 1 s under the test hypervisor, latscope dtl record --pmu records as long;
# each file, and one of latscope dtl synth, is printed by both tools: perf report -D against latscope dtl
# dump, perf script against latscope dtl script.  The texts come back as
# artefacts; tests/power/host/dtl_perf.sh compares them, and both with the
# hypervisor's log.
# needs: pmu:vpa_dtl file:/perf/bin/perf
# timeout: 240
. "$KTEST_DIR/guest/lib.sh"
# its own C library and loader: whatever latscope's build links
perf() { /perf/lib/ld64.so.2 --library-path /perf/lib /perf/bin/perf "$@"; }
perf --version > "$ART/perf.version" 2>&1 || die "sid's perf does not run here: $(cat "$ART/perf.version")"
echo "$(cat "$ART/perf.version") ($(cat /perf/version))"
for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
# (-N: no build-id cache, nowhere to keep one; -B: no build-id pass)
perf record -N -B -a -e vpa_dtl/dtl_all/ -e sched:sched_switch -o "$ART/perf.data" -- sleep 1 \
	> "$ART/perf.rec" 2>&1 || die "perf record failed: $(tail -3 "$ART/perf.rec")"
latscope dtl record --pmu -d 1 -o "$ART/ls.data" > "$ART/ls.rec" 2>&1 ||
	die "latscope dtl record failed: $(tail -3 "$ART/ls.rec")"
kill $(jobs -p) 2>/dev/null
# and a file of dtl synth (its realistic layout: AUX data drained after newer
# sched samples), which perf must read as it reads its own
latscope dtl synth -o "$ART/syn.data" --cpus 2 -d 1 > "$ART/syn.rec" 2>&1 ||
	die "latscope dtl synth failed: $(tail -3 "$ART/syn.rec")"
for f in perf ls syn; do
	perf report -D -i "$ART/$f.data" > "$ART/$f.perf-D" 2> "$ART/$f.perf-D.err" ||
		die "$f: perf report -D failed: $(tail -3 "$ART/$f.perf-D.err")"
	perf script -i "$ART/$f.data" > "$ART/$f.perf-script" 2> "$ART/$f.perf-script.err" ||
		die "$f: perf script failed: $(tail -3 "$ART/$f.perf-script.err")"
	latscope dtl dump "$ART/$f.data" > "$ART/$f.ls-dump" 2> "$ART/$f.ls-dump.err" ||
		die "$f: latscope dtl dump failed: $(tail -3 "$ART/$f.ls-dump.err")"
	# (perf names srr0 from the running kernel's kallsyms even in synth's
	# file of another kernel, 6.18.0-synth; latscope only when told so)
	ks=""
	[ $f != syn ] || ks="--kallsyms /proc/kallsyms"
	# shellcheck disable=SC2086
	latscope dtl script $ks -i "$ART/$f.data" > "$ART/$f.ls-script" 2> "$ART/$f.ls-script.err" ||
		die "$f: latscope dtl script failed: $(tail -3 "$ART/$f.ls-script.err")"
	echo "$f: perf -D $(grep -c ': dispatch_reason:' "$ART/$f.perf-D") DTL slots, latscope dump $(grep -c ': dispatch_reason:' "$ART/$f.ls-dump");" \
		"perf script $(grep -c 'vpa-dtl:' "$ART/$f.perf-script") entries, latscope script $(grep -c 'vpa-dtl:' "$ART/$f.ls-script")"
done
