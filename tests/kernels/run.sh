#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel tier (docs/kernels.md): boots each kernel of kernels.list in QEMU
# with an initramfs holding LATSCOPE, busybox, the commands the guest tests
# need and the tests; runs every guest test in one boot per kernel; prints
# PASS/FAIL/SKIP per kernel and test and "kernels: N passed, N failed, N
# skipped".
#
# Environment: LATSCOPE (the binary under test, required);
#   LATSCOPE_KERNEL_CACHE  where the kernel .debs are downloaded and unpacked
#                          (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/kernels)
#   KERNEL_LIST            the list of kernels (default tests/kernels/kernels.list)
#   KERNELS="rt ..."       boot only these kernels of the list
#   KTESTS="name ..."      run only these guest tests
#   KERNEL_ACCEL=kvm|tcg   force the accelerator (default: kvm when /dev/kvm is
#                          usable and the CPU has vmx or svm, tcg otherwise)
#   KERNEL_MEM_MB (1024), KERNEL_APPEND (more kernel command line, e.g. quiet)
#   KERNEL_SMP (2)         the guests' CPUs (bench/timerlat.sh: 4)
#   KERNEL_GRACE_S (60)    a guest that shows no progress on its results port
#                          for that long (plus the running test's timeout) is
#                          killed as hung; the first line may take twice that
#   KERNEL_LIMIT_S         a hard limit on a boot (default: twice the grace
#                          plus the sum of the tests' timeouts)
#   KEEP_TMP=1             keep the work directory (initramfs, console, results)
#   KERNEL_NO_DEPS=1       do not run scripts/deps.sh kernels first
#   KERNEL_GUEST_DIR       the guest tests' directory (default tests/kernels/guest;
#                          bench/guest for bench/kernels.sh)
#   KERNEL_SHOW_LOGS=1     print each test's output under its result line
set -u
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
KDIR=$(cd "$(dirname "$0")" && pwd)
TESTS_DIR=$(dirname "$KDIR")
SRCDIR=$(dirname "$TESTS_DIR")
export TESTS_DIR LATSCOPE
CACHE=${LATSCOPE_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/kernels}
MEM=${KERNEL_MEM_MB:-1024}
SMP=${KERNEL_SMP:-2}
GRACE_S=${KERNEL_GRACE_S:-60}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/latscope-kernels.XXXXXX") || exit 1
if [ -n "${KEEP_TMP:-}" ]; then echo "kernels: keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT INT TERM; fi
TIER=kernels
GDIR=${KERNEL_GUEST_DIR:-$KDIR/guest}
. "$KDIR/harness.inc"
hangs=0; hung_list=""
summary() {
	[ $hangs -eq 0 ] || echo "kernels: guest hangs: $hangs ($(echo $hung_list)), each booted again once"
	tier_summary
}

# ---- the kernels and the tests ------------------------------------------------
kernels=$(sed 's/#.*//' "${KERNEL_LIST:-$KDIR/kernels.list}" | awk 'NF >= 2')
if [ -n "${KERNELS:-}" ]; then
	kernels=$(echo "$kernels" | awk -v want=" $KERNELS " 'index(want, " " $1 " ")')
