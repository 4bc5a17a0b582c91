#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every built libFuzzer target for SECONDS each, with its seed corpus
# (fuzz/corpus/<target>/, copied to a scratch dir so the tree stays clean).
# usage: fuzz/run.sh BUILD_FUZZ_DIR SECONDS
set -u
dir=$1; secs=${2:-600}
rc=0
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	work=$(mktemp -d)
	[ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$work/"
	echo "fuzz: $name for ${secs}s"
	if ! LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0" \
		ASAN_OPTIONS="malloc_context_size=256${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
		-print_final_stats=1 "$work" > "$dir/$name.log" 2>&1; then
		echo "fuzz: $name FAILED (see $dir/$name.log)"; tail -30 "$dir/$name.log"; rc=1
	else
		grep -E "stat::number_of_executed_units|Done" "$dir/$name.log" | tail -2
	fi
	rm -rf "$work"
done
exit $rc
