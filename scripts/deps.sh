#!/bin/sh
# SPDX-License-Identifier: MIT
# Check latscope's build dependencies; install missing ones with apt-get when
# running as root on Debian, otherwise name the packages and fail.
#
# `deps.sh kernels`: the kernel test tier's host tools (tests/kernels/run.sh):
# QEMU, a busybox, cpio, rtla, perf and cyclictest.  Installs the missing ones
# as root on Debian (one by one when the set fails), then prints a line
# "PACKAGE: why" for each one still missing; the tier skips what needs them
# with that reason.  Always exits 0.
set -u
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
	apt-get update -qq >/dev/null 2>&1 || true
	apt-get install -y -qq --no-install-recommends $miss >/dev/null 2>&1 && exit 0
	for p in $miss; do
		err=$(apt-get install -y -qq --no-install-recommends "$p" 2>&1 >/dev/null) ||
			echo "$p: apt-get install failed: $(echo "$err" | grep -v '^W:' | tail -1)"
	done
	exit 0
fi
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
need=""
command -v "$PKG_CONFIG" >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
chk() { "$PKG_CONFIG" --exists "$1" 2>/dev/null || need="$need $2"; }
if command -v "$PKG_CONFIG" >/dev/null 2>&1; then
	chk libtraceevent libtraceevent-dev
	chk libtracefs libtracefs-dev
	chk libzstd libzstd-dev
	chk json-c libjson-c-dev
	chk libmicrohttpd libmicrohttpd-dev
	chk libelf libelf-dev
	chk cmocka libcmocka-dev
else
	need="$need libtraceevent-dev libtracefs-dev libzstd-dev libjson-c-dev libmicrohttpd-dev libelf-dev libcmocka-dev"
fi
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
[ -n "$need" ] || [ -n "${opt:-}" ] || exit 0
all="$need ${opt:-}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$all" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	if ! apt-get install -y -qq $all >/dev/null 2>&1; then
		# Optional tools may be unavailable; retry with the required ones only.
		[ -z "$need" ] || apt-get install -y -qq $need >/dev/null || {
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
