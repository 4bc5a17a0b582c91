#!/bin/sh
# SPDX-License-Identifier: MIT
# sid's perf for ppc64el, for the POWER tier's guest (tests/power/run.sh):
# linux-perf and the shared libraries its ELF dependency closure names
# (readelf -d, NEEDED, followed through every library), from Debian's
# ppc64el packages through scripts/foreign-apt.sh, unpacked and pruned into
# one cached directory:
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
command -v readelf > /dev/null || { echo "perfroot: no readelf (binutils)" >&2; exit 1; }
ver=$(fa version linux-perf) && [ -n "$ver" ] || { echo "perfroot: no linux-perf in sid/ppc64el" >&2; exit 1; }
dir=$CACHE/power/perf/$ver
[ -f "$dir/.done" ] && { echo "$dir"; exit 0; }
# the library packages: linux-perf's Depends less the interpreters, with
# their own closures; libpython alone (the binary needs the .so only), and
# libexpat, which libpython links
libs=$(fa field linux-perf Depends | tr ',' '\n' | sed 's/^ *//; s/[ :].*//' |
	grep -v -e '^perl$' -e '^python3$' -e '^libpython' | tr '\n' ' ')
py=$(fa field linux-perf Depends | tr ',' '\n' | sed -n 's/^ *\(libpython[^ :]*\).*/\1/p')
# shellcheck disable=SC2086
debs=$(fa closure $libs libexpat1) || exit 1
# shellcheck disable=SC2086
more=$(fa get linux-perf $py) || exit 1
un=$dir.unpack
rm -rf "$un" "$dir.tmp" && mkdir -p "$un" "$dir.tmp/bin" "$dir.tmp/lib" || exit 1
for d in $debs $more; do
	dpkg-deb -x "$d" "$un" || { echo "perfroot: cannot unpack $d" >&2; exit 1; }
done
cp "$un/usr/bin/perf" "$dir.tmp/bin/perf" || { echo "perfroot: linux-perf $ver has no /usr/bin/perf" >&2; exit 1; }
# the NEEDED closure, breadth first
todo="$dir.tmp/bin/perf" seen=" "
while [ -n "$todo" ]; do
	# shellcheck disable=SC2086
	set -- $todo; f=$1; shift; todo="$*"
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $seen in *" $n "*) continue;; esac
		seen="$seen$n "
		p=""
		for l in usr/lib/powerpc64le-linux-gnu lib/powerpc64le-linux-gnu usr/lib64 lib64 usr/lib; do
			[ -e "$un/$l/$n" ] && { p=$un/$l/$n; break; }
		done
		[ -n "$p" ] || { echo "perfroot: $n (needed by $(basename "$f")) is in no package of the closure" >&2; exit 1; }
		cp -L "$p" "$dir.tmp/lib/$n" && todo="$todo $dir.tmp/lib/$n" || exit 1
	done
done
# the dynamic linker the binary names (PT_INTERP)
# (merged /usr: /lib64 is a link no package ships, the file is under /usr)
interp=$(readelf -l "$dir.tmp/bin/perf" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
ip=""
for c in "$un$interp" "$un/usr$interp"; do [ -n "$interp" ] && [ -e "$c" ] && { ip=$c; break; }; done
[ -n "$ip" ] && cp -L "$ip" "$dir.tmp/lib/$(basename "$interp")" ||
	{ echo "perfroot: no dynamic linker ${interp:-named} in the closure" >&2; exit 1; }
echo "$ver" > "$dir.tmp/version"
rm -rf "$un"
: > "$dir.tmp/.done"
# older versions go
for o in "$CACHE"/power/perf/*; do [ "$o" = "$dir.tmp" ] || rm -rf "$o"; done
mv "$dir.tmp" "$dir" || exit 1
echo "$dir"
