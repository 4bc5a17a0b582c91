#!/bin/sh
# SPDX-License-Identifier: MIT
# A command of another Debian suite or architecture, runnable in a guest
# whatever C library the guest's other programs use: the binary and the
# shared libraries its ELF dependency closure names (readelf -d, NEEDED,
# followed through every library), from that suite's packages through
# scripts/foreign-apt.sh, unpacked and pruned into one cached directory:
#   DIR/VERSION/bin/NAME  DIR/VERSION/lib/*.so*  (the dynamic linker the
#   binary names among them)  DIR/VERSION/version
# The guest runs it as DIR/lib/LD --library-path DIR/lib DIR/bin/NAME, LD
# the linker's file name (ld-linux-x86-64.so.2, ld64.so.2): its own C
# library, its own libraries.  Used for the kernel tier's commands of a sid
# kernel's own suite (tests/kernels/run.sh: rtla) and the POWER tier's perf
# (tests/power/perfroot.sh).
# usage: cmdroot.sh SUITE ARCH PKG PATH DIR [CLOSURE...] [-- GET...]
#   PKG      the command's package; its version names the directory
#   PATH     the binary in PKG (usr/bin/rtla)
#   DIR      the cache's directory for this command (older versions in it go)
#   CLOSURE  packages whose dependency closures hold the libraries
#            (default: PKG)
#   GET      packages taken alone, without their dependencies
# prints DIR/VERSION.  Environment: LATSCOPE_CACHE (foreign-apt.sh's).
# Errors: one line on stderr, exit 1.
set -u
[ $# -ge 5 ] || { echo "usage: cmdroot.sh SUITE ARCH PKG PATH DIR [CLOSURE...] [-- GET...]" >&2; exit 2; }
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
suite=$1 arch=$2 pkg=$3 path=$4 top=$5
shift 5
name=${path##*/}
me="cmdroot ($name, $suite/$arch)"
fa() { sh "$SRCDIR/scripts/foreign-apt.sh" "$suite" "$arch" "$@"; }
command -v readelf > /dev/null || { echo "$me: no readelf (binutils)" >&2; exit 1; }
closure="" get=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do closure="$closure $1"; shift; done
[ $# -eq 0 ] || { shift; get="$*"; }
ver=$(fa version "$pkg") && [ -n "$ver" ] || exit 1
dir=$top/$ver
[ -f "$dir/.done" ] && { echo "$dir"; exit 0; }
# shellcheck disable=SC2086
debs=$(fa closure ${closure:-$pkg}) || exit 1
# shellcheck disable=SC2086
more=$(fa get "$pkg" $get) || exit 1
un=$dir.unpack
rm -rf "$un" "$dir.tmp" && mkdir -p "$un" "$dir.tmp/bin" "$dir.tmp/lib" || exit 1
for d in $debs $more; do
	dpkg-deb -x "$d" "$un" || { echo "$me: cannot unpack $d" >&2; exit 1; }
done
cp "$un/$path" "$dir.tmp/bin/$name" || { echo "$me: $pkg $ver has no /$path" >&2; exit 1; }
# the NEEDED closure, breadth first
todo="$dir.tmp/bin/$name" seen=" "
while [ -n "$todo" ]; do
	# shellcheck disable=SC2086
	set -- $todo; f=$1; shift; todo="$*"
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $seen in *" $n "*) continue;; esac
		seen="$seen$n "
		p=""
		# (one architecture is unpacked: its multiarch directory is the one there)
		for l in "$un"/usr/lib/*-linux-gnu* "$un"/lib/*-linux-gnu* "$un/usr/lib64" "$un/lib64" "$un/usr/lib"; do
			[ -e "$l/$n" ] && { p=$l/$n; break; }
		done
		[ -n "$p" ] || { echo "$me: $n (needed by $(basename "$f")) is in no package of the closure" >&2; exit 1; }
		cp -L "$p" "$dir.tmp/lib/$n" && todo="$todo $dir.tmp/lib/$n" || exit 1
	done
done
# the dynamic linker the binary names (PT_INTERP)
# (merged /usr: /lib64 is a link no package ships, the file is under /usr)
interp=$(readelf -l "$dir.tmp/bin/$name" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
ip=""
for c in "$un$interp" "$un/usr$interp"; do [ -n "$interp" ] && [ -e "$c" ] && { ip=$c; break; }; done
[ -n "$ip" ] && cp -L "$ip" "$dir.tmp/lib/$(basename "$interp")" ||
	{ echo "$me: no dynamic linker ${interp:-named} in the closure" >&2; exit 1; }
echo "$ver" > "$dir.tmp/version"
rm -rf "$un"
: > "$dir.tmp/.done"
# older versions go
for o in "$top"/*; do [ "$o" = "$dir.tmp" ] || rm -rf "$o"; done
mv "$dir.tmp" "$dir" || exit 1
echo "$dir"
