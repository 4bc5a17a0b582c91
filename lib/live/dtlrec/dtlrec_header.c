/* SPDX-License-Identifier: MIT */
/* dtlrec_header.c - the DTL recorder's perf.data header: the events, the
 * features and the records perf record writes first (see dtlrec.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/safeout.h"
#include "dtlrec_int.h"
#include "format/tracedata.h"

#ifndef LATSCOPE_VERSION
#define LATSCOPE_VERSION "unknown"
#endif

static int write_u32_str(uint8_t *p, size_t cap, size_t *n, const char *s)
{
	size_t l = strlen(s) + 1, pl = (l + 63) / 64 * 64;

	if (*n + 4 + pl > cap)
		return -E2BIG;
	bytes_st32(p + *n, (uint32_t)pl, false);
	memset(p + *n + 4, 0, pl);
	memcpy(p + *n + 4, s, l);
	*n += 4 + pl;
	return 0;
}

int dtlrec_write_header(struct dtlrec *r, const char *output)
{
	if (r->o.sink)
		return 0;	/* no file */
	struct safeout_refusal why;
	struct pdwrite_opts wo = { .big_endian = BYTES_HOST_BIG_ENDIAN, .force = r->o.force, .checkpoint = true,
				   .refusal = &why };
	uint64_t *ids = calloc(r->nc, sizeof(*ids));
	char name[128];
	struct utsname u;
	int err, ev_first = -1;

	if (!ids)
		return -ENOMEM;
	err = pdwrite_open(&r->w, output, &wo);
	if (err) {
		free(ids);
		char msg[PATH_MAX + 160];
		return dtlrec_seterr(r, err, "cannot create %s: %s", output,
				     safeout_explain(msg, sizeof(msg), err, &why));
	}
	struct pdformat_attr a = { 0 };
	a.type = r->pmu ? r->pmu_type : PDFORMAT_TYPE_RAW;
	a.config = r->o.mask;
	a.sample_period = r->o.period_ns;
	a.sample_type = DTL_VPA_SAMPLE_TYPE;	/* perf record's */
	a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
	for (unsigned i = 0; i < r->nc; i++)
		ids[i] = r->pmu ? r->c[i].id_dtl : SYNTH_ID_BASE + r->c[i].cpu;
	snprintf(name, sizeof(name), "vpa_dtl/%s/", r->o.event ? r->o.event : "dtl_all");
	err = pdwrite_add_evsel(r->w, &a, name, ids, r->nc);
	if (err >= 0)
		ev_first = err;
	for (size_t t = 0; err >= 0 && t < r->o.nr_tracepoints; t++) {
		struct pdformat_attr ta = { 0 };
		ta.type = PDFORMAT_TYPE_TRACEPOINT;
		ta.config = r->tp_id[t];
		ta.sample_period = 1;
		ta.sample_type = PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME |
				 PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW;
		ta.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) |
			   (1ULL << PDFORMAT_ATTR_FLAG_EXCLUDE_GUEST);
		for (unsigned i = 0; i < r->nc; i++)
			ids[i] = r->c[i].id_tp[t];
		err = pdwrite_add_evsel(r->w, &ta, r->o.tracepoints[t], ids, r->nc);
	}
	free(ids);
	if (err < 0)
		return dtlrec_seterr(r, err, "cannot describe the events: %s", strerror(-err));
	err = 0;
	if (r->tf)
		err = tracedata_set_tracing_data(r->w, r->tf, BYTES_HOST_BIG_ENDIAN);
	if (!err && !uname(&u)) {
		pdwrite_set_string_feature(r->w, PDFORMAT_FEAT_HOSTNAME, u.nodename);
		pdwrite_set_string_feature(r->w, PDFORMAT_FEAT_OSRELEASE, u.release);
		pdwrite_set_string_feature(r->w, PDFORMAT_FEAT_ARCH, u.machine);
	}
	if (!err)
		err = pdwrite_set_string_feature(r->w, PDFORMAT_FEAT_VERSION, "latscope " LATSCOPE_VERSION);
	if (!err) {
		long n = sysconf(_SC_NPROCESSORS_ONLN), m = sysconf(_SC_NPROCESSORS_CONF);
		err = pdwrite_set_nrcpus(r->w, (uint32_t)(m > 0 ? m : 1), (uint32_t)(n > 0 ? n : 1));
	}
	if (!err && r->o.argc > 0)
		err = pdwrite_set_cmdline(r->w, r->o.argc, r->o.argv);
	if (!err) {
		uint8_t pm[512];
		size_t n = 4;
		bytes_st32(pm, 2, false);
		bytes_st32(pm + n, PDFORMAT_TYPE_TRACEPOINT, false);
		n += 4;
		write_u32_str(pm, sizeof(pm), &n, "tracepoint");
		bytes_st32(pm + n, r->pmu ? r->pmu_type : PDFORMAT_TYPE_RAW, false);
		n += 4;
		write_u32_str(pm, sizeof(pm), &n, r->pmu ? "vpa_dtl" : "raw");
		err = pdwrite_set_raw_feature(r->w, PDFORMAT_FEAT_PMU_MAPPINGS, pm, n);
	}
	if (!err)
		err = pdwrite_begin_data(r->w);
	if (!err)
		err = pdwrite_write_auxtrace_info(r->w, PDFORMAT_AUXTRACE_VPA_DTL, (const uint64_t[]){ 0 }, 1);
	if (err)
		return dtlrec_seterr(r, err, "writing %s: %s", output, strerror(-err));
	{
		char procfs[4096];	/* every thread's name, as perf record starts */
		snprintf(procfs, sizeof(procfs), "%s/kallsyms", dtlrec_root(r->o.procfs, "/proc"));
		/* the kernel's map, as perf record writes it: perf script names
		 * srr0's symbols with it (without kallsyms, none: perf's
		 * [unknown], latscope's --kallsyms) */
		err = pdwrite_write_kernel_mmap(r->w, ev_first, procfs, NULL);
		if (err)
			return dtlrec_seterr(r, err, "writing %s: %s", output, strerror(-err));
		snprintf(procfs, sizeof(procfs), "%s", dtlrec_root(r->o.procfs, "/proc"));
		pdwrite_write_task_comms(r->w, r->o.nr_tracepoints ? ev_first + 1 : ev_first, procfs);
	}
	return 0;
}
