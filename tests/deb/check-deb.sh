#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-deb: the Debian package built from a clean clone of HEAD
# (dpkg-buildpackage -us -uc -b, which runs debian/rules: make all, the unit
# tests, make install), then installed with apt-get into a fresh Debian 12
# root (debootstrap --variant=minbase bookworm from the mirror this machine's
# apt uses, cached in DEB_CACHE; each run works on a copy), and checked
# there: latscope --version and a real run, the man pages, the bash
# completion (sourced: complete -p latscope), the monitor's unit installed
# and not enabled.  Root (chroot, debootstrap).  Minutes: not in make check.
#
# Where debootstrap cannot reach a mirror, the fallback says so on its first
# line: dpkg -x into a scratch directory, the binary run with this host's
# libraries (a weaker check: the package's dependencies are not resolved).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${DEB_CACHE:-/var/cache/latscope-check-deb}
[ "$(id -u)" = 0 ] || { echo "check-deb: needs root (debootstrap, chroot)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/latscope-check-deb.XXXXXX")
R=$W/root
cleanup() {
	if [ -d "$R/proc" ]; then umount "$R/proc" 2>/dev/null || true; fi
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT INT TERM
say() { echo "check-deb: $*"; }
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }

head=$(git -C "$SRC" rev-parse HEAD)
[ -z "$(git -C "$SRC" status --porcelain)" ] || say "note: uncommitted changes in $SRC are not in the package (it is built from HEAD)"
git clone -q --no-checkout "$SRC" "$W/latscope"
git -C "$W/latscope" checkout -q "$head"
say "building the package of $(git -C "$SRC" log -1 --format='%h %s' | cut -c1-60)"
(cd "$W/latscope" && DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2} dpkg-buildpackage -us -uc -b) > "$W/build.log" 2>&1 || {
	tail -40 "$W/build.log" >&2; fail "dpkg-buildpackage failed (the last lines above)"; }
! grep -n "deps: installing\|apt-get" "$W/build.log" >&2 || fail "the package build ran apt-get (above)"
grep -q "^unit: [0-9]* passed, 0 failed" "$W/build.log" || fail "the package build did not pass the unit tests"
say "package build: $(grep "^unit: " "$W/build.log"), no apt-get, no make check"
deb=$(ls "$W"/latscope_*.deb)
say "built $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -c "$deb" | awk '{ print $6 }' > "$W/contents"
for f in ./usr/bin/latscope ./usr/share/man/man1/latscope.1.gz ./usr/share/man/man1/latscope-hist.1.gz \
	 ./usr/share/bash-completion/completions/latscope ./lib/systemd/system/latscope-monitor.service \
	 ./usr/share/doc/latscope/copyright ./usr/share/doc/latscope/README.md.gz; do
	grep -qx "$f" "$W/contents" || fail "$f is not in the package"
done

# the mirror of this machine's apt (deb822 URIs: or a one-line deb entry)
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	 awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
[ -n "$mirror" ] || mirror=$(grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	 awk '$2 !~ /security/ && $2 ~ /^http/ { print $2; exit }')
mirror=${mirror:-http://deb.debian.org/debian}
base=$CACHE/bookworm
if [ ! -x "$base/usr/bin/apt-get" ]; then
	say "debootstrap --variant=minbase bookworm from $mirror into $base (once; cached)"
	mkdir -p "$CACHE" && rm -rf "$base.tmp"
	if ! debootstrap --variant=minbase bookworm "$base.tmp" "$mirror" > "$W/debootstrap.log" 2>&1; then
		say "FALLBACK: debootstrap could not build a Debian 12 root from $mirror ($(tail -1 "$W/debootstrap.log"))"
		say "FALLBACK: the package unpacked with dpkg -x into a scratch directory, run with this host's libraries"
		dpkg -x "$deb" "$W/x"
		v=$("$W/x/usr/bin/latscope" --version) || fail "the unpacked binary does not run"
		say "FALLBACK ok: $v; the package's dependencies were NOT resolved in a fresh root"
		exit 0
	fi
	mv "$base.tmp" "$base"
fi
say "a fresh copy of the cached Debian 12 root"
cp -a "$base" "$R"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$R/proc"
cp "$deb" "$R/tmp/"
ch() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
ch apt-get update -qq > "$W/apt.log" 2>&1 || { cat "$W/apt.log" >&2; fail "apt-get update in the root"; }
ch apt-get install -y -qq "/tmp/$(basename "$deb")" >> "$W/apt.log" 2>&1 ||
	{ tail -20 "$W/apt.log" >&2; fail "apt-get install ./$(basename "$deb") in the Debian 12 root"; }
say "installed with apt-get: $(ch dpkg-query -W -f '${Package} ${Version} ${Status}' latscope)"
v=$(ch latscope --version) || fail "latscope --version in the root"
say "latscope --version: $v"
# the root has no tracefs: the tracepoint formats the tests use
cp -r "$W/latscope/tests/data/formats" "$R/tmp/formats"
ch latscope dtl synth --formats /tmp/formats -o /tmp/s.data -d 1s -q > "$W/synth" 2>&1 ||
	{ cat "$W/synth" >&2; fail "latscope dtl synth in the root"; }
ch latscope dtl report -i /tmp/s.data > "$W/report" 2>&1 || { cat "$W/report" >&2; fail "latscope dtl report in the root"; }
say "dtl synth + dtl report ran: $(grep -c . "$W/report") lines"
for m in latscope latscope-dtl latscope-osnoise latscope-hist latscope-monitor latscope-script; do
	[ -s "$R/usr/share/man/man1/$m.1.gz" ] || fail "man page $m.1.gz not installed"
done
say "man pages: $(ls "$R/usr/share/man/man1" | grep -c '^latscope') in /usr/share/man/man1"
c=$(ch bash -c '. /usr/share/bash-completion/completions/latscope && complete -p latscope') ||
	fail "the bash completion does not source"
say "bash completion: $c"
u=$R/lib/systemd/system/latscope-monitor.service
[ -s "$u" ] || u=$R/usr/lib/systemd/system/latscope-monitor.service
[ -s "$u" ] || fail "the monitor's unit is not installed"
grep -q '^ExecStart=/usr/bin/latscope monitor' "$u" || fail "the unit's ExecStart is not /usr/bin/latscope"
en=$(find "$R/etc/systemd/system" -name 'latscope-monitor.service' 2>/dev/null | head -1)
[ -z "$en" ] || fail "the unit is enabled: ${en#"$R"}"
ls "$R/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants" 2>/dev/null | grep -q latscope &&
	fail "deb-systemd-helper recorded the unit as enabled"
say "unit ${u#"$R"} installed, not enabled (no link under /etc/systemd/system)"
say "ok"
