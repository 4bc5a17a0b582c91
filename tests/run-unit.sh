#!/bin/sh
# Run cmocka unit-test binaries; print a closing "N passed, N failed" line.
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
pass=0; fail=0; failed=""
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	echo "$out" | grep -E '^\[  (PASSED|FAILED)  \]|^\[  FAILED  \]|^\[==========\]' | sed "s|^|$(basename "$t"): |"
	n=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	pass=$((pass + n)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then
		[ "$f" -gt 0 ] || fail=$((fail + 1))
		failed="$failed $(basename "$t")"
		echo "$out" | tail -40
	fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ] || { echo "failing:$failed"; exit 1; }
