#!/bin/sh
# SPDX-License-Identifier: MIT
# The POWER tier (docs/power.md): boots Debian sid's ppc64el kernel in a
# pseries guest under the test hypervisor (tests/power/qemu: QEMU writing DTL
# entries and logging every one), with latscope built for ppc64el
# (build-ppc64el, scripts/cross.sh), and runs tests/power/guest/*.sh there
# with the kernel tier's guest /init and helpers (tests/kernels/init.sh,
# tests/kernels/guest/lib.sh: the same headers, result lines and results
# disk).  A test with a host side (tests/power/host/NAME.sh) is checked here
# against its artefacts and the hypervisor's log (HVLOG).  Prints PASS/FAIL/
# SKIP per test and "power: N passed, N failed, N skipped".
#
# Environment: CROSS_BUILD (default build-ppc64el), LATSCOPE_CACHE,
#   PTESTS="name ..." (only these guest tests), KEEP_TMP=1, POWER_UNIT=all
#   (every unit test in the guest, not only those that drive the kernel),
#   POWER_MEM_MB (1024), POWER_GRACE_S (60: no progress that long past a
#   test's timeout kills the guest).
set -u
PDIR=$(cd "$(dirname "$0")" && pwd)
TESTS_DIR=$(dirname "$PDIR")
SRCDIR=$(dirname "$TESTS_DIR")
BUILD=${CROSS_BUILD:-$SRCDIR/build-ppc64el}
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
MEM=${POWER_MEM_MB:-1024}
GRACE_S=${POWER_GRACE_S:-60}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/latscope-power.XXXXXX") || exit 1
if [ -n "${KEEP_TMP:-}" ]; then echo "power: keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT INT TERM; fi
TIER=power
GDIR=$PDIR/guest
GDIR2=$TESTS_DIR/kernels/guest	# the kernel tier's tests that run here too (KT_REUSE)
. "$TESTS_DIR/kernels/harness.inc"
summary() { tier_summary; }
fa() { sh "$SRCDIR/scripts/foreign-apt.sh" "$@"; }

