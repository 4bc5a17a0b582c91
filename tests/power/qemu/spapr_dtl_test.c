// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope's test hypervisor: Dispatch Trace Log entries for QEMU's pseries
 * machine under TCG.  TEST EQUIPMENT ONLY: built into a private QEMU by
 * tests/power/qemu/build.sh for latscope's POWER tier, never installed,
 * never part of latscope or its package (tests/power/qemu/README.md).
 *
 * Stock QEMU registers a vCPU's DTL buffer (H_REGISTER_VPA) and never writes
 * to it.  This file is called where TCG stops running a vCPU and where it
 * resumes it (spapr_cpu_exec_exit/enter, hooked by build.sh), and writes
 * one PAPR-shaped entry per dispatch, as the PowerVM hypervisor does:
 *
 *   at the exit    the timebase, SRR0/SRR1 (the guest's NIP and MSR) and why
 *                  the vCPU stopped: halted (H_CEDE, preempt reason 2) or not
 *                  (its time slice, preempt reason 4);
 *   at the enter   the 48 big-endian bytes of struct dtl_entry at
 *                  dtl_addr + (dtl_idx % (dtl_size / 48)) * 48: dispatch
 *                  reason (decrementer 3, external interrupt 0, H_PROD 2,
 *                  time slice 7), preempt reason, processor_id (the host CPU
 *                  that runs the vCPU thread), enqueue_to_dispatch_time (a
 *                  preempted vCPU: all of its time off; a ceded one: the
 *                  time from its wake-up to the dispatch, 0 when unknown),
 *                  waiting_to_ready_time (a ceded vCPU: its time off),
 *                  ready_to_enqueue_time 0, the timebase of the dispatch,
 *                  fault_addr 0, srr0, srr1; then a write barrier, then
 *                  lppaca.dtl_idx + 1.  Only the kinds the guest enabled in
 *                  lppaca.dtl_enable_mask (0x1 cede, 0x2 preempt) are
 *                  written.  lppaca.enqueue_dispatch_tb grows by the
 *                  preempted time (the guest's steal time).
 *
 * Set by the environment of the QEMU process:
 *   LATSCOPE_DTL_LOG=FILE      every entry written, one line each:
 *                              "dtl VCPU IDX HEX" (IDX: the dtl_idx it was
 *                              written under, HEX: its 48 bytes): the truth
 *                              the guest's recordings are compared with
 *   LATSCOPE_DTL_MODE=stress   (default) an entry for every exit and re-entry
 *   LATSCOPE_DTL_MODE=realistic  an entry for a cede, and for a preempt of at
 *                              least LATSCOPE_DTL_MIN_OFF_US (default 100)
 *   LATSCOPE_DTL_HOLD=PERIOD_US:HOLD_US[:VCPU]  preempt on purpose: every
 *                              PERIOD_US of host time, the vCPU (VCPU, or
 *                              each) is held off for HOLD_US before it is
 *                              dispatched again (its thread sleeps); logged
 *                              as "hold VCPU TB_FROM TB_TO"
 *   LATSCOPE_DTL_KVM=1         the device tree says the guest runs under KVM:
 *                              a /hypervisor node compatible with "linux,kvm",
 *                              which is what the guest kernel's is_kvm_guest()
 *                              reads (its vpa_dtl PMU then stays away), with
 *                              no "hcall-instructions" (no KVM paravirt calls)
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "cpu.h"
#include "exec/cpu-common.h"
#include "hw/core/cpu.h"
#include "hw/ppc/spapr.h"
#include "hw/ppc/spapr_cpu_core.h"
#include "spapr_dtl_test.h"
#include <libfdt.h>

#define LPPACA_DTL_ENABLE_MASK   0xB8
#define LPPACA_ENQ_DISPATCH_TB   0x158
#define LPPACA_DTL_IDX           0x218
#define DTL_ENTRY_BYTES          48
#define DTL_MASK_CEDE            0x1
#define DTL_MASK_PREEMPT         0x2

enum { PREEMPT_CEDE = 2, PREEMPT_TIME_SLICE = 4 };
enum { DISPATCH_EXT_IRQ = 0, DISPATCH_PROD = 2, DISPATCH_DECR = 3, DISPATCH_TIME_SLICE = 7 };

#define MAX_VCPUS 64

/* what the exit saw, until the next enter of the same vCPU */
struct dtl_test_vcpu {
    bool off;               /* an exit was seen, no enter yet */
    bool ceded;
    uint64_t tb_off;
    uint64_t srr0, srr1;
    int64_t next_hold_ns;   /* host clock of the next forced hold */
};

static struct {
    bool init;
    int log_fd;
    bool realistic;
    uint64_t min_off_tb;
    int64_t hold_period_ns, hold_ns;
    int hold_vcpu;          /* -1: each */
    struct dtl_test_vcpu vcpu[MAX_VCPUS];
} dt;

static void dtl_test_init(void)
{
    const char *s;

    dt.init = true;
    dt.log_fd = -1;
    dt.hold_vcpu = -1;
    s = getenv("LATSCOPE_DTL_LOG");
    if (s && *s) {
        dt.log_fd = open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (dt.log_fd < 0) {
            error_report("latscope dtl test: cannot open %s: %s", s, strerror(errno));
            exit(1);
        }
    }
    s = getenv("LATSCOPE_DTL_MODE");
    dt.realistic = s && !strcmp(s, "realistic");
    s = getenv("LATSCOPE_DTL_MIN_OFF_US");
    /* the timebase runs at 512 MHz: 512 ticks a microsecond */
    dt.min_off_tb = (s ? strtoull(s, NULL, 10) : 100) * 512;
    s = getenv("LATSCOPE_DTL_HOLD");
    if (s && *s) {
        unsigned long long period_us, hold_us;
        int vcpu = -1;
        if (sscanf(s, "%llu:%llu:%d", &period_us, &hold_us, &vcpu) < 2 ||
            period_us == 0) {
            error_report("latscope dtl test: LATSCOPE_DTL_HOLD=%s: want PERIOD_US:HOLD_US[:VCPU]", s);
            exit(1);
        }
        dt.hold_period_ns = period_us * 1000;
        dt.hold_ns = hold_us * 1000;
        dt.hold_vcpu = vcpu;
    }
}

void spapr_dtl_test_fdt(void *fdt)
{
    const char *s = getenv("LATSCOPE_DTL_KVM");
    int node;

    if (!s || strcmp(s, "1") || fdt_path_offset(fdt, "/hypervisor") >= 0) {
        return;
    }
    node = fdt_add_subnode(fdt, 0, "hypervisor");
    if (node < 0 || fdt_setprop_string(fdt, node, "compatible", "linux,kvm") < 0) {
        error_report("latscope dtl test: cannot add /hypervisor to the device tree");
        exit(1);
    }
}

static void dtl_test_log(const char *line, size_t len)
{
    if (dt.log_fd >= 0 && write(dt.log_fd, line, len) != (ssize_t)len) {
        error_report("latscope dtl test: writing the log: %s", strerror(errno));
        exit(1);
    }
}

void spapr_dtl_test_exit(PowerPCCPU *cpu)
{
    SpaprCpuState *sc = spapr_cpu_state(cpu);
    CPUState *cs = CPU(cpu);
    struct dtl_test_vcpu *v;

    if (!dt.init) {
        dtl_test_init();
    }
    if (cs->cpu_index < 0 || cs->cpu_index >= MAX_VCPUS || !sc->dtl_addr) {
        return;
    }
    v = &dt.vcpu[cs->cpu_index];
    v->off = true;
    v->ceded = cs->halted;
    v->tb_off = cpu_ppc_load_tbl(&cpu->env);
    v->srr0 = cpu->env.nip;
    v->srr1 = cpu->env.msr;
}

void spapr_dtl_test_enter(PowerPCCPU *cpu)
{
    SpaprCpuState *sc = spapr_cpu_state(cpu);
    CPUState *cs = CPU(cpu);
    CPUPPCState *env = &cpu->env;
    struct dtl_test_vcpu *v;
    uint8_t e[DTL_ENTRY_BYTES];
    uint64_t tb_on, off, idx, n;
    uint8_t mask, preempt, dispatch;
    uint32_t e2d = 0, w2r = 0;
    bool held = false;

    if (!dt.init) {
        dtl_test_init();
    }
    if (cs->cpu_index < 0 || cs->cpu_index >= MAX_VCPUS || !sc->dtl_addr || !sc->vpa_addr) {
        return;
    }
    v = &dt.vcpu[cs->cpu_index];
    if (dt.hold_period_ns && (dt.hold_vcpu < 0 || dt.hold_vcpu == cs->cpu_index)) {
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_HOST);
        if (!v->next_hold_ns) {
            v->next_hold_ns = now + dt.hold_period_ns;
        } else if (now >= v->next_hold_ns) {
            char line[96];
            uint64_t tb0 = cpu_ppc_load_tbl(env), tb1;
            int len;

            if (!v->off) {     /* a preempt that TCG did not make: one of ours */
                v->off = true;
                v->ceded = false;
                v->tb_off = tb0;
                v->srr0 = env->nip;
                v->srr1 = env->msr;
            }
            g_usleep(dt.hold_ns / 1000);
            tb1 = cpu_ppc_load_tbl(env);
            len = snprintf(line, sizeof(line), "hold %d %" PRIu64 " %" PRIu64 "\n",
                           cs->cpu_index, tb0, tb1);
            dtl_test_log(line, len);
            v->next_hold_ns = now + dt.hold_period_ns;
            held = true;
        }
    }
    if (!v->off) {
        return;
    }
    v->off = false;
    tb_on = cpu_ppc_load_tbl(env);
    off = tb_on > v->tb_off ? tb_on - v->tb_off : 0;
    if (v->ceded && !held) {
        preempt = PREEMPT_CEDE;
        w2r = off > UINT32_MAX ? UINT32_MAX : off;
        if (env->pending_interrupts & PPC_INTERRUPT_DECR) {
            dispatch = DISPATCH_DECR;
        } else if (env->pending_interrupts & PPC_INTERRUPT_EXT) {
            dispatch = DISPATCH_EXT_IRQ;
        } else {
            dispatch = DISPATCH_PROD;
        }
    } else {
        preempt = PREEMPT_TIME_SLICE;
        dispatch = DISPATCH_TIME_SLICE;
        e2d = off > UINT32_MAX ? UINT32_MAX : off;
        if (dt.realistic && !held && off < dt.min_off_tb) {
            return;
        }
    }
    mask = ldub_phys(cs->as, sc->vpa_addr + LPPACA_DTL_ENABLE_MASK);
    if (!(mask & (preempt == PREEMPT_CEDE ? DTL_MASK_CEDE : DTL_MASK_PREEMPT))) {
        return;
    }
    n = sc->dtl_size / DTL_ENTRY_BYTES;
    if (n == 0) {
        return;
    }
    memset(e, 0, sizeof(e));
    e[0] = dispatch;
    e[1] = preempt;
    stw_be_p(e + 2, sched_getcpu() < 0 ? 0 : sched_getcpu());
    stl_be_p(e + 4, e2d);
    stl_be_p(e + 8, 0);
    stl_be_p(e + 12, w2r);
    stq_be_p(e + 16, tb_on);
    stq_be_p(e + 24, 0);
    stq_be_p(e + 32, v->srr0);
    stq_be_p(e + 40, v->srr1);
    idx = ldq_be_phys(cs->as, sc->vpa_addr + LPPACA_DTL_IDX);
    cpu_physical_memory_write(sc->dtl_addr + (idx % n) * DTL_ENTRY_BYTES, e, sizeof(e));
    smp_wmb();
    stq_be_phys(cs->as, sc->vpa_addr + LPPACA_DTL_IDX, idx + 1);
    if (e2d) {
        uint64_t st = ldq_be_phys(cs->as, sc->vpa_addr + LPPACA_ENQ_DISPATCH_TB);
        stq_be_phys(cs->as, sc->vpa_addr + LPPACA_ENQ_DISPATCH_TB, st + e2d);
    }
    if (dt.log_fd >= 0) {
        char line[160];
        int len = snprintf(line, sizeof(line), "dtl %d %" PRIu64 " ", cs->cpu_index, idx);
        for (size_t i = 0; i < sizeof(e); i++) {
            len += snprintf(line + len, sizeof(line) - len, "%02x", e[i]);
        }
        line[len++] = '\n';
        dtl_test_log(line, len);
    }
}
