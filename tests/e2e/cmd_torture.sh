#!/bin/sh
# SPDX-License-Identifier: MIT
# The command layer on hostile input (the reader alone is tortured by
# script_torture.sh and the fuzzers): hist report, osnoise replay and script
# (-j 1 and -j 2) on cut and byte-flipped recordings.  Every run ends with
# exit 0, 1 or 2 (never a signal, never a hang) and a failing run says why.
. "$TESTS_DIR/lib.sh"
FIX=$TOOLS/histfix
"$FIX" -o "$TMP/h.data" --formats "$TESTS_DIR/data/formats" <"$TESTS_DIR/golden/hist/scenario.txt" || die "histfix"
"$FIX" -o "$TMP/p.data" --formats "$TESTS_DIR/data/formats" --pipe <"$TESTS_DIR/golden/hist/scenario.txt" || die "histfix"
inputs="$TMP/h.data $TMP/p.data $TESTS_DIR/data/rec/sched-irq-timer.perf.data"
if [ "$(id -u)" = 0 ] && "$LATSCOPE" osnoise record -c 0 -d 1 -p 200000 -o "$TMP/o.data" >/dev/null 2>&1; then
	inputs="$inputs $TMP/o.data"
fi
runs=0
check() {	# check FILE: every command on it
	for c in "hist report -i" "hist report --json --strict -i" "osnoise top -i" "osnoise hist --json -i" \
		 "script -j 1 -i" "script -j 2 -i" "script --json -i"; do
		timeout 60 "$LATSCOPE" $c "$1" >/dev/null 2>"$TMP/err" </dev/null; rc=$?
		runs=$((runs + 1))
		case $rc in
		0|1) ;;
		2) [ -s "$TMP/err" ] || die "$c on $2: exit 2 without a message" ;;
		*) cp "$1" "$TMP/../cmd_torture.failed" 2>/dev/null
		   die "$c on $2: exit $rc ($(head -3 "$TMP/err"))" ;;
		esac
	done
}
seed=12345
rnd() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); echo $(( seed % $1 )); }
for f in $inputs; do
	size=$(wc -c <"$f")
	for i in 1 2 3 4 5 6; do	# cuts
		head -c "$(rnd "$size")" "$f" >"$TMP/m"
		check "$TMP/m" "$(basename "$f") cut"
	done
	for i in 1 2 3 4 5 6 7 8; do	# 8 random bytes changed
		cp "$f" "$TMP/m"
		for k in 1 2 3 4 5 6 7 8; do
			printf "\\$(printf %03o "$(rnd 256)")" |
				dd of="$TMP/m" bs=1 seek="$(rnd "$size")" conv=notrunc 2>/dev/null
		done
		check "$TMP/m" "$(basename "$f") flip $i"
	done
done
echo "ok: $runs command runs on mutated recordings, all ended with 0/1/2"