# ---- the hypervisor, the build, the kernel, busybox -----------------------------
# (make check starts the build early, in the background: tests/power/qemu/
# build.sh waits for it under its lock)
qemu=$(sh "$PDIR/qemu/build.sh" 2> "$WORK/qemu.err")
case $? in
0) ;;
77) result SKIP power "the test hypervisor cannot be built here: $(tail -1 "$WORK/qemu.err")"; summary;;
*) result FAIL power/hypervisor "$(tail -1 "$WORK/qemu.err")"; summary;;
esac
# the ppc64el build, brought up to date (make: nothing to do after the
# cross tier of make check)
(cd "$SRCDIR" && BUILD=$BUILD sh scripts/cross.sh ppc64el) > "$WORK/cross.log" 2>&1
case $? in
0) ;;
77) result SKIP power "no ppc64el build: $(tail -1 "$WORK/cross.log")"; summary;;
*) result FAIL power/cross "$(tail -1 "$WORK/cross.log")"; summary;;
esac
# sid's ppc64el kernel: linux-image-powerpc64le -> linux-image-VER -> its
# linux-binary (vmlinuz, an ELF QEMU boots), linux-base (config), linux-modules
kernel() {
	img=$(fa sid ppc64el field linux-image-powerpc64le Depends | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -1) && [ -n "$img" ] || return 1
	KVER=${img#linux-image-}
	kd=$CACHE/power/kernels/$KVER
	if [ ! -f "$kd/.done" ]; then
		rm -rf "$kd.tmp" && mkdir -p "$kd.tmp" || return 1
		for p in linux-binary linux-base linux-modules; do
			deb=$(fa sid ppc64el get "$p-$KVER") || return 1
			dpkg-deb -x "$deb" "$kd.tmp" || return 1
		done
		: > "$kd.tmp/.done"
		rm -rf "$kd" && mv "$kd.tmp" "$kd" || return 1
	fi
	# older kernels of the cache go
	for o in "$CACHE"/power/kernels/*; do [ "$o" = "$kd" ] || rm -rf "$o"; done
	echo "$kd"
}
kd=$(kernel 2> "$WORK/kernel.err") ||
	{ result SKIP power "no sid ppc64el kernel: $(tail -1 "$WORK/kernel.err")"; summary; }
KVER=$(basename "$kd")
mdir=$kd/usr/lib/modules/$KVER
bb=$(fa sid ppc64el get busybox-static 2> "$WORK/bb.err") ||
	{ result SKIP power "no ppc64el busybox: $(tail -1 "$WORK/bb.err")"; summary; }

# ---- the initramfs ------------------------------------------------------------------
ROOT=$WORK/root
mkdir -p "$ROOT/bin" "$ROOT/ktest/guest" "$ROOT/ktest/modules" "$ROOT/ktest/unit" "$ROOT/ktest/tools" || exit 1
dpkg-deb --fsys-tarfile "$bb" | tar -x -C "$WORK" ./usr/bin/busybox && mv "$WORK/usr/bin/busybox" "$ROOT/bin/" ||
	{ result FAIL power/initramfs "no busybox in $bb"; summary; }
cp -a "$BUILD/root/." "$ROOT/" && cp "$BUILD/latscope" "$ROOT/bin/latscope" || exit 1
# chrt (Debian's busybox has none): bookworm's util-linux for ppc64el, on the
# libc of build-ppc64el/root
if ul=$(fa bookworm ppc64el get util-linux 2> "$WORK/ul.err"); then
	dpkg-deb --fsys-tarfile "$ul" | tar -x -C "$WORK" ./usr/bin/chrt && mv "$WORK/usr/bin/chrt" "$ROOT/bin/" ||
		echo "power: no chrt in $ul: the tests that need it skip" >&2
else
	echo "power: no ppc64el util-linux ($(tail -1 "$WORK/ul.err")): the tests that need chrt skip" >&2
fi
cp "$BUILD"/tests/tools/* "$ROOT/bin/" 2>/dev/null
cp "$BUILD"/tests/test_* "$ROOT/ktest/unit/" 2>/dev/null
# the unit tests the guest runs (tests/power/guest/unit.sh): those that
# drive the kernel, or every one with POWER_UNIT=all
if [ "${POWER_UNIT:-}" = all ]; then
	(cd "$ROOT/ktest/unit" && ls test_*) > "$ROOT/ktest/unit.list"
else
	echo "test_cmdio test_workthread test_metricsrv test_safeout test_pdwrite_io test_osnparams" \
	     "test_osnreplay test_tfsformat test_regress test_pring test_sysinfo test_livesetup" | tr ' ' '\n' | grep . > "$ROOT/ktest/unit.list"
fi
cp "$TESTS_DIR/run-unit.sh" "$TESTS_DIR/lsan.supp" "$ROOT/ktest/" || exit 1
# the unit tests read tests/data/... from the source directory
# (and fuzz/regress/...)
mkdir -p "$ROOT/ktest/src/tests" "$ROOT/ktest/src/fuzz" && cp -r "$TESTS_DIR/data" "$ROOT/ktest/src/tests/" &&
	cp -r "$SRCDIR/fuzz/regress" "$ROOT/ktest/src/fuzz/" || exit 1
cp "$TESTS_DIR/kernels/init.sh" "$ROOT/init" && chmod 755 "$ROOT/init" || exit 1
cp "$TESTS_DIR/kernels/guest/lib.sh" "$ROOT/ktest/guest/" || exit 1
tests=""
: > "$ROOT/ktest/skip"
# the POWER tier's own guest tests, and the kernel tier's that run here as
# they are (KT_REUSE: hist_storm, every hist backend the kernel has, with 3 s
# storms; the osnoise tracer's options, where the kernel has the tracer); a
# host check of either tier's host/ runs after
for t in "$PDIR"/guest/*.sh $(for n in ${KT_REUSE-hist_storm osnoise_kernel_options}; do
	echo "$TESTS_DIR/kernels/guest/$n.sh"; done); do
	n=$(basename "$t" .sh)
	if [ -n "${PTESTS:-}" ]; then case " $PTESTS " in *" $n "*) ;; *) continue;; esac; fi
	cp "$t" "$ROOT/ktest/guest/" && tests="$tests $n" || continue
	for w in $(sed -n 's/^# needs: *//p' "$t" | head -1); do
		case $w in
		e2e:*)	# a host end-to-end test the guest runs too, with tests/lib.sh
			mkdir -p "$ROOT/ktest/e2e"
			cp "$TESTS_DIR/lib.sh" "$ROOT/ktest/lib.sh"
			cp "$TESTS_DIR/e2e/${w#e2e:}.sh" "$ROOT/ktest/e2e/" ||
				echo "$n has no tests/e2e/${w#e2e:}.sh" >> "$ROOT/ktest/skip";;
		tool:*)	# the tools are all in /bin (cross-built)
			[ -e "$ROOT/bin/${w#tool:}" ] ||
				echo "$n has no ${w#tool:} built for ppc64el" >> "$ROOT/ktest/skip";;
		file:/perf/*)	# sid's perf for ppc64el (tests/power/perfroot.sh), in /perf
			if [ ! -e "$ROOT/perf/bin/perf" ] && [ ! -e "$WORK/perf.err" ]; then
				if pr=$(sh "$PDIR/perfroot.sh" 2> "$WORK/perf.err"); then
					mkdir -p "$ROOT/perf" && cp -a "$pr/." "$ROOT/perf/" && rm -f "$WORK/perf.err"
				fi
			fi
			[ -e "$ROOT/perf/bin/perf" ] ||
				echo "$n no ppc64el perf: $(tail -1 "$WORK/perf.err")" >> "$ROOT/ktest/skip";;
		esac
	done
done
# the results disk's driver (the kernel's modules are xz-compressed; the
# guest's insmod takes them plain)
mods=""
for m in virtio_blk; do
	f=$(cd "$mdir" && find kernel -name "$m.ko*" | head -1)
	if [ -n "$f" ]; then
		xz -dc "$mdir/$f" > "$ROOT/ktest/modules/$m.ko" 2>/dev/null || cp "$mdir/$f" "$ROOT/ktest/modules/$m.ko"
		mods="$mods $m.ko"
	elif ! grep -q "/$m.ko" "$mdir/modules.builtin"; then
		result FAIL power/initramfs "no $m module in $mdir"; summary
	fi
done
cp "$mdir/config" "$ROOT/ktest/kconfig" || exit 1
{
	echo "KERNEL='sid'"
	echo "MUST='pmu:vpa_dtl'"
	echo "MODULES='$mods'"
	echo "KT_STORM_DUR=3"	# the kernel tier's hist_storm: 3 s storms here
} > "$ROOT/ktest/kernel.env"
(cd "$ROOT" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$WORK/initrd" ||
	{ echo "power: cannot build the initramfs"; exit 1; }

# ---- the boot -----------------------------------------------------------------------
limit=$((2 * GRACE_S))
for n in $tests; do
	to=$(header "$n" timeout); limit=$((limit + ${to:-60}))
done
echo "power: sid: $KVER under $(basename "$(dirname "$qemu")")'s QEMU $(cat "$(dirname "$qemu")/version"), tcg, -smp 2 -m $MEM"
truncate -s 256M "$WORK/disk.img"
: > "$WORK/results"; : > "$WORK/hv.log"
t0=$(date +%s)
# (ulimit -f: dash counts 512-byte blocks; a guest that hangs with the DTL
# on fills the log at megabytes a second: 1 GiB stops it, said below)
(ulimit -f 2097152
LATSCOPE_DTL_LOG=$WORK/hv.log LATSCOPE_DTL_MODE=${POWER_DTL_MODE:-stress} \
exec timeout -k 10 "$limit" "$qemu" -L /usr/share/qemu -M pseries,x-vof=on -accel tcg -smp 2 -m "$MEM" \
	-nodefaults -display none -vga none -no-reboot \
	-kernel "$kd/usr/lib/modules/$KVER/vmlinuz" -initrd "$WORK/initrd" \
	-append "console=hvc0 rdinit=/init quiet panic=-1" \
	-serial "file:$WORK/console" -serial "file:$WORK/results" \
	-drive "file=$WORK/disk.img,format=raw,if=none,id=rd" -device virtio-blk-pci,drive=rd \
	> "$WORK/qemu.out" 2>&1)
qrc=$?
echo "power: sid: guest ran $(( $(date +%s) - t0 )) s (qemu exit $qrc), the hypervisor wrote $(grep -c '^dtl ' "$WORK/hv.log") DTL entries"
mkdir -p "$WORK/out" && tar -xf "$WORK/disk.img" -C "$WORK/out" 2>/dev/null
# the result lines: the second console (hvc1) loses some under TCG (the
# guest's writes fail with EIO when the hypervisor console's buffer is
# full), so the results disk's copy (init.sh's /results/results) comes
# first, the console's lines when the disk gave none
if [ -s "$WORK/out/results" ]; then
	cp "$WORK/out/results" "$WORK/results.txt"
else
	tr -d '\r' < "$WORK/console" | sed -n 's/.*\(KT [A-Z]* .*\)/\1/p' > "$WORK/results.txt"
fi
if grep -q '^KT DONE' "$WORK/results.txt"; then lost="the guest gave no result"
elif [ "$(stat -c %s "$WORK/hv.log")" -ge 1073741824 ]; then lost="the hypervisor's log reached 1 GiB: the guest ran away with the DTL on (qemu exit $qrc)"
elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then lost="the guest hung: killed after $limit s"
else lost="the guest stopped before it (qemu exit $qrc)"; fi
for n in features $tests; do
	line=$(grep -v '^KT RUN ' "$WORK/results.txt" | grep -m1 "^KT [A-Z]* $n\( \|\$\)")
	if [ -z "$line" ]; then
		result FAIL "sid/$n" "$lost"
		tail -20 "$WORK/console" | indent
		continue
	fi
	st=$(echo "$line" | cut -d' ' -f2)
	why=$(echo "$line" | cut -d' ' -f4-)
	hout=""
	hc=$PDIR/host/$n.sh
	[ -f "$hc" ] || hc=$TESTS_DIR/kernels/host/$n.sh
	if [ "$st" = PASS ] && [ -f "$hc" ]; then
		hout=$(ART="$WORK/out/art/$n" HVLOG="$WORK/hv.log" LATSCOPE_HOST="$SRCDIR/build/latscope" \
			LATSCOPE="$SRCDIR/build/latscope" TESTS_DIR="$TESTS_DIR" TOOLS="$SRCDIR/build/tests/tools" \
			KERNEL=sid PDIR="$PDIR" sh "$hc" 2>&1)
		case $? in
		0) ;;
		77) st=SKIP why="host check: $(echo "$hout" | tail -1)";;
		*) st=FAIL why="host check failed";;
		esac
	fi
	result "$st" "sid/$n" "$why"
	[ -z "$hout" ] || echo "$hout" | tail -30 | indent
	[ "$st" != FAIL ] || [ ! -f "$WORK/out/log/$n" ] || tail -30 "$WORK/out/log/$n" | indent
done
times_line sid "$WORK/out/times"
summary