fi
tests=""
for t in "$GDIR"/*.sh; do
	n=$(basename "$t" .sh)
	[ "$n" != lib ] || continue
	if [ -n "${KTESTS:-}" ]; then
		case " $KTESTS " in *" $n "*) ;; *) continue;; esac
	fi
	tests="$tests $n"
done

skip_all() {	# why: every kernel skipped
	for k in $(echo "$kernels" | awk '{print $1}'); do result SKIP "$k" "$*"; done
	summary
}

# ---- host tools ---------------------------------------------------------------
[ -x "$LATSCOPE" ] || { echo "kernels: $LATSCOPE is not an executable"; exit 1; }
if [ -z "${KERNEL_NO_DEPS:-}" ]; then
	depmsg=$(sh "$SRCDIR/scripts/deps.sh" kernels)
else
	depmsg=""
fi
why_missing() {	# command package: why the host lacks it
	w=$(echo "$depmsg" | grep -m1 "^$2:")
	echo "${w:-$2: not installed}"
}
for t in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio gzip:gzip \
	 dpkg-deb:dpkg apt-get:apt timeout:coreutils; do
	command -v "${t%%:*}" >/dev/null 2>&1 || skip_all "no ${t%%:*} on the host ($(why_missing ${t%%:*} ${t#*:}))"
done

accel=${KERNEL_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		accel=kvm
	fi
fi
# TCG runs single-threaded (thread=single: the vCPUs take turns on one host
# thread).  Multi-threaded TCG (QEMU 7.2, Debian 12) hangs these guests when
# the kernel patches its text while the other vCPU runs the code patched: the
# other vCPU keeps trapping on the int3 of the patch after it is gone (the
# kernel backs up and retries), interrupts off, and the patching CPU waits
# for it forever (docs/kernels.md, "Guest hangs").
case $accel in
kvm) qaccel="-accel kvm -cpu host";;
*) qaccel="-accel tcg,thread=single";;
esac

# ---- the common initramfs: busybox, latscope, the commands, the tests ---------
ROOT=$WORK/root
mkdir -p "$ROOT/bin" "$ROOT/ktest/guest"
# put_cmd PATH: the binary in /bin and every library ldd names at its path
put_cmd() {
	cp -L "$1" "$ROOT/bin/$(basename "$1")" || return 1
	for l in $(ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }'); do
		[ -e "$ROOT$l" ] && continue
		mkdir -p "$ROOT$(dirname "$l")" && cp -L "$l" "$ROOT$l" || return 1
	done
}
put_cmd "$(command -v busybox)" || { echo "kernels: cannot copy busybox"; exit 1; }
put_cmd "$LATSCOPE" || { echo "kernels: cannot copy $LATSCOPE"; exit 1; }
mv "$ROOT/bin/$(basename "$LATSCOPE")" "$ROOT/bin/latscope" 2>/dev/null
cp "$KDIR/init.sh" "$ROOT/init" && chmod 755 "$ROOT/init"
cp "$KDIR/guest/lib.sh" "$ROOT/ktest/guest/"
: > "$WORK/skip"
: > "$WORK/cmds"	# "COMMAND TEST" a line: which test needs which command
for n in $tests; do
	cp "$GDIR/$n.sh" "$ROOT/ktest/guest/"
	for w in $(header "$n" needs); do
		case $w in
		cmd:*) ;;
		tool:*)	# a test tool, built beside latscope (tests/tools)
			c=${w#tool:}
			[ -e "$ROOT/bin/$c" ] && continue
			put_cmd "$(dirname "$LATSCOPE")/tests/tools/$c" ||
				echo "$n cannot copy tests/tools/$c into the guest (make builds it)" >> "$WORK/skip"
			continue;;
		bench:*)	# a benchmark of bench/, with what it sources
			mkdir -p "$ROOT/ktest/bench"
			cp "$SRCDIR/bench/${w#bench:}.sh" "$SRCDIR"/bench/*.inc "$ROOT/ktest/bench/" ||
				echo "$n has no bench/${w#bench:}.sh" >> "$WORK/skip"
			continue;;
		e2e:*)	# a host end-to-end test the guest runs too, with tests/lib.sh
			mkdir -p "$ROOT/ktest/e2e"
			cp "$TESTS_DIR/lib.sh" "$ROOT/ktest/lib.sh"
			cp "$TESTS_DIR/e2e/${w#e2e:}.sh" "$ROOT/ktest/e2e/" ||
				echo "$n has no tests/e2e/${w#e2e:}.sh" >> "$WORK/skip"
			continue;;
		*) continue;;
		esac
		c=${w#cmd:}
		echo "$c $n" >> "$WORK/cmds"
		[ -e "$ROOT/bin/$c" ] && continue
		if p=$(command -v "$c"); then
			put_cmd "$p" || echo "$n cannot copy $p into the guest" >> "$WORK/skip"
		else
			pk=$c
			case $c in perf) pk=linux-perf;; cyclictest) pk=rt-tests;; esac
			echo "$n the host has no $c ($(why_missing "$c" "$pk"))" >> "$WORK/skip"
		fi
	done
done
(cd "$ROOT" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$WORK/common.cpio.gz" ||
	{ echo "kernels: cannot build the initramfs"; exit 1; }

# ---- fetching a kernel ----------------------------------------------------------
# fetch_deb PKG: the path of PKG's candidate .deb in the cache, downloaded when
# missing; without apt lists, the newest cached one.  Says why not on stderr.
fetch_deb() {
	ver=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	if { [ -z "$ver" ] || [ "$ver" = "(none)" ]; } && [ "$(id -u)" = 0 ]; then
		# a fresh machine may have no package lists yet
		apt-get -o DPkg::Lock::Timeout=600 update -qq > /dev/null 2>&1
		ver=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	fi
	if [ -n "$ver" ] && [ "$ver" != "(none)" ]; then
		f=$(ls "$CACHE/$1_$(echo "$ver" | sed 's/:/%3a/')_"*.deb 2>/dev/null | head -1)
		if [ -z "$f" ]; then
			if ! err=$(cd "$CACHE" && apt-get download "$1=$ver" 2>&1); then
				echo "apt-get download $1=$ver failed: $(echo "$err" | grep -v '^W:' | tail -1)" >&2
				return 1
			fi
			f=$(ls "$CACHE/$1_$(echo "$ver" | sed 's/:/%3a/')_"*.deb 2>/dev/null | head -1)
		fi
	else
		f=$(ls "$CACHE/$1_"*.deb 2>/dev/null | sort -V | tail -1)
	fi
	[ -n "$f" ] || { echo "no package $1 (apt-cache policy has no candidate, none cached in $CACHE)" >&2; return 1; }
	echo "$f"
}
# fetch_kernel PKG: the unpacked kernel package (PKG, or the linux-image-* it
# depends on) in the cache, unpacked once; prints its directory (or why not
# on stderr).  What PKG was before (an older version) is removed.
fetch_kernel() {
	mdeb=$(fetch_deb "$1") || return 1
	deb=$mdeb
	dep=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ (|]*\).*/\1/p' | head -1)
	if [ -n "$dep" ]; then
		deb=$(fetch_deb "$dep") || return 1
	fi
	d=$CACHE/unpacked/$(basename "$deb" .deb)
	if [ ! -f "$d/.done" ]; then
		rm -rf "$d.tmp" && mkdir -p "$d.tmp" && dpkg-deb -x "$deb" "$d.tmp" && : > "$d.tmp/.done" &&
			rm -rf "$d" && mv "$d.tmp" "$d" || { echo "dpkg-deb -x $deb failed" >&2; return 1; }
	fi
	# what PKG was before, when it was another version
	if [ -f "$CACHE/current-$1" ]; then
		for old in $(cat "$CACHE/current-$1"); do
			case " $d $deb $mdeb " in *" $old "*) ;; *) rm -rf "$old";; esac
		done
	fi
	echo "$d $deb $mdeb" > "$CACHE/current-$1"
	echo "$d"
}

