/* SPDX-License-Identifier: MIT */
/*
 * osneng_params.c - the osnoise engine's parameters as a recording carries
 * them (latscope-osnoise version string, the osnp feature), and what a
 * perf.data file can be replayed as.  Pure: no engine state.  Prefix osneng_.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/lhist.h"
#include "engine/osneng.h"
#include "live/osnkernel.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tpevent.h"

void osneng_params_format(const struct osneng_opts *o, char *buf, size_t len)
{
	char cl[512];
	parse_cpulist_format(&o->cpus, cl, sizeof(cl));
	snprintf(buf, len, "latscope-osnoise threshold_us=%" PRIu64 " period_us=%" PRIu64
		 " runtime_us=%" PRIu64 " stop_us=%" PRIu64 " stop_total_us=%" PRIu64 " no_workload=%d"
		 "%s cpus=%s", o->threshold_us, o->period_us, o->runtime_us, o->stop_us,
		 o->stop_total_us, o->no_workload, o->softirq_in_threads ? " softirq_in_threads=1" : "", cl);
}

void osneng_params_to_osnp(const struct osneng_opts *o, struct pdformat_osnp *p)
{
	_Static_assert(sizeof(p->cpus) == sizeof(o->cpus.bits), "CPU bitmaps differ");
	memset(p, 0, sizeof(*p));
	p->version = PDFORMAT_OSNP_VERSION;
	p->threshold_us = o->threshold_us;
	p->period_us = o->period_us;
	p->runtime_us = o->runtime_us;
	p->stop_us = o->stop_us;
	p->stop_total_us = o->stop_total_us;
	p->flags = (o->no_workload ? PDFORMAT_OSNP_NO_WORKLOAD : 0) |
		   (o->softirq_in_threads ? PDFORMAT_OSNP_SOFTIRQ_IN_THREADS : 0);
	memcpy(p->cpus, o->cpus.bits, sizeof(p->cpus));
}

bool osneng_params_apply(const char *ver, struct osneng_opts *o, bool have_T, bool have_cpus)
{
	const char *p;
	uint64_t v;
	if (!ver || strncmp(ver, "latscope-osnoise ", 17))
		return false;
	if ((p = strstr(ver, "threshold_us=")) && sscanf(p + 13, "%" SCNu64, &v) == 1 &&
	    (!have_T || o->threshold_us < v))
		o->threshold_us = v;
	if ((p = strstr(ver, "period_us=")) && sscanf(p + 10, "%" SCNu64, &v) == 1)
		o->period_us = v;
	if ((p = strstr(ver, "runtime_us=")) && sscanf(p + 11, "%" SCNu64, &v) == 1)
		o->runtime_us = v;
	if ((p = strstr(ver, "no_workload=1")))
		o->no_workload = true;
	if ((p = strstr(ver, "softirq_in_threads=1")))
		o->softirq_in_threads = true;
	char cl[512];
	struct parse_cpuset set;
	if (!have_cpus && (p = strstr(ver, "cpus=")) && sscanf(p + 5, "%511s", cl) == 1 &&
	    !parse_cpulist(cl, &set)) {
		o->cpus = set;
		return true;
	}
	return false;
}

bool osneng_params_take(const struct pdread *r, struct osneng_opts *o, bool have_T, bool have_cpus)
{
	const struct pdread_info *in = pdread_info(r);
	if (!in->has_osnoise_params)	/* written before the feature: VERSION text */
		return osneng_params_apply(in->version, o, have_T, have_cpus);
	const struct pdformat_osnp *p = &in->osnoise_params;
	if (!have_T || o->threshold_us < p->threshold_us)
		o->threshold_us = p->threshold_us;
	o->period_us = p->period_us;
	o->runtime_us = p->runtime_us;
	if (p->flags & PDFORMAT_OSNP_NO_WORKLOAD)
		o->no_workload = true;
	/* the recording's kernel decides, not the replaying one's */
	o->softirq_in_threads = p->flags & PDFORMAT_OSNP_SOFTIRQ_IN_THREADS;
	struct parse_cpuset set;
	memcpy(set.bits, p->cpus, sizeof(set.bits));
	if (have_cpus || !parse_cpuset_count(&set))
		return false;
	o->cpus = set;
	return true;
}

bool osneng_is_recording(struct pdread *r)
{
	const struct pdread_info *in = pdread_info(r);
	if (in->has_osnoise_params || (in->version && !strncmp(in->version, "latscope-osnoise ", 17)))
		return true;
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		if (e->name && !strcmp(e->name, OSWORK_EVSEL_NAME))
			return true;
	}
	return false;
}

bool osneng_has_switches(struct pdread *r)
{
	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		if (e->name && !strcmp(e->name, "sched:sched_switch"))
			return true;
	}
	return false;
}

