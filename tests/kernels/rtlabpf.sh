#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/kernels/rtlabpf.sh build|path - rtla with its BPF program (Debian
# builds rtla without it: sid's rtla 7.2 says "Could not enable BPF" under
# --debug and reads the trace), built from sid's linux-source (the version of
# the rt7 kernel) against this machine's libtracefs, libtraceevent and libbpf,
# with clang and bpftool; cached as $LATSCOPE_CACHE/kernels/cmd/rtla-bpf/VER/
# rtla-bpf (named so that it sits in PATH beside the host's rtla).  bench/
# timerlat.sh compares latscope with it when it is there.  `path` prints the
# directory, or says how to build it and exits 1.  Test-only: it never ships.
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
base=$CACHE/kernels/cmd/rtla-bpf
KB=rtlabpf
. "$SRCDIR/scripts/kbuild.inc"
kb_sid amd64
ver=$kb_ver src=$kb_src
out=$base/$ver
case ${1:-} in
path)
	[ -x "$out/rtla-bpf" ] && { echo "$out"; exit 0; }
	echo "no rtla with its BPF program built for $ver (sh tests/kernels/rtlabpf.sh build: a few minutes)" >&2
	exit 1;;
build) ;;
*) echo "usage: rtlabpf.sh build|path" >&2; exit 2;;
esac
kb_locked "$base" RTLABPF_LOCKED "$0" "$@"
[ -x "$out/rtla-bpf" ] && { echo "$out"; exit 0; }
for c in clang bpftool pkg-config; do
	command -v $c > /dev/null || { echo "rtlabpf: no $c (apt-get install clang bpftool pkg-config)" >&2; exit 77; }
done
for p in libtracefs libtraceevent libbpf; do
	pkg-config --exists $p || { echo "rtlabpf: no $p (apt-get install $p-dev)" >&2; exit 77; }
done
deb=$(kb_source_deb "$CACHE" amd64) || exit 77
work=$base/build.$$
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work" && dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" --wildcards './usr/src/*.tar.*' ||
	{ echo "rtlabpf: no source tarball in $deb" >&2; exit 1; }
t=$(ls "$work"/usr/src/linux-source-*.tar.* | head -1)
# rtla needs only tools/ (its own copies of the kernel's headers)
tar -xf "$t" -C "$work" --wildcards 'linux-source-*/tools/*' 'linux-source-*/scripts/*' ||
	{ echo "rtlabpf: cannot unpack tools/ of $t" >&2; exit 1; }
k=$(ls -d "$work"/linux-source-*/ | head -1)
echo "rtlabpf: building rtla $ver with its BPF program" >&2
# bookworm's bpftool makes skeletons but does not list "skeletons" in its
# features (rtla's feature test reads that), and clang -target bpf needs the
# multiarch directory of asm/types.h
ma=$(gcc -print-multiarch 2>/dev/null)
nice -n 19 make -C "$k/tools/tracing/rtla" feature-bpftool-skeletons=1 CLANG="clang${ma:+ -I/usr/include/$ma}" \
	> "$work/build.log" 2>&1 ||
	{ echo "rtlabpf: the build failed: $(grep -m1 -i 'error' "$work/build.log")" >&2; exit 1; }
grep -q 'BPF skeleton support is disabled\|building without BPF skeleton' "$work/build.log" &&
	{ echo "rtlabpf: rtla was built without its BPF program: $(grep -m1 -i 'without BPF' "$work/build.log")" >&2; exit 1; }
mkdir -p "$out.tmp" && cp "$k/tools/tracing/rtla/rtla" "$out.tmp/rtla-bpf" && echo "$ver" > "$out.tmp/version" &&
	kb_keep "$out" || exit 1
echo "$out"
