#!/bin/sh
# As root, writing where another user can write: the three attacks of issue
# 12, played by a throwaway user.  A symlink planted at -o, a 0666 file
# pre-created at -o, a symlink inside a user-owned -O tree: refused without
# --force, replaced (never written through) with it; nothing outside the
# target changes, and the user can never read root's output.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (plays a second user with useradd)"
command -v useradd >/dev/null || skip "no useradd"
U=lsatk$$
useradd -M -s /bin/sh "$U" 2>/dev/null || skip "useradd failed"
trap 'userdel "$U" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
as_user() { runuser -u "$U" -- "$@"; }
FIX=$TOOLS/histfix
"$FIX" -o "$TMP/fix.data" --formats "$TESTS_DIR/data/formats" <"$TESTS_DIR/golden/hist/scenario.txt" ||
	die "histfix"
chmod 755 "$TMP"
mkdir "$TMP/pub" "$TMP/safe" && chmod 1777 "$TMP/pub"
echo "root's file" > "$TMP/safe/victim"
chmod 600 "$TMP/safe/victim"
state() { (cd "$TMP/safe" && ls -l --time-style=+%s.%N && md5sum victim); }
before=$(state)
live=0
"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy -o "$TMP/probe.data" >/dev/null 2>&1 && live=1

# 1. a symlink planted at the -o path
as_user ln -s "$TMP/safe/victim" "$TMP/pub/out.data"
if [ $live = 1 ]; then
	"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy -o "$TMP/pub/out.data" >/dev/null 2>"$TMP/e1"
	rc=$?; [ $rc -eq 2 ] || die "planted symlink: exit $rc"
	grep -q "symbolic link of another user" "$TMP/e1" || die "planted symlink: $(cat "$TMP/e1")"
	"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy --force -o "$TMP/pub/out.data" >/dev/null 2>&1 ||
		die "planted symlink --force failed"
	[ -f "$TMP/pub/out.data" ] && [ ! -L "$TMP/pub/out.data" ] || die "--force did not replace the link"
fi
# the same through the lib for any writer: osnoise record, dtl synth (pdwrite_open)
rm -f "$TMP/pub/out.data"; as_user ln -s "$TMP/safe/victim" "$TMP/pub/out.data"
"$LATSCOPE" dtl synth -o "$TMP/pub/out.data" >/dev/null 2>"$TMP/e1b"; rc=$?
[ $rc -eq 2 ] || die "dtl synth over a planted symlink: exit $rc ($(cat "$TMP/e1b"))"
[ "$(state)" = "$before" ] || die "planted symlink: something outside the target changed"

# 2. a 0666 file pre-created by the user (who keeps a second link to it)
as_user sh -c "umask 0; : > '$TMP/pub/pre.data'; ln '$TMP/pub/pre.data' '$TMP/pub/keep'"
if [ $live = 1 ]; then
	"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy -o "$TMP/pub/pre.data" >/dev/null 2>"$TMP/e2"
	rc=$?; [ $rc -eq 2 ] || die "pre-created file: exit $rc"
	grep -q "belongs to another user" "$TMP/e2" || die "pre-created file: $(cat "$TMP/e2")"
	"$LATSCOPE" hist record -d 1 -c 0 --no-keep-busy --force -o "$TMP/pub/pre.data" >/dev/null 2>&1 ||
		die "pre-created --force failed"
	[ ! -s "$TMP/pub/keep" ] || die "root's recording went into the user's inode"
	[ "$(stat -c %u:%a "$TMP/pub/pre.data")" = "0:600" ] || die "new file is $(stat -c %u:%a "$TMP/pub/pre.data")"
	as_user cat "$TMP/pub/pre.data" >/dev/null 2>&1 && die "the user can read root's recording"
fi

# 3. a symlink inside a user-owned -O tree
as_user mkdir -p "$TMP/pub/tree/wakeup"
as_user ln -s "$TMP/safe/victim" "$TMP/pub/tree/wakeup/CPU0"
as_user ln -s "$TMP/safe" "$TMP/pub/tree/missed_timer_offsets"
"$LATSCOPE" hist report -i "$TMP/fix.data" -O "$TMP/pub/tree" >/dev/null 2>"$TMP/e3"; rc=$?
[ $rc -eq 2 ] || die "user-owned tree: exit $rc"
grep -q "belongs to another user" "$TMP/e3" || die "user-owned tree: $(cat "$TMP/e3")"
"$LATSCOPE" hist report -i "$TMP/fix.data" -O "$TMP/pub/tree" --force >/dev/null 2>"$TMP/e3" ||
	die "tree --force failed: $(cat "$TMP/e3")"
[ -f "$TMP/pub/tree/wakeup/CPU0" ] && [ ! -L "$TMP/pub/tree/wakeup/CPU0" ] || die "CPU0 link not replaced"
[ -d "$TMP/pub/tree/missed_timer_offsets" ] && [ ! -L "$TMP/pub/tree/missed_timer_offsets" ] ||
	die "directory link not replaced"
grep -q '^#Total samples' "$TMP/pub/tree/wakeup/CPU0" || die "CPU0 is not a histogram"
[ "$(state)" = "$before" ] || die "something outside the targets changed:
$before
---
$(state)"
# no temporary file left anywhere
[ -z "$(find "$TMP/pub" -name '.*.tmp')" ] || die "temporary files left: $(find "$TMP/pub" -name '.*.tmp')"
echo "ok: planted symlink, pre-created 0666 file, symlinks in the -O tree (live -o cases: $live)"
