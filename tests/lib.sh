# Helpers for shell tests: source "$TESTS_DIR/lib.sh".
set -u
TMP=$(mktemp -d "${TMPDIR:-/tmp}/latscope-test.XXXXXX")
[ -n "${KEEP_TMP:-}" ] && echo "keeping $TMP" >&2
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT INT TERM
skip() { echo "skip: $*"; exit 77; }
die() { echo "FAIL: $*" >&2; exit 1; }
# The shared real recording (sched-load.perf.data.zst) lives outside the
# repository: tests use it only when SHARED_DATA names it (opt-in, e.g.
# make check SHARED_DATA=../shared/data/sched-load.perf.data.zst); without it
# they run on data shipped in tests/data or recorded at test time.
# Decompressed once per run into a cache.
SHARED_DATA=${SHARED_DATA:-}
shared_recording() {
	[ -n "$SHARED_DATA" ] || return 1
	[ -f "$SHARED_DATA" ] || die "SHARED_DATA=$SHARED_DATA: no such file"
	cache=${LATSCOPE_CACHE:-${TMPDIR:-/tmp}/latscope-cache}
	mkdir -p "$cache"
	if [ ! -s "$cache/sched-load.perf.data" ]; then
		command -v zstd >/dev/null || return 1
		zstd -q -d -f "$SHARED_DATA" -o "$cache/sched-load.perf.data.tmp" && \
			mv "$cache/sched-load.perf.data.tmp" "$cache/sched-load.perf.data"
	fi
	echo "$cache/sched-load.perf.data"
}
