#!/bin/sh
# SPDX-License-Identifier: MIT
# The POWER tier (docs/power.md): boots Debian's ppc64el kernels (sid's, in
# the stress and the realistic mode, and bookworm's 64K-page 6.1) in a
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
#   PTESTS="name ..." (only these guest tests), PBOOTS="boot ..." (only
#   these boots: sid sid-realistic bookworm sid-kvm dtl), KEEP_TMP=1, POWER_UNIT=all
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
# ---- the kernels --------------------------------------------------------------------
# kernel SUITE: the suite's ppc64el kernel (linux-image-powerpc64le's
# linux-image-VER), unpacked once into $CACHE/power/kernels/SUITE/VER (older
# versions go); its directory on stdout.  sid splits it into linux-binary
# (vmlinuz, an ELF QEMU boots), linux-base (config) and linux-modules;
# bookworm's is one package (boot/vmlinux-VER, boot/config-VER).
kernel() {
	img=$(fa "$1" ppc64el field linux-image-powerpc64le Depends | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -1) && [ -n "$img" ] || return 1
	v=${img#linux-image-}
	kd=$CACHE/power/kernels/$1/$v
	if [ ! -f "$kd/.done" ]; then
		case $1 in sid) pkgs="linux-binary-$v linux-base-$v linux-modules-$v";; *) pkgs=$img;; esac
		rm -rf "$kd.tmp" && mkdir -p "$kd.tmp" || return 1
		for p in $pkgs; do
			deb=$(fa "$1" ppc64el get "$p") || return 1
			dpkg-deb -x "$deb" "$kd.tmp" || return 1
		done
		: > "$kd.tmp/.done"
		rm -rf "$kd" && mv "$kd.tmp" "$kd" || return 1
	fi
	for o in "$CACHE/power/kernels/$1"/*; do [ "$o" = "$kd" ] || rm -rf "$o"; done
	echo "$kd"
}
# kfiles KD: vml (the image QEMU boots), mdir (lib/modules/VER), kcfg (the config)
kfiles() {
	v=$(basename "$1")
	if [ -f "$1/vmlinux" ]; then	# tests/power/dtlkernel.sh's: no modules
		mdir=$1/modules vml=$1/vmlinux kcfg=$1/config
	elif [ -f "$1/usr/lib/modules/$v/vmlinuz" ]; then
		mdir=$1/usr/lib/modules/$v vml=$1/usr/lib/modules/$v/vmlinuz kcfg=$1/usr/lib/modules/$v/config
	else
		mdir=$1/lib/modules/$v vml=$1/boot/vmlinux-$v kcfg=$1/boot/config-$v
	fi
}
# (the cache's layout before the suites had a directory each)
for o in "$CACHE"/power/kernels/*; do case ${o##*/} in sid|bookworm|"*") ;; *) rm -rf "$o";; esac; done
sidkd=$(kernel sid 2> "$WORK/kernel.err") ||
	{ result SKIP power "no sid ppc64el kernel: $(tail -1 "$WORK/kernel.err")"; summary; }
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
	     "test_osnreplay test_tracedata test_regress test_perfring test_sysinfo test_livesetup" | tr ' ' '\n' | grep . > "$ROOT/ktest/unit.list"
fi
cp "$TESTS_DIR/run-unit.sh" "$TESTS_DIR/lsan.supp" "$ROOT/ktest/" || exit 1
# the unit tests read tests/data/... from the source directory
# (and fuzz/regress/...)
mkdir -p "$ROOT/ktest/src/tests" "$ROOT/ktest/src/fuzz" && cp -r "$TESTS_DIR/data" "$ROOT/ktest/src/tests/" &&
	cp -r "$SRCDIR/fuzz/regress" "$ROOT/ktest/src/fuzz/" || exit 1
