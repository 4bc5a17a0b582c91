#!/bin/sh
# SPDX-License-Identifier: MIT
# make install / make uninstall (the Makefile passes the variables):
#   install.sh install|uninstall BIN COMPLETION
# Environment: DESTDIR, PREFIX, BINDIR, MANDIR, DOCDIR, COMPLETIONDIR,
# SYSTEMD_UNIT_DIR, DEBUGDIR, SPLIT_DEBUG (1: the binary stripped, its debug
# info in DEBUGDIR/.build-id/xx/rest.debug; 0: the binary as built, for
# packagers whose tools strip), OBJCOPY, READELF.
#
# What install puts there, and nothing else:
#   BINDIR/latscope, MANDIR/man1/latscope*.1, COMPLETIONDIR/latscope,
#   SYSTEMD_UNIT_DIR/latscope-monitor.service (ExecStart pointing at
#   BINDIR/latscope; installed, never enabled or started), DOCDIR/ (README,
#   LICENSE, LICENSES/, docs/*.md, docs/schema/, contrib/ examples), the debug
#   file; and DOCDIR/.installed-dirs: the directories it created, which
#   uninstall removes again (if empty) after the files.
set -eu
mode=$1 bin=$2 completion=$3
: "${PREFIX:=/usr/local}" "${DESTDIR:=}" "${SPLIT_DEBUG:=1}"
: "${BINDIR:=$PREFIX/bin}" "${MANDIR:=$PREFIX/share/man}" "${DOCDIR:=$PREFIX/share/doc/latscope}"
: "${COMPLETIONDIR:=$PREFIX/share/bash-completion/completions}"
: "${SYSTEMD_UNIT_DIR:=$PREFIX/lib/systemd/system}" "${DEBUGDIR:=$PREFIX/lib/debug}"
: "${OBJCOPY:=objcopy}" "${READELF:=readelf}"
src=$(cd "$(dirname "$0")/.." && pwd)
D=$DESTDIR
manifest=$D$DOCDIR/.installed-dirs

# the files of docs/ and contrib/ that go to DOCDIR, relative to the tree
docfiles() {
	cd "$src" && ls README.md LICENSE LICENSES/*.txt docs/*.md docs/schema/*.json \
		contrib/grafana/*.json contrib/prometheus/*.yml contrib/systemd/*.service
}
# the build-id of an ELF file, "" without one
buildid() {
	LC_ALL=C "$READELF" -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -1
}

newdirs=""
mkd() {	# mkd DIR...: install -d, remembering the directories it creates
	for d; do
		p=$d missing=""
		while [ ! -d "$p" ]; do missing="$p $missing"; p=$(dirname "$p"); done
		install -d "$d"
		newdirs="$newdirs $missing"
	done
}

case $mode in
install)
	[ -x "$bin" ] || { echo "install.sh: no $bin (make builds it)" >&2; exit 2; }
	[ -s "$completion" ] || { echo "install.sh: no $completion" >&2; exit 2; }
	mkd "$D$BINDIR" "$D$MANDIR/man1" "$D$COMPLETIONDIR" "$D$SYSTEMD_UNIT_DIR" "$D$DOCDIR"
	if [ "$SPLIT_DEBUG" = 1 ]; then
		id=$(buildid "$bin")
		[ -n "$id" ] || { echo "install.sh: $bin has no build-id (link with --build-id, or SPLIT_DEBUG=0)" >&2; exit 2; }
		dbg=$D$DEBUGDIR/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
		mkd "$(dirname "$dbg")"
		"$OBJCOPY" --only-keep-debug "$bin" "$dbg.tmp" && chmod 644 "$dbg.tmp" && mv "$dbg.tmp" "$dbg"
		"$OBJCOPY" --strip-debug --strip-unneeded "$bin" "$D$BINDIR/latscope.tmp"
		chmod 755 "$D$BINDIR/latscope.tmp" && mv "$D$BINDIR/latscope.tmp" "$D$BINDIR/latscope"
	else
		install -m 755 "$bin" "$D$BINDIR/latscope"
	fi
	install -m 644 "$src"/docs/man/*.1 "$D$MANDIR/man1/"
	install -m 644 "$completion" "$D$COMPLETIONDIR/latscope"
	sed "s|^ExecStart=/usr/bin/latscope |ExecStart=$BINDIR/latscope |" \
		"$src/contrib/systemd/latscope-monitor.service" > "$D$SYSTEMD_UNIT_DIR/latscope-monitor.service.tmp"
	chmod 644 "$D$SYSTEMD_UNIT_DIR/latscope-monitor.service.tmp"
	mv "$D$SYSTEMD_UNIT_DIR/latscope-monitor.service.tmp" "$D$SYSTEMD_UNIT_DIR/latscope-monitor.service"
	for f in $(docfiles); do
		mkd "$D$DOCDIR/$(dirname "$f")"
		install -m 644 "$src/$f" "$D$DOCDIR/$f"
	done
	# deepest first, the ones of an earlier install kept
	{ [ ! -f "$manifest" ] || cat "$manifest"; for d in $newdirs; do echo "$d"; done; } |
		awk 'NF && !seen[$0]++' | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- > "$manifest.tmp"
	mv "$manifest.tmp" "$manifest"
	;;
uninstall)
	if [ -f "$D$BINDIR/latscope" ]; then
		id=$(buildid "$D$BINDIR/latscope")
		if [ -n "$id" ]; then
			dbg=$D$DEBUGDIR/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
			rm -f "$dbg"
		fi
	fi
	rm -f "$D$BINDIR/latscope" "$D$COMPLETIONDIR/latscope" "$D$SYSTEMD_UNIT_DIR/latscope-monitor.service"
	for m in "$src"/docs/man/*.1; do rm -f "$D$MANDIR/man1/$(basename "$m")"; done
	for f in $(docfiles); do rm -f "$D$DOCDIR/$f"; done
	if [ -f "$manifest" ]; then
		dirs=$(cat "$manifest")
		rm -f "$manifest"
		for d in $dirs; do rmdir "$d" 2>/dev/null || true; done
	fi
	for d in LICENSES docs/schema docs contrib/grafana contrib/prometheus contrib/systemd contrib ""; do
		rmdir "$D$DOCDIR/$d" 2>/dev/null || true
	done
	;;
*)
	echo "usage: install.sh install|uninstall BIN COMPLETION" >&2; exit 2;;
esac
