#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope for another architecture (make cross-ppc64el; docs/power.md).
#
# usage: scripts/cross.sh ppc64el [MAKE-GOAL...]
#
# Builds with Debian's cross toolchain (gcc-powerpc64le-linux-gnu, installed
# by scripts/deps.sh cross) against a sysroot made of Debian 12's ppc64el
# -dev packages, downloaded and unpacked by scripts/foreign-apt.sh into the
# cache (nothing ppc64el is installed on the host).  The toolchain's own C
# library is the one linked; the sysroot's libc6-dev and kernel headers are
# left out of it (a libc.a there would be linked instead of libc.so).  The
# BPF objects are compiled against the BTF of Debian sid's ppc64el kernel
# (the vmlinuz of its linux-binary package is an ELF with a .BTF section).
#
# Output in build-ppc64el/ (BUILD=...): latscope, the test tools and the unit
# tests.  Cache: LATSCOPE_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope),
# under cross/ARCH.  Errors: one line; exit 77 when the toolchain or the
# packages cannot be had (not root, no network), 1 when the build fails.
set -u
arch=${1:-}
[ -n "$arch" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(dirname "$here")
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
case $arch in
ppc64el) triplet=powerpc64le-linux-gnu kflavour=powerpc64le;;
*) echo "cross: unknown architecture '$arch' (known: ppc64el)" >&2; exit 2;;
esac
BUILD=${BUILD:-build-$arch}
cd "$SRCDIR" || exit 1

sh scripts/deps.sh cross "$triplet" || exit 77
cd_=$CACHE/cross/$arch
mkdir -p "$cd_" || exit 1

# ---- the sysroot: the -dev packages and what they depend on ---------------
# (the product's libraries, cmocka for the unit tests)
DEV="libtraceevent-dev libtracefs-dev libzstd-dev libjson-c-dev libmicrohttpd-dev libelf-dev libbpf-dev
zlib1g-dev libcmocka-dev"
fa() { sh "$here/foreign-apt.sh" "$@"; }
debs=$(fa bookworm "$arch" closure $DEV) || exit 77
key=$(echo "$debs" | sed 's#.*/##' | sort | md5sum | cut -c1-16)
SYSROOT=$cd_/sysroot
if [ "$(cat "$SYSROOT/.key" 2>/dev/null)" != "$key" ]; then
	echo "cross: unpacking the $arch sysroot ($(echo "$debs" | wc -l) packages)"
	rm -rf "$SYSROOT.tmp" && mkdir -p "$SYSROOT.tmp" || exit 1
	for f in $debs; do
		case ${f##*/} in
		# the toolchain's own: C library headers and objects, kernel headers
		libc6-dev_*|libc-dev-bin_*|linux-libc-dev_*|libcrypt-dev_*|libnsl-dev_*) continue;;
		esac
		dpkg-deb -x "$f" "$SYSROOT.tmp" || { echo "cross: dpkg-deb -x $f failed" >&2; exit 1; }
	done
	echo "$key" > "$SYSROOT.tmp/.key"
	rm -rf "$SYSROOT" && mv "$SYSROOT.tmp" "$SYSROOT" || exit 1
fi
# Debian 12's ppc64el packages keep their libraries under /lib as well as /usr/lib
LIBDIRS="$SYSROOT/usr/lib/$triplet $SYSROOT/lib/$triplet"

PKGCONF=$cd_/pkg-config
cat > "$PKGCONF.tmp" <<EOF
#!/bin/sh
# pkg-config for the $arch sysroot (scripts/cross.sh)
PKG_CONFIG_SYSROOT_DIR='$SYSROOT'
PKG_CONFIG_LIBDIR='$SYSROOT/usr/lib/$triplet/pkgconfig:$SYSROOT/usr/share/pkgconfig'
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
unset PKG_CONFIG_PATH
exec pkg-config "\$@"
EOF
chmod 755 "$PKGCONF.tmp" && mv "$PKGCONF.tmp" "$PKGCONF" || exit 1

