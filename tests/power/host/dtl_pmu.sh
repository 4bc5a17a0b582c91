#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/dtl_pmu.sh: each recording against the
# hypervisor's log (tests/power/dtltruth.py): every entry latscope decoded
# was written by the hypervisor, byte for byte, once, in its order; what is
# missing is counted, and latscope must have said that entries were lost
# wherever some are (dtl report's JSON: ring_full_polls, polls that found
# the 85-entry ring full; aux_wraps, wraps of the AUX buffer; and
# --strict's exit 1).  Not yet checked: that the counts equal the losses
# (tests/power/host/dtl_wrap.sh checks the AUX wraps).  The overflow recording (a 500 ms poll) must lose entries.  The
# host's latscope decodes the guest's files to the same CSV as the guest's.
set -u
die() { echo "FAIL: $*"; exit 1; }
for r in pmu overflow; do
	[ -s "$ART/$r.data" ] && [ -f "$ART/$r.csv" ] || die "$r: no recording or CSV came back"
	out=$(python3 "$PDIR/dtltruth.py" "$HVLOG" auto "$ART/$r.csv") || die "$r: $out"
	echo "$out" | sed "s/^/$r: /"
	set -- $(echo "$out" | tail -1 | tr '=' ' ')
	gaps=$2 tail=$4
	# ring_full_polls and aux_wraps of dtl report's JSON
	set -- $(python3 "$PDIR/jsonget.py" "$ART/$r.json" ring_full_polls aux_wraps) || die "$r: cannot read $r.json"
	full=$1 cut=$2
	strict=$(cat "$ART/$r.strict")
	echo "$r: latscope: ring_full_polls $full, aux_wraps $cut, --strict exit $strict"
	if [ "$gaps" -gt 0 ]; then
		[ "$full" != None ] && [ "$cut" != None ] && [ $((full + cut)) -gt 0 ] ||
			die "$r: $gaps entries missing inside the recording, and dtl report names no full ring and no AUX wrap"
		[ "$strict" = 1 ] || die "$r: $gaps entries missing, and dtl report --strict exits $strict"
	fi
	[ "$r" != overflow ] || [ "$gaps" -gt 0 ] || die "overflow: a 500 ms poll lost nothing: the overflow was not made"
	"$LATSCOPE_HOST" dtl script --csv -i "$ART/$r.data" > "$ART/$r.host.csv" 2>/dev/null ||
		die "$r: the host's latscope cannot decode the guest's file"
	# (but the symbol column: the guest resolves srr0 in its own kallsyms)
	cut -d, -f1-12 "$ART/$r.csv" > "$ART/$r.nosym.csv"
	cut -d, -f1-12 "$ART/$r.host.csv" > "$ART/$r.host.nosym.csv"
	cmp -s "$ART/$r.nosym.csv" "$ART/$r.host.nosym.csv" ||
		die "$r: the host's CSV differs from the guest's: $(diff "$ART/$r.nosym.csv" "$ART/$r.host.nosym.csv" | head -3)"
done
echo "ok: both recordings hold only the hypervisor's entries, byte for byte, in order; losses said; host and guest decode alike"
