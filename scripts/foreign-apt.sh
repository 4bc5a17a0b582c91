#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian packages of another suite or architecture, for the cross build
# (scripts/cross.sh) and the POWER tier (tests/power/run.sh), through a
# private APT configuration: its own sources, lists, status and archive cache
# under the cache directory.  Never changes /etc/apt, never installs a
# package on the host: the .debs are downloaded and unpacked into
# directories of the cache.
#
# usage: foreign-apt.sh SUITE ARCH update
#        foreign-apt.sh SUITE ARCH closure PKG...   the .debs of PKG... and of
#                      everything they depend on (no Recommends), downloaded
#                      when missing; one path a line on stdout
#        foreign-apt.sh SUITE ARCH get PKG...       the .debs of PKG... alone
#        foreign-apt.sh SUITE ARCH version PKG      its candidate version
#        foreign-apt.sh SUITE ARCH field PKG FIELD  a field of its candidate
#                      (Depends, ...)
#        foreign-apt.sh SUITE ARCH source PKG DIR   the source package of PKG
#                      (its .dsc and tarballs, cached) unpacked into DIR
#                      (dpkg-source -x, no signature check: the archive's
#                      Sources index, signed, names the files' hashes)
# update runs by itself when the lists are missing or older than a day.
# Environment: LATSCOPE_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope),
#   DEBIAN_MIRROR (default: the mirror /etc/apt names, else deb.debian.org).
# Errors: one line on stderr, exit 1.
set -u
[ $# -ge 3 ] || { echo "usage: foreign-apt.sh SUITE ARCH update|closure|get|version [PKG...]" >&2; exit 2; }
suite=$1; arch=$2; cmd=$3; shift 3
CACHE=${LATSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope}
d=$CACHE/apt/$suite-$arch
command -v apt-get >/dev/null 2>&1 || { echo "foreign-apt: no apt-get on this machine" >&2; exit 1; }

mirror=${DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed 's/#.*//' | grep -E '^(URIs:|deb )' | grep -o 'https\?://[^ ]*/debian/\?' | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "foreign-apt: no $keyring (Debian: debian-archive-keyring)" >&2; exit 1; }

mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/etc" || exit 1
[ -f "$d/status" ] || : > "$d/status"
{
	echo "deb [signed-by=$keyring] $mirror $suite main"
	echo "deb-src [signed-by=$keyring] $mirror $suite main"
} > "$d/etc/sources.list.new"
cmp -s "$d/etc/sources.list.new" "$d/etc/sources.list" 2>/dev/null || {
	mv "$d/etc/sources.list.new" "$d/etc/sources.list"; rm -f "$d/lists/"*_Packages* "$d/updated"; }
rm -f "$d/etc/sources.list.new"
mkdir -p "$d/etc/parts"
cat > "$d/apt.conf" <<EOF
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
APT::Sandbox::User "root";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d";
Dir::Cache::archives "$d/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Dir::Etc::SourceList "$d/etc/sources.list";
Dir::Etc::SourceParts "$d/etc/parts";
Dir::Etc::Preferences "$d/etc/preferences";
Dir::Etc::PreferencesParts "$d/etc/parts";
Acquire::Languages "none";
EOF
export APT_CONFIG="$d/apt.conf"

update() {
	if ! err=$(apt-get update -qq --error-on=any 2>&1) || ! ls "$d/lists/"*_Packages* >/dev/null 2>&1; then
		echo "foreign-apt: apt-get update of $suite/$arch from $mirror failed: $(echo "$err" | grep -v '^W:' | tail -1)" >&2
		return 1
	fi
	: > "$d/updated"
}
fresh() { [ -f "$d/updated" ] && [ -z "$(find "$d/updated" -mmin +1440)" ]; }

case $cmd in
update) update; exit;;
esac
fresh || update || {
	# offline: what the lists had last time still serves
	ls "$d/lists/"*_Packages* >/dev/null 2>&1 || exit 1
	echo "foreign-apt: using the $suite/$arch lists of $(date -r "$d/updated" +%F 2>/dev/null || echo before)" >&2
}
# candidate PKG: its candidate version, or a line on stderr and status 1
candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }' | grep -v '(none)' ||
		{ echo "foreign-apt: no package $1 in $suite/$arch" >&2; return 1; }
}
case $cmd in
version)
	candidate "$1" || exit 1
	;;
field)
	v=$(candidate "$1") || exit 1
	apt-cache show "$1=$v" 2>/dev/null |
		awk -v f="$2:" '$1 == f { sub(/^[^:]*: */, ""); print; exit }' | grep . ||
		{ echo "foreign-apt: no field $2 of $1 in $suite/$arch" >&2; exit 1; }
	;;
closure)
	if ! out=$(apt-get install -s -qq "$@" 2>&1); then
		echo "foreign-apt: cannot resolve $* in $suite/$arch: $(echo "$out" | grep '^E:' | tail -1)" >&2
		exit 1
	fi
	if ! err=$(apt-get install -y -qq --download-only "$@" 2>&1); then
		echo "foreign-apt: downloading $* from $suite/$arch failed: $(echo "$err" | grep -v '^W:' | tail -1)" >&2
		exit 1
	fi
	# "Inst NAME (VERSION SUITES [ARCH])": the file of each, in the cache now
	echo "$out" | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) [^[]*\[\([^]]*\)\]).*/\1_\2_\3.deb/p' |
		sed 's/:/%3a/' | while read -r f; do
			[ -f "$d/archives/$f" ] || { echo "foreign-apt: $f was not downloaded" >&2; exit 1; }
			echo "$d/archives/$f"
		done
	;;
get)
	for p in "$@"; do
		v=$(candidate "$p") || exit 1
		# (the file name: NAME_VERSION_ARCH.deb, the epoch's ':' as %3a)
		stem=$d/archives/${p}_$(echo "$v" | sed 's/:/%3a/')_
		f=$(ls "$stem"*.deb 2>/dev/null | head -1)
		if [ -z "$f" ]; then
			(cd "$d/archives" && apt-get download -qq "$p=$v" >/dev/null 2>&1) ||
				{ echo "foreign-apt: apt-get download $p=$v ($suite/$arch) failed" >&2; exit 1; }
			f=$(ls "$stem"*.deb 2>/dev/null | head -1)
		fi
		echo "$f"
	done
	;;
source)
	[ $# -eq 2 ] || { echo "foreign-apt: source PKG DIR" >&2; exit 2; }
	mkdir -p "$d/sources" || exit 1
	if ! err=$(cd "$d/sources" && apt-get source -qq --download-only "$1" 2>&1); then
		echo "foreign-apt: apt-get source $1 ($suite) failed: $(echo "$err" | grep -v '^W:' | tail -1)" >&2
		exit 1
	fi
	v=$(apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }' | sed 's/^[0-9]*://')
	dsc=$(ls "$d/sources/"*"_$v.dsc" 2>/dev/null | head -1)
	[ -n "$dsc" ] || { echo "foreign-apt: no .dsc of $1 $v after apt-get source" >&2; exit 1; }
	rm -rf "$2" && mkdir -p "$(dirname "$2")" && dpkg-source --no-check -x "$dsc" "$2" >/dev/null 2>&1 ||
		{ echo "foreign-apt: dpkg-source -x $dsc failed" >&2; exit 1; }
	echo "$dsc"
	;;
*) echo "foreign-apt: unknown command $cmd" >&2; exit 2;;
esac
