#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the static checks, golden and end-to-end tests (tests/static/*.sh,
# tests/golden/*.sh, tests/e2e/*.sh).
# Each script exits 0 (pass), 77 (skip: the machine lacks a feature) or
# anything else (fail).  LATSCOPE names the binary under test.
: "${LATSCOPE:?LATSCOPE must name the latscope binary}"
export LATSCOPE
TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
export TESTS_DIR
pass=0; fail=0; skip=0; failed=""
for t in "$TESTS_DIR"/static/*.sh "$TESTS_DIR"/golden/*.sh "$TESTS_DIR"/e2e/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
	out=$(sh "$t" 2>&1); rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name";;
	77) skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -1)";;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"; echo "$out" | tail -30 | sed 's/^/    /';;
	esac
done
echo "shell: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failing:$failed"; exit 1; }
