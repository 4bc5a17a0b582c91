#!/bin/sh
# SPDX-License-Identifier: MIT
# The dtl command lines (src/cli.c tables): a bad value is one line on stderr
# naming the command, the option and what is expected, with exit 2; --help
# is exit 0 on stdout; the shared spellings work (--cpus beside -C, sizes
# and durations with suffixes, dtl record -m SIZE[,AUX], --ring-size and
# --aux-size).
. "$TESTS_DIR/lib.sh"
L=$LATSCOPE
F=$TESTS_DIR/data/formats
cd "$TMP" || die "no tmp"
bad() {	# bad "EXPECTED LINE" ARGS...: exit 2, exactly that one line on stderr
	want=$1; shift
	"$L" "$@" >out 2>err </dev/null; rc=$?
	[ $rc -eq 2 ] || die "$*: exit $rc"
	[ "$(wc -l <err)" -eq 1 ] || die "$*: not one line: $(cat err)"
	[ "$(cat err)" = "$want" ] || die "$*: '$(cat err)', want '$want'"
	[ -s out ] && die "$*: wrote to stdout"
	return 0
}
bad "latscope dtl script: --time 'x': expected START,END in seconds" dtl script --time x f.data
bad "latscope dtl script: --reorder-window '3q': expected a duration (e.g. 2s, 500ms; 0 = none) or auto" \
	dtl script --reorder-window 3q f.data
bad "latscope dtl script: --pipe-budget '0': expected a size in bytes (suffixes K, M, G)" \
	dtl script --pipe-budget 0 f.data
bad "latscope dtl script: --cpu '3-1': expected a CPU list such as 0-3,5" dtl script -C 3-1 f.data
bad "latscope dtl script: unknown option '--nope'; see --help" dtl script --nope f.data
bad "latscope dtl script: no input: give FILE or -i FILE; see --help" dtl script
bad "latscope dtl dump: unexpected argument 'b'; see --help" dtl dump a b
bad "latscope dtl report: --top '2000000': expected 0..1000000" dtl report --top 2000000 f.data
bad "latscope dtl report: --tb-freq '0': expected a positive integer" dtl report --tb-freq 0 f.data
bad "latscope dtl synth: --load '2': expected 0.01..0.98" dtl synth -o x.data --load 2
bad "latscope dtl synth: --compression-level '23': expected 1..22" dtl synth -o x.data -z23
bad "latscope dtl synth: -o FILE is required; see --help" dtl synth
bad "latscope dtl record: --event 'foo': expected dtl_all, dtl_cede, dtl_preempt or dtl_fault" dtl record -e foo
bad "latscope dtl record: --mmap-pages '3': expected a power of two of pages, or a size such as 512K or 4M that is a power of two of pages, optionally followed by ,AUX in the same form" \
	dtl record -m 3
bad "latscope dtl record: --mmap-pages '64,3': expected a power of two of pages, or a size such as 512K or 4M that is a power of two of pages, optionally followed by ,AUX in the same form" \
	dtl record -m 64,3
bad "latscope dtl record: --aux-size '12K': expected a size such as 64K or 4M (a bare number is KiB) that is a power of two of pages" \
	dtl record --aux-size 12K
bad "latscope dtl synth: --aux-size: not a power of two of 4K pages: 12288" dtl synth -o x.data --aux-size 12K
bad "latscope dtl record: --duration '0': expected a duration such as 10s, 1m30s, 500ms (a bare number is seconds)" \
	dtl record -d 0
bad "latscope dtl record: --cpus 'x': expected a CPU list such as 0-3,5" dtl record --cpus x

for c in dump script report record synth; do
	"$L" dtl $c --help >out 2>err || die "dtl $c --help: exit $?"
	grep -q "^usage: latscope dtl $c" out || die "dtl $c --help: $(head -1 out)"
	[ -s err ] && die "dtl $c --help wrote to stderr"
done
grep -q -- '--ring-size SIZE' out && die "synth has no --ring-size"
"$L" dtl record --help | grep -q -- '--ring-size SIZE' || die "record --help: no --ring-size"

# suffixes and the shared spellings are accepted
"$L" dtl synth -q --formats "$F" --cpus 2 -d 200ms -c 1ms --round 4ms -z -o s.data || die "synth with suffixes"
"$L" dtl script --cpus 1 --pipe-budget 16M --reorder-window 500ms s.data >s.out 2>/dev/null || die "script --cpus"
grep -q '\[000\]' s.out && die "script --cpus 1 printed CPU 0"
grep -q '\[001\]' s.out || die "script --cpus 1 printed no CPU 1"
"$L" dtl report --cpus 0 --json s.data >/dev/null 2>&1 || die "report --cpus"
# dtl record: the ring options parse (the missing sysfs is the error, not them)
for a in "-m 512K" "-m 64" "-m 64,16" "-m ,1M" "-m 512K,8M" "--aux-size 4M" "--aux-size 64" \
	"--ring-size 1M" "--ring-size 1024" "-c 10ms"; do
	"$L" dtl record $a --sysfs "$TMP/none" -T none -o r.data -- true 2>err; rc=$?
	[ $rc -eq 2 ] && grep -q 'cannot read the online CPUs' err || die "record $a: exit $rc, $(cat err)"
done
echo "ok: dtl command lines (one-line errors, --help, shared spellings)"
