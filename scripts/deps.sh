#!/bin/sh
# SPDX-License-Identifier: MIT
# latscope's dependencies (Debian package names).
#
# `deps.sh` (make deps, make check, make demo): check the build dependencies
# and the tools the tests use; install the missing ones with apt-get when
# running as root on Debian, otherwise name the packages and fail.
#
# `deps.sh check [notest]` (plain make, make install): never installs
# anything.  Silent when every build dependency is there (notest: without
# cmocka, which only the unit tests need); else one line on stdout naming the
# packages to install and `make deps`, exit 1.  The optional packages of the product
# (libbpf-dev, clang, bpftool: the bpf backends) are named on one line,
# unless QUIET=1 (make -s), with what is lost without them; exit 0.
#
# `deps.sh deb` (make deb, make check-deb): the Debian packaging tools
# (dpkg-dev, debhelper, fakeroot) and, for check-deb, debootstrap; installed
# as root, else named; exit 1 when missing and not installable.
#
# `deps.sh cross TRIPLET` (make cross-ppc64el, scripts/cross.sh): Debian's
# cross compilers for TRIPLET (gcc and g++: libstdc++) and qemu-user (the
# cross-built unit tests run under it); installed as root, else named; exit 1
# when the compiler is missing and not installable.
#
# Every install waits up to 10 minutes for dpkg's lock (another apt, or
# the other tier's install in make check).
#
# `deps.sh kbuild` (tests/power/dtlkernel.sh, tests/kernels/pirqkernel.sh):
# what building a Linux kernel needs on the host (flex, bison, bc,
# libssl-dev, libelf-dev; dwarves' pahole, which turns DWARF into BTF).
#
# `deps.sh power` (tests/power/): what the test QEMU's build needs (meson,
# ninja, glib, pixman, libfdt and zlib headers, dpkg-source), the pseries
# firmware (qemu-system-data: vof.bin), cpio; installed as root, else named;
# exit 1 when one is missing and not installable.
#
# `deps.sh kernels`: the kernel test tier's host tools (tests/kernels/run.sh):
# QEMU, a busybox, cpio, rtla, perf and cyclictest.  Installs the missing ones
# as root on Debian (one by one when the set fails), then prints a line
# "PACKAGE: why" for each one still missing; the tier skips what needs them
# with that reason.  Always exits 0.
set -u
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
# apt_install PKG...: as root with apt-get, install them (waiting up to 10
# minutes for dpkg's lock); false when not root, no apt-get, or it failed
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
	echo "deps: installing: $*" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}
# pkg-config name:Debian package of every library the build needs
BUILD_LIBS="libtraceevent:libtraceevent-dev libtracefs:libtracefs-dev libzstd:libzstd-dev json-c:libjson-c-dev
libmicrohttpd:libmicrohttpd-dev libelf:libelf-dev"
TEST_LIBS="cmocka:libcmocka-dev"
# missing_build [notest]: the Debian packages of the missing build dependencies
missing_build() {
	m=""
	command -v cc >/dev/null 2>&1 || m="$m gcc"
	command -v make >/dev/null 2>&1 || m="$m make"
	if command -v "$PKG_CONFIG" >/dev/null 2>&1; then
		libs=$BUILD_LIBS
		[ "${1:-}" = notest ] || libs="$libs $TEST_LIBS"
		for l in $libs; do "$PKG_CONFIG" --exists "${l%%:*}" 2>/dev/null || m="$m ${l#*:}"; done
	else
		m="$m pkg-config"
		for l in $BUILD_LIBS $TEST_LIBS; do m="$m ${l#*:}"; done
	fi
	echo "$m"
}
# the optional packages of the product: the bpf backends
missing_bpf() {
	m=""
	"$PKG_CONFIG" --exists libbpf 2>/dev/null || m="$m libbpf-dev"
	command -v clang >/dev/null 2>&1 || m="$m clang"
	command -v bpftool >/dev/null 2>&1 || [ -x /usr/sbin/bpftool ] || m="$m bpftool"
	echo "$m"
}
if [ "${1:-}" = check ]; then
	need=$(missing_build "${2:-}")
	if [ -n "$need" ]; then
		# on stdout: the Makefile stops with it ($(error))
		echo "latscope: missing build dependencies:$need; install them: make deps (as root), or apt-get install$need"
		exit 1
	fi
	opt=$(missing_bpf)
	[ -z "$opt" ] || [ "${QUIET:-0}" = 1 ] ||
		echo "latscope: optional, not installed:$opt: the bpf backends (hist/osnoise/monitor --backend bpf) are left out; make deps installs them" >&2
	exit 0
fi
if [ "${1:-}" = deb ]; then
	m=""
	for t in dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot; do
		command -v "${t%%:*}" >/dev/null 2>&1 || m="$m ${t#*:}"
	done
	[ "${2:-}" != check ] || command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] ||
		m="$m debootstrap"
	[ -n "$m" ] || exit 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing:$m" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $m >/dev/null && exit 0
	fi
	echo "deps: missing packaging tools:$m; install them: apt-get install$m" >&2
	exit 1