cp "$TESTS_DIR/kernels/init.sh" "$ROOT/init" && chmod 755 "$ROOT/init" || exit 1
cp "$TESTS_DIR/kernels/guest/lib.sh" "$ROOT/ktest/guest/" || exit 1
# The boots, each one guest run of its tests:
#   sid            sid's kernel (4K pages, the vpa_dtl PMU, BTF), the
#                  hypervisor's stress mode: every guest test but those
#                  whose "# boots:" line names other boots
#   sid-realistic  sid's kernel, the realistic mode (cedes and preempts of
#                  100 us and more) and forced holds of vCPU 1
#                  (POWER_HOLD, default 250000:20000:1: 20 ms every 250 ms)
#   bookworm       bookworm's 6.1 (64K pages, no vpa_dtl PMU, no BTF): the
#                  basic set
#   sid-kvm        sid's kernel told it is a KVM guest (LATSCOPE_DTL_KVM=1:
#                  /hypervisor "linux,kvm" in the device tree): the refusals
#   dtl            sid's source built with CONFIG_DTL (tests/power/dtlkernel.sh,
#                  make power-dtl-kernel; skipped, saying so, until built):
#                  the debugfs DTL
# A guest test says where it runs in its "# boots:" line (default sid); of
# the kernel tier's, hist_storm runs on sid and bookworm, the others on sid.
# PBOOTS="label ..." runs only those boots.
BOOTS="sid sid-realistic bookworm sid-kvm dtl"
[ -z "${PBOOTS:-}" ] || BOOTS=$PBOOTS
: > "$ROOT/ktest/skip"
mkdir -p "$WORK/tests"
for b in $BOOTS; do : > "$WORK/tests/$b"; done
# the POWER tier's own guest tests, and the kernel tier's that run here as
# they are (KT_REUSE: hist_storm, every hist backend the kernel has, with 3 s
# storms; the osnoise tracer's options, where the kernel has the tracer); a
# host check of either tier's host/ runs after
for t in "$PDIR"/guest/*.sh $(for n in ${KT_REUSE-hist_storm osnoise_kernel_options}; do
	echo "$TESTS_DIR/kernels/guest/$n.sh"; done); do
	n=$(basename "$t" .sh)
	if [ -n "${PTESTS:-}" ]; then case " $PTESTS " in *" $n "*) ;; *) continue;; esac; fi
	case $t in
	"$PDIR"/*) tb=$(sed -n 's/^# boots: *//p' "$t" | head -1); tb=${tb:-sid};;
	*/hist_storm.sh) tb="sid bookworm";;
	*) tb=sid;;
	esac
	on=""
	for b in $tb; do
		[ -e "$WORK/tests/$b" ] || continue
		echo "$t" >> "$WORK/tests/$b"; on=1
	done
	[ -n "$on" ] || continue
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
(cd "$ROOT" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$WORK/base.cpio.gz" ||
	{ echo "power: cannot build the initramfs"; exit 1; }

# ---- a boot -------------------------------------------------------------------------
# boot LABEL KD MUST [VAR=VALUE...]: the kernel in KD under the test
# hypervisor (VAR=VALUE: its environment) with the tests listed in
# $WORK/tests/LABEL; the initramfs is the common one and, appended, a second
# archive with the tests, the modules, the config and kernel.env (the kernel
# unpacks both).  Result lines "LABEL/NAME"; the host checks run on the
# artefacts with HVLOG, this boot's log of every DTL entry.
boot() {
	label=$1 kd=$2 must=$3
	shift 3
	bw=$WORK/$label
	ov=$bw/ov
	mkdir -p "$ov/ktest/guest" "$ov/ktest/modules" || return 1
	tests=""
	while read -r t; do
		cp "$t" "$ov/ktest/guest/" && tests="$tests $(basename "$t" .sh)"
	done < "$WORK/tests/$label"
	kfiles "$kd"
	kver=$(basename "$kd")
	# the results disk's driver and what it depends on (sid's modules are
	# xz-compressed; the guest's insmod takes them plain)
	if [ ! -d "$mdir" ] && grep -q '^CONFIG_VIRTIO_BLK=y' "$kcfg"; then
		mods=""
	elif ! mods=$(modules virtio_pci virtio_blk 2> "$bw/mod.err"); then
		result FAIL "$label/initramfs" "$(tail -1 "$bw/mod.err")"
		return 0
	fi
	mlist=""
	for f in $mods; do m=$(mod_copy "$f" "$ov/ktest/modules") || return 1; mlist="$mlist $m"; done
	cp "$kcfg" "$ov/ktest/kconfig" || return 1
	{
		echo "KERNEL='$label'"
		echo "MUST='$must'"
		echo "MODULES='${mlist# }'"
		echo "KT_STORM_DUR=3"	# the kernel tier's hist_storm: 3 s storms here
	} > "$ov/ktest/kernel.env"
	(cd "$ov" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 | cat "$WORK/base.cpio.gz" - > "$bw/initrd" ||
		{ result FAIL "$label/initramfs" "cannot build the initramfs"; return 0; }
	limit=$((2 * GRACE_S))
	for n in $tests; do
		to=$(sed -n 's/^# timeout: *//p' "$ov/ktest/guest/$n.sh" | head -1); limit=$((limit + ${to:-60}))
	done
	echo "power: $label: $kver under $(basename "$(dirname "$qemu")")'s QEMU $(cat "$(dirname "$qemu")/version"), tcg, -smp 2 -m $MEM${*:+, $*}"
	truncate -s 256M "$bw/disk.img"
	: > "$bw/results"; : > "$bw/hv.log"
	t0=$(date +%s)
	# (ulimit -f: dash counts 512-byte blocks; a guest that hangs with the DTL
	# on fills the log at megabytes a second: 1 GiB stops it, said below)
	(ulimit -f 2097152
	exec env LATSCOPE_DTL_LOG="$bw/hv.log" LATSCOPE_DTL_MODE=stress "$@" \
		timeout -k 10 "$limit" "$qemu" -L /usr/share/qemu -M pseries,x-vof=on -accel tcg -smp 2 -m "$MEM" \
		-nodefaults -display none -vga none -no-reboot \
		-kernel "$vml" -initrd "$bw/initrd" \
		-append "console=hvc0 rdinit=/init quiet panic=-1" \
		-serial "file:$bw/console" -serial "file:$bw/results" \
		-drive "file=$bw/disk.img,format=raw,if=none,id=rd" -device virtio-blk-pci,drive=rd \
		> "$bw/qemu.out" 2>&1)
	qrc=$?
	echo "power: $label: guest ran $(( $(date +%s) - t0 )) s (qemu exit $qrc), the hypervisor wrote $(grep -c '^dtl ' "$bw/hv.log") DTL entries"
	mkdir -p "$bw/out" && tar -xf "$bw/disk.img" -C "$bw/out" 2>/dev/null
	# the result lines: the second console (hvc1) loses some under TCG (the
	# guest's writes fail with EIO when the hypervisor console's buffer is
	# full), so the results disk's copy (init.sh's /results/results) comes
	# first, the console's lines when the disk gave none
	if [ -s "$bw/out/results" ]; then
		cp "$bw/out/results" "$bw/results.txt"
	else
		tr -d '\r' < "$bw/console" | sed -n 's/.*\(KT [A-Z]* .*\)/\1/p' > "$bw/results.txt"
	fi
	if grep -q '^KT DONE' "$bw/results.txt"; then lost="the guest gave no result"
	elif [ "$(stat -c %s "$bw/hv.log")" -ge 1073741824 ]; then lost="the hypervisor's log reached 1 GiB: the guest ran away with the DTL on (qemu exit $qrc)"
	elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then lost="the guest hung: killed after $limit s"
	else lost="the guest stopped before it (qemu exit $qrc)"; fi
	for n in features $tests; do
		line=$(grep -v '^KT RUN ' "$bw/results.txt" | grep -m1 "^KT [A-Z]* $n\\( \\|\$\\)")
		if [ -z "$line" ]; then
			result FAIL "$label/$n" "$lost"
			tail -20 "$bw/console" | indent
			continue
		fi
		st=$(echo "$line" | cut -d' ' -f2)
		why=$(echo "$line" | cut -d' ' -f4-)
		hout=""
		hc=$PDIR/host/$n.sh
		[ -f "$hc" ] || hc=$TESTS_DIR/kernels/host/$n.sh
		if [ "$st" = PASS ] && [ -f "$hc" ]; then
			hout=$(ART="$bw/out/art/$n" HVLOG="$bw/hv.log" LATSCOPE_HOST="$SRCDIR/build/latscope" \
				LATSCOPE="$SRCDIR/build/latscope" TESTS_DIR="$TESTS_DIR" TOOLS="$SRCDIR/build/tests/tools" \
				KERNEL=$label PDIR="$PDIR" sh "$hc" 2>&1)
			case $? in
			0) ;;
			77) st=SKIP why="host check: $(echo "$hout" | tail -1)";;
			*) st=FAIL why="host check failed";;
			esac
		fi
		result "$st" "$label/$n" "$why"
		[ -z "$hout" ] || echo "$hout" | tail -30 | indent
		[ "$st" != FAIL ] || [ ! -f "$bw/out/log/$n" ] || tail -30 "$bw/out/log/$n" | indent
	done
	times_line "$label" "$bw/out/times"
}

