/* SPDX-License-Identifier: MIT */
/*
 * sysinfo.h - small probes of the running system: the online CPUs, the
 * per-CPU steal time, whether this is a virtual machine, whether the kernel
 * is PREEMPT_RT.
 *
 * Prefix: sysinfo_.  Nothing here prints or allocates; the caller owns every
 * buffer it passes.
 */
#ifndef LATSCOPE_SYSINFO_H
#define LATSCOPE_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include "base/parse.h"

/* The online CPUs into *s (/sys/devices/system/cpu/online, else the first
 * sysconf(_SC_NPROCESSORS_ONLN) CPUs): 0 or -ENODEV. */
int sysinfo_online_cpus(struct parse_cpuset *s);

/* The steal time (clock ticks, /proc/stat) of the nr CPUs in list into
 * out[0..nr-1]; 0 for a CPU not found or when /proc/stat cannot be read. */
void sysinfo_steal(uint64_t *out, const unsigned *list, size_t nr);

/* On a virtual machine (the "hypervisor" CPU flag): the DMI system vendor
 * ("QEMU", ...) or "hypervisor" written into buf (len bytes), and buf
 * returned; NULL on bare metal. */
const char *sysinfo_vm_name(char *buf, size_t len);

/* True on a PREEMPT_RT kernel: there softirqs run in task context,
 * preemptible, and interrupt handlers in threads.  /sys/kernel/realtime
 * (holding 1) where the kernel has it (the RT patch set's: Debian's 6.1
 * -rt); else the word PREEMPT_RT in uname's version (mainline's PREEMPT_RT,
 * which has no /sys/kernel/realtime: Debian's 7.2 -rt). */
bool sysinfo_preempt_rt(void);

/* True when version (uname's, "#1 SMP PREEMPT_RT Debian 7.2.13-1
 * (2026-10-28)") has the word PREEMPT_RT; false for NULL.  Pure. */
bool sysinfo_version_rt(const char *version);

#endif