# fs_fa ARGS...: scripts/foreign-apt.sh of $fs_suite for amd64; its error
# as one line naming the kernel ($fs_pkg)
fs_fa() {
	sh "$SRCDIR/scripts/foreign-apt.sh" "$fs_suite" amd64 "$@" 2> "$kw/fa.err" ||
		{ echo "no $fs_suite kernel $fs_pkg: $(tail -1 "$kw/fa.err")" >&2; return 1; }
}
# fetch_suite_kernel SUITE PKG: the kernel of another Debian suite, through
# scripts/foreign-apt.sh (its private APT configuration; the .debs in its
# archive cache): PKG's linux-image-VER and the packages of VER that one
# depends on (sid splits a kernel into linux-binary-VER: vmlinuz,
# linux-base-VER: the config, linux-modules-VER), unpacked together once
# into $CACHE/unpacked/linux-image-VER_..., prints that directory (or one
# line why not on stderr).  What SUITE:PKG was before (an older version, its
# .debs) is removed.
fetch_suite_kernel() {
	fs_suite=$1 fs_pkg=$2
	deps=$(fs_fa field "$2" Depends) || return 1
	img=$(echo "$deps" | tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ (|]*\).*/\1/p' | head -1)
	[ -n "$img" ] || img=$2	# PKG is the linux-image-VER package itself
	v=${img#linux-image-}
	deps=$(fs_fa field "$img" Depends) || return 1
	# the packages named NAME-VER among its Depends ('+' and '.' in VER:
	# compared as a string, not a pattern)
	pkgs="$img $(echo "$deps" | tr ',' '\n' | awk -v v="-$v" '{
		sub(/^ */, ""); sub(/ .*/, "")
		if (length($0) > length(v) && substr($0, length($0) - length(v) + 1) == v) print }')"
	# shellcheck disable=SC2086
	debs=$(fs_fa get $pkgs) || return 1
	d=$CACHE/unpacked/$(basename "$(echo "$debs" | head -1)" .deb)
	if [ ! -f "$d/.done" ]; then
		rm -rf "$d.tmp" && mkdir -p "$d.tmp" || return 1
		for deb in $debs; do
			dpkg-deb -x "$deb" "$d.tmp" || { echo "dpkg-deb -x $deb failed" >&2; return 1; }
		done
		: > "$d.tmp/.done" && rm -rf "$d" && mv "$d.tmp" "$d" || return 1
	fi
	# what SUITE:PKG was before, when it was another version
	cur=$CACHE/current-$(echo "$1:$2" | tr ':/' '__')
	keep=" $d $(echo "$debs" | tr '\n' ' ')"
	if [ -f "$cur" ]; then
		for old in $(cat "$cur"); do
			case $keep in *" $old "*) ;; *) rm -rf "$old";; esac
		done
	fi
	echo "$keep" > "$cur"
	echo "$d"
}

