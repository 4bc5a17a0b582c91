#!/bin/sh
# SPDX-License-Identifier: MIT
# The DTL commands on damaged recordings say what they counted, put it in the
# JSON, and let --strict turn it into exit 1; write errors give exit 2; a file
# without DTL is refused by `dtl report`; implausible timebase parameters are
# named with their CPU and value, and --tb-freq/--boot-tb override them.
. "$TESTS_DIR/lib.sh"
F=$TESTS_DIR/data/formats
[ -x "$TOOLS/dtldamage" ] || skip "test tools not built"
cd "$TMP" || die "no tmp"
"$LATSCOPE" dtl synth -q --formats "$F" --cpus 4 --duration 300ms --seed 9 -o ok.data || die "synth"
"$LATSCOPE" dtl synth -q --formats "$F" --cpus 2 --duration 50ms --seed 9 --no-dtl -o nodtl.data || die "synth --no-dtl"

# write errors end the run with exit 2 and one line
for c in "dtl script" "dtl dump" "dtl report" "dtl report --json" "dtl script --json"; do
	# shellcheck disable=SC2086
	"$LATSCOPE" $c ok.data > /dev/full 2> full.err; rc=$?
	[ $rc = 2 ] || die "$c > /dev/full: exit $rc"
	grep -q 'error writing standard output' full.err || die "$c > /dev/full: no message: $(cat full.err)"
done

# input that is not theirs
"$LATSCOPE" dtl report nodtl.data > /dev/null 2> e.err; rc=$?
[ $rc = 2 ] && grep -q 'has no DTL entries' e.err || die "report without DTL: exit $rc, $(cat e.err)"
"$LATSCOPE" dtl dump nodtl.data > /dev/null 2> e.err; rc=$?
[ $rc = 2 ] || die "dump without DTL: exit $rc"

# a clean file passes --strict
"$LATSCOPE" dtl script --strict ok.data > /dev/null 2> e.err || die "strict on a clean file: $(cat e.err)"
"$LATSCOPE" dtl report --strict ok.data > /dev/null 2> e.err || die "report strict on a clean file: $(cat e.err)"

# an AUX buffer of CPU 5000: dropped, said, counted, and exit 1 under --strict
"$TOOLS/dtldamage" --bad-cpu ok.data cpu.data || die "dtldamage --bad-cpu"
"$LATSCOPE" dtl script cpu.data > /dev/null 2> e.err || die "script with a bad CPU failed: $(cat e.err)"
grep -q '1 AUX buffers dropped (CPU number out of range' e.err || die "no word of the dropped buffer"
"$LATSCOPE" dtl script --json cpu.data 2>/dev/null | tail -1 | grep -q '"dropped_buffers":1' ||
	die "the JSON summary does not count the dropped buffer"
"$LATSCOPE" dtl script --strict cpu.data > /dev/null 2> e.err; rc=$?
[ $rc = 1 ] && grep -q -- '--strict: the result is incomplete: 1 AUX buffers dropped' e.err ||
	die "script --strict with a dropped buffer: exit $rc, $(cat e.err)"
"$LATSCOPE" dtl report --json cpu.data > r.json 2> e.err || die "report with a bad CPU"
grep -q '"dropped_buffers": 1' r.json || die "report JSON does not count the dropped buffer"
"$LATSCOPE" dtl report --strict cpu.data > /dev/null 2>&1; [ $? = 1 ] || die "report --strict with a dropped buffer"
# the loss is named on stderr in text mode as well as in JSON
for m in "" --json; do
	"$LATSCOPE" dtl report $m cpu.data > /dev/null 2> e.err || die "report $m with a bad CPU: $(cat e.err)"
	grep -q '1 AUX buffers dropped (CPU number out of range' e.err || die "report $m: no word of the dropped buffer: $(cat e.err)"
done
# every buffer dropped (CPU -1, CPU 4096): the refusal says why
for c in -1 4096; do
	"$TOOLS/dtldamage" --all-cpus $c ok.data all.data || die "dtldamage --all-cpus $c"
	"$LATSCOPE" dtl report all.data > /dev/null 2> e.err; rc=$?
	[ $rc = 2 ] && grep -q 'AUX buffers dropped (CPU number out of range' e.err &&
		grep -q 'no DTL entries it can use: all [0-9]* AUX buffers were dropped' e.err ||
		die "report, every buffer of CPU $c: exit $rc, $(cat e.err)"
	grep -q 'no vpa_dtl AUX data' e.err && die "report, CPU $c: says there is no AUX data: $(cat e.err)"
done

