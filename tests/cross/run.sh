#!/bin/sh
# SPDX-License-Identifier: MIT
# The ppc64el tier of make check (docs/power.md): latscope cross-built for
# ppc64el (make cross-ppc64el: scripts/cross.sh), then the golden tests
# (tests/golden/*.sh: every offline decoder and writer, both byte orders of
# the files) with that binary under qemu-user.  The unit tests and the live
# commands run on a real ppc64el kernel in the POWER tier.  A toolchain or
# package that cannot be had is a SKIP line saying why.  Prints
# "cross: N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$here/../.." && pwd)
BUILD=${CROSS_BUILD:-$SRCDIR/build-ppc64el}
: "${TOOLS:?TOOLS must name the host's test tools directory (build/tests/tools)}"
t0=$(date +%s)
log=$(mktemp "${TMPDIR:-/tmp}/latscope-cross.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
(cd "$SRCDIR" && BUILD=$BUILD sh scripts/cross.sh ppc64el) > "$log" 2>&1
rc=$?
case $rc in
0) echo "cross: build-ppc64el built ($(( $(date +%s) - t0 )) s)";;
77) echo "SKIP cross: $(grep -v '^ ' "$log" | tail -1)"
    echo "cross: 0 passed, 0 failed, 1 skipped"; exit 0;;
*) echo "FAIL cross/build (exit $rc)"; grep -v '^  [A-Z]' "$log" | tail -30 | sed 's/^/    /'
   echo "cross: 0 passed, 1 failed, 0 skipped"; exit 1;;
esac
command -v qemu-ppc64le >/dev/null 2>&1 || {
	echo "SKIP cross/golden: no qemu-ppc64le (Debian: qemu-user; scripts/deps.sh cross installs it)"
	echo "cross: 1 passed, 0 failed, 1 skipped"; exit 0; }
out=$(LATSCOPE=$BUILD/latscope-qemu TOOLS=$TOOLS RUN_SETS=golden sh "$SRCDIR/tests/run-shell.sh" 2>&1)
rc=$?
echo "$out" | sed -n 's/^\(PASS\|FAIL\|SKIP\) golden/\1 cross\/golden/p; /^    /p'
p=$(echo "$out" | sed -n 's/^shell: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/p')
set -- ${p:-0 1 0}
echo "cross: $(($1 + 1)) passed, $2 failed, $3 skipped ($(( $(date +%s) - t0 )) s)"
[ $rc -eq 0 ] && [ "$2" -eq 0 ]
