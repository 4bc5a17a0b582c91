#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# The guest's /init (busybox sh), put in the initramfs by tests/kernels/run.sh.
#
# Mounts proc, sysfs, devtmpfs and tracefs, loads the modules the host listed
# (virtio_blk for the results disk), checks the kernel's MUST-HAVE list as the
# test "features", runs every guest test (/ktest/guest/*.sh but lib.sh) whose
# needs the kernel meets, and powers off.  Per test:
#   - "KT RUN NAME TIMEOUT" when it starts, a result line "KT PASS|FAIL|SKIP
#     NAME [why]" when it ends, on the second serial port (ttyS1, or hvc1
#     on pseries: nothing else writes there; the host watches it for
#     progress) and the console;
#   - the result lines in /results/results too;
#   - its output in /results/log/NAME, its artefacts in /results/art/NAME/,
#     "NAME SECONDS TIMEOUT" in /results/times.
# /results goes to the virtio disk /dev/vda as a tar at the end; "KT DONE"
# says the guest got there.
/bin/busybox mkdir -p /proc /sys /dev /tmp /root /usr/bin /usr/sbin /sbin
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ip link set lo up 2>/dev/null

. /ktest/kernel.env	# KERNEL (name), MUST (words), MODULES (files in load order)
export KERNEL ${KT_STORM_DUR+KT_STORM_DUR} KTEST_DIR=/ktest TRACEFS=/sys/kernel/tracing LATSCOPE=/bin/latscope

# the results port: the second serial port (x86: ttyS1; pseries, whose
# serial ports are hypervisor consoles: hvc1; tests/power/run.sh)
port=""
for p in /dev/ttyS1 /dev/hvc1; do [ -c "$p" ] && { port=$p; break; }; done
if [ -n "$port" ]; then
	stty -F "$port" raw -echo 2>/dev/null
	exec 3>"$port"
else
	echo "ktest: no /dev/ttyS1 or /dev/hvc1: the host will see no results"
	exec 3>/dev/null
fi
report() {	# STATUS NAME [why]
	echo "KT $*" >&3
	echo "KT $*"
	echo "KT $*" >> /results/results
}

mkdir -p /results/log /results/art
for m in $MODULES; do
	insmod "/ktest/modules/$m" || echo "ktest: insmod $m failed"
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || echo "ktest: no /dev/vda: the logs and artefacts stay in the guest"

. /ktest/guest/lib.sh
uname -a > /results/uname

# MUST-HAVE: the kernel is the one the list says it is.
miss=""
for w in $MUST; do
	why=$(kt_has "$w") || miss="$miss; $why"
done
if [ -z "$miss" ]; then
	report PASS features
else
	report FAIL features "missing${miss#;}"
fi

for t in /ktest/guest/*.sh; do
	name=$(basename "$t" .sh)
	[ "$name" != lib ] || continue
	why=$(grep -m1 "^$name " /ktest/skip 2>/dev/null | cut -d' ' -f2-)
	if [ -n "$why" ]; then
		report SKIP "$name" "$why"
		continue
	fi
	for w in $(kt_header "$t" needs); do
		why=$(kt_has "$w") || break
		why=""
	done
	if [ -n "$why" ]; then
		report SKIP "$name" "needs $w: $why"
		continue
	fi
	to=$(kt_header "$t" timeout)
	export ART=/results/art/$name
	mkdir -p "$ART"
	report RUN "$name" "${to:=60}"
	t0=$(cut -d. -f1 /proc/uptime)
	(cd /tmp && timeout -s KILL "$to" sh "$t") > "/results/log/$name" 2>&1
	rc=$?
	# how long it took, against its timeout (the host lists them)
	echo "$name $(( $(cut -d. -f1 /proc/uptime) - t0 )) $to" >> /results/times
	case $rc in
	0) report PASS "$name";;
	77) report SKIP "$name" "$(tail -1 "/results/log/$name")";;
	137) report FAIL "$name" "killed after $to s (timeout)"; tail -20 "/results/log/$name";;
	*) report FAIL "$name" "exit $rc"; tail -20 "/results/log/$name";;
	esac
done

dmesg > /results/dmesg
if [ -b /dev/vda ]; then
	tar -cf /dev/vda -C /results . && sync || echo "ktest: writing the results to /dev/vda failed"
fi
report DONE
poweroff -f
