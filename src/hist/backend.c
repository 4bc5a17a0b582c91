/* SPDX-License-Identifier: MIT */
/*
 * backend.c - which `latscope hist` backend can serve a command line: what
 * the in-kernel backends (bpf, kernel hist triggers) cannot do that the
 * options ask for.  cli.c refuses --backend bpf|kernel with it, run.c picks
 * the backend for auto with it; below both, so neither depends on the
 * other for it.
 */
#include <stdio.h>

#include "hist.h"
#include "live/histtrig.h"

/* What no in-kernel backend does (bpf, kernel): irqsoff_why names what it
 * has no irqsoff/preemptoff of (NULL: it has them). */
static const char *in_kernel_conflict(const struct hctx *c, const char *irqsoff_why)
{
	if (c->o.record_out)
		return "cannot record the events (-o): they never leave the kernel";
	if (c->lo.irqsoff_live && irqsoff_why)
		return irqsoff_why;
	if (c->lo.keep_busy > 0)
		return "never starts the keep-busy spinners (--keep-busy)";
	if (c->o.per_task)
		return "keeps no latency per task (--per-task)";
	return NULL;
}

const char *hist_bpf_conflict(const struct hctx *c)
{
	return in_kernel_conflict(c, NULL);
}

const char *hist_kernel_conflict(const struct hctx *c)
{
	static char why[512];

	const char *common = in_kernel_conflict(c, "has no irqsoff/preemptoff histograms (--irqsoff)");
	if (common)
		return common;
	for (int t = 0; t < HSET_NR_KINDS && c->o.types_given; t++)
		if (c->o.types[t] && histtrig_kind_refusal(t)) {
			snprintf(why, sizeof(why), "cannot express %s (--types): it %s",
				 hset_kind_name(t), histtrig_kind_refusal(t));
			return why;
		}
	return NULL;
}
