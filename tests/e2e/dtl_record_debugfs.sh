#!/bin/sh
# SPDX-License-Identifier: MIT
# `dtl record` against files built by the test: a fake sysfs/debugfs/procfs
# tree (no vpa_dtl PMU, powerpc/dtl/{dtl_event_mask,cpu-0,cpu-1}, cpuinfo with
# a timebase line).  The recording must carry exactly the entries of the cpu-N
# files (a stray partial entry ignored), the mask must be written (and put
# back at the end: it is a setting of the system), and the
# refusals (no DTL source at all; a PMU the kernel does not have) must exit 2
# with a message that says why.  With tracepoints (root on a kernel with
# tracefs) the same recording must also hold sched samples.
. "$TESTS_DIR/lib.sh"
[ -x "$TOOLS/mkdtl" ] || skip "mkdtl tool not built"
cd "$TMP" || die "no tmp"
fake_dtl_tree
R="$LATSCOPE dtl record --sysfs sys --debugfs dbg --procfs proc --boot-tb 1488000"

$R -T none -e dtl_preempt -c 5000000 -o a.data -- \
	sh -c 'cat dbg/powerpc/dtl/dtl_event_mask > mask.during; sleep 0.1' 2> rec.err || die "record failed: $(cat rec.err)"
grep -q '2 CPUs via debugfs, 12 DTL entries' rec.err || die "summary: $(cat rec.err)"
[ "$(cat mask.during)" = 0x02 ] || die "mask not written: $(cat mask.during)"
[ "$(cat dbg/powerpc/dtl/dtl_event_mask)" = 0x00 ] || die "mask not restored: $(cat dbg/powerpc/dtl/dtl_event_mask)"
"$LATSCOPE" dtl script --csv a.data > a.csv 2>/dev/null || die "script"
[ "$(wc -l < a.csv)" = 13 ] || die "expected 12 rows: $(cat a.csv)"
[ "$(grep -c '^0,' a.csv)" = 7 ] && [ "$(grep -c '^1,' a.csv)" = 5 ] || die "rows per CPU: $(cat a.csv)"
# 2000000 - 1488000 = 512000 ticks = 1 ms; the entries are 10 us apart, CPU 1 starts 5 us later
sed -n 2,4p a.csv > head.csv
printf '%s\n' \
 '0,1000000,2000000,external_interrupt,time_slice,100,10,1000,0,0x0,0xc0000000000f8094,0x8000000000001033,' \
 '1,1005000,2002560,external_interrupt,time_slice,100,10,1000,8,0x0,0xc0000000000f8094,0x8000000000001033,' \
 '0,1010000,2005120,decrementer_interrupt,H_CEDE,101,11,1001,0,0x0,0xc0000000000f8094,0x8000000000001033,' > want.csv
diff -u want.csv head.csv || die "recorded entries differ"
"$LATSCOPE" dtl dump --no-raw a.data | grep -q 'boot_tb: 1488000, tb_freq: 512000000' || die "header record missing"
# -o - into a pipe: pipe mode, as perf record -o - writes it, read back the
# same (an earlier latscope failed with "Illegal seek")
$R -T none -e dtl_preempt -c 5000000 -o - -- true 2> pipe.err | "$LATSCOPE" dtl script --csv - > p.csv 2> p.err ||
	die "record -o - | script -: $(cat pipe.err p.err)"
cmp a.csv p.csv || die "the pipe's entries differ from the file's: $(diff a.csv p.csv | head -5)"
# (a pipe-mode header is 16 bytes: the magic and its own size)
hs=$($R -T none -e dtl_preempt -c 5000000 -o - -- true 2> /dev/null | od -An -t u8 -j 8 -N 8 | tr -d ' ')
[ "$hs" = 16 ] || die "the pipe is not in pipe mode: header size $hs"

# the kernel's map, as perf record writes it (perf script names srr0 with
# it): from proc/kallsyms, from _text over the kernel image's functions
printf '%s\n' 'c000000000000000 T _text' 'c000000000000000 T _stext' 'c000000000001000 T start_here' \
	'c000000000002000 t do_idle' 'c000000000004000 D _edata' 'c008000000010000 t vblk_probe\t[virtio_blk]' |
	sed 's/\\t/\t/' > proc/kallsyms
$R -T none -o k.data -- true 2> k.err || die "record with kallsyms failed: $(cat k.err)"
python3 - k.data <<'PY' || die "the kernel's MMAP record"
import struct, sys
b = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
p, maps = off, []
while p + 8 <= off + size:
    t, misc, sz = struct.unpack_from("<IHH", b, p)
    if sz < 8:
        break
    if t == 1:
        pid, tid, start, ln, pgoff = struct.unpack_from("<IIQQQ", b, p + 8)
        name = b[p + 40:p + sz].split(b"\0")[0].decode()
        maps.append((misc, pid, start, ln, pgoff, name))
    p += sz
if len(maps) != 1:
    sys.exit("%d MMAP records, want the kernel's alone" % len(maps))
misc, pid, start, ln, pgoff, name = maps[0]
# misc KERNEL, pid -1, start and pgoff _text, past the last kernel function
# (do_idle at +0x2000), short of the first module, perf's name
if (misc, pid, start, pgoff, name) != (1, 0xffffffff, 0xc000000000000000, 0xc000000000000000,
                                       "[kernel.kallsyms]_text") or not 0x2000 < ln <= 0x8000000010000:
    sys.exit("MMAP misc %d pid %#x start %#x len %#x pgoff %#x %s" % maps[0])
print("kernel map: %s %#x + %#x @ %#x" % (name, start, ln, pgoff))
PY
rm proc/kallsyms

