#!/bin/sh
# SPDX-License-Identifier: MIT
# As root, writing where another user can write, the attacks played by a
# throwaway user:
#  1-3. a symlink planted at -o, a 0666 file pre-created at -o, a symlink
#     inside a user-owned -O tree: refused without --force, replaced (never
#     written through) with it;
#  4. dtl synth --truth FILE: the same rules (a link, a 0666 file, a FIFO);
#     --json=FILE of hist report, script, dtl report and dtl script too;
#  5. a link of the user's on the way to the target (-o DIR/LINK/f, -O
#     LINK/run1, -O LINK/.), in a sticky world-writable directory and in the
#     user's own: refused naming the link, followed with --force;
#  6. the temporary file swapped for a link during the rename (the rename is
#     held back 3 s with strace's syscall delay): the run fails, nothing is
#     left under the target's name;
#  7. one permission rule: every file 0600, every new directory 0700.
# Nothing outside the target changes, and the user can never read root's
# output.
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

# 4. dtl synth --truth FILE
rm -f "$TMP/pub/t.json"; as_user ln -s "$TMP/safe/victim" "$TMP/pub/t.json"
"$LATSCOPE" dtl synth -q -o "$TMP/s.data" --truth "$TMP/pub/t.json" 2>"$TMP/e4"; rc=$?
[ $rc -eq 2 ] || die "--truth over a planted symlink: exit $rc"
grep -q "symbolic link of another user" "$TMP/e4" || die "--truth over a planted symlink: $(cat "$TMP/e4")"
rm -f "$TMP/pub/t.json"; as_user sh -c "umask 0; : > '$TMP/pub/t.json'"
"$LATSCOPE" dtl synth -q -o "$TMP/s.data" --truth "$TMP/pub/t.json" 2>"$TMP/e4"; rc=$?
[ $rc -eq 2 ] && grep -q "belongs to another user" "$TMP/e4" || die "--truth over a 0666 file: exit $rc: $(cat "$TMP/e4")"
[ ! -s "$TMP/pub/t.json" ] || die "--truth wrote into the user's file"
rm -f "$TMP/pub/t.json"; as_user mkfifo "$TMP/pub/t.json"
timeout 20 "$LATSCOPE" dtl synth -q -o "$TMP/s.data" --truth "$TMP/pub/t.json" 2>"$TMP/e4"; rc=$?
[ $rc -eq 2 ] && grep -q "belongs to another user" "$TMP/e4" || die "--truth to a FIFO of the user: exit $rc: $(cat "$TMP/e4")"
rm -f "$TMP/pub/t.json"
"$LATSCOPE" dtl synth -q -o "$TMP/s.data" --truth "$TMP/pub/t.json" 2>"$TMP/e4" || die "--truth: $(cat "$TMP/e4")"
grep -q '"tasks"' "$TMP/pub/t.json" || die "--truth wrote no truth"
[ "$(stat -c %u:%a "$TMP/pub/t.json")" = "0:600" ] || die "--truth file is $(stat -c %u:%a "$TMP/pub/t.json")"
[ "$(state)" = "$before" ] || die "--truth: something outside the target changed"

# 4b. --json=FILE (docs/json.md): the same rules, --force as for the command's other outputs
for c in "hist report -i $TMP/fix.data" "script -q -i $TMP/fix.data" "dtl report $TMP/s.data" \
	 "dtl script $TMP/s.data"; do
	rm -f "$TMP/pub/j.json"; as_user ln -s "$TMP/safe/victim" "$TMP/pub/j.json"
	$LATSCOPE $c --json="$TMP/pub/j.json" > /dev/null 2>"$TMP/e4b"; rc=$?
	[ $rc -eq 2 ] && grep -q "symbolic link of another user" "$TMP/e4b" ||
		die "$c --json=FILE over a planted symlink: exit $rc: $(cat "$TMP/e4b")"
	$LATSCOPE $c --json="$TMP/pub/j.json" --force > /dev/null 2>"$TMP/e4b" ||
		die "$c --json=FILE --force: $(cat "$TMP/e4b")"
	[ ! -L "$TMP/pub/j.json" ] && [ "$(head -c 1 "$TMP/pub/j.json")" = "{" ] ||
		die "$c --json=FILE --force: the link was not replaced by the JSON"
	[ "$(stat -c %u:%a "$TMP/pub/j.json")" = "0:600" ] || die "$c --json=FILE is $(stat -c %u:%a "$TMP/pub/j.json")"
done
rm -f "$TMP/pub/j.json"
[ "$(state)" = "$before" ] || die "--json=FILE: something outside the target changed"

