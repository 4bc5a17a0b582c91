/* SPDX-License-Identifier: MIT */
/*
 * backend.c - what a `latscope hist` command line asks of a backend, in the
 * backend-neutral words of engine/hsource.h (struct hsource_need).  cli.c
 * refuses an explicit --backend that cannot serve it, run.c picks the
 * backend for auto with it; below both, so neither depends on the other.
 */
#include "hist.h"

void hist_need(const struct hctx *c, struct hsource_need *need)
{
	*need = (struct hsource_need){
		.record = c->o.record_out != NULL,
		.irqsoff = c->lo.irqsoff_live,
		.keep_busy = c->lo.keep_busy > 0,
		.per_task = c->o.per_task,
		.kinds = c->o.types_given ? c->o.types : NULL,
	};
}
