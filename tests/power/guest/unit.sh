#!/bin/sh
# SPDX-License-Identifier: MIT
# Unit tests of the ppc64el build (build-ppc64el/tests/test_*) on the
# guest's real ppc64el kernel.  The list the host put in /ktest/unit.list:
# by default the ones that drive the kernel (signals, sockets, files made
# and linked, tracefs formats, the output path), which qemu-user cannot all
# run; POWER_UNIT=all on the host: every one (about 5.5 minutes under TCG).
# boots: sid bookworm
# timeout: 600
. "$KTEST_DIR/guest/lib.sh"
cd /ktest/src || die "no /ktest/src"
list=""
for n in $(cat /ktest/unit.list); do
	[ -x "/ktest/unit/$n" ] || die "no unit test $n in /ktest/unit"
	list="$list /ktest/unit/$n"
done
[ -n "$list" ] || die "no unit tests listed in /ktest/unit.list"
sh /ktest/run-unit.sh $list > "$ART/unit.out" 2>&1
rc=$?
grep -v ': \[ *OK' "$ART/unit.out" | tail -40
[ $rc -eq 0 ] || die "unit tests failed"
