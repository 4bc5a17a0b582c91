#!/bin/sh
# SPDX-License-Identifier: MIT
# A ppc64el guest kernel with the debugfs DTL (CONFIG_DTL), which no Debian
# kernel has: sid's linux-source (the version of sid's kernel the POWER tier
# boots), upstream's ppc64le_guest_defconfig, CONFIG_DTL and the vpa_dtl PMU
# (CONFIG_HV_PERF_CTRS) on, virtio's block disk built in, cross-built with
# Debian's powerpc64le-linux-gnu-gcc.  Test equipment for the POWER tier's
# "dtl" boot (docs/power.md).
#
# usage: tests/power/dtlkernel.sh build   build it unless cached (about 17
#                                         minutes on 2 CPUs), print its dir
#        tests/power/dtlkernel.sh path    print the cached kernel's dir, or
#                                         exit 1 saying it is not built
# The directory: VER/vmlinux, VER/config under $LATSCOPE_CACHE/power/dtl-kernel
# (an older version goes when a newer one is built).  Errors: one line on
# stderr; 77 when something needed cannot be had, 1 when the build fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$here/../.." && pwd)
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
base=$CACHE/power/dtl-kernel
KB=dtlkernel
. "$SRCDIR/scripts/kbuild.inc"
kb_sid ppc64el
ver=$kb_ver src=$kb_src
out=$base/$ver
case ${1:-} in
path)
	[ -f "$out/vmlinux" ] && { echo "$out"; exit 0; }
	echo "no CONFIG_DTL kernel built for $ver (make power-dtl-kernel: about 17 minutes)" >&2
	exit 1;;
build) ;;
*) echo "usage: dtlkernel.sh build|path" >&2; exit 2;;
esac
kb_locked "$base" DTLK_LOCKED "$0" "$@"
[ -f "$out/vmlinux" ] && { echo "$out"; exit 0; }
sh "$SRCDIR/scripts/deps.sh" cross powerpc64le-linux-gnu >&2 || exit 77
sh "$SRCDIR/scripts/deps.sh" kbuild >&2 || exit 77
deb=$(fa sid ppc64el get "$src") || { echo "dtlkernel: cannot download $src" >&2; exit 77; }
work=$base/build.$$
trap 'rm -rf "$work"' EXIT INT TERM
k=$(kb_unpack "$deb" "$work") || exit 1
echo "dtlkernel: building $src ($ver) with CONFIG_DTL for ppc64el (once: about 17 minutes)" >&2
m() { make -C "$k" ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu- "$@"; }
{
	m ppc64le_guest_defconfig &&
	"$k/scripts/config" --file "$k/.config" -e DTL -e HV_PERF_CTRS -e VIRTIO_PCI -e VIRTIO_BLK \
		-e DEBUG_FS -e FTRACE -e PERF_EVENTS -d MODULE_SIG -d DEBUG_INFO_BTF &&
	m olddefconfig && m -j"$(nproc)" vmlinux
} > "$work/build.log" 2>&1 || { echo "dtlkernel: the build failed: $(tail -1 "$work/build.log")" >&2; exit 1; }
grep -q '^CONFIG_DTL=y' "$k/.config" || { echo "dtlkernel: CONFIG_DTL did not stay on" >&2; exit 1; }
rm -rf "$out.tmp" && mkdir -p "$out.tmp" && cp "$k/vmlinux" "$out.tmp/vmlinux" && cp "$k/.config" "$out.tmp/config" &&
	kb_keep "$out" || exit 1
echo "$out"