# prepare_kernel NAME PKG MUST...: the kernel's files copied into $kw (vmlinuz,
# and in $kw/root/ktest the config, the modules and kernel.env); $kw/kinfo
# names the package.  Exit 1 (skip) or 2 (fail) with the reason in $kw/why.
# Runs in a subshell, under the cache's lock when flock is there, so that
# runs sharing the cache do not download or unpack over each other.
prepare_kernel() {
	name=$1; pkg=$2; shift 2
	case $pkg in build:*) prepare_built "$@"; exit;; esac
	case $pkg in
	*:*)	suite=${pkg%%:*}
		kd=$(fetch_suite_kernel "$suite" "${pkg#*:}" 2> "$kw/why") || exit 1;;
	*)	suite=""
		kd=$(fetch_kernel "$pkg" 2> "$kw/why") || exit 1;;
	esac
	# bookworm's layout: boot/vmlinuz-VER, boot/config-VER, lib/modules/VER;
	# sid's: usr/lib/modules/VER/vmlinuz and config beside the modules
	vmlinuz=$(ls "$kd"/boot/vmlinuz-* "$kd"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -1)
	kconfig=$(ls "$kd"/boot/config-* "$kd"/usr/lib/modules/*/config 2>/dev/null | head -1)
	mdir=$(ls -d "$kd"/lib/modules/* "$kd"/usr/lib/modules/* 2>/dev/null | head -1)
	if [ -z "$vmlinuz" ] || [ -z "$kconfig" ] || [ -z "$mdir" ]; then
		echo "no vmlinuz, config or modules in $kd (boot/, lib/modules/VER/, usr/lib/modules/VER/)" > "$kw/why"
		exit 2
	fi
	if ! mods=$(modules virtio_pci virtio_blk 2> "$kw/why"); then
		exit 2
	fi
	mlist=""
	for f in $mods; do b=$(mod_copy "$f" "$kw/root/ktest/modules") || exit 2; mlist="$mlist $b"; done
	cp "$vmlinuz" "$kw/vmlinuz" && cp "$kconfig" "$kw/root/ktest/kconfig" || exit 2
	kpath=""
	[ -z "$suite" ] || suite_cmds "$suite" || exit 2
	{
		echo "KERNEL='$name'"
		echo "MUST='$*'"
		echo "MODULES='${mlist# }'"
		[ -z "$kpath" ] || echo "PATH=$kpath:\$PATH"
	} > "$kw/root/ktest/kernel.env"
	echo "$(basename "$mdir") ($(basename "$kd"))" > "$kw/kinfo"
}

# suite_cmds SUITE: of the commands the guest tests need (cmd:X), those that
# follow the kernel (SUITE_CMDS: rtla, built from the kernel's source, knows
# the files of its tracers), from SUITE for a kernel of SUITE: each with its
# libraries and SUITE's dynamic linker (tests/kernels/cmdroot.sh, cached in
# $CACHE/cmd/SUITE-amd64/X), in the guest's /SUITE/X/, started by the script
# /SUITE/cmd/X that kernel.env's PATH puts first ($kpath).  The tests that
# need one SUITE does not give skip with the reason ($kw/skip); the host's
# own X serves the other kernels.  Exit status 1 when the guest's files
# cannot be written.
SUITE_CMDS="rtla"
suite_cmds() {
	for c in $SUITE_CMDS; do
		users=$(awk -v c="$c" '$1 == c { print $2 }' "$WORK/cmds")
		[ -n "$users" ] || continue
		if ! r=$(sh "$KDIR/cmdroot.sh" "$1" amd64 "$c" "usr/bin/$c" "$CACHE/cmd/$1-amd64/$c" 2> "$kw/cmd.err"); then
			for n in $users; do echo "$n no $c of $1: $(tail -1 "$kw/cmd.err")"; done >> "$kw/skip"
			continue
		fi
		ld=$(readelf -l "$r/bin/$c" | sed -n 's/.*interpreter: .*\/\(.*\)\]/\1/p')
		g=/$1/$c
		mkdir -p "$kw/root$g" "$kw/root/$1/cmd" && cp -a "$r/." "$kw/root$g/" || return 1
		printf '#!/bin/sh\n# %s of %s (%s), its own libraries and C library\nexec %s --library-path %s %s "$@"\n' \
			"$c" "$1" "$(cat "$r/version")" "$g/lib/$ld" "$g/lib" "$g/bin/$c" > "$kw/root/$1/cmd/$c" &&
			chmod 755 "$kw/root/$1/cmd/$c" || return 1
		kpath=/$1/cmd
		# the host's lack of X does not skip the tests here
		grep -v " the host has no $c (" "$kw/skip.host" > "$kw/skip.host.new"
		mv "$kw/skip.host.new" "$kw/skip.host"
	done
}

# prepare_built MUST...: prepare_kernel for a kernel of our own build
# (build:WHAT: tests/kernels/WHATkernel.sh, e.g. pirqkernel.sh), cached by
# its `make kernel-WHAT`; skipped, naming that target, when not built.  What
# it needs to boot is built in; its modules go to /ktest/modules for the
# tests to load (with their parameters), none at boot.
prepare_built() {
	what=${pkg#build:}
	if ! kd=$(sh "$KDIR/${what}kernel.sh" path 2> "$kw/why"); then
		[ -s "$kw/why" ] || echo "tests/kernels/${what}kernel.sh path failed (make kernel-$what builds it)" > "$kw/why"
		exit 1
	fi
	cp "$kd/bzImage" "$kw/vmlinuz" && cp "$kd/config" "$kw/root/ktest/kconfig" || exit 2
	for f in "$kd"/*.ko; do [ ! -f "$f" ] || cp "$f" "$kw/root/ktest/modules/" || exit 2; done
	# built from sid's source: sid's rtla follows it, as for rt7
	kpath=""
	suite_cmds sid || exit 2
	{
		echo "KERNEL='$name'"
		echo "MUST='$*'"
		echo "MODULES=''"
		[ -z "$kpath" ] || echo "PATH=$kpath:\$PATH"
	} > "$kw/root/ktest/kernel.env"
	echo "$(cat "$kd/release" 2>/dev/null) (built by tests/kernels/${what}kernel.sh: $kd)" > "$kw/kinfo"
}

# ---- one kernel: initramfs, boot, results -------------------------------------
# watch_guest PID RESULTS T0: while QEMU (PID) runs, kill it when its results
# port (the file RESULTS) shows no progress in time: a first line within
# 2 x GRACE_S of T0, a test's result within its timeout + GRACE_S of its
# "KT RUN NAME TIMEOUT" line, anything else within GRACE_S of the last line.
# Prints why it killed it, or nothing.
watch_guest() {
	local last="" line now deadline=$(($3 + 2 * GRACE_S))
	# (QEMU's timeout, our child, is a zombie once it has ended: state Z)
	while [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]; do
		now=$(date +%s)
		line=$(tr -d '\r' < "$2" | tail -1)
		if [ "$line" != "$last" ]; then
			last=$line
			case $line in
			"KT RUN "*) deadline=$((now + ${line##* } + GRACE_S));;
			*) deadline=$((now + GRACE_S));;
			esac
		fi
		if [ "$now" -ge "$deadline" ]; then
			hang_diag "$1"
			kill "$1" 2>/dev/null
			echo "no progress after '${last:-nothing}' on the results port (killed after $((now - $3)) s)"
			return
		fi
		sleep 1
	done
}

# hang_diag PID: what a hung guest (QEMU's PID) was doing, asked of QEMU's
# monitor (the FIFOs $kw/mon.in and $kw/mon.out) before it is killed: the
# vCPUs' state, registers and local APICs into $kw/monitor.log, then an NMI,
# which the guest's unknown_nmi_panic turns into a panic whose report (every
# task's stack, the CPUs' backtraces, the timers: panic_print) goes to the
# console by polling, with no interrupt needed.  Waits up to 30 s for the
# panic to end QEMU (-no-reboot).
hang_diag() {
	[ -p "$kw/mon.in" ] || return 0
	timeout 5 sh -c 'printf "%s\n" "info status" "info cpus" "info registers -a" \
		"cpu 0" "info lapic" "cpu 1" "info lapic" "info pic" "info irq" > "$1"' sh "$kw/mon.in"
	sleep 3
	wc -c < "$kw/console" > "$kw/console.nmi_at" 2>/dev/null
	timeout 5 sh -c 'echo nmi > "$1"' sh "$kw/mon.in"
	i=0
	while [ $i -lt 30 ] && kill -0 "$1" 2>/dev/null && \
		[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		sleep 1; i=$((i + 1))
	done
}

# hang_report: the diagnosis of a hung guest, on stdout (the whole console
# and monitor log stay in $kw while KEEP_TMP is set): from the monitor, each
# vCPU's instruction pointer (nokaslr: the addresses of /proc/kallsyms in any
# boot of that kernel), whether it halted, its local APIC timer and pending
# interrupts; from the console after the NMI,
# the panic, each CPU's backtrace, the hrtimer and tick state of each CPU
# (a timer whose expiry is far behind "now at" was lost), every task that
# was not sleeping (R, D, T) with its stack, and one line naming the rest.
hang_report() {
	[ -s "$kw/monitor.log" ] || { echo "    (no monitor output)"; return; }
	tr -d '\r' < "$kw/monitor.log" | sed 's/\x1b\[[0-9]*[A-Z]//g' > "$kw/monitor.txt"
	grep -E '^VM status|^\*? *CPU #|^CPU#|^RIP=|^dumping local APIC|^LVTT|^Timer|^ISR|^IRR|^  IRR|^  Remote IRR|^pic' \
		"$kw/monitor.txt" | indent
	from=$(cat "$kw/console.nmi_at" 2>/dev/null || echo 0)
	echo "    the console after the NMI (unknown_nmi_panic, panic_print):"
	tail -c +$((from + 1)) "$kw/console" | tr -d '\r' | sed 's/^\[ *[0-9.]*\] //' | awk '
		/^task:/ { intask = 1; keep = ($0 !~ / state:[SI] /)
			split($1, n, ":"); st = $2; sub(/state:/, "", st); pid = $0; sub(/.* pid:/, "", pid); sub(/ .*/, "", pid)
			if (!keep) others = others " " n[2] "(" pid "):" st }
		/^NMI backtrace for cpu/ && !/skipped/ { bt = 1 }
		/^(Uhhuh|Kernel panic|NMI backtrace|Sending NMI|now at|cpu: |Clock Event Device|Tick Device|Per CPU device)/ ||
		    / \.(expires_next|nr_events|nr_hangs|tick_stopped|idle_entrytime) *:|^ *next_event:|^ *mode: / { print; next }
		intask && keep { print }
		bt && !intask { print }
		/<\/NMI>|<\/TASK>/ { if (intask) intask = 0; else bt = 0 }
		END { if (others != "") print "sleeping tasks:" others }' | head -300 | indent
}

