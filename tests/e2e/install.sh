#!/bin/sh
# SPDX-License-Identifier: MIT
# make install / make uninstall (scripts/install.sh) and make -s:
#  - make -s install PREFIX=<empty dir> is silent and puts the stripped binary
#    (which runs --version), its debug info under lib/debug/.build-id, the man
#    pages, the bash completion, the monitor's unit (ExecStart at PREFIX/bin)
#    and the docs there; make -s uninstall leaves the directory empty, also
#    after a second install over the first;
#  - DESTDIR stages (PREFIX=/usr inside it), uninstall empties the stage;
#  - SPLIT_DEBUG=0 installs the binary as built (what debian/rules asks);
#  - make -s prints nothing, of the up-to-date tree and while it rebuilds.
# Runs make in the tree the binary under test was built in (LATSCOPE =
# <tree>/<build dir>/latscope).
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
B=$(cd "$(dirname "$LATSCOPE")" && pwd)
case $B in "$SRC"/*) ;; *) skip "$LATSCOPE is not built in $SRC";; esac
[ "$(basename "$LATSCOPE")" = latscope ] || skip "LATSCOPE is not <build>/latscope"
command -v make >/dev/null || skip "no make"
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make -s -C "$SRC" BUILD="$B" "$@" > "$TMP/make.out" 2>&1 || die "make $*: $(cat "$TMP/make.out")"
       [ ! -s "$TMP/make.out" ] || die "make -s $* printed: $(head -5 "$TMP/make.out")"; }
empty() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ] || die "$2: left $(cd "$1" && find . | head -10 | tr '\n' ' ')"; }
ver=$("$LATSCOPE" --version)

P=$TMP/prefix
mkdir "$P"
mk install PREFIX="$P"
[ "$("$P/bin/latscope" --version)" = "$ver" ] || die "installed binary: --version is not '$ver'"
LC_ALL=C readelf -S "$P/bin/latscope" | grep -q '\.symtab\|\.debug_info' && die "installed binary not stripped"
id=$(LC_ALL=C readelf -n "$P/bin/latscope" | sed -n 's/^ *Build ID: *//p')
[ -n "$id" ] || die "installed binary has no build-id"
dbg=$P/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
LC_ALL=C readelf -S "$dbg" 2>/dev/null | grep -q '\.debug_info' || die "no debug info in $dbg"
for m in "$SRC"/docs/man/*.1; do
	cmp -s "$m" "$P/share/man/man1/$(basename "$m")" || die "man page $(basename "$m") not installed"
done
"$LATSCOPE" completion bash | cmp -s - "$P/share/bash-completion/completions/latscope" ||
	die "the installed completion is not latscope completion bash"
grep -q "^ExecStart=$P/bin/latscope monitor" "$P/lib/systemd/system/latscope-monitor.service" ||
	die "the unit's ExecStart does not name $P/bin/latscope"
for d in README.md LICENSE LICENSES/MIT.txt docs/monitor.md docs/schema/hist.json; do
	[ -s "$P/share/doc/latscope/$d" ] || die "doc $d not installed"
done
n=$(find "$P" -type f | wc -l)
mk install PREFIX="$P"	# again, over the first
[ "$(find "$P" -type f | wc -l)" = "$n" ] || die "a second install changed the file count"
mk uninstall PREFIX="$P"
empty "$P" "make uninstall PREFIX=$P"

D=$TMP/stage
mkdir "$D"
mk install DESTDIR="$D" PREFIX=/usr SPLIT_DEBUG=0
[ "$("$D/usr/bin/latscope" --version)" = "$ver" ] || die "staged binary: --version is not '$ver'"
cmp -s "$LATSCOPE" "$D/usr/bin/latscope" || die "SPLIT_DEBUG=0: the binary is not the one built"
[ ! -e "$D/usr/lib/debug" ] || die "SPLIT_DEBUG=0 wrote debug info"
grep -q "^ExecStart=/usr/bin/latscope monitor" "$D/usr/lib/systemd/system/latscope-monitor.service" ||
	die "staged unit's ExecStart is not /usr/bin/latscope"
[ -s "$D/usr/share/man/man1/latscope.1" ] || die "staged man page missing"
mk uninstall DESTDIR="$D" PREFIX=/usr
empty "$D" "make uninstall DESTDIR=$D"

mk all
mk all
# and while it rebuilds (a source, the binary and a unit test linked again)
touch "$SRC/src/action.c"
mk all

# plain make and make install with a build dependency missing (a pkg-config
# that does not know json-c): one line naming its Debian package and `make
# deps`, a non-zero exit, and no apt-get or apt run (both shadowed in PATH by
# scripts that log their call)
mkdir "$TMP/bin"
for a in apt-get apt; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/apt.calls"\n' "$a" "$TMP" > "$TMP/bin/$a"
	chmod +x "$TMP/bin/$a"
done
printf '#!/bin/sh\nfor a; do [ "$a" = json-c ] && exit 1; done\nexec pkg-config "$@"\n' > "$TMP/pc"
chmod +x "$TMP/pc"
for goal in all install; do
	if PATH="$TMP/bin:$PATH" make -C "$SRC" BUILD="$B" PKG_CONFIG="$TMP/pc" PREFIX="$P" $goal \
		> "$TMP/miss.out" 2>&1; then
		die "make $goal went on without json-c: $(tail -3 "$TMP/miss.out")"
	fi
	grep -q 'libjson-c-dev' "$TMP/miss.out" && grep -q 'make deps' "$TMP/miss.out" ||
		die "make $goal without json-c did not name libjson-c-dev and make deps: $(cat "$TMP/miss.out")"
	[ ! -e "$TMP/apt.calls" ] || die "make $goal ran: $(cat "$TMP/apt.calls")"
done
empty "$P" "make install with a dependency missing"
echo "ok: install/uninstall PREFIX=$n files, then empty; DESTDIR staging; SPLIT_DEBUG=0; make -s silent;" \
	"a missing json-c: make and make install name libjson-c-dev and make deps, run no apt-get ($(grep -m1 json-c "$TMP/miss.out" | cut -c1-100))"
