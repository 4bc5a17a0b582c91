#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_full.sh: the recording of a reader
# stopped for 2 s against the hypervisor's log.  Every entry latscope
# decoded is the hypervisor's, once, in order (dtltruth.py: none of the
# garbage a copy of written-over bytes gives); every entry whose bytes
# reached the file is decoded (auxcheck.py); the entries missing lie in
# holes of the AUX stream, at laps' ends or after the CPU's DTL stopped, and
# latscope says so: the recorder's warnings, the file's AUXTRACE_ERROR
# records, dtl report's aux_holes / dtl_stopped_cpus and --strict exit 1.
set -u
die() { echo "FAIL: $*"; exit 1; }
r=full
[ -s "$ART/$r.data" ] && [ -f "$ART/$r.csv" ] || die "no recording or CSV came back"
out=$(python3 "$PDIR/dtltruth.py" "$HVLOG" auto "$ART/$r.csv") || die "$out"
echo "$out"
case $(echo "$out" | grep -c 'out of order [1-9]\|not the hypervisor.s [1-9]\|twice [1-9]') in
0) ;; *) die "entries that are not the hypervisor's, twice or out of order: the copy read written-over bytes";;
esac
aout=$(python3 "$PDIR/auxcheck.py" "$ART/$r.data" "$HVLOG" "$ART/$r.csv" 65536) || die "$(echo "$aout" | tr '\n' ' ')"
echo "$aout"
last=$(echo "$aout" | tail -1)
val() { echo "$last" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
set -- $(python3 "$PDIR/jsonget.py" "$ART/$r.json" aux_holes aux_hole_bytes aux_errors ring_full_polls) ||
	die "cannot read $r.json"
jh=$1 jhb=$2 jerr=$3 full=$4
stopped=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["data"]["dtl_stopped_cpus"]))' "$ART/$r.json")
strict=$(cat "$ART/$r.strict")
echo "latscope: aux_holes $jh ($jhb bytes), aux_errors $jerr, dtl_stopped_cpus $stopped, ring_full_polls $full, --strict exit $strict"
echo "recorder: $(grep warning "$ART/$r.rec" | tr '\n' ' ')"
[ "$jhb" = "$(val stream_hole_bytes)" ] ||
	die "dtl report counts $jhb bytes in AUX holes, the file's payloads leave $(val stream_hole_bytes)"
# a 2 s stop with a 64K buffer (~0.5 s of entries under the busy loops): the
# buffer filled on every CPU, the kernel stopped each one's DTL
[ "$stopped" -ge 1 ] || die "no CPU's DTL said stopped after the reader stood still for 2 s"
grep -q 'kernel stopped recording its DTL' "$ART/$r.rec" || die "dtl record did not say the DTL stopped"
grep -q 'stopped this CPU' "$ART/$r.errors" || die "no AUXTRACE_ERROR record says the DTL stopped"
[ "$strict" = 1 ] || die "dtl report --strict exits $strict on a recording that lost entries"
# inside a lap, only the hypervisor's ring overflowing before a poll loses
# entries (a poll of 84: ring_full_polls)
[ "$(val lost_other)" = 0 ] || [ "$full" -gt 0 ] ||
	die "$(val lost_other) entries missing inside laps, and no hole of the stream nor full ring to explain them"
echo "ok: a stopped reader: nothing but the hypervisor's entries decoded, the holes and the stopped DTL said"
