#!/bin/sh
# SPDX-License-Identifier: MIT
# srr0 symbols from /proc/kallsyms when the recording was made on the running
# kernel (osrelease and arch match), and only then: a synthetic recording that
# claims this kernel, with cedes leaving the vCPU inside `schedule`, must
# print that symbol as perf script would; the same recording claiming another
# kernel must print [unknown], and --kallsyms FILE must win over both.
. "$TESTS_DIR/lib.sh"
F=$TESTS_DIR/data/formats
[ -r /proc/kallsyms ] || skip "/proc/kallsyms not readable"
addr=$(awk '$3 == "schedule" && $2 ~ /^[Tt]$/ { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || skip "no schedule symbol in /proc/kallsyms"
[ "$(echo "$addr" | tr -d 0)" != "" ] || skip "kallsyms addresses are hidden (kptr_restrict)"
cd "$TMP" || die "no tmp"
# schedule+0xc when its address ends in 0 (functions are aligned), else +0x0;
# string arithmetic, since shells may not do unsigned 64-bit sums
case $addr in *0) at=${addr%?}c; off=0xc;; *) at=$addr; off=0x0;; esac
at=$(echo "$at" | sed 's/^0*//')
S="$LATSCOPE dtl synth -q --formats $F --cpus 2 --duration 100ms --seed 3 --cede-srr0 $at"
$S --osrelease "$(uname -r)" --arch "$(uname -m)" -o here.data || die "synth (this kernel)"
$S -o there.data || die "synth (another kernel)"
"$LATSCOPE" dtl script here.data > here.out 2>/dev/null || die "script here"
grep -q "^enqueue_to_dispatch.* $at schedule+$off (\[kernel.kallsyms\])\$" here.out ||
	die "the cede address was not resolved from /proc/kallsyms: $(grep -m1 '^enqueue' here.out)"
"$LATSCOPE" dtl script there.data > there.out 2>/dev/null || die "script there"
grep -q "^enqueue_to_dispatch.* $at \[unknown\] (\[unknown\])\$" there.out ||
	die "another kernel's recording was resolved with this machine's symbols"
"$LATSCOPE" dtl script --no-symbols here.data > none.out 2>/dev/null || die "script --no-symbols"
grep -q "schedule+$off" none.out && die "--no-symbols resolved anyway"
"$LATSCOPE" dtl report --json here.data | grep -q '"symbol": "schedule"' || die "report does not rank schedule"
exit 0
