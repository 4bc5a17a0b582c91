#!/bin/sh
# SPDX-License-Identifier: MIT
# sid's perf for ppc64el, for the POWER tier's guest (tests/power/run.sh):
# linux-perf and the shared libraries its ELF dependency closure names, in
# one cached directory (tests/kernels/cmdroot.sh):
#   DIR/bin/perf  DIR/lib/*.so*  (ld64.so.2 among them)
# The guest runs it as DIR/lib/ld64.so.2 --library-path DIR/lib DIR/bin/perf:
# its own C library, whatever latscope's build uses.  perf's Depends on
# perl and python3 (its scripting) are left out; libpython is there because
# the binary links it, without its standard library (perf never starts the
# interpreter unless asked to run a script).
# usage: perfroot.sh   prints DIR (cached by linux-perf's version)
# Environment: LATSCOPE_CACHE.  Errors: one line on stderr, exit 1.
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
fa() { sh "$SRCDIR/scripts/foreign-apt.sh" sid ppc64el "$@"; }
deps=$(fa field linux-perf Depends) || exit 1
# the library packages: linux-perf's Depends less the interpreters, with
# their own closures; libpython alone (the binary needs the .so only), and
# libexpat, which libpython links
libs=$(echo "$deps" | tr ',' '\n' | sed 's/^ *//; s/[ :].*//' |
	grep -v -e '^perl$' -e '^python3$' -e '^libpython' | tr '\n' ' ')
py=$(echo "$deps" | tr ',' '\n' | sed -n 's/^ *\(libpython[^ :]*\).*/\1/p')
# shellcheck disable=SC2086
exec sh "$SRCDIR/tests/kernels/cmdroot.sh" sid ppc64el linux-perf usr/bin/perf "$CACHE/power/perf" $libs libexpat1 -- $py
