#!/bin/sh
# SPDX-License-Identifier: MIT
# Replay every fuzz target's seed corpus (fuzz/corpus/<target>/) and
# regression inputs (fuzz/regress/<target>/) through its replay binary
# (fuzz/replay.c, built with ASan+UBSan by `make check`).  Every
# fuzz/fuzz_*.c must have a binary and at least one input.
# usage: fuzz/replay.sh DIR_OF_REPLAY_BINARIES
set -u
dir=$1
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
# deep enough stacks that a suppression names its function (libtraceevent's
# parser recurses: its leaks are 30+ frames under tep_parse_event)
export ASAN_OPTIONS="malloc_context_size=256${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
pass=0; fail=0; failed=""
for src in fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=$dir/$name
	set --
	[ -d "fuzz/corpus/$name" ] && set -- "$@" "fuzz/corpus/$name"
	[ -d "fuzz/regress/$name" ] && set -- "$@" "fuzz/regress/$name"
	if [ ! -x "$bin" ]; then
		echo "fuzz-replay: $name: no replay binary $bin"; fail=$((fail + 1)); failed="$failed $name"; continue
	fi
	if [ $# -eq 0 ]; then
		echo "fuzz-replay: $name: no corpus or regression inputs"; fail=$((fail + 1)); failed="$failed $name"; continue
	fi
	if out=$("$bin" "$@" 2>&1); then
		echo "fuzz-replay: $name: $(echo "$out" | tail -1) ($*)"
		pass=$((pass + 1))
	else
		echo "fuzz-replay: $name FAILED:"; echo "$out" | tail -30 | sed 's/^/    /'
		fail=$((fail + 1)); failed="$failed $name"
	fi
done
echo "fuzz-replay: $pass passed, $fail failed"
[ $fail -eq 0 ] || { echo "failing:$failed"; exit 1; }
