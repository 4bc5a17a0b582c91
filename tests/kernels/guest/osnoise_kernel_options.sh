#!/bin/sh
# SPDX-License-Identifier: MIT
# `latscope osnoise top --kernel` on a kernel with the osnoise tracer: it runs,
# shows CPU 0's periods, and leaves the tracer's settings as it found them.
# The settings are set to values that are not the defaults first, so a run
# that writes the defaults back cannot pass by chance.
# needs: tracer:osnoise
# timeout: 60
. "$KTEST_DIR/guest/lib.sh"
O=$TRACEFS/osnoise
files="osnoise/period_us osnoise/runtime_us osnoise/stop_tracing_us osnoise/stop_tracing_total_us
osnoise/cpus tracing_thresh current_tracer"
[ -f "$O/options" ] && files="$files osnoise/options"
snap() {	# one "file: value" line per setting, and the instances
	for f in $files; do echo "$f: $(cat "$TRACEFS/$f")"; done
	echo "instances: $(ls "$TRACEFS/instances" | tr '\n' ' ')"
}
set_to() {	# period runtime stop stop_total cpus thresh
	echo "$1" > "$O/period_us" && echo "$2" > "$O/runtime_us" &&
		echo "$3" > "$O/stop_tracing_us" && echo "$4" > "$O/stop_tracing_total_us" &&
		echo "$5" > "$O/cpus" && echo "$6" > "$TRACEFS/tracing_thresh"
}
snap > "$ART/defaults"
cat "$ART/defaults"
orig() { sed -n "s|^$1: ||p" "$ART/defaults"; }
set_to 2000000 900000 123456789 987654321 1 7 || die "cannot set the osnoise settings"
if [ -f "$O/options" ]; then
	# flip the workload option, where the kernel has it
	if grep -qw OSNOISE_WORKLOAD "$O/options"; then
		echo NO_OSNOISE_WORKLOAD > "$O/options" || die "cannot write NO_OSNOISE_WORKLOAD"
	fi
fi
snap > "$ART/before"
cat "$ART/before"

# run NAME CPU ARGS...: latscope osnoise top --kernel -c CPU ARGS; its exit
# status, output and the settings after it in $ART/NAME.*
run() {
	n=$1 cpu=$2
	shift 2
	latscope osnoise top --kernel -c "$cpu" "$@" > "$ART/$n.out" 2> "$ART/$n.err"
	echo $? > "$ART/$n.rc"
	echo "latscope osnoise top --kernel -c $cpu $*: exit $(cat "$ART/$n.rc")"
	cat "$ART/$n.out" "$ART/$n.err"
	snap > "$ART/$n.after"
}
# check NAME CPU: it exited 0, showed CPU's periods ("CPU #N ..." with N > 0)
# and left every setting as it was
check() {
	[ "$(cat "$ART/$1.rc")" = 0 ] || die "$1: exit $(cat "$ART/$1.rc"): $(cat "$ART/$1.err")"
	awk -v cpu="$2" '$1 == cpu && $2 ~ /^#[1-9]/ { ok = 1 } END { exit !ok }' "$ART/$1.out" ||
		die "$1: no period of CPU $2 in the output"
	if ! cmp -s "$ART/before" "$ART/$1.after"; then
		diff "$ART/before" "$ART/$1.after"
		die "$1: the tracer's settings differ after the run (- before, + after)"
	fi
}
run top 0 -d 5
# a period below the runtime the kernel has (900000): runtime written first
run short 1 -d 3 -p 500000 -r 400000

# the defaults back for the next test, whatever happened
set_to "$(orig osnoise/period_us)" "$(orig osnoise/runtime_us)" "$(orig osnoise/stop_tracing_us)" \
	"$(orig osnoise/stop_tracing_total_us)" "$(orig osnoise/cpus)" "$(orig tracing_thresh)"
[ -f "$O/options" ] && grep -qw OSNOISE_WORKLOAD "$O/options" && echo OSNOISE_WORKLOAD > "$O/options"

check top 0
check short 1
exit 0
