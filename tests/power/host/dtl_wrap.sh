#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_wrap.sh: each recording (AUX
# buffers of 8K, 16K, 128K and 4M) against the hypervisor's log
# (tests/power/dtltruth.py: every entry latscope decoded is the hypervisor's,
# byte for byte, once, in order) and against its own bytes
# (tests/power/auxcheck.py: every entry whose bytes reached the file is in
# latscope's output; the driver's copy has the layout docs/dtl.md gives,
# each lap ending in zeros at a multiple of the buffer's size).  latscope's
# dtl report must count every wrap (aux_wraps = the commits that end a
# lap), and where entries are missing it must say so (ring_full_polls,
# aux_wraps, aux_holes where the recorder fell behind and the driver wrote
# over unread bytes, dtl_stopped_cpus where the buffer filled up) and exit 1
# under --strict.  A hole's bytes are what the file's payloads leave out.
set -u
die() { echo "FAIL: $*"; exit 1; }
for a in 8K 16K 128K 4M; do
	r=aux$a
	case $a in *K) bytes=$((${a%K} * 1024));; *M) bytes=$((${a%M} * 1048576));; esac
	[ -s "$ART/$r.data" ] && [ -f "$ART/$r.csv" ] || die "$r: no recording or CSV came back"
	out=$(python3 "$PDIR/dtltruth.py" "$HVLOG" auto "$ART/$r.csv") || die "$r: $out"
	echo "$out" | sed "s/^/$r: /"
	set -- $(echo "$out" | tail -1 | tr '=' ' ')
	gaps=$2
	aout=$(python3 "$PDIR/auxcheck.py" "$ART/$r.data" "$HVLOG" "$ART/$r.csv" "$bytes") ||
		die "$r: $(echo "$aout" | tr '\n' ' ')"
	echo "$aout" | sed "s/^/$r: /"
	wraps=$(echo "$aout" | tail -1 | tr ' ' '\n' | sed -n 's/^wraps=//p')
	set -- $(python3 "$PDIR/jsonget.py" "$ART/$r.json" ring_full_polls aux_wraps aux_hole_bytes aux_errors) ||
		die "$r: cannot read $r.json"
	full=$1 jw=$2 jhb=$3 jerr=$4
	strict=$(cat "$ART/$r.strict")
	hb=$(echo "$aout" | tail -1 | tr ' ' '\n' | sed -n 's/^stream_hole_bytes=//p')
	echo "$r: latscope: aux_wraps $jw, ring_full_polls $full, aux_hole_bytes $jhb, aux_errors $jerr, --strict exit $strict"
	[ "$jhb" = "$hb" ] || die "$r: dtl report counts $jhb bytes in AUX holes, the file's payloads leave $hb"
	# (a lap's end in a hole of the stream is not in the file to be counted)
	[ "$jw" = "$wraps" ] || { [ "$jhb" -gt 0 ] && [ "$jw" -le "$wraps" ]; } ||
		die "$r: the file's commits end $wraps laps, dtl report counts $jw AUX wraps"
	[ "$a" != 8K ] || [ "$wraps" -gt 0 ] || die "$r: no wrap in an 8K AUX buffer: the wrap was not made"
	if [ "$gaps" -gt 0 ]; then
		[ $((full + jw + jhb + jerr)) -gt 0 ] ||
			die "$r: $gaps entries missing, and dtl report names no full ring, no wrap, no hole, no AUX error"
		[ "$strict" = 1 ] || die "$r: $gaps entries missing, and dtl report --strict exits $strict"
	fi
done
echo "ok: every entry whose bytes reached the file decoded, the wrap layout as documented, losses said"
