// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope's test hypervisor (spapr_dtl_test.c): TEST EQUIPMENT ONLY,
 * built into a private QEMU for latscope's POWER tier, never installed.
 */
#ifndef SPAPR_DTL_TEST_H
#define SPAPR_DTL_TEST_H

#include "cpu.h"

/* TCG stops running the vCPU (spapr_cpu_exec_exit) */
void spapr_dtl_test_exit(PowerPCCPU *cpu);
/* TCG runs the vCPU again (spapr_cpu_exec_enter): the entry is written here */
void spapr_dtl_test_enter(PowerPCCPU *cpu);

/* spapr_build_fdt, before its /hypervisor node: with LATSCOPE_DTL_KVM=1 the
 * guest is told it runs under KVM (/hypervisor, compatible "linux,kvm") */
void spapr_dtl_test_fdt(void *fdt);

#endif