for b in $BOOTS; do
	[ -s "$WORK/tests/$b" ] || continue
	case $b in
	sid) boot sid "$sidkd" pmu:vpa_dtl LATSCOPE_DTL_MODE=${POWER_DTL_MODE:-stress};;
	sid-realistic) boot sid-realistic "$sidkd" pmu:vpa_dtl LATSCOPE_DTL_MODE=realistic \
		LATSCOPE_DTL_HOLD=${POWER_HOLD:-250000:20000:1};;
	sid-kvm) boot sid-kvm "$sidkd" file:/proc/device-tree/hypervisor/compatible LATSCOPE_DTL_KVM=1;;
	bookworm)
		if bwkd=$(kernel bookworm 2> "$WORK/bookworm.err"); then
			boot bookworm "$bwkd" config:PPC_64K_PAGES
		else
			result SKIP bookworm "no bookworm ppc64el kernel: $(tail -1 "$WORK/bookworm.err")"
		fi;;
	dtl)	# the CONFIG_DTL kernel, when make power-dtl-kernel built it
		if dk=$(sh "$PDIR/dtlkernel.sh" path 2> "$WORK/dtlk.err"); then
			boot dtl "$dk" "pmu:vpa_dtl file:/sys/kernel/debug/powerpc/dtl"
		else
			result SKIP dtl "$(tail -1 "$WORK/dtlk.err")"
		fi;;
	*) echo "power: PBOOTS: no boot $b (the boots: sid sid-realistic bookworm sid-kvm dtl)"; exit 2;;
	esac
done
summary
