#!/bin/sh
# SPDX-License-Identifier: MIT
# Every file latscope writes goes through the safe-output path (lib/base/safeout):
# no source file of lib/ or src/ but lib/base/safeout.c may create, rename or link
# a file.  Writes to files that exist already and that no other user can
# plant (tracefs, /sys, /proc, /dev/cpu_dma_latency: open without O_CREAT)
# are not creations.  Comments are left out (cpp -fpreprocessed), so only code
# counts.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
command -v cpp >/dev/null || skip "no cpp"
# A call or constant that creates a file or a name (one regex, ERE):
#   fopen/freopen/fdopen-like with a mode that writes ("w", "a", "+"),
#   O_CREAT, O_TMPFILE, creat(), mkdir*, mkfifo*, mknod*, mk*temp*, tmpfile(),
#   rename*, link*, symlink*, truncate()
CREATE='fopen[[:space:]]*\([^;]*,[[:space:]]*"[^"]*[wa+][^"]*"[[:space:]]*\)|freopen|O_CREAT|O_TMPFILE|[^_[:alnum:]]creat[[:space:]]*\(|mkdirat?[[:space:]]*\(|mkfifo|mknod|mk[sd]?temp|mkostemp|tmpfile[[:space:]]*\(|renameat2?[[:space:]]*\(|[^_[:alnum:]]rename[[:space:]]*\(|[^_[:alnum:]]linkat?[[:space:]]*\(|symlinkat?[[:space:]]*\(|[^_[:alnum:]f]truncate[[:space:]]*\('
found=0
for f in $(find "$SRC/lib" "$SRC/src" -name '*.c' | sort); do
	case $f in */lib/base/safeout.c) continue;; esac
	# join each statement onto one line so that a call split over lines is seen whole
	hits=$(cpp -fpreprocessed -P -w "$f" 2>/dev/null | tr '\n' ' ' | tr ';{}' '\n\n\n' | grep -E "$CREATE")
	if [ -n "$hits" ]; then
		found=$((found + 1))
		echo "${f#"$SRC"/}: creates a file outside lib/base/safeout:"
		echo "$hits" | sed 's/[[:space:]]\{1,\}/ /g; s/^/    /' | head -5
	fi
done
n=$(find "$SRC/lib" "$SRC/src" -name '*.c' | wc -l)
[ $found -eq 0 ] || die "$found source file(s) create files outside the safe-output path"
# the check itself finds what it looks for: lib/base/safeout.c does create files
cpp -fpreprocessed -P -w "$SRC/lib/base/safeout.c" | tr '\n' ' ' | tr ';{}' '\n\n\n' | grep -qE "$CREATE" ||
	die "the pattern finds nothing in lib/base/safeout.c: the check is broken"
echo "ok: $n source files, none creates a file outside lib/base/safeout.c"