# ---- the BTF of the kernel the guests boot ---------------------------------
btf=""
if img=$(fa sid "$arch" field "linux-image-$kflavour" Depends 2>&1 |
	 tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -1) && [ -n "$img" ] &&
   bin=$(fa sid "$arch" field "$img" Depends | tr ',' '\n' | sed -n 's/^ *\(linux-binary-[^ ]*\).*/\1/p' | head -1) &&
   [ -n "$bin" ] && deb=$(fa sid "$arch" get "$bin"); then
	btf=$cd_/btf/$(basename "$deb" .deb).vmlinux
	if [ ! -s "$btf" ]; then
		rm -rf "$cd_/btf" && mkdir -p "$cd_/btf/x" &&
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$cd_/btf/x" --wildcards '*/vmlinuz' &&
		mv "$(find "$cd_/btf/x" -name vmlinuz | head -1)" "$btf" && rm -rf "$cd_/btf/x" || btf=""
	fi
fi
if [ -z "$btf" ]; then
	echo "cross: no BTF of a sid $arch kernel: the bpf backends are left out of the $arch build" >&2
	btf=/nonexistent
fi

# ---- the build --------------------------------------------------------------
goals=${*:-"$BUILD/latscope cross-extras"}
rpl=$(for l in $LIBDIRS; do printf ' -L%s -Wl,-rpath-link,%s' "$l" "$l"; done)
# every CPU, unless a parent make shares its job slots
j=""
case ${MAKEFLAGS:-} in *jobserver*) ;; *) j=-j$(nproc 2>/dev/null || echo 2);; esac
# shellcheck disable=SC2086
make --no-print-directory $j BUILD="$BUILD" CC="$triplet-gcc" PKG_CONFIG="$PKGCONF" \
	BTF_VMLINUX="$btf" BPF_EXTRA_CFLAGS="-fms-extensions -Wno-microsoft-anon-tag" \
	EXTRA_CFLAGS="-isystem $SYSROOT/usr/include -isystem $SYSROOT/usr/include/$triplet" \
	LDFLAGS="$rpl" $goals || exit 1

# ---- the run root -------------------------------------------------------------
# $BUILD/root: the dynamic loader and the libraries the built programs need
# (their DT_NEEDED closure, from the sysroot), nothing else: the root of
# `qemu-ppc64le -L` (a fuller one would shadow the host's /tmp and /etc for
# the emulated program) and what the POWER guests get beside latscope.
# $BUILD/qemu-run PROGRAM ARGS... runs a program of the build under
# qemu-user, its loader named explicitly (no -L: qemu-user would look for
# every absolute path, "/" itself, in that root first);
# $BUILD/latscope-qemu runs $BUILD/latscope so.
R=$BUILD/root
rm -rf "$R.tmp" && mkdir -p "$R.tmp/lib/$triplet" "$R.tmp/lib64" || exit 1
needed() { "$triplet-readelf" -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
todo=$(for f in "$BUILD/latscope" "$BUILD"/tests/tools/* "$BUILD"/tests/test_*; do
	[ -f "$f" ] && needed "$f"; done | sort -u)
seen=" "
while [ -n "$todo" ]; do
	next=""
	for n in $todo; do
		case $seen in *" $n "*) continue;; esac
		seen="$seen$n "
		f=""
		for l in $LIBDIRS; do [ -e "$l/$n" ] && { f=$l/$n; break; }; done
		[ -n "$f" ] || { echo "cross: $n (needed) is not in the sysroot" >&2; exit 1; }
		cp -L "$f" "$R.tmp/lib/$triplet/$n" || exit 1
		next="$next $(needed "$f")"
	done
	todo=$next
done
cp -L "$SYSROOT/lib/$triplet/ld64.so.2" "$R.tmp/lib/$triplet/" &&
	ln -s "../lib/$triplet/ld64.so.2" "$R.tmp/lib64/ld64.so.2" || exit 1
chmod -R a+rX "$R.tmp"
rm -rf "$R" && mv "$R.tmp" "$R" || exit 1
cat > "$BUILD/qemu-run" <<EOF
#!/bin/sh
# a $arch program under qemu-user with the libraries of $BUILD/root (scripts/cross.sh)
d=\$(cd "\$(dirname "\$0")" && pwd)
exec qemu-ppc64le "\$d/root/lib/$triplet/ld64.so.2" --library-path "\$d/root/lib/$triplet" "\$@"
EOF
cat > "$BUILD/latscope-qemu" <<EOF
#!/bin/sh
# $BUILD/latscope under qemu-user (scripts/cross.sh)
d=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$d/qemu-run" "\$d/latscope" "\$@"
EOF
chmod 755 "$BUILD/qemu-run" "$BUILD/latscope-qemu"
