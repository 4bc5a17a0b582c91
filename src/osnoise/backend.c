/* SPDX-License-Identifier: MIT */
/*
 * backend.c - which `latscope osnoise` backend can serve a command line:
 * what the bpf backend (counts kept in the kernel, no events out) cannot do
 * that the options ask for.  cli.c refuses --backend bpf with it, run.c
 * falls back from it for auto; below both, so neither depends on the other
 * for it.
 */
#include <stddef.h>

#include "osnoise.h"

const char *osnoise_bpf_conflict(const struct ctx *c)
{
	if (c->mode == M_RECORD)
		return "cannot record (osnoise record): the events never leave the kernel";
	if (c->mode == M_TRACE && c->out.events)
		return "cannot print each noise event (trace --events): the events never leave the "
		       "kernel, only counts do";
	if (c->opt.no_workload)
		return "measures gaps of the busy loop; --no-workload times every task and IRQ from "
		       "their events";
	if (c->opt.no_attr)
		return "is an attribution (--no-attribution asks for none)";
	if (c->fw.trace)
		return "cannot keep a trace (-t, -a, a trace action): the events never leave the kernel";
	return NULL;
}