run_kernel() {	# name package must...
	name=$1
	kw=$WORK/$name
	mkdir -p "$CACHE" "$kw/root/ktest/modules" "$kw/out"
	# the tests that skip: for want of a host's command ($WORK/skip; less
	# those the kernel's suite gives, suite_cmds), for want of the suite's
	: > "$kw/skip"
	cp "$WORK/skip" "$kw/skip.host"
	if command -v flock >/dev/null; then
		(flock 8 && prepare_kernel "$@") 8> "$CACHE/.lock"
	else
		(prepare_kernel "$@")
	fi
	case $? in
	0) ;;
	1) result SKIP "$name" "$(cat "$kw/why")"; return;;
	*) result FAIL "$name" "$(cat "$kw/why")"; return;;
	esac
	cat "$kw/skip.host" "$kw/skip" > "$kw/root/ktest/skip"
	(cd "$kw/root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$kw/k.cpio.gz"
	cat "$WORK/common.cpio.gz" "$kw/k.cpio.gz" > "$kw/initrd"
	limit=$((2 * GRACE_S))
	for n in $tests; do to=$(header "$n" timeout); limit=$((limit + ${to:-60})); done
	limit=${KERNEL_LIMIT_S:-$limit}
	echo "kernels: $name: $(cat "$kw/kinfo"), $accel, -smp $SMP -m $MEM"
	# A guest that hangs (no progress, its own timeouts silent too) is booted
	# once more, every test again (a hung guest wrote no results disk); the
	# hang is said with its console's tail and counted in the summary: an
	# open defect (docs/kernels.md, "Guest hangs"), never a silent pass
	for attempt in 1 2; do
	rm -f "$kw/disk.img" && truncate -s 256M "$kw/disk.img"
	t0=$(date +%s)
	: > "$kw/results"
	rm -f "$kw/mon.in" "$kw/mon.out" "$kw/monitor.log" "$kw/console.nmi_at"
	mkfifo "$kw/mon.in" "$kw/mon.out" 2>/dev/null
	mon=""; monpid=""
	if [ -p "$kw/mon.in" ] && [ -p "$kw/mon.out" ]; then
		mon="-monitor pipe:$kw/mon"
		cat "$kw/mon.out" > "$kw/monitor.log" &
		monpid=$!
	fi
	# (nokaslr: a hung guest's addresses are the same in every boot of the
	# kernel, to be looked up in its /proc/kallsyms; unknown_nmi_panic
	# and panic_print: hang_diag's NMI makes the guest report its state)
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" qemu-system-x86_64 $qaccel -m "$MEM" -smp "$SMP" -nodefaults -display none \
		-no-reboot -kernel "$kw/vmlinuz" -initrd "$kw/initrd" $mon \
		-append "console=ttyS0 panic=-1 nokaslr unknown_nmi_panic panic_print=0x45 kt.attempt=$attempt ${KERNEL_APPEND:-}" \
		-serial "file:$kw/console" -serial "file:$kw/results" \
		-drive "file=$kw/disk.img,format=raw,if=virtio" > "$kw/qemu.out" 2>&1 &
	qpid=$!
	hung=$(watch_guest "$qpid" "$kw/results" "$t0")
	wait "$qpid"
	qrc=$?
	[ -z "$monpid" ] || kill "$monpid" 2>/dev/null
	echo "kernels: $name: guest ran $(( $(date +%s) - t0 )) s (qemu exit $qrc)"
	tr -d '\r' < "$kw/results" > "$kw/results.txt" 2>/dev/null
	tar -xf "$kw/disk.img" -C "$kw/out" 2>/dev/null
	if grep -q '^KT DONE' "$kw/results.txt"; then lost="the guest gave no result"
	elif [ -n "$hung" ]; then lost="the guest hung: $hung"
	elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then lost="the guest hung: killed after $limit s"
	elif p=$(grep -m1 'Kernel panic' "$kw/console"); then lost="the guest's kernel panicked: ${p#*] }"
	else lost="the guest stopped before it (qemu exit $qrc)"; fi
	case $lost in
	"the guest hung"*)
		hangs=$((hangs + 1)); hung_list="$hung_list $name"
		echo "kernels: $name: $lost; the console's last lines:"
		if [ -s "$kw/console.nmi_at" ]; then
			head -c "$(cat "$kw/console.nmi_at")" "$kw/console" | tail -8 | indent
			echo "kernels: $name: what the hung guest was doing (QEMU's monitor, then an NMI):"
			hang_report
		else
			tail -8 "$kw/console" | indent
		fi
		cp "$kw/console" "$kw/console.hung$attempt"
		mv "$kw/monitor.log" "$kw/monitor.hung$attempt" 2>/dev/null
		if [ $attempt = 1 ]; then
			echo "kernels: $name: booting it again (hang $hangs of this run)"
			continue
		fi;;
	esac
	break
	done
	tail_shown=false
	for n in features $tests; do
		line=$(grep -v '^KT RUN ' "$kw/results.txt" | grep -m1 "^KT [A-Z]* $n\( \|\$\)")
		if [ -z "$line" ]; then
			result FAIL "$name/$n" "$lost"
			$tail_shown && continue
			tail_shown=true
			echo "    console tail:"; tail -30 "$kw/console" | indent
			tail -5 "$kw/qemu.out" | indent
			continue
		fi
		st=$(echo "$line" | cut -d' ' -f2)
		why=$(echo "$line" | cut -d' ' -f4-)
		if [ "$st" = PASS ] && [ -f "$KDIR/host/$n.sh" ]; then
			# the host side: the test's artefacts, checked here
			if [ ! -d "$kw/out/art/$n" ]; then
				st=FAIL why="no artefacts came back (no results disk?)"
			else
				hout=$(ART="$kw/out/art/$n" KERNEL=$name sh "$KDIR/host/$n.sh" 2>&1); hrc=$?
				case $hrc in
				0) ;;
				77) st=SKIP why="host check: $(echo "$hout" | tail -1)";;
				*) st=FAIL why="host check exit $hrc"
				   echo "$hout" | tail -30 > "$kw/out/log/$n.host";;
				esac
			fi
		fi
		result "$st" "$name/$n" "$why"
		[ -z "${KERNEL_SHOW_LOGS:-}" ] || [ ! -f "$kw/out/log/$n" ] || indent < "$kw/out/log/$n"
		# what a passed host check proved, under its line
		[ "$st" = PASS ] && [ -n "${hout:-}" ] && echo "$hout" | indent
		hout=""
		if [ "$st" = FAIL ]; then
			[ -f "$kw/out/log/$n" ] && tail -30 "$kw/out/log/$n" | indent
			[ -f "$kw/out/log/$n.host" ] && indent < "$kw/out/log/$n.host"
		fi
	done
	times_line "$name" "$kw/out/times"
}

# The kernels boot side by side, each in its own subshell (a TCG guest runs
# single-threaded: one host CPU each); each one's lines are printed when all
# are done, in the list's order, and its counts added up.
names=""
while read -r name pkg must <&9; do
	[ -n "$name" ] || continue
	names="$names $name"
	# shellcheck disable=SC2086
	(
		run_kernel "$name" "$pkg" $must < /dev/null
		echo "$pass $fail $skip $hangs" > "$WORK/$name.counts"
		echo "$failed" > "$WORK/$name.failed"
		echo "$skipped" > "$WORK/$name.skipped"
	) > "$WORK/$name.log" 2>&1 &
done 9<<EOF
$kernels
EOF
[ -z "$names" ] || echo "kernels:$names: booting side by side ($accel)"
wait
for name in $names; do
	cat "$WORK/$name.log"
	if read -r p f s h < "$WORK/$name.counts" 2>/dev/null; then
		pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
		[ "$h" -eq 0 ] || { hangs=$((hangs + h)); hung_list="$hung_list $name"; }
		failed="$failed$(cat "$WORK/$name.failed")"
		skipped="$skipped$(cat "$WORK/$name.skipped")"
	else
		result FAIL "$name" "its run ended without a summary"
	fi
done
summary
