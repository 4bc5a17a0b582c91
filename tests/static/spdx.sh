#!/bin/sh
# SPDX-License-Identifier: MIT
# Every source file (C, headers, BPF programs, shell and Python scripts,
# Makefile, debian/rules) names its license in an SPDX-License-Identifier
# line within its first 5 lines, and every license that line names has its
# text in LICENSES/<id>.txt and is named in LICENSE.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
cd "$SRC" || die "cd $SRC"
[ -s LICENSE ] || die "no LICENSE file"
find lib src tests fuzz bench scripts contrib debian .ci Makefile -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name Makefile -o -path .ci/run \
	   -o -path debian/rules \) \
	! -path 'tests/data/*' ! -path 'tests/golden/data/*' ! -path 'fuzz/corpus*' ! -path 'fuzz/regress/*' \
	2>/dev/null | sort > "$TMP/files"
n=$(wc -l < "$TMP/files")
[ "$n" -gt 100 ] || die "only $n source files found under $SRC"
bad=0
while read -r f; do
	line=$(head -5 "$f" | grep -m1 'SPDX-License-Identifier:')
	if [ -z "$line" ]; then
		echo "$f: no SPDX-License-Identifier line in its first 5 lines" >&2; bad=1; continue
	fi
	expr=$(echo "$line" | sed 's/.*SPDX-License-Identifier:[[:space:]]*//; s/[[:space:]]*\*\/.*//')
	for id in $(echo "$expr" | tr '()' '  '); do
		case $id in OR|AND|WITH) continue;; esac
		if [ ! -s "LICENSES/$id.txt" ]; then
			echo "$f: license $id has no text in LICENSES/$id.txt" >&2; bad=1
		elif ! grep -qw -- "$id" LICENSE; then
			echo "$f: license $id is not named in LICENSE" >&2; bad=1
		fi
	done
	echo "$expr" >> "$TMP/exprs"
done < "$TMP/files"
[ $bad = 0 ] || die "source files without a license LICENSE names (above)"
gpl=$(grep -l 'SPDX-License-Identifier: *GPL-2.0-or-later' $(cat "$TMP/files") | grep -v '^tests/power/qemu/')
[ -z "$gpl" ] || die "GPL-2.0-or-later outside tests/power/qemu (the test hypervisor's alone): $gpl"
ls tests/power/qemu/*.c >/dev/null 2>&1 || die "no tests/power/qemu/*.c: the check below would prove nothing"
# (the Makefile's check target starts the hypervisor's build: that line only)
{ grep -rn 'tests/power/qemu' debian 2>/dev/null
  grep -n 'tests/power/qemu' Makefile | grep -v 'sh tests/power/qemu/build.sh > $(BUILD)/qemu-dtl.log'; } &&
	die "the build or the package names tests/power/qemu (above): the test hypervisor must stay out of latscope"
echo "ok: $n source files tagged: $(sort "$TMP/exprs" | uniq -c | sed 's/^ *//' | tr '\n' ';')"
