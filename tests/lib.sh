# Helpers for shell tests: source "$TESTS_DIR/lib.sh".
set -u
TMP=$(mktemp -d "${TMPDIR:-/tmp}/latscope-test.XXXXXX")
[ -n "${KEEP_TMP:-}" ] && echo "keeping $TMP" >&2
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT INT TERM
skip() { echo "skip: $*"; exit 77; }
die() { echo "FAIL: $*" >&2; exit 1; }
# shared recording, decompressed once per run into a cache
SHARED_DATA=${SHARED_DATA:-$TESTS_DIR/../../shared/data/sched-load.perf.data.zst}
shared_recording() {
	[ -f "$SHARED_DATA" ] || return 1
	cache=${LATSCOPE_CACHE:-${TMPDIR:-/tmp}/latscope-cache}
	mkdir -p "$cache"
	if [ ! -s "$cache/sched-load.perf.data" ]; then
		command -v zstd >/dev/null || return 1
		zstd -q -d -f "$SHARED_DATA" -o "$cache/sched-load.perf.data.tmp" && \
			mv "$cache/sched-load.perf.data.tmp" "$cache/sched-load.perf.data"
	fi
	echo "$cache/sched-load.perf.data"
}