# 5. a link of the user's on the way, in a sticky directory and in the user's own
mkdir "$TMP/home" && chown "$U" "$TMP/home"
echo "root's recording" > "$TMP/safe/perf.data"; chmod 600 "$TMP/safe/perf.data"
before=$(state)
for P in "$TMP/pub" "$TMP/home"; do
	as_user ln -s "$TMP/safe" "$P/results"
	as_user ln -s "$TMP/safe" "$P/tree2"
	"$LATSCOPE" dtl synth -q -o "$P/results/perf.data" 2>"$TMP/e5"; rc=$?
	[ $rc -eq 2 ] || die "$P: -o through the user's link: exit $rc"
	grep -qF "$P/results is a symbolic link of another user" "$TMP/e5" || die "$P: -o through a link: $(cat "$TMP/e5")"
	for o in "$P/results/run1" "$P/tree2/." "$P/tree2/./" "$P/tree2/sub/.."; do
		"$LATSCOPE" hist report -i "$TMP/fix.data" -O "$o" >/dev/null 2>"$TMP/e5"; rc=$?
		[ $rc -eq 2 ] || die "-O $o: exit $rc"
		grep -q "symbolic link of another user" "$TMP/e5" || die "-O $o: $(cat "$TMP/e5")"
	done
	[ "$(state)" = "$before" ] || die "$P: a link on the way: something outside the target changed:
$before
---
$(state)"
done
# --force follows it
"$LATSCOPE" dtl synth -q --force -o "$TMP/home/results/perf.data" 2>"$TMP/e5" || die "--force: $(cat "$TMP/e5")"
cmp -s "$TMP/safe/perf.data" "$TMP/s.data" || die "--force did not follow the link on the way"
rm -f "$TMP/safe/perf.data"
before=$(state)

# 6. the temporary file swapped for a link while the rename is held back
# (in one step: a link renamed over the temporary name.  The first version
# moved the file aside, then made the link: when latscope looked between the
# two, found its name empty and left, the link came after it and stayed, and
# CI saw "temporary files left")
if command -v strace >/dev/null && strace -qq -o /dev/null -e trace=none true 2>/dev/null; then
	as_user sh -c "
		while [ ! -e '$TMP/home/go' ]; do sleep 0.05; done
		for i in \$(seq 100); do
			for t in '$TMP/home/'.out.data.*.tmp; do
				[ -e \"\$t\" ] || continue
				ln -s '$TMP/safe/victim' '$TMP/home/lnk' && mv -T '$TMP/home/lnk' \"\$t\" && exit 0
			done
			sleep 0.05
		done; exit 1" &
	swapper=$!
	: > "$TMP/home/go"
	strace -f -qq -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=3000000 \
		"$LATSCOPE" dtl synth -q -o "$TMP/home/out.data" 2>"$TMP/e6"; rc=$?
	wait $swapper || die "the swap did not happen (the test did not test)"
	[ $rc -eq 2 ] || die "swapped temporary file: exit $rc ($(cat "$TMP/e6"))"
	grep -q "something else was put under its temporary name" "$TMP/e6" || die "swap: $(cat "$TMP/e6")"
	[ ! -e "$TMP/home/out.data" ] && [ ! -L "$TMP/home/out.data" ] || die "swap: the target name holds $(ls -l "$TMP/home/out.data")"
	[ "$(state)" = "$before" ] || die "swap: something outside the target changed"
	swap=yes
else
	swap="no (strace missing or not working here)"
fi

# 7. one permission rule for every file and new directory
rm -rf "$TMP/newtree"
"$LATSCOPE" hist report -i "$TMP/fix.data" -O "$TMP/newtree/a/b" >/dev/null 2>&1 || die "-O newtree"
bad=$(find "$TMP/newtree" \( -type f ! -perm 600 \) -o \( -type d ! -perm 700 \) | head -3)
[ -z "$bad" ] || die "permissions: $(ls -ld $bad)"
[ "$(stat -c %a "$TMP/s.data")" = 600 ] || die "dtl synth -o file is $(stat -c %a "$TMP/s.data")"

# no temporary file left anywhere
[ -z "$(find "$TMP/pub" "$TMP/home" -name '.*.tmp')" ] || die "temporary files left: $(find "$TMP/pub" "$TMP/home" -name '.*.tmp')"
echo "ok: planted symlink, pre-created 0666 file, symlinks in the -O tree (live -o cases: $live), --truth, links on the way, swapped temporary file ($swap), modes"