fi
if [ "${1:-}" = cross ]; then
	tr=${2:?deps.sh cross TRIPLET}
	m=""
	command -v "$tr-gcc" >/dev/null 2>&1 || m="$m gcc-$tr"
	command -v "$tr-g++" >/dev/null 2>&1 || m="$m g++-$tr"
	case $tr in powerpc64le-*) q=qemu-ppc64le;; *) q=;; esac
	[ -z "$q" ] || command -v "$q" >/dev/null 2>&1 || m="$m qemu-user"
	[ -n "$m" ] || exit 0
	apt_install $m
	command -v "$tr-gcc" >/dev/null 2>&1 && command -v "$tr-g++" >/dev/null 2>&1 && exit 0
	echo "deps: no cross compiler for $tr; install it: apt-get install$m" >&2
	exit 1
fi
if [ "${1:-}" = power ]; then
	m=""
	for t in meson:meson ninja:ninja-build dpkg-source:dpkg-dev cpio:cpio; do
		command -v "${t%%:*}" >/dev/null 2>&1 || m="$m ${t#*:}"
	done
	for l in glib-2.0:libglib2.0-dev pixman-1:libpixman-1-dev zlib:zlib1g-dev; do
		"$PKG_CONFIG" --exists "${l%%:*}" 2>/dev/null || m="$m ${l#*:}"
	done
	# (Debian's libfdt-dev has no .pc file: pkg-config never finds it, and
	# every call installed it again, holding dpkg's lock while the kernel
	# tier, beside, installed its tools: they skipped)
	[ -f /usr/include/libfdt.h ] || m="$m libfdt-dev"
	[ -f /usr/share/qemu/vof.bin ] || m="$m qemu-system-data"
	[ -n "$m" ] || exit 0
	apt_install $m && exit 0
	echo "deps: missing for the POWER tier:$m; install them: apt-get install$m" >&2
	exit 1
fi
if [ "${1:-}" = kbuild ]; then
	m=""
	for t in flex:flex bison:bison bc:bc pahole:dwarves; do
		command -v "${t%%:*}" >/dev/null 2>&1 || m="$m ${t#*:}"
	done
	[ -f /usr/include/openssl/ssl.h ] || m="$m libssl-dev"
	[ -f /usr/include/libelf.h ] || m="$m libelf-dev"
	[ -n "$m" ] || exit 0
	apt_install $m && exit 0
	echo "deps: missing to build a kernel:$m; install them: apt-get install$m" >&2
	exit 1
fi
if [ "${1:-}" = kernels ]; then
	miss=""
	for t in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio rtla:rtla \
		 perf:linux-perf cyclictest:rt-tests; do
		command -v "${t%%:*}" >/dev/null 2>&1 || miss="$miss ${t#*:}"
	done
	[ -n "$miss" ] || exit 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		for p in $miss; do echo "$p: not installed (not root: sudo apt-get install $p)"; done
		exit 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	echo "deps: installing:$miss" >&2
	apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $miss >/dev/null 2>&1 && exit 0
	for p in $miss; do
		err=$(apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$p" 2>&1 >/dev/null) ||
			echo "$p: apt-get install failed: $(echo "$err" | grep -v '^W:' | tail -1)"
	done
	exit 0
fi
need=$(missing_build)
# The bpf histogram backend (hist --backend bpf): libbpf, clang -target bpf
# and bpftool (vmlinux.h, the skeleton).  Optional: without them the Makefile
# compiles the backend out and says why.
"$PKG_CONFIG" --exists libbpf 2>/dev/null || opt="${opt:-} libbpf-dev"
command -v bpftool >/dev/null 2>&1 || [ -x /usr/sbin/bpftool ] || opt="${opt:-} bpftool"
# Tools the tests and fuzzers use (optional for a plain build).
# prometheus and promtool, curl and systemd-analyze: the monitor's tests
# (tests/e2e/monitor*.sh, tests/static/contrib.sh); jq and less: documented examples
# (tests/e2e/doc_examples.sh).
for t in zstd:zstd clang:clang strace:strace prometheus:prometheus promtool:prometheus curl:curl jq:jq less:less \
	 systemd-analyze:systemd; do
	command -v "${t%%:*}" >/dev/null 2>&1 || opt="${opt:-} ${t#*:}"
done
[ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || \
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || opt="${opt:-} libclang-rt-14-dev"
command -v perf >/dev/null 2>&1 || opt="${opt:-} linux-perf"
command -v bc >/dev/null 2>&1 || opt="${opt:-} bc"
[ -x /usr/bin/time ] || opt="${opt:-} time"
command -v cyclictest >/dev/null 2>&1 || opt="${opt:-} rt-tests"
# python3-jsonschema: tests/e2e/json_schema.sh validates the JSON against docs/schema
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || opt="${opt:-} python3-jsonschema"
# chromium: tests/e2e/html_pages.sh renders the --html pages in a headless browser
command -v chromium >/dev/null 2>&1 || opt="${opt:-} chromium"
[ -n "$need" ] || [ -n "${opt:-}" ] || exit 0
all="$need ${opt:-}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$all" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
	if ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq $all >/dev/null 2>&1; then
		# Optional tools may be unavailable; retry with the required ones only.
		[ -z "$need" ] || apt-get -o DPkg::Lock::Timeout=600 install -y -qq $need >/dev/null || {
			echo "deps: apt-get install$need failed; install them and run make again" >&2; exit 1; }
	fi
	exit 0
fi
if [ -n "$need" ]; then
	echo "deps: missing build dependencies:$need" >&2
	echo "deps: install them with: sudo apt-get install$need" >&2
	exit 1
fi
echo "deps: optional tools missing (some tests will skip):${opt:-}" >&2
exit 0
