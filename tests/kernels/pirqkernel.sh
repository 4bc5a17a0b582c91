#!/bin/sh
# SPDX-License-Identifier: MIT
# An x86_64 guest kernel with the preemptirq tracepoints
# (CONFIG_PREEMPTIRQ_TRACEPOINTS, selected by the irqsoff and preemptoff
# tracers), which no Debian kernel has: sid's linux-source (the version of
# sid's kernel), upstream's x86_64_defconfig and kvm_guest.config, full
# preemption (so that preemptoff means something), the irqsoff, preemptoff,
# osnoise and timerlat tracers, hist triggers, BPF with BTF, the 8250 console
# and virtio's PCI and block disk built in (no module needed to boot), and
# the preemptirq delay test (CONFIG_PREEMPTIRQ_DELAY_TEST) as a module.  Test
# equipment for the kernel tier's "pirq" kernel (docs/kernels.md).
#
# usage: tests/kernels/pirqkernel.sh build   build it unless cached (about
#                                            40 minutes on 2 CPUs), print its dir
#        tests/kernels/pirqkernel.sh path    print the cached kernel's dir, or
#                                            exit 1 saying it is not built
# The directory: VER/bzImage, VER/config, VER/preemptirq_delay_test.ko and
# VER/release (the kernel's uname -r) under $LATSCOPE_CACHE/kernels/pirq (an
# older version goes when a newer one is built).  Errors: one line on
# stderr; 77 when something needed cannot be had, 1 when the build fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$here/../.." && pwd)
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
base=$CACHE/kernels/pirq
KB=pirqkernel
. "$SRCDIR/scripts/kbuild.inc"
kb_sid amd64
ver=$kb_ver src=$kb_src
out=$base/$ver
# what must be on in the built kernel's .config (=y, but the delay test: =m)
want="IRQSOFF_TRACER PREEMPT_TRACER PREEMPTIRQ_TRACEPOINTS PREEMPT FTRACE FUNCTION_TRACER
HIST_TRIGGERS OSNOISE_TRACER TIMERLAT_TRACER BPF_SYSCALL BPF_JIT BPF_EVENTS DEBUG_INFO_BTF
PERF_EVENTS SERIAL_8250 SERIAL_8250_CONSOLE VIRTIO_PCI VIRTIO_BLK DEVTMPFS DEBUG_FS KPROBE_EVENTS"
case ${1:-} in
path)
	[ -f "$out/bzImage" ] && [ -f "$out/preemptirq_delay_test.ko" ] && { echo "$out"; exit 0; }
	echo "no preemptirq-tracepoint kernel built for $ver (make kernel-pirq: about 40 minutes)" >&2
	exit 1;;
build) ;;
*) echo "usage: pirqkernel.sh build|path" >&2; exit 2;;
esac
kb_locked "$base" PIRQK_LOCKED "$0" "$@"
[ -f "$out/bzImage" ] && [ -f "$out/preemptirq_delay_test.ko" ] && { echo "$out"; exit 0; }
sh "$SRCDIR/scripts/deps.sh" kbuild >&2 || exit 77
# linux-source is arch-all: the POWER tier's download of the same version
# (sid-ppc64el) serves here too, linked into this suite's archive cache
deb=$(kb_source_deb "$CACHE" amd64) || exit 77
work=$base/build.$$
trap 'rm -rf "$work"' EXIT INT TERM
k=$(kb_unpack "$deb" "$work") || exit 1
echo "pirqkernel: building $src ($ver) with the preemptirq tracepoints for x86_64 (once: about 40 minutes)" >&2
m() { nice -n 19 make -C "$k" ARCH=x86_64 "$@"; }
# Full preemption: PREEMPT on, the other models of the choice off (the
# delay test's preempt mode and the preemptoff tracer need preempt_disable
# to count).  BTF needs DWARF debug info (pahole turns it into BTF).
{
	m x86_64_defconfig && m kvm_guest.config &&
	"$k/scripts/config" --file "$k/.config" \
		-e IRQSOFF_TRACER -e PREEMPT_TRACER -d PREEMPT_NONE -d PREEMPT_VOLUNTARY -d PREEMPT_LAZY -e PREEMPT \
		-e FTRACE -e FUNCTION_TRACER -e HIST_TRIGGERS -e OSNOISE_TRACER -e TIMERLAT_TRACER \
		-e BPF_SYSCALL -e BPF_JIT -e KPROBES -e KPROBE_EVENTS -e UPROBE_EVENTS -e BPF_EVENTS \
		-d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_REDUCED -e DEBUG_INFO_BTF \
		-e PERF_EVENTS -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e VIRTIO_PCI -e VIRTIO_BLK \
		-e DEVTMPFS -e DEBUG_FS -e MODULES -e MODULE_UNLOAD -d MODULE_SIG -m PREEMPTIRQ_DELAY_TEST &&
	m olddefconfig
} > "$work/build.log" 2>&1 || { echo "pirqkernel: the configuration failed: $(tail -1 "$work/build.log")" >&2; exit 1; }
# each option checked before the long build: a dependency olddefconfig
# turned it off for is named now, not after 40 minutes
for o in $want; do
	grep -q "^CONFIG_$o=y" "$k/.config" || { echo "pirqkernel: CONFIG_$o did not stay on" >&2; exit 1; }
done
grep -q '^CONFIG_PREEMPTIRQ_DELAY_TEST=m' "$k/.config" ||
	{ echo "pirqkernel: CONFIG_PREEMPTIRQ_DELAY_TEST did not stay a module" >&2; exit 1; }
t0=$(date +%s)
m -j2 bzImage modules >> "$work/build.log" 2>&1 ||
	{ echo "pirqkernel: the build failed: $(tail -1 "$work/build.log")" >&2; exit 1; }
ko=$(find "$k/kernel/trace" -name preemptirq_delay_test.ko | head -1)
[ -n "$ko" ] || { echo "pirqkernel: no preemptirq_delay_test.ko after the build" >&2; exit 1; }
rm -rf "$out.tmp" && mkdir -p "$out.tmp" && cp "$k/arch/x86/boot/bzImage" "$out.tmp/bzImage" &&
	cp "$k/.config" "$out.tmp/config" && strip --strip-debug -o "$out.tmp/preemptirq_delay_test.ko" "$ko" &&
	m -s kernelrelease > "$out.tmp/release" && kb_keep "$out" || exit 1
echo "pirqkernel: built in $(( $(date +%s) - t0 )) s" >&2
echo "$out"
