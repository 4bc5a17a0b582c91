#!/bin/sh
# Run every benchmark in bench/ (each prints its own side-by-side table).
# LATSCOPE names the binary.  Run on an otherwise idle machine.
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
export LATSCOPE
rc=0
for b in "$(dirname "$0")"/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "=== $(basename "$b" .sh)"
	sh "$b" || rc=1
done
exit $rc
