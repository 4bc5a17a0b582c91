#!/bin/sh
# SPDX-License-Identifier: MIT
# The host side of tests/power/guest/script.sh: this machine's perf script
# of the guest's ppc64el recording against latscope script's output in the
# guest, line by line (perf reads another machine's recording by the
# tracepoint formats it holds).  The guest's perf (sid's linux-perf for
# ppc64el) is not in the guest yet: docs/power.md.
set -u
die() { echo "FAIL: $*"; exit 1; }
command -v perf > /dev/null || { echo "perf is not installed on the host"; exit 77; }
[ -s "$ART/rec.data" ] && [ -s "$ART/script.txt" ] || die "no recording or script output came back"
perf script -i "$ART/rec.data" > "$ART/perf.txt" 2> "$ART/perf.err" || die "perf script failed: $(tail -2 "$ART/perf.err")"
total=$(grep -c . "$ART/perf.txt")
[ "$total" -gt 100 ] || die "perf script printed $total lines: $(tail -2 "$ART/perf.err")"
d=$(diff "$ART/script.txt" "$ART/perf.txt" | grep -c '^[<>]')
echo "perf script: $total lines; latscope script in the guest: $(grep -c . "$ART/script.txt"); $d lines differ"
[ "$d" -eq 0 ] || { diff "$ART/script.txt" "$ART/perf.txt" | head -6; die "latscope script and perf script differ"; }
echo "ok: latscope script in the ppc64el guest prints what perf script prints of its recording"
