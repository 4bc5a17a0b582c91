# SPDX-License-Identifier: MIT
# Helpers for shell tests: source "$TESTS_DIR/lib.sh".
set -u
TMP=$(mktemp -d "${TMPDIR:-/tmp}/latscope-test.XXXXXX")
[ -n "${KEEP_TMP:-}" ] && echo "keeping $TMP" >&2
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT INT TERM
skip() { echo "skip: $*"; exit 77; }
die() { echo "FAIL: $*" >&2; exit 1; }
# The shared real recording (sched-load.perf.data.zst) lives outside the
# repository: tests use it only when SHARED_DATA names it (opt-in, e.g.
# make check SHARED_DATA=../shared/data/sched-load.perf.data.zst); without it
# they run on data shipped in tests/data or recorded at test time.
# Decompressed once per run into a cache.
SHARED_DATA=${SHARED_DATA:-}
shared_recording() {
	[ -n "$SHARED_DATA" ] || return 1
	[ -f "$SHARED_DATA" ] || die "SHARED_DATA=$SHARED_DATA: no such file"
	cache=${LATSCOPE_CACHE:-${TMPDIR:-/tmp}/latscope-cache}
	mkdir -p "$cache"
	if [ ! -s "$cache/sched-load.perf.data" ]; then
		command -v zstd >/dev/null || return 1
		zstd -q -d -f "$SHARED_DATA" -o "$cache/sched-load.perf.data.tmp" && \
			mv "$cache/sched-load.perf.data.tmp" "$cache/sched-load.perf.data"
	fi
	echo "$cache/sched-load.perf.data"
}
# The kernel's BPF objects of one of latscope's BPF backends, by the prefix
# its programs' and maps' names share (bpfhist_, osnbpf_), read with bpftool
# (BPFTOOL): bpf_ours PREFIX counts its programs and maps; bpf_our_links
# PREFIX prints the links that hold its programs (a link names its
# program's id); bpf_gone PREFIX waits up to 5 s for none to be left (the
# kernel frees a closed program after an RCU grace period).
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
bpf_ours() { { "$BPFTOOL" prog list; "$BPFTOOL" map list; } 2>/dev/null | grep -c "name $1"; }
bpf_our_links() {
	for id in $("$BPFTOOL" prog list 2>/dev/null | sed -n "s/^\([0-9]*\): .* name $1.*/\1/p"); do
		"$BPFTOOL" link list 2>/dev/null | grep " prog $id *\$"
	done
}
bpf_gone() {
	bg_n=0
	while [ "$(bpf_ours "$1")" -gt 0 ] && [ $bg_n -lt 50 ]; do sleep 0.1; bg_n=$((bg_n + 1)); done
	[ "$(bpf_ours "$1")" -eq 0 ]
}
# bpf_skip_if_refused ERRFILE: a latscope run that ended early (its stderr in
# ERRFILE) skips the test when the binary has no bpf backend or the kernel
# refused BPF; otherwise returns.
bpf_skip_if_refused() {
	grep -q 'built without the bpf backend' "$1" && skip "$(cat "$1")"
	grep -qi 'backend bpf refused' "$1" && skip "this kernel refuses BPF: $(cat "$1")"
	return 0
}

# prom_val FILE SERIES: the value of the sample SERIES (name{labels} exactly
# as the exposition prints it) in FILE, "none" when it has none.
prom_val() { awk -v s="$2" 'index($0, s " ") == 1 { print $NF; f = 1; exit } END { if (!f) print "none" }' "$1"; }

# monitor_start PREFIX ARGS...: `latscope monitor ARGS` in the background,
# stdout and stderr in PREFIX.out and PREFIX.err; waits (15 s at most) for
# the line naming its port: sets mpid and port.  A monitor that ends first
# skips where BPF is refused or compiled out, fails otherwise.
monitor_start() {
	ms_p=$1
	shift
	: > "$ms_p.err"
	"$LATSCOPE" monitor "$@" > "$ms_p.out" 2> "$ms_p.err" &
	mpid=$!
	ms_n=0
	until port=$(sed -n 's/.*serving \/metrics on port \([0-9]*\) .*/\1/p' "$ms_p.err") && [ -n "$port" ]; do
		kill -0 $mpid 2>/dev/null || { bpf_skip_if_refused "$ms_p.err"; die "the monitor ended at start: $(cat "$ms_p.err")"; }
		ms_n=$((ms_n + 1)); [ $ms_n -lt 150 ] || die "the monitor does not listen after 15 s: $(cat "$ms_p.err")"
		sleep 0.1
	done
}

# fake_dtl_tree: in the current directory, a fake sysfs/debugfs/procfs of a
# POWER LPAR with 2 CPUs and no vpa_dtl PMU (sys, dbg, proc; and an empty
# directory, empty): powerpc/dtl/dtl_event_mask 0x00, cpu-0 with 7 entries
# and cpu-1 with 5 and a stray partial one (tests/tools/mkdtl), cpuinfo's
# timebase 512 MHz.
fake_dtl_tree() {
	mkdir -p sys/devices/system/cpu dbg/powerpc/dtl proc empty
	echo 0-1 > sys/devices/system/cpu/online
	printf 'processor\t: 0\ncpu\t\t: POWER10 (architected)\ntimebase\t: 512000000\nplatform\t: pSeries\n' > proc/cpuinfo
	echo 0x00 > dbg/powerpc/dtl/dtl_event_mask
	"$TOOLS/mkdtl" --raw 7 --tb0 2000000 --cpu 0 -o dbg/powerpc/dtl/cpu-0 || die mkdtl
	"$TOOLS/mkdtl" --raw 5 --tb0 2002560 --cpu 1 --partial 20 -o dbg/powerpc/dtl/cpu-1 || die mkdtl
}
