#!/bin/sh
# SPDX-License-Identifier: MIT
# The POWER tier's hypervisor: QEMU's ppc64 system emulator built from
# Debian 12's QEMU source with latscope's test-only DTL writer
# (spapr_dtl_test.c, GPL-2.0-or-later like QEMU; README.md here).  Test
# equipment: built into the cache, never installed, never in latscope's
# package.
#
# usage: tests/power/qemu/build.sh      prints the path of qemu-system-ppc64
#
# Built once and cached under $LATSCOPE_CACHE/qemu-dtl/KEY, KEY the hash of
# the source package's version and of the files of this directory; a
# change to either builds it again (about 3 minutes on 2 CPUs), an unchanged
# tree takes none.  The build tools (meson, ninja, glib, pixman, libfdt,
# zlib headers: amd64 packages) are installed as root by scripts/deps.sh
# power.  Errors: one line on stderr; exit 77 when something needed cannot
# be had (not root, no network), 1 when the build fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$here/../../.." && pwd)
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}

# one build at a time (make check starts one in the background early; the
# POWER tier's call then waits for it here)
mkdir -p "$CACHE/qemu-dtl" || exit 1
if [ -z "${QEMU_DTL_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	QEMU_DTL_LOCKED=1 exec flock "$CACHE/qemu-dtl/.lock" sh "$0" "$@"
fi
sh "$SRCDIR/scripts/deps.sh" power >&2 || exit 77
ver=$(sh "$SRCDIR/scripts/foreign-apt.sh" bookworm amd64 version qemu-system-ppc) || exit 77
key=$( { echo "$ver"; cat "$here/spapr_dtl_test.c" "$here/spapr_dtl_test.h" "$here/build.sh"; } |
	sha256sum | cut -c1-16)
out=$CACHE/qemu-dtl/$key
if [ -x "$out/qemu-system-ppc64" ]; then
	echo "$out/qemu-system-ppc64"
	exit 0
fi
work=$CACHE/qemu-dtl/build.$$
trap 'rm -rf "$work"' EXIT INT TERM
echo "qemu-dtl: building QEMU $ver for ppc64 with the DTL writer (once: about 3 minutes)" >&2
sh "$SRCDIR/scripts/foreign-apt.sh" bookworm amd64 source qemu "$work/src" > /dev/null || exit 77
cd "$work/src" || exit 1

# the change: the DTL writer's files, a call in each of the two hooks, the
# file in the pseries build; each edit checked (a QEMU that moved them fails
# here, not silently)
cp "$here/spapr_dtl_test.c" "$here/spapr_dtl_test.h" hw/ppc/ || exit 1
sed -i 's/^#include "qemu\/osdep.h"$/&\n#include "spapr_dtl_test.h"/' hw/ppc/spapr.c
for h in enter exit; do
	sed -i "/^static void spapr_cpu_exec_$h(PPCVirtualHypervisor \*vhyp, PowerPCCPU \*cpu)\$/{n;s/^{\$/{\n    spapr_dtl_test_$h(cpu);/}" hw/ppc/spapr.c
	grep -q "^    spapr_dtl_test_$h(cpu);" hw/ppc/spapr.c ||
		{ echo "qemu-dtl: spapr_cpu_exec_$h not found in hw/ppc/spapr.c of QEMU $ver" >&2; exit 1; }
done
# the device tree's /hypervisor node: the test's one before stock QEMU's (KVM only)
sed -i 's|^    /\* /hypervisor \*/$|&\n    spapr_dtl_test_fdt(fdt);|' hw/ppc/spapr.c
grep -q '^    spapr_dtl_test_fdt(fdt);' hw/ppc/spapr.c ||
	{ echo "qemu-dtl: no '/* /hypervisor */' line in spapr_build_fdt of QEMU $ver" >&2; exit 1; }
grep -q '^#include "spapr_dtl_test.h"' hw/ppc/spapr.c ||
	{ echo "qemu-dtl: no #include \"qemu/osdep.h\" line in hw/ppc/spapr.c" >&2; exit 1; }
sed -i "s/^  'spapr_cpu_core.c',\$/&\n  'spapr_dtl_test.c',/" hw/ppc/meson.build
grep -q "'spapr_dtl_test.c'" hw/ppc/meson.build ||
	{ echo "qemu-dtl: no 'spapr_cpu_core.c' line in hw/ppc/meson.build" >&2; exit 1; }

mkdir -p build && cd build || exit 1
if ! ../configure --target-list=ppc64-softmmu --without-default-features --disable-docs \
	--disable-tools --disable-guest-agent --enable-fdt=system --disable-werror \
	--disable-install-blobs > "$work/configure.log" 2>&1; then
	echo "qemu-dtl: configure failed: $(tail -3 "$work/configure.log" | tr '\n' ' ')" >&2
	exit 1
fi
if ! ninja -j"$(nproc 2>/dev/null || echo 2)" qemu-system-ppc64 > "$work/build.log" 2>&1; then
	echo "qemu-dtl: the build failed: $(grep -m3 -E 'error|Error' "$work/build.log" | tr '\n' ' ')" >&2
	exit 1
fi
mkdir -p "$out.tmp" && cp qemu-system-ppc64 "$out.tmp/" && echo "$ver" > "$out.tmp/version" || exit 1
rm -rf "$out" && mv "$out.tmp" "$out" || exit 1
# older builds of other keys are left behind: keep the newest three
ls -dt "$CACHE"/qemu-dtl/*/ 2>/dev/null | tail -n +4 | while read -r d; do rm -rf "$d"; done
echo "$out/qemu-system-ppc64"
