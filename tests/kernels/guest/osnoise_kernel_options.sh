#!/bin/sh
# `latscope osnoise top --kernel` on a kernel with the osnoise tracer: it runs,
# shows CPU 0's periods, and leaves the tracer's settings as it found them.
# The settings are set to values that are not the defaults first, so a run
# that writes the defaults back cannot pass by chance.
# needs: tracer:osnoise
# timeout: 90
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

latscope osnoise top --kernel -c 0 -d 5 > "$ART/top.out" 2> "$ART/top.err"
rc=$?
echo "latscope exit $rc"; cat "$ART/top.out" "$ART/top.err"
snap > "$ART/after"
# a period below the runtime the kernel has (900000): runtime written first
latscope osnoise top --kernel -c 1 -d 3 -p 500000 -r 400000 > "$ART/short.out" 2> "$ART/short.err"
rc2=$?
echo "latscope -p 500000 -r 400000: exit $rc2"; cat "$ART/short.out" "$ART/short.err"
snap > "$ART/after2"

# the defaults back for the next test, whatever happened
set_to "$(orig osnoise/period_us)" "$(orig osnoise/runtime_us)" "$(orig osnoise/stop_tracing_us)" \
	"$(orig osnoise/stop_tracing_total_us)" "$(orig osnoise/cpus)" "$(orig tracing_thresh)"
[ -f "$O/options" ] && grep -qw OSNOISE_WORKLOAD "$O/options" && echo OSNOISE_WORKLOAD > "$O/options"

[ $rc -eq 0 ] || die "latscope osnoise top --kernel -c 0 -d 5: exit $rc: $(cat "$ART/top.err")"
# CPU 0's row: "0 #N ..." with at least one period
awk '$1 == "0" && $2 ~ /^#[1-9]/ { ok = 1 } END { exit !ok }' "$ART/top.out" ||
	die "no period of CPU 0 in the output"
if ! cmp -s "$ART/before" "$ART/after"; then
	diff "$ART/before" "$ART/after"
	die "the tracer's settings differ after the run (- before, + after)"
fi
[ $rc2 -eq 0 ] || die "latscope osnoise top --kernel -p 500000 -r 400000: exit $rc2: $(cat "$ART/short.err")"
awk '$1 == "1" && $2 ~ /^#[1-9]/ { ok = 1 } END { exit !ok }' "$ART/short.out" ||
	die "no period of CPU 1 in the -p 500000 output"
if ! cmp -s "$ART/before" "$ART/after2"; then
	diff "$ART/before" "$ART/after2"
	die "the tracer's settings differ after the -p 500000 run (- before, + after)"
fi
exit 0
