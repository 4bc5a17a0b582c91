#!/bin/sh
# SPDX-License-Identifier: MIT
# A KVM guest: sid's kernel (which has the vpa_dtl PMU on an LPAR) booted
# with the test hypervisor's LATSCOPE_DTL_KVM=1, a device tree whose
# /hypervisor is "linux,kvm", what the kernel's is_kvm_guest() reads.  The
# kernel then keeps its vpa_dtl PMU away ("only supported for L1 host"), and
# latscope must say that this is a KVM guest, where the DTL is read through
# debugfs (a CONFIG_DTL kernel), in one line with exit 2:
#   dtl record --pmu          no vpa_dtl PMU: this is a KVM guest
#   dtl record                no DTL source: this is a KVM guest ... CONFIG_DTL
#   dtl record --debugfs-only the same
#   monitor --dtl             the same, then it stops
# boots: sid-kvm
# timeout: 60
. "$KTEST_DIR/guest/lib.sh"
compat=$(tr '\0' ' ' < /proc/device-tree/hypervisor/compatible 2>/dev/null)
case " $compat " in *" linux,kvm "*) ;; *) die "the device tree's /hypervisor is '$compat', not linux,kvm";; esac
echo "device tree: /hypervisor compatible $compat"
[ ! -e /sys/bus/event_source/devices/vpa_dtl ] ||
	die "the kernel registered vpa_dtl in a KVM guest"
echo "no vpa_dtl PMU: the kernel kept it away, as in a KVM guest"
refused pmu 'no vpa_dtl PMU: this is a KVM guest' 1 latscope dtl record --pmu -d 1 -o pmu.data
refused auto 'this is a KVM guest.*CONFIG_DTL' 1 latscope dtl record -d 1 -o auto.data
refused debugfs 'this is a KVM guest.*CONFIG_DTL' 1 latscope dtl record --debugfs-only -d 1 -o debugfs.data
refused monitor 'this is a KVM guest' n latscope monitor --dtl --listen 127.0.0.1:0 --backend perf -d 2
for f in pmu.data auto.data debugfs.data; do [ ! -e "$f" ] || die "a refused dtl record left $f"; done
echo "ok: a KVM guest said in every refusal, one line and exit 2, no file left"