# a sample whose id no event has: skipped (not printed as [unknown] data), said, counted
"$TOOLS/dtldamage" --bad-id ok.data id.data || die "dtldamage --bad-id"
"$LATSCOPE" dtl script id.data > id.out 2> e.err || die "script with a bad id: $(cat e.err)"
grep -q '1 samples with an unknown id' e.err || die "no word of the unknown id: $(cat e.err)"
grep -q '\[unknown\]  *[0-9-]' id.out && die "the unknown sample was printed"
"$LATSCOPE" dtl script --json id.data 2>/dev/null | tail -1 | grep -q '"unknown_id_samples":1' ||
	die "the JSON summary does not count the unknown id"
"$LATSCOPE" dtl script --strict id.data > /dev/null 2>&1; [ $? = 1 ] || die "script --strict with an unknown id"
for m in "" --json; do	# dtl report names it in either mode
	"$LATSCOPE" dtl report $m id.data > /dev/null 2> e.err || die "report $m with a bad id: $(cat e.err)"
	grep -q '1 samples with an id no event declares and 0 too short' e.err ||
		die "report $m: no word of the unknown id: $(cat e.err)"
done

# implausible timebase parameters are named; the options override them
"$TOOLS/dtldamage" --tb-freq 1 ok.data f.data || die "dtldamage --tb-freq"
"$LATSCOPE" dtl script f.data > /dev/null 2> e.err || die "script, tb_freq 1"
grep -q "CPU [0-9]*'s DTL header says tb_freq 1 Hz, outside 1 MHz..10 GHz" e.err || die "no tb_freq warning: $(cat e.err)"
grep -q 'more than a day from the records' e.err || die "no far-times warning: $(cat e.err)"
"$LATSCOPE" dtl script --tb-freq 512000000 f.data > f.out 2> e.err || die "script --tb-freq"
grep -q 'more than a day' e.err && die "--tb-freq did not override: $(cat e.err)"
"$LATSCOPE" dtl script ok.data > ok.out 2>/dev/null || die "script ok"
cmp -s ok.out f.out || die "--tb-freq 512000000 does not give the original timeline"
"$TOOLS/dtldamage" --boot-tb 99999999999999999 ok.data b.data || die "dtldamage --boot-tb"
"$LATSCOPE" dtl report b.data > /dev/null 2> e.err || die "report, boot_tb too large"
grep -q 'more than a day from the records' e.err || die "report: no far-times warning: $(cat e.err)"
"$LATSCOPE" dtl report --boot-tb 21349649546353231 b.data > /dev/null 2> e.err || die "report --boot-tb"
grep -q 'more than a day' e.err && die "report --boot-tb did not override: $(cat e.err)"
# a user who cannot read tracefs is told so (EACCES), not "no such file"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   ! setpriv --reuid=65534 --regid=65534 --clear-groups test -r /sys/kernel/tracing/events 2>/dev/null &&
   [ -d /sys/kernel/tracing/events ]; then
	(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$LATSCOPE" dtl synth -o /dev/null) \
		> /dev/null 2> e.err && die "synth as nobody without formats succeeded"
	grep -q 'tracefs is not readable by this user.*(Permission denied)' e.err ||
		die "synth as nobody: $(cat e.err)"
fi

# the hypervisor's 85-entry ring overflows between 1 s polls of a busy vCPU:
# nothing marks the loss, but a poll that copied 84 entries (all the driver
# lets through) shows it; with 10 ms polls nothing is lost
"$LATSCOPE" dtl synth --formats "$F" --cpus 2 --duration 3 --seed 4 -c 1000000000 -o slow.data 2> s.err ||
	die "synth 1 s poll"
grep -q ' [1-9][0-9]* lost to the 85-entry ring' s.err || die "the model lost nothing: $(cat s.err)"
"$LATSCOPE" dtl report --json slow.data > slow.json || die "report slow"
grep -q '"ring_full_polls": [1-9]' slow.json || die "report JSON does not count the full polls"
"$LATSCOPE" dtl report slow.data 2>/dev/null | grep -q 'PROBABLY LOST: [1-9][0-9]* of [0-9]* polls copied 84 entries' ||
	die "report text does not say the ring overflowed"
"$LATSCOPE" dtl script slow.data > /dev/null 2> e.err || die "script slow"
grep -q 'gap ring_full cpu [01] at' e.err || die "script does not list the full polls: $(cat e.err)"
"$LATSCOPE" dtl synth --formats "$F" --cpus 2 --duration 3 --seed 4 -c 10000000 -o fast.data 2> s.err || die "synth 10 ms"
grep -q ' 0 lost to the 85-entry ring' s.err || die "10 ms polls lost entries: $(cat s.err)"
"$LATSCOPE" dtl report --json fast.data | grep -q '"ring_full_polls": 0' || die "full polls reported without loss"
exit 0