# the hypervisor laps the reader: an entry newer than the next one was
# written over its slot during the copy (dropped: it is read again at its
# own index), and a read of the kernel's whole buffer less one
# (dtl_buf_entries) means the kernel skipped its reader ahead; both said,
# in the file too (dtl report, --strict exit 1)
mkdir -p lap && cp -r sys proc lap/ && mkdir -p lap/dbg/powerpc/dtl && echo 0x00 > lap/dbg/powerpc/dtl/dtl_event_mask
"$TOOLS/mkdtl" --raw 1 --tb0 2100000 --cpu 0 -o lap/late || die mkdtl
"$TOOLS/mkdtl" --raw 3 --tb0 2000000 --cpu 0 -o lap/old || die mkdtl
cat lap/late lap/old > lap/dbg/powerpc/dtl/cpu-0
"$TOOLS/mkdtl" --raw 2 --tb0 2002560 --cpu 1 -o lap/dbg/powerpc/dtl/cpu-1 || die mkdtl
(cd lap && $LATSCOPE dtl record --sysfs sys --debugfs dbg --procfs proc --boot-tb 1488000 -T none -o ../l.data \
	-- sleep 0.1) 2> l.err || die "record (lap) failed: $(cat l.err)"
grep -q 'lapped the debugfs reader: 0 reads .*, 1 entries came out of order' l.err || die "lap warning: $(cat l.err)"
"$LATSCOPE" dtl script --csv l.data 2>/dev/null | cut -d, -f1,3 > l.csv
printf '%s\n' cpu,timebase 0,2000000 1,2002560 0,2005120 1,2007680 0,2010240 > l.want
diff -u l.want l.csv || die "lapped: the entries kept"
"$LATSCOPE" dtl report l.data > /dev/null 2> l.rep || die "dtl report l.data"
grep -q 'lapped the debugfs reader 1 times' l.rep || die "dtl report on the lap: $(cat l.rep)"
"$LATSCOPE" dtl report --strict l.data > /dev/null 2>&1 && die "--strict passed a lapped recording"
echo 4 > lap/dbg/powerpc/dtl/dtl_buf_entries
"$TOOLS/mkdtl" --raw 3 --tb0 2000000 --cpu 0 -o lap/dbg/powerpc/dtl/cpu-0 || die mkdtl
(cd lap && $LATSCOPE dtl record --sysfs sys --debugfs dbg --procfs proc --boot-tb 1488000 -T none -o ../f.data \
	-- sleep 0.1) 2> f.err || die "record (full read) failed: $(cat f.err)"
grep -q 'lapped the debugfs reader: 1 reads' f.err || die "full-read warning: $(cat f.err)"
echo "lapped reader: 1 out-of-order entry dropped, 1 full read; both said by record and report"

# refusals
$LATSCOPE dtl record --sysfs sys --debugfs empty --procfs proc -T none -o b.data -- true 2> e1.err && die "no source accepted"
[ $? -eq 2 ] || die "no-source exit code"
grep -q 'no powerpc/ there: not POWER' e1.err || die "no-source message: $(cat e1.err)"
mkdir -p sys/bus/event_source/devices/vpa_dtl && echo 4000 > sys/bus/event_source/devices/vpa_dtl/type
$LATSCOPE dtl record --sysfs sys --debugfs dbg --procfs proc --pmu -T none -o c.data -- true 2> e2.err && die "bogus PMU accepted"
grep -q 'shared-processor LPAR\|permission denied' e2.err || die "PMU refusal message: $(cat e2.err)"
rm -r sys/bus
# a KVM guest (the device tree's /hypervisor is "linux,kvm"): no PMU there,
# debugfs only; one line each, exit 2
mkdir -p kvm/proc/device-tree/hypervisor kvm/dbg/powerpc
printf 'linux,kvm\0' > kvm/proc/device-tree/hypervisor/compatible
(cd kvm && $LATSCOPE dtl record --sysfs ../sys --debugfs dbg --procfs proc --pmu -T none -o k.data -- true) 2> e3.err
[ $? -eq 2 ] && [ "$(grep -c . e3.err)" = 1 ] || die "KVM guest, --pmu: $(cat e3.err)"
grep -q 'no vpa_dtl PMU: this is a KVM guest' e3.err || die "KVM guest, --pmu message: $(cat e3.err)"
(cd kvm && $LATSCOPE dtl record --sysfs ../sys --debugfs dbg --procfs proc -T none -o k.data -- true) 2> e4.err
[ $? -eq 2 ] && [ "$(grep -c . e4.err)" = 1 ] || die "KVM guest, auto: $(cat e4.err)"
grep -q 'this is a KVM guest.*built without CONFIG_DTL' e4.err || die "KVM guest, auto message: $(cat e4.err)"
[ ! -e kvm/k.data ] || die "a refused record left k.data"
printf 'ibm,other\0' > kvm/proc/device-tree/hypervisor/compatible
(cd kvm && $LATSCOPE dtl record --sysfs ../sys --debugfs dbg --procfs proc -T none -o k.data -- true) 2> e5.err
grep -q 'KVM guest,' e5.err && die "not KVM but said so: $(cat e5.err)"
echo "KVM guest: $(cut -c1-60 e3.err)..."

# with the default sched tracepoints, where the kernel allows it
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/sched ]; then
	$R -o d.data -- sleep 0.2 2> d.err || die "record with tracepoints: $(cat d.err)"
	"$LATSCOPE" dtl script d.data > d.out 2>/dev/null || die "script d.data"
	[ "$(grep -c 'vpa-dtl:' d.out)" = 12 ] || die "DTL entries with tracepoints"
	grep -q 'sched:sched_switch' d.out || die "no sched samples recorded"
fi
exit 0
