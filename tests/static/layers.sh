#!/bin/sh
# SPDX-License-Identifier: MIT
# lib/ is layered (docs/architecture.md): base < format < live < engine <
# report < print.  A file of lib/ includes headers of its own layer or of the layers
# below it, always by the layer's path ("format/pdread.h"); a private _int.h
# only from its own folder; lib/ never includes from src/.  Fails on an
# include that points up, names no layer, or reaches another module's
# private header.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
rank() {
	case $1 in base) echo 1;; format) echo 2;; live) echo 3;; engine) echo 4;; report) echo 5;; print) echo 6;; *) echo 0;; esac
}
bad=0 n=0
for f in $(find "$SRC/lib" -name '*.[ch]' | sort); do
	rel=${f#"$SRC"/lib/}
	layer=${rel%%/*}
	r=$(rank "$layer")
	[ "$r" -gt 0 ] || { echo "$rel: not in a layer folder"; bad=$((bad + 1)); continue; }
	n=$((n + 1))
	dir=$(dirname "$f")
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		*_int.h)
			[ -f "$dir/$h" ] || { echo "$rel: includes $h, another module's private header"; bad=$((bad + 1)); };;
		*/*)
			hl=${h%%/*}; hr=$(rank "$hl")
			if [ "$hr" -eq 0 ] || [ ! -f "$SRC/lib/$h" ]; then
				echo "$rel: includes $h, not a header of lib/"; bad=$((bad + 1))
			elif [ "$hr" -gt "$r" ]; then
				echo "$rel: includes $h: $layer must not use $hl (it is above)"; bad=$((bad + 1))
			fi;;
		*)
			echo "$rel: includes \"$h\" without its layer"; bad=$((bad + 1));;
		esac
	done
done
[ $bad -eq 0 ] || die "$bad include(s) break the layering of lib/"
# the check sees what it looks for: a made-up file of base including engine
mkdir -p "$TMP/lib/base"
printf '#include "engine/noise.h"\n' > "$TMP/lib/base/x.c"
h=$(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$TMP/lib/base/x.c"); hl=${h%%/*}
[ "$(rank "$hl")" -gt "$(rank base)" ] || die "the rank check is broken"
echo "ok: $n files of lib/ in 6 layers, no include points up"
